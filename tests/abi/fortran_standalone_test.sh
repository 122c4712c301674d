#!/bin/sh
# Fortran module test: install the build into a fresh prefix, then build bindings/fortran's own
# CMake project against it (find_package(tessera)) and run its test and example from there.
# usage: fortran_standalone_test.sh <build dir> <source dir> [Fortran compiler]
set -u

build=${1:?usage: fortran_standalone_test.sh BUILD_DIR SOURCE_DIR [FC]}
source=${2:?usage: fortran_standalone_test.sh BUILD_DIR SOURCE_DIR [FC]}
fc=${3:-${FC:-gfortran}}
cmake=${CMAKE_COMMAND:-cmake}
ctest=$(dirname "$cmake")/ctest
[ -x "$ctest" ] || ctest=ctest
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-fortran.XXXXXX") || { echo "FAIL: mktemp"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

die() { echo "FAIL: $*"; exit 1; }
run() { # run LOG COMMAND...: quiet unless it fails
    log=$1
    shift
    "$@" >"$tmp/$log" 2>&1 || { cat "$tmp/$log"; die "$* failed"; }
}

echo "== install $build into $tmp/prefix"
run install.log "$cmake" --install "$build" --prefix "$tmp/prefix"
echo "== configure and build $source/bindings/fortran"
run configure.log "$cmake" -S "$source/bindings/fortran" -B "$tmp/build" \
    -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_Fortran_COMPILER="$fc" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
found=$(sed -n 's/^tessera_DIR:[A-Z]*=//p' "$tmp/build/CMakeCache.txt")
case $found in
    "$tmp/prefix"/*) echo "find_package(tessera): $found" ;;
    *) die "find_package(tessera) found '$found', not the package installed under $tmp/prefix" ;;
esac
run build.log "$cmake" --build "$tmp/build"
echo "== run its tests against the installed library"
libdir=$(dirname "$(find "$tmp/prefix" -name 'libtessera.so.0' | head -n 1)")
LD_LIBRARY_PATH=$libdir "$ctest" --test-dir "$tmp/build" --output-on-failure \
    || die "the module's own tests failed"
echo "== install the module"
run install-module.log "$cmake" --install "$tmp/build" --prefix "$tmp/prefix"
find "$tmp/prefix" -name tessera.mod | grep -q . || die "tessera.mod was not installed"
find "$tmp/prefix" -name libtessera_fortran.a | grep -q . || die "libtessera_fortran.a was not installed"
echo "standalone Fortran module test passed"
