#!/usr/bin/env bash
# Installs what building, testing and benchmarking Tessera needs (Debian/Ubuntu, as root);
# elsewhere it names the packages and goes on with what is there.
set -euo pipefail

packages=(cmake ninja-build g++ gfortran pkg-config python3 libgtest-dev libopenblas-dev
          liblapack-dev libblas-test libblis-dev libeigen3-dev libxsmm-dev doxygen binutils
          python3-numpy python3-scipy python3-pytest python3-venv python3-pip nlohmann-json3-dev
          libscalapack-openmpi-dev libopenmpi-dev openmpi-bin)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
  echo "tessera: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" > /dev/null
else
  echo "tessera: please install: ${missing[*]} (Debian package names); going on without them" >&2
fi
