#!/bin/sh
# ABI test: install the build into a fresh prefix and build examples/ against the installed tree
# with pkg-config and with find_package(tessera), then run them from that prefix.
# usage: install_test.sh <build dir> <source dir> [C compiler]   (TESSERA_KEEP_TMP=1 keeps the files)
set -u

build=${1:?usage: install_test.sh BUILD_DIR SOURCE_DIR [CC]}
source=${2:?usage: install_test.sh BUILD_DIR SOURCE_DIR [CC]}
cc=${3:-${CC:-cc}}
cmake=${CMAKE_COMMAND:-cmake}
expected_soname=libtessera.so.0

# A private temporary directory, so that parallel runs (ctest -j) never share files.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-install.XXXXXX") || { echo "FAIL: mktemp"; exit 1; }
cleanup() {
    if [ "${TESSERA_KEEP_TMP:-0}" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
prefix=$tmp/prefix

die() { echo "FAIL: $*"; exit 1; }
step() { echo; echo "== $*"; }

step "install $build into $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 \
    || { cat "$tmp/install.log"; die "cmake --install failed"; }
sed 's/^/  /' "$tmp/install.log"

# Where the files went: lib/ or lib/<multiarch>/, found from the pkg-config file.
pc=$(find "$prefix" -name tessera.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || die "no tessera.pc installed under $prefix"
pcdir=$(dirname "$pc")
libdir=$(dirname "$pcdir")
echo "libdir: $libdir"
[ -f "$prefix/include/tessera/tessera.h" ] || die "no include/tessera/tessera.h installed"
# tessera.h includes the version macros generated from project(); their template stays behind.
[ -f "$prefix/include/tessera/tessera_version.h" ] || die "no include/tessera/tessera_version.h installed"
[ ! -e "$prefix/include/tessera/tessera_version.h.in" ] || die "the template tessera_version.h.in was installed"
[ -f "$libdir/cmake/tessera/tesseraConfig.cmake" ] || die "no $libdir/cmake/tessera/tesseraConfig.cmake"
[ -f "$libdir/cmake/tessera/tesseraConfigVersion.cmake" ] || die "no tesseraConfigVersion.cmake"

# The library: libtessera.so -> libtessera.so.0 -> the real file, SONAME libtessera.so.0.
[ -L "$libdir/libtessera.so" ] || die "$libdir/libtessera.so is missing or not a symbolic link"
[ -e "$libdir/$expected_soname" ] || die "$libdir/$expected_soname is missing"
real=$(readlink -f "$libdir/libtessera.so")
[ "$(readlink -f "$libdir/$expected_soname")" = "$real" ] \
    || die "libtessera.so and $expected_soname do not lead to the same file"
soname=$(readelf -d "$real" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
[ "$soname" = "$expected_soname" ] || die "installed library's SONAME is '$soname', expected $expected_soname"
echo "installed library $real, SONAME $soname"
# An installed library must not point back into the build tree.
if readelf -d "$real" | grep -E '\((RPATH|RUNPATH)\)' | grep -qF "$build"; then
    die "the installed library keeps an RPATH/RUNPATH into the build tree: $(readelf -d "$real" | grep -E 'R(UN)?PATH')"
fi

# The system-BLAS directory (the shape of Debian's openblas-pthread/): libblas.so.3 and
# libcblas.so.3 are filter libraries of the installed libtessera with those SONAMEs, libblas.so
# leads to libblas.so.3, blas.pc names this prefix; a program linked there with -lblas records
# libblas.so.3 and runs on the installed libtessera.
sysblas=$libdir/tessera
for lib in libblas.so.3 libcblas.so.3; do
    [ -f "$sysblas/$lib" ] && [ ! -L "$sysblas/$lib" ] || die "$sysblas/$lib is missing or a link"
    dyn=$(readelf -d "$sysblas/$lib")
    echo "$dyn" | grep -q "Library soname: \[$lib\]" || die "$sysblas/$lib: SONAME is not $lib"
    echo "$dyn" | grep -q "Filter library: \[libtessera.so.0\]" \
        || die "$sysblas/$lib is not a filter of libtessera.so.0"
    echo "$dyn" | grep -q 'runpath: \[\$ORIGIN/\.\.[]:]' || die "$sysblas/$lib: RUNPATH is not \$ORIGIN/.."
done
[ "$(readlink "$sysblas/libblas.so")" = libblas.so.3 ] || die "$sysblas/libblas.so does not point at libblas.so.3"
cat >"$tmp/lblas.c" <<'C'
#include <stdio.h>
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *);
double ddot_(const int *, const double *, const int *, const double *, const int *);
int main(void) {
    double a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {0, 0, 0, 0}, one_d = 1, zero = 0;
    int n = 2, one = 1;
    dgemm_("N", "N", &n, &n, &n, &one_d, a, &n, b, &n, &zero, c, &n);
    printf("dgemm %g %g %g %g, ddot %g\n", c[0], c[1], c[2], c[3], ddot_(&n, a, &one, a, &one));
    return !(c[0] == 1 && c[1] == 2 && c[2] == 3 && c[3] == 4);
}
C
"$cc" "$tmp/lblas.c" -o "$tmp/lblas" -L"$sysblas" -lblas || die "cannot link with -L$sysblas -lblas"
readelf -d "$tmp/lblas" | grep -q 'Shared library: \[libblas.so.3\]' \
    || die "a program linked with -lblas does not record libblas.so.3"
if [ -e /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 ] || [ -e /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3 ]; then
    LD_LIBRARY_PATH=$sysblas TESSERA_VERBOSE=1 "$tmp/lblas" >"$tmp/lblas.log" 2>&1 \
        || die "the -lblas program failed: $(cat "$tmp/lblas.log")"
    grep -q "^tessera: dgemm col NN" "$tmp/lblas.log" || die "Tessera did not serve the -lblas program's dgemm"
    grep -q "^tessera: ddot_ forwarded to" "$tmp/lblas.log" || die "the -lblas program's ddot_ was not forwarded"
    sed 's/^/  /' "$tmp/lblas.log"
fi
grep -qx "libdir=$sysblas" "$sysblas/blas.pc" || die "$sysblas/blas.pc does not name $sysblas: $(grep '^libdir' "$sysblas/blas.pc")"
grep -q '^Libs: -L${libdir} -lblas$' "$sysblas/blas.pc" || die "$sysblas/blas.pc: no 'Libs: -L\${libdir} -lblas'"
echo "system BLAS directory: $(cd "$sysblas" && ls | tr '\n' ' ')"

run_installed() { # run_installed NAME PROGRAM: run it against the installed library only
    echo "-- running $1"
    LD_LIBRARY_PATH=$libdir "$2" >"$tmp/run.log" 2>&1
    status=$?
    sed 's/^/  /' "$tmp/run.log"
    [ $status -eq 0 ] || die "$1 exited with status $status"
    # The loader must have picked the installed copy, not the one in the build tree.
    resolved=$(LD_LIBRARY_PATH=$libdir ldd "$2" | awk '$1 == "libtessera.so.0" { print $3 }')
    [ "$(readlink -f "$resolved")" = "$real" ] \
        || die "$1 loads libtessera.so.0 from '$resolved', not from $libdir"
}

step "(a) pkg-config"
export PKG_CONFIG_PATH="$pcdir"
pkg-config --exists tessera || die "pkg-config does not find tessera with PKG_CONFIG_PATH=$pcdir"
cflags=$(pkg-config --cflags tessera)
libs=$(pkg-config --libs tessera)
echo "pkg-config --cflags: $cflags"
echo "pkg-config --libs:   $libs"
# A relocated install must still describe itself: its paths must lie inside the prefix.
case " $libs " in
    *" -L$prefix/"*) ;;
    *) die "pkg-config --libs gives no -L inside $prefix (the .pc file names another prefix: $(grep '^prefix=' "$pc"))" ;;
esac
case " $cflags " in
    *" -I$prefix/"*) ;;
    *) die "pkg-config --cflags gives no -I inside $prefix (the .pc file names another prefix: $(grep '^prefix=' "$pc"))" ;;
