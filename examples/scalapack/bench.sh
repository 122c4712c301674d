#!/bin/sh
# PDGEMM with Tessera as the node BLAS against the same with OpenBLAS, in one session: 1 x 2 and
# 2 x 2 grids, one thread per rank, several block sizes, runs of the two interleaved; prints the
# best time of each and their ratio.
#
# usage: bench.sh [-n N] [--nb "64 128 256"] [--reps R] [--rounds K] [--grids "1x2 2x2"]
#                 TESSERA_PROGRAM BLAS_PROGRAM
#   TESSERA_PROGRAM  pgemm_check linked with Tessera (pgemm_check_tessera)
#   BLAS_PROGRAM     pgemm_check linked with the system BLAS (pgemm_check_blas); it is run with
#                    OpenBLAS preloaded (OPENBLAS, default Debian's openblas-pthread libblas.so.3),
#                    whatever libblas.so.3 the system has selected
# Each run of a program times R products after a warm-up; K rounds alternate the two libraries
# and every block size; the best over all is kept. OpenBLAS gets OPENBLAS_NUM_THREADS=1 and, where
# the CPU has AVX-512, OPENBLAS_CORETYPE=SkylakeX (Haswell with AVX2) unless already set.
set -eu

n=3000 nbs="64 128 256" reps=3 rounds=2 grids="1x2 2x2"
while [ $# -gt 0 ]; do
    case "$1" in
    -n) n=$2; shift 2 ;;
    --nb) nbs=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --grids) grids=$2; shift 2 ;;
    *) break ;;
    esac
done
[ $# -eq 2 ] || { sed -n '6,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
tessera=$1 blas=$2
openblas=${OPENBLAS:-/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3}
mpirun=${MPIRUN:-mpirun}
command -v "$mpirun" > /dev/null 2>&1 || { echo "no $mpirun (apt-get install openmpi-bin)"; exit 77; }
[ -e "$openblas" ] || { echo "no OpenBLAS at $openblas (set OPENBLAS)"; exit 1; }
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
    if grep -qw avx512f /proc/cpuinfo; then OPENBLAS_CORETYPE=SkylakeX
    elif grep -qw avx2 /proc/cpuinfo; then OPENBLAS_CORETYPE=Haswell
    fi
fi
cores=$(getconf _NPROCESSORS_ONLN)
export OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS=1 TESSERA_NUM_THREADS=1 OMP_NUM_THREADS=1
export TESSERA_VERBOSE=0
root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
results=$(mktemp "${TMPDIR:-/tmp}/tessera-pdgemm.XXXXXX")
trap 'rm -f "$results"' EXIT HUP INT TERM

# One run: prints "seconds" (the best of its reps).
run() { # library program np p q nb
    lib=$1 prog=$2 np=$3 p=$4 q=$5 nb=$6
    set -- $root --oversubscribe -np "$np" -x OPENBLAS_CORETYPE -x OPENBLAS_NUM_THREADS \
        -x TESSERA_NUM_THREADS -x OMP_NUM_THREADS -x TESSERA_VERBOSE
    [ "$lib" = openblas ] && set -- "$@" -x LD_PRELOAD="$openblas"
    "$mpirun" "$@" "$prog" "$p" "$q" --bench "$n" "$nb" "$reps" |
        sed -n 's/^pdgemm .* best=\([0-9.e+-]*\)s .*/\1/p'
}

# The broadcasts of one PDGEMM step (PBLAS's panels are 32 wide: 8*32*n/P bytes along rows),
# timed with BLACS as PBLAS calls it: the shared-memory "network" of this machine.
for grid in $grids; do
    p=${grid%x*} q=${grid#*x}
    "$mpirun" $root --oversubscribe -np $((p * q)) "$blas" "$p" "$q" --bcast $((8 * 32 * n / p)) 200 |
        sed "s/^/$grid: /"
done
echo "PDGEMM C = A*B, n=$n, best of $rounds round(s) x $reps rep(s); one thread per rank;"
echo "OpenBLAS: $openblas (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}); $cores cores"
round=1
while [ "$round" -le "$rounds" ]; do
    for grid in $grids; do
        p=${grid%x*} q=${grid#*x}
        np=$((p * q))
        for nb in $nbs; do
            for lib in tessera openblas; do
                prog=$tessera
                [ "$lib" = openblas ] && prog=$blas
                t=$(run "$lib" "$prog" "$np" "$p" "$q" "$nb")
                [ -n "$t" ] || { echo "run failed: $lib $grid nb=$nb"; exit 1; }
                echo "$grid $nb $lib $t" >> "$results"
                echo "  round $round: $grid nb=$nb $lib ${t}s" >&2
            done
        done
    done
    round=$((round + 1))
done

# The table: per grid and block size, the best time of each library, GFLOP/s and the ratio
# (OpenBLAS time / Tessera time: above 1, Tessera is faster); then each one at its best block size.
awk -v n="$n" -v cores="$cores" -v grids="$grids" -v nbs="$nbs" '
    { k = $1 " " $2 " " $3; if (!(k in best) || $4 < best[k]) best[k] = $4
    }
    END {
        flops = 2 * n * n * n
        printf "\n| grid | ranks | NB | Tessera s | GFLOP/s | OpenBLAS s | GFLOP/s | ratio |\n"
        printf "|---|---:|---:|---:|---:|---:|---:|---:|\n"
        ng = split(grids, grid, " "); nn = split(nbs, nb, " ")
        for (i = 1; i <= ng; ++i) {
            g = grid[i]; split(g, pq, "x"); np = pq[1] * pq[2]
            note = np > cores ? " (oversubscribed)" : ""
            bt = 1e30; bo = 1e30
            for (j = 1; j <= nn; ++j) {
                b = nb[j]; t = best[g " " b " tessera"]; o = best[g " " b " openblas"]
                if (t == "" || o == "") continue
                printf "| %s | %d%s | %d | %.3f | %.1f | %.3f | %.1f | %.3f |\n", g, np, note, b,
                       t, flops / t * 1e-9, o, flops / o * 1e-9, o / t
                if (t < bt) { bt = t; btn = b }
                if (o < bo) { bo = o; bon = b }
            }
            best_line[g] = sprintf("| %s | %d%s | best: Tessera NB %d, OpenBLAS NB %d | %.3f | %.1f | %.3f | %.1f | %.3f |",
                                   g, np, note, btn, bon, bt, flops / bt * 1e-9, bo, flops / bo * 1e-9, bo / bt)
        }
        for (i = 1; i <= ng; ++i) print best_line[grid[i]]
    }' "$results"
