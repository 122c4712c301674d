# The life of an object that owns a library pointer (a handle, a sparse matrix, a gemm plan):
# close() frees it once (closing twice is fine), a `with` block closes it, and so does collection.


class Owned:
    """Base of the classes holding `self._ptr`; each says how to free it in `_free(ptr)`."""

    _ptr = None

    def _free(self, ptr):
        raise NotImplementedError

    def close(self):
        ptr, self._ptr = self._ptr, None
        if ptr is not None:
            self._free(ptr)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
