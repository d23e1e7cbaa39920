#!/usr/bin/env bash
# npm run engine: builds the Pulumi engine the end-to-end test drives, from Go modules,
# into a cache outside the clone, once per version set:
#   pulumi                          github.com/pulumi/pulumi/pkg/v3 cmd/pulumi (engine/go.mod)
#   pulumi-language-nodejs          engine/language-nodejs (see its main.go for why it is ours)
#   pulumi-resource-pulumi-nodejs   the dynamic-provider host script @pulumi/pulumi ships
# Progress goes to stderr; the last line of stdout is PULUMI_ENGINE_BIN=<dir>.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
say() { echo "engine: $*" >&2; }

if ! command -v go >/dev/null 2>&1; then
  say "go is not on PATH: the Pulumi engine is built from Go modules (Go 1.26 or later, with the Go module proxy)"
  exit 1
fi
dynamic_host="$root/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs"
if [ ! -f "$dynamic_host" ]; then
  say "$dynamic_host is missing: run npm ci first"
  exit 1
fi

version=$(sed -n 's#^[[:space:]]*github.com/pulumi/pulumi/pkg/v3 \(v[^ ]*\).*#\1#p' "$root/engine/go.mod")
[ -n "$version" ] || { say "engine/go.mod requires no github.com/pulumi/pulumi/pkg/v3"; exit 1; }
# The version set: Go itself, the wrapper module, and the dynamic-provider host of the installed @pulumi/pulumi.
key=$( { go version; cat "$root/engine/go.mod" "$root/engine/go.sum" "$root"/engine/language-nodejs/*.go "$dynamic_host"; } | sha256sum | cut -c1-16)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/agent-user-kit-engine"
bin="$cache/pulumi-${version#v}-$key"

if [ -f "$bin/.complete" ]; then
  say "Pulumi $version is already built in $bin"
  echo "PULUMI_ENGINE_BIN=$bin"
  exit 0
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/.build-XXXXXX")
trap 'rm -rf "$work"' EXIT
ldflags="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$version"
start=$SECONDS
cd "$root/engine"
# nice: a cold build takes every core for many minutes; the machine stays usable.
say "downloading the modules of Pulumi $version (GOMODCACHE $(go env GOMODCACHE))"
nice -n 19 go mod download
say "building pulumi $version (a cold build takes long; later builds reuse GOCACHE $(go env GOCACHE))"
nice -n 19 go build -trimpath -ldflags "$ldflags" -o "$work/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
say "building pulumi-language-nodejs"
nice -n 19 go build -trimpath -ldflags "$ldflags" -o "$work/pulumi-language-nodejs" ./language-nodejs
install -m 0755 "$dynamic_host" "$work/pulumi-resource-pulumi-nodejs"
touch "$work/.complete"
rm -rf "$bin"
mv "$work" "$bin"
trap - EXIT
say "built in $((SECONDS - start)) s: $(du -sh "$bin" | cut -f1) in $bin"
echo "PULUMI_ENGINE_BIN=$bin"
