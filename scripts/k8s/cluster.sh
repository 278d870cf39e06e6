#!/usr/bin/env bash
# `scripts/k8s/cluster.sh up|down|env`: the one-node cluster of `make k8s-test` (docs/deploy.md, "A
# real cluster on one machine"), from the binaries scripts/k8s/build-cluster.sh put in .tools/k8s/bin.
#
# up: etcd (loopback), kube-apiserver on the CNI bridge's address (pods must reach it; loopback would
# make the in-cluster `kubernetes` Service invalid), controller-manager, scheduler, containerd, the
# kubelet, kube-proxy, CoreDNS as a pod and kube-router as the NetworkPolicy firewall. The pod range
# and the Service range are routed only to the node's own bridge, without masquerade, and a chain of
# ours (mangle FORWARD) drops whatever of the pod range would leave by another interface: nothing of the cluster's
# reaches any network outside this machine.
# down: leaves the machine as up found it: every process up started stopped by its pid, the pods'
# shims by theirs, mounts under the state folder and the pods' network namespaces unmounted, the
# iptables chains, ipsets, routes, bridge and cgroups the cluster made removed, and the kernel
# settings recorded before up restored.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$root/.tools/k8s/bin"
STATE=${PIX_K8S_DIR:-"$root/.run/k8s"}
NODE=pix-node
BRIDGE=pixk8s0
POD_CIDR=10.244.0.0/24
NODE_IP=10.244.0.1
SERVICE_CIDR=10.96.0.0/16
KUBERNETES_SERVICE_IP=10.96.0.1
DNS_SERVICE_IP=10.96.0.10
API=https://$NODE_IP:6443
PAUSE_IMAGE=registry.k8s.io/pause:3.10-pix
COREDNS_IMAGE=localhost/pix/coredns:v1.14.7
ISOLATE_CHAIN=PIX-K8S-ISOLATE
HOST_DIRS=(/run/containerd /var/lib/cni /var/log/containers /run/netns /var/lib/kube-router /run/kube-router
  /var/lib/kubelet /etc/kubernetes)
# What the kubelet and kube-proxy may change, recorded by up and restored by down.
SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys
  kernel.keys.root_maxbytes net.ipv4.ip_forward net.ipv4.conf.all.route_localnet
  net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables net.netfilter.nf_conntrack_max
  net.netfilter.nf_conntrack_tcp_timeout_established net.netfilter.nf_conntrack_tcp_timeout_close_wait)
# The iptables chains the cluster's parts create (kube-proxy, the kubelet, kube-router, the CNI
# plugins) and ours; only those and the rules that jump to them are removed.
CHAIN_PATTERN="^(KUBE-|CNI-|$ISOLATE_CHAIN)"

say() { printf 'cluster: %s\n' "$*"; }
kubectl() { "$bin/kubectl" --kubeconfig "$STATE/pki/admin.kubeconfig" "$@"; }

# ---------------------------------------------------------------------------------------------- up

certificate() { # <name> <subject> [<subjectAltName>]: a key and a certificate signed by the cluster CA
  local name=$1 subject=$2 san=${3:-}
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$STATE/pki/$name.key" 2>/dev/null
  openssl req -new -key "$STATE/pki/$name.key" -subj "$subject" -out "$STATE/pki/$name.csr" 2>/dev/null
  local ext="$STATE/pki/$name.ext"
  printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n' >"$ext"
  [ -n "$san" ] && echo "subjectAltName=$san" >>"$ext"
  openssl x509 -req -in "$STATE/pki/$name.csr" -CA "$STATE/pki/ca.crt" -CAkey "$STATE/pki/ca.key" \
    -CAcreateserial -days 30 -extfile "$ext" -out "$STATE/pki/$name.crt" 2>/dev/null
  rm -f "$STATE/pki/$name.csr" "$ext"
}

kubeconfig() { # <name>: a kubeconfig of the client certificate <name>
  cat >"$STATE/pki/$1.kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters:
  - name: pix
    cluster: { server: "$API", certificate-authority: "$STATE/pki/ca.crt" }
users:
  - name: $1
    user: { client-certificate: "$STATE/pki/$1.crt", client-key: "$STATE/pki/$1.key" }
contexts:
  - name: pix
    context: { cluster: pix, user: $1 }
current-context: pix
YAML
}

