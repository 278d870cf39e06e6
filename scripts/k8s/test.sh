#!/usr/bin/env bash
# `make k8s-test` (after `make images`): the manifests of the small-node profile (k8s/small-node.json)
# on a real one-node cluster built here (scripts/k8s/build-cluster.sh, scripts/k8s/cluster.sh), then
# tests/k8s/cluster.test.ts against it. What the profile leaves to the operator is made here as
# docs/deploy.md says: every Secret (with fresh NATS keys whose public halves go into this run's
# settings; `nats-tls` by openssl, as without cert-manager: cert-manager's controller does not build
# from the Go module proxy) and the volumes (hostPath PersistentVolumes under the cluster's state
# folder: the node has no StorageClass). Whatever happens, the cluster is taken down and the machine
# left as it was found.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# shellcheck source=scripts/podman-env.sh
source scripts/podman-env.sh
podman_configure

export PIX_K8S_DIR=${PIX_K8S_DIR:-"$root/.run/k8s"}
work="$root/.run/k8s-test"
bin="$root/.tools/k8s/bin"
NAMESPACE=pix
SERVICES=(gateway payments pix-provider-adapter webhook-dispatcher psp-simulator admin)
# The images the manifests name, as `make images` tagged them; NATS's under the name the
# StatefulSet uses (k8s/src/nats.ts), the receiver's and the test client's on the Node base.
IMAGES=(localhost/pix/engine:local localhost/pix/nats:local localhost/pix/node-base:current)
for service in "${SERVICES[@]}"; do IMAGES+=("localhost/pix/$service:dev"); done
NATS_IMAGE_NAME=docker.io/library/nats:2.15-alpine

say() { printf 'k8s-test: %s\n' "$*"; }
elapsed() { echo "$(($(date +%s) - $1)) s"; }
kubectl() { "$bin/kubectl" --kubeconfig "$PIX_K8S_DIR/pki/admin.kubeconfig" "$@"; }
ctr() { "$bin/ctr" --address "$PIX_K8S_DIR/containerd.sock" -n k8s.io "$@"; }

started=$(date +%s)
for image in "${IMAGES[@]}"; do
  podman image exists "$image" || { say "$image is missing: run make images"; exit 1; }
done
rm -rf "$work"
mkdir -p "$work"
# Saved at once, as one archive (the images share the Node base's layers): podman's storage is the
# machine's, and another checkout's `make images` may retag these names while the cluster starts.
t=$(date +%s)
podman save --quiet -m --format docker-archive -o "$work/images.tar" "${IMAGES[@]}"
podman image inspect --format '{{.Id}} {{.Created}} {{.RepoTags}}' "${IMAGES[@]}" >"$work/images.txt"
say "images saved in $(elapsed "$t"): $(wc -l <"$work/images.txt") ($work/images.txt)"
nice -n 10 bash scripts/k8s/build-cluster.sh
say "cluster binaries ready after $(elapsed "$started")"

