#!/usr/bin/env bash
# scripts/k8s-build.sh [k8s] [dns] [ctd2] -- builds the binaries of scripts/k8s-cluster.sh from the Go module proxy
# into the per-user cache $K8SLAB_CACHE/bin (default ~/.cache/k8s-lab/bin; default targets: k8s dns). A binary
# already there is kept (remove it to rebuild). -p 2, -trimpath, -ldflags '-s -w', CGO off, as the toolchain builds.
#   k8s:  kube-apiserver kubelet kube-controller-manager kube-scheduler kube-proxy kubectl (k8s.io/kubernetes
#         v1.37.2: its go.mod replaces the k8s.io/* staging modules with ./staging, which the module zip lacks;
#         the copy here drops those replaces and requires the staging modules at v0.37.2 from the proxy), and
#         pause (a 20-line Go program: the sandbox image, imported on every node rather than pulled)
#   dns:  CoreDNS v1.15.0 (go install works as is)
#   ctd2: containerd v2.4.2 + containerd-shim-runc-v2 + ctr into $C/ctd2 (k8s-cluster.sh with CONTAINERD=v2)
# The hashicorp/kubernetes provider and OpenTofu come from `npm run toolchain`, not from here.
# A cold Go build cache makes the k8s target the long one (kube-apiserver compiles most shared dependencies).
set -uo pipefail
C=${K8SLAB_CACHE:-$HOME/.cache/k8s-lab}
OUT=$C/bin; S=$C/src; mkdir -p $OUT $S
export CGO_ENABLED=0 GOFLAGS='-buildvcs=false -trimpath'
V=v1.37.2
log() { echo "k8s-build: $*" >&2; }
command -v go >/dev/null || { log "go is not installed"; exit 1; }
gob() { # name dir pkg ldflags
  local name=$1 dir=$2 pkg=$3 ld=$4 s=$SECONDS
  [ -x $OUT/$name ] && { log "$name: already built"; return 0; }
  log "$name: building"
  if (cd $dir && go build -p 2 -ldflags "-s -w $ld" -o $OUT/$name.tmp $pkg); then
    mv -f $OUT/$name.tmp $OUT/$name; log "$name: $((SECONDS - s)) s, $(( $(stat -c %s $OUT/$name) / 1048576 )) MiB"
  else rm -f $OUT/$name.tmp; log "$name: FAILED after $((SECONDS - s)) s"; return 1; fi
}

k8s() {
  local src=$S/kubernetes c all=1
  for c in kube-apiserver kubelet kube-controller-manager kube-scheduler kube-proxy kubectl pause; do [ -x $OUT/$c ] || all=0; done
  [ $all = 1 ] && { log "kubernetes $V and pause: already built ($OUT)"; return 0; }
  if [ ! -f $src/go.mod ] || grep -q '=> ./staging' $src/go.mod; then
    local mod; mod=$(cd $S && go mod download -json k8s.io/kubernetes@$V | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
    [ -d "$mod" ] || { log "go mod download k8s.io/kubernetes@$V failed"; return 1; }
    rm -rf $src; cp -r $mod $src; chmod -R u+w $src; rm -rf $src/vendor $src/go.work $src/go.work.sum
    python3 - $src/go.mod <<'EOF'
import re, sys
p = sys.argv[1]; s = open(p).read()
s = re.sub(r'replace \((?:[^)]*)\)\n', lambda m: '' if './staging' in m.group(0) else m.group(0), s)
s = re.sub(r'^(\s*k8s\.io/[a-z0-9-]+) v0\.0\.0$', r'\1 v0.37.2', s, flags=re.M)
open(p, 'w').write(s)
EOF
  fi
  local ld="-X k8s.io/component-base/version.gitVersion=$V -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37 -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/component-base/version.buildDate=2026-12-04T00:00:00Z -X k8s.io/client-go/pkg/version.gitVersion=$V"
  for c in kube-apiserver kubelet kube-controller-manager kube-scheduler kube-proxy kubectl; do
    GOFLAGS="$GOFLAGS -mod=mod" gob $c $src ./cmd/$c "$ld" || return 1
  done
  mkdir -p $S/pause
  cat >$S/pause/main.go <<'EOF'
// pause: the sandbox (infra) container of every pod: sleeps until SIGINT/SIGTERM, reaps orphans.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sig {
		if s == syscall.SIGCHLD {
			for {
				var ws syscall.WaitStatus
				if pid, _ := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 {
					break
				}
			}
			continue
		}
		os.Exit(0)
	}
}
EOF
  printf 'module k8slab/pause\n\ngo 1.26\n' >$S/pause/go.mod
  gob pause $S/pause . ""
}

dns() {
  [ -x $OUT/coredns ] && { log "coredns: already built"; return 0; }
  local s=$SECONDS
  log "coredns: building"
  GOBIN=$OUT go install -p 2 -ldflags '-s -w' github.com/coredns/coredns@v1.15.0 || return 1
  log "coredns: $((SECONDS - s)) s"
}

ctd2() {
  [ -x $C/ctd2/containerd ] && { log "containerd v2: already built"; return 0; }
  local s=$SECONDS; mkdir -p $C/ctd2
  GOBIN=$C/ctd2 go install -p 2 -tags 'no_btrfs no_devmapper no_zfs' \
    -ldflags '-s -w -X github.com/containerd/containerd/v2/version.Version=v2.4.2' \
    github.com/containerd/containerd/v2/cmd/containerd@v2.4.2 \
    github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@v2.4.2 \
    github.com/containerd/containerd/v2/cmd/ctr@v2.4.2 || return 1
  log "containerd v2: $((SECONDS - s)) s"
}

for what in ${@:-k8s dns}; do
  case $what in k8s | dns | ctd2) $what || exit 1 ;; *) log "unknown target $what (k8s, dns, ctd2)"; exit 2 ;; esac
done
