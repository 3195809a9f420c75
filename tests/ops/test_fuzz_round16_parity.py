"""Fuzz round sixteen (seeds 3560000 and on, pinned to AVX2) against torch 2.15.

- 3578894: cdist(...).log()'s second derivative was nan where two points coincide: log's
  infinite gradient at a zero distance met a zero derivative in the engine's formula (inf *
  0), which torch's kernel skips. p = 0's gradient was nan there too (torch's: zeros).
"""
import math

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch


OUTER = {"log": lambda d: d.log(), "rsqrt": lambda d: d.rsqrt(), "sqrt": lambda d: d.sqrt(),
         "reciprocal": lambda d: d.reciprocal(), "nan_at_zero": lambda d: (d / d).nan_to_num(0.5)
         * d, "square": lambda d: d * d}
CDIST_PAIRS = {
    "scaled": ([1.5, 0.0, -2.0], 2.0),  # 0 coincides with 0 * 2
    "itself": ([0.0, 0.0, 1.0], 1.0),
    "batched": ([[1.0, 2.0], [1.0, 2.0], [0.5, -1.0]], 1.0),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("pair", CDIST_PAIRS)
@pytest.mark.parametrize("outer", OUTER)
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, math.inf])
def test_cdist_derivatives_with_infinite_gradients_at_zero_distances(p, outer, pair, dtype):
    """fuzz 3578894: an infinite (or nan) gradient where a distance is 0 gives torch's
    first and second derivatives, not nan."""
    values, scale = CDIST_PAIRS[pair]
    results = []
    for m in (parity.engine, torch):
        z = m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)
        points = z.reshape(-1, 1) if z.dim() == 1 else z.reshape(1, *z.shape)
        out = OUTER[outer](m.cdist(points, points * scale, p=p))
        first, = m.autograd.grad(out.sum(), z, create_graph=True)
        second, = m.autograd.grad(first.sum(), z, allow_unused=True)
        results.append((first, second))
    parity.assert_same(*results, exact=False, check_repr=False)
