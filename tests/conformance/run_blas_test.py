#!/usr/bin/env python3
# Runs one Debian libblas-test Level-2 or Level-3 program with Tessera preloaded over the reference BLAS and
# judges its printed report (the programs exit 0 even when tests fail); exit 77 means "skipped".
"""Conformance runner for the BLAS Level-2 and Level-3 test programs.

The program reads the input file from stdin in a fresh temporary directory.
The Fortran programs (xblat2s, xblat3s, ...) write their whole report to the summary
file named on the first input line (unit 6 is reopened onto it); the CBLAS
programs (xscblat2, xscblat3, ...) print theirs on stdout. The run passes when

  * the program exits 0 within the timeout and prints "END OF TESTS";
  * every enabled routine reports that it passed the error-exit tests and the
    computational tests (both layouts for the CBLAS programs);
  * no report line carries a failure marker (FAILED, SUSPECT, FATAL, ...);
  * the dynamic loader preloaded everything it was asked to;
  * with TESSERA_VERBOSE=1, stderr holds "tessera: <routine>" call lines
    (counted while streaming, never stored), unless --no-verbose-check.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TEST_DIR = "/usr/lib/x86_64-linux-gnu/blas"

# program -> (input file, enabled routine as printed, report file or None for stdout,
#             Tessera routine name in the call log, is CBLAS)
PROGRAMS = {
    "xblat2s": ("sblat2_gemv.in", "SGEMV", "SBLAT2.SUMM", "sgemv", False),
    "xblat2d": ("dblat2_gemv.in", "DGEMV", "DBLAT2.SUMM", "dgemv", False),
    "xscblat2": ("scblat2_gemv.in", "cblas_sgemv", None, "sgemv", True),
    "xdcblat2": ("dcblat2_gemv.in", "cblas_dgemv", None, "dgemv", True),
    "xblat3s": ("sblat3_gemm.in", "SGEMM", "SBLAT3.SUMM", "sgemm", False),
    "xblat3d": ("dblat3_gemm.in", "DGEMM", "DBLAT3.SUMM", "dgemm", False),
    "xscblat3": ("scblat3_gemm.in", "cblas_sgemm", None, "sgemm", True),
    "xdcblat3": ("dcblat3_gemm.in", "cblas_dgemm", None, "dgemm", True),
}

# Any report line containing one of these means a test did not pass.
FAILURE_MARKERS = (
    "FAILED",
    "SUSPECT",
    "FATAL",
    "NOT DETECTED",
    "ABANDONED",
    "XERBLA WAS CALLED WITH",
    "NOT RECOGNIZED",
    "WILL NOT BE TESTED",
    "CHANGED INCORRECTLY",
)

# stderr lines from the loader or the Fortran runtime that spoil a run.
STDERR_MARKERS = ("cannot be preloaded", "Fortran runtime error", "error while loading")

CALL_LOG = re.compile(r"^tessera: (\w+) (col|row)\b")
BACKEND_FIELD = re.compile(r"\bbackend=(\S+)")


def squeeze(line):
    """Collapse runs of blanks so that column alignment does not matter."""
    return " ".join(line.split())


def required_lines(routine, cblas):
    lines = [f"{routine} PASSED THE TESTS OF ERROR-EXITS"]
    if cblas:
        lines.append(f"{routine} PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS")
        lines.append(f"{routine} PASSED THE ROW-MAJOR COMPUTATIONAL TESTS")
    else:
        lines.append(f"{routine} PASSED THE COMPUTATIONAL TESTS")
    lines.append("END OF TESTS")
    return lines


class StderrTally:
    """Reads the child's stderr line by line: counts Tessera call lines, keeps a few others."""

    KEEP = 60

    def __init__(self, stream):
        self.stream = stream
        self.calls = {}  # (routine, layout) -> count
        self.backends = {}  # (routine, backend) -> count
        self.other = []  # non-call lines, first KEEP of them
        self.other_total = 0
        self.bad = []  # lines matching STDERR_MARKERS
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        for raw in self.stream:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            m = CALL_LOG.match(line)
            if m:
                key = (m.group(1), m.group(2))
                self.calls[key] = self.calls.get(key, 0) + 1
                b = BACKEND_FIELD.search(line, m.end())
                key = (m.group(1), b.group(1) if b else "?")
                self.backends[key] = self.backends.get(key, 0) + 1
                continue
            self.other_total += 1
            if len(self.other) < self.KEEP:
                self.other.append(line)
            if any(s in line for s in STDERR_MARKERS) and len(self.bad) < self.KEEP:
                self.bad.append(line)

    def count(self, routine):
        return sum(n for (r, _), n in self.calls.items() if r == routine)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("program", choices=sorted(PROGRAMS), help="which libblas-test program to run")
    p.add_argument("--library", required=True,
                   help="library to preload in front of the reference BLAS (libtessera.so.0)")
    p.add_argument("--test-dir", default=DEFAULT_TEST_DIR,
                   help="where the libblas-test programs live (default: %(default)s)")
    p.add_argument("--reference-blas", default=None,
                   help="reference BLAS that serves every other symbol (default: TEST_DIR/libblas.so.3)")
    p.add_argument("--input", default=None, help="input file (default: the one next to this script)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds before the run is killed")
    p.add_argument("--backend", default=None, help="set TESSERA_BACKEND for the run")
    p.add_argument("--no-verbose-check", action="store_true",
                   help="do not require 'tessera: <routine>' lines on stderr (for a non-Tessera --library)")
    p.add_argument("--preload-first", action="append", default=[],
                   help="library to preload before everything else (e.g. the ASan runtime); repeatable")
    p.add_argument("--keep-workdir", action="store_true", help="leave the temporary directory behind")
    return p.parse_args()


