#!/usr/bin/env bash
# Debian packages of Tessera: libtessera0 (the library, offered as the system's libblas.so.3 and
# libcblas.so.3 through the alternatives), libtessera-dev (headers, pkg-config and CMake files,
# libblas.so and blas.pc for the development alternative) and, when asked, libtessera-cuda (the
# CUDA plugin). A Release build for the prefix /usr in build-package/, then CPack's DEB generator;
# the .deb files go to build/packages/ (docs/guide.md, "Tessera as the system BLAS").
#
# usage: bash scripts/package.sh [--cuda]     (or TESSERA_PACKAGE_CUDA=1; the default is no plugin)
#        TESSERA_PACKAGE_BUILD_DIR and TESSERA_PACKAGE_DIR move the build and the packages;
#        CUDA_ARCHS (e.g. "90;80", the default) sets the plugin's GPU architectures.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

cuda=OFF
[ "${TESSERA_PACKAGE_CUDA:-0}" = 1 ] && cuda=ON
for arg in "$@"; do
  case "$arg" in
    --cuda) cuda=ON ;;
    --no-cuda) cuda=OFF ;;
    -h|--help) sed -n "2,11p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "package.sh: unknown argument '$arg' (--cuda, --no-cuda, --help)" >&2; exit 2 ;;
  esac
done

build="${TESSERA_PACKAGE_BUILD_DIR:-$root/build-package}"
out="${TESSERA_PACKAGE_DIR:-$root/build/packages}"
jobs="$(nproc 2>/dev/null || echo 2)"

# CPack's DEB generator reads the dependencies off the ELF files with dpkg-shlibdeps and file.
need=()
command -v dpkg-shlibdeps > /dev/null || need+=(dpkg-dev)
command -v file > /dev/null || need+=(file)
command -v cpack > /dev/null || need+=(cmake)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    echo "tessera: installing ${need[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" > /dev/null
  else
    echo "package.sh: please install ${need[*]} (Debian package names)" >&2
    exit 1
  fi
fi

cuda_archs=()
[ -n "${CUDA_ARCHS:-}" ] && cuda_archs=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS")
generator=()
command -v ninja > /dev/null && [ ! -f "$build/CMakeCache.txt" ] && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
      -DTESSERA_WITH_CUDA="$cuda" -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_BENCH=OFF \
      -DTESSERA_BUILD_DOCS=OFF "${cuda_archs[@]}"
cmake --build "$build" -j "$jobs"

mkdir -p "$out"
rm -f "$out"/libtessera*.deb
(cd "$build" && cpack -G DEB -D CPACK_OUTPUT_FILE_PREFIX="$out")
echo
echo "packages in $out:"
for deb in "$out"/libtessera*.deb; do
  printf '  %-40s %8s bytes  %s\n' "$(basename "$deb")" "$(stat -c %s "$deb")" \
         "$(dpkg-deb -f "$deb" Depends)"
done
