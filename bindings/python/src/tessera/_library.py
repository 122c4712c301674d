# Finds libtessera.so and declares the C functions of tessera.h to ctypes.
# Order: $TESSERA_LIBRARY, the copy bundled in the wheel, then the system's search paths.
import ctypes
import ctypes.util
import os
import pathlib
import threading

from ._constants import TSR_VERSION_MAJOR

# The ABI this package speaks: the major version of the library (its SONAME number).
ABI_MAJOR = TSR_VERSION_MAJOR
SONAME = f"libtessera.so.{ABI_MAJOR}"

_c_int = ctypes.c_int
_i64 = ctypes.c_int64
_ptr = ctypes.c_void_p

# name: (restype, argtypes). Enums are C ints; arrays are passed as addresses.
_DENSE = {
    "tsr_version": (ctypes.c_char_p, []),
    "tsr_status_string": (ctypes.c_char_p, [_c_int]),
    "tsr_last_error": (ctypes.c_char_p, []),
    "tsr_create": (_c_int, [ctypes.POINTER(_ptr)]),
    "tsr_destroy": (_c_int, [_ptr]),
    "tsr_set_backend": (_c_int, [_ptr, _c_int]),
    "tsr_get_backend": (_c_int, [_ptr, ctypes.POINTER(_c_int)]),
    "tsr_backend_available": (_c_int, [_c_int, ctypes.POINTER(_c_int)]),
    "tsr_set_num_threads": (_c_int, [_ptr, _c_int]),
    "tsr_set_cuda_stream": (_c_int, [_ptr, _ptr]),
    "tsr_set_cuda_devices": (_c_int, [_ptr, _c_int, ctypes.POINTER(_c_int)]),
    "tsr_set_strassen": (_c_int, [_ptr, _c_int, _i64]),
    "tsr_sgemm": (_c_int, [_ptr, _c_int, _c_int, _c_int, _i64, _i64, _i64, ctypes.c_float,
                           _ptr, _i64, _ptr, _i64, ctypes.c_float, _ptr, _i64]),
    "tsr_dgemm": (_c_int, [_ptr, _c_int, _c_int, _c_int, _i64, _i64, _i64, ctypes.c_double,
                           _ptr, _i64, _ptr, _i64, ctypes.c_double, _ptr, _i64]),
}

_SPARSE = {
    "tsr_sparse_create_csr": (_c_int, [_ptr, ctypes.POINTER(_ptr), _c_int, _c_int, _i64, _i64,
                                       _i64, _ptr, _ptr, _ptr]),
    "tsr_sparse_create_coo": (_c_int, [_ptr, ctypes.POINTER(_ptr), _c_int, _c_int, _i64, _i64,
                                       _i64, _ptr, _ptr, _ptr]),
    "tsr_sparse_optimize": (_c_int, [_ptr, _ptr, _c_int]),
    "tsr_sparse_get_format": (_c_int, [_ptr, ctypes.POINTER(_c_int)]),
    "tsr_sparse_destroy": (_c_int, [_ptr]),
    "tsr_sspmv": (_c_int, [_ptr, _c_int, ctypes.c_float, _ptr, _ptr, ctypes.c_float, _ptr]),
    "tsr_dspmv": (_c_int, [_ptr, _c_int, ctypes.c_double, _ptr, _ptr, ctypes.c_double, _ptr]),
}

_SPMM = {
    "tsr_sspmm": (_c_int, [_ptr, _c_int, _c_int, _i64, ctypes.c_float, _ptr, _ptr, _i64,
                           ctypes.c_float, _ptr, _i64]),
    "tsr_dspmm": (_c_int, [_ptr, _c_int, _c_int, _i64, ctypes.c_double, _ptr, _ptr, _i64,
                           ctypes.c_double, _ptr, _i64]),
}