def skip(message):
    print(f"SKIP: {message}")
    sys.exit(SKIP)


def main():
    args = parse_args()
    input_name, routine, report_name, log_routine, cblas = PROGRAMS[args.program]
    program = os.path.join(args.test_dir, args.program)
    reference = args.reference_blas or os.path.join(args.test_dir, "libblas.so.3")
    input_file = args.input or os.path.join(HERE, input_name)

    if not os.access(program, os.X_OK):
        skip(f"{program} is not installed (Debian package libblas-test)")
    if not os.path.exists(reference):
        skip(f"reference BLAS {reference} is not installed (Debian package libblas3)")
    library = os.path.abspath(args.library)
    if not os.path.exists(library):
        print(f"FAIL: library to test {library} does not exist")
        return 1
    if not os.path.exists(input_file):
        print(f"FAIL: input file {input_file} does not exist")
        return 1
    first = [os.path.abspath(p) for p in args.preload_first]
    for path in first + [library, reference]:
        if any(c in path for c in " :"):
            print(f"FAIL: LD_PRELOAD cannot carry a path with blanks or colons: {path}")
            return 1

    env = dict(os.environ)
    # Tessera first, then the reference BLAS: every symbol Tessera does not export
    # (other routines, xerbla_ if the program had none) comes from the reference,
    # and the program's NEEDED libblas.so.3 is satisfied by the preloaded reference
    # (same soname), so the system's alternative (often OpenBLAS) is never loaded.
    env["LD_PRELOAD"] = " ".join(first + [library, reference])
    ref_dir = os.path.dirname(reference)
    env["LD_LIBRARY_PATH"] = ref_dir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    env["TESSERA_VERBOSE"] = "1"
    if args.backend:
        env["TESSERA_BACKEND"] = args.backend
    for k in ("LD_DEBUG", "LD_TRACE_LOADED_OBJECTS"):
        env.pop(k, None)

    workdir = tempfile.mkdtemp(prefix=f"tessera-{args.program}-")
    try:
        return run(args, program, input_file, routine, report_name, log_routine, cblas, env, workdir,
                   library, reference)
    finally:
        if args.keep_workdir:
            print(f"(work directory kept: {workdir})")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def loaded_objects(program, env, workdir):
    """Ask the dynamic loader which objects the program would load, with this environment."""
    trace_env = dict(env, LD_TRACE_LOADED_OBJECTS="1")
    out = subprocess.run([program], env=trace_env, cwd=workdir, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    return out.stdout.decode("utf-8", "replace")


def run(args, program, input_file, routine, report_name, log_routine, cblas, env, workdir, library, reference):
    problems = []
    details = []

    # Preflight: the library under test and the reference BLAS are both loaded, and the
    # program's libblas.so.3 is not some other BLAS.
    trace = loaded_objects(program, env, workdir)
    real = {os.path.realpath(p) for p in re.findall(r"=> (\S+)", trace)}
    real |= {os.path.realpath(p) for p in re.findall(r"^\s*(/\S+)", trace, re.M)}
    for want in (library, reference):
        if os.path.realpath(want) not in real:
            problems.append(f"the loader does not load {want}")
    if problems or "cannot be preloaded" in trace:
        details += ["loader trace:"] + ["  " + l for l in trace.splitlines()]

    stdout_path = os.path.join(workdir, "stdout.txt")
    with open(input_file, "rb") as stdin, open(stdout_path, "wb") as stdout:
        proc = subprocess.Popen([program], cwd=workdir, env=env, stdin=stdin, stdout=stdout,
                                stderr=subprocess.PIPE, start_new_session=True)
        tally = StderrTally(proc.stderr)
        timed_out = False
        try:
            rc = proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
        tally.thread.join(timeout=30)

    if timed_out:
        problems.append(f"timed out after {args.timeout:g} s")
    elif rc != 0:
        problems.append(f"exit status {rc}" + (f" (signal {-rc})" if rc < 0 else ""))

    # The report: stdout plus the summary file (the Fortran programs redirect unit 6 there).
    report = []
    sources = [("stdout", stdout_path)]
    if report_name:
        sources.append((report_name, os.path.join(workdir, report_name)))
    for label, path in sources:
        if os.path.exists(path):
            with open(path, "r", errors="replace") as f:
                report += [(label, l.rstrip("\n")) for l in f]
        elif label != "stdout":
            problems.append(f"the program wrote no {label}")

    squeezed = [squeeze(l) for _, l in report]
    for want in required_lines(routine, cblas):
        if not any(s.startswith(want) for s in squeezed):
            problems.append(f"missing report line: '{want}'")

    bad = [i for i, s in enumerate(squeezed) if any(m in s for m in FAILURE_MARKERS)]
    if bad:
        problems.append(f"{len(bad)} report line(s) with a failure marker")
        shown = set()
        details.append("report lines with failure markers (with the lines that follow them):")
        for i in bad[:40]:
            for j in range(i, min(i + 4, len(report))):
                if j not in shown:
                    shown.add(j)
                    details.append(f"  [{report[j][0]}:{j + 1}] {report[j][1]}")
        if len(bad) > 40:
            details.append(f"  ... and {len(bad) - 40} more")

    if tally.bad:
        problems.append("stderr reports a loader or runtime error")
        details += ["stderr:"] + ["  " + l for l in tally.bad]

    n_calls = tally.count(log_routine)
    layouts = ", ".join(f"{lay}={n}" for (r, lay), n in sorted(tally.calls.items()) if r == log_routine)
    backends = ", ".join(f"{b}={n}" for (r, b), n in sorted(tally.backends.items()) if r == log_routine)
    if backends:
        layouts += "; backend " + backends
    if not args.no_verbose_check and n_calls == 0:
        problems.append(f"no 'tessera: {log_routine}' lines on stderr: Tessera did not serve the calls")

    status = "FAIL" if problems else "PASS"
    print(f"{status}: {args.program} ({routine}) with {args.library}")
    print(f"  Tessera call lines for {log_routine}: {n_calls}" + (f" ({layouts})" if layouts else ""))
    for l in report:
        s = squeeze(l[1])
        if s.startswith(routine + " ") and ("PASSED" in s or "COMPLETED" in s or "FAILED" in s):
            print(f"  {s}")
    if problems:
        for p in problems:
            print(f"  problem: {p}")
        for d in details:
            print(d)
        if tally.other:
            print(f"other stderr lines ({tally.other_total}, first {len(tally.other)}):")
            for l in tally.other:
                print("  " + l)
        if not any(m in s for s in squeezed for m in ("PASSED", "FAILED")):
            print("full report:")
            for label, l in report[:200]:
                print(f"  [{label}] {l}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
