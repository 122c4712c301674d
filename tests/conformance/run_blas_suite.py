#!/usr/bin/env python3
# Runs one of Debian's reference BLAS test programs (libblas-test) in full against Tessera as
# the program's libblas.so.3 (the way the distribution's alternatives select it) and judges the
# report and the call log; exit 77 means "skipped".
"""Full reference BLAS/CBLAS test programs against Tessera's complete BLAS.

The program's NEEDED libblas.so.3 is Tessera: --library names either the
system-BLAS directory's libblas.so.3 (the filter library of libtessera.so.0 that
the alternatives select), whose directory goes on LD_LIBRARY_PATH, or
libtessera.so.0 itself, linked as libblas.so.3 from a temporary directory.
Nothing else is preloaded (but --preload-first, for a sanitizer's runtime). Tessera serves
the routines it implements and forwards the rest to the backing BLAS named
with --fallback (TESSERA_FALLBACK_BLAS; by default the reference BLAS, so the
forwarded routines are judged against the reference semantics too). The run
passes when

  * the program exits 0 within the timeout and its report has no failure line;
  * Level 1: every subprogram prints PASS; Levels 2 and 3: "END OF TESTS" and
    every routine the input enables reports its passes (both layouts for CBLAS);
  * the call log (TESSERA_VERBOSE=1) shows each enabled routine served by the
    right party: Tessera's own line ("tessera: dgemm col ...") for the names
    api/blas_symbols.txt marks `own`, "tessera: <name> forwarded to <fallback>"
    for the others.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

SKIP = 77

# program -> (Debian's input file or None, report file the input names or None for stdout)
PROGRAMS = {
    "xblat1s": (None, None), "xblat1d": (None, None),
    "xscblat1": (None, None), "xdcblat1": (None, None),
    "xblat2s": ("sblat2.in", "sblat2.out"), "xblat2d": ("dblat2.in", "dblat2.out"),
    "xscblat2": ("sin2", None), "xdcblat2": ("din2", None),
    "xblat3s": ("sblat3.in", "sblat3.out"), "xblat3d": ("dblat3.in", "dblat3.out"),
    "xscblat3": ("sin3", None), "xdcblat3": ("din3", None),
}

FAILURE = re.compile(r"FAIL|SUSPECT|FATAL|NOT DETECTED|ABANDONED|INSTEAD OF|NOT RECOGNIZED|"
                     r"WILL NOT BE TESTED|CHANGED INCORRECTLY|error while loading|"
                     r"symbol lookup error|Fortran runtime error")
# An enabled routine in an input file: "DGEMV  T PUT F FOR NO TEST" or "cblas_dgemv  T ...".
ENABLED = re.compile(r"^\s*'?((?:cblas_)?[A-Za-z][A-Za-z0-9]*)'?\s+T\b")
OWN_LINE = re.compile(r"^tessera: (\w+) (?:col|row|[NTC]) ")
FORWARD_LINE = re.compile(r"^tessera: (\w+) forwarded to (\S+)$")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("program", choices=sorted(PROGRAMS))
    p.add_argument("--library", required=True,
                   help="Tessera's libblas.so.3 (filter) or libtessera.so.0 to stand as libblas.so.3")
    p.add_argument("--symbols", required=True, help="src/api/blas_symbols.txt")
    p.add_argument("--test-dir", default="/usr/lib/x86_64-linux-gnu/blas")
    p.add_argument("--fallback", default=None,
                   help="backing BLAS for the forwarded routines (default: TEST_DIR/libblas.so.3)")
    p.add_argument("--preload-first", action="append", default=[])
    p.add_argument("--timeout", type=float, default=600.0)
    return p.parse_args()


def own_names(path):
    own = set()
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and not line.startswith("#") and parts[1] == "own":
                own.add(parts[0])
    return own


def enabled_routines(input_path):
    names = []
    with open(input_path) as f:
        for line in f:
            m = ENABLED.match(line)
            if m and (m.group(1).startswith("cblas_") or m.group(1).isupper()):
                names.append(m.group(1))
    return names


def symbol_of(routine):
    """The exported name a routine of the report is called through."""
    return routine if routine.startswith("cblas_") else routine.lower() + "_"


class Tally(threading.Thread):
    """Counts the call log's lines per routine while the program runs (never stores them)."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream, self.own, self.forwarded, self.other = stream, {}, {}, []
        self.start()

    def run(self):
        for raw in self.stream:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            m = FORWARD_LINE.match(line)
            if m:
                key = (m.group(1), m.group(2))
                self.forwarded[key] = self.forwarded.get(key, 0) + 1
                continue
            m = OWN_LINE.match(line)
            if m:
                self.own[m.group(1)] = self.own.get(m.group(1), 0) + 1
            elif len(self.other) < 40:
                self.other.append(line)


