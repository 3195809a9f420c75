# ruff: noqa: E501 (tables of cases, one per line)
"""Nested forward mode against torch 2.15: what nests, what refuses to, and the values.

torch lets a user open one dual level (``dual_level`` inside ``dual_level``, or a
``torch.func.jvp`` inside one, raises "Nested forward mode AD is not supported at the
moment"), but ``torch.func`` nests its own levels: ``jvp`` of ``jvp``, ``jacfwd`` of
``jacfwd`` (a Hessian by forward over forward), ``jvp`` of ``grad`` and back. The API part
compares snippets (values, errors' type and message); the operations part takes the second
directional derivative of every operation of test_forward_ad_parity.py's tables,
``jvp(lambda a: jvp(f, (a,), (t1,)), (x,), (t2,))``, and compares all four results.
"""
import importlib

import numpy as np
import pytest

import engine
import parity
from tests.core.test_forward_ad_parity import BINARY, UNARY, _values

engine_vmap_module = importlib.import_module("engine.func.vmap")  # (engine.func.vmap: the function)

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

PRELUDE = """
fw = m.autograd.forward_ad
F = m.func
x = m.tensor([1.0, -2.0, 3.0])
t = m.tensor([0.5, 1.0, -1.0])
s = m.tensor([2.0, 0.0, 1.0])
"""