_PLAN = {
    "tsr_gemm_plan_create": (_c_int, [_ptr, ctypes.POINTER(_ptr), _c_int, _c_int, _c_int, _c_int, _i64,
                                      _i64, _i64, _i64, _i64, _i64]),
    "tsr_gemm_plan_execute": (_c_int, [_ptr, ctypes.c_double, _ptr, _ptr, ctypes.c_double, _ptr]),
    "tsr_gemm_plan_execute_strided": (_c_int, [_ptr, _i64, ctypes.c_double, _ptr, _i64, _ptr, _i64,
                                               ctypes.c_double, _ptr, _i64]),
    "tsr_gemm_plan_destroy": (_c_int, [_ptr]),
}


def _bundled_path():
    return pathlib.Path(__file__).resolve().parent / "_lib" / SONAME


def _candidates():
    """(description, path or name) pairs, in the order they are tried."""
    explicit = os.environ.get("TESSERA_LIBRARY")
    if explicit:
        # An explicit choice is the only one: falling back silently would hide a mistake.
        return [("$TESSERA_LIBRARY", explicit)]
    found = [("bundled with the package", str(_bundled_path()))]
    found.append(("the loader's search path", SONAME))
    name = ctypes.util.find_library("tessera")
    if name and name != SONAME:
        found.append(("ldconfig", name))
    return found


class _Library:
    """The loaded library and what it offers."""

    def __init__(self):
        tried = []
        for origin, path in _candidates():
            if origin == "bundled with the package" and not os.path.exists(path):
                tried.append(f"{path} ({origin}): not present")
                continue
            try:
                cdll = ctypes.CDLL(path)
            except OSError as e:
                tried.append(f"{path} ({origin}): {e}")
                continue
            self.cdll = cdll
            self.origin = origin
            self.path = _loaded_path(cdll, path)
            break
        else:
            raise ImportError(
                "tessera: cannot load libtessera. Tried:\n  " + "\n  ".join(tried) +
                "\nInstall the package with `pip install ./bindings/python` (which bundles the "
                "library), install libtessera on the system, or set TESSERA_LIBRARY to the path of "
                f"{SONAME}.")
        for name, (restype, argtypes) in _DENSE.items():
            try:
                fn = getattr(self.cdll, name)
            except AttributeError:
                raise ImportError(f"tessera: {self.path} does not export {name}: it is not a "
                                  "Tessera library, or a very old one") from None
            fn.restype, fn.argtypes = restype, argtypes
        self.version = self.cdll.tsr_version().decode()
        major = int(self.version.split(".")[0])
        if major != ABI_MAJOR:
            raise ImportError(f"tessera: {self.path} is version {self.version}; this package "
                              f"speaks ABI {ABI_MAJOR} ({SONAME})")
        # The sparse and plan functions may be absent from an older library; dense calls still work.
        self.has_sparse = self._bind_optional(_SPARSE)
        self.has_plans = self._bind_optional(_PLAN)
        self.has_spmm = self._bind_optional(_SPMM)  # sparse x dense blocks (2-D A @ X)

    def _bind_optional(self, functions):
        """Declares those of `functions` the library has; whether it has them all."""
        complete = True
        for name, (restype, argtypes) in functions.items():
            fn = getattr(self.cdll, name, None)
            if fn is None:
                complete = False
                continue
            fn.restype, fn.argtypes = restype, argtypes
        return complete

    def __getattr__(self, name):
        return getattr(self.cdll, name)


def _loaded_path(cdll, requested):
    """The file the dynamic loader actually opened (dladdr of a known symbol)."""
    try:
        class _DlInfo(ctypes.Structure):
            _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                        ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]
        libc = ctypes.CDLL(None)
        dladdr = libc.dladdr
        dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
        dladdr.restype = ctypes.c_int
        info = _DlInfo()
        address = ctypes.cast(cdll.tsr_version, ctypes.c_void_p).value
        if dladdr(address, ctypes.byref(info)) and info.dli_fname:
            return os.path.realpath(info.dli_fname.decode())
    except (AttributeError, OSError):
        pass
    return requested


_lock = threading.Lock()
_library = None


def library():
    """The loaded library (loaded on first use, once)."""
    global _library
    if _library is None:
        with _lock:
            if _library is None:
                _library = _Library()
    return _library
