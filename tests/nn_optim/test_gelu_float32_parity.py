"""float32 gelu (approximate='none') against torch 2.15, bit for bit where torch vectorises.

torch's vector code computes erf with ATen's own polynomial and exp ("exp_u20"), which the
engine replays (fidelity/float32_math.py): every element of a contiguous tensor, the tail
too. Other layouts (a 0-d tensor, a single element, a view) go through torch's scalar loop
and the C library's erf, within an ulp of the engine's value rounded once (tolerance there).
"""
import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _values(shape, seed):
    rng = np.random.default_rng(seed)
    values = (rng.standard_normal(shape) * 3).astype(np.float32)
    flat = values.reshape(-1)
    specials = np.array([0.0, -0.0, 1e-30, -1e-30, -50.0, 50.0, 9.5, -9.5, -5.5, 3e38,
                         -3e38, np.inf, -np.inf, np.nan], np.float32)
    flat[:min(flat.size, specials.size)] = specials[:flat.size]
    return values


@pytest.mark.parametrize("shape", [(2,), (7,), (15,), (16,), (17,), (33,), (3, 5), (4, 40),
                                   (2, 3, 4), (1, 3, 4), (0,), (1000,)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gelu_of_a_contiguous_tensor_is_torchs_bit_for_bit(shape, seed):
    x = parity.engine.tensor(_values(shape, seed))
    parity.run_both(lambda m, x: m.nn.functional.gelu(x), x)
    parity.run_both(lambda m, x: m.nn.GELU()(x), x)


@pytest.mark.parametrize("view", ["x.t()", "x[::2]", "x[:, ::2]", "x[1]", "x[0, 0]"])
def test_gelu_of_other_layouts_is_within_an_ulp(view):
    x = parity.engine.tensor(_values((6, 40), 3))
    parity.run_both(lambda m, x: m.nn.functional.gelu(eval(view, {"x": x})), x,  # noqa: S307
                    exact=False)
