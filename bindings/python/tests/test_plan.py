# tessera.GemmPlan: products and batches against the float64 / long double oracle in both memory
# orders and with transposes; arrays of another kind refused before the library runs.
import numpy as np
import pytest

import tessera
from conftest import DTYPES, assert_close, gemm_reference, random_matrix


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, False), (False, True), (True, True)])
def test_plan_products_match_the_oracle(rng, dtype, order, trans_a, trans_b):
    m, n, k = 7, 5, 9
    a = random_matrix(rng, (k, m) if trans_a else (m, k), dtype, order)
    b = random_matrix(rng, (n, k) if trans_b else (k, n), dtype, order)
    c = random_matrix(rng, (m, n), dtype, order)
    with tessera.GemmPlan(a, b, c, trans_a=trans_a, trans_b=trans_b) as plan:
        for _ in range(2):  # fresh data through the same plan
            a[...] = random_matrix(rng, a.shape, dtype)
            c0 = random_matrix(rng, c.shape, dtype)
            c[...] = c0
            plan(a, b, c, alpha=1.5, beta=-0.5)
            ref, scale, kk = gemm_reference(a, b, c0, 1.5, -0.5, trans_a, trans_b)
            assert_close(c, ref, scale, kk, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_plan_batches_strided_and_repeated(rng, dtype):
    count, m, n, k = 23, 4, 3, 6
    a = random_matrix(rng, (count, m, k), dtype)
    b_one = random_matrix(rng, (k, n), dtype)
    b = np.broadcast_to(b_one, (count, k, n))  # one B for all: step 0
    c = np.full((count, m, n), np.nan, dtype=dtype)
    with tessera.GemmPlan(a[0], b_one, c[0]) as plan:
        plan.batch(a, b, c)
        for i in range(count):
            ref, scale, kk = gemm_reference(a[i], b_one, None, 1.0, 0.0, False, False)
            assert_close(c[i], ref, scale, kk, dtype)


def test_plan_refuses_arrays_of_another_kind(rng):
    a, b, c = (random_matrix(rng, s, np.float64) for s in [(3, 4), (4, 2), (3, 2)])
    plan = tessera.GemmPlan(a, b, c)
    with pytest.raises(TypeError):
        plan(a.astype(np.float32), b, c)
    with pytest.raises(ValueError, match="strides"):
        plan(np.asfortranarray(a), b, c)
    with pytest.raises(ValueError, match="shape"):
        plan(a, b, np.zeros((3, 3)))
    with pytest.raises(TypeError, match="alpha"):
        plan(a, b, c, alpha="2")
    with pytest.raises(ValueError, match="step"):
        same_c = np.lib.stride_tricks.as_strided(c, (2, 3, 2), (0,) + c.strides, writeable=True)
        plan.batch(np.stack([a, a]), np.stack([b, b]), same_c)  # both products into one C
    with pytest.raises(ValueError, match="op\\(a\\)"):
        tessera.GemmPlan(a, b, np.zeros((2, 2)))
    plan.close()
    with pytest.raises(ValueError, match="closed"):
        plan(a, b, c)
    assert "closed" in repr(plan)
