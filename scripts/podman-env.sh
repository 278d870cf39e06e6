#!/usr/bin/env bash
# Sourced by scripts/images.sh and scripts/compose-test.sh: podman as this kind of machine needs it,
# and docker-compose pointed at it. Why each setting (docs/deploy.md, "Podman on a machine like CI"):
#  - crun refuses the machine's hybrid cgroups (v1 controllers beside a v2 mount): runc runs there;
#  - root lacks CAP_SYS_RESOURCE, so podman's default ulimits (raising nofile and nproc) fail: the
#    containers get the limits this shell already has;
#  - there is no systemd: cgroupfs manages cgroups, events go to a file, and health checks are run
#    by whoever waits on them (scripts/compose-test.sh), since nothing else would.
# Root's podman is used as it is on a developer's own Linux machine (rootless would need subuid
# ranges that CI's fresh machine does not have).
set -euo pipefail

PIX_PODMAN_DIR=${PIX_PODMAN_DIR:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.run/podman"}
mkdir -p "$PIX_PODMAN_DIR"

# Installs what is missing of: podman with runc, netavark and aardvark-dns (container networks and
# their names) and iptables (netavark sets up published ports with it: a fresh machine has none);
# mmdebstrap (the base images are made from Debian's archive, no registry); docker-compose; and
# what podman recommends for the storage and user namespaces it may use (fuse-overlayfs,
# slirp4netns, uidmap, the CNI plugins), as on the machine where all of it was tried.
PODMAN_PACKAGES=(podman runc netavark aardvark-dns iptables mmdebstrap docker-compose
  fuse-overlayfs slirp4netns uidmap containernetworking-plugins)
podman_install() {
  local missing=() pkg
  for pkg in "${PODMAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# containers.conf for this machine; CONTAINERS_CONF makes podman read it instead of the system's.
# The limits are podman's own defaults (nofile 1048576, nproc 4194304) lowered to what this shell
# may grant (its hard limits), and nproc to 32768: with a higher nproc, runc failed to set it in
# build steps ("error setting rlimit type 6") even at the shell's own hard limit.
podman_configure() {
  local nofile nproc
  nofile=$(ulimit -Hn)
  nproc=$(ulimit -Hu)
  [ "$nofile" = unlimited ] && nofile=1048576
  [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ] && nproc=32768
  cat >"$PIX_PODMAN_DIR/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
  export CONTAINERS_CONF="$PIX_PODMAN_DIR/containers.conf"
}

# docker-compose speaks the Docker API: podman serves it on a socket of its own for as long as the
# caller needs (podman_service_stop ends it).
PODMAN_SOCKET="$PIX_PODMAN_DIR/podman.sock"
podman_service_start() {
  podman_service_stop
  podman system service --time=0 "unix://$PODMAN_SOCKET" >"$PIX_PODMAN_DIR/service.log" 2>&1 &
  echo $! >"$PIX_PODMAN_DIR/service.pid"
  local i
  for i in $(seq 1 100); do
    [ -S "$PODMAN_SOCKET" ] && break
    sleep 0.1
  done
  [ -S "$PODMAN_SOCKET" ] || { echo "podman system service did not start:" >&2; cat "$PIX_PODMAN_DIR/service.log" >&2; return 1; }
  export DOCKER_HOST="unix://$PODMAN_SOCKET"
}

podman_service_stop() {
  if [ -f "$PIX_PODMAN_DIR/service.pid" ]; then
    kill "$(cat "$PIX_PODMAN_DIR/service.pid")" 2>/dev/null || true
    rm -f "$PIX_PODMAN_DIR/service.pid"
  fi
  rm -f "$PODMAN_SOCKET"
}
