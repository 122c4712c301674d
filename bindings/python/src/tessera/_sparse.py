# tessera.SparseMatrix (from scipy.sparse, CSR or COO arrays), its storage format, A @ x, A.T @ x
# (x a vector or a 2-D block), tessera.spmv(alpha, A, x, beta, y) and
# tessera.spmm(alpha, A, X, beta, Y) for numpy (or cupy) float32/float64 arrays.
import ctypes
import operator

import numpy as np

from . import _device
from ._arrays import (FLOAT_TYPES, aligned_array, contiguous_vector, describe, is_device_array,
                      real_scalar, storage)
from ._constants import (TSR_F32, TSR_F64, TSR_FORMAT_AUTO, TSR_FORMAT_COO, TSR_FORMAT_CSR,
                         TSR_FORMAT_DIA, TSR_FORMAT_ELL, TSR_FORMAT_HYB, TSR_INDEX_I32,
                         TSR_INDEX_I64, TSR_OP_N, TSR_OP_T, TSR_ROW_MAJOR, TSR_COL_MAJOR)
from ._errors import check
from ._handle import handle_parameter
from ._library import library
from ._owned import Owned

_FORMAT_VALUES = {"auto": TSR_FORMAT_AUTO, "csr": TSR_FORMAT_CSR, "coo": TSR_FORMAT_COO,
                  "ell": TSR_FORMAT_ELL, "dia": TSR_FORMAT_DIA, "hyb": TSR_FORMAT_HYB}
_FORMAT_NAMES = {value: name for name, value in _FORMAT_VALUES.items()}
FORMATS = tuple(_FORMAT_VALUES)  # the names optimize() takes, "auto" first


def _library_with_sparse(function):
    lib = library()
    if not lib.has_sparse:
        raise RuntimeError(f"{function}: the loaded library ({lib.path}, version {lib.version}) "
                           "has no sparse functions; install a newer libtessera")
    return lib


def _value_dtype(data, dtype, function):
    if dtype is None:
        dtype = np.asarray(data).dtype
        if dtype not in FLOAT_TYPES:
            raise TypeError(f"{function}: the values are {dtype}; Tessera stores float32 or "
                            "float64 values: pass dtype=numpy.float64 (or float32) to convert them")
        return dtype
    dtype = np.dtype(dtype)
    if dtype not in FLOAT_TYPES:
        raise TypeError(f"{function}: dtype must be float32 or float64, not {dtype}")
    return dtype


def _index_arrays(arrays, names, function):
    """The index arrays as contiguous int32 (when all already are) or int64, and the itype."""
    out = []
    for x, name in zip(arrays, names):
        x = np.asarray(x)
        if x.ndim != 1:
            raise ValueError(f"{function}: {name} must be 1-D, but has shape {x.shape}")
        if x.size and x.dtype.kind not in "iu":
            raise TypeError(f"{function}: {name} must hold integers, not {x.dtype}")
        out.append(x)
    if all(x.dtype == np.int32 for x in out):
        return [aligned_array(x) for x in out], TSR_INDEX_I32
    return [aligned_array(x, dtype=np.int64) for x in out], TSR_INDEX_I64


def _shape(shape, function):
    try:
        rows, cols = (operator.index(s) for s in shape)
    except (TypeError, ValueError):
        raise ValueError(f"{function}: shape must be two integers (rows, cols), "
                         f"not {shape!r}") from None
    if rows < 0 or cols < 0:
        raise ValueError(f"{function}: shape {shape!r} has a negative size")
    return rows, cols


