#!/usr/bin/env python3
"""A model of PDGEMM on P nodes, SUMMA as PBLAS does it, for docs/scaling.md.

At each of n/kb steps, every node receives a panel of A (its n/pr rows, kb columns) broadcast
along its process row and a panel of B (kb rows, its n/pc columns) broadcast along its process
column, then adds the rank-kb product to its block of C. PBLAS does not overlap the broadcasts
with the products, so a step costs the two broadcasts plus the product. A broadcast of w bytes
among p nodes costs what MPI_Bcast costs (BLACS's default topology hands it to MPI): the better
of a binomial tree, ceil(log2 p) (alpha + w/beta), and a scatter then allgather,
(ceil(log2 p) + p - 1) alpha + 2 (p - 1)/p w/beta.

Deterministic: the same arguments print the same tables. Standard library only.

    python3 scripts/scaling_model.py              # the tables of docs/scaling.md
    python3 scripts/scaling_model.py --check-measured   # this machine, 2 and 4 ranks
    python3 scripts/scaling_model.py --host-gpus FILE...  # one host's GPUs: tessera-bench
                                                            # multigpu runs against the model
"""
import argparse
import json
import math

# Tessera's CUDA DGEMM on one H100, operands on the device, 4096^3 (docs/performance.md,
# h100-cuda-gemm, 2026-11-25): 54.1 TFLOP/s.
H100_DGEMM_TFLOPS = 54.1
GPUS_PER_NODE = 8
# The CPU variant: a node of two 56-core sockets (an 8-GPU H100 machine's host), at the rate one
# Zen 4 core sustains in Tessera's dgemm here (105 GFLOP/s on 2 threads at 4096^3,
# docs/performance.md, zen4-cpu-gemm): 52.5 GFLOP/s per core.
CPU_CORES_PER_NODE = 112
CPU_CORE_DGEMM_GFLOPS = 52.5


def bcast_time(w, p, alpha, beta):
    """MPI_Bcast of w bytes among p processes: the better of binomial tree and scatter+allgather."""
    if p <= 1:
        return 0.0
    hops = math.ceil(math.log2(p))
    tree = hops * (alpha + w / beta)
    scatter_allgather = (hops + p - 1) * alpha + 2.0 * (p - 1) / p * w / beta
    return min(tree, scatter_allgather)


def grid(p):
    """The squarest pr x pc grid with pr <= pc (ScaLAPACK's usual choice)."""
    pr = int(math.isqrt(p))
    while p % pr:
        pr -= 1
    return pr, p // pr


