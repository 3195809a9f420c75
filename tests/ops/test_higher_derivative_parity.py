"""Higher derivatives against torch 2.15: the same products, rounded alike, at every order.

A gradient taken with ``create_graph=True`` is itself differentiated through the backward
formula that made it, so the formula's steps decide the next derivative's last bits (and,
when a step is missing from the graph, its value). These tests take derivatives up to the
fourth of:

* ``norm`` / ``linalg.vector_norm`` for every kind of p, dim and keepdim, at zero vectors
  too: the engine's LinalgVectorNormBackward0 is torch's norm_backward step by step (its
  in-place masked fills, the 0-d norm of a whole reduction broadcast rather than expanded);
* in-place ops whose node needs the tensor's old values (``pow_``, ``mul_`` ...): torch's
  node keeps a copy of them recorded in the graph (CloneBackward0), through which the next
  derivative reaches what the tensor was computed from.
"""
import math

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _derivatives(m, make, order):
    """The function's value, then its derivatives of orders 1 to ``order`` (each the gradient
    of the previous one's sum), with their nodes' names; a ZeroTensor as "zeros" (torch's
    gradient of sgn; the engine's ordinary zeros without a graph: DIFFERENCES.md, "abs's
    second derivative")."""
    inputs, output = make(m)
    results = [(output, output.grad_fn and output.grad_fn.name())]
    current = output
    for _ in range(order):
        grads = m.autograd.grad(current.sum(), inputs, create_graph=True, allow_unused=True)
        if any(g is None for g in grads):
            results.append("unused: " + " ".join(str(g is None) for g in grads))
            break
        if m is torch and any(g._is_zerotensor() for g in grads):
            results.append("zeros")
            break
        if m is not torch and all(g.grad_fn is None and not g.any() for g in grads):
            results.append("zeros")
            break
        results.append([(g, g.grad_fn and g.grad_fn.name()) for g in grads])
        current = sum(g.sum() for g in grads)
    return results


def _same_derivatives(make, order=4, exact=True):
    engine_results = _derivatives(parity.engine, make, order)
    torch_results = _derivatives(torch, make, order)
    for n, (e, t) in enumerate(zip(engine_results, torch_results)):
        where = f"order {n}: "
        if t == "zeros" and not isinstance(e, str):
            # the engine's zeros may still have a graph (AddBackward0 of zeros), whose next
            # derivative is zeros again: torch stops at its ZeroTensor
            assert all(not g.any() for g, _ in e), where + f"engine {e!r}, torch zeros"
            return
        if isinstance(t, str) or isinstance(e, str):
            assert e == t, where + f"engine {e!r}, torch {t!r}"
            continue
        pairs = [e] if n == 0 else e
        for (e_value, e_node), (t_value, t_node) in zip(pairs, [t] if n == 0 else t):
            assert e_node == t_node, where + f"node: engine {e_node}, torch {t_node}"
            parity.assert_same(e_value, t_value, exact=exact, _where=where)
    assert len(engine_results) == len(torch_results), (engine_results, torch_results)


# ====================================================================== norm
NORM_VALUES = {
    "rows, one of zeros": [[0.5, -1.25, 2.0], [0.0, 0.0, 0.0]],
    "rows": [[0.75, 0.5, -0.25], [3.0, -0.5, 1.5]],
    "relu(b) * b of fuzz 705598": [[0.5, 0.0], [0.25, 0.0]],
    "vector of zeros": [0.0, 0.0],
    "0-d": 1.5,
    "0-d zero": 0.0,
}
NORM_ORDERS = [None, "fro", 2, 1, 3, 4, 0, math.inf, -math.inf, 0.5, 1.5, 2.5]


def _dims(values):
    ndim = len(parity.np.shape(values))
    return {0: [None, []], 1: [None, 0, -1, (0,), []],
            2: [None, 1, 0, (0, 1), (-1,), []]}[ndim]


NORM_CASES = [(name, p, dim, keepdim) for name, values in NORM_VALUES.items()
              for p in NORM_ORDERS for dim in _dims(values) for keepdim in (False, True)
              if p != "fro" or dim is None]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, p, dim, keepdim", NORM_CASES)
def test_norm_derivatives(name, p, dim, keepdim, dtype):
    values = NORM_VALUES[name]

    def make(m):
        x = m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)
        y = x.relu() * x if name.startswith("relu") else x
        keywords = {} if dim is None else {"dim": dim}
        return (x,), y.norm(p, keepdim=keepdim, **keywords)

    # (p 1.5 and 2.5 take |x| ** 0.5 and norm ** 0.5 or ** 1.5: torch's float32 sqrt is
    # MKL's, not always the correctly rounded value the engine gives, and its float64 pow
    # SLEEF's or the C library's, where the engine's is numpy's: DIFFERENCES.md, "Sums,
    # products and math functions". Other p take products and exact shortcuts.)
    _same_derivatives(make, exact=p not in (1.5, 2.5))


@pytest.mark.parametrize("p", [2, 3, math.inf, 4])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)])
def test_vector_norm_derivatives(p, dim):
    def make(m):
        x = m.tensor([[0.75, 0.5, -0.25], [0.0, 0.0, 0.0]], dtype=m.float64,
                     requires_grad=True)
        return (x,), m.linalg.vector_norm(x * x, p, dim)

    _same_derivatives(make)


def test_norm_node_keeps_torchs_dim():
    for call in ("x.norm()", "x.norm(dim=1)", "x.norm(3, (0, 1))", "x.norm(dim=[])",
                 "m.linalg.vector_norm(x, keepdim=True)"):
        parity.assert_same_snippet(
            "x = m.ones(2, 2, requires_grad=True)\n"
            f"node = ({call}).grad_fn\n"
            "r = [node.name(), node._saved_dim, node._saved_keepdim]")


# ====================================================================== in-place: old values
IN_PLACE = {
    "pow_ number": lambda a, y: a.pow_(1.5),
    "pow_ 3": lambda a, y: a.pow_(3),
    "pow_ tensor": lambda a, y: a.pow_(y),
    "mul_": lambda a, y: a.mul_(y),
    "div_": lambda a, y: a.div_(y),
    "sin_": lambda a, y: a.sin_(),
    "sqrt_": lambda a, y: a.sqrt_(),
    "exp_": lambda a, y: a.exp_(),
    "fmod_": lambda a, y: a.fmod_(y),
    "abs().pow_ (norm_backward's step)": lambda a, y: a.abs().pow_(0.5),
    # through a view: the base's CopySlices node, differentiated again (create_graph)
    "mul_ of a view": lambda a, y: (a[1:].mul_(y[1:]), a)[1],
    "sin_ of a view": lambda a, y: (a[:2].sin_(), a)[1],
}


@pytest.mark.parametrize("name", list(IN_PLACE))
def test_in_place_old_values_stay_in_the_graph(name):
    def make(m):
        x = m.tensor([0.3, 0.7, 1.1], dtype=m.float64, requires_grad=True)
        y = m.tensor([1.3, -0.4, 2.5], dtype=m.float64, requires_grad=True)
        return (x, y), IN_PLACE[name](x.abs() * 1, y) * x

    _same_derivatives(make, order=3)