def main():
    a = parse_args()
    input_name, report_name = PROGRAMS[a.program]
    program = os.path.join(a.test_dir, a.program)
    fallback = os.path.realpath(a.fallback or os.path.join(a.test_dir, "libblas.so.3"))
    if not os.access(program, os.X_OK):
        print(f"SKIP: {program} is not installed (Debian package libblas-test)")
        return SKIP
    if not os.path.exists(fallback):
        print(f"SKIP: the backing BLAS {fallback} is not installed (Debian package libblas3)")
        return SKIP
    own = own_names(a.symbols)
    work = tempfile.mkdtemp(prefix=f"tessera-{a.program}-")
    try:
        if os.path.basename(a.library) == "libblas.so.3":
            blas_dir = os.path.dirname(os.path.abspath(a.library))
        else:
            blas_dir = work
            os.symlink(os.path.realpath(a.library), os.path.join(work, "libblas.so.3"))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LD_", "TESSERA_"))}
        env.update(LD_LIBRARY_PATH=blas_dir, TESSERA_VERBOSE="1", TESSERA_FALLBACK_BLAS=fallback)
        if a.preload_first:
            env["LD_PRELOAD"] = " ".join(os.path.abspath(p) for p in a.preload_first)
        stdin = open(os.path.join(a.test_dir, input_name)) if input_name else subprocess.DEVNULL
        out_path = os.path.join(work, "stdout.txt")
        with open(out_path, "wb") as out:
            proc = subprocess.Popen([program], cwd=work, env=env, stdin=stdin, stdout=out,
                                    stderr=subprocess.PIPE)
            tally = Tally(proc.stderr)
            try:
                proc.wait(timeout=a.timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                print(f"FAIL: {a.program} ran past {a.timeout:.0f} s")
                return 1
        tally.join()
        with open(out_path, errors="replace") as f:
            report = f.read()
        if report_name:
            with open(os.path.join(work, report_name), errors="replace") as f:
                report += f.read()
        return judge(a, proc.returncode, report, tally, own, fallback, input_name)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def judge(a, rc, report, tally, own, fallback, input_name):
    problems = []
    if rc != 0:
        problems.append(f"exit status {rc}")
    bad = [line.strip() for line in report.splitlines() if FAILURE.search(line)]
    problems += [f"report: {line}" for line in bad[:20]]
    problems += [f"stderr: {line}" for line in tally.other if FAILURE.search(line)]
    text = " ".join(report.split())
    if input_name is None:  # Level 1: one PASS per subprogram, no input
        routines = []
        if text.count("PASS") < 10:
            problems.append("fewer than 10 subprograms reported PASS")
    else:
        if "END OF TESTS" not in text:
            problems.append("no END OF TESTS")
        routines = enabled_routines(os.path.join(a.test_dir, input_name))
        for r in routines:
            wanted = ([f"{r} PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS",
                       f"{r} PASSED THE ROW-MAJOR COMPUTATIONAL TESTS"]
                      if r.startswith("cblas_") else [f"{r} PASSED THE COMPUTATIONAL TESTS"])
            for w in wanted:
                if w not in text:
                    problems.append(f"missing: {w}")
    served_own = forwarded = 0
    for r in routines:
        sym = symbol_of(r)
        if sym in own:
            name = sym.removeprefix("cblas_").rstrip("_")
            served_own += 1
            if not tally.own.get(name):
                problems.append(f"{sym} is Tessera's, but the call log has no 'tessera: {name}' line")
        else:
            forwarded += 1
            if not tally.forwarded.get((sym, fallback)):
                problems.append(f"no 'tessera: {sym} forwarded to {fallback}' line in the call log")
    if not tally.forwarded:
        problems.append("no forwarded call in the call log")
    elsewhere = sorted({lib for (_, lib) in tally.forwarded if lib != fallback})
    if elsewhere:
        problems.append(f"calls forwarded to another library than {fallback}: {elsewhere}")
    calls = sum(tally.forwarded.values())
    print(f"{a.program}: {len(routines)} routines enabled ({served_own} Tessera's, {forwarded} "
          f"forwarded); call log: {sum(tally.own.values())} calls served by Tessera, {calls} "
          f"forwarded to {fallback}")
    for p in problems:
        print(f"FAIL: {p}")
    print("PASS" if not problems else "FAILED")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
