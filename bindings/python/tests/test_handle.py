# tessera.Handle: backend and thread count, context manager and closing, unavailable backends,
# and proof from the call log that a handle's backend is the one that ran the call.
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tessera


def test_backends_can_be_set_and_read():
    with tessera.Handle() as h:
        assert h.backend in tessera.BACKENDS
        for name in ("cpu", "reference", "auto", "CPU"):
            h.backend = name
            assert h.backend == name.lower()


def test_constructor_arguments():
    with tessera.Handle(backend="reference", num_threads=3) as h:
        assert h.backend == "reference"
        assert h.num_threads == 3
        assert "reference" in repr(h)
    with tessera.Handle() as h:
        assert h.num_threads is None  # follows the environment until set


def test_num_threads():
    with tessera.Handle() as h:
        h.num_threads = 1
        assert h.num_threads == 1
        with pytest.raises(ValueError, match=">= 1"):
            h.num_threads = 0
        with pytest.raises(TypeError):
            h.num_threads = 2.5
        assert h.num_threads == 1


def test_unknown_backend_name():
    with pytest.raises(ValueError, match="'cpu'"):
        tessera.Handle(backend="gpu")
    with pytest.raises(ValueError):
        tessera.backend_available("gpu")


def test_backend_available():
    assert tessera.backend_available("cpu")
    assert tessera.backend_available("reference")
    assert tessera.backend_available("auto")
    assert isinstance(tessera.backend_available("cuda"), bool)


@pytest.mark.skipif(tessera.backend_available("cuda"), reason="the CUDA backend is available here")
def test_unavailable_backend_raises_and_keeps_the_previous_one():
    with tessera.Handle(backend="cpu") as h:
        with pytest.raises(tessera.TesseraError) as info:
            h.backend = "cuda"
        assert info.value.status_name == "TSR_ERR_BACKEND_UNAVAILABLE"
        assert info.value.function == "tsr_set_backend"
        assert "cuda" in str(info.value) and info.value.detail
        assert h.backend == "cpu"
        with pytest.raises(tessera.TesseraError, match="unavailable"):
            h.set_cuda_stream(0)
        with pytest.raises(tessera.TesseraError, match="unavailable"):
            h.set_cuda_devices([0])
        with pytest.raises(tessera.TesseraError, match="unavailable"):
            h.set_cuda_devices()


def test_cuda_devices_arguments_are_checked_before_the_call():
    with tessera.Handle(backend="cpu") as h:
        with pytest.raises(TypeError):
            h.set_cuda_devices([0.5])
        with pytest.raises(ValueError):
            h.set_cuda_devices([])


@pytest.mark.skipif(not tessera.backend_available("cuda"), reason="no CUDA backend here")
def test_cuda_devices_every_gpu_and_a_bad_list():
    import numpy as np
    with tessera.Handle(backend="cuda") as h:
        h.set_cuda_devices()
        a = np.random.default_rng().standard_normal((300, 200))
        b = np.random.default_rng().standard_normal((200, 100))
        np.testing.assert_allclose(tessera.gemm(a, b, handle=h), a @ b, rtol=1e-12, atol=1e-12)
        with pytest.raises(tessera.TesseraError, match="does not exist"):
            h.set_cuda_devices([0, 4096])


def test_close_and_reuse():
    h = tessera.Handle()
    with h:
        assert not h.closed
    assert h.closed
    h.close()  # twice is fine
    assert repr(h) == "<tessera.Handle closed>"
    with pytest.raises(ValueError, match="closed"):
        _ = h.backend
    with pytest.raises(ValueError, match="closed"):
        with h:
            pass


def test_garbage_collected_handles_are_destroyed():
    for _ in range(200):
        h = tessera.Handle(backend="cpu")
        tessera.gemm(np.ones((2, 2)), np.ones((2, 2)), handle=h)
        del h


def run_logged(code, **env):
    """Runs code in a new interpreter with TESSERA_VERBOSE=1; returns its stderr."""
    full_env = dict(os.environ, TESSERA_VERBOSE="1", **env)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full_env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_the_call_log_names_the_handles_backend():
    log = run_logged("""
        import numpy as np, tessera
        a = np.ones((8, 4), np.float32)
        with tessera.Handle(backend="reference") as h:
            tessera.gemm(a, a.T, handle=h)
        with tessera.Handle(backend="cpu") as h:
            tessera.gemm(a.astype(np.float64), a.T.astype(np.float64), handle=h)
    """)
    lines = [line for line in log.splitlines() if line.startswith("tessera: ")]
    assert any(line.startswith("tessera: sgemm") and "backend=reference" in line
               for line in lines), log
    assert any(line.startswith("tessera: dgemm") and "backend=cpu" in line for line in lines), log


def test_layout_and_flags_reach_the_library():
    # A C-ordered c makes a row-major call; a.T of a C-ordered a is passed with op T, no copy.
    log = run_logged("""
        import numpy as np, tessera
        a = np.ones((4, 6)); b = np.ones((4, 5))
        tessera.gemm(a.T, b)
        tessera.gemm(a.T, b, np.zeros((6, 5), order="F"))
    """)
    lines = [line for line in log.splitlines() if line.startswith("tessera: dgemm")]
    assert len(lines) == 2, log
    assert " row TN m=6 n=5 k=4" in lines[0], lines[0]
    assert " col NT m=6 n=5 k=4" in lines[1], lines[1]


def test_strassen_opt_in_meets_its_normwise_bound(rng):
    n, block = 256, 64
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    exact = a @ b  # numpy float64: the reference here
    with tessera.Handle(backend="cpu") as h:
        classical = tessera.gemm(a, b, handle=h)
        h.set_strassen(1, block)
        fast = tessera.gemm(a, b, handle=h)
        h.set_strassen(0)
        again = tessera.gemm(a, b, handle=h)
    u = np.finfo(np.float64).eps / 2
    levels = 1
    bound = (12**levels * (block**2 + 5 * block) - 5 * 2**levels * block) * u
    bound *= np.abs(a).max() * np.abs(b).max()
    assert np.abs(fast - exact).max() <= bound
    # Strassen's sums round differently: its result is not the classical one, bit for bit,
    # and turning it off gives the classical result back.
    assert not np.array_equal(fast, classical)
    np.testing.assert_array_equal(again, classical)


def test_strassen_arguments_are_checked():
    with tessera.Handle() as h:
        with pytest.raises(ValueError, match="0, 1 or 2"):
            h.set_strassen(3)
        with pytest.raises(ValueError):
            h.set_strassen(1, -1)
        with pytest.raises(TypeError):
            h.set_strassen(1.0)
        h.set_strassen(2, 0)
        h.set_strassen(0)
