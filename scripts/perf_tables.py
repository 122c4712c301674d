#!/usr/bin/env python3
# Rewrites the generated tables of docs/performance.md from the result JSON in docs/results/:
# the block between the markers of NAME comes from NAME.json. --check only says whether it is current.
"""Regenerates the tables of docs/performance.md from docs/results/*.json.

usage: perf_tables.py [--check] [--results DIR] [--doc FILE]

Every file NAME.json in the results folder (written by `tessera-bench --json`) owns one block
of the document, between the lines

    <!-- BEGIN generated: NAME -->
    <!-- END generated: NAME -->

which this script rewrites: the machine (or device) line, the date of the run, and a Markdown
table, chosen by the kind of run:

- gemm: a row per shape and backend, sgemm and dgemm side by side: Tessera's rate, the anchor's
  (OpenBLAS, cuBLAS), their ratio (Tessera / anchor: above 1, Tessera is faster), BLIS's ratio
  where BLIS ran, end-to-end milliseconds for host operands, errors for the TF32 modes; then the
  geometric mean of the ratios and the largest errors. The reference backend (plain loops, the
  oracle) stays in the JSON only, and so does the CPU peak check of a run on the cuda backend
  (it measures the host's FMA units, not the device).
- spmv on the CPU: a row per matrix and op: CSR's effective bandwidth and its share of the
  STREAM triad, AUTO's choice and its time over the fastest format's, CSR against Eigen; then,
  per op, how often AUTO was within 10% of the fastest format and the geometric mean of CSR
  against Eigen. A run of more than 24 records (the SuiteSparse set) gets only that summary
  and the records where AUTO missed by more than 10%.
- spmv on CUDA: a row per matrix, type and op: CSR and AUTO as a share of the device copy,
  AUTO's choice, AUTO against cuSPARSE's best algorithm and CSR against CSR ALG1; then the
  geometric means of AUTO against cuSPARSE per type.

Without --check the document is rewritten in place (only if something changed). With --check
nothing is written, and the exit status is 1 when a block is not what the JSON gives, so CI can
run it. A block without its JSON, a JSON without its block, or a marker without its partner is
an error (status 2) either way. Standard library only (Python 3.9 or later); it reads the JSON
through bench/bench_json.py, as the bench's own table scripts do.
"""

import argparse
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bench_json  # noqa: E402
from perf_table import number  # noqa: E402

BEGIN = re.compile(r"^<!-- BEGIN generated: ([A-Za-z0-9._-]+) -->$")
END = re.compile(r"^<!-- END generated: ([A-Za-z0-9._-]+) -->$")

ANCHOR_NAMES = {"openblas": "OpenBLAS", "cublas": "cuBLAS", "cublas-tf32": "cuBLAS TF32",
                "cublas+copies": "cuBLAS + copies"}
SUMMARY_ONLY_RECORDS = 24  # spmv runs longer than this are summarised, not tabled
AUTO_MISS = 1.10           # AUTO counts as a miss above this factor of the fastest format


class Problem(Exception):
    """A document or results folder the script cannot reconcile (exit status 2)."""


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def ratio_text(value):
    """Three significant digits, trailing zeros kept: 0.985, 1.00, 25.6."""
    if value is None:
        return "-"
    return f"{value:.1f}" if value >= 9.995 else f"{value:.2f}" if value >= 0.9995 else f"{value:.3f}"


def error_text(value):
    return "-" if value is None else f"{value:.1e}"


def table(header, rows, text_columns):
    """Markdown table; the columns named in `text_columns` left-aligned, the others right."""
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if h in text_columns else "---:" for h in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def kind_of(doc):
    tool = doc.get("tool", {})
    if tool.get("command") == "gemm":
        return "gemm"
    if tool.get("subcommand") == "spmv":
        return "cuda-spmv" if tool.get("backend") == "cuda" else "cpu-spmv"
    return None


# ---- gemm ----------------------------------------------------------------------------------

