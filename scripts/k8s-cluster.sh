#!/usr/bin/env bash
# scripts/k8s-cluster.sh up|down|status|kill-node N|load-image IMAGE|build|purge -- a real Kubernetes v1.37.2
# cluster on one Linux host (root, cgroup v1), for the Kubernetes deploy tests. Adapted from the lab of
# ../shared/tools/k8s-cluster/cluster.sh, plus a container registry; works from a plain clone.
#
# Control plane in network namespace mcpk8s-cp (10.88.0.2): etcd (Debian 3.4.23, on its loopback),
# kube-apiserver (:6443, x509 client certs, Node+RBAC), kube-controller-manager, kube-scheduler.
# Nodes mcpk8s-1..3 (10.88.0.11..13), each a network namespace + private mount/UTS namespace (private /run,
# /var/lib, /var/log; hostname mcpk8s-nodeN) + cgroup /mcpk8s/nodeN in every v1 hierarchy, running containerd
# (Debian 1.6.20, or 2.4.2 with CONTAINERD=v2) + runc + CNI bridge/host-local/portmap, kube-proxy (iptables-nft,
# or KPMODE=nftables) and the kubelet. Pods 10.88.(128+N).0/24 on node N; services 10.88.64.0/20; CoreDNS (if
# built) at 10.88.64.10. mcpk8s-lb (10.88.0.10) runs HAProxy :8000 -> every node's NodePort 30080, checked with
# GET $LB_CHECK (default /readyz). mcpk8s-reg (10.88.0.5) runs a registry (Debian docker-registry 2.8) on :5000,
# storage under $K. The namespaces meet on a bridge inside mcpk8s-sw. The root namespace gets only two socats:
# 127.0.0.1:$APIPORT (16443) -> apiserver and 127.0.0.1:$REGISTRY_PORT (15000) -> registry, each over a unix socket:
#
#   export KUBECONFIG=$K/admin.kubeconfig; kubectl get nodes
#   docker push 127.0.0.1:15000/name:tag            (dockerd treats 127.0.0.0/8 as an insecure registry)
#   image: 127.0.0.1:15000/name@sha256:...          (each node's containerd pulls it from http://10.88.0.5:5000)
#   nsenter --net=/run/netns/mcpk8s-lb curl http://10.88.0.10:8000/
#
# Binaries: $C/bin (scripts/k8s-build.sh, from the Go module proxy) and $C/root (Debian .debs unpacked, never
# installed). Every process started is recorded as "name pid" in $K/pids.txt and put in a /mcpk8s cgroup; down ends
# the recorded ones (checked against /proc/PID/cmdline), then every PID left in /mcpk8s (shims, containers), and
# removes cgroups, namespaces, mounts and $K. down is safe when nothing is up.
# Global sysctls: the kubelet would set vm.overcommit_memory=1, kernel.panic=10, kernel.panic_on_oops=1 on the
# host; each node's mount namespace bind-mounts read-only files holding those values over them instead.
set -uo pipefail
K=${K8S_CLUSTER_DIR:-${TMPDIR:-/tmp}/mcp-k8s}
C=${K8SLAB_CACHE:-$HOME/.cache/k8s-lab}
NODES=${NODES:-"1 2 3"}
KPMODE=${KPMODE:-iptables}
APIPORT=${APIPORT:-16443}
REGISTRY_PORT=${REGISTRY_PORT:-15000}
LB_CHECK=${LB_CHECK:-/readyz}
REG=10.88.0.5:5000
NSS="mcpk8s-cp mcpk8s-lb mcpk8s-reg mcpk8s-1 mcpk8s-2 mcpk8s-3 mcpk8s-sw"
PIDS=$K/pids.txt
HERE=$(cd "$(dirname "$0")" && pwd)
DR=$C/root
case $K in /* ) [ "$K" != / ] ;; *) false ;; esac || { echo "K8S_CLUSTER_DIR must be an absolute path other than /" >&2; exit 2; }
export PATH=$C/bin:$C/sbin:$DR/usr/bin:$DR/usr/sbin:$PATH
# CONTAINERD=v2: containerd 2.4.2 + its shim + ctr built by k8s-build.sh ctd2 (default: Debian's 1.6.20)
[ "${CONTAINERD:-}" = v2 ] && export PATH=$C/ctd2:$PATH
export LD_LIBRARY_PATH=$DR/usr/lib/x86_64-linux-gnu:$DR/lib/x86_64-linux-gnu
export XTABLES_LIBDIR=$DR/usr/lib/x86_64-linux-gnu/xtables
T0=$(date +%s.%N)
log() { printf '[%6.2fs] %s\n' "$(echo "$(date +%s.%N) - $T0" | bc)" "$*"; }
die() { log "ERROR: $*" >&2; exit 1; }
kc() { timeout 30 kubectl --kubeconfig $K/admin.kubeconfig "$@"; }
CGS="cpu cpuacct cpuset memory devices freezer blkio pids systemd"
# The Debian packages the cluster runs, unpacked into $DR; apt-get download resolves no dependencies, so the
# libraries are listed too. docker-registry is the in-cluster registry.
DEBS="etcd-server containerd runc containernetworking-plugins iptables libip4tc2 libip6tc2 libxtables12
  libnetfilter-conntrack3 libnfnetlink0 libnftnl11 libmnl0 nftables libnftables1 libjansson4 libedit2 haproxy
  liblua5.3-0 libopentracing-c-wrapper0 libopentracing1 busybox-static conntrack socat libwrap0 docker-registry"

need_debs() { # unpacks the .debs into $DR when one of the files the cluster runs is missing
  local f missing=0
  for f in usr/bin/containerd usr/bin/etcd usr/sbin/haproxy usr/lib/cni/bridge usr/lib/x86_64-linux-gnu/libwrap.so.0 \
    usr/bin/docker-registry usr/bin/socat bin/busybox; do
    [ -e $DR/$f ] || missing=1
  done
  [ $missing = 0 ] && return 0
  log "fetching Debian packages into $C/debs (apt-get download, unpacked into $DR)"
  mkdir -p $C/debs $DR
  # no package lists on a fresh machine: one apt-get update, then the download again
  (cd $C/debs && timeout 300 apt-get download $DEBS >/dev/null 2>&1) ||
    { timeout 300 apt-get update -qq >/dev/null 2>&1; (cd $C/debs && timeout 300 apt-get download $DEBS >/dev/null 2>&1); } ||
    die "apt-get download failed: $(cd $C/debs && apt-get download $DEBS 2>&1 | tail -1)"
  for f in $C/debs/*.deb; do dpkg -x "$f" $DR; done
}

need_tools() {
  local b
  for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl pause; do
    [ -x $C/bin/$b ] || die "missing $C/bin/$b (run: bash $HERE/k8s-cluster.sh build)"
  done
  need_debs
  mkdir -p $C/sbin   # iptables-nft under the names kube-proxy calls (Debian sets these by update-alternatives)
  for t in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
    ln -sfn $DR/usr/sbin/${t/tables/tables-nft} $C/sbin/$t
  done
  ln -sfn $DR/usr/sbin/nft $C/sbin/nft
  for b in ip nsenter unshare setsid bc openssl python3; do command -v $b >/dev/null || die "missing $b"; done
}

alive() { # name pid -> 0 if pid is alive and is the process we recorded
  local name=$1 pid=$2 cmd
  [ -r /proc/$pid/cmdline ] || return 1
  cmd=$(tr '\0' ' ' </proc/$pid/cmdline)
  [[ $cmd == *"$K/"* ]]
}

cg_pids() { # every pid in a /mcpk8s cgroup subtree (pids hierarchy); no argument: the whole tree
  [ -d /sys/fs/cgroup/pids/mcpk8s/${1:-} ] && find /sys/fs/cgroup/pids/mcpk8s/${1:-} -name cgroup.procs -exec cat {} + 2>/dev/null
}

cg_make() { # cgroup path under every v1 hierarchy; cpuset needs cpus/mems before tasks
  local p=$1 h
  for h in $CGS; do
    [ -d /sys/fs/cgroup/$h ] || continue
    mkdir -p /sys/fs/cgroup/$h/$p
  done
  local d=/sys/fs/cgroup/cpuset q=""
  for part in ${p//\// }; do
    q=$q/$part
    [ -s $d$q/cpuset.cpus ] && [ -n "$(cat $d$q/cpuset.cpus)" ] || cat $d${q%/*}/cpuset.cpus >$d$q/cpuset.cpus
    [ -n "$(cat $d$q/cpuset.mems)" ] || cat $d${q%/*}/cpuset.mems >$d$q/cpuset.mems
  done
}

kill_node() { # N: a node lost: every process in its cgroup SIGKILLed (freezer first), then its link down
  local n=$1 p
  ip netns list | grep -qw mcpk8s-$n || die "no node $n"
  find /sys/fs/cgroup/freezer/mcpk8s/node$n -depth -name freezer.state -exec sh -c 'echo FROZEN > "$1"' _ {} \; 2>/dev/null
  p=$(cg_pids node$n); for pid in $p; do kill -KILL $pid 2>/dev/null; done
  find /sys/fs/cgroup/freezer/mcpk8s/node$n -depth -name freezer.state -exec sh -c 'echo THAWED > "$1"' _ {} \; 2>/dev/null
  # the killed processes' connections are reset by the kernel as they exit (as when everything on a node crashes);
  # then the link goes. Taking it down first would leave their peers waiting on connections that never answer.
  for i in $(seq 1 20); do [ -z "$(cg_pids node$n)" ] && break; sleep 0.1; done
  ip -n mcpk8s-$n link set eth0 down
  log "node$n: killed $(echo $p | wc -w) processes, eth0 down"
}

down() {
  log "down: stopping recorded processes"
  if [ -s $PIDS ]; then
    while read -r name pid; do alive $name $pid && kill -TERM $pid 2>/dev/null && log "  TERM $name $pid"; done <$PIDS
    for i in $(seq 1 20); do   # 2 s of grace (kube-apiserver's own graceful shutdown takes longer): then KILL
      left=0; while read -r name pid; do alive $name $pid && left=1; done <$PIDS
      [ $left = 0 ] && break; sleep 0.1
    done
    while read -r name pid; do alive $name $pid && kill -KILL $pid 2>/dev/null && log "  KILL $name $pid"; done <$PIDS
  fi
  # shims, containers and anything else left in our cgroups (also when $PIDS is lost: every process is in one);
  # frozen first so that nothing forks in between
  for i in 1 2 3 4 5; do
    p=$(cg_pids); [ -z "$p" ] && break
    find /sys/fs/cgroup/freezer/mcpk8s -depth -name freezer.state -exec sh -c 'echo FROZEN > "$1"' _ {} \; 2>/dev/null
    for pid in $p; do kill -KILL $pid 2>/dev/null; done
    find /sys/fs/cgroup/freezer/mcpk8s -depth -name freezer.state -exec sh -c 'echo THAWED > "$1"' _ {} \; 2>/dev/null
    log "  killed leftover pids: $(echo $p)"; sleep 0.3
  done
  rm -f $PIDS
  for h in /sys/fs/cgroup/*/mcpk8s; do [ -d "$h" ] && find "$h" -depth -type d -exec rmdir {} + 2>/dev/null; done
  grep -o " $K/[^ ]*" /proc/self/mountinfo | sort -r | while read -r m; do umount -l "$m" && log "  umount $m"; done
  for ns in $NSS; do ip netns del $ns 2>/dev/null && log "  netns del $ns"; done
  # /run/netns ('ip netns add' makes it a self bind-mount) and /run/mount (libmount's utab lock dir, made by
  # 'unshare --propagation'): removed only if up created them and they are empty now
  if [ -e $K/created-run-netns ] && [ -d /run/netns ] && [ -z "$(ls -A /run/netns)" ]; then umount /run/netns 2>/dev/null; rmdir /run/netns 2>/dev/null; fi
  if [ -e $K/created-run-mount ] && [ -d /run/mount ] && [ -z "$(ls -A /run/mount)" ]; then rmdir /run/mount 2>/dev/null; fi
  rm -rf $K
  local left; left=$(ls -d /sys/fs/cgroup/*/mcpk8s 2>/dev/null; ip netns list 2>/dev/null | grep '^mcpk8s-')
  [ -z "$left" ] || log "down: LEFT: $(echo $left)"
  log "down: done"
}

pki() { # a CA and every certificate the cluster uses (EC P-256), by openssl
  local P=$K/pki; mkdir -p $P; cd $P || die "no $P"
  openssl ecparam -name prime256v1 -genkey -noout -out ca.key 2>/dev/null
  openssl req -x509 -new -key ca.key -subj /CN=mcpk8s-ca -days 30 -out ca.crt 2>/dev/null
  openssl ecparam -name prime256v1 -genkey -noout -out sa.key 2>/dev/null
  openssl ec -in sa.key -pubout -out sa.pub 2>/dev/null
  cert() { # name CN O [SANs]
    local name=$1 cn=$2 o=$3 san=${4:-}
    openssl ecparam -name prime256v1 -genkey -noout -out $name.key 2>/dev/null
    openssl req -new -key $name.key -subj "/CN=$cn${o:+/O=$o}" -out $name.csr 2>/dev/null
    { echo "basicConstraints=CA:FALSE"; echo "keyUsage=critical,digitalSignature,keyEncipherment"
      [ -n "$san" ] && echo "extendedKeyUsage=serverAuth,clientAuth" && echo "subjectAltName=$san" || echo "extendedKeyUsage=clientAuth"; } >$name.ext
    openssl x509 -req -in $name.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile $name.ext -out $name.crt 2>/dev/null
    rm -f $name.csr $name.ext
  }
  cert apiserver kube-apiserver "" "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,IP:127.0.0.1,IP:10.88.0.2,IP:10.88.64.1"
  cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
  cert admin mcpk8s-admin system:masters
  cert controller-manager system:kube-controller-manager ""
  cert scheduler system:kube-scheduler ""
  cert kube-proxy system:kube-proxy ""
  for n in $NODES; do cert node$n system:node:mcpk8s-node$n system:nodes; done
  cd - >/dev/null
}

kubeconfig() { # out user server
  cat >$1 <<EOF
apiVersion: v1
kind: Config
clusters:
- name: mcpk8s
  cluster: {certificate-authority: $K/pki/ca.crt, server: $3}
users:
- name: $2
  user: {client-certificate: $K/pki/$2.crt, client-key: $K/pki/$2.key}
contexts:
- name: mcpk8s
  context: {cluster: mcpk8s, user: $2}
current-context: mcpk8s
EOF
}

start_in() { # name netns cgroup cmd... : a recorded, detached process in a namespace and cgroup
  local name=$1 ns=$2 cg=$3; shift 3
  setsid nsenter --net=/run/netns/$ns sh -c 'for h in pids memory freezer; do echo $$ >/sys/fs/cgroup/$h/'$cg'/cgroup.procs; done; exec "$@"' \
    sh "$@" </dev/null >>$K/log/$name.log 2>&1 &
  echo "$name $!" >>$PIDS
}

start_root() { # name cgroup cmd... : the same in the root network namespace (the two forwarding socats)
  local name=$1 cg=$2; shift 2
  setsid sh -c 'for h in pids memory freezer; do echo $$ >/sys/fs/cgroup/$h/'$cg'/cgroup.procs; done; exec "$@"' sh \
    "$@" </dev/null >>$K/log/$name.log 2>&1 &
  echo "$name $!" >>$PIDS
}

node_files() { # N: containerd config (+ registry mirror), CNI config, kubelet + kube-proxy config, start script
  local n=$1 D=$K/node$n ip=10.88.0.1$1 pod=10.88.$((128 + $1))
  mkdir -p $D/cni $D/kubelet $D/containerd $D/pod-logs $D/ipam $D/run $D/sys "$D/certs.d/127.0.0.1:$REGISTRY_PORT"
  # Pods name images 127.0.0.1:$REGISTRY_PORT/... (what the host pushed to); inside a node that address is its own
  # loopback, so containerd resolves that host to the in-cluster registry over plain HTTP (hosts.toml, read by
  # containerd 1.6 and 2.x alike). server = the registry too: no fallback to https://127.0.0.1.
  cat >"$D/certs.d/127.0.0.1:$REGISTRY_PORT/hosts.toml" <<EOF
server = "http://$REG"
[host."http://$REG"]
  capabilities = ["pull", "resolve"]
EOF
  cat >$D/containerd.toml <<EOF
version = 2
root = "$D/containerd"
state = "/run/containerd"
disabled_plugins = ["io.containerd.internal.v1.opt", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs", "io.containerd.tracing.processor.v1.otlp"]
[grpc]
  address = "$D/run/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/mcpk8s/pause:1"
  enable_unprivileged_ports = true
  restrict_oom_score_adj = true   # this machine drops CAP_SYS_RESOURCE: a sandbox's oom_score_adj -998 is refused
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "$DR/usr/bin/runc"
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$DR/usr/lib/cni"
    conf_dir = "$D/cni"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$D/certs.d"
EOF
  cat >$D/cni/10-mcpk8s.conflist <<EOF
{"cniVersion": "0.4.0", "name": "mcpk8s", "plugins": [
  {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "dataDir": "$D/ipam", "ranges": [[{"subnet": "$pod.0/24", "gateway": "$pod.1"}]],
            "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}}
]}
EOF
  cat >$D/kubelet.yaml <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /mcpk8s/node$n
containerRuntimeEndpoint: unix://$D/run/containerd.sock
address: $ip
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $K/pki/ca.crt}
authorization: {mode: Webhook}
podLogsDir: $D/pod-logs
resolvConf: $K/resolv.conf
clusterDNS: [10.88.64.10]
clusterDomain: cluster.local
nodeStatusUpdateFrequency: 2s
nodeLeaseDurationSeconds: 8
serializeImagePulls: false
imageGCHighThresholdPercent: 99
imageGCLowThresholdPercent: 98
evictionHard: {memory.available: "100Mi", nodefs.available: "2%", imagefs.available: "2%"}
maxPods: 50
EOF
  kubeconfig $D/kubelet.kubeconfig node$n https://10.88.0.2:6443
  cat >$D/kube-proxy.yaml <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: $KPMODE
hostnameOverride: mcpk8s-node$n
clusterCIDR: 10.88.128.0/17
clientConnection: {kubeconfig: $K/kube-proxy.kubeconfig}
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
nodePortAddresses: ["10.88.0.0/24"]
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
iptables: {syncPeriod: 10s, minSyncPeriod: 0s}
nftables: {syncPeriod: 10s, minSyncPeriod: 0s}
EOF
  printf 1 >$D/sys/overcommit_memory; printf 10 >$D/sys/panic; printf 1 >$D/sys/panic_on_oops
  cat >$D/start.sh <<EOF
#!/bin/bash
# node$n: runs inside nsenter --net=/run/netns/mcpk8s-$n unshare --mount --uts --propagation private
for h in pids memory freezer; do echo \$\$ >/sys/fs/cgroup/\$h/mcpk8s/node$n/system/cgroup.procs; done
hostname mcpk8s-node$n
mount -n -t tmpfs -o mode=755,size=64m mcpk8s-run$n /run
mount -n -t tmpfs -o mode=755,size=16m mcpk8s-varlib$n /var/lib   # /var/lib/cni (CNI result cache) stays private
mount -n -t tmpfs -o mode=755,size=64m mcpk8s-varlog$n /var/log   # /var/log/containers (kubelet's symlinks) too
for f in vm/overcommit_memory kernel/panic kernel/panic_on_oops; do mount -n --bind -o ro $D/sys/\${f#*/} /proc/sys/\$f; done
sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1 net.ipv4.conf.all.rp_filter=0 2>/dev/null
export PATH=$PATH LD_LIBRARY_PATH=$LD_LIBRARY_PATH XTABLES_LIBDIR=$XTABLES_LIBDIR
containerd --config $D/containerd.toml >>$D/containerd.log 2>&1 &
echo "containerd \$!" >>$D/pids
for i in \$(seq 1 100); do [ -S $D/run/containerd.sock ] && break; sleep 0.1; done
for t in $K/img/*.tar; do ctr -a $D/run/containerd.sock -n k8s.io images import \$t >/dev/null 2>>$D/containerd.log; done
kube-proxy --config $D/kube-proxy.yaml >>$D/kube-proxy.log 2>&1 &
echo "kube-proxy \$!" >>$D/pids
kubelet --config $D/kubelet.yaml --kubeconfig $D/kubelet.kubeconfig --root-dir $D/kubelet --cert-dir $D/kubelet/pki \\
  --hostname-override mcpk8s-node$n --node-ip $ip >>$D/kubelet.log 2>&1 &
echo "kubelet \$!" >>$D/pids
wait
EOF
  chmod +x $D/start.sh
}

mkimage() { # ROOTFS NAME:TAG OUT.tar [--cmd JSON]: a one-layer image in `docker save` format, for ctr import
  python3 - "$@" <<'EOF'
import hashlib, io, json, sys, tarfile
a = sys.argv[1:]
root, name, out = a[0], a[1], a[2]
cmd = json.loads(a[4]) if len(a) > 4 and a[3] == "--cmd" else ["/bin/start"]
lb = io.BytesIO()
with tarfile.open(fileobj=lb, mode="w", format=tarfile.PAX_FORMAT) as t:
    def norm(ti):
        ti.uid = ti.gid = 0; ti.uname = ti.gname = ""; ti.mtime = 0
        return ti
    t.add(root, arcname=".", filter=norm)
layer = lb.getvalue()
diff = "sha256:" + hashlib.sha256(layer).hexdigest()
cfg = json.dumps({"architecture": "amd64", "os": "linux", "created": "2026-01-01T00:00:00Z",
                  "config": {"Cmd": cmd, "Env": ["PATH=/bin:/usr/bin"], "WorkingDir": "/"},
                  "rootfs": {"type": "layers", "diff_ids": [diff]}, "history": [{"created_by": "k8s-cluster.sh"}]}).encode()
cfgname = hashlib.sha256(cfg).hexdigest() + ".json"
man = json.dumps([{"Config": cfgname, "RepoTags": [name], "Layers": ["layer.tar"]}]).encode()
with tarfile.open(out, "w") as t:
    for n, b in (("layer.tar", layer), (cfgname, cfg), ("manifest.json", man)):
        ti = tarfile.TarInfo(n); ti.size = len(b); t.addfile(ti, io.BytesIO(b))
EOF
}

images() { # pause (Go), web (busybox httpd: / and /readyz) and CoreDNS as docker-save tarballs, imported on each node
  mkdir -p $K/img/pause $K/img/web/bin $K/img/web/etc $K/img/web/tmp
  cp $C/bin/pause $K/img/pause/pause
  mkimage $K/img/pause docker.io/mcpk8s/pause:1 $K/img/pause.tar --cmd '["/pause"]' || die "mkimage pause"
  local R=$K/img/web
  cp $DR/bin/busybox $R/bin/busybox
  for a in sh httpd hostname cat sleep wget nc nslookup ip ls env mkdir timeout; do ln -sf busybox $R/bin/$a; done
  printf '#!/bin/sh\nmkdir -p /tmp/www\necho "node=${NODE:-?} pod=$(hostname) version=${VERSION:-?}" >/tmp/www/index.html\necho ok >/tmp/www/readyz\nexec httpd -f -p ${PORT:-8080} -h /tmp/www\n' >$R/bin/start
  chmod +x $R/bin/start
  echo 'root:x:0:0:root:/:/bin/sh' >$R/etc/passwd; echo 'root:x:0:' >$R/etc/group
  mkimage $R docker.io/mcpk8s/web:1 $K/img/web.tar --cmd '["/bin/start"]' || die "mkimage web"
  if [ -x $C/bin/coredns ]; then   # cluster DNS, if k8s-build.sh dns made it
    mkdir -p $K/img/coredns; cp $C/bin/coredns $K/img/coredns/coredns
    mkimage $K/img/coredns docker.io/mcpk8s/coredns:1 $K/img/coredns.tar --cmd '["/coredns"]' || die "mkimage coredns"
  fi
  rm -rf $K/img/pause $K/img/web $K/img/coredns
}

coredns_yaml() { # CoreDNS at 10.88.64.10 (the kubelet's clusterDNS)
  cat <<'EOF'
apiVersion: v1
kind: ServiceAccount
metadata: {name: coredns, namespace: kube-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: system:coredns}
rules:
- {apiGroups: [""], resources: [endpoints, services, pods, namespaces], verbs: [list, watch]}
- {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: system:coredns}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:coredns}
subjects: [{kind: ServiceAccount, name: coredns, namespace: kube-system}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: coredns, namespace: kube-system}
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
metadata: {name: coredns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  replicas: 2
  selector: {matchLabels: {k8s-app: kube-dns}}
  template:
    metadata: {labels: {k8s-app: kube-dns}}
    spec:
      serviceAccountName: coredns
      dnsPolicy: Default
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {k8s-app: kube-dns}}}
      containers:
      - name: coredns
        image: docker.io/mcpk8s/coredns:1
        imagePullPolicy: Never
        command: [/coredns, -conf, /etc/coredns/Corefile]
        volumeMounts: [{name: config, mountPath: /etc/coredns, readOnly: true}]
        ports: [{containerPort: 53, protocol: UDP, name: dns}, {containerPort: 53, protocol: TCP, name: dns-tcp}]
        readinessProbe: {httpGet: {path: /ready, port: 8181}, periodSeconds: 2}
      volumes: [{name: config, configMap: {name: coredns}}]
---
apiVersion: v1
kind: Service
metadata: {name: kube-dns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  clusterIP: 10.88.64.10
  selector: {k8s-app: kube-dns}
  ports: [{name: dns, port: 53, protocol: UDP}, {name: dns-tcp, port: 53, protocol: TCP}]
EOF
}

up() {
  need_tools
  if [ -s $PIDS ] || ip netns list | grep -q '^mcpk8s-' || [ -d /sys/fs/cgroup/pids/mcpk8s ]; then
    log "up: state found, cleaning first"; down; T0=$(date +%s.%N)
  fi
  local port   # a port already taken (another cluster, the shared lab) would only show as a socat bind error later
  for port in $APIPORT $REGISTRY_PORT; do
    ! (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null || die "127.0.0.1:$port is in use (set APIPORT / REGISTRY_PORT)"
  done
  mkdir -p $K/log; : >$PIDS
  [ -e /run/netns ] || touch $K/created-run-netns
  [ -e /run/mount ] || touch $K/created-run-mount
  echo "nameserver 10.88.0.2" >$K/resolv.conf

  log "up: namespaces + bridge 10.88.0.0/24"
  ip netns add mcpk8s-sw && ip -n mcpk8s-sw link set lo up
  ip -n mcpk8s-sw link add br0 type bridge && ip -n mcpk8s-sw link set br0 up
  for x in cp lb reg $NODES; do
    case $x in cp) a=2 ;; reg) a=5 ;; lb) a=10 ;; *) a=1$x ;; esac
    ip netns add mcpk8s-$x
    ip -n mcpk8s-$x link set lo up
    ip -n mcpk8s-sw link add v$x type veth peer name eth0 netns mcpk8s-$x
    ip -n mcpk8s-sw link set v$x master br0 && ip -n mcpk8s-sw link set v$x up
    ip -n mcpk8s-$x addr add 10.88.0.$a/24 dev eth0 && ip -n mcpk8s-$x link set eth0 up
  done || die "netns setup failed"
  for x in cp lb reg $NODES; do   # pod CIDRs routed to their nodes; the service CIDR from lb via node 1
    for m in $NODES; do [ "$x" = "$m" ] || ip -n mcpk8s-$x route add 10.88.$((128 + m)).0/24 via 10.88.0.1$m; done
  done
  ip -n mcpk8s-lb route add 10.88.64.0/20 via 10.88.0.1$(echo $NODES | cut -d' ' -f1)

  log "up: pki, kubeconfigs, images"
  pki
  kubeconfig $K/admin.kubeconfig admin https://127.0.0.1:$APIPORT
  kubeconfig $K/admin-cp.kubeconfig admin https://10.88.0.2:6443
  kubeconfig $K/controller-manager.kubeconfig controller-manager https://10.88.0.2:6443
  kubeconfig $K/scheduler.kubeconfig scheduler https://10.88.0.2:6443
  kubeconfig $K/kube-proxy.kubeconfig kube-proxy https://10.88.0.2:6443
  images

  log "up: registry in mcpk8s-reg $REG, 127.0.0.1:$REGISTRY_PORT in the root namespace"
  cg_make mcpk8s/cp; cg_make mcpk8s/lb; cg_make mcpk8s/reg
  for n in $NODES; do cg_make mcpk8s/node$n/system; done
  mkdir -p $K/registry/data
  cat >$K/registry/config.yml <<EOF
version: 0.1
log: {level: warn}
storage:
  filesystem: {rootdirectory: $K/registry/data}
  delete: {enabled: true}
http: {addr: $REG}
EOF
  start_in registry mcpk8s-reg mcpk8s/reg docker-registry serve $K/registry/config.yml
  start_in reg-sock mcpk8s-reg mcpk8s/reg socat UNIX-LISTEN:$K/registry.sock,fork,mode=600 TCP:$REG
  start_root reg-fwd mcpk8s/reg socat TCP-LISTEN:$REGISTRY_PORT,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:$K/registry.sock

  log "up: control plane in mcpk8s-cp"
  mkdir -p $K/etcd
  start_in etcd mcpk8s-cp mcpk8s/cp etcd --name mcpk8s --data-dir $K/etcd/data \
    --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster mcpk8s=http://127.0.0.1:2380 --quota-backend-bytes 1073741824 --snapshot-count 10000
  local P=$K/pki
  start_in kube-apiserver mcpk8s-cp mcpk8s/cp kube-apiserver --etcd-servers http://127.0.0.1:2379 \
    --bind-address 0.0.0.0 --advertise-address 10.88.0.2 --secure-port 6443 \
    --service-cluster-ip-range 10.88.64.0/20 --service-node-port-range 30000-32767 \
    --tls-cert-file $P/apiserver.crt --tls-private-key-file $P/apiserver.key --client-ca-file $P/ca.crt \
    --kubelet-client-certificate $P/apiserver-kubelet-client.crt --kubelet-client-key $P/apiserver-kubelet-client.key \
    --service-account-key-file $P/sa.pub --service-account-signing-key-file $P/sa.key \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction --allow-privileged \
    --default-not-ready-toleration-seconds 5 --default-unreachable-toleration-seconds 5 \
    --kubelet-preferred-address-types InternalIP --profiling=false --cert-dir $K/apiserver-certs
  # the apiserver, seen from the root namespace: 127.0.0.1:$APIPORT -> unix socket -> 10.88.0.2:6443
  start_in api-sock mcpk8s-cp mcpk8s/cp socat UNIX-LISTEN:$K/apiserver.sock,fork,mode=600 TCP:10.88.0.2:6443
  start_root api-fwd mcpk8s/cp socat TCP-LISTEN:$APIPORT,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:$K/apiserver.sock
  for i in $(seq 1 300); do kc get --raw /readyz >/dev/null 2>&1 && break; sleep 0.2; done
  kc get --raw /readyz >/dev/null 2>&1 || die "apiserver not ready (see $K/log/kube-apiserver.log)"
  log "up: apiserver ready"
  start_in kube-controller-manager mcpk8s-cp mcpk8s/cp kube-controller-manager \
    --kubeconfig $K/controller-manager.kubeconfig --authentication-kubeconfig $K/controller-manager.kubeconfig \
    --authorization-kubeconfig $K/controller-manager.kubeconfig --bind-address 127.0.0.1 --leader-elect=false \
    --service-account-private-key-file $P/sa.key --root-ca-file $P/ca.crt --use-service-account-credentials \
    --cluster-signing-cert-file $P/ca.crt --cluster-signing-key-file $P/ca.key \
    --service-cluster-ip-range 10.88.64.0/20 --node-monitor-period 1s --node-monitor-grace-period 8s \
    --concurrent-deployment-syncs 5
  start_in kube-scheduler mcpk8s-cp mcpk8s/cp kube-scheduler --kubeconfig $K/scheduler.kubeconfig \
    --authentication-kubeconfig $K/scheduler.kubeconfig --authorization-kubeconfig $K/scheduler.kubeconfig \
    --bind-address 127.0.0.1 --leader-elect=false

  log "up: nodes"
  for n in $NODES; do
    node_files $n
    setsid nsenter --net=/run/netns/mcpk8s-$n unshare --mount --uts --propagation private $K/node$n/start.sh \
      </dev/null >>$K/log/node$n.log 2>&1 &
    echo "node$n $!" >>$PIDS
  done
  local want=$(echo $NODES | wc -w)
  for i in $(seq 1 600); do
    [ "$(kc get nodes --no-headers 2>/dev/null | grep -cw Ready)" = $want ] && break; sleep 0.2
  done
  local ready; ready=$(kc get nodes --no-headers 2>/dev/null | grep -cw Ready)
  [ "$ready" = $want ] || die "$ready of $want nodes Ready (see $K/node*/kubelet.log)"
  log "up: $ready of $want nodes Ready"
  for i in $(seq 1 100); do   # the node lifecycle controller lifts node.kubernetes.io/not-ready a moment later
    [ -z "$(kc get nodes -o jsonpath='{.items[*].spec.taints}' 2>/dev/null)" ] && break; sleep 0.2
  done
  log "up: node taints lifted"
  if [ -f $K/img/coredns.tar ]; then coredns_yaml | kc apply -f - >/dev/null && log "up: CoreDNS applied (10.88.64.10)"; fi
  for i in $(seq 1 50); do curl -fsS -m 2 http://127.0.0.1:$REGISTRY_PORT/v2/ >/dev/null 2>&1 && break; sleep 0.1; done
  curl -fsS -m 2 http://127.0.0.1:$REGISTRY_PORT/v2/ >/dev/null 2>&1 || die "registry not answering (see $K/log/registry.log)"
  log "up: registry answers on 127.0.0.1:$REGISTRY_PORT"

  log "up: haproxy in mcpk8s-lb 10.88.0.10:8000 -> nodes:30080 (check GET $LB_CHECK)"
  mkdir -p $K/lb
  { cat <<EOF
global
  maxconn 4000
  stats socket $K/lb/haproxy.sock mode 600 level admin
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  timeout tunnel 1h
  timeout check 1s
frontend gw
  bind 10.88.0.10:8000
  default_backend nodes
backend nodes
  balance roundrobin
  option httpchk GET $LB_CHECK
  retries 3
  option redispatch 1
  # no retry after a response timeout: a tools/call may have reached the backend by then
  retry-on conn-failure empty-response
  # a new connection per call: a call never waits on an idle connection to a node that is gone, where no
  # answer and no reset would ever come; a connection that cannot open is retried on another node
  option http-server-close
  default-server inter 1s fall 2 rise 2
  # which node answered, so that a load can count its calls per node
  http-response set-header x-served-by %s
EOF
    for n in $NODES; do echo "  server n$n 10.88.0.1$n:30080 check"; done; } >$K/lb/haproxy.cfg
  start_in haproxy mcpk8s-lb mcpk8s/lb haproxy -db -f $K/lb/haproxy.cfg
  log "up: done (KUBECONFIG=$K/admin.kubeconfig, registry 127.0.0.1:$REGISTRY_PORT)"
  status
}

