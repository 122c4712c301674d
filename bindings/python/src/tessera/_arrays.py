# What the bindings need to know of an array: element type, shape, strides, address, and whether
# it lives in host memory (numpy) or on a CUDA device (__cuda_array_interface__, e.g. cupy).
import numbers

import numpy as np

FLOAT_TYPES = (np.dtype(np.float32), np.dtype(np.float64))


class Array:
    """A 2-D or 1-D array seen by the library: dtype, shape, strides in elements, address."""

    __slots__ = ("obj", "dtype", "shape", "strides", "address", "device", "readonly")

    def __init__(self, obj, dtype, shape, strides, address, device, readonly):
        self.obj = obj
        self.dtype = dtype
        self.shape = shape
        self.strides = strides  # in elements; None when misaligned or not whole elements
        self.address = address
        self.device = device
        self.readonly = readonly

    @property
    def ndim(self):
        return len(self.shape)


def is_device_array(x):
    return not isinstance(x, np.ndarray) and hasattr(x, "__cuda_array_interface__")


def describe_device(x, name):
    """An Array for an object with __cuda_array_interface__."""
    cai = x.__cuda_array_interface__
    dtype = np.dtype(cai["typestr"])
    shape = tuple(int(s) for s in cai["shape"])
    address, readonly = cai["data"]
    if cai.get("mask") is not None:
        raise ValueError(f"{name}: masked device arrays are not supported")
    byte_strides = cai.get("strides")
    if byte_strides is None:  # C-contiguous
        byte_strides, step = [], dtype.itemsize
        for extent in reversed(shape):
            byte_strides.insert(0, step)
            step *= max(extent, 1)
    strides = _element_strides(byte_strides, dtype.itemsize)
    return Array(x, dtype, shape, strides, int(address or 0), True, bool(readonly))


def describe_host(x, name):
    """An Array for a numpy array (anything else is converted with numpy.asarray first)."""
    if not isinstance(x, np.ndarray):
        x = np.asarray(x)
    strides = _element_strides(x.strides, x.itemsize) if x.flags.aligned else None
    return Array(x, x.dtype, x.shape, strides, x.ctypes.data, False, not x.flags.writeable)


def describe(x, name):
    return describe_device(x, name) if is_device_array(x) else describe_host(x, name)


def _element_strides(byte_strides, itemsize):
    if any(s % itemsize for s in byte_strides):
        return None
    return tuple(s // itemsize for s in byte_strides)


def check_float_dtype(arr, name, function):
    if arr.dtype not in FLOAT_TYPES:
        hint = ""
        if arr.dtype.kind in "iub":
            hint = f"; convert it first, for example {name}.astype(numpy.float64)"
        elif arr.dtype.kind == "c":
            hint = "; complex products are not provided"
        raise TypeError(f"{function}: {name} has dtype {arr.dtype}, but Tessera computes in "
                        f"float32 or float64{hint}")


def storage(arr):
    """How a 2-D array lies in memory: a list of (layout, ld) it can be passed as, the best first;
    layout is "row" (element (i, j) at i*ld + j) or "col" (at i + j*ld). Empty when neither fits
    (negative, zero or odd strides, or misalignment): such an array must be copied."""
    rows, cols = arr.shape
    if rows == 0 or cols == 0:  # nothing is read or written: any leading dimension will do
        return [("row", max(1, cols)), ("col", max(1, rows))]
    if arr.strides is None:
        return []
    s0, s1 = arr.strides
    found = []
    if (cols <= 1 or s1 == 1) and (rows <= 1 or s0 >= max(1, cols)):
        found.append(("row", s0 if rows > 1 else max(1, cols)))
    if (rows <= 1 or s0 == 1) and (cols <= 1 or s1 >= max(1, rows)):
        found.append(("col", s1 if cols > 1 else max(1, rows)))
    return found


def contiguous_vector(arr):
    """Whether a 1-D array's elements are adjacent (so its address can be passed as is)."""
    return arr.strides is not None and (arr.shape[0] <= 1 or arr.strides[0] == 1)


def aligned_array(obj, xp=np, order="C", dtype=None):
    """obj as an array of that order and dtype whose elements are aligned: obj itself when it
    already is one, else a copy (numpy's ascontiguousarray keeps a misaligned array as it is,
    and the library must never be handed a misaligned pointer)."""
    out = xp.asarray(obj, dtype=dtype, order=order)
    if xp is np and not out.flags.aligned:
        out = np.array(out, dtype=dtype, order=order, copy=True)
    return out


def real_scalar(value, name, function):
    """A real scalar argument (alpha, beta) as a float: Python and numpy numbers and 0-d
    arrays; strings, complex numbers and other objects are refused with TypeError."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (complex, np.complexfloating)):
        raise TypeError(f"{function}: {name} must be real, not {value!r}")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        raise TypeError(f"{function}: {name} must be a real number, not {value!r}")
    return float(value)