def shape_text(r):
    m, n, k = r["m"], r["n"], r["k"]
    text = f"{m}³" if m == n == k else f"{m}×{n}×{k}"
    op = r.get("transa", "N") + r.get("transb", "N")
    if op != "NN":
        text += f" {op}"
    if r.get("layout") == "row":
        text += " row"
    return text


def gemm_block(doc):
    records = [r for r in bench_json.gemm_records(doc) if r.get("backend") != "reference"]
    if not records:
        raise Problem("no gemm records besides the reference backend")
    on_gpu = all(r.get("backend") == "cuda" for r in records)
    unit, scale = ("TFLOP/s", 1e-3) if on_gpu else ("GFLOP/s", 1.0)
    anchors = sorted({(r.get("anchor") or {}).get("name") for r in records} - {None})
    anchor = " / ".join(ANCHOR_NAMES.get(a, a) for a in anchors) or "anchor"
    host = any(a.endswith("+copies") for a in anchors)
    math_mode = ((doc.get("cuda") or {}).get("kernels") or {}).get("TESSERA_CUDA_MATH")
    with_errors = on_gpu and math_mode in ("tf32", "tf32x3")
    with_blis = any(r.get("ratio_blis") is not None for r in records)

    lines = [f"**Machine:** {bench_json.machine_line(doc)}  ",
             f"**Measured:** {bench_json.date(doc)} (UTC)  "]
    if on_gpu:
        cuda = doc.get("cuda") or {}
        forced = [f"{k}={v}" for k, v in sorted((cuda.get("kernels") or {}).items()) if v]
        lines.append(f"**CUDA:** kernels {', '.join(forced) if forced else 'automatic'}; cuBLAS math "
                     f"{', '.join(cuda.get('cublas_math') or ['fp32'])}; operands "
                     f"{'in pageable host memory, end to end' if host else 'on the device'}; "
                     f"reference {cuda.get('reference', '?')}  ")
    else:
        peaks = []
        for dtype in ("s", "d"):
            best = bench_json.peak_best(doc, dtype)
            if best and best[0]:
                peaks.append(f"{dtype}gemm {number(best[0])} GFLOP/s ({best[1]}, "
                             f"{bench_json.threads_text(best[2])})")
        if peaks:
            lines.append("**Peak (measured FMA throughput):** " + ", ".join(peaks) + "  ")
        for warning in (doc.get("peak") or {}).get("warnings", []):
            lines.append(f"**Warning (peak check):** {warning}  ")
    lines.append("")

    routines = [x for x in ("sgemm", "dgemm") if any(r["routine"] == x for r in records)]
    rows, by_key = [], {}
    for r in records:
        key = (shape_text(r), r.get("backend"))
        if key not in by_key:
            by_key[key] = {}
            rows.append(key)
        by_key[key][r["routine"]] = r

    header = ["shape", "backend"]
    for x in routines:
        header += [f"{x} {unit}", f"{anchor} {unit}", "ratio"]
        if with_blis:
            header.append("BLIS ratio")
        if host:
            header += [f"{x} ms", f"{anchor} ms"]
        if with_errors:
            header += ["error", f"{anchor} error"]
    per_routine = (len(header) - 2) // len(routines)

    body = []
    for key in rows:
        cells = [key[0], key[1]]
        for x in routines:
            r = by_key[key].get(x)
            if r is None or r.get("status") != "ok":
                note = "-" if r is None else (r.get("status") or "failed")
                cells += [note] + ["-"] * (per_routine - 1)
                continue
            ours, anc = r.get("ours") or {}, r.get("anchor") or {}
            rate = lambda side: number(side["gflops"] * scale) if side.get("gflops") else "-"  # noqa: E731
            cells += [rate(ours), rate(anc), ratio_text(r.get("ratio"))]
            if with_blis:
                cells.append(ratio_text(r.get("ratio_blis")))
            if host:
                ms = lambda side: number(side["median_s"] * 1e3) if side.get("median_s") else "-"  # noqa: E731
                cells += [ms(ours), ms(anc)]
            if with_errors:
                cells += [error_text(ours.get("rel_error")), error_text(anc.get("rel_error"))]
        body.append(cells)
    lines += table(header, body, {"shape", "backend"})
    lines.append("")

    summary = []
    for x in routines:
        ok = [r for r in records if r["routine"] == x and r.get("status") == "ok"]
        mean = geomean([r.get("ratio") for r in ok])
        if mean is not None:
            summary.append(f"{x} {ratio_text(mean)} over {len(ok)} shapes")
    if summary:
        lines.append(f"Geometric mean of the ratios to {anchor}: " + "; ".join(summary) + ".")
    errors = []
    for x in routines:
        ok = [r for r in records if r["routine"] == x and r.get("status") == "ok"]
        pairs = [((r.get("ours") or {}).get("rel_error"), (r.get("anchor") or {}).get("rel_error"))
                 for r in ok]
        pairs = [(o, a) for o, a in pairs if o is not None and a is not None]
        if pairs:
            at_or_below = sum(1 for o, a in pairs if o <= a * 1.05)
            errors.append(f"{x} up to {error_text(max(o for o, _ in pairs))} ({anchor} "
                          f"{error_text(max(a for _, a in pairs))}), Tessera's within 5% of the "
                          f"anchor's or below on {at_or_below} of {len(pairs)}")
    if errors:
        lines.append("Relative errors: " + "; ".join(errors) + ".")
    return lines


