#!/usr/bin/env bash
# Install Debian's graphviz when `dot` is missing: the web view (conv_tasks/ui/graph) draws a
# stack's graph as SVG with `dot -Tsvg`, and its tests run the real `dot`. Installs nothing when
# it is there.
set -euo pipefail

if command -v dot >/dev/null; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "ensure-graphviz: dot is missing and this is not root on Debian:" \
    "install Debian's graphviz package (apt-get install graphviz)" >&2
  exit 1
fi
echo "ensure-graphviz: installing Debian's graphviz"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
install() { apt-get install -y -q --no-install-recommends graphviz >>"$log" 2>&1; }
# The package lists of a fresh machine may be missing or stale: update once, then try again.
if ! install && ! { apt-get update -q >>"$log" 2>&1 && install; }; then
  cat "$log" >&2
  echo "ensure-graphviz: apt-get could not install graphviz (output above)" >&2
  exit 1
fi
command -v dot >/dev/null
