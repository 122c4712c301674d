#!/usr/bin/env python3
# Drop-in test: the distribution's numpy (cblas_?gemm of libblas.so.3) under LD_PRELOAD=libtessera;
# the log must show Tessera served every product, matching float64 numpy run without the preload.
#
# usage: dropin_numpy.py LIBTESSERA [--backend cpu|cuda]     (exit 0 pass, 1 fail, 77 skip)
import argparse
import ctypes
import os
import re
import secrets
import subprocess
import sys
import tempfile

SKIP = 77


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def test_seed():
    """TESSERA_TEST_SEED (decimal, or hexadecimal after 0x) when set, else a fresh random seed."""
    text = os.environ.get("TESSERA_TEST_SEED", "")
    if not text:
        return secrets.randbits(64)
    hex_ = text[:2] in ("0x", "0X")
    digits = text[2:] if hex_ else text
    allowed = "0123456789abcdefABCDEF" if hex_ else "0123456789"
    if not digits or any(ch not in allowed for ch in digits) or int(digits, 16 if hex_ else 10) >> 64:
        fail(f"TESSERA_TEST_SEED={text!r} is not a 64-bit decimal or 0x-hexadecimal number")
    return int(digits, 16 if hex_ else 10)


def cases(np, seed):
    """(name, a, b) triples; every product numpy hands to cblas_?gemm: C- and Fortran-ordered
    operands, transposed views (passed as transpose flags) and sizes that are not multiples of
    anything."""
    rng = np.random.default_rng(seed)
    out = []
    for dtype in (np.float32, np.float64):
        tag = np.dtype(dtype).name

        def mat(rows, cols, order="C", dtype=dtype):
            return np.asarray(rng.uniform(-1, 1, (rows, cols)), dtype=dtype, order=order)

        out.append((f"{tag} C@C 131x77 @ 77x93", mat(131, 77), mat(77, 93)))
        out.append((f"{tag} F@F 64x64 @ 64x64", mat(64, 64, "F"), mat(64, 64, "F")))
        out.append((f"{tag} A.T@B 50x120 @ 120x33", mat(120, 50).T, mat(120, 33)))
        out.append((f"{tag} A@B.T 257x19 @ 19x65", mat(257, 19), mat(65, 19).T))
        out.append((f"{tag} 300x300 @ 300x300", mat(300, 300), mat(300, 300)))
    return out


def child(directory):
    """Runs under the preload: loads the operands, multiplies, saves the products."""
    import numpy as np

    data = np.load(os.path.join(directory, "operands.npz"))
    results = {}
    for key in sorted(k[:-2] for k in data.files if k.endswith("_a")):
        a, b = data[key + "_a"], data[key + "_b"]
        if data[key + "_ta"]:
            a = a.T
        if data[key + "_tb"]:
            b = b.T
        results[key] = a @ b
    np.savez(os.path.join(directory, "products.npz"), **results)
    with open("/proc/self/maps") as maps:
        mapped = sorted({line.split()[-1] for line in maps if "libtessera" in line})
    print("libtessera mapped in the child: " + (", ".join(mapped) or "no"))


