"""An inference tensor in an op whose gradients lead nowhere (a view made under no_grad of a
tensor that requires grad: it requires grad, yet has no node): torch saves nothing for such
a node, so no "Inference tensors cannot be saved for backward" (fuzz 5332113: the engine
raised). Where a gradient leads somewhere (a leaf), both raise."""
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _operands(m, leaf):
    x = m.tensor([[0.25, 1.0], [2.0, -2.0]], requires_grad=True)
    if leaf:
        r = x.detach().reshape(1, 4).requires_grad_()
    else:
        with m.no_grad():
            r = x.reshape(1, 4)
    with m.inference_mode():
        t = r.sum()
        u = m.ones(4)
    return x, r, t, u


CALLS = {
    "times (fuzz 5332113)": lambda m, r, t, u: t * r,
    "divided": lambda m, r, t, u: r / t,
    "mul": lambda m, r, t, u: m.mul(r, t),
    "matmul": lambda m, r, t, u: m.matmul(r, u),
    "where the inference tensor is not needed": lambda m, r, t, u: t.exp() + r,
    "pow": lambda m, r, t, u: r ** t,
}


def _outcome(m, name, leaf):
    x, r, t, u = _operands(m, leaf)
    try:
        y = CALLS[name](m, r, t, u)
    except RuntimeError as error:
        return "RuntimeError", str(error)
    y.sum().backward()
    return (y.requires_grad, y.grad_fn.name(),
            [None if f is None else f.name() for f, _ in y.grad_fn.next_functions],
            x.grad is None, y.detach().numpy().tolist())


@pytest.mark.parametrize("leaf", [False, True], ids=["no-grad view", "leaf"])
@pytest.mark.parametrize("name", list(CALLS))
def test_inference_operands_saved_only_where_a_gradient_goes(name, leaf):
    assert _outcome(engine, name, leaf) == _outcome(torch, name, leaf)
