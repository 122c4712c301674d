# Reading tessera-bench JSON files for plot.py and the table scripts (perf_table.py,
# spmv_gpu_table.py, gemm_variants.py): loading, the machine line, the measured peak, the gemm
# records with their contenders, and where a script's text goes, in one place.
"""Shared helpers for the tessera-bench JSON readers (plot.py and the table scripts)."""

import json
import sys


def emit(text, output):
    """Writes `text` to the file `output`, or to stdout when `output` is None or empty."""
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def load(paths):
    """Returns [(path, document)] for each file; exits with a message on a bad file."""
    documents = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"{path}: cannot read tessera-bench JSON: {e}")
        if doc.get("tool", {}).get("name") != "tessera-bench":
            sys.exit(f"{path}: not a tessera-bench JSON file (no tool.name)")
        documents.append((path, doc))
    return documents


def threads(doc):
    return (doc.get("threads") or {}).get("count")


def threads_text(count):
    """'1 thread', '2 threads'."""
    return f"{count} thread" + ("" if count == 1 else "s")


def machine_line(doc):
    """One line: CPU, cores, features, threads, kernel, compiler and the libraries."""
    m = doc.get("machine", {})
    parts = [f"{m.get('cpu_model', 'unknown CPU')}, {m.get('logical_cpus', '?')} logical CPUs "
             f"({m.get('cpu_features', '')})",
             threads_text(threads(doc)),
             m.get("kernel", ""), m.get("compiler", ""),
             f"Tessera {doc.get('tool', {}).get('tessera_version', '?')}"]
    anchor = doc.get("anchor") or {}
    if anchor.get("name") == "openblas":
        parts.append(f"OpenBLAS core {anchor.get('corename')} ({anchor.get('config', '').strip()})")
    blis = doc.get("blis") or {}
    if blis.get("name") == "blis":
        parts.append(blis.get("config") or f"BLIS {blis.get('version')}")
    return "; ".join(p for p in parts if p)


def date(doc):
    return doc.get("machine", {}).get("date", "")


def peak_best(doc, dtype):
    """(GFLOP/s, isa, threads) of the best measured peak for 's' or 'd', or None."""
    peak = doc.get("peak") or {}
    best = (peak.get("best") or {}).get(dtype)
    if not best:
        return None
    return best.get("gflops"), best.get("isa"), best.get("threads")


def gemm_records(doc):
    return [r for r in doc.get("records", []) if r.get("benchmark") == "gemm"]


def side_gflops(record, side):
    """GFLOP/s of 'ours', 'anchor' (OpenBLAS) or 'blis' in a record, or None."""
    s = record.get(side)
    return s.get("gflops") if isinstance(s, dict) else None


def side_error(record, side):
    s = record.get(side)
    return s.get("rel_error") if isinstance(s, dict) else None
