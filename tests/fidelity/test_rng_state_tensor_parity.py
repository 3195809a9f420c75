"""engine.get_rng_state() / set_rng_state() and Generator.get_state() / set_state() against
torch 2.15: a uint8 tensor of 5056 bytes in torch's layout, exchangeable both ways, and torch's
errors for anything else."""
import io

import numpy as np
import pytest

import engine
from tests.parity import assert_same_snippet

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch


def test_state_is_a_uint8_tensor_equal_to_torchs():
    code = """
m.manual_seed(3)
m.randn(5, dtype=m.float64)
s = m.get_rng_state()
g = m.Generator().manual_seed(9)
m.rand(700, generator=g)
gs = g.get_state()
r = [type(s).__name__, str(s.dtype), tuple(s.shape), s.is_contiguous(), s.requires_grad,
     s[:40].tolist(), s.sum().item(), str(gs.dtype), gs[:16].tolist(), gs.sum().item(),
     m.random.get_rng_state().sum().item(), g.set_state(gs) is g]
"""
    assert_same_snippet(code)


def test_states_move_between_the_libraries():
    torch.manual_seed(5)
    torch.rand(7)
    engine.set_rng_state(engine.from_numpy(torch.get_rng_state().numpy().copy()))
    np.testing.assert_array_equal(engine.randn(50).numpy(), torch.randn(50).numpy())
    engine.manual_seed(11)
    engine.rand(3)
    torch.set_rng_state(torch.from_numpy(engine.get_rng_state().numpy().copy()))
    np.testing.assert_array_equal(engine.rand(20).numpy(), torch.rand(20).numpy())
    buffer = io.BytesIO()
    engine.save({"rng": engine.get_rng_state()}, buffer)  # as a checkpoint keeps it
    buffer.seek(0)
    torch.set_rng_state(torch.load(buffer)["rng"])
    np.testing.assert_array_equal(engine.rand(4).numpy(), torch.rand(4).numpy())


def test_restoring_repeats_the_draws():
    code = """
g = m.Generator().manual_seed(1)
state = g.get_state()
first = m.randn(6, generator=g)
g.set_state(state)
m.manual_seed(2)
s = m.get_rng_state()
a = m.rand(4)
m.set_rng_state(s)
r = [first, m.randn(6, generator=g), a, m.rand(4)]
"""
    assert_same_snippet(code)


ERRORS = {
    "list": "m.set_rng_state([1, 2])",
    "float tensor": "m.set_rng_state(m.zeros(5056))",
    "short": "m.set_rng_state(m.zeros(10, dtype=m.uint8))",
    "numpy": "m.set_rng_state(np.zeros(5056, dtype=np.uint8))",
    "generator list": "m.Generator().set_state([0] * 5056)",
    "generator int64": "m.Generator().set_state(m.zeros(5056, dtype=m.int64))",
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_as_torch(case):
    assert_same_snippet(f"import numpy as np\nr = error(lambda: {ERRORS[case]})\n"
                        "assert r is not None")
