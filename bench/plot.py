#!/usr/bin/env python3
# Draws tessera-bench JSON as GFLOP/s against n for square gemm: Tessera, OpenBLAS and BLIS,
# sgemm and dgemm side by side, with the measured peak as a dashed line; saves a PNG.
"""Plot square-gemm GFLOP/s from tessera-bench JSON files.

usage: plot.py BENCH.json [BENCH.json ...] [-o FILE.png] [--backend cpu] [--trans NN]
               [--layout col] [--log-y]

Only square products (m = n = k) are drawn, for one Tessera backend, one transpose pair and
one layout. Several files are merged (a later file's point replaces an earlier one's); when
they were run with different thread counts, each count gets its own lines.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_json  # noqa: E402

CONTENDERS = (("ours", "Tessera", "tab:red", "o"),
              ("anchor", "OpenBLAS", "tab:blue", "s"),
              ("blis", "BLIS", "tab:green", "^"))


def collect(documents, backend, trans, layout):
    """{(dtype, contender, threads): {n: gflops}} and {(dtype, threads): (peak, isa)}."""
    series, peaks = {}, {}
    for _, doc in documents:
        for r in bench_json.gemm_records(doc):
            if r.get("status") != "ok" or not (r["m"] == r["n"] == r["k"]):
                continue
            if r.get("backend") != backend or r.get("layout", "col") != layout:
                continue
            if r.get("transa", "N") + r.get("transb", "N") != trans:
                continue
            for side, _, _, _ in CONTENDERS:
                gflops = bench_json.side_gflops(r, side)
                if gflops is not None:
                    series.setdefault((r["dtype"], side, r["threads"]), {})[r["n"]] = gflops
        for dtype in ("s", "d"):
            best = bench_json.peak_best(doc, dtype)
            if best and best[0]:
                peaks[(dtype, best[2])] = (best[0], best[1])
    return series, peaks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", metavar="BENCH.json")
    parser.add_argument("-o", "--output", help="PNG to write (default: the first file's name "
                        "with .png)")
    parser.add_argument("--backend", default="cpu", help="Tessera backend to draw (default cpu)")
    parser.add_argument("--trans", default="NN", help="transposes to draw (default NN)")
    parser.add_argument("--layout", default="col", choices=("col", "row"))
    parser.add_argument("--log-y", action="store_true", help="logarithmic GFLOP/s axis")
    args = parser.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot.py needs matplotlib: pip install matplotlib "
                 "(or, on Debian, apt-get install python3-matplotlib)")

    documents = bench_json.load(args.files)
    series, peaks = collect(documents, args.backend, args.trans.upper(), args.layout)
    if not series:
        sys.exit(f"no square gemm results for backend {args.backend}, {args.trans} "
                 f"{args.layout} in {', '.join(args.files)}")
    thread_counts = sorted({t for (_, _, t) in series})
    several = len(thread_counts) > 1
    styles = ("-", "--", ":", "-.")

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharex=False)
    for ax, dtype, title in ((axes[0], "s", "sgemm (float)"), (axes[1], "d", "dgemm (double)")):
        sizes = set()
        for ti, threads in enumerate(thread_counts):
            for side, name, color, marker in CONTENDERS:
                points = series.get((dtype, side, threads))
                if not points:
                    continue
                ns = sorted(points)
                sizes.update(ns)
                label = name + (f"/{args.backend}" if side == "ours" else "")
                if several:
                    label += ", " + bench_json.threads_text(threads)
                ax.plot(ns, [points[n] for n in ns], color=color, marker=marker,
                        linestyle=styles[ti % len(styles)], label=label)
            peak = peaks.get((dtype, threads))
            if peak:
                ax.axhline(peak[0], color="0.4", linestyle=styles[(ti + 1) % len(styles)],
                           linewidth=1,
                           label=f"measured peak ({peak[1]}, "
                                 f"{bench_json.threads_text(threads)}) {peak[0]:.0f} GF/s")
        ax.set_title(title)
        ax.set_xscale("log", base=2)
        if sizes:
            ticks = sorted(sizes)
            ax.set_xticks(ticks)
            ax.set_xticklabels([str(n) for n in ticks], rotation=45 if len(ticks) > 8 else 0)
            ax.minorticks_off()
        ax.set_xlabel("n (m = n = k)")
        ax.set_ylabel("GFLOP/s")
        if args.log_y:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        # Below the axes, so that no line hides behind it.
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2,
                  frameon=False)

    doc = documents[0][1]
    counts = " and ".join(str(t) for t in thread_counts)
    fig.suptitle(f"{args.trans.upper()} {args.layout}-major, {counts} "
                 f"thread{'' if thread_counts == [1] else 's'} - "
                 f"{doc.get('machine', {}).get('cpu_model', '')}, {bench_json.date(doc)}",
                 fontsize=10)
    fig.tight_layout()
    output = args.output or os.path.splitext(args.files[0])[0] + ".png"
    fig.savefig(output, dpi=110, bbox_inches="tight")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
