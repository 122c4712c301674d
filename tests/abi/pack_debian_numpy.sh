#!/bin/sh
# Packs Debian's Python 3 and python3-numpy (with the reference libblas.so.3, which carries the
# CBLAS symbols numpy calls) into one tarball, for running dropin_numpy.py on a machine that
# has neither, such as a GPU host whose own numpy comes from pip with a renamed, bundled
# OpenBLAS that no preload can serve. Needs a Debian 12 host with python3-numpy installed.
#
# usage: pack_debian_numpy.sh OUT.tar.xz
# then, on the other machine:
#   mkdir -p /tmp/deb && tar -C /tmp/deb -xJf OUT.tar.xz
#   PYTHONHOME=/tmp/deb/usr PYTHONPATH=/tmp/deb/usr/lib/python3/dist-packages \
#   LD_LIBRARY_PATH=/tmp/deb/lib /tmp/deb/usr/bin/python3.11 tests/abi/dropin_numpy.py \
#       build/lib/libtessera.so.0 --backend cuda
set -eu
out=$(realpath "${1:?usage: pack_debian_numpy.sh OUT.tar.xz}")
py=$(readlink -f /usr/bin/python3)
ver=$(basename "$py")                       # python3.11
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/usr/bin" "$root/usr/lib/python3/dist-packages" "$root/lib"
cp "$py" "$root/usr/bin/"
cp -a "/usr/lib/$ver" "$root/usr/lib/"
(cd "$root/usr/lib/$ver" && rm -rf test idlelib tkinter turtledemo lib2to3 ensurepip pydoc_data \
    config-* site-packages dist-packages && find . -name __pycache__ -prune -exec rm -rf {} +)
cp -a /usr/lib/python3/dist-packages/numpy "$root/usr/lib/python3/dist-packages/"
(cd "$root/usr/lib/python3/dist-packages/numpy" && find . \( -name tests -o -name __pycache__ \) \
    -prune -exec rm -rf {} +)
(cd "$work" && apt-get download libblas3 >/dev/null 2>&1 && dpkg -x libblas3_*.deb blas)
cp -L "$work/blas/usr/lib/$multiarch/blas/libblas.so.3" "$root/lib/"
for lib in libz.so.1 libexpat.so.1 libffi.so.8; do cp -L "/lib/$multiarch/$lib" "$root/lib/"; done
tar -C "$root" -cJf "$out" .
echo "packed $(du -sh "$root" | cut -f1) into $out"