make_pki() {
  mkdir -p "$STATE/pki"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=pix-k8s-ca \
    -keyout "$STATE/pki/ca.key" -out "$STATE/pki/ca.crt" 2>/dev/null
  certificate apiserver /CN=kube-apiserver \
    "IP:$NODE_IP,IP:$KUBERNETES_SERVICE_IP,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  certificate admin "/O=system:masters/CN=pix-admin"
  certificate controller-manager /CN=system:kube-controller-manager
  certificate scheduler /CN=system:kube-scheduler
  certificate kubelet "/O=system:nodes/CN=system:node:$NODE" "IP:$NODE_IP,DNS:$NODE"
  certificate kube-proxy /CN=system:kube-proxy
  # kube-router's firewall reads pods, namespaces, policies and nodes cluster-wide; admin here.
  certificate kube-router "/O=system:masters/CN=kube-router"
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$STATE/pki/sa.key" 2>/dev/null
  openssl pkey -in "$STATE/pki/sa.key" -pubout -out "$STATE/pki/sa.pub" 2>/dev/null
  local name
  for name in admin controller-manager scheduler kubelet kube-proxy kube-router; do kubeconfig "$name"; done
}

record_host() {
  mkdir -p "$STATE/host"
  local key
  for key in "${SYSCTLS[@]}"; do
    sysctl -n "$key" >/dev/null 2>&1 && echo "$key=$(sysctl -n "$key")"
  done >"$STATE/host/sysctl"
  # Per-interface route_localnet too (kube-proxy sets it on the interfaces it serves NodePorts on).
  for key in /proc/sys/net/ipv4/conf/*/route_localnet; do echo "$key=$(cat "$key")"; done >"$STATE/host/route_localnet"
  # Folders the runtime, the CNI library and the kubelet make outside the state folder, whatever
  # their settings say: removed by down unless they were here before.
  local dir
  for dir in "${HOST_DIRS[@]}"; do
    [ -e "$dir" ] && echo "$dir"
  done >"$STATE/host/dirs-existing"
  ls /run/netns 2>/dev/null | sort >"$STATE/host/netns" || true
}

# start <name> <command...>: in its own session, its output in logs/<name>.log, its pid in pids/.
start() {
  local name=$1
  shift
  setsid "$@" >"$STATE/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$STATE/pids/$name"
}

wait_for() { # <what> <seconds> <command...>
  local what=$1 seconds=$2
  shift 2
  local deadline=$(($(date +%s) + seconds))
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      say "$what not ready after $seconds s"
      return 1
    fi
    sleep 1
  done
}

network() {
  ip link add "$BRIDGE" type bridge
  ip addr add "$NODE_IP/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  ip route add "$SERVICE_CIDR" dev "$BRIDGE" src "$NODE_IP"
  # Pods speak to each other, to Services and to the node; nothing of theirs leaves by another
  # interface. In mangle's FORWARD, which runs before filter's, where kube-proxy and kube-router
  # put rules that ACCEPT.
  iptables -t mangle -N "$ISOLATE_CHAIN"
  iptables -t mangle -A "$ISOLATE_CHAIN" -s "$POD_CIDR" ! -o "$BRIDGE" -j DROP
  iptables -t mangle -A "$ISOLATE_CHAIN" -d "$POD_CIDR" ! -i "$BRIDGE" -j DROP
  iptables -t mangle -I FORWARD 1 -j "$ISOLATE_CHAIN"
  mkdir -p "$STATE/cni"
  cat >"$STATE/cni/10-pix.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "pix",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "$POD_CIDR", "gateway": "$NODE_IP" }]],
        "routes": [{ "dst": "0.0.0.0/0" }],
        "dataDir": "$STATE/cni-ipam"
      }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
JSON
}

containerd_config() {
  mkdir -p "$STATE/containerd"
  cat >"$STATE/containerd/config.toml" <<TOML
version = 3
root = "$STATE/containerd/root"
state = "$STATE/containerd/state"

[grpc]
  address = "$STATE/containerd.sock"

[ttrpc]
  address = "$STATE/containerd.sock.ttrpc"

[plugins.'io.containerd.nri.v1.nri']
  disable = true

[plugins.'io.containerd.cri.v1.runtime']
  # Without it every sandbox fails here ("can't get final child's PID from pipe: EOF"): root
  # lacks CAP_SYS_RESOURCE and may not lower a process's oom_score_adj.
  restrict_oom_score_adj = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = 'runc'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = 'io.containerd.runc.v2'
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = '$(command -v runc)'
        SystemdCgroup = false
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ['/usr/lib/cni']
    conf_dir = '$STATE/cni'

[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'overlayfs'
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = '$PAUSE_IMAGE'
TOML
}

kubelet_config() {
  mkdir -p "$STATE/kubelet"
  cat >"$STATE/kubelet/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This kind of machine: cgroup v1 controllers beside a v2 mount, no systemd.
failCgroupV1: false
cgroupDriver: cgroupfs
failSwapOn: false
protectKernelDefaults: false
containerRuntimeEndpoint: unix://$STATE/containerd.sock
address: $NODE_IP
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: "$STATE/pki/ca.crt" }
authorization: { mode: Webhook }
tlsCertFile: "$STATE/pki/kubelet.crt"
tlsPrivateKeyFile: "$STATE/pki/kubelet.key"
clusterDomain: cluster.local
clusterDNS: ["$DNS_SERVICE_IP"]
# No upstream resolver for pods: names outside the cluster resolve to nothing.
resolvConf: ""
podCIDR: "$POD_CIDR"
maxPods: 60
evictionHard: { memory.available: "200Mi", nodefs.available: "2%", imagefs.available: "2%", nodefs.inodesFree: "2%" }
imageGCHighThresholdPercent: 99
imageGCLowThresholdPercent: 98
podLogsDir: "$STATE/pod-logs"
YAML
}

kube_proxy_config() {
  cat >"$STATE/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
hostnameOverride: $NODE
clusterCIDR: "$POD_CIDR"
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
nodePortAddresses: ["$NODE_IP/32"]
clientConnection: { kubeconfig: "$STATE/pki/kube-proxy.kubeconfig" }
# The host's conntrack table and timeouts are left as they are.
conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s }
YAML
}

coredns_manifest() {
  cat <<YAML
apiVersion: v1
kind: ServiceAccount
metadata: { name: coredns, namespace: kube-system }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: "system:coredns" }
rules:
  - { apiGroups: [""], resources: [endpoints, services, pods, namespaces], verbs: [list, watch] }
  - { apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: "system:coredns" }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns" }
subjects: [{ kind: ServiceAccount, name: coredns, namespace: kube-system }]
---
apiVersion: v1
kind: ConfigMap
metadata: { name: coredns, namespace: kube-system }
data:
  Corefile: |
    .:53 {
        errors
        health :8080
        ready :8181
        kubernetes cluster.local in-addr.arpa ip6.arpa {
            pods insecure
            fallthrough in-addr.arpa ip6.arpa
        }
        cache 30
    }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: coredns, namespace: kube-system, labels: { k8s-app: kube-dns } }
spec:
  replicas: 1
  selector: { matchLabels: { k8s-app: kube-dns } }
  template:
    metadata: { labels: { k8s-app: kube-dns } }
    spec:
      serviceAccountName: coredns
      dnsPolicy: Default
      containers:
        - name: coredns
          image: $COREDNS_IMAGE
          imagePullPolicy: Never
          args: [-conf, /etc/coredns/Corefile]
          ports:
            - { name: dns, containerPort: 53, protocol: UDP }
            - { name: dns-tcp, containerPort: 53, protocol: TCP }
          readinessProbe: { httpGet: { path: /ready, port: 8181 }, periodSeconds: 2 }
          livenessProbe: { httpGet: { path: /health, port: 8080 }, periodSeconds: 10 }
          resources: { requests: { cpu: 50m, memory: 40Mi }, limits: { memory: 128Mi } }
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: { drop: [ALL], add: [NET_BIND_SERVICE] }
          volumeMounts: [{ name: config, mountPath: /etc/coredns, readOnly: true }]
      volumes: [{ name: config, configMap: { name: coredns } }]
---
apiVersion: v1
kind: Service
metadata: { name: kube-dns, namespace: kube-system, labels: { k8s-app: kube-dns } }
spec:
  clusterIP: $DNS_SERVICE_IP
  selector: { k8s-app: kube-dns }
  ports:
    - { name: dns, port: 53, protocol: UDP }
    - { name: dns-tcp, port: 53, protocol: TCP }
YAML
}

# import <docker-archive tar> [<name>...]: an image into containerd's k8s.io namespace.
import_image() {
  "$bin/ctr" --address "$STATE/containerd.sock" -n k8s.io images import --no-unpack=false "$1" >/dev/null
}

up() {
  [ -x "$bin/kube-apiserver" ] || { say "no binaries: run scripts/k8s/build-cluster.sh first"; exit 1; }
  if [ -d "$STATE/pids" ]; then
    say "$STATE exists: a cluster is up or was not taken down; run '$0 down' first"
    exit 1
  fi
  if ip link show "$BRIDGE" >/dev/null 2>&1; then say "bridge $BRIDGE exists already"; exit 1; fi
  local started
  started=$(date +%s)
  mkdir -p "$STATE/pids" "$STATE/logs"
  record_host
  make_pki
  network

  start etcd "$bin/etcd" --name pix --data-dir "$STATE/etcd" \
    --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster pix=http://127.0.0.1:2380 --listen-metrics-urls http://127.0.0.1:2381 \
    --quota-backend-bytes 1073741824
  wait_for etcd 60 curl -fsS http://127.0.0.1:2381/health

  start kube-apiserver "$bin/kube-apiserver" --etcd-servers http://127.0.0.1:2379 \
    --bind-address "$NODE_IP" --advertise-address "$NODE_IP" --secure-port 6443 \
    --service-cluster-ip-range "$SERVICE_CIDR" --service-node-port-range 30000-32767 \
    --client-ca-file "$STATE/pki/ca.crt" --tls-cert-file "$STATE/pki/apiserver.crt" \
    --tls-private-key-file "$STATE/pki/apiserver.key" \
    --kubelet-client-certificate "$STATE/pki/admin.crt" --kubelet-client-key "$STATE/pki/admin.key" \
    --kubelet-certificate-authority "$STATE/pki/ca.crt" \
    --service-account-key-file "$STATE/pki/sa.pub" --service-account-signing-key-file "$STATE/pki/sa.key" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --kubelet-preferred-address-types InternalIP \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction --profiling=false
  wait_for kube-apiserver 180 kubectl get --raw /readyz

  start kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig "$STATE/pki/controller-manager.kubeconfig" --bind-address 127.0.0.1 \
    --service-account-private-key-file "$STATE/pki/sa.key" --root-ca-file "$STATE/pki/ca.crt" \
    --cluster-signing-cert-file "$STATE/pki/ca.crt" --cluster-signing-key-file "$STATE/pki/ca.key" \
    --use-service-account-credentials --allocate-node-cidrs --cluster-cidr "$POD_CIDR" \
    --node-cidr-mask-size 24 --service-cluster-ip-range "$SERVICE_CIDR" --leader-elect=false --profiling=false
  start kube-scheduler "$bin/kube-scheduler" --kubeconfig "$STATE/pki/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --profiling=false

  containerd_config
  start containerd "$bin/containerd" --config "$STATE/containerd/config.toml"
  wait_for containerd 60 "$bin/ctr" --address "$STATE/containerd.sock" version
  import_image "$bin/pause-image.tar"
  import_image "$bin/coredns-image.tar"

  kubelet_config
  start kubelet "$bin/kubelet" --config "$STATE/kubelet/config.yaml" \
    --kubeconfig "$STATE/pki/kubelet.kubeconfig" --root-dir "$STATE/kubelet/root" \
    --cert-dir "$STATE/kubelet/pki" --node-ip "$NODE_IP" --hostname-override "$NODE"
  kube_proxy_config
  start kube-proxy "$bin/kube-proxy" --config "$STATE/kube-proxy.yaml"
  wait_for "node $NODE" 120 kubectl wait --for condition=Ready "node/$NODE" --timeout 5s
  # kube-router finds its node at start, and exits when it is not registered yet.
  start kube-router "$bin/kube-router" --kubeconfig "$STATE/pki/kube-router.kubeconfig" \
    --hostname-override "$NODE" --run-firewall=true --run-router=false --run-service-proxy=false \
    --enable-cni=false --metrics-port 0 --health-port 0 --iptables-sync-period 30s
  wait_for "kube-router's firewall" 60 sh -c 'iptables-save -t filter | grep -q "^:KUBE-ROUTER-"'

  coredns_manifest | kubectl apply -f - >/dev/null
  wait_for coredns 180 kubectl -n kube-system rollout status deployment/coredns --timeout 5s
  local name
  for name in "$STATE"/pids/*; do
    kill -0 "$(cat "$name")" 2>/dev/null || { say "$(basename "$name") exited: see $STATE/logs"; return 1; }
  done
  say "up in $(($(date +%s) - started)) s: KUBECONFIG=$STATE/pki/admin.kubeconfig"
}

# --------------------------------------------------------------------------------------------- down

stop_pid() { # <pid> <name>: TERM, then KILL after 20 s
  local pid=$1 name=$2 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.5
  done
  say "$name ($pid) still running: KILL"
  kill -KILL "$pid" 2>/dev/null || true
}

stop() { # <name>: the process up started
  local file="$STATE/pids/$1"
  [ -f "$file" ] || return 0
  stop_pid "$(cat "$file")" "$1"
  rm -f "$file"
}

remove_chains() { # <iptables command>: the cluster's chains in every table, and the rules that reach them
  local ipt=$1 table chains rule
  for table in filter nat mangle raw; do
    chains=$("$ipt-save" -t "$table" 2>/dev/null | sed -n 's/^:\([^ ]*\) .*/\1/p' | grep -E "$CHAIN_PATTERN" || true)
    [ -n "$chains" ] || continue
    # Rules in the built-in chains (and any other) that jump to one of them.
    { "$ipt-save" -t "$table" | grep -E -- "^-A " || true; } | while read -r rule; do
      local target
      target=$(sed -n 's/.* -j \([^ ]*\).*/\1/p' <<<"$rule")
      local chain
      chain=$(awk '{print $2}' <<<"$rule")
      if grep -qx -- "$target" <<<"$chains" && ! grep -qx -- "$chain" <<<"$chains"; then
        eval "\"$ipt\" -t \"$table\" -D ${rule#-A }" 2>/dev/null || true
      fi
    done
    for rule in $chains; do "$ipt" -t "$table" -F "$rule" 2>/dev/null || true; done
    for rule in $chains; do "$ipt" -t "$table" -X "$rule" 2>/dev/null || true; done
  done
}

