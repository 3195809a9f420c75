"""torch.mvlgamma (torch.special.multigammaln, x.mvlgamma, x.mvlgamma_) against torch 2.15:
values (torch's composition: arange of the half steps, added to the input, lgamma, summed
along the new dimension, plus p (p - 1) / 4 ln(pi); its lgamma is MKL's, so the last bits
may differ, as lgamma's do), MvlgammaBackward0 and its
own graph under create_graph, the errors and argument errors in torch's words. Before,
the engine had no mvlgamma: AttributeError."""
import warnings

import numpy as np
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _outcome(m, call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            result = call(m)
        except Exception as error:  # noqa: BLE001 - the exception is what is compared
            return type(error).__name__, str(error)
    shown = repr(result) if not hasattr(result, "grad_fn") else (
        repr(result), str(result.dtype), tuple(result.stride()))
    return shown, [str(w.message) for w in seen]


CALLS = {
    "p=2": lambda m: m.mvlgamma(m.tensor([2.5, 3.0, 1.25], requires_grad=True), 2),
    "p by keyword": lambda m: m.mvlgamma(m.tensor([2.5, 3.0]), p=3),
    "input by keyword": lambda m: m.mvlgamma(input=m.tensor([2.5]), p=2),
    "method": lambda m: m.tensor([4.5, 9.0]).mvlgamma(4),
    "special": lambda m: m.special.multigammaln(m.tensor([2.5, 3.0]), 3),
    "special without p": lambda m: m.special.multigammaln(m.tensor([2.5])),
    "special float p": lambda m: m.special.multigammaln(m.tensor([2.5]), 2.0),
    "without p": lambda m: m.mvlgamma(m.tensor([2.5])),
    "float p": lambda m: m.mvlgamma(m.tensor([2.5]), 2.0),
    "a number": lambda m: m.mvlgamma(2.5, 2),
    "p = 0": lambda m: m.mvlgamma(m.tensor([2.5]), 0),
    "p < 0": lambda m: m.mvlgamma(m.tensor([2.5]), -3),
    "bool": lambda m: m.mvlgamma(m.tensor([True]), 2),
    "int64": lambda m: m.mvlgamma(m.tensor([3, 4]), 2),
    "uint8": lambda m: m.mvlgamma(m.tensor([3, 4], dtype=m.uint8), 1),
    "in place, int64": lambda m: m.tensor([3, 4]).mvlgamma_(2),
    "in place, int32": lambda m: m.tensor([3, 4], dtype=m.int32).mvlgamma_(2),
    "in place, bool": lambda m: m.tensor([True]).mvlgamma_(2),
    "in place, no p": lambda m: m.tensor([3.0]).mvlgamma_(),
    "in place, p by keyword": lambda m: m.tensor([3.0]).mvlgamma_(p=2),
    "in place, float p": lambda m: m.tensor([3.0]).mvlgamma_(2.0),
    "in place, a leaf": lambda m: m.tensor([3.0], requires_grad=True).mvlgamma_(2),
    "three arguments": lambda m: m.mvlgamma(m.tensor([2.5]), 2, 3),
    "unknown keyword": lambda m: m.mvlgamma(m.tensor([2.5]), 2, q=3),
    "below (p - 1) / 2": lambda m: m.mvlgamma(m.tensor([0.2, -1.0, 0.0]), 2),
    "float16": lambda m: m.mvlgamma(m.tensor([2.5, 7.25], dtype=m.float16), 3),
    "float64": lambda m: m.mvlgamma(m.tensor([2.5, 7.25], dtype=m.float64), 5),
    "empty": lambda m: m.mvlgamma(m.empty(0, 3), 2),
    "0-d": lambda m: m.mvlgamma(m.tensor(5.0), p=4),
    "transposed": lambda m: m.mvlgamma(m.tensor([[2.5, 3.5], [4.0, 5.0]]).t(), 2),
    "out= resized": lambda m: m.mvlgamma(m.tensor([2.5, 3.0]), 2, out=m.empty(1)),
    "out= of another dtype": lambda m: m.mvlgamma(m.tensor([2.5]), 2,
                                                  out=m.empty(1, dtype=m.int64)),
    "out= int of an int": lambda m: m.mvlgamma(m.tensor([3]), 2, out=m.empty(1, dtype=m.int32)),
    "out= float64 of float32": lambda m: m.mvlgamma(m.tensor([3.0]), 2,
                                                    out=m.empty(1, dtype=m.float64)),
    "out= and p = 0": lambda m: m.mvlgamma(m.tensor([3.0]), 0, out=m.empty(1, dtype=m.int64)),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_mvlgamma_calls_as_torchs(name):
    assert _outcome(engine, CALLS[name]) == _outcome(torch, CALLS[name])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("p", [1, 2, 3, 7])
def test_mvlgamma_values(dtype, p):
    """torch's lgamma is MKL's, the engine's Python's (notebooks/DIFFERENCES.md, "lgamma and
    mvlgamma"): the sums agree to the last bits, float16 ones exactly."""
    values = np.linspace((p - 1) / 2 + 0.01, 60, 997).astype(dtype)
    got = engine.mvlgamma(engine.from_numpy(values.copy()), p).numpy()
    expected = torch.mvlgamma(torch.from_numpy(values.copy()), p).numpy()
    assert got.dtype == expected.dtype
    if dtype == "float16":
        np.testing.assert_array_equal(got, expected)
    else:
        tiny = np.finfo(dtype).eps
        np.testing.assert_allclose(got, expected, rtol=4 * tiny, atol=64 * tiny)


def _graph(fn, seen):
    if fn is None or fn in seen:
        return []
    seen.add(fn)
    return [fn.name()] + [name for nxt, _ in fn.next_functions for name in _graph(nxt, seen)]


def _derivatives(m):
    x = m.tensor([2.5, 3.0, 4.75], dtype=m.float64, requires_grad=True)
    y = m.mvlgamma(x, 3)
    g, = m.autograd.grad(y.sum(), x, create_graph=True)
    h, = m.autograd.grad(g.sum(), x)
    inplace = x.clone()
    inplace.mvlgamma_(2)
    return (y.grad_fn.name(), _graph(g.grad_fn, set()), inplace.grad_fn.name(),
            inplace._version, g.detach().numpy(), h.numpy())


def test_mvlgamma_gradients_and_their_graph():
    mine, theirs = _derivatives(engine), _derivatives(torch)
    assert mine[:4] == theirs[:4]
    np.testing.assert_allclose(mine[4], theirs[4], rtol=1e-14)
    np.testing.assert_allclose(mine[5], theirs[5], rtol=1e-12)
    x = engine.tensor([3.0, 4.5], dtype=engine.float64, requires_grad=True)
    assert engine.autograd.gradcheck(lambda t: engine.mvlgamma(t, 3), (x,))
    assert engine.autograd.gradgradcheck(lambda t: engine.mvlgamma(t, 2), (x,))
