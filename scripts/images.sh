#!/usr/bin/env bash
# `make images`: every image the platform runs in, built with podman from Debian's archive and
# this checkout, without a registry (docs/deploy.md, "Images without a registry"):
#  - pix/node-base:<key>   Debian bookworm (mmdebstrap, minbase) with this machine's Node 20 and
#                          npm, and the user node (1000): the Dockerfile's NODE_IMAGE;
#  - pix/<service>:dev     the Dockerfile's six images (four services, the PSP simulator, the admin CLI);
#  - pix/nats:local        nats-server as scripts/install-infra.sh builds it;
#  - pix/engine:local      PostgreSQL 15 with DocumentDB and FerretDB 2.7 (the local engine), on
#                          pix/postgres-base:<key> (Debian's PostgreSQL packages, mmdebstrap).
# Cached: a base is made once per key (what goes into it), and podman reuses every layer whose
# inputs did not change, so a second run with no change takes seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/podman-env.sh
source scripts/podman-env.sh
podman_install
podman_configure

SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
# Point releases and security fixes too, as the machine's own apt has them: DocumentDB is built
# against the machine's PostgreSQL and needs the same minor version at run time.
SOURCES=("deb $MIRROR $SUITE main" "deb $MIRROR $SUITE-updates main" "deb $SECURITY_MIRROR $SUITE-security main")
SERVICES=(gateway payments pix-provider-adapter webhook-dispatcher psp-simulator admin)
# The proxy's CA, where the machine reaches registries through one (npm inside the build stage).
CA_BUNDLE=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
# The local engine's runtime: PostgreSQL and the extensions DocumentDB requires from Debian, at the
# versions DocumentDB was built against here (scripts/install-postgresql.sh).
PG_PACKAGES=()
for pkg in postgresql-15 postgresql-15-rum postgresql-15-postgis-3; do
  PG_PACKAGES+=("$pkg=$(dpkg-query -W -f='${Version}' "$pkg")")
done

say() { printf 'images: %s\n' "$*"; }
elapsed() { echo "$(($(date +%s) - $1)) s"; }
start=$(date +%s)
work="$root/.run/images"
mkdir -p "$work"

# base <image> <key> <mmdebstrap options...>: makes the image from a Debian minbase unless that
# key's image exists.
base() {
  local image=$1 key=$2
  shift 2
  if podman image exists "$image:$key"; then
    say "$image:$key present"
    return
  fi
  local t
  t=$(date +%s)
  say "making $image:$key from Debian $SUITE (mmdebstrap)"
  mmdebstrap --quiet --variant=minbase "$@" \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/*' \
    "$SUITE" "$work/rootfs.tar" "${SOURCES[@]}"
  podman import --quiet \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    "$work/rootfs.tar" "$image:$key" >/dev/null
  rm -f "$work/rootfs.tar"
  say "$image:$key made in $(elapsed "$t")"
}

key() { printf '%s\n' "$@" | sha256sum | cut -c1-12; }

# Node and npm are this machine's (the registries hold no Node binary for us to fetch).
node_bin=$(command -v node)
npm_dir=$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)
node_key=$(key "$SUITE" "$(node --version)" "$(npm --version)" v1)
base localhost/pix/node-base "$node_key" --include=ca-certificates \
  --customize-hook="copy-in $node_bin /usr/local/bin" \
  --customize-hook='mkdir -p "$1/usr/local/lib/node_modules"' \
  --customize-hook="copy-in $npm_dir /usr/local/lib/node_modules" \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"' \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
  --customize-hook='chroot "$1" groupadd -g 1000 node' \
  --customize-hook='chroot "$1" useradd -u 1000 -g node -m -s /bin/sh node'
NODE_BASE="localhost/pix/node-base:$node_key"
# The name tests/compose/stack.test.ts runs its webhook receiver in.
podman tag "$NODE_BASE" localhost/pix/node-base:current

pg_key=$(key "$SUITE" "${PG_PACKAGES[@]}" v1)
base localhost/pix/postgres-base "$pg_key" --include="$(IFS=,; echo "${PG_PACKAGES[*]}")" \
  --customize-hook='rm -rf "$1"/var/lib/postgresql/15/main "$1"/etc/postgresql/15/main'
PG_BASE="localhost/pix/postgres-base:$pg_key"

build() {
  local tag=$1 t log
  shift
  t=$(date +%s)
  log="$work/build-${tag//[:\/]/_}.log"
  podman build --layers "$@" -t "$tag" >"$log" 2>&1 || {
    say "$tag failed; the end of its build log ($log):"
    tail -40 "$log"
    exit 1
  }
  say "$tag built in $(elapsed "$t")"
}

for service in "${SERVICES[@]}"; do
  build "localhost/pix/$service:dev" --build-arg NODE_IMAGE="$NODE_BASE" --build-arg SERVICE="$service" \
    --secret id=ca-certificates,src="$CA_BUNDLE" -f Dockerfile .
done

ctx="$work/nats"
rm -rf "$ctx" && mkdir -p "$ctx"
bash scripts/install-infra.sh >/dev/null
cp .tools/bin/nats-server deploy/images/http-ok.sh "$ctx/"
build localhost/pix/nats:local --build-arg BASE="$NODE_BASE" -f deploy/images/nats.Containerfile "$ctx"

ctx="$work/engine"
rm -rf "$ctx" && mkdir -p "$ctx"
stage=$(bash scripts/install-postgresql.sh --stage-dir)
# Headers and bitcode are for building against PostgreSQL, not for running it.
cp -a "$stage" "$ctx/stage"
rm -rf "$ctx/stage/usr/include"
find "$ctx/stage" -name bitcode -prune -exec rm -rf {} +
cp .tools/bin/ferretdb deploy/images/engine-entrypoint.sh deploy/images/http-ok.sh "$ctx/"
node tools/devstack/dist/main.js engine-settings >"$ctx/engine.conf"
build localhost/pix/engine:local --build-arg BASE="$PG_BASE" -f deploy/images/engine.Containerfile "$ctx"

podman images --filter reference='localhost/pix/*' --format '{{.Repository}}:{{.Tag}} {{.Size}}' | sort | sed 's/^/images:   /'
say "done in $(elapsed "$start")"