def numroc(n, nb, iproc, nprocs):
    """ScaLAPACK's NUMROC: rows (or columns) of an n-long block-cyclic dimension on process iproc."""
    blocks, extra = divmod(n // nb, nprocs)
    local = blocks * nb
    if iproc < extra:
        local += nb
    elif iproc == extra:
        local += n % nb
    return local


def pdgemm(n, p, rate, alpha, beta, kb, nb=0):
    """Times of C = A*B (n x n) on p nodes of `rate` FLOP/s each: a dict of the model's terms.
    With nb (the distribution's block size), the largest block of C sets the compute time;
    without it every node holds n/pr x n/pc."""
    pr, pc = grid(p)
    steps = math.ceil(n / kb)
    rows, cols = n / pr, n / pc  # a node's block of C
    if nb:
        rows = max(numroc(n, nb, i, pr) for i in range(pr))
        cols = max(numroc(n, nb, j, pc) for j in range(pc))
    wa, wb = 8.0 * rows * kb, 8.0 * kb * cols  # the panels it receives per step, bytes
    t_bcast = steps * (bcast_time(wa, pc, alpha, beta) + bcast_time(wb, pr, alpha, beta))
    t_compute = 2.0 * rows * cols * n / rate
    ideal = 2.0 * n * n * n / (p * rate)
    # A node receives the panels it does not own: (pc-1)/pc of A's, (pr-1)/pr of B's.
    received = steps * (wa * (pc - 1) / pc + wb * (pr - 1) / pr)
    total = t_compute + t_bcast
    return {
        "grid": f"{pr}x{pc}",
        "received_gb": received / 1e9,
        "compute_s": t_compute,
        "comm_s": t_bcast,
        "total_s": total,
        "efficiency": ideal / total,
        "tflops_node": 2.0 * n * n * n / total / p / 1e12,
    }


def table(title, rows, header):
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---:" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def fmt_time(s):
    return f"{s:.3g}"


def scaling_tables(args):
    alpha, beta = args.latency_us * 1e-6, args.link_gbit / 8.0 * 1e9
    variants = [
        ("GPU node: 8 x H100 at Tessera's measured DGEMM rate, operands on the GPUs",
         GPUS_PER_NODE * H100_DGEMM_TFLOPS * 1e12, args.gpu_kb),
        ("CPU node: 112 cores at the per-core rate measured on Zen 4",
         CPU_CORES_PER_NODE * CPU_CORE_DGEMM_GFLOPS * 1e9, args.cpu_kb),
    ]
    nodes = [2**i for i in range(0, 11)]
    n_weak1 = math.sqrt(args.memory_gb * 1e9 / 24.0)  # A, B and C of 8-byte entries per node
    n_strong = args.strong_n or int(round(n_weak1))
    header = ["P", "grid", "n", "received per node GB", "compute s", "broadcasts s", "total s",
              "TFLOP/s per node", "efficiency"]
    for name, rate, kb in variants:
        for mode in ("weak", "strong"):
            rows = []
            for p in nodes:
                n = int(round(n_weak1 * math.sqrt(p))) if mode == "weak" else n_strong
                r = pdgemm(n, p, rate, alpha, beta, kb)
                rows.append([str(p), r["grid"], str(n), f"{r['received_gb']:.3g}",
                             fmt_time(r["compute_s"]), fmt_time(r["comm_s"]),
                             fmt_time(r["total_s"]), f"{r['tflops_node']:.3g}",
                             f"{r['efficiency']:.1%}"])
            what = (f"weak scaling, {args.memory_gb:g} GB of A, B and C per node"
                    if mode == "weak" else f"strong scaling, n = {n_strong}")
            table(f"{name} ({rate / 1e12:.4g} TFLOP/s), kb = {kb}; {what}", rows, header)

    # How much network the GPU nodes need: efficiency at a few sizes of machine against the
    # bandwidth per node (3200 Gb/s: one 400 Gb/s port per GPU).
    name, rate, kb = variants[0]
    links = [200.0, 400.0, 800.0, 3200.0]
    rows = []
    for mode in ("weak", "strong"):
        for p in (4, 64, 1024):
            n = int(round(n_weak1 * math.sqrt(p))) if mode == "weak" else n_strong
            cells = [mode, str(p), str(n)]
            for link in links:
                r = pdgemm(n, p, rate, alpha, link / 8.0 * 1e9, kb)
                cells.append(f"{r['efficiency']:.1%}")
            rows.append(cells)
    table(f"GPU nodes ({rate / 1e12:.4g} TFLOP/s, kb = {kb}): efficiency against the network "
          f"bandwidth per node", rows,
          ["scaling", "P", "n"] + [f"{link:g} Gb/s" for link in links])


def check_measured(args):
    """The model on this machine: ranks of one core (or half of one, oversubscribed) and the
    shared-memory broadcasts measured with pgemm_check --bcast."""
    rows = []
    for label, p, rate, alpha, beta, measured in args.measured:
        r = pdgemm(args.n, p, rate * 1e9, alpha * 1e-6, beta * 1e9, 32, args.nb)
        rows.append([label, str(p), r["grid"], f"{rate:g}", f"{beta:g}", fmt_time(r["compute_s"]),
                     fmt_time(r["comm_s"]), fmt_time(r["total_s"]), f"{measured:g}",
                     f"{measured / r['total_s']:.2f}"])
    table(f"PDGEMM n = {args.n}, NB = {args.nb}, kb = 32, on this machine: predicted against "
          f"measured", rows,
          ["node BLAS", "ranks", "grid", "rate per rank GFLOP/s", "bcast GB/s", "compute s",
           "broadcasts s", "predicted s", "measured s", "measured / predicted"])


def spread_time(m, n, k, elem, p, memory, rate, link, host, stage, host_pageable, blocks=8,
                least=512):
    """Host-operand gemm (beta != 0) on p GPUs of one host as Tessera spreads it: a dict of the
    model's terms, in seconds.

    C is cut into p blocks (of columns when m <= n: every device needs A, the shared operand X,
    and its own columns of B). X goes up once in all, each device sending a 1/p share from the
    host and copying the others' over NVLink (not counted: it is far faster than the host
    links); the device's block of C then runs as the one-device overlapped product. Per device,
    up: X/p, its block of the other operand, its block of C; down: its block of C. The transfers
    are bound by the device's own link (full duplex, `link` bytes/s each way) and by what the
    host moves for all devices at once (`host`); from pageable memory by the staging copies
    (`stage` per device, `host_pageable` in all). The kernels run at `rate`. Compute-bound, a
    call costs the product plus the pipeline's fill (the first piece of X, the first block's C
    and B) and drain (the last block of C coming back); transfer-bound, the transfers."""
    by_rows = n < m
    x = elem * (k * n if by_rows else m * k)
    other = elem * (m * k if by_rows else k * n) / p
    c = elem * m * n / p
    if memory == "pageable":
        link, host = min(link, stage), host_pageable
    if p == 1:  # one device: A's slices, the first block of B and C before the first product
        up, first = x + other + c, (x / blocks + other / blocks + c / blocks)
        last = c / blocks
    else:
        rounds = max(1, min(8, int((x / elem / (m if not by_rows else n)) // (p * least))))
        up = x / p + other + c
        first = x / (p * rounds) + 2.0 * c / (blocks + 1) + other / (p * rounds)
        last = c / (blocks + 1)
    down = c
    transfer = max(max(up, down) / link, p * max(up, down) / host)
    compute = 2.0 * m * n * k / (p * rate)
    fill, drain = first / link, last / link
    total = max(compute + fill + drain, transfer)
    return {"compute_s": compute, "transfer_s": transfer, "fill_s": fill + drain,
            "total_s": total, "bound": "compute" if compute + fill + drain >= transfer
            else "transfers"}


def host_gpus(args):
    """The spread model against tessera-bench multigpu's JSON files, then P = 8 predicted."""
    rows, runs = [], []
    for path in args.files:
        with open(path) as f:
            doc = json.load(f)
        for r in doc["results"]:
            if r.get("side", "").startswith("tessera"):
                gpus = int(r["side"].split(",")[1].split()[0])
                runs.append((r["dtype"], r["m"], r["n"], r["k"], r["memory"], gpus,
                             r["seconds"]))
    rate = {"s": args.rate_s * 1e12, "d": args.rate_d * 1e12}
    consts = (args.gpu_link * 1e9, args.host_link * 1e9, args.stage * 1e9,
              args.host_pageable * 1e9)
    for dtype, m, n, k, memory, gpus, seconds in runs:
        elem = 4 if dtype == "s" else 8
        t = spread_time(m, n, k, elem, gpus, memory, rate[dtype], *consts)
        rows.append([f"{dtype}gemm", f"{m}x{n}x{k}", memory, str(gpus),
                     fmt_time(t["compute_s"]), fmt_time(t["transfer_s"]),
                     fmt_time(t["fill_s"]), t["bound"], fmt_time(t["total_s"]),
                     fmt_time(seconds), f"{seconds / t['total_s']:.2f}"])
    table("Host operands over one host's GPUs: predicted against measured (seconds)", rows,
          ["gemm", "shape", "memory", "GPUs", "compute", "transfers", "fill + drain", "bound",
           "predicted", "measured", "measured / predicted"])
    rows = []
    for dtype, (m, n, k) in ((d, shape) for d in "sd"
                             for shape in ((16384, 16384, 16384), (32768, 32768, 32768),
                                           (65536, 65536, 4096))):
        elem = 4 if dtype == "s" else 8
        for memory in ("pinned", "pageable"):
            one = spread_time(m, n, k, elem, 1, memory, rate[dtype], *consts)["total_s"]
            cells = [f"{dtype}gemm", f"{m}x{n}x{k}", memory]
            for p in (2, 4, 8):
                t = spread_time(m, n, k, elem, p, memory, rate[dtype], *consts)
                cells.append(f"{one / t['total_s']:.2f} ({t['bound'][0]})")
            rows.append(cells)
    table("Predicted speed-up over one GPU of the same call path ((c) compute-bound, "
          "(t) transfer-bound), with the host's measured links", rows,
          ["gemm", "shape", "memory", "2 GPUs", "4 GPUs", "8 GPUs"])


def parse_measured(text):
    # label:ranks:rate_gflops_per_rank:alpha_us:beta_gbs:measured_s
    label, p, rate, alpha, beta, measured = text.split(":")
    return label, int(p), float(rate), float(alpha), float(beta), float(measured)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--link-gbit", type=float, default=200.0,
                    help="network bandwidth per node, Gb/s (default 200: one HDR InfiniBand port)")
    ap.add_argument("--latency-us", type=float, default=2.0, help="network latency, us")
    ap.add_argument("--memory-gb", type=float, default=240.0,
                    help="A, B and C per node for weak scaling, GB (default 240: n = 100000 on one)")
    ap.add_argument("--strong-n", type=int, default=0, help="n for strong scaling (default: P=1's)")
    ap.add_argument("--gpu-kb", type=int, default=512, help="panel width on GPU nodes")
    ap.add_argument("--cpu-kb", type=int, default=32, help="panel width on CPU nodes (PBLAS: 32)")
    ap.add_argument("--check-measured", action="store_true",
                    help="instead, predict the runs of this machine given with --measured")
    ap.add_argument("-n", type=int, default=3000, help="n of the measured runs")
    ap.add_argument("--nb", type=int, default=64, help="NB of the measured runs")
    ap.add_argument("--measured", type=parse_measured, action="append", default=[],
                    metavar="LABEL:RANKS:GFLOPS:ALPHA_US:BETA_GBS:SECONDS")
    ap.add_argument("--host-gpus", dest="files", nargs="+", default=None, metavar="JSON",
                    help="instead, the one-host model against tessera-bench multigpu runs")
    ap.add_argument("--rate-s", type=float, default=48.4,
                    help="one GPU's SGEMM rate, TFLOP/s (default: the H200s' 32768^3, pinned)")
    ap.add_argument("--rate-d", type=float, default=47.4, help="the same for DGEMM")
    ap.add_argument("--gpu-link", type=float, default=28.6,
                    help="one GPU's host link each way, GB/s (default: the H200s')")
    ap.add_argument("--host-link", type=float, default=85.0,
                    help="what the host moves to all its GPUs at once each way, GB/s")
    ap.add_argument("--stage", type=float, default=20.6,
                    help="one device's staging of pageable memory, GB/s")
    ap.add_argument("--host-pageable", type=float, default=48.0,
                    help="the host's staging of pageable memory for all devices, GB/s")
    args = ap.parse_args()
    if args.files:
        host_gpus(args)
    elif args.check_measured:
        check_measured(args)
    else:
        print(f"Network: {args.link_gbit:g} Gb/s per node, {args.latency_us:g} us latency; "
              f"MPI_Bcast = min(binomial tree, scatter + allgather); no overlap of broadcasts and "
              f"products (PBLAS)")
        scaling_tables(args)


if __name__ == "__main__":
    main()
