#!/usr/bin/env python3
# Puts GPU gemm runs of several kernel variants side by side (one tessera-bench JSON per
# TESSERA_CUDA_SGEMM / _DGEMM / _MATH setting): ratios to cuBLAS and relative errors, Markdown.
"""Side-by-side table of CUDA gemm kernel variants from tessera-bench JSON files.

usage: gemm_variants.py RUN.json [RUN.json ...] [-o FILE]

Each file is one `tessera-bench --backend cuda` run under one setting of TESSERA_CUDA_SGEMM,
TESSERA_CUDA_DGEMM and TESSERA_CUDA_MATH (the bench records them under "cuda"). For every
routine, shape and op, the table gives cuBLAS FP32 (TF32 off) in TFLOP/s with its error, then
per run Tessera's ratio to cuBLAS FP32 (above 1: faster) and, where the run also timed cuBLAS
with TF32 (--cublas-math fp32,tf32), the ratio to that. A second table lists the relative
errors ||C - C_ref||_F / ||C_ref||_F of each run and of cuBLAS in both modes.
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_json  # noqa: E402


def label(doc, routine):
    """The setting that matters for this routine: 'auto', '128x256', 'tf32x3', ..."""
    kernels = (doc.get("cuda") or {}).get("kernels") or {}
    if routine == "dgemm":
        return "d:" + (kernels.get("TESSERA_CUDA_DGEMM") or "auto")
    math = kernels.get("TESSERA_CUDA_MATH") or "fp32"
    if math.lower() != "fp32":
        return "s:" + math.lower()
    return "s:" + (kernels.get("TESSERA_CUDA_SGEMM") or "auto")


def cublas_sides(record):
    """{'cublas': side, 'cublas-tf32': side} from the record's anchor and anchor_alt."""
    sides = {}
    for key in ("anchor", "anchor_alt"):
        side = record.get(key)
        if isinstance(side, dict) and side.get("name"):
            sides[side["name"]] = side
    return sides


def tflops(value):
    return "-" if value is None else f"{value / 1000:.1f}"


def err(value):
    return "-" if value is None else f"{value:.1e}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", metavar="RUN.json")
    parser.add_argument("-o", "--output", help="write here instead of stdout")
    args = parser.parse_args()

    # rows[routine][(m, n, k, op)][label] = (ours, {cublas name: side})
    rows, labels = {}, {}
    for path, doc in bench_json.load(args.files):
        for r in bench_json.gemm_records(doc):
            if r.get("backend") != "cuda" or r.get("status") != "ok":
                continue
            routine = r["routine"]
            key = (r["m"], r["n"], r["k"], r.get("transa", "N") + r.get("transb", "N")
                   + (" row" if r.get("layout") == "row" else ""))
            name = label(doc, routine)
            labels.setdefault(routine, [])
            if name not in labels[routine]:
                labels[routine].append(name)
            rows.setdefault(routine, {}).setdefault(key, {})[name] = (r.get("ours"), cublas_sides(r))

    out = []
    for routine in sorted(rows):
        names = labels[routine]
        out.append(f"### {routine}\n")
        out.append("| shape | op | cuBLAS TF/s | " + " | ".join(n.split(":", 1)[1] for n in names) + " |")
        out.append("|---|---|---:|" + "---:|" * len(names))
        errors = []
        for key, runs in rows[routine].items():
            m, n, k, op = key
            fp32 = [s["cublas"]["gflops"] for _, s in runs.values() if "cublas" in s]
            anchor = statistics.median(fp32) if fp32 else None
            cells = []
            for name in names:
                if name not in runs:
                    cells.append("-")
                    continue
                ours, sides = runs[name]
                text = "-"
                if ours and "cublas" in sides and sides["cublas"]["gflops"]:
                    text = f"{ours['gflops'] / sides['cublas']['gflops']:.2f}"
                if ours and "cublas-tf32" in sides and sides["cublas-tf32"]["gflops"]:
                    text += f" (tf32 {ours['gflops'] / sides['cublas-tf32']['gflops']:.2f})"
                cells.append(text)
            shape = f"{m}³" if m == n == k else f"{m}×{n}×{k}"
            out.append(f"| {shape} | {op} | {tflops(anchor)} | " + " | ".join(cells) + " |")
            cub = [s["cublas"].get("rel_error") for _, s in runs.values() if "cublas" in s]
            tf = [s["cublas-tf32"].get("rel_error") for _, s in runs.values() if "cublas-tf32" in s]
            errors.append((shape, op, cub[0] if cub else None, tf[0] if tf else None,
                           [(runs[nm][0] or {}).get("rel_error") if nm in runs else None for nm in names]))
        out.append("")
        out.append(f"Relative errors, {routine}:\n")
        out.append("| shape | op | cuBLAS | cuBLAS-tf32 | " + " | ".join(n.split(":", 1)[1] for n in names) + " |")
        out.append("|---|---|---:|---:|" + "---:|" * len(names))
        for shape, op, cub, tf, ours in errors:
            out.append(f"| {shape} | {op} | {err(cub)} | {err(tf)} | " + " | ".join(err(e) for e in ours) + " |")
        out.append("")
    text = "\n".join(out) + "\n"
    bench_json.emit(text, args.output)


if __name__ == "__main__":
    main()
