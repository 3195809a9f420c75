"""F.glu against torch 2.15: its float32 and float16 values bit for bit (torch's kernel:
a * (1 / (1 + exp(-b))) in float32, SLEEF's exp where its loop is vectorised, the C
library's elsewhere; before, the engine divided in float64 and 40% of float32 results were
an ulp away), its gradient (torch's glu_backward: (1 - s) * s * a * gO, left to right), and
its gradient's own graph under create_graph: one GluBackwardBackward0 node, differentiated
as torch's glu_double_backward (before: the engine's formula's CatBackward0, MulBackward0
... and RsubBackward1)."""
import numpy as np
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

CASES = [((2, 4, 3), 1), ((64, 10), 1), ((7, 34, 16), 1), ((6, 5), 0), ((3, 40), -1),
         ((130, 2), 1), ((4, 9, 18), 2), ((0, 4), 1), ((2,), 0), ((40, 36), -2)]


def _run(m, values, dim, transpose):
    x = m.from_numpy(values.copy())
    if transpose:
        x = x.t()
    x.requires_grad_()
    y = m.nn.functional.glu(x, dim)
    g, = m.autograd.grad(y, x, m.ones_like(y) * 0.75 + y.detach())
    return y.detach().numpy(), g.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
@pytest.mark.parametrize("shape, dim", CASES)
@pytest.mark.parametrize("transpose", [False, True])
def test_glu_values_and_gradient(shape, dim, transpose, dtype):
    if transpose and len(shape) != 2:
        pytest.skip("a transposed input: 2-d shapes")
    values = (np.random.default_rng(sum(shape)).standard_normal(shape) * 4).astype(dtype)
    if transpose:
        values = values.T.copy()
    mine, theirs = _run(engine, values, dim, transpose), _run(torch, values, dim, transpose)
    for got, expected in zip(mine, theirs):
        assert got.shape == expected.shape
        if dtype == "float64":  # (SLEEF's and the C library's exp: last bits, documented)
            np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-15)
        else:
            np.testing.assert_array_equal(got, expected)


def _node_names(fn, seen):
    if fn is None or fn in seen:
        return []
    seen.add(fn)
    return [fn.name()] + [name for nxt, _ in fn.next_functions for name in _node_names(nxt, seen)]


def _derivatives(m, dtype):
    m.manual_seed(0)
    y = m.randn(2, 4, 3, dtype=getattr(m, dtype), requires_grad=True)
    g, = m.autograd.grad(m.nn.functional.glu(y, 1).pow(2).sum(), y, create_graph=True)
    h, = m.autograd.grad((g * g).sum(), y, create_graph=True)
    k, = m.autograd.grad(h.sum(), y)
    graph = sorted(_node_names(h.grad_fn, set()))
    firsts = [(f.name() if f else None) for f, _ in g.grad_fn.next_functions]
    return g.grad_fn.name(), firsts, graph, [t.detach().numpy() for t in (g, h, k)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_glu_second_and_third_derivatives_record_torchs_nodes(dtype):
    mine, theirs = _derivatives(engine, dtype), _derivatives(torch, dtype)
    assert mine[:3] == theirs[:3]
    assert mine[0] == "GluBackwardBackward0" and "RsubBackward1" not in mine[2]
    for got, expected in zip(mine[3], theirs[3]):
        np.testing.assert_allclose(got, expected, rtol=1e-5 if dtype == "float32" else 1e-13,
                                   atol=1e-6 if dtype == "float32" else 1e-14)


def test_glu_gradient_without_create_graph_records_nothing():
    x = engine.randn(2, 4, requires_grad=True)
    g, = engine.autograd.grad(engine.nn.functional.glu(x).sum(), x)
    assert g.grad_fn is None and not g.requires_grad
