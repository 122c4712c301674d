# TesseraError, raised when a library call fails, and the helper that turns a status into it.
# The message carries tsr_last_error()'s text, read on the thread that made the call.
from ._library import library

STATUS_NAMES = {
    0: "TSR_SUCCESS",
    1: "TSR_ERR_INVALID_ARGUMENT",
    2: "TSR_ERR_BACKEND_UNAVAILABLE",
    3: "TSR_ERR_OUT_OF_MEMORY",
    4: "TSR_ERR_DEVICE",
    5: "TSR_ERR_NOT_SUPPORTED",
    6: "TSR_ERR_INTERNAL",
}


class TesseraError(RuntimeError):
    """A call into libtessera failed.

    Attributes: ``status`` (the tsr_status code), ``status_name`` (for example
    ``"TSR_ERR_INVALID_ARGUMENT"``), ``function`` (the C function) and ``detail``
    (the library's own explanation, from ``tsr_last_error()``).
    """

    def __init__(self, function, status, detail):
        self.function = function
        self.status = status
        self.status_name = STATUS_NAMES.get(status, f"status {status}")
        self.detail = detail
        text = library().tsr_status_string(status).decode()
        # The library's messages usually start with the function's name: say it once.
        rest = detail[len(function) + 2:] if detail.startswith(function + ": ") else detail
        super().__init__(f"{function}: {text}: {rest}" if rest else f"{function}: {text}")


def check(function, status):
    """Raises TesseraError unless status is TSR_SUCCESS."""
    if status != 0:
        detail = library().tsr_last_error()
        raise TesseraError(function, status, detail.decode(errors="replace") if detail else "")
