# tessera.Handle: a library handle (backend, thread count, CUDA stream) as a context manager,
# and the module-level questions about backends.
import ctypes

from ._constants import TSR_BACKEND_AUTO, TSR_BACKEND_CPU, TSR_BACKEND_CUDA, TSR_BACKEND_REFERENCE
from ._errors import TesseraError, check
from ._library import library
from ._owned import Owned

_BACKEND_VALUES = {"auto": TSR_BACKEND_AUTO, "cpu": TSR_BACKEND_CPU, "cuda": TSR_BACKEND_CUDA,
                   "reference": TSR_BACKEND_REFERENCE}
_BACKEND_NAMES = {value: name for name, value in _BACKEND_VALUES.items()}
BACKENDS = tuple(_BACKEND_VALUES)  # the names a handle takes, "auto" first


def backend_value(name):
    """tsr_backend for a name ("auto", "cpu", "cuda", "reference")."""
    if not isinstance(name, str) or name.lower() not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, not {name!r}")
    return _BACKEND_VALUES[name.lower()]


def backend_available(name):
    """Whether a backend can run here (``"cuda"`` needs the plugin, a driver and a device)."""
    ok = ctypes.c_int(0)
    check("tsr_backend_available", library().tsr_backend_available(backend_value(name), ok))
    return bool(ok.value)


def backend_unavailable_reason(name):
    """Why a backend cannot run here, or None when it can."""
    lib = library()
    ok = ctypes.c_int(0)
    check("tsr_backend_available", lib.tsr_backend_available(backend_value(name), ok))
    if ok.value:
        return None
    return lib.tsr_last_error().decode(errors="replace")


class Handle(Owned):
    """A Tessera handle: where calls run and with how many threads.

    ``Handle()`` takes its backend from ``TESSERA_BACKEND`` (default ``"auto"``) and its
    thread count from ``TESSERA_NUM_THREADS`` / ``OMP_NUM_THREADS``. Use it as a context
    manager, or call :meth:`close`; a handle that is garbage collected is closed too.

    >>> with tessera.Handle(backend="cpu", num_threads=4) as h:
    ...     c = tessera.gemm(a, b, handle=h)

    Compute calls on one handle may run from many threads at once; changing the backend,
    thread count or stream must not race with them.
    """

    def __init__(self, backend=None, num_threads=None):
        self._lib = library()  # keeps the library alive as long as the handle
        self._ptr = None
        self._num_threads = None
        raw = ctypes.c_void_p()
        check("tsr_create", self._lib.tsr_create(ctypes.byref(raw)))
        self._ptr = raw.value
        try:
            if backend is not None:
                self.backend = backend
            if num_threads is not None:
                self.num_threads = num_threads
        except BaseException:
            self.close()
            raise

    @property
    def _as_parameter_(self):
        if self._ptr is None:
            raise ValueError("this tessera.Handle is closed")
        return ctypes.c_void_p(self._ptr)

    @property
    def closed(self):
        return self._ptr is None

    @property
    def backend(self):
        """The backend calls are sent to: "auto", "cpu", "cuda" or "reference".
        Setting an unavailable one raises TesseraError and keeps the previous one."""
        value = ctypes.c_int(0)
        check("tsr_get_backend",
              self._lib.tsr_get_backend(self._as_parameter_, ctypes.byref(value)))
        return _BACKEND_NAMES.get(value.value, str(value.value))

    @backend.setter
    def backend(self, name):
        value = backend_value(name)
        check("tsr_set_backend", self._lib.tsr_set_backend(self._as_parameter_, value))

    @property
    def num_threads(self):
        """CPU threads for this handle's calls, as set through this property; None while
        the handle follows the environment (TESSERA_NUM_THREADS, OMP_NUM_THREADS, all cores)."""
        return self._num_threads

    @num_threads.setter
    def num_threads(self, n):
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"num_threads must be an int, not {type(n).__name__}")
        if n < 1 or n > 2**31 - 1:
            raise ValueError(f"num_threads must be >= 1, not {n}")
        check("tsr_set_num_threads", self._lib.tsr_set_num_threads(self._as_parameter_, n))
        self._num_threads = n

    def set_strassen(self, levels, min_block=0):
        """Opts this handle's CPU products into Strassen's method: ``levels`` 0 (classical,
        the default), 1 or 2, splitting no block below ``min_block`` (0: the library's
        default, 1024). Strassen is accurate in norm, not element by element (see
        docs/accuracy.md). Raises ValueError for other values."""
        for name, v in (("levels", levels), ("min_block", min_block)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"{name} must be an int, not {type(v).__name__}")
        if levels not in (0, 1, 2):
            raise ValueError(f"levels must be 0, 1 or 2, not {levels}")
        if min_block < 0 or min_block > 2**62:
            raise ValueError(f"min_block must be >= 0, not {min_block}")
        check("tsr_set_strassen",
              self._lib.tsr_set_strassen(self._as_parameter_, levels, min_block))

    def set_cuda_stream(self, stream):
        """Orders this handle's CUDA calls on a stream: a cudaStream_t as an int, or an object
        with a ``ptr`` attribute (a cupy Stream). Raises TesseraError without the CUDA backend."""
        ptr = getattr(stream, "ptr", stream)
        check("tsr_set_cuda_stream",
              self._lib.tsr_set_cuda_stream(self._as_parameter_, ctypes.c_void_p(ptr or 0)))

    def set_cuda_devices(self, devices=None):
        """Spreads this handle's CUDA products with host operands over several GPUs: a sequence
        of distinct device ordinals (the first is the handle's own device), or None for every
        GPU of the host. Raises TesseraError for a bad list (nothing changes) or without the
        CUDA backend."""
        if devices is None:
            check("tsr_set_cuda_devices",
                  self._lib.tsr_set_cuda_devices(self._as_parameter_, 0, None))
            return
        ids = list(devices)
        for d in ids:
            if isinstance(d, bool) or not isinstance(d, int):
                raise TypeError(f"device ordinals must be ints, not {type(d).__name__}")
        if not ids:
            raise ValueError("devices must name at least one device, or be None for all")
        array = (ctypes.c_int * len(ids))(*ids)
        check("tsr_set_cuda_devices",
              self._lib.tsr_set_cuda_devices(self._as_parameter_, len(ids), array))

    def _free(self, ptr):  # close() (see Owned): later calls with the handle raise ValueError
        check("tsr_destroy", self._lib.tsr_destroy(ctypes.c_void_p(ptr)))

    def __enter__(self):
        if self._ptr is None:
            raise ValueError("this tessera.Handle is closed")
        return self

    def __repr__(self):
        if self._ptr is None:
            return "<tessera.Handle closed>"
        threads = "environment" if self._num_threads is None else self._num_threads
        return f"<tessera.Handle backend={self.backend!r} num_threads={threads}>"


def handle_parameter(handle):
    """The ctypes argument for an optional handle (None: the process-wide default handle)."""
    if handle is None:
        return None
    if not isinstance(handle, Handle):
        raise TypeError(f"handle must be a tessera.Handle or None, not {type(handle).__name__}")
    return handle._as_parameter_


__all__ = ["Handle", "TesseraError", "backend_available"]
