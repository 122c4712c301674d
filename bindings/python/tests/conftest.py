# Shared helpers of the Python tests: random data, the float64 (or long double) oracle with a
# componentwise error bound, and a guard proving a call was refused before reaching the library.
import os
import secrets

import numpy as np
import pytest

import tessera

DTYPES = [np.float32, np.float64]


def _base_seed():
    """TESSERA_TEST_SEED (decimal, or hexadecimal after 0x) when set, else a fresh random seed."""
    text = os.environ.get("TESSERA_TEST_SEED", "")
    if not text:
        return secrets.randbits(64)
    hex_ = text[:2] in ("0x", "0X")
    digits = text[2:] if hex_ else text
    allowed = "0123456789abcdefABCDEF" if hex_ else "0123456789"
    if not digits or any(ch not in allowed for ch in digits) or int(digits, 16 if hex_ else 10) >> 64:
        raise pytest.UsageError(f"TESSERA_TEST_SEED={text!r} is not a 64-bit decimal or 0x-hexadecimal number")
    return int(digits, 16 if hex_ else 10)


BASE_SEED = _base_seed()
_MASK = (1 << 64) - 1


def seed_for(label, base=BASE_SEED):
    """The seed of the stream `label`, as tests/support/seed.hpp mixes it: FNV-1a over the base
    seed's eight bytes (little end first) and the label's UTF-8, then splitmix64's finaliser."""
    h = 1469598103934665603
    for byte in base.to_bytes(8, "little") + label.encode():
        h = ((h ^ byte) * 1099511628211) & _MASK
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & _MASK
    return h ^ (h >> 31)


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    # Through the terminal reporter: it is shown under -q too, unlike a report header.
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter:
        reporter.write_line(f"TESSERA_TEST_SEED={BASE_SEED} (random test data; set it to replay them)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if report.failed:
        report.sections.append(("TESSERA_TEST_SEED", f"Replay with: TESSERA_TEST_SEED={BASE_SEED} "
                                f"ctest -R python_bindings (this test: {item.nodeid})"))


@pytest.fixture
def rng(request):
    """The test's own generator: the run's seed mixed with the test's file and name."""
    return np.random.default_rng(seed_for(request.node.nodeid.split("/")[-1]))


def unit_roundoff(dtype):
    return np.finfo(dtype).eps / 2


def oracle_dtype(dtype):
    # float32 results are judged against float64; float64 against long double (80-bit on x86).
    return np.float64 if np.dtype(dtype) == np.float32 else np.longdouble


def gemm_reference(a, b, c0, alpha, beta, trans_a, trans_b):
    """The exact-enough product and the componentwise scale |alpha||A||B| + |beta||C0|."""
    wide = oracle_dtype(a.dtype)
    A = np.asarray(a, dtype=wide)
    B = np.asarray(b, dtype=wide)
    A = A.T if trans_a else A
    B = B.T if trans_b else B
    ref = alpha * (A @ B)
    scale = abs(alpha) * (np.abs(A) @ np.abs(B))
    if c0 is not None and beta != 0:
        C0 = np.asarray(c0, dtype=wide)
        ref = ref + beta * C0
        scale = scale + abs(beta) * np.abs(C0)
    return ref, scale, A.shape[1]


def assert_close(got, ref, scale, k, dtype, factor=4):
    """|got - ref| <= factor * (k + 2) * u * scale, entry by entry."""
    u = unit_roundoff(dtype)
    got = np.asarray(got, dtype=ref.dtype)
    bound = factor * (k + 2) * u * scale + np.finfo(dtype).tiny
    err = np.abs(got - ref)
    bad = err > bound
    if bad.any():
        i = np.unravel_index(np.argmax(err - bound), err.shape)
        raise AssertionError(f"{bad.sum()} of {err.size} entries outside the bound; worst at {i}: "
                             f"got {got[i]}, expected {ref[i]}, bound {bound[i]}")


def random_matrix(rng, shape, dtype, order="C"):
    return np.asarray(rng.uniform(-1, 1, size=shape), dtype=dtype, order=order)


class _NoLibrary:
    def __getattr__(self, name):
        raise AssertionError(f"the library was called ({name}) although the arguments were wrong")


@pytest.fixture
def no_library(monkeypatch):
    """Makes any library call from tessera.gemm / spmv / SparseMatrix fail the test."""
    import tessera._gemm
    import tessera._sparse

    monkeypatch.setattr(tessera._gemm, "library", lambda: _NoLibrary())
    monkeypatch.setattr(tessera._sparse, "_library_with_sparse", lambda fn: _NoLibrary())
    monkeypatch.setattr(tessera._sparse, "_call", lambda *a, **k: _NoLibrary().spmv)


needs_sparse = pytest.mark.skipif(not tessera.has_sparse,
                                  reason="the loaded libtessera has no sparse functions")