load_image() { # IMAGE: docker save, then ctr import into every live node's containerd
  local img=$1 n t=$K/img/load.$$.tar
  [ -d $K/img ] || die "the cluster is not up"
  docker save -o $t "$img" || die "docker save $img failed"
  for n in $NODES; do
    [ -S $K/node$n/run/containerd.sock ] || { log "node$n: no containerd socket, skipped"; continue; }
    timeout 120 ctr -a $K/node$n/run/containerd.sock -n k8s.io images import $t >/dev/null ||
      { log "node$n: import of $img failed"; continue; }
    log "node$n: imported $img"
  done
  rm -f $t
}

status() {
  if [ -s $PIDS ]; then
    while read -r name pid; do alive $name $pid && s=running || s=DEAD; echo "$name $pid $s"; done <$PIDS
  else echo "no recorded processes"; fi
  ip netns list | grep '^mcpk8s-' | awk '{print $1}' | tr '\n' ' '; echo
  [ -s $PIDS ] || return 0
  kc get nodes -o wide 2>/dev/null || true
  printf 'registry %s (127.0.0.1:%s from the root namespace; pods: image 127.0.0.1:%s/NAME@sha256:...): ' \
    $REG $REGISTRY_PORT $REGISTRY_PORT
  curl -fsS -m 2 http://127.0.0.1:$REGISTRY_PORT/v2/_catalog 2>/dev/null || echo "not answering"
  local tot=0 g p r v
  for g in cp lb reg node1 node2 node3; do
    # a process that exits meanwhile (or a zombie, which has no VmRSS line) counts as 0
    r=0; for p in $(cg_pids $g); do v=$(awk '/^VmRSS/{print $2}' /proc/$p/status 2>/dev/null); r=$((r + ${v:-0})); done
    [ $r -gt 0 ] && printf '%s RSS %d MiB\n' $g $((r / 1024)); tot=$((tot + r))
  done
  printf 'total RSS %d MiB\n' $((tot / 1024))
}

case ${1:-} in
  up) up ;;
  down) down ;;
  status) status ;;
  kill-node) kill_node ${2:?node number} ;;
  load-image) load_image "${2:?image}" ;;
  build) bash $HERE/k8s-build.sh k8s dns && need_debs ;;
  purge) down; rm -rf $C/debs $C/root ;;
  *) echo "usage: $0 up|status|down|kill-node N|load-image IMAGE|build|purge" >&2; exit 2 ;;
esac
