#!/usr/bin/env bash
# Installs Debian's chromium, which the HTML report tests (tests/htmltest.sh,
# tests/viewertest.sh) drive headless, and Node, which runs the viewer
# test's DevTools client (tests/cdp.js), if they are missing. Kept apart
# from tests/deps.sh because they are big and only those tests need them.
set -euo pipefail
want=()
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || want+=(chromium fonts-dejavu-core)
command -v node >/dev/null 2>&1 || want+=(nodejs)
[ ${#want[@]} -eq 0 ] && exit 0
echo "installing ${want[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null
