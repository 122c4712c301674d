# TesseraError, raised when a library call fails, and the helper that turns a status into it.
# The message carries tsr_last_error()'s text, read on the thread that made the call.
from . import _constants
from ._constants import TSR_SUCCESS
from ._library import library

# tsr_status value -> its name in tessera.h ("TSR_SUCCESS", "TSR_ERR_*").
STATUS_NAMES = {value: name for name, value in vars(_constants).items()
                if name == "TSR_SUCCESS" or name.startswith("TSR_ERR_")}


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
    if status != TSR_SUCCESS:
        detail = library().tsr_last_error()
        raise TesseraError(function, status, detail.decode(errors="replace") if detail else "")