class SparseMatrix(Owned):
    """A sparse matrix held by Tessera (the library keeps its own copy of the arrays).

    Make one with :meth:`from_scipy`, :meth:`from_csr` or :meth:`from_coo`; choose its storage
    with :meth:`optimize`; multiply with ``A @ x``, ``A.T @ x`` or :func:`tessera.spmv`.
    ``x`` may be a vector or a 2-D array (its columns are multiplied one by one). Values are
    float32 or float64, and vectors must have the matrix's dtype.

    Products on one matrix may run from many threads at once; :meth:`optimize` must not run
    while products on the same matrix are running.
    """

    __array_ufunc__ = None  # so that numpy leaves `x @ A` to __rmatmul__

    def __init__(self, *args, **kwargs):
        raise TypeError("make a SparseMatrix with SparseMatrix.from_scipy(), from_csr() or "
                        "from_coo()")

    @classmethod
    def _create(cls, kind, first, col, data, shape, dtype, handle, function):
        lib = _library_with_sparse(function)
        rows, cols = _shape(shape, function)
        dtype = _value_dtype(data, dtype, function)
        values = aligned_array(np.asarray(data), dtype=dtype)
        if values.ndim != 1:
            raise ValueError(f"{function}: data must be 1-D, but has shape {values.shape}")
        first_name = "indptr" if kind == "csr" else "row"
        (first, col), itype = _index_arrays((first, col), (first_name, "col" if kind == "coo"
                                                            else "indices"), function)
        nnz = values.shape[0]
        if col.shape[0] != nnz:
            raise ValueError(f"{function}: {col.shape[0]} column indices but {nnz} values")
        if kind == "csr" and first.shape[0] != rows + 1:
            raise ValueError(f"{function}: indptr has {first.shape[0]} entries; a matrix with "
                             f"{rows} rows needs {rows + 1}")
        if kind == "coo" and first.shape[0] != nnz:
            raise ValueError(f"{function}: {first.shape[0]} row indices but {nnz} values")
        hp = handle_parameter(handle)
        raw = ctypes.c_void_p()
        name = "tsr_sparse_create_csr" if kind == "csr" else "tsr_sparse_create_coo"
        dtype_value = TSR_F32 if dtype == np.float32 else TSR_F64
        check(name, getattr(lib, name)(hp, ctypes.byref(raw), dtype_value, itype,
                                       rows, cols, nnz, first.ctypes.data, col.ctypes.data,
                                       values.ctypes.data))
        self = object.__new__(cls)
        self._lib = lib
        self._ptr = raw.value
        self._handle = handle
        self.shape = (rows, cols)
        self.dtype = dtype
        self.nnz = nnz
        return self

    @classmethod
    def from_csr(cls, indptr, indices, data, shape, *, dtype=None, handle=None):
        """From CSR arrays (0-based; columns may be unsorted, repeated columns are summed).
        ``dtype`` converts the values (required when they are not float32 or float64)."""
        return cls._create("csr", indptr, indices, data, shape, dtype, handle,
                           "SparseMatrix.from_csr")

    @classmethod
    def from_coo(cls, row, col, data, shape, *, dtype=None, handle=None):
        """From coordinates (0-based, any order; duplicates are summed)."""
        return cls._create("coo", row, col, data, shape, dtype, handle, "SparseMatrix.from_coo")

    @classmethod
    def from_scipy(cls, m, *, dtype=None, handle=None):
        """From any scipy.sparse matrix or array (COO is passed as coordinates, every other
        format through CSR)."""
        fmt = getattr(m, "format", None)
        if fmt is None or not hasattr(m, "tocsr"):
            raise TypeError(f"SparseMatrix.from_scipy: expected a scipy.sparse matrix, "
                            f"not {type(m).__name__}")
        if len(m.shape) != 2:
            raise ValueError(f"SparseMatrix.from_scipy: the matrix must be 2-D, not {m.shape}")
        if fmt == "coo":
            return cls._create("coo", m.row, m.col, m.data, m.shape, dtype, handle,
                               "SparseMatrix.from_scipy")
        csr = m.tocsr()
        nnz = int(csr.indptr[-1]) if csr.indptr.size else 0
        return cls._create("csr", csr.indptr, csr.indices[:nnz], csr.data[:nnz], csr.shape,
                           dtype, handle, "SparseMatrix.from_scipy")

    @property
    def _as_parameter_(self):
        if self._ptr is None:
            raise ValueError("this tessera.SparseMatrix is closed")
        return ctypes.c_void_p(self._ptr)

    @property
    def ndim(self):
        return 2

    @property
    def handle(self):
        """The handle given at creation (used by optimize and products), or None."""
        return self._handle

    @property
    def format(self):
        """The storage format products use: "csr" after creation, then optimize()'s choice."""
        value = ctypes.c_int(0)
        check("tsr_sparse_get_format",
              self._lib.tsr_sparse_get_format(self._as_parameter_, ctypes.byref(value)))
        return _FORMAT_NAMES.get(value.value, str(value.value))

    def optimize(self, format="auto", *, handle=None):
        """Converts the matrix to ``format`` ("auto", "csr", "coo", "ell", "dia", "hyb") for the
        handle's backend; "auto" lets the library choose from the structure. Returns self.
        ELL and DIA are refused (TesseraError, TSR_ERR_NOT_SUPPORTED) when mostly padding."""
        if not isinstance(format, str) or format.lower() not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(map(repr, FORMATS))}, "
                             f"not {format!r}")
        h = handle if handle is not None else self._handle
        check("tsr_sparse_optimize", self._lib.tsr_sparse_optimize(
            handle_parameter(h), self._as_parameter_, _FORMAT_VALUES[format.lower()]))
        return self

    @property
    def T(self):
        """The transpose, for products: ``A.T @ x``."""
        return _Transposed(self)

    def __matmul__(self, x):
        return _product(self, False, x)

    def __rmatmul__(self, x):
        # x @ A == A.T @ x for a vector x (and (A.T @ x.T).T for a 2-D x).
        if getattr(x, "ndim", np.ndim(x)) == 2:
            return _product(self, True, x.T).T
        return _product(self, True, x)

    def _free(self, ptr):  # close() (see Owned): later use raises ValueError
        check("tsr_sparse_destroy", self._lib.tsr_sparse_destroy(ctypes.c_void_p(ptr)))

    def __repr__(self):
        if self._ptr is None:
            return "<tessera.SparseMatrix closed>"
        return (f"<tessera.SparseMatrix {self.shape[0]}x{self.shape[1]} {self.dtype} "
                f"nnz={self.nnz} format={self.format!r}>")


