#!/usr/bin/env bash
# npm run engine: the Pulumi engine that test:engine drives, built from Go modules alone (the Go module
# proxy), each version pinned in a wrapper module under engine/, into a cache outside the clone:
#   pulumi                          github.com/pulumi/pulumi/pkg/v3 cmd/pulumi            engine/go.mod
#   gensdk                          Pulumi's SDK generators (pkg/v3 codegen), engine/gensdk  engine/go.mod
#   pulumi-language-nodejs          github.com/pulumi/pulumi/sdk/v3 nodejs/cmd/...       engine/hosts/nodejs
#   pulumi-language-python(-exec)   github.com/pulumi/pulumi/sdk/v3 python/cmd/...       engine/hosts/python
#   pulumi-language-go              github.com/pulumi/pulumi/sdk/v3 go/pulumi-language-go engine/hosts/go
#   pulumi-language-yaml            github.com/pulumi/pulumi-yaml cmd/pulumi-language-yaml engine/hosts/yaml
#   pulumi-resource-pulumi-nodejs   the dynamic-provider host script @pulumi/pulumi ships
# The hosts are the last versions the proxy serves inside those modules (their own newer modules are
# refused); none of them generates SDKs, which is why gensdk exists. No azuread plugin is built: the
# proxy serves none, and a released CLI downloads it.
# A Pulumi CLI already on PATH, at or above the @pulumi/pulumi the kit pins, is used as it is instead,
# with its own plugin acquisition and `pulumi package add`.
# Progress goes to stderr, at least every 30 s. Stdout is three lines, for `eval`:
#   PULUMI_ENGINE_BIN=<dir>         pulumi, its language hosts and the dynamic-provider host: the dir for PATH
#   PULUMI_ENGINE_SOURCE=modules    built here; `path` for a CLI found on PATH
#   PULUMI_SDK_GENERATOR=<file>     gensdk; empty for a CLI on PATH, whose `pulumi package add` generates SDKs
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
    echo "PULUMI_ENGINE_SOURCE=path"
    echo "PULUMI_SDK_GENERATOR="
    exit 0
  fi
  say "the Pulumi CLI on PATH ($on_path, v${cli:-unknown}) is older than @pulumi/pulumi $sdk: building one"
fi

command -v go >/dev/null 2>&1 || fail "go is not on PATH: the Pulumi engine is built from Go modules (Go 1.26 or later, with the Go module proxy)"
dynamic_host="$root/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs"
[ -f "$dynamic_host" ] || fail "$dynamic_host is missing: run npm ci first"
mkdir -p "$cache"
goversion=$(go env GOVERSION)

# The version a wrapper module pins for MODULE, from its go.mod.
pinned() { sed -n "s#^[[:space:]]*\(require \)\{0,1\}$2 \(v[^ ]*\).*#\2#p" "$1/go.mod" | head -n 1; }

# Runs "$@" niced (a cold build takes every core for minutes; the machine stays usable), saying every
# 30 s that it still runs; fails with its status.
with_progress() {
  local what=$1; shift
  local start=$SECONDS
  nice -n 19 "$@" >&2 &
  local job=$!
  while ! wait_for "$job" 30; do say "still $what ($((SECONDS - start)) s so far)"; done
  wait "$job" || fail "$what failed (exit $?)"
}
# True once process $1 has ended, false after $2 seconds of it running.
wait_for() {
  local i
  for ((i = 0; i < $2 * 5; i++)); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.2
  done
  ! kill -0 "$1" 2>/dev/null
}

