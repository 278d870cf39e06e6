#!/usr/bin/env bash
# The local MongoDB-wire engine's PostgreSQL side: Debian's PostgreSQL 15 and the DocumentDB
# extension (with pg_cron and pgvector, which it needs) built from pinned source archives.
# FerretDB 2 (scripts/install-infra.sh) speaks the MongoDB protocol on top of it. The local stack
# runs PostgreSQL as the unprivileged user `postgres` when started as root (initdb and postgres
# refuse root), so that user is created when the package did not make it.
#
# Idempotent: nothing is done when the installed extension is the pinned one. A build is cached by
# version outside the clone ($PIX_BUILD_CACHE, default ~/.cache/pix-payments), so a fresh clone on
# the same machine (as CI makes) only copies it into place. The archives come from THIRD_PARTY_DIR
# (default ../shared/third_party beside the clone), each verified by SHA-256; where that directory
# does not exist, the same upstream tags are fetched from their public repositories.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
THIRD_PARTY_DIR=${THIRD_PARTY_DIR:-"$root/../shared/third_party"}
CACHE=${PIX_BUILD_CACHE:-"${XDG_CACHE_HOME:-$HOME/.cache}/pix-payments"}
PG_MAJOR=15

# name | archive | sha256 | upstream repository | tag
SOURCES=(
  "pgvector|pgvector-0.8.0.tar.gz|f735d37c1f8a32a0c46f29db63860bdc1ed06a423d4280767afbd38f1fe58778|https://github.com/pgvector/pgvector|v0.8.0"
  "pg_cron|pg_cron-1.6.3.tar.gz|105b669241ea200f0e9a5ffbc2c4e8c33b0dfaba2b13e06cdb4621382b7995d5|https://github.com/citusdata/pg_cron|v1.6.3"
  "documentdb|documentdb-0.106.0-ferretdb-2.5.0.tar.gz|8dfc49f93cbf826dc5947785753c0f0f90e098ce02895fc2ab832bd6ad8303e7|https://github.com/FerretDB/documentdb|v0.106.0-ferretdb-2.5.0"
)
# The build's identity: a different archive set is a different build.
BUILD_ID="pg${PG_MAJOR}-$(printf '%s\n' "${SOURCES[@]}" | sha256sum | cut -c1-12)"
BUILD_DIR="$CACHE/documentdb-$BUILD_ID"
STAGE="$BUILD_DIR/stage"
STAMP_NAME=pix-documentdb.stamp

# `install-postgresql.sh --stage-dir` prints where the build's staged tree is (scripts/images.sh
# copies it into the local engine's image), after making sure it is built and installed.
PRINT_STAGE=false
[ "${1:-}" = --stage-dir ] && PRINT_STAGE=true

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
say() { printf 'install-postgresql: %s\n' "$*"; }
elapsed() { echo "$(($(date +%s) - $1)) s"; }

# The packages DocumentDB builds against and loads at run time. Debian's postgresql-15-cron is
# deliberately absent: its 1.4.2 refuses DocumentDB's "2 seconds" schedule.
PACKAGES=(postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR libpq-dev postgresql-$PG_MAJOR-rum
  postgresql-$PG_MAJOR-postgis-3 libbson-dev libintelrdfpmath-dev libpcre2-dev libkrb5-dev pkg-config make gcc)

installed_build() {
  local share
  share=$(pg_config_bin --sharedir 2>/dev/null) || return 1
  [ -f "$share/extension/$STAMP_NAME" ] && cat "$share/extension/$STAMP_NAME"
}

pg_config_bin() { "/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" "$@"; }

ensure_os_user() {
  if [ "$(id -u)" -eq 0 ] && ! id -u postgres >/dev/null 2>&1; then
    say "creating the system user postgres"
    useradd --system --user-group --home-dir /var/lib/postgresql --shell /usr/sbin/nologin postgres
  fi
}

# (The staged tree is asked for only when the cache still holds it.)
if [ "$(installed_build || true)" = "$BUILD_ID" ] && { ! $PRINT_STAGE || [ -f "$BUILD_DIR/built" ]; }; then
  ensure_os_user
  if $PRINT_STAGE; then echo "$STAGE"; else say "DocumentDB ($BUILD_ID) present"; fi
  exit 0