class _Transposed:
    """A.T: the same matrix, multiplied as its transpose."""

    __slots__ = ("matrix",)
    __array_ufunc__ = None

    def __init__(self, matrix):
        self.matrix = matrix

    shape = property(lambda self: self.matrix.shape[::-1])
    dtype = property(lambda self: self.matrix.dtype)
    nnz = property(lambda self: self.matrix.nnz)
    ndim = 2
    T = property(lambda self: self.matrix)

    def __matmul__(self, x):
        return _product(self.matrix, True, x)

    def __rmatmul__(self, x):
        if getattr(x, "ndim", np.ndim(x)) == 2:
            return _product(self.matrix, False, x.T).T
        return _product(self.matrix, False, x)

    def __repr__(self):
        return f"<transpose of {self.matrix!r}>"


def _unwrap(A, function):
    if isinstance(A, _Transposed):
        return A.matrix, True
    if isinstance(A, SparseMatrix):
        return A, False
    raise TypeError(f"{function}: A must be a tessera.SparseMatrix (or its .T), "
                    f"not {type(A).__name__}")


def _call(matrix, trans, alpha, x_address, beta, y_address, handle):
    lib = matrix._lib
    name, fn = (("tsr_sspmv", lib.tsr_sspmv) if matrix.dtype == np.float32
                else ("tsr_dspmv", lib.tsr_dspmv))
    check(name, fn(handle_parameter(handle), TSR_OP_T if trans else TSR_OP_N, alpha,
                   matrix._as_parameter_, x_address, beta, y_address))


def _sizes(matrix, trans):
    rows, cols = matrix.shape
    return (cols, rows) if trans else (rows, cols)  # (out, in)


def _check_vector_dtype(matrix, arr, name, function):
    if arr.dtype != matrix.dtype:
        raise TypeError(f"{function}: {name} is {arr.dtype} but the matrix is {matrix.dtype}; "
                        f"convert {name} with .astype(numpy.{matrix.dtype})")


def _product(matrix, trans, x):
    """op(A) @ x for a 1-D or 2-D x, in a new array."""
    function = "SparseMatrix @"
    out_n, in_n = _sizes(matrix, trans)
    device = is_device_array(x)
    X = describe(x, "x")
    _check_vector_dtype(matrix, X, "x", function)
    if X.ndim not in (1, 2) or X.shape[0] != in_n:
        op = "A.T" if trans else "A"
        raise ValueError(f"{function}: {op} is {out_n}x{in_n} but x has shape {X.shape}")
    handle = matrix._handle
    if device:
        _device.require_cuda(function)
        handle = _device.device_handle(handle, function)
        xp = _device.module_of(x)
    else:
        xp = np
    if X.ndim == 1:
        x_obj = X.obj if contiguous_vector(X) else aligned_array(X.obj, xp)
        y = xp.empty(out_n, dtype=matrix.dtype)
        _call(matrix, trans, 1.0, _address(x_obj), 0.0, _address(y), handle)
        return y
    columns = X.shape[1]
    if not getattr(matrix._lib, "has_spmm", False):  # an older library: a product per column
        x_obj = aligned_array(X.obj, xp, order="F")  # each column contiguous
        y = xp.empty((out_n, columns), dtype=matrix.dtype, order="F")
        item = np.dtype(matrix.dtype).itemsize
        xa, ya = _address(x_obj), _address(y)
        for j in range(columns):
            _call(matrix, trans, 1.0, xa + j * in_n * item, 0.0, ya + j * out_n * item, handle)
        return y
    # One sparse x dense product on X where it lies (any of its layouts), into a new Y of the
    # same layout.
    x_obj, (layout, ldx) = _block_of(X, xp)
    order = "C" if layout == "row" else "F"
    y = xp.empty((out_n, columns), dtype=matrix.dtype, order=order)
    ldy = max(1, columns) if layout == "row" else max(1, out_n)
    _call_block(matrix, trans, layout, columns, 1.0, _address(x_obj), ldx, 0.0, _address(y), ldy,
                handle)
    return y


