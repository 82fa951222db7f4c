#!/usr/bin/env bash
# Install what `make test-fleet` needs when it is missing: iproute2 (`ip netns`, veth pairs and
# a bridge make the hosts), nftables (`nft` cuts a host's link, or only its broker or database
# port), libfaketime (a host whose clock runs ahead) and rabbitmq-server (the scenarios' RabbitMQ
# variants start a private node of it). Installs nothing when all are there.
set -euo pipefail

missing=()
command -v ip >/dev/null || missing+=(iproute2)
command -v nft >/dev/null || missing+=(nftables)
command -v faketime >/dev/null || missing+=(faketime)
[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || command -v rabbitmq-server >/dev/null \
  || missing+=(rabbitmq-server)
if [ ${#missing[@]} = 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "ensure-fleet-tools: ${missing[*]} missing and this is not root on Debian:" \
    "install them (apt-get install ${missing[*]})" >&2
  exit 1
fi
echo "ensure-fleet-tools: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
install() { apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$log" 2>&1; }
# The package lists of a fresh machine may be missing or stale: update once, then try again.
if ! install && ! { apt-get update -q >>"$log" 2>&1 && install; }; then
  cat "$log" >&2
  echo "ensure-fleet-tools: apt-get could not install ${missing[*]} (output above)" >&2
  exit 1
fi