# part NAME MODULE_DIR STAMP PACKAGE... : builds each package of the wrapper module into the cache, keyed by
# Go, the module's go.mod and go.sum and its own sources; STAMP is "VARIABLE MODULE", the version variable
# set to the version the wrapper pins for MODULE (what `pulumi version` and `pulumi about` report).
# Prints the part's directory.
part() {
  local name=$1 dir=$2 stamp=$3; shift 3
  local key
  key=$( { echo "$goversion $stamp $*"; cat "$dir/go.mod" "$dir/go.sum"; find "$dir" -maxdepth 2 -name '*.go' -print0 | sort -z | xargs -0 -r cat; } | sha256sum | cut -c1-16)
  local out="$cache/$name-$key"
  if [ -f "$out/.complete" ]; then
    say "$name: built already, $out"
  else
    local work start=$SECONDS
    work=$(mktemp -d "$cache/.$name-XXXXXX")
    # shellcheck disable=SC2064
    trap "rm -rf '$work'" EXIT
    (cd "$dir" && with_progress "downloading the modules of $name" go mod download)
    local pkg version
    version=$(pinned "$dir" "${stamp#* }")
    [ -n "$version" ] || fail "$dir/go.mod requires no ${stamp#* }"
    for pkg in "$@"; do
      (cd "$dir" && with_progress "building ${pkg##*/} $version ($name; GOCACHE $(go env GOCACHE))" \
        go build -trimpath -ldflags "-s -w -X ${stamp% *}=$version" -o "$work/${pkg##*/}" "$pkg")
    done
    touch "$work/.complete"
    rm -rf "$out"
    mv "$work" "$out"
    trap - EXIT
    say "$name: built in $((SECONDS - start)) s into $out"
  fi
  printf '%s\n' "$out"
}

total=$SECONDS
say "building the Pulumi engine from Go modules ($goversion; cold on 2 cores: 6 to 15 minutes by the load, most of it the CLI; warm: seconds)"
pulumi_version="github.com/pulumi/pulumi/sdk/v3/go/common/version.Version"
cli=$(part cli "$root/engine" "$pulumi_version github.com/pulumi/pulumi/pkg/v3" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi ./gensdk)
nodejs=$(part nodejs "$root/engine/hosts/nodejs" "$pulumi_version github.com/pulumi/pulumi/sdk/v3" github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs)
python=$(part python "$root/engine/hosts/python" "$pulumi_version github.com/pulumi/pulumi/sdk/v3" github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python)
golang=$(part go "$root/engine/hosts/go" "$pulumi_version github.com/pulumi/pulumi/sdk/v3" github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go)
yaml=$(part yaml "$root/engine/hosts/yaml" "github.com/pulumi/pulumi-yaml/pkg/version.Version github.com/pulumi/pulumi-yaml" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml)

# The Python host runs the program through pulumi-language-python-exec, a script of the same module.
python_module=$(cd "$root/engine/hosts/python" && go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3)
python_exec="$python_module/python/cmd/pulumi-language-python-exec"
[ -f "$python_exec" ] || fail "$python_exec is missing from the module cache"

# The PATH dir: one of each, linked from the parts (copied where the cache spans file systems).
bin_key=$(printf '%s\n' "$cli" "$nodejs" "$python" "$golang" "$yaml" | cat - "$dynamic_host" "$python_exec" "$0" | sha256sum | cut -c1-16)
bin="$cache/bin-$bin_key"
if [ ! -f "$bin/.complete" ]; then
  work=$(mktemp -d "$cache/.bin-XXXXXX")
  trap 'rm -rf "$work"' EXIT
  place() { ln -f "$1" "$work/$2" 2>/dev/null || install -m 0755 "$1" "$work/$2"; }
  place "$cli/pulumi" pulumi
  # That host proxies the resource monitor without RegisterErrorHook, though the engine claims error hooks:
  # its programs are told to attach none (infra/components/credential-refused.ts) rather than fail.
  place "$nodejs/pulumi-language-nodejs" pulumi-language-nodejs-host
  printf '#!/bin/sh\nAGENT_USER_KIT_ERROR_HOOKS=off exec "$(dirname "$0")/pulumi-language-nodejs-host" "$@"\n' >"$work/pulumi-language-nodejs"
  chmod 0755 "$work/pulumi-language-nodejs"
  place "$python/pulumi-language-python" pulumi-language-python
  place "$golang/pulumi-language-go" pulumi-language-go
  place "$yaml/pulumi-language-yaml" pulumi-language-yaml
  install -m 0755 "$python_exec" "$work/pulumi-language-python-exec"
  install -m 0755 "$dynamic_host" "$work/pulumi-resource-pulumi-nodejs"
  touch "$work/.complete"
  rm -rf "$bin"
  mv "$work" "$bin"
  trap - EXIT
fi
say "the Pulumi engine is ready in $bin ($((SECONDS - total)) s)"
echo "PULUMI_ENGINE_BIN=$bin"
echo "PULUMI_ENGINE_SOURCE=modules"
echo "PULUMI_SDK_GENERATOR=$cli/gensdk"
