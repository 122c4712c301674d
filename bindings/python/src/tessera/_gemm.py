# tessera.gemm: C = alpha*op(A)*op(B) + beta*C for numpy (or cupy) float32/float64 matrices.
# Memory order and transposed views become the call's layout and transpose flags, without copies.
import numpy as np

from . import _device
from ._arrays import check_float_dtype, describe, is_device_array, real_scalar, storage
from ._constants import TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, TSR_ROW_MAJOR
from ._errors import check
from ._handle import handle_parameter
from ._library import library


def _flag(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"tessera.gemm: {name} must be True or False, not {value!r}")
    return bool(value)


def _operand(x, name, layout, copy):
    """(array, op flip, ld) for an input in the call's layout: its own storage when it matches,
    its transpose's when it is the other order; otherwise a C-ordered copy."""
    for _ in range(2):
        found = storage(x)
        for order, ld in found:
            if order == layout:
                return x, False, ld
        if found:
            return x, True, found[0][1]
        x = describe(copy(x.obj), name)
    raise RuntimeError(f"tessera.gemm: no usable storage for {name} after a copy")


def gemm(a, b, c=None, *, alpha=1.0, beta=0.0, trans_a=False, trans_b=False, handle=None):
    """Matrix product ``c = alpha * op(a) @ op(b) + beta * c``; returns c.

    ``a`` and ``b`` are 2-D float32 or float64 arrays of the same dtype; ``op(x)`` is ``x.T``
    when ``trans_x`` is true. Without ``c`` a new C-ordered result is returned (``beta`` must then
    be 0); with ``c`` the product is written into it in place and ``c`` is returned.

    C-ordered and Fortran-ordered arrays, slices with unit stride in one dimension and their
    transposed views (``x.T``) are passed to the library as they are, through its layout and
    transpose flags. Other inputs (negative or non-unit strides in both dimensions) are copied;
    a ``c`` that cannot be written in place is rejected. Shapes, dtypes and flags are checked
    before the library is called (ValueError, TypeError); a failing library call raises
    TesseraError.

    cupy arrays (anything with ``__cuda_array_interface__``) are accepted when Tessera's CUDA
    backend is available; all of a, b and c must then be device arrays.
    """
    fn = "tessera.gemm"
    lib = library()
    hp = handle_parameter(handle)
    trans_a, trans_b = _flag(trans_a, "trans_a"), _flag(trans_b, "trans_b")
    alpha, beta = real_scalar(alpha, "alpha", fn), real_scalar(beta, "beta", fn)

    given = [x for x in (a, b, c) if x is not None]
    device = [is_device_array(x) for x in given]
    on_device = any(device)
    if on_device and not all(device):
        raise TypeError(f"{fn}: a, b and c must all be host (numpy) arrays or all device arrays")

    A, B = describe(a, "a"), describe(b, "b")
    for arr, name in ((A, "a"), (B, "b")):
        if arr.ndim != 2:
            raise ValueError(f"{fn}: {name} must be 2-D, but has shape {arr.shape}")
        check_float_dtype(arr, name, fn)
    if A.dtype != B.dtype:
        raise TypeError(f"{fn}: a is {A.dtype} but b is {B.dtype}; Tessera does not mix "
                        "precisions: convert one with .astype()")
    dtype = A.dtype
    m, k = A.shape[::-1] if trans_a else A.shape
    kb, n = B.shape[::-1] if trans_b else B.shape
    if k != kb:
        raise ValueError(f"{fn}: shapes do not match: op(a) is {m}x{k} and op(b) is {kb}x{n} "
                         f"(a {A.shape}, trans_a={trans_a}; b {B.shape}, trans_b={trans_b})")

    if c is None:
        if beta != 0.0:
            raise ValueError(f"{fn}: beta = {beta} scales c, but no c was given")
    else:
        if not on_device and not isinstance(c, np.ndarray):
            raise TypeError(f"{fn}: c must be a numpy array (it is written in place), "
                            f"not {type(c).__name__}")
        C = describe(c, "c")
        if C.ndim != 2:
            raise ValueError(f"{fn}: c must be 2-D, but has shape {C.shape}")
        if C.dtype != dtype:
            raise TypeError(f"{fn}: c is {C.dtype} but a and b are {dtype}")
        if C.shape != (m, n):
            raise ValueError(f"{fn}: c has shape {C.shape}, but op(a) @ op(b) is {m}x{n}")
        if C.readonly:
            raise ValueError(f"{fn}: c is read-only")
        if not storage(C):
            raise ValueError(f"{fn}: c (strides {getattr(c, 'strides', None)}) cannot be written "
                             "in place: it needs unit stride along one dimension and a positive "
                             "stride along the other, and must be aligned. Pass a C- or "
                             "Fortran-ordered array, or leave c out and copy the result")
        if not on_device:
            for x, name in ((a, "a"), (b, "b")):
                if isinstance(x, np.ndarray) and _overlap(c, x):
                    raise ValueError(f"{fn}: c shares memory with {name}; the result would "
                                     "overwrite its own input")

    if on_device:
        _device.require_cuda(fn)
        hp = handle_parameter(_device.device_handle(handle, fn))

    def copy(x):  # a fresh C-ordered array: aligned, whatever x was
        return (_device.module_of(a) if on_device else np).array(x, order="C", copy=True)

    if c is None:
        c = (_device.module_of(a) if on_device else np).empty((m, n), dtype=dtype)
        C = describe(c, "c")

    layout, ldc = storage(C)[0]
    A, flip_a, lda = _operand(A, "a", layout, copy)
    B, flip_b, ldb = _operand(B, "b", layout, copy)
    op_a = TSR_OP_T if trans_a != flip_a else TSR_OP_N
    op_b = TSR_OP_T if trans_b != flip_b else TSR_OP_N
    layout_value = TSR_ROW_MAJOR if layout == "row" else TSR_COL_MAJOR

    name = "tsr_sgemm" if dtype == np.float32 else "tsr_dgemm"
    call = getattr(lib, name)
    check(name, call(hp, layout_value, op_a, op_b, m, n, k, alpha, A.address, lda, B.address, ldb,
                     beta, C.address, ldc))
    return c


_TooHard = np.exceptions.TooHardError if hasattr(np, "exceptions") else np.TooHardError


def _overlap(x, y):
    if not np.may_share_memory(x, y):
        return False
    try:
        return bool(np.shares_memory(x, y, max_work=10_000))
    except _TooHard:
        return True
