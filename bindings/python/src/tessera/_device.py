# Device (CUDA) arrays: the checks before a call with them, the handle that orders the call on
# cupy's current stream, and new device arrays for results.
import sys
import threading

from ._handle import Handle, backend_unavailable_reason

_local = threading.local()


def require_cuda(function):
    """Raises when device arrays are passed but the CUDA backend cannot run here."""
    reason = backend_unavailable_reason("cuda")
    if reason is not None:
        raise RuntimeError(f"{function}: device arrays need Tessera's CUDA backend, which is not "
                           f"available here ({reason}); pass numpy arrays instead")


def device_handle(handle, function):
    """The handle for a call on device arrays. A user's handle is used as it is (its backend
    must be able to read device memory: "auto" or "cuda"). Without one, a per-thread handle
    ordered on cupy's current stream is used, so the call sits in line with the user's work."""
    if handle is not None:
        if handle.backend in ("cpu", "reference"):
            raise ValueError(f"{function}: device arrays cannot be read by the handle's "
                             f"{handle.backend!r} backend; use backend 'cuda' or 'auto'")
        return handle
    h = getattr(_local, "handle", None)
    if h is None or h.closed:
        h = Handle()
        h.backend = "cuda"
        _local.handle = h
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        h.set_cuda_stream(cupy.cuda.get_current_stream().ptr)
    return h


def module_of(x):
    """The array module (cupy) that made a device array, for allocating results like it."""
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(x, cupy.ndarray):
        return cupy
    raise TypeError(f"device arrays of type {type(x).__name__} are accepted only with an "
                    "output given; results are allocated for cupy arrays only")
