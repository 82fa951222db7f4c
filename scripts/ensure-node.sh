#!/usr/bin/env bash
# Install Debian's Node.js and npm when they are missing: `make setup` installs json-server
# (tools/json-server, for ConvTasks::HTTP::Resource's tests and benchmark) with npm ci.
# Installs nothing when they are there.
set -euo pipefail

if command -v node >/dev/null && command -v npm >/dev/null; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "ensure-node: node and npm are missing and this is not root on Debian:" \
    "install Debian's nodejs and npm packages (apt-get install nodejs npm)" >&2
  exit 1
fi
echo "ensure-node: installing Debian's nodejs and npm"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
install() { apt-get install -y -q --no-install-recommends nodejs npm >>"$log" 2>&1; }
# The package lists of a fresh machine may be missing or stale: update once, then try again.
if ! install && ! { apt-get update -q >>"$log" 2>&1 && install; }; then
  cat "$log" >&2
  echo "ensure-node: apt-get could not install nodejs and npm (output above)" >&2
  exit 1
fi
command -v node >/dev/null && command -v npm >/dev/null
