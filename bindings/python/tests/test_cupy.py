# Device arrays (__cuda_array_interface__, e.g. cupy): products on the CUDA backend where it is
# available; elsewhere a clear refusal, made before any device pointer reaches the library.
import numpy as np
import pytest

import tessera
from conftest import DTYPES, needs_sparse

CUDA = tessera.backend_available("cuda")


class FakeDeviceArray:
    """Looks like a device array to the bindings; never dereferenced."""

    def __init__(self, shape, dtype=np.float64):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": np.dtype(dtype).str,
                                         "data": (0xDEAD0000, False), "version": 3,
                                         "strides": None}


@pytest.mark.skipif(CUDA, reason="the CUDA backend is available here")
def test_device_arrays_without_the_cuda_backend(no_library):
    a, b, c = FakeDeviceArray((4, 3)), FakeDeviceArray((3, 2)), FakeDeviceArray((4, 2))
    with pytest.raises(RuntimeError, match="CUDA backend, which is not available here"):
        tessera.gemm(a, b, c)


def test_host_and_device_arrays_do_not_mix(no_library):
    with pytest.raises(TypeError, match="all be host"):
        tessera.gemm(np.ones((4, 3)), FakeDeviceArray((3, 2)))


@needs_sparse
@pytest.mark.skipif(CUDA, reason="the CUDA backend is available here")
def test_device_vectors_without_the_cuda_backend():
    A = tessera.SparseMatrix.from_csr([0, 1], [0], [1.0], (1, 1))
    with pytest.raises(RuntimeError, match="not available here"):
        tessera.spmv(1.0, A, FakeDeviceArray((1,)), 0.0, FakeDeviceArray((1,)))
    with pytest.raises(TypeError, match="both be host"):
        tessera.spmv(1.0, A, np.ones(1), 0.0, FakeDeviceArray((1,)))


# With a GPU: cupy arrays in, cupy arrays out.

def _cupy():
    if not CUDA:
        pytest.skip("no CUDA backend here (no plugin, driver or device): cupy tests skipped")
    return pytest.importorskip("cupy", reason="cupy is not installed: cupy tests skipped")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", "CF")
def test_gemm_on_cupy_arrays(rng, dtype, order):
    cp = _cupy()
    a = rng.uniform(-1, 1, (300, 200)).astype(dtype)
    b = rng.uniform(-1, 1, (200, 150)).astype(dtype)
    da, db = cp.asarray(a, order=order), cp.asarray(b, order=order)
    dc = tessera.gemm(da, db)
    assert isinstance(dc, cp.ndarray)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(cp.asnumpy(dc), a.astype(np.float64) @ b, rtol=tol, atol=tol)
    out = cp.zeros((200, 200), dtype=dtype)
    tessera.gemm(da, da, out, trans_a=True)
    np.testing.assert_allclose(cp.asnumpy(out), a.T.astype(np.float64) @ a, rtol=tol, atol=tol)
    with tessera.Handle(backend="cuda") as h:
        h.set_cuda_stream(cp.cuda.get_current_stream())
        dc = tessera.gemm(da, db, handle=h)
        cp.cuda.get_current_stream().synchronize()
        np.testing.assert_allclose(cp.asnumpy(dc), a.astype(np.float64) @ b, rtol=tol, atol=tol)


def test_device_arrays_with_a_cpu_handle():
    cp = _cupy()
    with tessera.Handle(backend="cpu") as h:
        with pytest.raises(ValueError, match="cannot be read by the handle's 'cpu' backend"):
            tessera.gemm(cp.ones((2, 2)), cp.ones((2, 2)), handle=h)


@needs_sparse
@pytest.mark.parametrize("dtype", DTYPES)
def test_spmv_on_cupy_vectors(rng, dtype):
    cp = _cupy()
    sp = pytest.importorskip("scipy.sparse")
    m = sp.random(2000, 1500, density=0.01, random_state=rng, format="csr", dtype=dtype)
    A = tessera.SparseMatrix.from_scipy(m).optimize()
    x = rng.uniform(-1, 1, 1500).astype(dtype)
    y = A @ cp.asarray(x)  # device vectors: the product runs on the CUDA backend
    assert isinstance(y, cp.ndarray)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(cp.asnumpy(y), m.astype(np.float64) @ x, rtol=tol, atol=tol)
    z = cp.zeros(1500, dtype=dtype)
    tessera.spmv(1.0, A.T, y, 0.0, z)
    np.testing.assert_allclose(cp.asnumpy(z), m.T.astype(np.float64) @ cp.asnumpy(y),
                               rtol=tol, atol=tol)
    with tessera.Handle(backend="cuda") as h:
        A.optimize("ell", handle=h)  # the device copy, in ELL, made here
        assert A.format == "ell"
        w = cp.full(2000, np.nan, dtype=dtype)
        tessera.spmv(2.0, A, cp.asarray(x), 0.0, w, handle=h)
        np.testing.assert_allclose(cp.asnumpy(w), 2.0 * (m.astype(np.float64) @ x), rtol=tol, atol=tol)
