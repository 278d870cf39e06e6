#!/usr/bin/env bash
# Builds the one-node Kubernetes cluster that `make k8s-test` runs (docs/deploy.md, "A real cluster
# on one machine"), from pinned versions, with Go and the Go module proxy only: no image registry and
# no download site is reachable here. Each component is built once per version into the cache outside
# the clone ($PIX_BUILD_CACHE/k8s, default ~/.cache/pix-payments/k8s), as scripts/install-infra.sh
# does for nats-server, and linked into .tools/k8s/bin; a fresh clone on the same machine compiles
# nothing. Debian gives the rest: runc, the CNI plugins, iptables, conntrack, ipset, and gcc for the
# pause program.
#
# cert-manager's controller is not built: its main lives in a nested module
# (github.com/cert-manager/cert-manager/cmd/controller) that the Go module proxy does not serve, and
# the root module's zip leaves cmd/ out. scripts/k8s/test.sh makes the same TLS Secrets instead.
set -euo pipefail

K8S_VERSION=v1.36.3
# The staging modules (k8s.io/api, k8s.io/client-go, ...) that k8s.io/kubernetes replaces with
# ./staging paths are published at v0.<minor>.<patch>.
K8S_STAGING_VERSION=v0.36.3
ETCD_VERSION=v3.6.16
CONTAINERD_VERSION=v2.2.9
COREDNS_VERSION=v1.14.7
# The only version the module proxy serves; it runs here as a NetworkPolicy firewall only, on one
# node with no outside network.
KUBE_ROUTER_VERSION=v2.1.0
# The pause program is compiled from the kubernetes module's own build/pause/linux/pause.c.
PAUSE_IMAGE=registry.k8s.io/pause:3.10-pix
COREDNS_IMAGE=localhost/pix/coredns:$COREDNS_VERSION
COREDNS_PLUGINS=(bind ready health errors log cache kubernetes)
DEBIAN_PACKAGES=(runc containernetworking-plugins iptables conntrack ipset gcc libc6-dev)

root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$root/.tools/k8s/bin"
CACHE=${PIX_BUILD_CACHE:-"${XDG_CACHE_HOME:-$HOME/.cache}/pix-payments"}/k8s
mkdir -p "$bin" "$CACHE"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false

say() { printf 'build-cluster: %s\n' "$*"; }

install_debian_packages() {
  local missing=() pkg
  for pkg in "${DEBIAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  say "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# module_dir <module@version>: the module's source in the module cache (read-only).
module_dir() {
  GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}

# writable_copy <module@version>: a scratch copy of a module's source, to build with its own go.mod.
writable_copy() {
  local src work
  src=$(module_dir "$1")
  work=$(mktemp -d)
  cp -r "$src/." "$work/"
  chmod -R u+w "$work"
  echo "$work"
}

# ensure <component> <version> <build-function>: the component's files built into
# $CACHE/<component>-<version> (complete once its .complete stamp exists), then linked into
# .tools/k8s/bin.
ensure() {
  local name=$1 version=$2 build=$3 cached="$CACHE/$1-$2"
  if [ ! -e "$cached/.complete" ]; then
    local started
    started=$(date +%s)
    say "building $name $version (cached in $CACHE) ..."
    rm -rf "$cached.tmp"
    mkdir -p "$cached.tmp"
    "$build" "$cached.tmp" "$version"
    touch "$cached.tmp/.complete"
    rm -rf "$cached"
    mv "$cached.tmp" "$cached"
    say "built $name $version in $(($(date +%s) - started)) s"
  fi
  local f
  for f in "$cached"/*; do
    ln -f "$f" "$bin/$(basename "$f")" 2>/dev/null || cp -f "$f" "$bin/$(basename "$f")"
  done
}

KUBERNETES_COMMANDS=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl)
build_kubernetes() {
  local out=$1 version=$2 work src cmd
  src=$(module_dir "k8s.io/kubernetes@$version")
  work=$(mktemp -d)
  {
    echo "module pix.local/kubernetes-build"
    echo
    echo "go 1.26.0"
    echo
    echo "require k8s.io/kubernetes $version"
    echo
    echo "replace ("
    sed -n 's#^[[:space:]]*\(k8s.io/[^ ]*\) => ./staging/src/.*#\t\1 => \1 '"$K8S_STAGING_VERSION"'#p' "$src/go.mod"
    echo ")"
  } >"$work/go.mod"
  # Every command is imported before `go mod tidy`, or go.sum misses what only one of them needs.
  {
    echo "//go:build tools"
    echo
    echo "package tools"
    echo
    echo "import ("
    for cmd in "${KUBERNETES_COMMANDS[@]}"; do echo "	_ \"k8s.io/kubernetes/cmd/$cmd\""; done
    echo ")"
  } >"$work/tools.go"
  (
    cd "$work"
    go mod tidy
    for cmd in "${KUBERNETES_COMMANDS[@]}"; do
      say "  $cmd"
      go build -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$version" \
        -o "$out/$cmd" "k8s.io/kubernetes/cmd/$cmd"
    done
  )
  rm -rf "$work"
}

build_etcd() {
  local out=$1 version=$2 work
  work=$(mktemp -d)
  cat >"$work/main.go" <<'GO'
// etcd's own main, as go.etcd.io/etcd/server/v3's etcdmain runs it.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  (
    cd "$work"
    go mod init pix.local/etcd-build >/dev/null 2>&1
    go get "go.etcd.io/etcd/server/v3@$version"
    go mod tidy
    go build -trimpath -ldflags "-s -w" -o "$out/etcd" .
  )
  rm -rf "$work"
}

build_containerd() {
  local out=$1 version=$2 work cmd
  work=$(writable_copy "github.com/containerd/containerd/v2@$version")
  (
    cd "$work"
    for cmd in containerd containerd-shim-runc-v2 ctr; do
      go build -trimpath \
        -ldflags "-s -w -X github.com/containerd/containerd/v2/version.Version=$version" \
        -o "$out/$cmd" "./cmd/$cmd"
    done
  )
  rm -rf "$work"
}

# CoreDNS with only the plugins a cluster DNS needs here: its two generated files are written from
# plugin.cfg (which keeps the order the plugins run in) filtered to COREDNS_PLUGINS.
build_coredns() {
  local out=$1 version=$2 work wanted lines line name
  work=$(writable_copy "github.com/coredns/coredns@$version")
  wanted=$(printf '%s\n' "${COREDNS_PLUGINS[@]}")
  lines=$(grep -E '^[a-z0-9_]+:' "$work/plugin.cfg" | while IFS=: read -r name _; do
    if grep -qx "$name" <<<"$wanted"; then grep -m1 "^$name:" "$work/plugin.cfg"; fi
  done)
  {
    echo "// generated by scripts/k8s/build-cluster.sh; DO NOT EDIT"
    echo
    echo "package plugin"
    echo
    echo "import ("
    while IFS=: read -r _ pkg; do
      case $pkg in
        */*) echo "	_ \"$pkg\"" ;;
        *) echo "	_ \"github.com/coredns/coredns/plugin/$pkg\"" ;;
      esac
    done <<<"$lines"
    echo ")"
  } >"$work/core/plugin/zplugin.go"
  {
    echo "// generated by scripts/k8s/build-cluster.sh; DO NOT EDIT"
    echo
    echo "package dnsserver"
    echo
    echo "var Directives = []string{"
    while IFS=: read -r name _; do echo "	\"$name\","; done <<<"$lines"
    echo "}"
  } >"$work/core/dnsserver/zdirectives.go"
  (cd "$work" && go build -trimpath -ldflags "-s -w" -o "$out/coredns" .)
  rm -rf "$work"
}

