#!/bin/sh
# Runs an MPI program with each rank's stderr in its own file and Tessera's call log on, then
# says per rank how many sgemm/dgemm calls Tessera served (and how many it forwarded).
#
# usage: run.sh [--preload LIBTESSERA] [--require "sgemm dgemm"] [--logs DIR] NP PROGRAM [ARGS...]
#   --preload   put LIBTESSERA (an absolute path) in each rank's LD_PRELOAD (mpirun -x)
#   --require   fail unless every rank's log shows each named routine served by Tessera
#   --logs      keep the per-rank logs in DIR (default: a temporary directory, removed)
# Environment: MPIRUN (default mpirun, Open MPI's), TESSERA_NUM_THREADS (default 1 per rank),
# MPIRUN_ARGS (more mpirun options). Exits 77 when no mpirun is found.
set -u

preload= require= logs=
while [ $# -gt 0 ]; do
    case "$1" in
    --preload) preload=$2; shift 2 ;;
    --require) require=$2; shift 2 ;;
    --logs) logs=$2; shift 2 ;;
    *) break ;;
    esac
done
[ $# -ge 2 ] || { sed -n '5,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
np=$1
shift
mpirun=${MPIRUN:-mpirun}
if ! command -v "$mpirun" > /dev/null 2>&1; then
    echo "SKIPPED: $mpirun not found (Debian: apt-get install openmpi-bin libscalapack-openmpi-dev)"
    exit 77
fi
if [ -z "$logs" ]; then
    logs=$(mktemp -d "${TMPDIR:-/tmp}/tessera-mpi.XXXXXX") || exit 2
    trap 'rm -rf "$logs"' EXIT HUP INT TERM
else
    mkdir -p "$logs" && rm -f "$logs"/rank.*.err
fi
if [ -n "$preload" ]; then
    case "$preload" in
    /*) [ -e "$preload" ] || { echo "FAIL: $preload does not exist"; exit 1; } ;;
    *) echo "FAIL: --preload needs an absolute path, not $preload"; exit 1 ;;
    esac
fi

# Open MPI refuses root unless told; --oversubscribe lets NP exceed the cores.
set -- --oversubscribe -np "$np" \
    -x TESSERA_VERBOSE=1 -x TESSERA_NUM_THREADS="${TESSERA_NUM_THREADS:-1}" \
    -x OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}" -x OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" \
    ${preload:+-x LD_PRELOAD="$preload"} ${MPIRUN_ARGS:-} \
    sh -c 'exec "$@" 2> "$0/rank.${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${SLURM_PROCID:-0}}}.err"' \
    "$logs" "$@"
[ "$(id -u)" = 0 ] && set -- --allow-run-as-root "$@"
echo "+ $mpirun $*"
"$mpirun" "$@"
status=$?

# Each rank's log: the lines of the calls Tessera ran, and of those it forwarded.
missing=0
rank=0
while [ "$rank" -lt "$np" ]; do
    log="$logs/rank.$rank.err"
    if [ ! -f "$log" ]; then
        echo "rank $rank: no log"
        missing=1
        rank=$((rank + 1))
        continue
    fi
    s=$(grep -c '^tessera: sgemm ' "$log")
    d=$(grep -c '^tessera: dgemm ' "$log")
    f=$(grep -c '^tessera: [a-z0-9_]* forwarded to ' "$log")
    backends=$(sed -n 's/^tessera: [sd]gemm .* backend=\([a-z]*\).*/\1/p' "$log" | sort | uniq -c |
        awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }')
    echo "rank $rank: Tessera served $s sgemm and $d dgemm call(s)${backends:+ ($backends)}; $f call(s) forwarded"
    for routine in $require; do
        if ! grep -q "^tessera: $routine " "$log"; then
            echo "rank $rank: FAIL: no $routine call served by Tessera; its stderr:"
            sed 's/^/  /' "$log" | head -n 40
            missing=1
        fi
    done
    grep -v '^tessera: ' "$log" | sed "s/^/rank $rank stderr: /" | head -n 20
    rank=$((rank + 1))
done
[ $status -eq 0 ] || { echo "FAIL: mpirun exited with $status"; exit $status; }
[ $missing -eq 0 ] || exit 1
exit 0