# ---- spmv ----------------------------------------------------------------------------------

def side(record, name):
    for s in record.get("sides", []):
        if s.get("name") == name:
            return s
    return None


def ok(s):
    return s is not None and s.get("status") == "ok"


def type_text(r):
    return ("float32" if r.get("dtype") == "s" else "float64") + f", i{r.get('index_bits', 32)}"


def nnz_text(nnz):
    return f"{nnz / 1e6:.1f} M" if nnz >= 1e6 else str(nnz)


def percent(part, whole):
    return f"{100 * part / whole:.0f}%" if part and whole else "-"


def auto_summary(records, label):
    """'LABEL: AUTO within 10% of the fastest format on a of b (misses: ...)'."""
    judged = [r for r in records if r.get("auto_over_best")]
    misses = sorted((r for r in judged if r["auto_over_best"] > AUTO_MISS),
                    key=lambda r: -r["auto_over_best"])
    several_types = len({r.get("dtype") for r in records}) > 1
    text = (f"{label}: AUTO within 10% of the fastest format on {len(judged) - len(misses)} of "
            f"{len(judged)}")
    if misses:
        text += " (misses: " + ", ".join(
            f"{r.get('matrix')}{' ' + type_text(r).split(',')[0] if several_types else ''} "
            f"{r['auto_over_best']:.2f} ({(side(r, 'auto') or {}).get('format', '?')}, fastest "
            f"{r.get('best_format', '?')})" for r in misses) + ")"
    return text


