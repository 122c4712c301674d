#!/usr/bin/env bash
# System test: Tessera as the distribution's BLAS through the alternatives, with no LD_PRELOAD.
# Installs the Debian packages (dpkg -i), selects Tessera for libblas.so.3-<multiarch> and
# libblas.so-<multiarch>, checks `pkg-config --libs blas`, runs Debian's numpy and R on products
# whose call log must show Tessera serving dgemm, and puts everything back: the selections as they
# were (manual or auto) and the packages removed (dpkg --purge), also when a step fails (trap).
#
# Root only, and it changes the system while it runs, so it is not a CTest test; .ci/run runs it
# after the suite.   usage: bash tests/system/alternatives_test.sh [PACKAGE_DIR]
# PACKAGE_DIR (default build/packages) holds libtessera0_*.deb and libtessera-dev_*.deb;
# when it holds none, scripts/package.sh makes them. Exit 77: not root or not Debian (skipped).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
packages="${1:-$root/build/packages}"

say() { echo "alternatives_test: $*"; }
step() { echo; echo "== $*"; }
die() { say "FAIL: $*"; exit 1; }

if [ "$(id -u)" != 0 ] || ! command -v dpkg > /dev/null || ! command -v update-alternatives > /dev/null; then
  say "skipped: needs root on Debian or Ubuntu (dpkg, update-alternatives)"
  exit 77
fi
export DEBIAN_FRONTEND=noninteractive
ma="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null || gcc -print-multiarch)"
libdir=/usr/lib/$ma
tessera_dir=$libdir/tessera
runtime_group=libblas.so.3-$ma
dev_group=libblas.so-$ma
work="$(mktemp -d "${TMPDIR:-/tmp}/tessera-alternatives.XXXXXX")"

# ---- state to restore --------------------------------------------------------------------------
installed_here=()      # packages this run installed with dpkg -i, removed again at the end
declare -A was_status  # group -> auto | manual | absent, before the run
declare -A was_value   # group -> the selected path before the run
restored=0

query() { # query GROUP FIELD: Status or Value of an alternatives group (empty when absent)
  update-alternatives --query "$1" 2> /dev/null | sed -n "s/^$2: //p"
}
show() { # show GROUP: one line, mode and selection
  if update-alternatives --query "$1" > /dev/null 2>&1; then
    printf '  %-32s %-6s -> %s\n' "$1" "$(query "$1" Status)" "$(query "$1" Value)"
  else
    printf '  %-32s (no such group)\n' "$1"
  fi
}
record() {
  for g in "$@"; do
    if update-alternatives --query "$g" > /dev/null 2>&1; then
      was_status[$g]=$(query "$g" Status)
      was_value[$g]=$(query "$g" Value)
    else
      was_status[$g]=absent
      was_value[$g]=
    fi
  done
}

restore() {
  local status=$?
  [ $restored = 1 ] && return
  restored=1
  trap - EXIT INT TERM HUP
  step "restore"
  for g in "$runtime_group" "$dev_group"; do
    case "${was_status[$g]:-absent}" in
      auto) say "update-alternatives --auto $g"; update-alternatives --quiet --auto "$g" ;;
      manual) say "update-alternatives --set $g ${was_value[$g]}"
              update-alternatives --quiet --set "$g" "${was_value[$g]}" ;;
      absent) ;;
    esac
  done
  if [ ${#installed_here[@]} -gt 0 ]; then
    # --purge: dpkg -r and the package's record (it has maintainer scripts, so a plain remove
    # would leave it in the database as "rc").
    say "dpkg --purge ${installed_here[*]}"
    dpkg --purge "${installed_here[@]}" > "$work/remove.log" 2>&1 || { cat "$work/remove.log"; status=1; }
  fi
  echo "selections after:"
  show "$runtime_group"; show "$dev_group"; show "libcblas.so.3-$ma"
  for g in "$runtime_group" "$dev_group"; do
    [ "${was_status[$g]:-absent}" = absent ] && continue
    if [ "$(query "$g" Status)" != "${was_status[$g]}" ] || [ "$(query "$g" Value)" != "${was_value[$g]}" ]; then
      say "FAIL: $g is not as it was (${was_status[$g]} -> ${was_value[$g]})"
      status=1
    fi
  done
  for p in "${installed_here[@]}"; do
    case "$(dpkg_state "$p")" in
      "" | not-installed) ;;
      *) say "FAIL: $p is still known to dpkg ($(dpkg_state "$p"))"; status=1 ;;
    esac
  done
  rm -rf "$work"
  if [ $status = 0 ]; then say "passed"; else say "FAILED (status $status)"; fi
  exit $status
}
trap restore EXIT
trap 'exit 130' INT TERM HUP