def _block_of(X, xp):
    """A 2-D array as the library can read it: (the array, (layout, leading dimension)), the
    array itself where its strides allow, else an aligned copy."""
    found = storage(X)
    if found:
        return X.obj, found[0]
    copy = aligned_array(X.obj, xp, order="C")
    return copy, storage(describe(copy, "x"))[0]


def _call_block(matrix, trans, layout, k, alpha, x_address, ldx, beta, y_address, ldy, handle):
    lib = matrix._lib
    name, fn = (("tsr_sspmm", lib.tsr_sspmm) if matrix.dtype == np.float32
                else ("tsr_dspmm", lib.tsr_dspmm))
    check(name, fn(handle_parameter(handle), TSR_ROW_MAJOR if layout == "row" else TSR_COL_MAJOR,
                   TSR_OP_T if trans else TSR_OP_N, k, alpha, matrix._as_parameter_, x_address,
                   ldx, beta, y_address, ldy))


def _address(x):
    if isinstance(x, np.ndarray):
        return x.ctypes.data
    return int(x.__cuda_array_interface__["data"][0] or 0)


def spmv(alpha, A, x, beta=0.0, y=None, *, handle=None):
    """``y = alpha * op(A) @ x + beta * y`` in place; returns y.

    ``A`` is a :class:`SparseMatrix` (op(A) = A) or its ``.T`` (op(A) = A transposed); ``x``
    and ``y`` are 1-D arrays of A's dtype. ``y`` is written in place, so it must be a
    contiguous, writable array (or None, with beta == 0, for a new one). ``handle`` defaults
    to the matrix's own. A non-contiguous x is copied.
    """
    function = "tessera.spmv"
    matrix, trans = _unwrap(A, function)
    if matrix._ptr is None:
        raise ValueError(f"{function}: the matrix is closed")
    alpha, beta = real_scalar(alpha, "alpha", function), real_scalar(beta, "beta", function)
    out_n, in_n = _sizes(matrix, trans)
    op = "A.T" if trans else "A"
    arrays = [v for v in (x, y) if v is not None]
    device = [is_device_array(v) for v in arrays]
    if any(device) and not all(device):
        raise TypeError(f"{function}: x and y must both be host (numpy) arrays or both "
                        "device arrays")
    on_device = any(device)
    X = describe(x, "x")
    _check_vector_dtype(matrix, X, "x", function)
    if X.ndim != 1 or X.shape[0] != in_n:
        raise ValueError(f"{function}: {op} is {out_n}x{in_n}, so x must have shape "
                         f"({in_n},), not {X.shape}")
    if on_device:
        _device.require_cuda(function)
    if y is None:
        if beta != 0.0:
            raise ValueError(f"{function}: beta = {beta} scales y, but no y was given")
        y = (_device.module_of(x) if on_device else np).empty(out_n, dtype=matrix.dtype)
    elif not on_device and not isinstance(y, np.ndarray):
        raise TypeError(f"{function}: y must be a numpy array (it is written in place), "
                        f"not {type(y).__name__}")
    Y = describe(y, "y")
    _check_vector_dtype(matrix, Y, "y", function)
    if Y.ndim != 1 or Y.shape[0] != out_n:
        raise ValueError(f"{function}: {op} is {out_n}x{in_n}, so y must have shape "
                         f"({out_n},), not {Y.shape}")
    if Y.readonly:
        raise ValueError(f"{function}: y is read-only")
    if not contiguous_vector(Y):
        raise ValueError(f"{function}: y (strides {getattr(y, 'strides', None)}) cannot be "
                         "written in place: pass a contiguous, aligned array")
    if not on_device and np.may_share_memory(X.obj, y):
        raise ValueError(f"{function}: y shares memory with x")
    h = handle if handle is not None else matrix._handle
    if on_device:
        h = _device.device_handle(h, function)
    x_obj = X.obj
    if not contiguous_vector(X):
        x_obj = aligned_array(X.obj, _device.module_of(x) if on_device else np)
    _call(matrix, trans, alpha, _address(x_obj), beta, _address(y), h)
    return y


