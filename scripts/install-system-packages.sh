#!/usr/bin/env bash
# Installs the Debian packages the tests use as real validators, when their commands are missing:
# promtool (prometheus) for metrics and alert rules, docker-compose for compose files, openssl for
# the certificates of the mutual-TLS tests, and chromium, the browser the payment page's test drives
# through playwright-core (which downloads no browser of its own); python3 with venv, where
# scripts/install-schemathesis.sh makes Schemathesis's virtualenv (Debian ships venv apart); PHP
# (8.2 on bookworm) with the curl and mbstring extensions and phpunit, for the PHP SDK
# (clients/php), its unit tests and its conformance run.
set -euo pipefail

declare -A packages=([promtool]=prometheus [docker-compose]=docker-compose [openssl]=openssl [chromium]=chromium
  [php]=php-cli [phpunit]=phpunit)
missing=()
for cmd in "${!packages[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${packages[$cmd]}")
done
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3 python3-venv)
for ext in curl mbstring; do
  php -r "exit(extension_loaded('$ext') ? 0 : 1);" >/dev/null 2>&1 || missing+=("php-$ext")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing Debian packages: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