# ---- the packages ------------------------------------------------------------------------------
step "packages"
find_debs() {
  runtime_deb=$(ls "$packages"/libtessera0_*.deb 2> /dev/null | head -n 1)
  dev_deb=$(ls "$packages"/libtessera-dev_*.deb 2> /dev/null | head -n 1)
}
find_debs
if [ -z "$runtime_deb" ] || [ -z "$dev_deb" ]; then
  say "no packages in $packages: bash scripts/package.sh"
  TESSERA_PACKAGE_DIR="$packages" bash "$root/scripts/package.sh" || die "scripts/package.sh failed"
  find_debs
fi
[ -n "$runtime_deb" ] && [ -n "$dev_deb" ] || die "no libtessera0 / libtessera-dev package in $packages"
ls -l "$runtime_deb" "$dev_deb" | awk '{ print "  " $5 " bytes  " $9 }'
dpkg_state() { dpkg-query -W -f='${db:Status-Status}' "$1" 2> /dev/null; }
for p in libtessera0 libtessera-dev; do
  case "$(dpkg_state "$p")" in
    "" | not-installed | config-files) ;;
    *) die "$p is already installed here; remove it first (dpkg --purge $p) so that this test can put the system back as it found it" ;;
  esac
done

# Dependencies: the packages' own (first choice of each alternative when none is there), the
# programs this test runs, pkg-config.
missing=()
is_installed() { dpkg-query -W -f='${Status}' "$1" 2> /dev/null | grep -q "install ok installed"; }
for deb in "$runtime_deb" "$dev_deb"; do
  IFS=',' read -ra clauses <<< "$(dpkg-deb -f "$deb" Depends)"
  for clause in "${clauses[@]}"; do
    satisfied=0; first=
    IFS='|' read -ra choices <<< "$clause"
    for choice in "${choices[@]}"; do
      name=$(echo "$choice" | sed 's/(.*//; s/[[:space:]]//g')
      case "$name" in libtessera*) satisfied=1; break ;; esac
      [ -z "$first" ] && first=$name
      is_installed "$name" && { satisfied=1; break; }
    done
    [ $satisfied = 1 ] || missing+=("$first")
  done
done
for p in python3-numpy r-base-core pkg-config; do is_installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "apt-get install -y ${missing[*]} (left installed afterwards)"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" > "$work/apt.log" 2>&1 \
    || { apt-get update -qq > /dev/null 2>&1; apt-get install -y -qq --no-install-recommends "${missing[@]}" > "$work/apt.log" 2>&1; } \
    || { tail -n 20 "$work/apt.log"; die "apt-get install ${missing[*]} failed"; }
fi

step "selections before"
record "$runtime_group" "$dev_group"
show "$runtime_group"; show "$dev_group"; show "libcblas.so.3-$ma"
[ "${was_status[$runtime_group]}" != absent ] || die "no $runtime_group group: is a BLAS (libblas3, libopenblas0) installed?"

step "install: dpkg -i"
say "dpkg -i $(basename "$runtime_deb") $(basename "$dev_deb")"
installed_here=(libtessera-dev libtessera0)  # from here on, the trap removes them (dev first)
dpkg -i "$runtime_deb" "$dev_deb" > "$work/install.log" 2>&1 || { cat "$work/install.log"; die "dpkg -i failed"; }
sed 's/^/  /' "$work/install.log"
update-alternatives --list "$runtime_group" | grep -qx "$tessera_dir/libblas.so.3" \
  || die "libtessera0 did not register $tessera_dir/libblas.so.3 in $runtime_group"
update-alternatives --list "$dev_group" | grep -qx "$tessera_dir/libblas.so" \
  || die "libtessera-dev did not register $tessera_dir/libblas.so in $dev_group"
# Installing changes no selection: Tessera's priority is below every other BLAS.
[ "$(query "$runtime_group" Value)" = "${was_value[$runtime_group]}" ] \
  || die "installing libtessera0 changed the selection of $runtime_group"
update-alternatives --display "$runtime_group" | sed 's/^/  /'

step "select Tessera"
update-alternatives --set "$runtime_group" "$tessera_dir/libblas.so.3" || die "--set $runtime_group"
update-alternatives --set "$dev_group" "$tessera_dir/libblas.so" || die "--set $dev_group"
show "$runtime_group"; show "$dev_group"; show "libcblas.so.3-$ma"
resolved=$(readlink -f "$libdir/libblas.so.3")
say "$libdir/libblas.so.3 resolves to $resolved"
# Tessera's libblas.so.3: a filter library of libtessera.so.0 with the SONAME libblas.so.3.
[ "$resolved" = "$(readlink -f "$tessera_dir/libblas.so.3")" ] || die "libblas.so.3 does not lead to $tessera_dir"
readelf -d "$resolved" | grep -q 'Filter library: \[libtessera.so.0\]' \
  || die "$resolved is not a filter of libtessera.so.0"
