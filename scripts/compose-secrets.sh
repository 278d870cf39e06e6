#!/usr/bin/env bash
# Writes .env beside docker-compose.yml with the keys that guard the compose stack's doors, which have
# no default (SECRETS_KEYS, DASHBOARD_SESSION_SECRET, PSP_CALLBACK_SECRET): each freshly random,
# readable by this user only. docker compose reads .env by itself. An existing .env is kept as it
# is (its keys sealed what the stack's database holds); delete it to start over with new ones.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
env_file="$root/.env"
if [[ -e $env_file ]]; then
  echo "compose-secrets: $env_file exists; left as it is"
  exit 0
fi
umask 077
{
  echo "SECRETS_KEYS=compose1:$(openssl rand -base64 32)"
  echo "DASHBOARD_SESSION_SECRET=$(openssl rand -base64 32 | tr '+/' '-_' | tr -d '=')"
  echo "PSP_CALLBACK_SECRET=$(openssl rand -base64 24 | tr '+/' '-_' | tr -d '=')"
} >"$env_file"
echo "compose-secrets: wrote $env_file"
