# Tessera for Python: dense and sparse products on numpy, scipy.sparse and cupy data, through
# ctypes over libtessera's C API (no compiler needed to use it).
"""Tessera: BLAS-style dense and sparse products on CPU and CUDA backends.

>>> import numpy as np, tessera
>>> a = np.random.rand(300, 200).astype(np.float32)
>>> b = np.random.rand(200, 100).astype(np.float32)
>>> c = tessera.gemm(a, b)                     # a @ b, computed by libtessera
>>> with tessera.Handle(backend="cpu", num_threads=2) as h:
...     tessera.gemm(a.T, a, trans_a=False, handle=h)

Sparse matrices come from scipy.sparse or CSR/COO arrays:

>>> A = tessera.SparseMatrix.from_scipy(scipy_matrix).optimize()
>>> y = A @ x; z = A.T @ y; tessera.spmv(2.0, A, x, 1.0, y)

The library is found through ``$TESSERA_LIBRARY``, then the copy bundled with the package,
then the system's search paths; :data:`library_path` tells which file was loaded.
"""
from ._constants import TSR_VERSION_MAJOR, TSR_VERSION_MINOR, TSR_VERSION_PATCH
from ._library import library as _library

_lib = _library()  # fails at import, with what was tried, when no library can be loaded

from ._errors import TesseraError  # noqa: E402
from ._gemm import gemm  # noqa: E402
from ._handle import BACKENDS, Handle, backend_available  # noqa: E402
from ._plan import GemmPlan  # noqa: E402
from ._sparse import FORMATS, SparseMatrix, spmm, spmv  # noqa: E402

__version__ = f"{TSR_VERSION_MAJOR}.{TSR_VERSION_MINOR}.{TSR_VERSION_PATCH}"

library_path = _lib.path
"""The libtessera file this package loaded."""

library_version = _lib.version
"""The loaded library's version (tsr_version())."""

has_sparse = _lib.has_sparse
"""Whether the loaded library has the sparse functions."""


def version():
    """The loaded library's version string."""
    return _lib.version


__all__ = ["BACKENDS", "FORMATS", "GemmPlan", "Handle", "SparseMatrix", "TesseraError", "backend_available",
           "gemm", "has_sparse", "library_path", "library_version", "spmm", "spmv", "version"]