def numpy_blas(np):
    """The BLAS file numpy's core module loaded, and whether it calls cblas_sgemm dynamically."""
    try:
        from numpy._core import _multiarray_umath as core  # numpy >= 2
    except ImportError:
        from numpy.core import _multiarray_umath as core
    with open("/proc/self/maps") as maps:
        libs = sorted({line.split()[-1] for line in maps if "blas" in line.split()[-1]})
    dyn = subprocess.run(["readelf", "--dyn-syms", "-W", core.__file__], capture_output=True,
                         text=True).stdout
    imports = {line.split()[-1].split("@")[0] for line in dyn.splitlines()
               if " UND " in line and "cblas_" in line}
    return core.__file__, libs, imports


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("--backend", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--child", metavar="DIR")
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return 0

    try:
        import numpy as np
    except ImportError:
        print(f"SKIPPED: {sys.executable} has no numpy (Debian: apt-get install python3-numpy)")
        return SKIP
    library = os.path.realpath(args.library)
    seed = test_seed()
    print(f"TESSERA_TEST_SEED={seed} (random operands; set it to replay them)")
    print(f"python: {sys.executable}, numpy {np.__version__}")
    print(f"library: {library}")

    # numpy must reach its BLAS through the dynamic linker, or a preload cannot take the calls.
    core, libs, imports = numpy_blas(np)
    print(f"numpy core module: {core}")
    print(f"BLAS loaded with numpy: {', '.join(libs) or 'none'}")
    if not {"cblas_sgemm", "cblas_dgemm"} <= imports:
        shown = sorted(i for i in imports if "gemm" in i) or sorted(imports)[:4] or ["none"]
        fail(f"this numpy does not import cblas_sgemm and cblas_dgemm from a shared BLAS "
             f"(its gemm imports: {', '.join(shown)}): it carries its own BLAS, so LD_PRELOAD "
             "cannot serve it. Use the distribution's numpy (Debian: python3-numpy with "
             "/usr/bin/python3)")

    if args.backend != "cpu":
        lib = ctypes.CDLL(library)
        lib.tsr_last_error.restype = ctypes.c_char_p
        available = ctypes.c_int(0)
        lib.tsr_backend_available(2, ctypes.byref(available))
        if not available.value:
            print(f"SKIPPED: the {args.backend} backend is not available on this machine: "
                  f"{lib.tsr_last_error().decode()}; run this test where it is (a GPU with the "
                  "CUDA plugin built)")
            return SKIP

    all_cases = cases(np, seed)
    with tempfile.TemporaryDirectory(prefix="tessera-dropin-numpy.") as directory:
        operands = {}
        for i, (_, a, b) in enumerate(all_cases):
            key = f"case{i:02d}"
            # Save the storage and whether the operand is a transposed view of it.
            ta, tb = not a.flags.c_contiguous and a.T.flags.c_contiguous, \
                not b.flags.c_contiguous and b.T.flags.c_contiguous
            operands.update({key + "_a": a.T if ta else a, key + "_b": b.T if tb else b,
                             key + "_ta": ta, key + "_tb": tb})
        np.savez(os.path.join(directory, "operands.npz"), **operands)

        env = dict(os.environ, TESSERA_VERBOSE="1", TESSERA_BACKEND=args.backend)
        env["LD_PRELOAD"] = library + (" " + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
        run = subprocess.run([sys.executable, __file__, library, "--child", directory], env=env,
                             capture_output=True, text=True, timeout=600)
        print(run.stdout, end="")
        log = [line for line in run.stderr.splitlines() if line.startswith("tessera: ")]
        print(f"call log under LD_PRELOAD ({len(log)} lines):")
        for line in log:
            print("  " + line)
        other = [line for line in run.stderr.splitlines() if not line.startswith("tessera: ")]
        if run.returncode != 0:
            print("\n".join(other))
            fail(f"numpy under the preload exited with status {run.returncode}")
        products = np.load(os.path.join(directory, "products.npz"))

        # The log: one line per product, each served by the expected backend.
        counts = {"float32": 0, "float64": 0}
        for name, _, _ in all_cases:
            counts[name.split()[0]] += 1
        for routine, dtype in (("sgemm", "float32"), ("dgemm", "float64")):
            served = [line for line in log if re.match(rf"tessera: {routine} ", line)]
            if len(served) < counts[dtype]:
                fail(f"{len(served)} {routine} line(s) in the log for {counts[dtype]} {dtype} "
                     "products: numpy's calls did not reach Tessera")
            wrong = [line for line in served if f" backend={args.backend} " not in line + " "]
            if wrong:
                fail(f"{routine} calls ran on another backend than {args.backend}: {wrong}")
            print(f"{routine}: {len(served)} call(s) served by Tessera (backend={args.backend})")

        # The results, against float64 numpy without the preload (this process).
        bad = 0
        for i, (name, a, b) in enumerate(all_cases):
            got = products[f"case{i:02d}"].astype(np.float64)
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            ref = a64 @ b64
            scale = np.abs(a64) @ np.abs(b64)
            u = np.finfo(a.dtype).eps / 2
            k = a.shape[1]
            excess = np.abs(got - ref) - 4 * (k + 2) * u * scale
            status = "ok" if (excess <= 0).all() else "OUTSIDE THE BOUND"
            print(f"  {name}: max |error| {np.abs(got - ref).max():.3e} "
                  f"(bound {4 * (k + 2) * u:.1e}·|A||B|) {status}")
            bad += status != "ok"
        if bad:
            fail(f"{bad} product(s) differ from float64 numpy (replay: TESSERA_TEST_SEED={seed})")
    print("drop-in numpy test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