esac
for example in gemm_handle gemm_cblas; do
    # shellcheck disable=SC2086 # the flags are meant to split
    "$cc" "$source/examples/c/$example.c" $cflags $libs -o "$tmp/${example}_pc" \
        || die "compiling $example.c with pkg-config's flags failed"
    needed=$(readelf -d "$tmp/${example}_pc" | sed -n 's/.*(NEEDED).*\[\(libtessera[^]]*\)\].*/\1/p')
    [ "$needed" = "$expected_soname" ] \
        || die "${example}_pc NEEDs '$needed' instead of $expected_soname"
    echo "${example}_pc: NEEDED $needed"
    run_installed "${example}_pc" "$tmp/${example}_pc"
done

step "(b) CMake: find_package(tessera) with examples/CMakeLists.txt"
unset PKG_CONFIG_PATH
"$cmake" -S "$source/examples" -B "$tmp/examples-build" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$tmp/configure.log" 2>&1 \
    || { cat "$tmp/configure.log"; die "configuring examples/ against the installed tree failed"; }
found=$(sed -n 's/^tessera_DIR:[A-Z]*=//p' "$tmp/examples-build/CMakeCache.txt")
echo "tessera_DIR: $found"
case $found in
    "$prefix"/*) ;;
    *) die "find_package(tessera) found '$found', not the package installed under $prefix" ;;
esac
"$cmake" --build "$tmp/examples-build" >"$tmp/build.log" 2>&1 \
    || { cat "$tmp/build.log"; die "building examples/ against the installed tree failed"; }
built=0
for example in gemm_handle gemm_cblas sgemm_example; do
    program=$tmp/examples-build/$example
    if [ ! -x "$program" ]; then
        if [ $example = sgemm_example ] && ! grep -q '^CMAKE_Fortran_COMPILER:[A-Z]*=/' "$tmp/examples-build/CMakeCache.txt"; then
            echo "sgemm_example: no Fortran compiler, not built"
            continue
        fi
        die "examples/CMakeLists.txt did not build $example"
    fi
    needed=$(readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(libtessera[^]]*\)\].*/\1/p')
    [ "$needed" = "$expected_soname" ] || die "$example NEEDs '$needed' instead of $expected_soname"
    run_installed "$example (CMake)" "$program"
    built=$((built + 1))
done
[ $built -ge 2 ] || die "only $built example(s) built with CMake"

echo
echo "install test passed"
exit 0
