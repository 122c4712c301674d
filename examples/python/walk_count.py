# Tessera example: counting walks in a graph. (M^k)[x, y] is the number of k-step walks from x to
# y: all pairs with tessera.gemm (M^k by squaring), one target with k sparse products from e_y.
import sys

import numpy as np
import scipy.sparse as sp

import tessera

# The Petersen graph: an outer 5-cycle, an inner pentagram, and five spokes (undirected).
edges = [(i, (i + 1) % 5) for i in range(5)] + [(5 + i, 5 + (i + 2) % 5) for i in range(5)] \
    + [(i, 5 + i) for i in range(5)]
rows = [u for u, v in edges] + [v for u, v in edges]
cols = [v for u, v in edges] + [u for u, v in edges]
n, k = 10, 12
M = sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))


def power(dense, k):
    """dense**k by repeated squaring, every product on Tessera."""
    result, base = np.eye(dense.shape[0]), dense.copy()
    while k:
        if k & 1:
            result = tessera.gemm(result, base)
        k >>= 1
        if k:
            base = tessera.gemm(base, base)
    return result


P = power(M.toarray(), k)

A = tessera.SparseMatrix.from_scipy(M).optimize()
target = 7
v = np.zeros(n)
v[target] = 1.0
for _ in range(k):
    v = A @ v  # after the loop v[x] = (M^k)[x, target]

expected = np.linalg.matrix_power(M.toarray().astype(np.int64), k)  # exact integers
print(f"walks of {k} steps in the Petersen graph (sparse format {A.format!r})")
print(f"into vertex {target}: {v.astype(np.int64).tolist()}")
print(f"between neighbours 0 and 1: {P[0, 1]:.0f}; from 0 back to 0: {P[0, 0]:.0f}")
ok = np.array_equal(P, expected) and np.array_equal(v, expected[:, target])
# The Petersen graph is 3-regular: every vertex starts 3^k walks.
ok &= bool(np.all(P.sum(axis=1) == 3.0**k))
print("gemm, spmv and exact integer powers agree" if ok else "FAILED")
sys.exit(0 if ok else 1)
