# TesseraError: raised for failed library calls with the status and tsr_last_error()'s text,
# per thread.
import threading

import numpy as np
import pytest

import tessera
from conftest import needs_sparse


@needs_sparse
def test_invalid_sparse_input_carries_the_library_message():
    with pytest.raises(tessera.TesseraError) as info:
        tessera.SparseMatrix.from_csr([0, 2, 1], [0, 1], [1.0, 2.0], (2, 2))  # indptr decreases
    e = info.value
    assert e.status == 1 and e.status_name == "TSR_ERR_INVALID_ARGUMENT"
    assert e.function == "tsr_sparse_create_csr"
    assert "row_ptr" in e.detail  # the library's own words, from tsr_last_error()
    assert str(e) == "tsr_sparse_create_csr: invalid argument: " + \
        e.detail.removeprefix("tsr_sparse_create_csr: ")


@needs_sparse
def test_column_out_of_range():
    with pytest.raises(tessera.TesseraError, match="col"):
        tessera.SparseMatrix.from_coo([0, 1], [0, 5], [1.0, 2.0], (2, 2))


def test_it_is_a_runtime_error():
    assert issubclass(tessera.TesseraError, RuntimeError)


@needs_sparse
def test_messages_are_per_thread():
    messages = {}

    def fail(i):
        bad_col = 10 + i
        try:
            tessera.SparseMatrix.from_coo([0], [bad_col], [1.0], (1, 2))
        except tessera.TesseraError as e:
            messages[i] = e.detail

    threads = [threading.Thread(target=fail, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(messages) == [0, 1, 2, 3]
    for i, text in messages.items():
        assert str(10 + i) in text, text


def test_successful_calls_do_not_raise():
    tessera.gemm(np.ones((3, 3)), np.ones((3, 3)))


def _misaligned(values, dtype):
    """A 1-D array of `values` whose data starts one byte past an aligned address."""
    values = np.asarray(values, dtype=dtype)
    buf = bytearray(values.nbytes + 1)
    out = np.frombuffer(buf, dtype=dtype, offset=1, count=values.size)
    out[...] = values
    assert not out.flags.aligned
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_misaligned_operands_are_copied_not_passed(rng, dtype):
    a_vals, b_vals = rng.standard_normal(6), rng.standard_normal(6)
    a = _misaligned(a_vals, dtype).reshape(2, 3)
    b = _misaligned(b_vals, dtype).reshape(3, 2)
    c = tessera.gemm(a, b)
    # The reference from the values as stored (rounded to dtype); the tolerance scaled by
    # |a|·|b|, so that a sum that cancels is held to the error its terms allow.
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(c, a64 @ b64, rtol=tol, atol=tol * np.max(np.abs(a64) @ np.abs(b64)))
    c_bad = _misaligned(np.zeros(4), dtype).reshape(2, 2)
    with pytest.raises(ValueError, match="aligned"):
        tessera.gemm(a, b, c_bad)


@needs_sparse
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_misaligned_vectors_and_arrays_in_sparse_calls(rng, dtype):
    # References from the values as stored (rounded to dtype); tolerances scaled by |A|·|x|, so
    # that a row whose two products cancel is held to the error its terms allow.
    vals = rng.standard_normal(3).astype(dtype).astype(np.float64)
    A = tessera.SparseMatrix.from_coo(_misaligned([0, 1, 1], np.int64), _misaligned([0, 0, 1], np.int64),
                                      _misaligned(vals, dtype), (2, 2))
    dense = np.array([[vals[0], 0.0], [vals[1], vals[2]]])
    x_vals = rng.standard_normal(2).astype(dtype).astype(np.float64)
    x = _misaligned(x_vals, dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12

    def close(got, want, scale):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.max(scale))

    close(A @ x, dense @ x_vals, np.abs(dense) @ np.abs(x_vals))
    close(tessera.spmv(1.0, A, x), dense @ x_vals, np.abs(dense) @ np.abs(x_vals))
    X = _misaligned(rng.standard_normal(4), dtype).reshape(2, 2)
    X64 = X.astype(np.float64)
    close(A @ X, dense @ X64, np.abs(dense) @ np.abs(X64))
    with pytest.raises(ValueError, match="aligned"):
        tessera.spmv(1.0, A, x, 0.0, _misaligned([0.0, 0.0], dtype))


@pytest.mark.parametrize("bad", ["3", b"3", None, [1.0], 1j, True])
def test_scalars_must_be_real_numbers(bad):
    a = np.ones((2, 2))
    with pytest.raises(TypeError, match="alpha"):
        tessera.gemm(a, a, alpha=bad)
    with pytest.raises(TypeError, match="beta"):
        tessera.gemm(a, a, np.zeros((2, 2)), beta=bad)
    # numpy scalars and 0-d arrays are numbers
    np.testing.assert_allclose(tessera.gemm(a, a, alpha=np.float32(2), beta=np.array(0.0)), 4.0)


@needs_sparse
def test_sparse_scalars_must_be_real_numbers():
    A = tessera.SparseMatrix.from_coo([0], [0], [1.0], (1, 1))
    with pytest.raises(TypeError, match="alpha"):
        tessera.spmv("3", A, np.ones(1))


@needs_sparse
def test_sizes_beyond_memory_are_refused_not_fatal():
    # the allocation's size once wrapped to zero and the interpreter died
    for shape in [(2**61 - 1, 1), (1, 2**61 - 1), (2**62, 2)]:
        with pytest.raises(tessera.TesseraError):
            tessera.SparseMatrix.from_coo([], [], [], shape)