API_CASES = {
    # what torch refuses: a second level opened by the user, or by jvp inside the user's
    "enter twice": "fw.enter_dual_level()\nr = [error(fw.enter_dual_level)]\nfw.exit_dual_level()",
    "dual_level in dual_level": "with fw.dual_level():\n r = error(lambda: fw.dual_level().__enter__())",
    "jvp inside dual_level": "with fw.dual_level():\n r = error(lambda: F.jvp(m.sin, (x,), (t,)))",
    "jvp inside dual_level with a dual": "with fw.dual_level():\n d = fw.make_dual(x, t)\n r = error(lambda: F.jvp(lambda a: a * d, (x,), (s,)))",
    "jacfwd inside dual_level": "with fw.dual_level():\n r = error(lambda: F.jacfwd(m.sin)(x))",
    "enter inside jvp": "def f(a):\n    fw.enter_dual_level()\n    return a\nr = error(lambda: F.jvp(f, (x,), (t,)))",
    "dual_level inside jvp": "def f(a):\n    with fw.dual_level():\n        return a\nr = error(lambda: F.jvp(f, (x,), (t,)))",
    "dual_level inside nested jvp": "def f(a):\n    with fw.dual_level():\n        return a\n"
                                    "r = error(lambda: F.jvp(lambda b: F.jvp(f, (b,), (s,))[1], (x,), (t,)))",
    "exit inside jvp": "def f(a):\n    fw.exit_dual_level()\n    return a\nr = error(lambda: F.jvp(f, (x,), (t,)))",
    "exit out of order": "fw.enter_dual_level()\nr = [error(lambda: fw.exit_dual_level(level=1)), error(lambda: fw.exit_dual_level(level=-1))]\nfw.exit_dual_level(level=0)",
    "exit with none open": "r = [error(lambda: fw.exit_dual_level(level=0)), error(fw.exit_dual_level)]",
    "enter exit enter": "r = [fw.enter_dual_level()]\nfw.exit_dual_level(level=0)\nr.append(fw.enter_dual_level())\nfw.exit_dual_level(level=0)",
    # make_dual / unpack_dual given a level
    "make_dual level 0 without a level": "r = error(lambda: fw.make_dual(x, t, level=0))",
    "make_dual level 1 without a level": "r = error(lambda: fw.make_dual(x, t, level=1))",
    "make_dual level 0 of an integer without a level": "r = error(lambda: fw.make_dual(m.arange(3), t, level=0))",
    "make_dual level 0": "with fw.dual_level():\n r = fw.unpack_dual(fw.make_dual(x, t, level=0), level=0)",
    "make_dual level 1": "with fw.dual_level():\n r = error(lambda: fw.make_dual(x, t, level=1))",
    "unpack_dual level 1": "with fw.dual_level():\n r = [error(lambda: fw.unpack_dual(fw.make_dual(x, t), level=1)), fw.unpack_dual(x, level=1)]",
    "unpack_dual level 0 after the level": "with fw.dual_level():\n d = fw.make_dual(x, t)\nr = [fw.unpack_dual(d, level=0), fw.unpack_dual(d, level=3)]",
    # inside a jvp inside a jvp: the dual API works at the innermost level
    "make_dual of a dual inside jvp": "r = error(lambda: F.jvp(lambda a: fw.make_dual(a, s), (x,), (t,)))",
    "make_dual of a plain tensor inside jvp": "r = F.jvp(lambda a: fw.unpack_dual(fw.make_dual(x, s) * a)[1], (x,), (t,))",
    "unpack_dual inside nested jvp": (
        "seen = []\ndef g(b):\n    seen.append(fw.unpack_dual(b).tangent * 1)\n    return b.sin()\n"
        "r = [F.jvp(lambda a: F.jvp(g, (a,), (s,))[1], (x,), (t,)), seen]"),
    "make_dual inside nested jvp": (
        "def g(b):\n    return fw.unpack_dual(fw.make_dual(x, s, level=0) * b)[1]\n"
        "r = F.jvp(lambda a: F.jvp(g, (a,), (t,))[1], (x,), (t,))"),
    # forward over forward
    "jvp of jvp": "r = F.jvp(lambda a: F.jvp(lambda b: b.sin() * b, (a,), (t,)), (x,), (s,))",
    "jvp of jvp of jvp": (
        "f1 = lambda a: F.jvp(lambda b: b.exp() * b, (a,), (t,))[1]\n"
        "f2 = lambda a: F.jvp(f1, (a,), (s,))[1]\nr = F.jvp(f2, (x,), (t,))"),
    "jvp of jvp, two inputs": "r = F.jvp(lambda a, b: F.jvp(lambda c, d: (c * d).tanh(), (a, b), (t, s)), (x, s), (s, t))",
    "jvp of jvp, inner captures the outer dual": "r = F.jvp(lambda a: F.jvp(lambda b: b * a, (x,), (s,)), (x,), (t,))",
    "jvp of jvp, has_aux": "r = F.jvp(lambda a: F.jvp(lambda b: (b.cos(), b.sin()), (a,), (t,), has_aux=True), (x,), (s,))",
    "jvp of jvp, independent inner output": "r = F.jvp(lambda a: F.jvp(lambda b: a * 2, (x,), (t,)), (x,), (s,))",
    "jvp of jvp, in place": (
        "def g(b, a):\n    c = b.clone()\n    c.mul_(a)\n    c[0] = b[1] * 2\n    c[1:] += a[:2].exp()\n    return c.exp()\n"
        "r = F.jvp(lambda a: F.jvp(lambda b: g(b, a), (a,), (s,)), (x,), (t,))"),
    "jvp of jvp, in-place views": (
        "def g(b):\n    c = b.clone()\n    v = c[1:]\n    v.mul_(b[:2])\n    c.unsqueeze_(0)\n    c.t_()\n    return c * b.view(3, 1)\n"
        "r = F.jvp(lambda a: F.jvp(g, (a,), (s,)), (x,), (t,))"),
    "jvp of jvp, copy_ and fill_": (
        "def g(b):\n    c = m.zeros(2, 3)\n    c[0].copy_(b * b)\n    c[1].fill_(2.0)\n    c[1].masked_fill_(b > 0, 1.0)\n    return c * b\n"
        "r = F.jvp(lambda a: F.jvp(g, (a,), (s,)), (x,), (t,))"),
    "jvp of jvp, views": "r = F.jvp(lambda a: F.jvp(lambda b: (b.view(3, 1) * a[None]).t()[1:].sum(0), (a,), (s,)), (x,), (t,))",
    "jvp of jvp requires grad": (
        "xr = x.clone().requires_grad_()\n"
        "out = F.jvp(lambda a: F.jvp(lambda b: (b ** 3).sum(), (a,), (t,))[1], (xr,), (s,))\n"
        "out[1].backward()\nr = [out[1].detach(), xr.grad]"),  # (grad_fn: DIFFERENCES.md, forward mode)
    "jacfwd of jacfwd": "r = F.jacfwd(F.jacfwd(lambda a: (a.sin() * a.cos()).sum() + (a ** 2).prod()))(x)",
    "jacfwd of jacfwd of a vector function": "r = F.jacfwd(F.jacfwd(lambda a: a.exp() * a.sum()))(x)",
    "jacfwd of jacfwd, argnums": "r = F.jacfwd(F.jacfwd(lambda a, b: (a * b).sin().sum(), argnums=1), argnums=0)(x, s)",
    "jacfwd cubed": "r = F.jacfwd(F.jacfwd(F.jacfwd(lambda a: (a ** 3).sum() * a[0])))(x)",
    "jacfwd of jacfwd equals hessian": "f = lambda a: (a.tanh() @ m.ones(3, 3) * a).sum()\nr = [F.jacfwd(F.jacfwd(f))(x), F.hessian(f)(x)]",
    "jacfwd of hessian": "r = F.jacfwd(F.hessian(lambda a: (a.sin() * a).sum()))(x)",
    "hessian of hessian": "r = F.hessian(lambda a: F.hessian(lambda b: (b ** 4).sum())(a).sum())(x)",
    "jvp of hessian": "r = F.jvp(F.hessian(lambda a: (a.exp() * a).sum()), (x,), (t,))",
    "jvp of jacfwd": "r = F.jvp(lambda a: F.jacfwd(lambda b: (b * a).sin())(a), (x,), (t,))",
    "jacrev of jacfwd": "r = F.jacrev(F.jacfwd(lambda a: a.sin().sum()))(x)",
    "grad of jvp of jvp": "r = F.grad(lambda a: F.jvp(lambda b: F.jvp(lambda c: (c ** 3).sum(), (b,), (t,))[1], (a,), (s,))[1])(x)",
    "jvp of grad of jvp": "r = F.jvp(F.grad(lambda a: F.jvp(lambda b: (b.sin() * b).sum(), (a,), (t,))[1]), (x,), (s,))",
    "jvp of jvp of an MLP": (
        "W1 = m.tensor([[0.5, -1.0, 0.3], [0.2, 0.4, -0.6]])\nW2 = m.tensor([[1.5, -0.5]])\n"
        "net = lambda a: (m.tanh(a @ W1.T) @ W2.T).sum()\n"
        "r = F.jvp(lambda a: F.jvp(net, (a,), (t,))[1], (x,), (s,))"),
    "jvp of jvp of a module": (
        "m.manual_seed(0)\nlayer = m.nn.Sequential(m.nn.Linear(3, 4), m.nn.Tanh(), m.nn.Linear(4, 2))\n"
        "r = [o.detach() for o in F.jvp(lambda a: F.jvp(layer, (a,), (t,))[1], (x,), (s,))]"),
    # under vmap (jacfwd is vmap of jvp): the tangents of every level ride on the physical
    # tensors, and the products' shortcuts see them (matmul of a 1-D and a 3-D tensor, grad off)
    "jvp of vmap of jvp": "r = F.jvp(lambda a: m.vmap(lambda u: F.jvp(lambda b: (b.sin() * a).sum(), (a,), (u,))[1])(m.eye(3)), (x,), (s,))",
    "jacfwd of jacfwd through matmul": (
        "B = m.arange(12.0).reshape(2, 3, 2) / 10\n"
        "r = F.jacfwd(F.jacfwd(lambda a: (a @ B).sin() + (B.transpose(1, 2) @ a).cos()))(x)"),
    "jacfwd of a jvp whose matmul has only the outer tangent": (
        "B = m.arange(12.0).reshape(2, 3, 2) / 10\nW = m.ones(3, 2)\n"
        "def g(a):\n    return F.jvp(lambda b: (a.reshape(1, 3) @ W).reshape(2) * b + (a @ B).sum(0) * b, (m.ones(2),), (m.ones(2),))[1]\n"
        "r = [F.jacfwd(g)(x), F.jvp(g, (x,), (s,))]"),
    "autograd.functional.jacobian forward-mode of jvp": (
        "r = error(lambda: m.autograd.functional.jacobian(lambda a: F.jvp(lambda b: b.sin(), (a,), (t,))[1], x, strategy='forward-mode', vectorize=True))"),
}


