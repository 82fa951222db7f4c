#!/usr/bin/env bash
# Install Debian's docker-compose when it is missing: tests/deploy validates deploy/compose.yaml
# with `docker-compose config`, which needs no Docker engine. Installs nothing when it is there.
set -euo pipefail

if command -v docker-compose >/dev/null; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "ensure-docker-compose: docker-compose is missing and this is not root on Debian:" \
    "install Debian's docker-compose package (apt-get install docker-compose)" >&2
  exit 1
fi
echo "ensure-docker-compose: installing Debian's docker-compose"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
install() { apt-get install -y -q --no-install-recommends docker-compose >>"$log" 2>&1; }
# The package lists of a fresh machine may be missing or stale: update once, then try again.
if ! install && ! { apt-get update -q >>"$log" 2>&1 && install; }; then
  cat "$log" >&2
  echo "ensure-docker-compose: apt-get could not install docker-compose (output above)" >&2
  exit 1
fi
command -v docker-compose >/dev/null
