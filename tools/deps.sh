#!/usr/bin/env bash
# Installs what npm start / npm test / npm run build need when it is missing (Debian 12):
# the Debian packages (through apt-get when run as root; otherwise it prints the command)
# and the npm packages (npm ci). Quick when everything is there: npm's pre-scripts run it.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(cmake ninja-build g++ emscripten libxsimd-dev nlohmann-json3-dev doctest-dev
          chromium fonts-noto-cjk ca-certificates
          clang libclang-rt-14-dev)  # the sanitizer stage and the fuzz targets (tools/sanitize.sh)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "missing Debian packages; install them with: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# npm writes node_modules/.package-lock.json on every install: older than the lock file
# (or absent) means the npm packages are missing or stale.
if [ ! node_modules/.package-lock.json -nt package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
