# tessera.SparseMatrix, tessera.spmv and tessera.spmm against scipy.sparse: every scipy format in,
# every storage format chosen, A @ x, A.T @ x, x @ A (vectors and 2-D blocks), in-place spmv and
# spmm, and the checks before the library.
import threading

import numpy as np
import pytest

import tessera
from conftest import DTYPES, needs_sparse

sp = pytest.importorskip("scipy.sparse")
pytestmark = needs_sparse


def random_sparse(rng, shape, density, dtype, fmt="csr", index=np.int32):
    m = sp.random(*shape, density=density, random_state=rng, format="coo", dtype=np.float64)
    m.data = rng.uniform(-1, 1, m.nnz)
    m = m.astype(dtype).asformat(fmt)
    if fmt == "csr":
        m.indptr, m.indices = m.indptr.astype(index), m.indices.astype(index)
    return m


def banded(n, offsets, dtype):
    diags = [np.linspace(1, 2, n - abs(o)) * (1 + 0.1 * i) for i, o in enumerate(offsets)]
    return sp.diags(diags, offsets, shape=(n, n), format="csr", dtype=dtype)


def spmv_reference(m, x, trans=False):
    wide = np.float64 if m.dtype == np.float32 else np.longdouble
    dense = m.toarray().astype(wide)
    dense = dense.T if trans else dense
    x = x.astype(wide)
    return dense @ x, np.abs(dense) @ np.abs(x), m.shape[0 if trans else 1]


def assert_spmv_close(got, ref, scale, n, dtype):
    u = np.finfo(dtype).eps / 2
    bound = 4 * (n + 2) * u * scale + np.finfo(dtype).tiny
    err = np.abs(np.asarray(got, dtype=ref.dtype) - ref)
    assert (err <= bound).all(), f"max excess {np.max(err - bound)}"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "bsr", "dia", "lil", "dok"])
