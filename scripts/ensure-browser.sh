#!/usr/bin/env bash
# Install Debian's chromium and chromium-driver when either is missing: the web view's browser
# tests (tests/ui) and `make ui-screenshots` drive headless Chromium through chromedriver with
# Selenium, which is told both paths and never downloads a browser. Installs nothing when
# both are there.
set -euo pipefail

if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "ensure-browser: chromium or chromedriver is missing and this is not root on Debian:" \
    "install Debian's chromium and chromium-driver packages" \
    "(apt-get install chromium chromium-driver)" >&2
  exit 1
fi
echo "ensure-browser: installing Debian's chromium and chromium-driver"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
install() {
  apt-get install -y -q --no-install-recommends chromium chromium-driver fonts-dejavu-core \
    >>"$log" 2>&1
}
# The package lists of a fresh machine may be missing or stale: update once, then try again.
if ! install && ! { apt-get update -q >>"$log" 2>&1 && install; }; then
  cat "$log" >&2
  echo "ensure-browser: apt-get could not install chromium and chromium-driver (output above)" >&2
  exit 1
fi
[ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]
