#!/usr/bin/env bash
# Install Debian's valgrind when it is missing: benchmarks/instructions_per_node.py counts a
# worker's instructions with callgrind (and callgrind_control). Installs nothing when it is there.
set -euo pipefail

if command -v valgrind >/dev/null && command -v callgrind_control >/dev/null; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "ensure-valgrind: valgrind is missing and this is not root on Debian:" \
    "install Debian's valgrind package (apt-get install valgrind)" >&2
  exit 1
fi
echo "ensure-valgrind: installing Debian's valgrind"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
install() { apt-get install -y -q --no-install-recommends valgrind >>"$log" 2>&1; }
# The package lists of a fresh machine may be missing or stale: update once, then try again.
if ! install && ! { apt-get update -q >>"$log" 2>&1 && install; }; then
  cat "$log" >&2
  echo "ensure-valgrind: apt-get could not install valgrind (output above)" >&2
  exit 1
fi
command -v callgrind_control >/dev/null
