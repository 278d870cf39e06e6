#!/usr/bin/env bash
# Writes .env beside docker-compose.yml with the keys that guard the compose stack's doors, which have
# no default (SECRETS_KEYS, DASHBOARD_SESSION_SECRET, the fact signing pairs, the
# PSP simulator's OAuth2 client secret PSP_CLIENT_SECRET): each freshly random, readable by this user
# only. docker compose reads .env by itself. An existing .env is kept as it is (its keys sealed what
# the stack's database holds) and only gets the keys it lacks; delete it to start over with new ones.
# It also makes the PSP connection's certificates (scripts/compose-psp-pki.sh) in .run/compose-psp-pki
# (COMPOSE_PSP_PKI), once; run as root, it hands their keys to the containers' user (1000).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
env_file="$root/.env"
umask 077
pki="$root/.run/compose-psp-pki"
bash "$root/scripts/compose-psp-pki.sh" "$pki"
# The containers run as 1000, which must read the keys mounted into them (a user other than root
# and 1000 runs compose with Docker Desktop, or gives them to 1000 itself).
if [[ $(id -u) -eq 0 ]]; then chown -R 1000:1000 "$pki"; fi
# An Ed25519 pair as the fact key settings take it: base64 PKCS#8 DER, then base64 SPKI DER.
fact_pair() {
  local der
  der=$(openssl genpkey -algorithm ed25519 -outform DER | base64 -w0)
  echo "$der"
  base64 -d <<<"$der" | openssl pkey -inform DER -pubout -outform DER | base64 -w0
  echo
}
generated() {
  echo "SECRETS_KEYS=compose1:$(openssl rand -base64 32)"
  echo "DASHBOARD_SESSION_SECRET=$(openssl rand -base64 32 | tr '+/' '-_' | tr -d '=')"
  echo "PSP_CLIENT_SECRET=$(openssl rand -base64 24 | tr '+/' '-_' | tr -d '=')"
  echo "COMPOSE_PSP_PKI=$pki"
  # A pair on one line (private, then public): the halves are written or kept together.
  local pair
  mapfile -t pair < <(fact_pair)
  echo "ADAPTER_FACT_SIGNING_KEY=${pair[0]} PIX_FACTS_PUBLIC_KEYS=${pair[1]}"
  mapfile -t pair < <(fact_pair)
  echo "PAYMENTS_FACT_SIGNING_KEY=${pair[0]} PAYMENT_FACTS_PUBLIC_KEYS=${pair[1]}"
}
if [[ -e $env_file ]]; then
  # Kept as it is (its keys sealed what the stack's database holds); a key added since is appended.
  added=0
  while IFS= read -r line; do
    grep -q "^${line%%=*}=" "$env_file" || { tr ' ' '\n' <<<"$line" >>"$env_file"; added=$((added + 1)); }
  done < <(generated)
  echo "compose-secrets: $env_file exists; $added missing setting(s) added"
  exit 0
fi
generated | tr ' ' '\n' >"$env_file"
echo "compose-secrets: wrote $env_file"
