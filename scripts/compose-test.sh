#!/usr/bin/env bash
# `make compose-test` (after `make images`): tests/compose/stack.test.ts against the compose stack
# under podman. This script gives docker-compose podman's Docker API and runs the containers'
# health checks, which podman leaves to systemd timers this machine does not have; whatever
# happens, it takes the test's stack down and stops what it started.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/podman-env.sh
source scripts/podman-env.sh
podman_install
podman_configure
podman_service_start
# The test's compose project and files, for docker-compose here and in the test (one home).
export COMPOSE_PROJECT_NAME=pix-compose-test
export COMPOSE_FILE=docker-compose.yml:docker-compose.local.yml:tests/compose/docker-compose.test.yml

# Every 2 s, each container still starting or unhealthy runs its health check once (docker-compose
# reads the result to honour `condition: service_healthy`; the test waits on it too).
(
  while :; do
    for id in $(podman ps -q --filter health=starting) $(podman ps -q --filter health=unhealthy); do
      podman healthcheck run "$id" >/dev/null 2>&1 || true
    done
    sleep 2
  done
) &
health_loop=$!

cleanup() {
  kill "$health_loop" 2>/dev/null || true
  # The test file's variables only need a value for `down`.
  RECEIVER_PORT=0 NODE_BASE_IMAGE=none COMPOSE_SECRETS=/nonexistent SECRETS_KEYS=none DASHBOARD_SESSION_SECRET=none \
    PSP_CLIENT_SECRET=none COMPOSE_PSP_PKI=/nonexistent ADAPTER_FACT_SIGNING_KEY=none PIX_FACTS_PUBLIC_KEYS=none PAYMENTS_FACT_SIGNING_KEY=none PAYMENT_FACTS_PUBLIC_KEYS=none \
    docker-compose --project-directory "$root" down -v --remove-orphans >/dev/null 2>&1 || true
  podman_service_stop
}
trap cleanup EXIT

start=$(date +%s)
# The whole run is bounded: a hang fails it rather than CI's own limit.
timeout 15m npx jest --ci --selectProjects compose
echo "compose-test: passed in $(($(date +%s) - start)) s"
