# Tessera example: dense products on numpy arrays with tessera.gemm — new and in-place results,
# transposed views, a handle choosing the backend, and how errors are reported.
import sys

import numpy as np

import tessera

rng = np.random.default_rng(0)
a = rng.standard_normal((500, 300), dtype=np.float32)
b = rng.standard_normal((300, 200), dtype=np.float32)
ok = True

print(f"tessera {tessera.version()} from {tessera.library_path}")

# c = a @ b, a new array.
c = tessera.gemm(a, b)
err = np.abs(c - a.astype(np.float64) @ b).max()
print(f"gemm(a, b): {c.shape} {c.dtype}, max |error| against float64 numpy {err:.2e}")
ok &= err < 1e-3

# In place, with alpha and beta: c2 = 2 * a.T @ a + c2. a.T is a view: no copy is made, the
# library is told to read a transposed.
c2 = np.ones((300, 300), dtype=np.float32, order="F")
tessera.gemm(a.T, a, c2, alpha=2.0, beta=1.0)
ok &= np.allclose(c2, 2 * a.T.astype(np.float64) @ a + 1, rtol=1e-4, atol=1e-3)
print("gemm(a.T, a, c2, alpha=2, beta=1): written into c2 in place")

# Double precision, on the reference backend, with a handle.
with tessera.Handle(backend="reference") as h:
    d = tessera.gemm(a.astype(np.float64), b.astype(np.float64), trans_b=False, handle=h)
    print(f"with {h!r}: max |error| {np.abs(d - a.astype(np.float64) @ b).max():.2e}")
    ok &= np.allclose(d, a.astype(np.float64) @ b, rtol=1e-12, atol=1e-12)

# Mistakes are caught before the library is called ...
try:
    tessera.gemm(a, a)
except ValueError as e:
    print(f"ValueError: {e}")
# ... and the library's own refusals raise TesseraError with its explanation.
if not tessera.backend_available("cuda"):
    try:
        tessera.Handle(backend="cuda")
    except tessera.TesseraError as e:
        print(f"TesseraError ({e.status_name}): {e}")

print("all results are right" if ok else "FAILED")
sys.exit(0 if ok else 1)
