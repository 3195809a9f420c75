"""Values near each float dtype's end against torch: what overflows, and where (issue 25).

torch's CPU kernels choose where a sum can overflow: var/std add their squares in float64
(two passes for a single result, Welford's running mean for several), matrix products add
float32 products in float32, one product after another. Values are drawn from pools of
ordinary and huge numbers so that the intermediate results overflow in some rows and not
in others; inf, -inf and nan must come out where torch's do.
"""
import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

# per dtype: ordinary values and values whose squares, sums or products overflow
POOLS = {
    "float16": [0.0, 1.0, -1.0, 60000.0, -60000.0, 65504.0, -0.5, 3.5],
    "float32": [0.0, 1.0, -2.75, 3e38, -3e38, 1e38, 1.5, -1e30],
    "float64": [0.0, 1.0, -1.7e308, 1e308, 1.7e308, -1e308, 2.5, 1e-300],
}


def _pooled(shape, dtype, seed):
    rng = np.random.default_rng([seed, len(shape), *shape])
    return rng.choice(POOLS[dtype], size=shape).astype(dtype)


MOMENT_SHAPES = [(), (1,), (3,), (2, 3), (3, 1), (1, 3), (2, 3, 4), (0,), (2, 0)]


def _dims(shape):
    dims = [None, *range(-len(shape), len(shape))]
    return dims + [(0, 1)] if len(shape) >= 2 else dims


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("dtype", parity.FLOAT_DTYPES)
@pytest.mark.parametrize("shape", MOMENT_SHAPES)
def test_var_and_std_overflow_as_torchs_kernels(shape, dtype, name):
    for seed in range(6):
        values = _pooled(shape, dtype, seed) if seed < 4 else parity.make_values(shape, dtype, seed)
        if seed == 5 and len(shape) >= 2:
            values = values.T  # not contiguous
        for dim in _dims(shape):
            for kwargs in ({}, {"unbiased": False}, {"correction": 3}, {"keepdim": True}):
                def call(m, x, dim=dim, kwargs=kwargs):
                    if dim is None:
                        return getattr(m, name)(x, **kwargs)
                    return getattr(m, name)(x, dim, **kwargs)
                parity.run_both(call, values, exact=False, check_inputs=False)


@pytest.mark.parametrize("code", [
    "m.tensor([[3e38, -2.75]]).std()",                  # the issue's: float64 squares
    "m.tensor([3e38, -2.75]).std(unbiased=False)",
    "m.tensor([[3e38, -2.75]]).std(1)",
    "m.tensor([3e38]).var(-1)",
    "m.tensor([3e38, 3e38]).var()",                     # one result: the mean overflows
    "m.tensor([[3e38, 3e38], [1.0, 2.0]]).var(1)",      # several: Welford's does not
    "m.tensor([[0.0, 1e308, -1.7e308], [-1.7e308, 0.0, 0.0]], dtype=m.float64).var(1)",
    "m.tensor([[1e308, 1e308, 1e308], [1, 2, 3]], dtype=m.float64).std(1, correction=5)",
    "m.tensor([1e308, 1e308, 1e308], dtype=m.float64).var()",
    "m.tensor([[60000.0, 60000.0]], dtype=m.float16).var()",
])
def test_the_issues_moments(code):
    parity.run_both(lambda m: eval(code, {"m": m}), exact=False)


# torch's float32 kernel for a vector, or for up to 3 rows or 11 columns, rounds each term
# and adds them one after another (a term of inf and one of -inf: nan); larger products
# go to a fused (fma) BLAS kernel, whose order of additions is its own.
PRODUCT_POOL = [0.0, 1.0, -2.75, 3e38, -3e38, 1.5, 3.4e38, -1e38]
PRODUCTS = {
    "mm": ([(1, 2), (2, 3)], lambda m, a, b: m.mm(a, b)),
    "mm few rows": ([(3, 4), (4, 16)], lambda m, a, b: a @ b),
    "mm few columns": ([(6, 3), (3, 11)], lambda m, a, b: a @ b),
    "mm one term": ([(3, 1), (1, 2)], lambda m, a, b: a @ b),
    "mv": ([(3, 4), (4,)], lambda m, a, b: m.mv(a, b)),
    "vector @ matrix": ([(4,), (4, 5)], lambda m, a, b: a @ b),
    "dot of two": ([(2,), (2,)], lambda m, a, b: m.dot(a, b)),
    "dot": ([(5,), (5,)], lambda m, a, b: m.dot(a, b)),
    "bmm": ([(2, 2, 3), (2, 3, 2)], lambda m, a, b: m.bmm(a, b)),
    "matmul broadcast": ([(2, 1, 2, 3), (3, 4)], lambda m, a, b: m.matmul(a, b)),
    "addmm": ([(2, 3), (3, 2)], lambda m, a, b: m.addmm(m.ones(2, 2), a, b)),
    "linear": ([(2, 3), (4, 3)], lambda m, a, b: m.nn.functional.linear(a, b)),
}


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_float32_products_overflow_as_torch(name):
    shapes, call = PRODUCTS[name]
    rng = np.random.default_rng(len(name))
    for _ in range(40):
        a, b = (rng.choice(PRODUCT_POOL, size=shape).astype(np.float32) for shape in shapes)
        parity.run_both(call, a, b, exact=False)


def test_the_issues_product():
    parity.run_both(lambda m: m.tensor([[0.0, 1e38], [3e38, -3e38], [0.0, 0.0]]).mm(
        m.tensor([[3.4e38, 0.0, 0.0], [1.5, 2e19, 0.0]]))[1], exact=False)
    parity.run_both(lambda m: m.dot(m.tensor([3e38, 3e38, -3e38]), m.ones(3)), exact=False)


@pytest.mark.parametrize("shape,dim,correction", [((2, 0), 0, 1), ((2, 0), 0, 0), ((2, 0), 1, 0),
                                                  ((0,), None, 0), ((3, 0, 2), 2, 2)])
@pytest.mark.parametrize("name", ["var", "std"])
def test_an_empty_input_warns_of_no_degrees_of_freedom(name, shape, dim, correction):
    import warnings
    import engine
    seen = []
    for m in (torch, engine):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(m.zeros(shape), name)(dim, correction=correction)
        seen.append([(w.category, str(w.message).split(" (Triggered")[0]) for w in caught])
    assert seen[0] and seen[1] == seen[0]
