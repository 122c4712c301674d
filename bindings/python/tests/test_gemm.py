# tessera.gemm against a wide-precision numpy oracle: dtypes, memory orders, transposed views,
# strided slices, in-place results, BLAS edge cases, and the checks made before the library.
import threading

import numpy as np
import pytest

import tessera
from conftest import DTYPES, assert_close, gemm_reference, random_matrix


def check_gemm(a, b, c=None, alpha=1.0, beta=0.0, trans_a=False, trans_b=False, **kw):
    c0 = None if c is None else np.array(c, copy=True)
    out = tessera.gemm(a, b, c, alpha=alpha, beta=beta, trans_a=trans_a, trans_b=trans_b, **kw)
    if c is not None:
        assert out is c, "gemm must return the c it was given"
    ref, scale, k = gemm_reference(a, b, c0, alpha, beta, trans_a, trans_b)
    assert out.shape == ref.shape and out.dtype == a.dtype
    assert_close(out, ref, scale, k, a.dtype)
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order_a", "CF")
@pytest.mark.parametrize("order_b", "CF")
@pytest.mark.parametrize("trans_a", [False, True])
@pytest.mark.parametrize("trans_b", [False, True])
@pytest.mark.parametrize("order_c", ["C", "F", None])
def test_orders_and_flags(rng, dtype, order_a, order_b, trans_a, trans_b, order_c):
    m, n, k = 13, 7, 9
    a = random_matrix(rng, (k, m) if trans_a else (m, k), dtype, order_a)
    b = random_matrix(rng, (n, k) if trans_b else (k, n), dtype, order_b)
    if order_c is None:
        check_gemm(a, b, trans_a=trans_a, trans_b=trans_b)
    else:
        c = random_matrix(rng, (m, n), dtype, order_c)
        check_gemm(a, b, c, alpha=-1.5, beta=0.5, trans_a=trans_a, trans_b=trans_b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (1, 17, 3), (17, 1, 3), (5, 6, 1), (64, 64, 64),
                                   (127, 65, 129), (200, 3, 300)])
