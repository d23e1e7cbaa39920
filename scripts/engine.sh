#!/usr/bin/env bash
# npm run engine: the Pulumi engine that test:engine drives, built into a cache outside the clone:
#   pulumi                          github.com/pulumi/pulumi/pkg/v3 cmd/pulumi, from Go modules (engine/go.mod)
#   pulumi-language-nodejs, -go, -yaml, and pulumi-resource-azuread 6.9.1
#                                   Pulumi's own hosts and provider, which the Go module proxy refuses,
#                                   built by shared/engine/build.sh from its pinned public source
#                                   (cached, keyed by the sha256 of sources.tar.xz and of build.sh)
#   pulumi-resource-pulumi-nodejs   the dynamic-provider host script @pulumi/pulumi ships
# A Pulumi CLI already on PATH, at or above the @pulumi/pulumi the kit pins, is used as it is
# instead, with its own plugin acquisition.
# Progress goes to stderr. The last two lines of stdout are
#   PULUMI_ENGINE_BIN=<dir>        pulumi, its language hosts and the dynamic-provider host: the dir for PATH
#   PULUMI_AZUREAD_PLUGIN=<file>   for `pulumi plugin install resource azuread 6.9.1 --file <file>`; empty
#                                  when the CLI on PATH acquires its plugins itself
# The provider binary stays out of the PATH dir: the engine would launch it from there instead of
# from the plugin cache.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
say() { echo "engine: $*" >&2; }
fail() { say "$*"; exit 1; }

sdk=$(node -p 'require(process.argv[1]).version' "$root/node_modules/@pulumi/pulumi/package.json" 2>/dev/null) ||
  fail "node_modules/@pulumi/pulumi is missing: run npm ci first"

# "3.270.0" sorts at or above "3.248.1"?
at_least() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }

cache="${XDG_CACHE_HOME:-$HOME/.cache}/agent-user-kit-engine"
if on_path=$(command -v pulumi 2>/dev/null) && [[ "$on_path" != "$cache"/* ]]; then
  cli=$(pulumi version 2>/dev/null | sed 's/^v//') || cli=""
  if [ -n "$cli" ] && at_least "$cli" "$sdk"; then
    say "using the Pulumi CLI on PATH, $on_path (v$cli, at or above @pulumi/pulumi $sdk), with its own plugin acquisition"
    echo "PULUMI_ENGINE_BIN=$(dirname "$on_path")"
    echo "PULUMI_AZUREAD_PLUGIN="
    exit 0
  fi
  say "the Pulumi CLI on PATH ($on_path, v${cli:-unknown}) is older than @pulumi/pulumi $sdk: building one"
fi

command -v go >/dev/null 2>&1 || fail "go is not on PATH: the Pulumi engine is built from Go modules (Go 1.26 or later, with the Go module proxy)"
dynamic_host="$root/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs"
[ -f "$dynamic_host" ] || fail "$dynamic_host is missing: run npm ci first"

# The pinned public source of the parts the proxy refuses: AGENT_USER_KIT_ENGINE_SOURCES, else the first
# shared/engine beside the clone or one of its parents (the workplace keeps it at ../shared/engine).
sources="${AGENT_USER_KIT_ENGINE_SOURCES:-}"
if [ -z "$sources" ]; then
  dir="$root"
  while [ "$dir" != / ]; do
    dir=$(dirname "$dir")
    if [ -f "$dir/shared/engine/build.sh" ]; then sources="$dir/shared/engine"; break; fi
  done
fi
[ -n "$sources" ] && [ -f "$sources/build.sh" ] && [ -f "$sources/sources.tar.xz" ] ||
  fail "no shared/engine (build.sh and sources.tar.xz) beside the clone or its parents: set AGENT_USER_KIT_ENGINE_SOURCES to that folder"

version=$(sed -n 's#^[[:space:]]*github.com/pulumi/pulumi/pkg/v3 \(v[^ ]*\).*#\1#p' "$root/engine/go.mod")
[ -n "$version" ] || fail "engine/go.mod requires no github.com/pulumi/pulumi/pkg/v3"
parts_key=$(cat "$sources/sources.tar.xz" "$sources/build.sh" | sha256sum | cut -c1-16)
# The CLI's version set: Go itself, the wrapper module, and the dynamic-provider host of the installed @pulumi/pulumi.
cli_key=$( { go version; cat "$root/engine/go.mod" "$root/engine/go.sum" "$dynamic_host"; } | sha256sum | cut -c1-16)
parts="$cache/parts-$parts_key"
bin="$cache/pulumi-${version#v}-$cli_key-$parts_key"
mkdir -p "$cache"

# nice: a cold build takes every core for minutes; the machine stays usable.
if [ ! -f "$parts/.complete" ]; then
  work=$(mktemp -d "$cache/.parts-XXXXXX")
  trap 'rm -rf "$work"' EXIT
  start=$SECONDS
  say "building Pulumi's language hosts and the azuread provider from $sources (4 to 7 minutes cold)"
  WORK="$work" OUT_DIR="$work/out" bash "$sources/build.sh" >&2
  if [ -f "$sources/SHA256SUMS" ]; then
    # Reproducible with the Go that SHA256SUMS was made with; another Go builds other bytes, which work the same.
    (cd "$work/out" && sha256sum --quiet -c "$sources/SHA256SUMS") >&2 ||
      say "note: the binaries differ from $sources/SHA256SUMS (built with $(go env GOVERSION))"
  fi
  rm -rf "$parts"
  mkdir -p "$parts"
  mv "$work/out" "$parts/out"
  touch "$parts/.complete"
  rm -rf "$work"
  trap - EXIT
  say "built the parts in $((SECONDS - start)) s into $parts"
fi

if [ ! -f "$bin/.complete" ]; then
  work=$(mktemp -d "$cache/.build-XXXXXX")
  trap 'rm -rf "$work"' EXIT
  start=$SECONDS
  cd "$root/engine"
  say "downloading the modules of Pulumi $version (GOMODCACHE $(go env GOMODCACHE))"
  nice -n 19 go mod download
  say "building pulumi $version (a cold build takes long; later builds reuse GOCACHE $(go env GOCACHE))"
  nice -n 19 go build -trimpath -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$version" \
    -o "$work/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
  for host in nodejs go yaml; do install -m 0755 "$parts/out/pulumi-language-$host" "$work/"; done
  install -m 0755 "$dynamic_host" "$work/pulumi-resource-pulumi-nodejs"
  touch "$work/.complete"
  rm -rf "$bin"
  mv "$work" "$bin"
  trap - EXIT
  say "built pulumi in $((SECONDS - start)) s: $(du -sh "$bin" | cut -f1) in $bin"
else
  say "Pulumi $version and its language hosts are already built in $bin"
fi
echo "PULUMI_ENGINE_BIN=$bin"
echo "PULUMI_AZUREAD_PLUGIN=$parts/out/pulumi-resource-azuread"