build_kube_router() {
  local out=$1 version=$2 work
  work=$(writable_copy "github.com/cloudnativelabs/kube-router/v2@$version")
  (cd "$work" && go build -trimpath -ldflags "-s -w" -o "$out/kube-router" ./cmd/kube-router)
  rm -rf "$work"
}

# pack_image <tar> <name:tag> <rootfs dir> <entrypoint JSON>: a docker-archive tar (what `ctr images
# import` reads) of one layer holding the rootfs, made by hand so that no image tool or registry is
# needed.
pack_image() {
  local tar=$1 name=$2 rootfs=$3 entrypoint=$4 work layer_sha config_sha
  work=$(mktemp -d)
  tar --owner=0 --group=0 --numeric-owner --mtime=@0 --sort=name -cf "$work/layer.tar" -C "$rootfs" .
  layer_sha=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
  mkdir -p "$work/image/$layer_sha"
  mv "$work/layer.tar" "$work/image/$layer_sha/layer.tar"
  printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":%s},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$entrypoint" "$layer_sha" >"$work/config.json"
  config_sha=$(sha256sum "$work/config.json" | cut -d' ' -f1)
  mv "$work/config.json" "$work/image/$config_sha.json"
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' \
    "$config_sha" "$name" "$layer_sha" >"$work/image/manifest.json"
  tar --owner=0 --group=0 --numeric-owner --mtime=@0 -cf "$tar" -C "$work/image" .
  rm -rf "$work"
}

# The sandbox (pause) image: kubernetes' own pause.c, static.
build_pause() {
  local out=$1 version=$2 rootfs
  rootfs=$(mktemp -d)
  gcc -Os -static -o "$rootfs/pause" "$(module_dir "k8s.io/kubernetes@$version")/build/pause/linux/pause.c"
  strip "$rootfs/pause"
  pack_image "$out/pause-image.tar" "$PAUSE_IMAGE" "$rootfs" '["/pause"]'
  rm -rf "$rootfs"
}

# CoreDNS runs as a pod (the platform's NetworkPolicies admit DNS to kube-system's kube-dns pods):
# its static binary alone in an image.
build_coredns_image() {
  local out=$1 version=$2 rootfs
  rootfs=$(mktemp -d)
  cp "$CACHE/coredns-$version/coredns" "$rootfs/coredns"
  pack_image "$out/coredns-image.tar" "$COREDNS_IMAGE" "$rootfs" '["/coredns"]'
  rm -rf "$rootfs"
}

started=$(date +%s)
install_debian_packages
ensure pause-image "$K8S_VERSION" build_pause
ensure etcd "$ETCD_VERSION" build_etcd
ensure containerd "$CONTAINERD_VERSION" build_containerd
ensure kubernetes "$K8S_VERSION" build_kubernetes
ensure coredns "$COREDNS_VERSION" build_coredns
ensure coredns-image "$COREDNS_VERSION" build_coredns_image
ensure kube-router "$KUBE_ROUTER_VERSION" build_kube_router
say "cluster binaries ready in .tools/k8s/bin ($(($(date +%s) - started)) s)"