diagnose() {
  [ -f "$PIX_K8S_DIR/pki/admin.kubeconfig" ] || return 0
  mkdir -p "$work/diagnostics"
  kubectl get pods -A -o wide >"$work/diagnostics/pods.txt" 2>&1 || true
  kubectl get events -A --sort-by=.lastTimestamp >"$work/diagnostics/events.txt" 2>&1 || true
  local pod
  for pod in $(kubectl -n "$NAMESPACE" get pods -o name 2>/dev/null); do
    kubectl -n "$NAMESPACE" logs --all-containers --tail=80 "$pod" >"$work/diagnostics/${pod#pod/}.log" 2>&1 || true
  done
  cp "$PIX_K8S_DIR"/logs/*.log "$work/diagnostics/" 2>/dev/null || true
  say "diagnostics in $work/diagnostics"
}
cleanup() {
  local status=$?
  [ "$status" -eq 0 ] || diagnose
  bash scripts/k8s/cluster.sh down || status=1
  exit "$status"
}
trap cleanup EXIT

free -m | awk '/^Mem:/ {print $3}' >"$work/memory-before"
bash scripts/k8s/cluster.sh up

# Nothing of the cluster's may leave the machine: both ranges are routed to its bridge alone, and
# the isolation chain comes first in mangle's FORWARD.
for address in 10.244.0.9 10.96.0.9; do
  route=$(ip route get "$address")
  [[ $route == *" dev pixk8s0 "* ]] || { say "$address is routed elsewhere: $route"; exit 1; }
done
iptables -t mangle -S FORWARD | sed -n 2p | grep -q -- '-j PIX-K8S-ISOLATE' || {
  say "mangle FORWARD does not start with PIX-K8S-ISOLATE"
  exit 1
}
say "pod and Service ranges routed to pixk8s0 only"

t=$(date +%s)
ctr images import "$work/images.tar" >/dev/null
rm -f "$work/images.tar"
ctr images tag --force localhost/pix/nats:local "$NATS_IMAGE_NAME" >/dev/null
say "images loaded into containerd in $(elapsed "$t")"

# This run's settings: the profile with fresh NATS keys.
umask 077
node k8s/build/nats-keys.js "$work/nats-keys" >"$work/nats-keys.txt"
node -e '
  const fs = require("fs");
  const [profile, keys, out] = process.argv.slice(1);
  const settings = JSON.parse(fs.readFileSync(profile, "utf8"));
  const text = fs.readFileSync(keys, "utf8");
  settings.nats.publicKeys = Object.fromEntries(
    Object.entries(JSON.parse(text.slice(text.indexOf("{"), text.indexOf("}") + 1))).map(([k, v]) => [k, [v]]));
  fs.writeFileSync(out, JSON.stringify(settings, null, 2));
' k8s/small-node.json "$work/nats-keys.txt" "$work/settings.json"
node k8s/build/main.js "$work/settings.json" "$work/dist" >/dev/null
umask 022

kubectl apply -f "$work/dist/00-namespace.yaml" >/dev/null
kubectl create namespace ingress-nginx >/dev/null
secret() { kubectl -n "$NAMESPACE" create secret generic "$@" >/dev/null; }
for identity in gateway payments pix-provider-adapter webhook-dispatcher provisioner admin; do
  secret "pix-nats-$identity" --from-file=seed="$work/nats-keys/$identity.nk"
done
# The PSP simulator's connection with the adapter (test mode's only PSP: the profile has no live
# one), as docs/deploy.md makes it: scripts/compose-psp-pki.sh names the certificates for the
# Services psp-simulator and pix-provider-adapter, which are the names in the namespace too.
psp="$work/psp-pki"
bash scripts/compose-psp-pki.sh "$psp"
secret pix-psp-simulator-client --from-literal=client-id=pix-platform \
  --from-literal=client-secret="$(openssl rand -base64 32)"
secret pix-psp-simulator-server-tls --from-file=tls.crt="$psp/psp-server.crt" \
  --from-file=tls.key="$psp/psp-server.key" --from-file=ca.crt="$psp/psp-ca.crt"
secret pix-psp-simulator-caller-tls --from-file=tls.crt="$psp/psp-callback-client.crt" \
  --from-file=tls.key="$psp/psp-callback-client.key" --from-file=ca.crt="$psp/platform-ca.crt"
secret pix-psp-simulator-api-tls --from-file=tls.crt="$psp/adapter-client.crt" \
  --from-file=tls.key="$psp/adapter-client.key" --from-file=ca.crt="$psp/psp-ca.crt"
kubectl -n "$NAMESPACE" create secret tls pix-psp-simulator-callback-tls \
  --cert="$psp/adapter-callback-server.crt" --key="$psp/adapter-callback-server.key" >/dev/null
secret pix-psp-simulator-callback-client-ca --from-file=ca.crt="$psp/psp-ca.crt"
secret pix-dashboard --from-literal=session-secret="$(openssl rand -base64 32)"
secret pix-secrets-keys --from-literal=keys="k8stest:$(openssl rand -base64 32)"
for producer in adapter payments; do
  key=$(openssl genpkey -algorithm ed25519 -outform DER | base64 -w0)
  pub=$(base64 -d <<<"$key" | openssl pkey -inform DER -pubout -outform DER | base64 -w0)
  secret "pix-$producer-fact-key" --from-literal=signing-key="$key" --from-literal=public-keys="$pub"
done
# NATS's certificate as docs/deploy.md makes it without cert-manager: a CA, and the server's
# certificate for the Service and every pod.
tls="$work/tls"
mkdir -p "$tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 -subj /CN=pix-test-ca \
  -keyout "$tls/ca.key" -out "$tls/ca.crt" 2>/dev/null
# Each pod's short name as it is (NATS_URL names them; Node matches no wildcard over one label).
names="DNS:nats-0.nats,DNS:nats-1.nats,DNS:nats-2.nats,"
for name in nats "nats.$NAMESPACE" "nats.$NAMESPACE.svc" "nats.$NAMESPACE.svc.cluster.local"; do
  names+="DNS:$name,DNS:*.$name,"
done
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=nats \
  -keyout "$tls/tls.key" -out "$tls/tls.csr" 2>/dev/null
printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "${names%,}" >"$tls/ext"
openssl x509 -req -in "$tls/tls.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial -days 30 \
  -extfile "$tls/ext" -out "$tls/tls.crt" 2>/dev/null
secret nats-tls --from-file="$tls/tls.crt" --from-file="$tls/tls.key" --from-file="$tls/ca.crt"
kubectl -n "$NAMESPACE" create secret tls pix-gateway-tls --cert="$tls/tls.crt" --key="$tls/tls.key" >/dev/null

# hostPath volumes for the StatefulSets' claims, each bound to its claim; under the cluster's state
# folder, so that `cluster.sh down` removes them.
volumes() {
  local claim=$1 size=$2 dir="$PIX_K8S_DIR/volumes/$1"
  mkdir -p "$dir"
  # Written by the pod's user (NATS 1000, the engine's postgres): hostPath takes no fsGroup.
  chmod 0777 "$dir"
  cat <<YAML
apiVersion: v1
kind: PersistentVolume
metadata: { name: $NAMESPACE-$claim }
spec:
  capacity: { storage: $size }
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Delete
  claimRef: { namespace: $NAMESPACE, name: $claim }
  hostPath: { path: "$dir", type: Directory }
---
YAML
}
{
  for i in 0 1 2; do volumes "data-nats-$i" 1Gi; done
  volumes data-mongodb-0 2Gi
} | kubectl apply -f - >/dev/null

t=$(date +%s)
kubectl apply -f "$work/dist" >/dev/null
# The merchant's webhook endpoint, the profile's webhook receiver: tests/compose's, as a pod.
kubectl -n "$NAMESPACE" create configmap webhook-receiver --from-file=tests/compose/webhook-receiver.mjs >/dev/null
kubectl apply -f tests/k8s/webhook-receiver.yaml >/dev/null
kubectl -n ingress-nginx create configmap ingress-stand-in --from-file=tests/k8s/ingress-stand-in.mjs >/dev/null
kubectl apply -f tests/k8s/ingress-stand-in.yaml >/dev/null
kubectl -n ingress-nginx rollout status deployment/ingress-stand-in --timeout 300s >/dev/null
for kind in statefulset deployment; do
  for name in $(kubectl -n "$NAMESPACE" get "$kind" -o name); do
    kubectl -n "$NAMESPACE" rollout status "$name" --timeout 600s >/dev/null || {
      say "$name not ready"
      exit 1
    }
  done
done
# The Deployments have no replica count of their own: each HorizontalPodAutoscaler raises it to
# its minimum (2), with or without metrics.
for name in gateway payments pix-provider-adapter webhook-dispatcher; do
  kubectl -n "$NAMESPACE" wait --for=jsonpath='{.status.readyReplicas}'=2 "deployment/$name" --timeout 300s >/dev/null
done
kubectl -n "$NAMESPACE" wait --for condition=Complete job --all --timeout 300s >/dev/null
say "every Deployment and StatefulSet ready, every Job complete, $(elapsed "$t") after apply"
free -m | awk '/^Mem:/ {print $3}' >"$work/memory-after"
say "memory in use: $(cat "$work/memory-before") MiB before up, $(cat "$work/memory-after") MiB with the platform on the cluster"
say "disk: binaries $(du -sh "${PIX_BUILD_CACHE:-$HOME/.cache/pix-payments}/k8s" | cut -f1) cached, cluster state $(du -sh "$PIX_K8S_DIR" 2>/dev/null | cut -f1)"

KUBECONFIG="$PIX_K8S_DIR/pki/admin.kubeconfig" PIX_K8S_BIN="$bin" PIX_K8S_NAMESPACE="$NAMESPACE" \
  timeout 20m npx jest --ci --selectProjects k8s
say "passed in $(elapsed "$started")"
