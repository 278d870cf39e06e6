#!/usr/bin/env bash
# Makes sure nats-server (JetStream) and FerretDB 2 are in .tools/bin, building them with Go at
# pinned versions when missing. Each build is cached by version outside the clone
# ($PIX_BUILD_CACHE, default ~/.cache/pix-payments/bin), so a fresh clone on the same machine (as
# CI makes) copies it instead of compiling. No Docker is needed; Go comes with the machine.
set -euo pipefail

NATS_VERSION=v2.15.2
# 2.7.0 rather than 2.5.0 (the official pairing with DocumentDB 0.106): 2.5.0 opens and closes a
# PostgreSQL connection for every sorted find and every count (FerretDB #5443).
FERRETDB_VERSION=v2.7.0

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.tools/bin"
CACHE=${PIX_BUILD_CACHE:-"${XDG_CACHE_HOME:-$HOME/.cache}/pix-payments"}/bin
mkdir -p "$bin" "$CACHE"

say() { printf 'install-infra: %s\n' "$*"; }

# The version check reads the whole output first: `grep -q` closing the pipe early would fail the
# pipeline under pipefail and cause a needless rebuild.
has_version() {
  [ -x "$1" ] || return 1
  local out
  out=$("$1" --version 2>/dev/null) || return 1
  [[ "$out" == *"${2#v}"* ]]
}

# ensure <name> <version> <build-function>: .tools/bin/<name> at that version, from the cache or built.
ensure() {
  local name=$1 version=$2 build=$3 cached="$CACHE/$1-$2"
  if has_version "$bin/$name" "$version"; then
    say "$name $version present"
    return
  fi
  if ! has_version "$cached" "$version"; then
    command -v go >/dev/null 2>&1 || {
      say "Go is needed to build $name; install it (https://go.dev/dl/) and retry."
      exit 1
    }
    local started
    started=$(date +%s)
    say "building $name $version (cached in $CACHE) ..."
    "$build" "$cached.tmp"
    mv "$cached.tmp" "$cached"
    say "built $name $version in $(($(date +%s) - started)) s"
  fi
  cp "$cached" "$bin/$name.tmp"
  mv "$bin/$name.tmp" "$bin/$name"
  say "$name $version installed into .tools/bin"
}

build_nats() {
  local out=$1 gobin
  gobin=$(mktemp -d)
  GOBIN="$gobin" GOFLAGS=-buildvcs=false go install "github.com/nats-io/nats-server/v2@$NATS_VERSION"
  mv "$gobin/nats-server" "$out"
  rm -rf "$gobin"
}

build_ferretdb() {
  local out=$1 src work
  # `go install ...@version` asks the checksum database about a dependency it cannot find; the
  # module's own go.sum verifies them. FerretDB reads its version from build/version/version.txt.
  src=$(GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB/v2@$FERRETDB_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  work=$(mktemp -d)
  cp -r "$src/." "$work/"
  chmod -R u+w "$work"
  echo "$FERRETDB_VERSION" >"$work/build/version/version.txt"
  (cd "$work" && GOFLAGS=-buildvcs=false go build -o "$out" ./cmd/ferretdb)
  rm -rf "$work"
}

ensure nats-server "$NATS_VERSION" build_nats
ensure ferretdb "$FERRETDB_VERSION" build_ferretdb
