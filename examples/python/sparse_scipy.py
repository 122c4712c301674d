# Tessera example: a scipy.sparse matrix handed to Tessera, its storage format chosen by the
# library, then A @ x, A.T @ x and tessera.spmv in place, checked against scipy.
import sys

import numpy as np
import scipy.sparse as sp

import tessera

n = 20_000
# A 2-D Laplacian-like matrix: five diagonals, the kind of structure DIA and ELL suit.
M = sp.diags([-1.0, -1.0, 4.0, -1.0, -1.0], [-141, -1, 0, 1, 141], shape=(n, n), format="csr")
x = np.random.default_rng(1).standard_normal(n)

A = tessera.SparseMatrix.from_scipy(M)
print(f"{A!r}")
A.optimize()  # format="auto": the library looks at the rows and diagonals and picks one
print(f"after optimize(): format {A.format!r}")

y = A @ x
z = A.T @ y
ok = np.allclose(y, M @ x, rtol=1e-12, atol=1e-12) and np.allclose(z, M.T @ y, rtol=1e-12,
                                                                     atol=1e-10)
print(f"A @ x and A.T @ y match scipy: {ok}")

# In place: y = 0.5 * A @ x - 2 * y.
y0 = y.copy()
tessera.spmv(0.5, A, x, -2.0, y)
ok &= np.allclose(y, 0.5 * (M @ x) - 2 * y0, rtol=1e-12, atol=1e-10)

# Single precision and a format named explicitly.
A32 = tessera.SparseMatrix.from_scipy(M.astype(np.float32)).optimize("ell")
y32 = A32 @ x.astype(np.float32)
ok &= np.allclose(y32, M @ x, rtol=1e-4, atol=1e-4)
print(f"float32 in {A32.format!r}: max |error| {np.abs(y32 - M @ x).max():.2e}")

print("all results are right" if ok else "FAILED")
sys.exit(0 if ok else 1)
