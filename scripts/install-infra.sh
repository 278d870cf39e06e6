#!/usr/bin/env bash
# Makes sure nats-server (JetStream) and FerretDB are in .tools/bin, building them with Go at pinned
# versions when missing. No Docker is needed; Go comes with the machine.
set -euo pipefail

NATS_VERSION=v2.15.2
FERRETDB_VERSION=v1.24.2

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.tools/bin"
mkdir -p "$bin"

# The version check reads the whole output first: `grep -q` closing the pipe early would fail the
# pipeline under pipefail and cause a needless rebuild.
have() {
  [ -x "$bin/$1" ] || return 1
  local out
  out=$("$bin/$1" --version 2>/dev/null) || return 1
  [[ "$out" == *"${2#v}"* ]]
}

if ! command -v go >/dev/null 2>&1; then
  echo "Go is needed to build nats-server and FerretDB; install it (https://go.dev/dl/) and retry." >&2
  exit 1
fi

if have nats-server "$NATS_VERSION"; then
  echo "nats-server $NATS_VERSION present"
else
  echo "building nats-server $NATS_VERSION ..."
  GOBIN="$bin" GOFLAGS=-buildvcs=false go install "github.com/nats-io/nats-server/v2@$NATS_VERSION"
fi

if have ferretdb "$FERRETDB_VERSION"; then
  echo "ferretdb $FERRETDB_VERSION present"
else
  echo "building ferretdb $FERRETDB_VERSION ..."
  # `go install ...@version` asks the proxy for FerretDB's version list, which it refuses; the module
  # itself downloads fine. FerretDB also wants its version in build/version/version.txt.
  src=$(GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  work=$(mktemp -d)
  trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
  cp -r "$src/." "$work/"
  chmod -R u+w "$work"
  echo "$FERRETDB_VERSION" > "$work/build/version/version.txt"
  (cd "$work" && GOFLAGS=-buildvcs=false go build -o "$bin/ferretdb" ./cmd/ferretdb)
fi