def spmm(alpha, A, X, beta=0.0, Y=None, *, handle=None):
    """``Y = alpha * op(A) @ X + beta * Y`` in place for 2-D blocks X and Y; returns Y.

    ``A`` is a :class:`SparseMatrix` or its ``.T``; ``X`` and ``Y`` are 2-D arrays of A's dtype
    with as many columns each, in row-major (C) or column-major (Fortran) order, views with a
    leading dimension included. ``Y`` is written in place, so it must be writable and in one of
    those orders; ``X`` is read in place where it has Y's order, else copied to it. ``Y`` may be
    None (with beta == 0) for a new array in X's order. ``handle`` defaults to the matrix's own.
    """
    function = "tessera.spmm"
    matrix, trans = _unwrap(A, function)
    if matrix._ptr is None:
        raise ValueError(f"{function}: the matrix is closed")
    if not getattr(matrix._lib, "has_spmm", False):
        raise RuntimeError(f"{function}: the loaded library ({matrix._lib.path}) has no "
                           "tsr_sspmm/tsr_dspmm; install a newer libtessera")
    alpha, beta = real_scalar(alpha, "alpha", function), real_scalar(beta, "beta", function)
    out_n, in_n = _sizes(matrix, trans)
    op = "A.T" if trans else "A"
    arrays = [v for v in (X, Y) if v is not None]
    device = [is_device_array(v) for v in arrays]
    if any(device) and not all(device):
        raise TypeError(f"{function}: X and Y must both be host (numpy) arrays or both "
                        "device arrays")
    on_device = any(device)
    xp = _device.module_of(X) if on_device else np
    Xd = describe(X, "X")
    _check_vector_dtype(matrix, Xd, "X", function)
    if Xd.ndim != 2 or Xd.shape[0] != in_n:
        raise ValueError(f"{function}: {op} is {out_n}x{in_n}, so X must have {in_n} rows, "
                         f"not shape {Xd.shape}")
    if on_device:
        _device.require_cuda(function)
    k = Xd.shape[1]
    if Y is None:
        if beta != 0.0:
            raise ValueError(f"{function}: beta = {beta} scales Y, but no Y was given")
        x_obj, (layout, ldx) = _block_of(Xd, xp)
        Y = xp.empty((out_n, k), dtype=matrix.dtype, order="C" if layout == "row" else "F")
    elif not on_device and not isinstance(Y, np.ndarray):
        raise TypeError(f"{function}: Y must be a numpy array (it is written in place), "
                        f"not {type(Y).__name__}")
    Yd = describe(Y, "Y")
    _check_vector_dtype(matrix, Yd, "Y", function)
    if Yd.ndim != 2 or Yd.shape != (out_n, k):
        raise ValueError(f"{function}: {op} @ X is {out_n}x{k}, so Y must have that shape, "
                         f"not {Yd.shape}")
    if Yd.readonly:
        raise ValueError(f"{function}: Y is read-only")
    y_layouts = storage(Yd)
    if not y_layouts:
        raise ValueError(f"{function}: Y (strides {getattr(Y, 'strides', None)}) cannot be written "
                         "in place: pass a C- or Fortran-ordered array (or a view of one)")
    # Y's layout decides; X is read in place where it has that layout too, else copied to it.
    layout, ldy = y_layouts[0]
    x_layouts = dict(storage(Xd))
    if layout in x_layouts:
        x_obj, ldx = Xd.obj, x_layouts[layout]
    else:
        x_obj = aligned_array(Xd.obj, xp, order="C" if layout == "row" else "F")
        ldx = dict(storage(describe(x_obj, "X")))[layout]
    if not on_device and np.may_share_memory(x_obj, Y):
        raise ValueError(f"{function}: Y shares memory with X")
    h = handle if handle is not None else matrix._handle
    if on_device:
        h = _device.device_handle(h, function)
    _call_block(matrix, trans, layout, k, alpha, _address(x_obj), ldx, beta, _address(Y), ldy,
                h)
    return Y
