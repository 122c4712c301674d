# tessera.GemmPlan: tsr_gemm_plan_* for numpy arrays of one shape, dtype and memory order;
# checked once at construction, then each call passes only the addresses (and a batch, strided).
import ctypes

import numpy as np

from ._arrays import check_float_dtype, describe, real_scalar, storage
from ._constants import TSR_COL_MAJOR, TSR_F32, TSR_F64, TSR_OP_N, TSR_OP_T, TSR_ROW_MAJOR
from ._errors import check
from ._handle import handle_parameter
from ._library import library
from ._owned import Owned


def _operand_storage(arr, name, layout, function):
    """(op flip, ld) of a 2-D array in the call's layout, without a copy, or ValueError."""
    found = storage(arr)
    for order, ld in found:
        if order == layout:
            return False, ld
    if found:
        return True, found[0][1]
    raise ValueError(f"{function}: {name} (strides {arr.obj.strides}) cannot be used without a copy; "
                     "pass C- or Fortran-ordered, aligned arrays to a plan")


class GemmPlan(Owned):
    """A plan for ``c = alpha * op(a) @ op(b) + beta * c`` on numpy arrays of one kind.

    The arrays given here fix the dtype (float32 or float64), the shapes, the memory order and
    the strides; Tessera checks them once. :meth:`__call__` then takes arrays of exactly that
    kind (checked cheaply: dtype, shape and strides) and computes in place into ``c``;
    :meth:`batch` runs stacks of them, ``a[i]``, ``b[i]``, ``c[i]`` along a first axis. The
    plan keeps ``handle`` (default: the default handle). Close it with :meth:`close` or a
    ``with`` block.
    """

    def __init__(self, a, b, c, *, trans_a=False, trans_b=False, handle=None):
        function = "tessera.GemmPlan"
        lib = library()
        if not getattr(lib, "has_plans", False):
            raise RuntimeError(f"{function}: the loaded libtessera has no gemm plans; update it")
        arrays = {}
        for x, name in ((a, "a"), (b, "b"), (c, "c")):
            if not isinstance(x, np.ndarray):
                raise TypeError(f"{function}: {name} must be a numpy array, not {type(x).__name__}")
            arr = describe(x, name)
            if arr.ndim != 2:
                raise ValueError(f"{function}: {name} must be 2-D, but has shape {arr.shape}")
            check_float_dtype(arr, name, function)
            arrays[name] = arr
        A, B, C = arrays["a"], arrays["b"], arrays["c"]
        if not (A.dtype == B.dtype == C.dtype):
            raise TypeError(f"{function}: a, b and c must have one dtype, not {A.dtype}, {B.dtype}, {C.dtype}")
        trans_a, trans_b = bool(trans_a), bool(trans_b)
        m, k = A.shape[::-1] if trans_a else A.shape
        kb, n = B.shape[::-1] if trans_b else B.shape
        if k != kb or C.shape != (m, n):
            raise ValueError(f"{function}: op(a) is {m}x{k}, op(b) is {kb}x{n} and c is "
                             f"{C.shape[0]}x{C.shape[1]}")
        found = storage(C)
        if not found:
            raise ValueError(f"{function}: c (strides {c.strides}) cannot be written in place")
        layout, ldc = found[0]
        flip_a, lda = _operand_storage(A, "a", layout, function)
        flip_b, ldb = _operand_storage(B, "b", layout, function)
        self.dtype = A.dtype
        self._kinds = tuple((x.shape, x.strides) for x in (a, b, c))
        self._lib = lib
        self._ptr = None
        self._handle = handle  # kept alive: the plan uses it
        raw = ctypes.c_void_p()
        check("tsr_gemm_plan_create", lib.tsr_gemm_plan_create(
            handle_parameter(handle), ctypes.byref(raw), TSR_F32 if self.dtype == np.float32 else TSR_F64,
            TSR_ROW_MAJOR if layout == "row" else TSR_COL_MAJOR,
            TSR_OP_T if trans_a != flip_a else TSR_OP_N, TSR_OP_T if trans_b != flip_b else TSR_OP_N,
            m, n, k, lda, ldb, ldc))
        self._ptr = raw.value
        self.shape = (m, n, k)

    def _check(self, arrays, function, stacked):
        for x, name, (shape, strides) in zip(arrays, ("a", "b", "c"), self._kinds):
            if not isinstance(x, np.ndarray) or x.dtype != self.dtype:
                raise TypeError(f"{function}: {name} must be a numpy {self.dtype} array like the plan's")
            got = (x.shape[1:], x.strides[1:]) if stacked else (x.shape, x.strides)
            if got != (shape, strides) or not x.flags.aligned:
                raise ValueError(f"{function}: {name} has shape {x.shape} and strides {x.strides}; "
                                 f"the plan was made for shape {shape}, strides {strides}")
        if not arrays[2].flags.writeable:
            raise ValueError(f"{function}: c is read-only")
        if self._ptr is None:
            raise ValueError(f"{function}: the plan is closed")

    def __call__(self, a, b, c, *, alpha=1.0, beta=0.0):
        """c = alpha * op(a) @ op(b) + beta * c in place; returns c."""
        function = "GemmPlan()"
        alpha, beta = real_scalar(alpha, "alpha", function), real_scalar(beta, "beta", function)
        self._check((a, b, c), function, False)
        check("tsr_gemm_plan_execute", self._lib.tsr_gemm_plan_execute(
            self._ptr, alpha, a.ctypes.data, b.ctypes.data, beta, c.ctypes.data))
        return c

    def batch(self, a, b, c, *, alpha=1.0, beta=0.0):
        """The plan's product for each i along the first axis of 3-D a, b and c (each a[i] of
        the plan's shape and strides; c's stack of a positive step that keeps the matrices
        apart, a's and b's of any step, 0 repeating one matrix); returns c."""
        function = "GemmPlan.batch"
        alpha, beta = real_scalar(alpha, "alpha", function), real_scalar(beta, "beta", function)
        for x, name in ((a, "a"), (b, "b"), (c, "c")):
            if not isinstance(x, np.ndarray) or x.ndim != 3:
                raise ValueError(f"{function}: {name} must be a 3-D numpy array (a stack of matrices)")
        count = c.shape[0]
        if a.shape[0] != count or b.shape[0] != count:
            raise ValueError(f"{function}: stacks of {a.shape[0]}, {b.shape[0]} and {count} matrices")
        self._check((a, b, c), function, True)
        item = self.dtype.itemsize
        steps = []
        for x, name in ((a, "a"), (b, "b"), (c, "c")):
            # a and b may repeat one matrix (step 0, as numpy.broadcast_to makes); c may not
            lowest = 1 if name == "c" else 0
            if count > 1 and (x.strides[0] < lowest or x.strides[0] % item):
                raise ValueError(f"{function}: {name}'s stack step {x.strides[0]} bytes is not a "
                                 f"{'positive' if lowest else 'non-negative'} number of elements")
            steps.append(x.strides[0] // item if count > 1 else 0)
        if count > 1 and np.may_share_memory(c, a) or count > 1 and np.may_share_memory(c, b):
            raise ValueError(f"{function}: c shares memory with a or b")
        check("tsr_gemm_plan_execute_strided", self._lib.tsr_gemm_plan_execute_strided(
            self._ptr, count, alpha, a.ctypes.data, steps[0], b.ctypes.data, steps[1], beta,
            c.ctypes.data, steps[2]))
        return c

    def _free(self, ptr):  # close() (see Owned): later calls raise ValueError
        check("tsr_gemm_plan_destroy", self._lib.tsr_gemm_plan_destroy(ptr))

    def __repr__(self):
        m, n, k = self.shape
        state = "closed" if self._ptr is None else "open"
        return f"<tessera.GemmPlan {m}x{n}x{k} {self.dtype} ({state})>"
