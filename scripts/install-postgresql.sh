#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries (initdb, postgres) are installed for FerretDB's
# postgresql handler, from Debian's `postgresql` package when missing. Debian puts them in
# /usr/lib/postgresql/<version>/bin, outside PATH, so both places count. The local stack runs
# them as the unprivileged user `postgres` when started as root (initdb and postgres refuse root),
# so that user is created when the binaries came from elsewhere.
set -euo pipefail

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

if command -v initdb >/dev/null 2>&1 || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  echo "postgresql present"
else
  echo "installing Debian package: postgresql"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi

if [ "$(id -u)" -eq 0 ] && ! id -u postgres >/dev/null 2>&1; then
  echo "creating the system user postgres"
  useradd --system --user-group --home-dir /var/lib/postgresql --shell /usr/sbin/nologin postgres
fi
