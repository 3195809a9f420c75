"""Fuzz round twenty (seeds 4560000 and on, pinned to AVX2; the signatures family's kinds
left from round nineteen) against torch 2.15.

- unique of floats holding both -0.0 and 0.0 (fuzz 5545774): torch's CPU kernel sorts the
  flattened input (its unstable sort: std::sort's order of ties past 16 elements) and keeps
  the first of each run of equal values, so which zero it keeps depends on where they stand;
  numpy's unique kept another one.
- std / var of float16 reduced to one number into a float32 or float64 out= (fuzz 5534875):
  torch computes in out's dtype and takes its whole-tensor kernel, which has no float16 case:
  "std_var_all: Unsupported dtype Half", after resizing out and warning of the degrees of
  freedom; the engine computed a value.
"""
import warnings

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch


# ------------------------------------------------------------------ unique's zero of two signs
@pytest.mark.parametrize("seed", range(120))
def test_unique_keeps_the_zero_torch_keeps(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 70))
    values = rng.choice([0.0, -0.0, 1.0, -1.0, 2.5, np.nan, np.inf], size=n)
    values[rng.integers(0, n)] = -0.0  # (at least one of each zero, mostly)
    values[rng.integers(0, n)] = 0.0
    shape = (n,) if seed % 2 else (1, n)
    for dtype in ("float32", "float64", "float16"):
        for sorted_ in (True, False):
            results = []
            for m in (torch, engine):
                x = m.tensor(values.reshape(shape), dtype=getattr(m, dtype))
                if seed % 3 == 0:  # (a strided view: torch sorts its contiguous copy)
                    x = m.tensor(np.repeat(values, 2).reshape(shape[:-1] + (2 * n,)),
                                 dtype=getattr(m, dtype))[..., ::2]
                out, inverse, counts = m.unique(x, sorted=sorted_, return_inverse=True,
                                                return_counts=True)
                data = np.asarray(out.tolist(), dtype=np.float64)
                results.append((np.signbit(data).tolist(), np.isnan(data).tolist(),
                                np.nan_to_num(data).tolist(), inverse.tolist(), counts.tolist()))
            assert results[1] == results[0], (dtype, sorted_)


def test_unique_of_the_fuzz_program():
    """fuzz 5545774's values: -0.0 at 3 and 6, 0.0 at 5; torch keeps -0.0."""
    for m in (torch, engine):
        x = m.tensor([6.25, -0.5, 1.0, -0.0, -0.5, 0.0, -0.0, 0.25])
        assert str(x.unique(False).tolist()) == "[-0.5, -0.0, 0.25, 1.0, 6.25]"


# ------------------------------------------------- std / var of float16 into a wider out=
SHAPES_AND_DIMS = [((3,), {}), ((1,), {}), ((), {}), ((0,), {}), ((2, 3), {}),
                   ((2, 3), {"keepdim": True}), ((2, 3), {"dim": None}), ((2, 3), {"dim": []}),
                   ((2, 3), {"dim": (0, 1)}), ((2, 3), {"dim": 0}), ((1, 3), {"dim": 1}),
                   ((3, 1), {"dim": 0}), ((1, 3), {"dim": 0}), ((1, 1), {"dim": 0}),
                   ((3,), {"dim": 0, "keepdim": True}), ((2, 3, 4), {"dim": (0, 2)}),
                   ((1,), {"correction": 0}), ((2,), {"correction": 2}),
                   ((1,), {"dim": [0], "correction": 1}), ((3,), {"dim": 0, "unbiased": True})]


def _std_var_into(m, name, shape, out_dtype, out_size, kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = m.zeros(out_size, dtype=getattr(m, out_dtype))
        try:
            result = getattr(m, name)(m.ones(shape, dtype=m.float16), out=out, **kwargs)
            outcome = ("value", str(result.dtype), str(result.tolist()), result is out)
        except Exception as error:  # noqa: BLE001 (the outcome compared)
            outcome = (type(error).__name__, str(error))
    # the order of torch's warnings: out resized, then the degrees of freedom
    return outcome, tuple(out.shape), [str(w.message) for w in caught]


@pytest.mark.parametrize("shape, kwargs", SHAPES_AND_DIMS, ids=str)
@pytest.mark.parametrize("out_dtype", ["float16", "float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("name", ["std", "var"])
def test_std_var_of_float16_into_a_wider_out(name, shape, kwargs, out_dtype):
    for out_size in (0, 5):
        outcomes = [_std_var_into(m, name, shape, out_dtype, out_size, kwargs)
                    for m in (torch, engine)]
        if outcomes[0][0][0] == "RuntimeError" and "Half" in outcomes[0][0][1]:
            assert outcomes[1] == outcomes[0]
        else:  # (elsewhere the engine warns of the degrees of freedom before resizing)
            assert outcomes[1][:2] == outcomes[0][:2]
            assert sorted(outcomes[1][2]) == sorted(outcomes[0][2])
