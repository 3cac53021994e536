#!/usr/bin/env bash
# Installs Debian's chromium, which the HTML report test (tests/htmltest.sh)
# drives headless, if it is missing. Kept apart from tests/deps.sh because
# it is big and only that test needs it.
set -euo pipefail
for c in chromium chromium-browser; do
	command -v "$c" >/dev/null 2>&1 && exit 0
done
echo "installing chromium"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
