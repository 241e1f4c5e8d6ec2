#!/usr/bin/env bash
# `npm run toolchain`: builds OpenTofu and the kreuzwerker/docker and hashicorp/kubernetes Terraform providers from
# Go modules into a per-user cache, lays the providers out as a filesystem mirror, writes a CLI config that installs
# providers from that mirror only, and prints the environment that makes `cdktf deploy` use them offline:
#
#   eval "$(npm run --silent toolchain)"
#
# Idempotent: a build whose binary is already there at the right version is skipped. Progress goes to stderr,
# the `export` lines to stdout. Needs Go >= 1.26.3 (the kubernetes provider's go.mod asks for it) and the Go module
# proxy; nothing else is downloaded.
# Where: $CDKTF_MCP_GATEWAY_TOOLCHAIN, else ${XDG_CACHE_HOME:-~/.cache}/cdktf-mcp-gateway/toolchain (outside the
# clone, so every clone of this user shares it; Go's own module and build caches are per user already).
# The wrapper modules that pin the versions are toolchain/terraform/*/go.mod (docs/deploy.md explains them).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${CDKTF_MCP_GATEWAY_TOOLCHAIN:-${XDG_CACHE_HOME:-$HOME/.cache}/cdktf-mcp-gateway/toolchain}"

# One home for each version: the wrapper modules. The provider's go.mod pins a commit; the version it is laid out
# under in the mirror (and that the constructs require) is the release that commit carries.
tofu_version="$(sed -n 's/^require github.com\/opentofu\/opentofu v\(.*\)$/\1/p' "$root/toolchain/terraform/tofu/go.mod")"
provider_version="$(sed -n 's/^\/\/ mirror-version: \(.*\)$/\1/p' "$root/toolchain/terraform/provider-docker/go.mod")"
kubernetes_version="$(sed -n 's/^\/\/ mirror-version: \(.*\)$/\1/p' "$root/toolchain/terraform/provider-kubernetes/go.mod")"
[[ -n $tofu_version && -n $provider_version && -n $kubernetes_version ]] || {
  echo "toolchain: cannot read the versions from toolchain/terraform/*/go.mod" >&2
  exit 1
}

log() { echo "toolchain: $*" >&2; }
command -v go >/dev/null 2>&1 || {
  log "go is not installed (Go >= 1.26.3 builds OpenTofu and the providers from Go modules)"
  exit 1
}

export CGO_ENABLED=0 GOFLAGS=-buildvcs=false

# build NAME DIR PACKAGE OUT [LDFLAGS]: go build in the wrapper module DIR, into OUT (atomically), timed. The flags
# make the build reproducible: the same sources and Go version give the same bytes on any machine.
build() {
  local name=$1 dir=$2 package=$3 out=$4 ldflags=${5:-}
  local started=$SECONDS tmp="$out.tmp.$$"
  log "building $name (go build $package; the first build takes several minutes)"
  (cd "$dir" && go build -trimpath -ldflags "-s -w $ldflags" -o "$tmp" "$package")
  mv -f "$tmp" "$out"
  log "built $name in $((SECONDS - started)) s"
}

docker_package=github.com/terraform-providers/terraform-provider-docker
# `toolchain.sh rebuild-docker-provider OUT`: the kreuzwerker/docker provider alone, into OUT, built as below (the
# reproducibility test runs a copy of this script elsewhere, with an empty Go build cache, and compares the bytes).
if [[ ${1:-} == rebuild-docker-provider ]]; then
  build "kreuzwerker/docker $provider_version" "$root/toolchain/terraform/provider-docker" "$docker_package" "$2" \
    "-X main.version=$provider_version"
  exit 0
fi

os_arch="$(go env GOOS)_$(go env GOARCH)"
bin="$cache/bin"
mirror="$cache/mirror"
mkdir -p "$bin" "$mirror"

tofu="$bin/tofu-$tofu_version"
if [[ -x $tofu ]] && "$tofu" version -json 2>/dev/null | grep -q "\"terraform_version\": *\"$tofu_version\""; then
  log "OpenTofu $tofu_version: already built ($tofu)"
else
  build "OpenTofu $tofu_version" "$root/toolchain/terraform/tofu" github.com/opentofu/opentofu/cmd/tofu "$tofu" \
    "-X github.com/opentofu/opentofu/version.dev=no"
fi
ln -sfn "tofu-$tofu_version" "$bin/tofu"

# install_provider NAMESPACE/TYPE VERSION DIR PACKAGE: builds the provider in its wrapper module DIR (unless it is
# built already) and lays it out in the mirror as OpenTofu and Terraform read it:
# HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE_vVERSION, under both registry hosts.
install_provider() {
  local source=$1 version=$2 dir=$3 package=$4 host into
  local file="$cache/build/terraform-provider-${source#*/}_v$version"
  if [[ -x $file ]]; then
    log "$source $version: already built ($file)"
  else
    mkdir -p "$cache/build"
    build "$source $version" "$dir" "$package" "$file" "-X main.version=$version"
  fi
  for host in registry.opentofu.org registry.terraform.io; do
    into="$mirror/$host/$source/$version/$os_arch"
    mkdir -p "$into"
    cmp -s "$file" "$into/${file##*/}" 2>/dev/null || cp -f "$file" "$into/${file##*/}"
  done
}
install_provider kreuzwerker/docker "$provider_version" "$root/toolchain/terraform/provider-docker" "$docker_package"
# hashicorp/kubernetes for the Kubernetes deploy tests (scripts/k8s-cluster.sh)
install_provider hashicorp/kubernetes "$kubernetes_version" "$root/toolchain/terraform/provider-kubernetes" \
  github.com/hashicorp/terraform-provider-kubernetes

# Providers come from the mirror only: no `direct` block, so nothing is looked up on a registry.
cat >"$cache/tofurc" <<EOF
# Written by cdktf-mcp-gateway's npm run toolchain: providers come from the local mirror only.
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["registry.opentofu.org/kreuzwerker/docker", "registry.terraform.io/kreuzwerker/docker",
               "registry.opentofu.org/hashicorp/kubernetes", "registry.terraform.io/hashicorp/kubernetes"]
  }
}
EOF

log "ready: OpenTofu $tofu_version, kreuzwerker/docker $provider_version, hashicorp/kubernetes $kubernetes_version (mirror $mirror)"
echo "export PATH=\"$bin:\$PATH\""
echo "export TERRAFORM_BINARY_NAME=tofu"
echo "export TF_CLI_CONFIG_FILE=\"$cache/tofurc\""
# after init, cdktf runs `providers lock`, which asks the registry whatever the CLI config says: point it at the
# mirror, so that plain `cdktf deploy`, `diff` and `destroy` work offline
echo "export TF_CLI_ARGS_providers_lock=\"-fs-mirror=$mirror\""
# cdktf asks HashiCorp's checkpoint service for a newer release at every command; offline it logs an error each time
echo "export CHECKPOINT_DISABLE=1"