fi
# What follows reports on stderr when only the staged tree's path is asked for.
if $PRINT_STAGE; then exec 3>&1 1>&2; fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  t=$(date +%s)
  say "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  say "packages installed in $(elapsed "$t")"
fi

# Debian's Intel decimal library has no pkg-config file; DocumentDB's Makefile asks for one.
PC_DIR="$BUILD_DIR/pkgconfig"
mkdir -p "$PC_DIR"
cat >"$PC_DIR/intelmathlib.pc" <<'EOF'
Name: intelmathlib
Description: Intel Decimal Floating-Point Math Library (Debian's libintelrdfpmath-dev)
Version: 2.0
Cflags: -I/usr/include
Libs: -L/usr/lib/x86_64-linux-gnu -lbidgcc000
EOF
export PKG_CONFIG_PATH="$PC_DIR${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"

# Unpacks one source into $BUILD_DIR/src/<name>, from the verified archive or the upstream tag.
unpack() {
  local name=$1 archive=$2 sum=$3 repo=$4 tag=$5 dest="$BUILD_DIR/src/$1"
  rm -rf "$dest"
  mkdir -p "$dest"
  if [ -d "$THIRD_PARTY_DIR" ]; then
    local file="$THIRD_PARTY_DIR/$archive"
    [ -f "$file" ] || { say "missing $file"; exit 1; }
    local actual
    actual=$(sha256sum "$file" | cut -d' ' -f1)
    if [ "$actual" != "$sum" ]; then
      say "refusing $file: sha256 $actual, expected $sum"
      exit 1
    fi
    tar -xzf "$file" -C "$dest" --strip-components=1
  else
    say "$THIRD_PARTY_DIR does not exist: fetching $name $tag from $repo"
    git clone -q --depth 1 --branch "$tag" "$repo" "$dest"
  fi
}

if [ -f "$BUILD_DIR/built" ]; then
  say "DocumentDB ($BUILD_ID) built before, in $BUILD_DIR: installing it"
else
  t=$(date +%s)
  say "building DocumentDB 0.106.0, pg_cron 1.6.3 and pgvector 0.8.0 for PostgreSQL $PG_MAJOR in $BUILD_DIR (a few minutes)"
  rm -rf "$STAGE"
  for entry in "${SOURCES[@]}"; do
    IFS='|' read -r name archive sum repo tag <<<"$entry"
    unpack "$name" "$archive" "$sum" "$repo" "$tag"
  done
  jobs=$(nproc)
  src="$BUILD_DIR/src"
  step() {
    local what=$1
    shift
    local s
    s=$(date +%s)
    "$@" >"$BUILD_DIR/$what.log" 2>&1 || {
      say "$what failed; its output:"
      tail -40 "$BUILD_DIR/$what.log"
      exit 1
    }
    say "  $what: $(elapsed "$s")"
  }
  step pgvector make -C "$src/pgvector" -j"$jobs" OPTFLAGS="" install DESTDIR="$STAGE"
  step pg_cron make -C "$src/pg_cron" -j"$jobs" install DESTDIR="$STAGE"
  step documentdb_core make -C "$src/documentdb/pg_documentdb_core" -j"$jobs" install DESTDIR="$STAGE"
  # libbson 1.23 (Debian) lacks BSON_SUBTYPE_SENSITIVE (added in 1.27); defining it is the only
  # change needed, and the switch that then misses a case is only a warning.
  step documentdb make -C "$src/documentdb/pg_documentdb" -j"$jobs" \
    "CPPFLAGS=$("$PG_CONFIG" --cppflags) -DBSON_SUBTYPE_SENSITIVE=0x08" COPT=-Wno-error=switch \
    install DESTDIR="$STAGE"
  echo "$BUILD_ID" >"$STAGE$("$PG_CONFIG" --sharedir)/extension/$STAMP_NAME"
  rm -rf "$src"
  touch "$BUILD_DIR/built"
  say "built in $(elapsed "$t")"
fi

# The staged tree mirrors the system's (…/lib/postgresql/15/lib, …/share/postgresql/15/extension).
$sudo cp -a "$STAGE/." /
ensure_os_user
say "DocumentDB ($BUILD_ID) installed into PostgreSQL $PG_MAJOR"
# An `if`, not `$PRINT_STAGE && …`: as the last command that would end the script with 1 when false.
if $PRINT_STAGE; then echo "$STAGE" >&3; fi
