"""A second (and third) derivative through the nodes an in-place write into a view leaves:
the base's ``CopySlices`` and the older views' ``AsStridedBackward0`` (engine/core/history.py).
Both used to refuse ``create_graph=True``; their backward is now written with recorded
operations when grad mode is on, as torch's is, so the gradient's own graph, its values and
node names are torch's."""
import pytest

from tests import parity

CASES = {
    "CopySlices: mul_ of a slice": (
        "x = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)\n"
        "y = x * 2\ny[1:].mul_(x[:2])\n"
        "g, = m.autograd.grad(y.pow(2).sum(), x, create_graph=True)\n"
        "r = [g, g.grad_fn, m.autograd.grad(g.sum(), x)[0]]"),
    "CopySlices: a number written into an element": (
        "x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)\ny = x * 1\ny[0] = 5.0\n"
        "g, = m.autograd.grad((y ** 3).sum(), x, create_graph=True)\n"
        "r = [g, m.autograd.grad(g.sum(), x)[0]]"),
    "CopySlices: a column, third derivative": (
        "x = m.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=m.float64, requires_grad=True)\n"
        "y = x * 3\ny[:, 1].sin_()\n"
        "g, = m.autograd.grad((y ** 2).sum(), x, create_graph=True)\n"
        "gg, = m.autograd.grad(g.sum(), x, create_graph=True)\n"
        "r = [g, gg, m.autograd.grad(gg.sum(), x)[0]]"),
    "AsStridedBackward0: an older view of a changed base": (
        "x = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\n"
        "y = x * 3\nv = y[0]\ny[:, 1].sin_()\n"
        "g, = m.autograd.grad((v * v).sum(), x, create_graph=True)\n"
        "r = [v.grad_fn, g, m.autograd.grad(g.sum(), x)[0], g.grad_fn]"),
    "AsStridedBackward0: a view that overlaps itself": (
        "x = m.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)\n"
        "y = x.clone()\nv = y.as_strided((2, 2), (1, 1))\ny.mul_(2)\n"
        "g, = m.autograd.grad((v ** 3).sum(), x, create_graph=True)\n"
        "r = [v.grad_fn, g, m.autograd.grad(g.sum(), x)[0]]"),
    "AsStridedBackward0: a transposed view, offset": (
        "x = m.arange(1.0, 7.0, dtype=m.float64).reshape(2, 3).requires_grad_()\n"
        "y = x.exp() * 1\nv = y[:, 1:].t()\ny.add_(1)\n"
        "g, = m.autograd.grad((v.sin() * v).sum(), x, create_graph=True)\n"
        "r = [g, m.autograd.grad(g.sum(), x)[0]]"),
    "hessian of hessian": (
        "r = m.func.hessian(m.func.hessian(lambda a: (a.sin() * a.cos()).sum()))"
        "(m.tensor([0.3, 0.9], dtype=m.float64))"),
    "grad of hessian of a captured tensor": (
        "w = m.tensor([0.5, -1.5], dtype=m.float64)\n"
        "r = m.func.grad(lambda b: m.func.hessian(lambda a: (a.sin() * b).sum())"
        "(m.tensor([2.0, 2.5], dtype=m.float64)).sum())(w)"),
    "without create_graph: the same values": (
        "x = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\n"
        "y = x * 3\nv = y[0]\ny[:, 1].sin_()\n"
        "r = m.autograd.grad((v * v).sum() + y.sum(), x)"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_second_derivative_through_an_in_place_write_into_a_view(name):
    parity.assert_same_snippet(CASES[name])
