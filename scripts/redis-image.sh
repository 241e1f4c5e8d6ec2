#!/usr/bin/env bash
# Builds a local Docker image of Debian's redis-server, for deploying a LimitStore where no image registry is
# reachable (the deploy test does; so can you):
#
#   bash scripts/redis-image.sh [TAG]       # default local/redis:latest; needs a running dockerd
#   new LimitStore(stack, 'Limits', { image: 'local/redis:latest' })
#
# The image holds the redis-server binary and the shared libraries it links, a /data directory and a redis user
# (uid 999, as the official image has it). Needs: docker, ldd, and redis-server installed here (apt-get install
# redis-server). Does nothing when TAG exists already.
set -euo pipefail
tag=${1:-local/redis:latest}
if docker image inspect "$tag" >/dev/null 2>&1; then echo "$tag exists"; exit 0; fi
for tool in docker ldd redis-server; do
  command -v "$tool" >/dev/null 2>&1 || { echo "redis-image: $tool is missing (apt-get install redis-server, and Docker)" >&2; exit 1; }
done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{usr/bin,data,tmp,etc} && chmod 1777 "$root/tmp"
server=$(readlink -f "$(command -v redis-server)")
cp "$server" "$root/usr/bin/redis-server"
for lib in $(ldd "$server" | grep -o '/[^ ]*'); do mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"; done
printf 'root:x:0:0:root:/root:/bin/false\nredis:x:999:999:redis:/data:/bin/false\n' > "$root/etc/passwd"
printf 'root:x:0:\nredis:x:999:\n' > "$root/etc/group"
chown 999:999 "$root/data"
tar -C "$root" -c . | docker import \
  -c 'ENV PATH=/usr/bin' \
  -c 'WORKDIR /data' \
  -c 'USER 999:999' \
  -c 'CMD ["redis-server"]' - "$tag" >/dev/null
echo "built $tag ($(docker run --rm "$tag" redis-server --version | cut -d' ' -f3))"