def test_from_scipy_every_format(rng, dtype, fmt):
    m = random_sparse(rng, (40, 30), 0.15, dtype, "coo")
    A = tessera.SparseMatrix.from_scipy(m.asformat(fmt))
    assert A.shape == (40, 30) and A.dtype == dtype and A.format == "csr"
    x = rng.uniform(-1, 1, 30).astype(dtype)
    y = A @ x
    assert y.dtype == dtype and y.shape == (40,)
    ref, scale, n = spmv_reference(m, x)
    assert_spmv_close(y, ref, scale, n, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("fmt", ["auto", "csr", "coo", "ell", "hyb"])
def test_products_in_every_storage_format(rng, dtype, index, fmt):
    m = random_sparse(rng, (120, 90), 0.05, dtype, "csr", index)
    A = tessera.SparseMatrix.from_scipy(m).optimize(fmt)
    if fmt != "auto":
        assert A.format == fmt
    assert A.format in tessera.FORMATS[1:]
    x = rng.uniform(-1, 1, 90).astype(dtype)
    ref, scale, n = spmv_reference(m, x)
    assert_spmv_close(A @ x, ref, scale, n, dtype)
    xt = rng.uniform(-1, 1, 120).astype(dtype)
    ref, scale, n = spmv_reference(m, xt, trans=True)
    assert_spmv_close(A.T @ xt, ref, scale, n, dtype)
    assert_spmv_close(xt @ A, ref, scale, n, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_banded_matrix_dia(rng, dtype):
    m = banded(200, [-2, 0, 1, 5], dtype)
    A = tessera.SparseMatrix.from_scipy(m)
    assert A.optimize("auto").format in tessera.FORMATS[1:]
    A.optimize("dia")
    assert A.format == "dia"
    x = rng.uniform(-1, 1, 200).astype(dtype)
    ref, scale, n = spmv_reference(m, x)
    assert_spmv_close(A @ x, ref, scale, n, dtype)
    ref, scale, n = spmv_reference(m, x, trans=True)
    assert_spmv_close(A.T @ x, ref, scale, n, dtype)


def test_mostly_padding_is_refused(rng):
    m = sp.lil_matrix((300, 300))
    m[0, :] = 1.0          # one long row: ELL would be mostly padding
    m[np.arange(300), np.arange(300)] = 2.0
    m[299, 0] = 3.0        # a far diagonal: DIA too
    A = tessera.SparseMatrix.from_scipy(m.tocsr())
    for fmt in ("ell", "dia"):
        with pytest.raises(tessera.TesseraError) as info:
            A.optimize(fmt)
        assert info.value.status_name == "TSR_ERR_NOT_SUPPORTED"
        assert A.format == "csr"  # unchanged


@pytest.mark.parametrize("dtype", DTYPES)
def test_spmv_in_place(rng, dtype):
    m = random_sparse(rng, (50, 70), 0.1, dtype)
    A = tessera.SparseMatrix.from_scipy(m)
    x = rng.uniform(-1, 1, 70).astype(dtype)
    y = rng.uniform(-1, 1, 50).astype(dtype)
    y0 = y.copy()
    out = tessera.spmv(2.0, A, x, -0.5, y)
    assert out is y
    ref = 2.0 * (m.astype(np.float64) @ x.astype(np.float64)) - 0.5 * y0
    np.testing.assert_allclose(y, ref, rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-5)
    z = rng.uniform(-1, 1, 70).astype(dtype)
    tessera.spmv(1.0, A.T, y, 1.0, z)
    new = tessera.spmv(1.0, A.T, y)  # beta = 0, y = None: a new vector
    assert new.shape == (70,)
    np.testing.assert_allclose(new, m.T.astype(np.float64) @ y.astype(np.float64),
                               rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-5)


def test_spmv_semantics():
    A = tessera.SparseMatrix.from_csr([0, 1, 2], [0, 1], [1.0, 2.0], (2, 2))
    y = np.full(2, np.nan)
    tessera.spmv(1.0, A, np.array([1.0, 1.0]), 0.0, y)  # beta = 0: y is not read
    np.testing.assert_array_equal(y, [1.0, 2.0])
    y = np.array([3.0, 4.0])
    tessera.spmv(0.0, A, np.array([np.nan, np.nan]), 2.0, y)  # alpha = 0: x is not read
    np.testing.assert_array_equal(y, [6.0, 8.0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_block_products_in_each_order(rng, dtype, order):
    m = random_sparse(rng, (70, 45), 0.1, dtype)
    A = tessera.SparseMatrix.from_scipy(m)
    for k in (1, 3, 16, 33):
        X = np.asarray(rng.uniform(-1, 1, (45, k)), dtype=dtype, order=order)
        ref, scale, n = spmv_reference(m, X)
        Y = A @ X
        assert Y.shape == (70, k) and Y.dtype == dtype
        assert Y.flags["C_CONTIGUOUS" if order == "C" else "F_CONTIGUOUS"]
        assert_spmv_close(Y, ref, scale, n, dtype)
        W = np.asarray(rng.uniform(-1, 1, (70, k)), dtype=dtype, order=order)
        ref, scale, n = spmv_reference(m, W, trans=True)
        assert_spmv_close(A.T @ W, ref, scale, n, dtype)


def test_spmm_in_place_on_views(rng):
    m = random_sparse(rng, (40, 30), 0.2, np.float64)
    A = tessera.SparseMatrix.from_scipy(m)
    dense = m.toarray()
    big_x = rng.uniform(-1, 1, (30, 12))
    X = big_x[:, 2:9]  # a row-major view with a leading dimension of 12
    big_y = rng.uniform(-1, 1, (40, 10))
    Y = big_y[:, 1:8]
    before = big_y.copy()
    out = tessera.spmm(2.0, A, X, -0.5, Y)
    assert out is Y
    np.testing.assert_allclose(Y, 2.0 * dense @ X - 0.5 * before[:, 1:8], rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(big_y[:, :1], before[:, :1])  # outside the view: untouched
    np.testing.assert_array_equal(big_y[:, 8:], before[:, 8:])
    # Y in Fortran order, X in C order: X is copied to Y's order.
    YF = np.asfortranarray(np.full((40, 7), np.nan))
    tessera.spmm(1.0, A, X, 0.0, YF)  # beta = 0: Y is not read
    np.testing.assert_allclose(YF, dense @ X, rtol=1e-12, atol=1e-13)
    # A.T and a new Y.
    Z = tessera.spmm(1.0, A.T, np.asfortranarray(big_y[:, :5]))
    np.testing.assert_allclose(Z, dense.T @ big_y[:, :5], rtol=1e-12, atol=1e-13)


def test_spmm_refusals(rng):
    m = random_sparse(rng, (8, 6), 0.4, np.float64)
    A = tessera.SparseMatrix.from_scipy(m)
    X = rng.uniform(-1, 1, (6, 3))
    with pytest.raises(ValueError, match="rows"):
        tessera.spmm(1.0, A, rng.uniform(-1, 1, (5, 3)))
    with pytest.raises(TypeError, match="float32"):
        tessera.spmm(1.0, A, X.astype(np.float32))
    with pytest.raises(ValueError, match="shape"):
        tessera.spmm(1.0, A, X, 0.0, np.zeros((8, 4)))
    with pytest.raises(ValueError, match="beta"):
        tessera.spmm(1.0, A, X, 1.0)
    Y = np.zeros((8, 3))
    Y.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        tessera.spmm(1.0, A, X, 0.0, Y)
    both = np.zeros((8, 6))
    with pytest.raises(ValueError, match="shares memory"):
        tessera.spmm(1.0, A, both[:6, :3], 0.0, both[:, 3:])


def test_two_dimensional_x(rng):
    m = random_sparse(rng, (30, 20), 0.2, np.float64)
    A = tessera.SparseMatrix.from_scipy(m)
    X = rng.uniform(-1, 1, (20, 4))
    np.testing.assert_allclose(A @ X, m @ X, rtol=1e-12, atol=1e-14)
    Y = rng.uniform(-1, 1, (30, 3))
    np.testing.assert_allclose(A.T @ Y, m.T @ Y, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(Y.T @ A, Y.T @ m, rtol=1e-12, atol=1e-14)


def test_from_csr_and_from_coo():
    dense = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [3.0, 4.0, 0.0]])
    x = np.array([1.0, 10.0, 100.0])
    # unsorted columns and a repeated column in row 2 (summed: 1 + 2 = 3)
    A = tessera.SparseMatrix.from_csr([0, 2, 2, 5], [2, 0, 1, 0, 0], [2.0, 1.0, 4.0, 1.0, 2.0],
                                      (3, 3))
    np.testing.assert_array_equal(A @ x, dense @ x)
    # coordinates in any order, duplicates summed
    B = tessera.SparseMatrix.from_coo([2, 0, 2, 0, 2], [1, 2, 0, 0, 0],
                                      [4.0, 2.0, 1.0, 1.0, 2.0], (3, 3))
    np.testing.assert_array_equal(B @ x, dense @ x)
    np.testing.assert_array_equal(B.T @ x, dense.T @ x)
    C = tessera.SparseMatrix.from_coo(np.array([0], np.int64), np.array([1], np.uint32), [5.0],
                                      (1, 2), dtype=np.float32)
    assert C.dtype == np.float32
    np.testing.assert_array_equal(C @ np.ones(2, np.float32), [5.0])


def test_empty_matrices():
    Z = tessera.SparseMatrix.from_csr([0, 0, 0], [], [], (2, 3), dtype=np.float64)
    np.testing.assert_array_equal(Z @ np.ones(3), [0.0, 0.0])
    E = tessera.SparseMatrix.from_coo([], [], np.array([], np.float32), (0, 4))
    assert (E @ np.ones(4, np.float32)).shape == (0,)
    np.testing.assert_array_equal(E.T @ np.ones(0, np.float32), np.zeros(4, np.float32))


def test_integer_values_need_a_dtype():
    adjacency = sp.csr_matrix(np.array([[0, 1], [1, 0]]))
    with pytest.raises(TypeError, match="dtype=numpy.float64"):
        tessera.SparseMatrix.from_scipy(adjacency)
    A = tessera.SparseMatrix.from_scipy(adjacency, dtype=np.float64)
    np.testing.assert_array_equal(A @ np.array([1.0, 2.0]), [2.0, 1.0])


def test_non_contiguous_x_is_copied(rng):
    m = random_sparse(rng, (10, 8), 0.3, np.float64)
    A = tessera.SparseMatrix.from_scipy(m)
    x = rng.uniform(-1, 1, 16)[::2]
    np.testing.assert_allclose(A @ x, m @ x, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("backend", ["cpu", "reference"])
def test_with_a_handle(rng, backend):
    m = random_sparse(rng, (64, 64), 0.1, np.float64)
    x = rng.uniform(-1, 1, 64)
    with tessera.Handle(backend=backend) as h:
        A = tessera.SparseMatrix.from_scipy(m, handle=h).optimize()
        assert A.handle is h
        np.testing.assert_allclose(A @ x, m @ x, rtol=1e-12, atol=1e-14)
        y = np.zeros(64)
        tessera.spmv(1.0, A, x, 0.0, y, handle=h)
        np.testing.assert_allclose(y, m @ x, rtol=1e-12, atol=1e-14)


def test_products_from_many_threads(rng):
    m = random_sparse(rng, (500, 400), 0.02, np.float64)
    A = tessera.SparseMatrix.from_scipy(m).optimize()
    xs = [rng.uniform(-1, 1, 400) for _ in range(4)]
    errors = []

    def work(x):
        try:
            for _ in range(20):
                np.testing.assert_allclose(A @ x, m @ x, rtol=1e-12, atol=1e-13)
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(x,)) for x in xs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_close():
    A = tessera.SparseMatrix.from_csr([0, 1], [0], [1.0], (1, 1))
    with A:
        assert "nnz=1" in repr(A)
    A.close()
    assert repr(A) == "<tessera.SparseMatrix closed>"
    with pytest.raises(ValueError, match="closed"):
        A @ np.ones(1)
    with pytest.raises(ValueError, match="closed"):
        _ = A.format


def test_cannot_be_made_directly():
    with pytest.raises(TypeError, match="from_scipy"):
        tessera.SparseMatrix()


# Wrong arguments are refused in Python, before the library is called.

def test_argument_errors(no_library):
    with pytest.raises(ValueError, match="indptr has 2 entries"):
        tessera.SparseMatrix.from_csr([0, 1], [0], [1.0], (2, 2))
    with pytest.raises(ValueError, match="2 column indices but 1 values"):
        tessera.SparseMatrix.from_csr([0, 2], [0, 1], [1.0], (1, 2))
    with pytest.raises(ValueError, match="row indices"):
        tessera.SparseMatrix.from_coo([0, 0], [0], [1.0], (1, 1))
    with pytest.raises(ValueError, match="negative"):
        tessera.SparseMatrix.from_coo([], [], [], (-1, 1), dtype=np.float64)
    with pytest.raises(TypeError, match="integers"):
        tessera.SparseMatrix.from_coo([0.5], [0], [1.0], (1, 1))
    with pytest.raises(TypeError, match="float32 or float64"):
        tessera.SparseMatrix.from_coo([0], [0], [1.0], (1, 1), dtype=np.complex64)
    with pytest.raises(TypeError, match="scipy.sparse"):
        tessera.SparseMatrix.from_scipy(np.eye(2))


def test_product_argument_errors():
    A = tessera.SparseMatrix.from_csr([0, 1, 2], [0, 2], [1.0, 2.0], (2, 3))
    with pytest.raises(ValueError, match="A is 2x3"):
        A @ np.ones(2)
    with pytest.raises(ValueError, match="A.T is 3x2"):
        A.T @ np.ones(3)
    with pytest.raises(TypeError, match="astype"):
        A @ np.ones(3, np.float32)
    with pytest.raises(ValueError, match=r"y must have shape \(2,\)"):
        tessera.spmv(1.0, A, np.ones(3), 0.0, np.ones(3))
    with pytest.raises(ValueError, match="contiguous"):
        tessera.spmv(1.0, A, np.ones(3), 0.0, np.ones(4)[::2])
    y = np.ones(2)
    y.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        tessera.spmv(1.0, A, np.ones(3), 0.0, y)
    with pytest.raises(ValueError, match="beta"):
        tessera.spmv(1.0, A, np.ones(3), 1.0)
    buf = np.ones(5)
    B = tessera.SparseMatrix.from_csr([0, 1, 2, 3], [0, 1, 2], [1.0, 1.0, 1.0], (3, 3))
    with pytest.raises(ValueError, match="shares memory"):
        tessera.spmv(1.0, B, buf[:3], 0.0, buf[2:])
    with pytest.raises(TypeError, match="SparseMatrix"):
        tessera.spmv(1.0, np.eye(3), np.ones(3))
    with pytest.raises(ValueError, match="format must be one of"):
        A.optimize("bsr")