def cpu_spmv_block(doc):
    records = [r for r in doc.get("records", []) if r.get("benchmark") == "spmv"]
    m = doc.get("machine", {})
    triad = doc.get("triad") or {}
    lines = [f"**Machine:** {m.get('cpu_model', '?')}, {m.get('logical_cpus', '?')} logical CPUs; "
             f"{bench_json.threads_text(doc.get('threads'))}; anchor {doc.get('anchor', 'none')}; "
             f"Tessera {doc.get('tool', {}).get('tessera_version', '?')}  ",
             f"**Measured:** {bench_json.date(doc)} (UTC)  "]
    if triad.get("median_gbs"):
        lines.append(f"**STREAM triad alone:** {number(triad['median_gbs'])} GB/s (median)  ")
    lines.append("")
    if len(records) <= SUMMARY_ONLY_RECORDS:
        body = []
        for r in records:
            csr, auto, eigen = side(r, "csr"), side(r, "auto"), side(r, "eigen")
            body.append([r.get("matrix", "?"), nnz_text(r.get("nnz", 0)), type_text(r),
                         r.get("op", "n").upper(),
                         number(csr["gbs"]) if ok(csr) else "-",
                         percent(csr.get("gbs") if ok(csr) else None, r.get("triad_gbs")),
                         (auto or {}).get("format", "-"), r.get("best_format", "-"),
                         ratio_text(r.get("auto_over_best")),
                         number(eigen["gbs"]) if ok(eigen) else "-",
                         ratio_text(r.get("csr_over_eigen") or None)])
        lines += table(["matrix", "nnz", "type", "op", "CSR GB/s", "CSR / triad", "AUTO chose",
                        "fastest", "AUTO / fastest", "Eigen GB/s", "CSR / Eigen"], body,
                       {"matrix", "type", "op", "AUTO chose", "fastest"})
        lines.append("")
    else:
        matrices = len({r.get("matrix") for r in records})
        lines.append(f"{len(records)} records ({matrices} matrices); per record the JSON holds every "
                     "format's time, bandwidth and error.")
        lines.append("")
    for op in sorted({r.get("op", "n") for r in records}):
        of_op = [r for r in records if r.get("op", "n") == op]
        text = "- " + auto_summary(of_op, f"op {op.upper()}")
        mean = geomean([r.get("csr_over_eigen") for r in of_op])
        if mean is not None:
            text += f"; CSR / Eigen geometric mean {ratio_text(mean)}"
        lines.append(text + ".")
    return lines


def cuda_spmv_block(doc):
    records = [r for r in doc.get("records", []) if r.get("backend") == "cuda"]
    dev, copy = doc.get("device", {}), doc.get("copy", {})
    lines = [f"**Device:** {dev.get('name', '?')} (compute capability {dev.get('compute_capability', '?')}, "
             f"{dev.get('sms', '?')} SMs, driver {dev.get('driver_version', '?')}, runtime "
             f"{dev.get('runtime_version', '?')}); host {doc.get('machine', {}).get('cpu_model', '?')}; "
             f"anchor {doc.get('anchor', 'none')}; Tessera {doc.get('tool', {}).get('tessera_version', '?')}  ",
             f"**Measured:** {bench_json.date(doc)} (UTC)  "]
    if copy.get("median_gbs"):
        lines.append(f"**Device copy alone:** {number(copy['median_gbs'])} GB/s (median, read + write)  ")
    lines.append("")
    body = []
    for r in records:
        csr, auto = side(r, "csr"), side(r, "auto")
        best = side(r, r.get("cusparse_best", ""))
        body.append([r.get("matrix", "?"), type_text(r), r.get("op", "n").upper(),
                     percent(csr.get("gbs") if ok(csr) else None, r.get("copy_gbs")),
                     (auto or {}).get("format", "-"),
                     percent(auto.get("gbs") if ok(auto) else None, r.get("copy_gbs")),
                     ratio_text(r.get("auto_over_best")),
                     (best or {}).get("name", "-").replace("cusparse-", ""),
                     ratio_text(r.get("auto_vs_cusparse_best")),
                     ratio_text(r.get("csr_vs_cusparse_csr_alg1"))])
    lines += table(["matrix", "type", "op", "CSR / copy", "AUTO chose", "AUTO / copy",
                    "AUTO / fastest", "cuSPARSE best", "AUTO vs it", "CSR vs CSR ALG1"], body,
                   {"matrix", "type", "op", "AUTO chose", "cuSPARSE best"})
    lines.append("")
    means = []
    for dtype, name in (("s", "float32"), ("d", "float64")):
        mean = geomean([r.get("auto_vs_cusparse_best") for r in records if r.get("dtype") == dtype])
        if mean is not None:
            means.append(f"{name} {ratio_text(mean)}")
    if means:
        lines.append("Geometric mean of AUTO against cuSPARSE's best (its time over ours): "
                     + ", ".join(means) + ".")
    lines.append(auto_summary(records, "All records") + ".")
    return lines


