"""prod's values against torch 2.15: its multiplication order and rounding.

torch multiplies in the dtype itself (float16 rounds at every step: 300 * 300 is already
inf), one element after the other, except along a contiguous run of at least 4 vectors
(AVX2: 64 float16, 32 float32, 16 float64), which aten's reduction128 multiplies into four
vector accumulators first. A whole tensor is read in memory order.
"""
import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

RANGES = {"float16": (0.5, 2.2), "float32": (0.3, 3.5), "float64": (0.1, 12.0)}
LAYOUTS = {
    "whole": lambda m, x: x.prod(),
    "row": lambda m, x: x.reshape(1, -1).prod(1),
    "column of one": lambda m, x: x.reshape(-1, 1).prod(0),
    "transposed": lambda m, x: x.reshape(-1, 1).t().prod(1, keepdim=True),
    "outer": lambda m, x: m.stack([x, x.flip(0)], 1).prod(0),
    "inner rows": lambda m, x: m.stack([x, x.flip(0)], 0).prod(1),
    "whole of two": lambda m, x: m.stack([x, x.flip(0)], 1).prod(),
    "whole transposed": lambda m, x: m.stack([x, x.flip(0)], 0).t().prod(),
    "strided": lambda m, x: x[::2].prod(),
    "dtype": lambda m, x: x.prod(dtype=m.float16),
}


@pytest.mark.parametrize("dtype", parity.FLOAT_DTYPES)
@pytest.mark.parametrize("n", [1, 3, 10, 31, 32, 33, 63, 64, 65, 130, 257])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_prod_order(layout, n, dtype):
    rng = np.random.default_rng(n)
    low, high = RANGES[dtype]
    for _ in range(4):
        values = (rng.uniform(low, high, n) * rng.choice([-1, 1], n)).astype(dtype)
        parity.run_both(LAYOUTS[layout], parity.to_engine(torch.from_numpy(values)))


@pytest.mark.parametrize("values", [[300.0, 300.0, -0.5], [1e4, 10.0, 0.0], [1e-4, 1e-4, 1e4],
                                    [60000.0, 2.0, 0.5], [-300.0, 300.0, float("nan")]])
def test_float16_rounds_every_step(values):
    x = parity.to_engine(torch.tensor(values, dtype=torch.float16, requires_grad=True))
    parity.run_both(lambda m, x: x.prod(), x)
    parity.run_both(lambda m, x: x.prod(0), x)
    parity.run_both(lambda m, x: x.reshape(1, 3).prod(-1, keepdim=True), x)
