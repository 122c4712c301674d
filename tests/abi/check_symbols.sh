#!/bin/sh
# ABI test: libtessera.so exports exactly the contract's names (tsr_* of tessera.h; the BLAS and
# CBLAS names of src/api/blas_symbols.txt with their ILP64 twins: all of them where the rest of
# BLAS is forwarded, else the `own` ones; weak xerbla_/cblas_xerbla; reference CBLAS's globals
# RowMajorStrg and CBLAS_CallFromC), has SONAME libtessera.so.0, no CUDA and no -Bsymbolic.
# usage: check_symbols.sh LIBRARY tessera.h blas_symbols.txt all|own
set -u

lib=${1:?usage: check_symbols.sh LIBRARY HEADER}
header=${2:?usage: check_symbols.sh LIBRARY HEADER}
symbols=${3:?usage: check_symbols.sh LIBRARY HEADER SYMBOLS all|own}
which=${4:-all}
expected_soname=libtessera.so.0
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-symbols.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

bad() { echo "FAIL: $*"; fail=1; }

[ -f "$lib" ] || { echo "FAIL: no library at $lib"; exit 1; }
[ -f "$header" ] || { echo "FAIL: no header at $header"; exit 1; }
echo "library: $lib"

# The names the library must export, and the only ones it may.
# tsr_* functions: every name declared with TSR_API in the public header.
sed -n 's/.*TSR_API[^(]*[^A-Za-z0-9_]\(tsr_[A-Za-z0-9_]*\)[[:space:]]*(.*/\1/p' "$header" \
    | sort -u >"$tmp/tsr"
if [ ! -s "$tmp/tsr" ]; then
    bad "found no TSR_API function in $header"
fi
# BLAS names and their ILP64 twins (dgemv_ -> dgemv_64_, cblas_dgemv -> cblas_dgemv_64).
awk -v which="$which" '!/^#/ && NF == 2 && (which == "all" || $2 == "own") {
        print $1; if ($1 ~ /_$/) print $1 "64_"; else print $1 "_64" }' "$symbols" >"$tmp/blas"
[ "$(wc -l <"$tmp/blas")" -ge 8 ] || bad "read too few BLAS names from $symbols"
printf '%s\n' xerbla_ cblas_xerbla RowMajorStrg CBLAS_CallFromC >>"$tmp/blas"
sort -u "$tmp/tsr" "$tmp/blas" >"$tmp/contract"

# Version nodes defined by the library's version script appear as ABS symbols; they are allowed.
readelf -V -W "$lib" | sed -n 's/.*Flags: none .*Name: \([^ ]*\).*/\1/p' | sort -u >"$tmp/nodes"

# Defined dynamic symbols: "name type bind" (readelf --dyn-syms: Num Value Size Type Bind Vis Ndx Name).
readelf --dyn-syms -W "$lib" | awk 'NF >= 8 && $1 ~ /^[0-9]+:$/ && $7 != "UND" {
        name = $8; sub(/@.*/, "", name); print name, $4, $5, $7 }' | sort -u >"$tmp/defined"
if [ ! -s "$tmp/defined" ]; then
    bad "readelf found no defined dynamic symbol in $lib"
fi

# Anything defined that is neither a contract name nor a version node is a leak.
while read -r name type bind ndx; do
    if grep -qxF "$name" "$tmp/contract"; then
        continue
    fi
    if [ "$ndx" = ABS ] && grep -qxF "$name" "$tmp/nodes"; then
        continue
    fi
    bad "exported symbol outside the contract: $name ($type $bind)"
done <"$tmp/defined"

# Every contract name is exported, as a function; xerbla_ and cblas_xerbla are weak, the rest global.
while read -r name; do
    line=$(awk -v n="$name" '$1 == n' "$tmp/defined" | head -n 1)
    if [ -z "$line" ]; then
        bad "contract symbol not exported: $name"
        continue
    fi
    set -- $line
    type=$2 bind=$3
    case $name in
        RowMajorStrg | CBLAS_CallFromC) [ "$type" = OBJECT ] || bad "$name is $type, not OBJECT" ;;
        *) [ "$type" = FUNC ] || bad "$name is exported as $type, not FUNC" ;;
    esac
    case $name in
        xerbla_ | cblas_xerbla) [ "$bind" = WEAK ] || bad "$name must be WEAK (so a program's own wins), is $bind" ;;
        *) [ "$bind" = GLOBAL ] || bad "$name should be GLOBAL, is $bind" ;;
    esac
done <"$tmp/contract"

echo "exported: $(wc -l <"$tmp/defined") defined dynamic symbols, $(wc -l <"$tmp/contract") contract names," \
    "$(wc -l <"$tmp/nodes") version node(s): $(tr '\n' ' ' <"$tmp/nodes")"

# Dynamic section: SONAME, no CUDA libraries, no symbolic binding.
readelf -d -W "$lib" >"$tmp/dynamic"
soname=$(sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p' "$tmp/dynamic")
if [ "$soname" != "$expected_soname" ]; then
    bad "SONAME is '$soname', expected $expected_soname"
else
    echo "SONAME: $soname"
fi
needed=$(sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' "$tmp/dynamic" | tr '\n' ' ')
echo "NEEDED: $needed"
for lib_needed in $needed; do
    case $lib_needed in
        libcuda.* | libcudart.* | libcublas* | libcusparse* | libnvrtc* | libnvidia*)
            bad "libtessera.so must not link CUDA, but NEEDs $lib_needed" ;;
    esac
done
if grep -q '(SYMBOLIC)' "$tmp/dynamic"; then
    bad "DT_SYMBOLIC is set (linked with -Bsymbolic): a program's xerbla_ could not override"
fi
if grep -E '\((FLAGS|FLAGS_1)\)' "$tmp/dynamic" | grep -q 'SYMBOLIC'; then
    bad "the SYMBOLIC flag is set in DT_FLAGS (linked with -Bsymbolic)"
fi

# The library's own calls to xerbla_ and cblas_xerbla must go through the dynamic linker (a PLT
# or GOT relocation), or an override in the program would be ignored (-Bsymbolic-functions, or
# calls bound to a hidden alias, leave no trace in the dynamic section but show here).
readelf -r -W "$lib" >"$tmp/relocs"
for name in xerbla_ cblas_xerbla; do
    if ! awk -v n="$name" '{ for (i = 1; i <= NF; ++i) { s = $i; sub(/@.*/, "", s); if (s == n) found = 1 } }
                           END { exit !found }' "$tmp/relocs"; then
        bad "no dynamic relocation refers to $name: the library calls its own copy directly," \
            "so a program's override cannot win"
    fi
done

if [ "$fail" -ne 0 ]; then
    echo "symbol check FAILED"
    exit 1
fi
echo "symbol check passed"
exit 0
