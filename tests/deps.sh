#!/usr/bin/env bash
# Installs the Debian packages gtr builds and tests with, if any is missing.
set -euo pipefail
need=()
for pkg in build-essential pkg-config liburing-dev libxxhash-dev libcriterion-dev jq libxml2-utils python3 xxhash; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
[ ${#need[@]} -eq 0 ] && exit 0
echo "installing ${need[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${need[@]}" >/dev/null
