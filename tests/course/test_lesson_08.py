"""Lesson 8 (autograd.grad, higher-order gradients, gradient checking) against torch 2.15."""
import warnings

import numpy as np
import pytest

import engine
from ops.test_autograd_parity import _graph

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch


@pytest.mark.parametrize("exponent", [3, 2.5, -1])
def test_derivatives_of_a_power_are_graphs_like_torchs(exponent):
    """x ** n differentiated three times with create_graph: same values, same nodes
    (torch's formula multiplies by the exponent with a Scalar: MulBackward1)."""
    results = []
    for m in (engine, torch):
        x = m.tensor(2.0, dtype=m.float64, requires_grad=True)
        out, steps = x ** exponent, []
        for _ in range(3):
            (out,) = m.autograd.grad(out, x, create_graph=True)
            steps.append((out.item(), _graph(out)))
        results.append(steps)
    assert results[0] == results[1]


def test_gradcheck_on_float32_warns_and_fails_like_torch():
    """gradcheck keeps float32 inputs' Jacobians in float32 (the message shows no dtype)."""
    results = []
    for m in (engine, torch):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            passed = m.autograd.gradcheck(lambda t: t ** 3, (x,), raise_exception=False)
            with pytest.raises(RuntimeError) as info:
                m.autograd.gradcheck(lambda t: t ** 3, (x,))
        results.append((passed, [str(w.message) for w in caught], str(info.value)))
    assert results[0] == results[1]


def _outcome(fn):
    try:
        value = fn()
    except RuntimeError as error:
        return "error", str(error).split(" (")[0]
    return "ok", [None if v is None else v.tolist() for v in value]


def _grad_twice(m):
    u = m.tensor(1.0, requires_grad=True)
    v = m.tensor(2.0, requires_grad=True)
    f = u ** 2 + 3 * v
    steps = [_outcome(lambda: m.autograd.grad(f, u)),
             _outcome(lambda: m.autograd.grad(f, v)),       # v's path was not walked
             _outcome(lambda: m.autograd.grad(f, [u, v]))]  # u's path was freed
    w = m.tensor(2.0, requires_grad=True)
    b = m.tensor(1.0, requires_grad=True)
    loss = (3 * w + b) ** 2
    return steps + [_outcome(lambda: m.autograd.grad(loss, w)),
                    _outcome(lambda: m.autograd.grad(loss, b))]  # shares the freed pow


def test_autograd_grad_runs_and_frees_only_the_paths_to_its_inputs():
    """Like torch, autograd.grad skips (and so does not free) nodes that lead to no input."""
    assert _grad_twice(engine) == _grad_twice(torch)


def _hooks_fired(m):
    fired = []
    x = m.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    b = a.exp()
    c = x.sin()
    for name, t in (("a", a), ("b", b), ("c", c)):
        t.register_hook(lambda g, name=name: fired.append(name))
    out = (b + c).sum()
    grads = m.autograd.grad(out, [a], retain_graph=True)
    fired.append("|")
    grads += m.autograd.grad(out, [x])
    return fired, [g.tolist() for g in grads]


def test_autograd_grad_runs_hooks_only_on_the_paths_to_its_inputs():
    (fired_e, grads_e), (fired_t, grads_t) = _hooks_fired(engine), _hooks_fired(torch)
    assert fired_e == fired_t
    assert np.allclose(np.array(grads_e), np.array(grads_t))