readelf -d "$resolved" | grep -q 'Library soname: \[libblas.so.3\]' || die "$resolved: SONAME is not libblas.so.3"

step "pkg-config --libs blas"
pc_libs=$(pkg-config --libs blas) || die "pkg-config --libs blas failed"
say "pkg-config --libs blas: $pc_libs"
case " $pc_libs " in
  *" -L$tessera_dir "*) ;;
  *) die "pkg-config --libs blas does not name $tessera_dir" ;;
esac

check_log() { # check_log NAME LOG: Tessera's dgemm lines must be there; print the call log's lines
  local n
  n=$(grep -c '^tessera: dgemm' "$2")
  say "$1: $n 'tessera: dgemm' line(s), $(grep -c 'forwarded to' "$2") forwarded call(s); the call log:"
  grep '^tessera:' "$2" | sort | uniq -c | sort -rn | head -n 8 | sed 's/^/    /'
  [ "$n" -gt 0 ] || die "$1: no 'tessera: dgemm' line: Tessera did not serve the product"
}

step "numpy (Debian's, /usr/bin/python3), no LD_PRELOAD"
env -u LD_PRELOAD TESSERA_VERBOSE=1 /usr/bin/python3 -c '
import sys, numpy as np
rng = np.random.default_rng()
n = 300
a = rng.standard_normal((n, n)); b = rng.standard_normal((n, n))
c = np.dot(a, b)
# The reference in plain Python: each entry and its |a||b| bound, no BLAS.
A = a.tolist(); Bt = b.T.tolist(); C = c.tolist()
u = 2.0 ** -53
worst = 0.0
for i in range(n):
    row = A[i]
    for j in range(n):
        col = Bt[j]
        ref = sum(x * y for x, y in zip(row, col))
        mag = sum(abs(x * y) for x, y in zip(row, col))
        worst = max(worst, abs(C[i][j] - ref) / (2 * n * u * mag))
print(f"numpy {np.__version__}: dot {n}x{n} float64, max |C - ref| / (2 k u |A||B|) = {worst:.3g}")
rhs = rng.standard_normal(n)
x = np.linalg.solve(a, rhs).tolist()
res = max(abs(sum(p * q for p, q in zip(A[i], x)) - rhs[i]) for i in range(n))
scale = max(sum(abs(p) for p in A[i]) for i in range(n)) * max(abs(v) for v in x)
print(f"numpy: solve {n}x{n}, max |A x - b| / (|A|_inf |x|_inf) = {res / scale:.3g}")
sys.exit(0 if worst <= 1.0 and res / scale < 1e-10 else 1)
' > "$work/numpy.out" 2> "$work/numpy.err"
numpy_status=$?
sed 's/^/  /' "$work/numpy.out"
grep -v '^tessera:' "$work/numpy.err" | head -n 20
[ $numpy_status = 0 ] || die "numpy's results are wrong or it failed (status $numpy_status)"
check_log numpy "$work/numpy.err"

step "R (Rscript), no LD_PRELOAD"
env -u LD_PRELOAD TESSERA_VERBOSE=1 Rscript -e '
n <- 300
a <- matrix(rnorm(n * n), n); b <- a %*% a
worst <- 0
for (j in 1:n) for (i in 1:n) {
  p <- a[i, ] * a[, j]
  worst <- max(worst, abs(b[i, j] - sum(p)) / (2 * n * .Machine$double.eps / 2 * sum(abs(p))))
}
cat(sprintf("R %s: a %%*%% a %dx%d, max |C - ref| / (2 k u |A||A|) = %.3g\n",
            getRversion(), n, n, worst))
rhs <- rnorm(n); x <- solve(a, rhs)
res <- 0
for (i in 1:n) res <- max(res, abs(sum(a[i, ] * x) - rhs[i]))
scale <- max(rowSums(abs(a))) * max(abs(x))
cat(sprintf("R: solve %dx%d, max |A x - b| / (|A|_inf |x|_inf) = %.3g\n", n, n, res / scale))
quit(status = if (worst <= 1 && res / scale < 1e-10) 0 else 1)
' > "$work/r.out" 2> "$work/r.err"
r_status=$?
sed 's/^/  /' "$work/r.out"
grep -v '^tessera:' "$work/r.err" | head -n 20
[ $r_status = 0 ] || die "R's results are wrong or it failed (status $r_status)"
check_log R "$work/r.err"

step "all checks passed"
exit 0