down() {
  [ -d "$STATE" ] || { say "nothing to take down"; return 0; }
  # The pods go with the kubelet's processes: the kubelet first, so that it restarts nothing.
  stop kubelet
  if [ -f "$STATE/pids/containerd" ] && kill -0 "$(cat "$STATE/pids/containerd")" 2>/dev/null; then
    local id
    for id in $("$bin/ctr" --address "$STATE/containerd.sock" -n k8s.io tasks ls -q 2>/dev/null); do
      "$bin/ctr" --address "$STATE/containerd.sock" -n k8s.io tasks kill -s KILL "$id" >/dev/null 2>&1 || true
    done
    sleep 2
    for id in $("$bin/ctr" --address "$STATE/containerd.sock" -n k8s.io tasks ls -q 2>/dev/null); do
      "$bin/ctr" --address "$STATE/containerd.sock" -n k8s.io tasks delete -f "$id" >/dev/null 2>&1 || true
    done
  fi
  local name
  for name in kube-router kube-proxy kube-scheduler kube-controller-manager kube-apiserver containerd etcd; do
    stop "$name"
  done
  # The shims containerd started leave its process group: each is a process of this install's
  # shim binary (a deleted task's shim may outlive its bundle, and the pid file in it).
  local proc
  for proc in /proc/[0-9]*; do
    if [ "$(readlink "$proc/exe" 2>/dev/null)" = "$bin/containerd-shim-runc-v2" ]; then
      stop_pid "${proc#/proc/}" containerd-shim
    fi
  done

  # Mounts under the state folder (secrets, overlay root filesystems, sandbox files), deepest first.
  local mnt
  while IFS= read -r mnt; do
    umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
  done < <(awk -v s="$STATE/" 'index($2, s) == 1 {print $2}' /proc/self/mounts | sort -r)
  # The pods' network namespaces: the ones that were not there before up.
  if [ -d /run/netns ]; then
    while IFS= read -r mnt; do
      umount "/run/netns/$mnt" 2>/dev/null || true
      rm -f "/run/netns/$mnt"
    done < <(comm -13 "$STATE/host/netns" <(ls /run/netns | sort))
  fi

  remove_chains iptables
  remove_chains ip6tables
  local set
  for set in $(ipset list -n 2>/dev/null | grep -E '^(kube-router|KUBE-|inet6:kube-router|inet6:KUBE-)' || true); do
    ipset destroy "$set" 2>/dev/null || true
  done
  ip route del "$SERVICE_CIDR" dev "$BRIDGE" 2>/dev/null || true
  ip link del "$BRIDGE" 2>/dev/null || true
  # The kubelet's cgroups (cgroupfs driver): every hierarchy's kubepods tree, leaves first.
  local dir
  for dir in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/*/kubepods.slice; do
    [ -d "$dir" ] && find "$dir" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
  # Kernel settings, as they were.
  local line
  while IFS= read -r line; do sysctl -q -w "$line" >/dev/null 2>&1 || true; done <"$STATE/host/sysctl"
  while IFS='=' read -r key value; do
    [ -f "$key" ] && echo "$value" >"$key" 2>/dev/null || true
  done <"$STATE/host/route_localnet"
  # The kubelet's links to the pods' logs, and the CNI library's cache of this network's results.
  find /var/log/containers -maxdepth 1 -type l -lname "$STATE/*" -delete 2>/dev/null || true
  find /var/lib/cni -name 'pix-*' -delete 2>/dev/null || true
  for dir in "${HOST_DIRS[@]}"; do
    grep -qx "$dir" "$STATE/host/dirs-existing" || rm -rf "$dir"
  done
  local changed
  changed=$(while IFS='=' read -r key value; do
    [ "$(sysctl -n "$key" 2>/dev/null)" = "$value" ] || echo "$key"
  done <"$STATE/host/sysctl")
  rm -rf "$STATE"
  [ -z "$changed" ] || { say "kernel settings not restored: $changed"; return 1; }
  leftovers
}

# What down must not leave: any of the cluster's chains, its bridge or routes, a mount of its
# state or of a pod's network namespace, a kernel setting that differs from what up recorded.
leftovers() {
  local left
  left=$(
    for ipt in iptables ip6tables; do "$ipt-save" 2>/dev/null | grep -E "^:${CHAIN_PATTERN#^}" | sed "s/^/$ipt /"; done
    ip -br link | awk -v b="$BRIDGE" '$1 == b {print "link " $1}'
    ip route | grep -E "$BRIDGE|10\.244\.|10\.96\." | sed 's/^/route /'
    awk -v s="$STATE/" 'index($2, s) == 1 || $2 ~ "^/run/netns/cni-" {print "mount " $2}' /proc/self/mounts
  )
  if [ -n "$left" ]; then
    say "down left behind:"
    printf '%s\n' "$left" >&2
    return 1
  fi
  say "down: the machine is as up found it (no chain, link, route or mount of the cluster's left)"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  env) echo "export KUBECONFIG=$STATE/pki/admin.kubeconfig" ;;
  *)
    echo "usage: $0 up|down|env" >&2
    exit 2
    ;;
esac