@pytest.mark.parametrize("name", API_CASES)
def test_nested_forward_api(name):
    parity.assert_same_snippet(PRELUDE + API_CASES[name])


BATCHED = ["jacfwd of jacfwd", "jacfwd of jacfwd of a vector function", "jacfwd of jacfwd, argnums",
           "jacfwd cubed", "jvp of vmap of jvp", "jacfwd of jacfwd through matmul",
           "jacfwd of a jvp whose matmul has only the outer tangent"]


@pytest.mark.parametrize("name", BATCHED)
def test_nested_forward_runs_batched(name, monkeypatch):
    """Forward over forward under vmap is one batched pass per level: vmap's loop never ran."""
    calls = []
    monkeypatch.setattr(engine_vmap_module, "_loop", lambda *a: calls.append(a))
    exec(PRELUDE.replace("m.", "engine.") + API_CASES[name].replace("m.", "engine."),
         {"engine": engine})
    assert not calls


# ---------------------------------------------------------------- every op, twice
def _floats(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return tuple(o for o in outs if o.is_floating_point())


def _second(m, fn, n, *args):
    """``fn``'s results, their tangents along ``t1``, and the tangents of both along ``t2``:
    jvp of jvp. ``args``: n primals, n inner tangents, n outer tangents, then the rest."""
    primals, t1, t2, rest = args[:n], args[n:2 * n], args[2 * n:3 * n], args[3 * n:]
    def inner(*outer_primals):
        return m.func.jvp(lambda *p: _floats(fn(m, *p, *rest)), outer_primals, t1)
    return m.func.jvp(inner, primals, t2)


# torch 2.15's forward-over-forward through these is wrong: its forward formulas read the
# saved mean and rstd as constants at the second order (central differences of its own
# first-order jvp disagree with it; its jacfwd(jacrev(f)) agrees with them and with the
# engine). The engine keeps the right value: DIFFERENCES.md, forward mode.
TORCH_WRONG = {"layer_norm", "batch_norm"}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(set(UNARY) - TORCH_WRONG))
def test_unary_second_tangents(name, dtype):
    parity.run_both(lambda m, *a: _second(m, UNARY[name], 1, *a), _values(0, dtype),
                    _values(1, dtype), _values(2, dtype), exact=False, check_layout=False)


@pytest.mark.parametrize("name", sorted(TORCH_WRONG))
def test_second_tangents_where_torch_is_wrong(name):
    import engine

    x, t1, t2 = (_values(seed, "float64") for seed in range(3))
    found = _second(engine, UNARY[name], 1, x, t1, t2)[1][1][0]
    tx, tt1, tt2 = (parity.to_torch(v) for v in (x, t1, t2))
    first = lambda a: torch.func.jvp(lambda b: UNARY[name](torch, b), (a,), (tt1,))[1]  # noqa: E731
    h = 1e-6
    expected = (first(tx + h * tt2) - first(tx - h * tt2)) / (2 * h)  # central differences
    np.testing.assert_allclose(found.numpy(), expected.numpy(), rtol=1e-5, atol=1e-7)
    torch_nested = _second(torch, UNARY[name], 1, tx, tt1, tt2)[1][1][0]
    assert not np.allclose(torch_nested.numpy(), expected.numpy(), rtol=1e-3), \
        "torch's forward over forward is right now: compare with it again"


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_second_tangents(name, dtype):
    values = [_values(seed, dtype) for seed in range(6)]
    parity.run_both(lambda m, *v: _second(m, BINARY[name], 2, *v), *values, exact=False,
                    check_layout=False)