def test_shapes(rng, dtype, m, n, k):
    check_gemm(random_matrix(rng, (m, k), dtype), random_matrix(rng, (k, n), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("alpha,beta", [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (-1.0, 0.0),
                                        (2.5, -0.75)])
def test_alpha_beta(rng, dtype, alpha, beta):
    a, b = random_matrix(rng, (11, 8), dtype), random_matrix(rng, (8, 6), dtype)
    check_gemm(a, b, random_matrix(rng, (11, 6), dtype), alpha=alpha, beta=beta)


@pytest.mark.parametrize("dtype", DTYPES)
def test_transposed_views_are_not_copied(rng, dtype, monkeypatch):
    def no_copy(*args, **kwargs):
        raise AssertionError("an input was copied")

    monkeypatch.setattr(np, "ascontiguousarray", no_copy)
    base = random_matrix(rng, (20, 30), dtype)
    fbase = np.asfortranarray(random_matrix(rng, (30, 20), dtype))
    check_gemm(base.T, base)                      # 30x20 @ 20x30: a is a transposed view
    check_gemm(base[2:9, 3:25], fbase[:22, 1:4])  # slices keep one unit stride: ld > rows
    check_gemm(fbase.T, base, trans_b=True)       # F-ordered a seen through .T; op(b) = b.T
    c = np.zeros((20, 20), dtype=dtype, order="F")
    check_gemm(base, base, c, trans_b=True)       # c in Fortran order, written in place


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_inputs_are_copied(rng, dtype):
    base = random_matrix(rng, (40, 40), dtype)
    check_gemm(base[::2, ::3], base[::3, ::2][:14, :5])  # no unit stride anywhere
    check_gemm(base[::-1, :7], base[:7, ::-1])           # negative strides
    x = random_matrix(rng, (1, 9), dtype)
    check_gemm(np.broadcast_to(x, (6, 9)), base[:9, :4])  # zero stride


@pytest.mark.parametrize("dtype", DTYPES)
def test_c_view_with_padding(rng, dtype):
    a, b = random_matrix(rng, (5, 4), dtype), random_matrix(rng, (4, 3), dtype)
    big = random_matrix(rng, (9, 8), dtype)
    before = big.copy()
    view = big[2:7, 1:4]                          # row-major with ld 8
    check_gemm(a, b, view, beta=1.0)
    untouched = np.ones(big.shape, bool)
    untouched[2:7, 1:4] = False
    np.testing.assert_array_equal(big[untouched], before[untouched])
    fbig = np.asfortranarray(big)
    check_gemm(a, b, fbig[1:6, 2:5], alpha=2.0, beta=-1.0)  # column-major with ld 9


@pytest.mark.parametrize("dtype", DTYPES)
def test_c_that_cannot_be_written_in_place_is_refused(rng, dtype, no_library):
    a, b = random_matrix(rng, (4, 3), dtype), random_matrix(rng, (3, 5), dtype)
    c = np.zeros((8, 10), dtype=dtype)[::2, ::2]
    with pytest.raises(ValueError, match="cannot be written in place"):
        tessera.gemm(a, b, c)
    with pytest.raises(ValueError, match="in place"):
        tessera.gemm(a, b, np.zeros((4, 5), dtype=dtype)[::-1])


def test_empty_dimensions(rng):
    for m, n, k in [(0, 4, 3), (4, 0, 3), (0, 0, 0)]:
        out = tessera.gemm(np.ones((m, k), np.float32), np.ones((k, n), np.float32))
        assert out.shape == (m, n)
    c = np.full((3, 2), 2.0)
    tessera.gemm(np.ones((3, 0)), np.ones((0, 2)), c, alpha=5.0, beta=3.0)  # k = 0: C = beta*C
    np.testing.assert_array_equal(c, np.full((3, 2), 6.0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_blas_semantics(dtype):
    a = np.full((3, 2), np.nan, dtype)
    b = np.ones((2, 4), dtype)
    c = np.full((3, 4), 2.0, dtype)
    tessera.gemm(a, b, c, alpha=0.0, beta=0.5)  # alpha = 0: A is not read
    np.testing.assert_array_equal(c, np.ones((3, 4), dtype))
    c = np.full((3, 4), np.inf, dtype)
    tessera.gemm(np.ones((3, 2), dtype), b, c, beta=0.0)  # beta = 0: C is not read
    np.testing.assert_array_equal(c, np.full((3, 4), 2.0, dtype))
    a = np.ones((3, 2), dtype)
    a[1, 0] = np.nan
    out = tessera.gemm(a, b)
    assert np.isnan(out[1]).all() and np.isfinite(out[[0, 2]]).all()


def test_python_lists_and_scalars(rng):
    out = tessera.gemm([[1.0, 2.0], [3.0, 4.0]], [[5.0], [6.0]], alpha=np.float32(2))
    np.testing.assert_array_equal(out, [[34.0], [78.0]])
    assert out.dtype == np.float64


@pytest.mark.parametrize("dtype", DTYPES)
def test_with_handles(rng, dtype):
    a, b = random_matrix(rng, (33, 21), dtype), random_matrix(rng, (21, 17), dtype)
    for backend in ("cpu", "reference", "auto"):
        with tessera.Handle(backend=backend, num_threads=2) as h:
            check_gemm(a, b, handle=h)


def test_many_threads_at_once(rng):
    a = random_matrix(rng, (120, 80), np.float64)
    b = random_matrix(rng, (80, 90), np.float64)
    want = tessera.gemm(a, b)
    errors = []
    with tessera.Handle(backend="cpu", num_threads=1) as h:
        def work(i):
            try:
                for _ in range(10):
                    got = tessera.gemm(a, b, handle=h if i % 2 else None)
                    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
            except Exception as e:  # reported from the main thread
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors


# Wrong arguments are refused in Python, before the library is called.

def test_shape_mismatch(no_library):
    with pytest.raises(ValueError, match=r"op\(a\) is 3x4 and op\(b\) is 5x2"):
        tessera.gemm(np.ones((3, 4)), np.ones((5, 2)))
    with pytest.raises(ValueError, match="shapes do not match"):
        tessera.gemm(np.ones((3, 4)), np.ones((4, 2)), trans_a=True)
    with pytest.raises(ValueError, match="c has shape"):
        tessera.gemm(np.ones((3, 4)), np.ones((4, 2)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="2-D"):
        tessera.gemm(np.ones(4), np.ones((4, 2)))
    with pytest.raises(ValueError, match="2-D"):
        tessera.gemm(np.ones((3, 4)), np.ones((4, 2)), np.ones((3, 2, 1)))


def test_dtype_mismatch(no_library):
    with pytest.raises(TypeError, match="does not mix precisions"):
        tessera.gemm(np.ones((2, 2), np.float32), np.ones((2, 2), np.float64))
    with pytest.raises(TypeError, match="c is float32"):
        tessera.gemm(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match=r"astype\(numpy.float64\)"):
        tessera.gemm(np.ones((2, 2), np.int64), np.ones((2, 2), np.int64))
    with pytest.raises(TypeError, match="complex"):
        tessera.gemm(np.ones((2, 2), np.complex128), np.ones((2, 2), np.complex128))
    with pytest.raises(TypeError, match="float16"):
        tessera.gemm(np.ones((2, 2), np.float16), np.ones((2, 2), np.float16))


def test_other_argument_errors(no_library):
    a = np.ones((2, 2))
    with pytest.raises(ValueError, match="beta"):
        tessera.gemm(a, a, beta=1.0)
    with pytest.raises(ValueError, match="read-only"):
        c = np.zeros((2, 2))
        c.flags.writeable = False
        tessera.gemm(a, a, c)
    with pytest.raises(ValueError, match="shares memory with a"):
        tessera.gemm(a, np.ones((2, 2)), a)
    with pytest.raises(TypeError, match="numpy array"):
        tessera.gemm(a, a, [[0.0, 0.0], [0.0, 0.0]])
    with pytest.raises(TypeError, match="alpha must be real"):
        tessera.gemm(a, a, alpha=1j)
    with pytest.raises(TypeError, match="trans_a"):
        tessera.gemm(a, a, trans_a="T")
    with pytest.raises(TypeError, match="handle"):
        tessera.gemm(a, a, handle="cpu")


def test_closed_handle():
    h = tessera.Handle()
    h.close()
    with pytest.raises(ValueError, match="closed"):
        tessera.gemm(np.ones((2, 2)), np.ones((2, 2)), handle=h)