BLOCKS = {"gemm": gemm_block, "cpu-spmv": cpu_spmv_block, "cuda-spmv": cuda_spmv_block}


def generate(path, doc):
    kind = kind_of(doc)
    if kind is None:
        raise Problem(f"{path}: no table for this kind of tessera-bench run "
                      f"(tool {doc.get('tool')})")
    try:
        return BLOCKS[kind](doc)
    except Problem as e:
        raise Problem(f"{path}: {e}") from None


# ---- the document --------------------------------------------------------------------------

def split_blocks(text, doc_path):
    """[(name, start line, end line)] of the marked blocks, markers included."""
    blocks, open_name, open_at = [], None, None
    for i, line in enumerate(text.split("\n")):
        if BEGIN.match(line):
            if open_name:
                raise Problem(f"{doc_path}:{i + 1}: BEGIN inside the block of {open_name}")
            open_name, open_at = BEGIN.match(line).group(1), i
        elif END.match(line):
            name = END.match(line).group(1)
            if name != open_name:
                raise Problem(f"{doc_path}:{i + 1}: END of {name} without its BEGIN")
            blocks.append((name, open_at, i))
            open_name = None
    if open_name:
        raise Problem(f"{doc_path}:{open_at + 1}: BEGIN of {open_name} without its END")
    names = [b[0] for b in blocks]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise Problem(f"{doc_path}: more than one block for {', '.join(twice)}")
    return blocks


def rewrite(text, tables, doc_path):
    lines = text.split("\n")
    blocks = split_blocks(text, doc_path)
    names = {b[0] for b in blocks}
    missing_json = sorted(names - set(tables))
    if missing_json:
        raise Problem(f"{doc_path}: blocks without a results file: "
                      + ", ".join(f"{n}.json" for n in missing_json))
    missing_block = sorted(set(tables) - names)
    if missing_block:
        raise Problem(f"{doc_path}: no block for " + ", ".join(f"{n}.json" for n in missing_block)
                      + " (add '<!-- BEGIN generated: NAME -->' and '<!-- END generated: NAME -->')")
    stale, out, at = [], [], 0
    for name, begin, end in blocks:
        new = tables[name]
        if lines[begin + 1:end] != new:
            stale.append(name)
        out += lines[at:begin + 1] + new
        at = end
    out += lines[at:]
    return "\n".join(out), stale


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a block is out of date")
    parser.add_argument("--results", default=os.path.join(ROOT, "docs", "results"),
                        help="folder of NAME.json files (default: docs/results)")
    parser.add_argument("--doc", default=os.path.join(ROOT, "docs", "performance.md"),
                        help="the document to rewrite (default: docs/performance.md)")
    args = parser.parse_args()
    try:
        paths = sorted(os.path.join(args.results, f) for f in os.listdir(args.results)
                       if f.endswith(".json"))
        tables = {os.path.basename(p)[:-len(".json")]: generate(p, doc)
                  for p, doc in bench_json.load(paths)}
        with open(args.doc, encoding="utf-8") as f:
            text = f.read()
        new_text, stale = rewrite(text, tables, args.doc)
    except (Problem, OSError) as e:
        print(f"perf_tables.py: {e}", file=sys.stderr)
        return 2
    shown = os.path.relpath(args.doc)
    if args.check:
        if stale:
            print(f"{shown}: out of date: {', '.join(stale)}; run python3 scripts/perf_tables.py",
                  file=sys.stderr)
            return 1
        print(f"{shown}: {len(tables)} generated blocks, all current")
        return 0
    if new_text != text:
        with open(args.doc, "w", encoding="utf-8") as f:
            f.write(new_text)
        print(f"{shown}: rewrote {', '.join(stale)}")
    else:
        print(f"{shown}: {len(tables)} generated blocks, all current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
