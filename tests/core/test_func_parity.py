# ruff: noqa: E501 (tables of cases, one per line)
"""torch.func against torch 2.15: grad, grad_and_value, vjp, jacrev, functional_call.

Each case is a snippet run once with ``m = torch`` and once with ``m = engine``; what it
leaves in ``r`` (tensors with dtype, shape, layout, requires_grad and grad_fn name, the
error's type and message) must be the same, and so must the inputs afterwards (their
``.grad``: the transforms never fill it).
"""
import numpy as np
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _facts(value):
    """What to compare beside the values: grad_fn names, and callables as a mark."""
    if isinstance(value, dict):
        return {k: _facts(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_facts(v) for v in value]
    if hasattr(value, "grad_fn"):
        return None if value.grad_fn is None else value.grad_fn.name()
    if callable(value):
        return "<function>"
    return value


def _comparable(value):
    """Results without their callables (vjp_fn), dicts as sorted item lists."""
    if isinstance(value, dict):
        return [(k, _comparable(value[k])) for k in value]
    if isinstance(value, (tuple, list)) and not hasattr(value, "_fields"):
        return type(value)(_comparable(v) for v in value)
    if callable(value) and not hasattr(value, "grad_fn"):
        return "<function>"
    return value


PRELUDE = """
F = m.func
cube = lambda a: (a ** 3).sum()
"""


def _run(m, code, x, w, s):
    scope = {"m": m, "x": x, "w": w, "s": s}
    exec(PRELUDE + code, scope)  # noqa: S102 - the same snippet for both libraries
    r = scope["r"]
    return _comparable(r), _facts(r), [t.grad for t in (x, w, s)]


def _inputs(dtype, requires_grad):
    x = parity.make_tensor((3,), dtype, low=-2, high=2)
    w = parity.make_tensor((3,), dtype, seed=1, low=-2, high=2)
    s = parity.make_tensor((), dtype, seed=2, low=0.5, high=2)
    if requires_grad:
        x.requires_grad_()
        w.requires_grad_()
    return x, w, s


CASES = {
    # ---- grad
    "grad": "r = F.grad(cube)(x)",
    "grad 0-d": "r = F.grad(lambda a: a.sin() * a)(s)",
    "grad of an empty input": "r = F.grad(lambda a: a.sum())(x[:0])",
    "grad_and_value": "r = F.grad_and_value(cube)(x)",
    "grad under no_grad": "with m.no_grad():\n    r = F.grad(cube)(x)",
    "grad_and_value under no_grad": "with m.no_grad():\n    r = F.grad_and_value(cube)(x)",
    "grad leaves .grad alone": "r = F.grad(cube)(x); r = (r, x.grad, x.requires_grad)",
    "grad of grad": "r = F.grad(lambda a: F.grad(cube)(a).sum())(x)",
    "grad of grad of grad, 0-d": "r = F.grad(F.grad(F.grad(lambda a: a.sin() * a ** 3)))(s)",
    "grad of grad: no perturbation confusion":
        "r = F.grad(lambda a: (a * F.grad(lambda b: (a * b).sum())(a)).sum())(x)",
    "grad with a captured tensor": "r = F.grad(lambda a: (a ** 2 * w).sum())(x)",
    "grad_and_value with a captured tensor": "r = F.grad_and_value(lambda a: (a * w).sum())(x)",
    "grad of a constant output": "r = F.grad(lambda a: m.tensor(3.))(x)",
    "grad through detach": "r = F.grad(lambda a: (a.detach() ** 2).sum())(x)",
    "grad respects no_grad inside f":
        "def f(a):\n    with m.no_grad():\n        c = a ** 2\n    return (a - c).sum()\n"
        "r = F.grad(f)(x)",
    "grad of a non-scalar output": "r = F.grad(lambda a: a ** 2)(x)",
    "grad of a one-element output": "r = F.grad(lambda a: (a ** 2).sum().view(1))(x)",
    "grad of a number output": "r = F.grad(lambda a: 3.0)(x)",
    "grad of a number input": "r = F.grad(lambda a: a)(3.0)",
    "grad of an integer input": "r = F.grad(lambda a: (a * 2).sum())(m.arange(3))",
    "argnums tuple": "r = F.grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x, w)",
    "argnums 1": "r = F.grad(lambda a, b: (a * b ** 2).sum(), argnums=1)(x, w)",
    "argnums -1": "r = F.grad(lambda a, b: (a * b ** 2).sum(), argnums=-1)(x, w)",
    "argnums out of range": "r = F.grad(lambda a, b: (a * b).sum(), argnums=2)(x, w)",
    "argnums -3": "r = F.grad(lambda a, b: (a * b).sum(), argnums=-3)(x, w)",
    "argnums empty": "r = F.grad(lambda a, b: (a * b).sum(), argnums=())(x, w)",
    "argnums repeated": "r = F.grad(lambda a, b: (a * b).sum(), argnums=(0, -2))(x, w)",
    "argnums a list": "r = F.grad(lambda a, b: (a * b).sum(), argnums=[0])(x, w)",
    "argnums a float": "r = F.grad(lambda a, b: (a * b).sum(), argnums=(0.0,))(x, w)",
    "a dict argument": "r = F.grad(lambda d: (d['a'] * d['b'] ** 2).sum())({'a': x, 'b': w})",
    "a tuple argument": "r = F.grad(lambda t: (t[0] * t[1]).sum())((x, w))",
    "a dict holding a number": "r = F.grad(lambda d: d['a'].sum())({'a': x, 'n': 2})",
    "has_aux": "r = F.grad(lambda a: ((a ** 2).sum(), a * 2), has_aux=True)(x)",
    "has_aux tree": "r = F.grad(lambda a: ((a ** 2).sum(), {'k': a * 2, 'l': [a.sum()]}), "
                    "has_aux=True)(x)",
    "grad_and_value has_aux": "r = F.grad_and_value(lambda a: ((a ** 2).sum(), a.exp()), "
                              "has_aux=True)(x)",
    "has_aux with a number": "r = F.grad(lambda a: ((a ** 2).sum(), {'n': 3}), has_aux=True)(x)",
    "has_aux without a pair": "r = F.grad(lambda a: (a ** 2).sum(), has_aux=True)(x)",
    "has_aux with a triple": "r = F.grad(lambda a: (a.sum(), a, a), has_aux=True)(x)",
    "keyword arguments": "r = F.grad(lambda a, scale=1.0: (a ** 2).sum() * scale)(x, scale=3.0)",
    "tensor keyword argument": "r = F.grad(lambda a, b=None: (a * b).sum())(x, b=w)",
    "grad keeps the function's name": "r = F.grad(cube).__name__",
    "float32 promotion": "r = F.grad(lambda a: (a * m.tensor(2.0, dtype=m.float64)).sum())(x)",
    # ---- vjp
    "vjp": "out, fn = F.vjp(lambda a: a ** 2, x); r = (out, fn(m.ones_like(x)))",
    "vjp called twice": "out, fn = F.vjp(lambda a: a ** 2, x); r = (fn(x), fn(x * 2))",
    "vjp_fn's name": "out, fn = F.vjp(lambda a: a ** 2, x); r = (fn.__name__, fn.__qualname__)",
    "vjp of two primals and outputs":
        "out, fn = F.vjp(lambda a, b: (a * b, a + b), x, w); r = (out, fn((x, w)))",
    "vjp of a dict output":
        "out, fn = F.vjp(lambda a: {'p': a * 2, 'q': a.sum()}, x); "
        "r = (out, fn({'p': x, 'q': m.ones((), dtype=x.dtype)}))",
    "vjp has_aux": "r = F.vjp(lambda a: (a ** 2, a.sum()), x, has_aux=True)",
    "vjp has_aux then fn": "out, fn, aux = F.vjp(lambda a: (a ** 2, a.sum()), x, has_aux=True); "
                           "r = (out, aux, fn(x))",
    "vjp has_aux without a pair": "r = F.vjp(lambda a: a ** 2, x, has_aux=True)",
    "vjp cotangents of another structure":
        "out, fn = F.vjp(lambda a: a ** 2, x); r = fn((x,))",
    "vjp cotangents of a nested structure":
        "out, fn = F.vjp(lambda a: (a, [a * 2]), x); r = fn((x, x))",
    "vjp cotangent of a wrong shape": "out, fn = F.vjp(lambda a: a ** 2, x); r = fn(x[:2])",
    "vjp of an integer output": "r = F.vjp(lambda a: a.long(), x)",
    "vjp of None": "r = F.vjp(lambda a: None, x)",
    "vjp of a number": "r = F.vjp(lambda a: 3.0, x)",
    "vjp of an empty tuple": "r = F.vjp(lambda a: (), x)",
    "vjp of a number primal": "r = F.vjp(lambda a: a, 2.0)",
    "vjp of an unused primal": "out, fn = F.vjp(lambda a, b: a * 2, x, w); r = fn(x)",
    "vjp under no_grad": "with m.no_grad():\n    out, fn = F.vjp(lambda a: a ** 2, x)\n"
                         "    r = (out, fn(x))",
    "vjp fn create_graph=False":
        "out, fn = F.vjp(lambda a: a * w, x); r = fn(x, create_graph=False)",
    "vjp fn retain_graph=False twice":
        "out, fn = F.vjp(lambda a: a.exp(), x); fn(x, retain_graph=False); r = fn(x)",
    "vjp with a captured tensor": "out, fn = F.vjp(lambda a: a * w, x); r = (out, fn(x))",
    "grad of vjp":
        "r = F.grad(lambda a: F.vjp(lambda b: b ** 3, a)[1](m.ones_like(a))[0].sum())(x)",
    # ---- jacrev
    "jacrev": "r = F.jacrev(lambda a: a ** 2)(x)",
    "jacrev of a matrix function": "r = F.jacrev(lambda a: a.view(3, 1) * a)(x)",
    "jacrev 0-d": "r = F.jacrev(lambda a: a.exp())(s)",
    "jacrev of a scalar output": "r = F.jacrev(cube)(x)",
    "jacrev two outputs": "r = F.jacrev(lambda a: (a ** 2, a.sum()))(x)",
    "jacrev argnums tuple": "r = F.jacrev(lambda a, b: a * b.sum(), argnums=(0, 1))(x, w)",
    "jacrev argnums 1": "r = F.jacrev(lambda a, b: a * b, argnums=1)(x, w)",
    "jacrev argnums tuple, two outputs":
        "r = F.jacrev(lambda a, b: (a * b, b.sum()), argnums=(1, 0))(x, w)",
    "jacrev has_aux": "r = F.jacrev(lambda a: (a ** 2, a.sum()), has_aux=True)(x)",
    "jacrev chunk_size 2": "r = F.jacrev(lambda a: (a ** 2, a.sum()), chunk_size=2)(x)",
    "jacrev chunk_size 1": "r = F.jacrev(lambda a: a ** 2, chunk_size=1)(x)",
    "jacrev chunk_size 1 of a scalar": "r = F.jacrev(cube, chunk_size=1)(x)",
    "jacrev chunk_size 0": "r = F.jacrev(lambda a: a, chunk_size=0)",
    "jacrev chunk_size -1": "r = F.jacrev(lambda a: a, chunk_size=-1)",
    "jacrev of an integer input": "r = F.jacrev(lambda a: a * 2)(m.arange(3))",
    "jacrev of a dict output": "r = F.jacrev(lambda a: {'p': a ** 2, 'q': a.sum()})(x)",
    "jacrev of a dict input": "r = F.jacrev(lambda d: d['a'] * d['b'])({'a': x, 'b': w})",
    "jacrev of jacrev": "r = F.jacrev(F.jacrev(cube))(x)",
    "jacrev of grad": "r = F.jacrev(F.grad(lambda a: (a.sin() * a).sum()))(x)",
    "grad of jacrev": "r = F.grad(lambda a: F.jacrev(lambda b: b ** 3)(a).sum())(x)",
    "jacrev of a constant": "r = F.jacrev(lambda a: m.ones(2, dtype=a.dtype))(x)",
    "jacrev of an empty output": "r = F.jacrev(lambda a: a[:0])(x)",
    "jacrev with a captured tensor": "r = F.jacrev(lambda a: a * w)(x)",
    "jacrev under no_grad": "with m.no_grad():\n    r = F.jacrev(lambda a: a * w)(x)",
    "jacrev argnums out of range": "r = F.jacrev(lambda a: a, argnums=1)(x)",
    "jacrev of a number output": "r = F.jacrev(lambda a: 3.0)(x)",
}


# notebooks/DIFFERENCES.md, "Jacobians from torch.func.jacrev": differentiated again, with
# inputs that require grad, the graph ends in another node; the values match
LAYOUT_DIFFERS = {("grad of jacrev", True)}


@pytest.mark.parametrize("requires_grad", [False, True], ids=["plain", "requires_grad"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(CASES))
def test_func(name, dtype, requires_grad):
    x, w, s = _inputs(dtype, requires_grad)
    if (name, requires_grad) in LAYOUT_DIFFERS:
        parity.run_both(lambda m, x, w, s: _run(m, CASES[name], x, w, s)[::2], x, w, s,
                        exact=False, check_layout=False, check_repr=False)
        return
    parity.run_both(lambda m, x, w, s: _run(m, CASES[name], x, w, s), x, w, s, exact=False)


# ====================================================================== functional_call
MODULE_CASES = {
    "new weights": "r = F.functional_call(lin, {'weight': w2, 'bias': b2}, (x,))",
    "args as one tensor": "r = F.functional_call(lin, {'weight': w2}, x)",
    "a tuple of dicts": "r = F.functional_call(lin, ({'weight': w2}, {'bias': b2}), (x,))",
    "a list of dicts": "r = F.functional_call(lin, [{'weight': w2}, {'bias': b2}], (x,))",
    "a key in two dicts": "r = F.functional_call(lin, ({'weight': w2}, {'weight': w2}), (x,))",
    "not dicts": "r = F.functional_call(lin, ({'weight': w2}, 3), (x,))",
    "not a dict": "r = F.functional_call(lin, 3, (x,))",
    "empty dict": "r = F.functional_call(lin, {}, (x,))",
    "module restored": "F.functional_call(lin, {'weight': w2}, (x,)); "
                       "r = (lin.weight, type(lin.weight).__name__, lin(x))",
    "kwargs": "r = F.functional_call(net, {'0.weight': w2}, (x,), {'scale': 3.0})",
    "nested names": "r = F.functional_call(net, {'0.weight': w2, '0.bias': b2}, (x,))",
    "a buffer": "r = F.functional_call(net, {'offset': b2}, (x,))",
    "strict with all keys": "r = F.functional_call(net, {'0.weight': w2, '0.bias': b2, "
                            "'offset': b2}, (x,), strict=True)",
    "strict missing": "r = F.functional_call(net, {'0.weight': w2}, (x,), strict=True)",
    "strict unexpected": "r = F.functional_call(lin, {'weight': w2, 'bias': b2, 'extra': b2}, "
                         "(x,), strict=True)",
    "an unknown name without strict": "r = F.functional_call(lin, {'extra': b2}, (x,))",
    "an unknown submodule": "r = F.functional_call(net, {'nothing.weight': w2}, (x,))",
    "a non-tensor value": "r = F.functional_call(lin, {'weight': 3.0}, (x,))",
    "tied weights": "r = F.functional_call(tied, {'a.weight': w2}, (x,))",
    "tied weights, tie_weights=False": "r = F.functional_call(tied, {'a.weight': w2}, (x,), "
                                       "tie_weights=False)",
    "tied weights given twice": "r = F.functional_call(tied, {'a.weight': w2, 'b.weight': w2 * 2},"
                                " (x,))",
    "tied weights given twice, same tensor": "r = F.functional_call(tied, {'a.weight': w2, "
                                             "'b.weight': w2}, (x,))",
    "tied weights strict": "r = F.functional_call(tied, {'a.weight': w2}, (x,), strict=True)",
    "tied weights strict untied": "r = F.functional_call(tied, {'a.weight': w2}, (x,), "
                                  "strict=True, tie_weights=False)",
    "grad through functional_call":
        "params = {k: v.detach() for k, v in lin.named_parameters()}\n"
        "r = F.grad(lambda p: F.functional_call(lin, p, (x,)).pow(2).sum())(params)",
    "grad_and_value with argnums over params and input":
        "params = {k: v.detach() for k, v in lin.named_parameters()}\n"
        "r = F.grad_and_value(lambda p, a: F.functional_call(lin, p, (a,)).sum(), "
        "argnums=(0, 1))(params, x)",
    "jacrev through functional_call":
        "r = F.jacrev(lambda wt: F.functional_call(lin, {'weight': wt}, (x,)))(w2)",
    "an error inside forward restores the module":
        "e = None\ntry:\n    F.functional_call(lin, {'weight': w2}, (x[:, :2],))\n"
        "except RuntimeError as caught:\n    e = type(caught).__name__\nr = (e, lin.weight)",
}


def _module_run(m, code, x, w2, b2):
    m.manual_seed(0)

    class Net(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.add_module("0", m.nn.Linear(3, 2))
            self.register_buffer("offset", m.zeros(2, dtype=x.dtype))

        def forward(self, a, scale=1.0):
            return getattr(self, "0")(a) * scale + self.offset

    class Tied(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = m.nn.Linear(3, 2, bias=False)
            self.b = m.nn.Linear(3, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, a):
            return self.a(a) + self.b(a)

    lin = m.nn.Linear(3, 2).to(x.dtype)
    net, tied = Net().to(x.dtype), Tied().to(x.dtype)
    scope = {"m": m, "F": m.func, "x": x, "w2": w2, "b2": b2, "lin": lin, "net": net,
             "tied": tied}
    exec(code, scope)  # noqa: S102
    r = scope["r"]
    return _comparable(r), _facts(r)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(MODULE_CASES))
def test_functional_call(name, dtype):
    x = parity.make_tensor((4, 3), dtype, low=-2, high=2)
    w2 = parity.make_tensor((2, 3), dtype, seed=1, low=-2, high=2)
    b2 = parity.make_tensor((2,), dtype, seed=2, low=-2, high=2)
    parity.run_both(lambda m, x, w2, b2: _module_run(m, MODULE_CASES[name], x, w2, b2),
                    x, w2, b2, exact=False)


def test_torch_func_is_engine_func():
    import engine
    import engine.func

    assert engine.func is engine.func  # `import engine as torch; torch.func.grad` works
    assert sorted(n for n in engine.func.__all__) == sorted(
        n for n in engine.func.__all__ if hasattr(torch.func, n))


# ====================================================================== forward mode
FORWARD_CASES = {
    "jvp": "r = F.jvp(lambda a: a.sin() * a, (x,), (w,))",
    "jvp of two inputs": "r = F.jvp(lambda a, b: (a * b).exp(), (x, w), (w, x))",
    "jvp of a tree": "r = F.jvp(lambda d: {'p': d['a'] @ d['b'], 'q': d['a'].tanh()}, ({'a': x, 'b': w},), ({'a': w, 'b': x},))",
    "jvp 0-d": "r = F.jvp(lambda a: a ** 3, (s,), (s,))",
    "jvp has_aux": "r = F.jvp(lambda a: (a.cos(), a * 2), (x,), (w,), has_aux=True)",
    "jvp of an independent output": "r = F.jvp(lambda a: w * 2, (x,), (w,))",
    "jvp strict": "r = error(lambda: F.jvp(lambda a: w * 2, (x,), (w,), strict=True))",
    "jvp primals not a tuple": "r = error(lambda: F.jvp(lambda a: a, x, (w,)))",
    "jvp empty primals": "r = error(lambda: F.jvp(lambda: x, (), ()))",
    "jvp non-tensor primal": "r = error(lambda: F.jvp(lambda a: a, (3.0,), (w,)))",
    "jvp non-tensor output": "r = error(lambda: F.jvp(lambda a: 3.0, (x,), (w,)))",
    "jvp has_aux without a pair": "r = error(lambda: F.jvp(lambda a: a, (x,), (w,), has_aux=True))",
    "jvp tangent of another size": "r = error(lambda: F.jvp(lambda a: a, (x,), (w[:2],)))",
    "jvp under no_grad": "with m.no_grad():\n    r = F.jvp(lambda a: a.sin(), (x,), (w,))",
    "jvp of softmax and cross_entropy":
        "r = F.jvp(lambda a: m.nn.functional.cross_entropy(a.view(1, 3), m.tensor([1])), (x,), (w,))",
    "jacfwd": "r = F.jacfwd(lambda a: a.sin() * a)(x)",
    "jacfwd matches jacrev": "r = [F.jacfwd(lambda a: (a @ a) * a)(x), F.jacrev(lambda a: (a @ a) * a)(x)]",
    "jacfwd 0-d": "r = F.jacfwd(lambda a: a.exp() * a)(s)",
    "jacfwd 0-d output": "r = F.jacfwd(lambda a: (a ** 2).sum())(x)",
    "jacfwd argnums": "r = F.jacfwd(lambda a, b: a * b.sum(), argnums=1)(x, w)",
    "jacfwd argnums tuple": "r = F.jacfwd(lambda a, b: a.outer(b), argnums=(0, 1))(x, w)",
    "jacfwd of a tuple output": "r = F.jacfwd(lambda a: (a.tanh(), a.sum()))(x)",
    "jacfwd 2-d": "r = F.jacfwd(lambda a: a.t() @ a)(x.view(3, 1))",
    "jacfwd has_aux": "r = F.jacfwd(lambda a: (a.sin(), a.cos()), has_aux=True)(x)",
    "jacfwd of a linear layer":
        "r = F.jacfwd(lambda a: m.nn.functional.linear(a, w.view(1, 3).expand(2, 3), w[:2]))(x)",
    "jacfwd randomness": "r = error(lambda: F.jacfwd(lambda a: a, randomness='x')(x))",
    "jacfwd argnums out of range": "r = error(lambda: F.jacfwd(lambda a: a, argnums=1)(x))",
    "hessian": "r = F.hessian(lambda a: (a.sin() * a).sum())(x)",
    "hessian of a coupled function": "r = F.hessian(lambda a: (a.tanh() @ m.ones(3, 3) * a).sum())(x)",
    "hessian 0-d": "r = F.hessian(lambda a: a.exp() * a ** 3)(s)",
    "hessian argnums": "r = F.hessian(lambda a, b: (a * b * b).sum(), argnums=1)(x, w)",
    "hessian of softmax": "r = F.hessian(lambda a: m.nn.functional.log_softmax(a, 0)[0])(x)",
    "hessian of mse_loss": "r = F.hessian(lambda a: m.nn.functional.mse_loss(a.sigmoid(), w))(x)",
}

FORWARD_PRELUDE = """
def error(fn):
    try:
        fn()
    except Exception as caught:  # noqa: BLE001
        return (type(caught).__name__, str(caught).split(chr(10))[0])
"""


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(FORWARD_CASES))
def test_forward_transforms(name, dtype):
    x, w, s = _inputs(dtype, False)
    parity.run_both(lambda m, x, w, s: _run(m, FORWARD_PRELUDE + FORWARD_CASES[name], x, w, s),
                    x, w, s, exact=False)


# Forward mode's zero signs and jvp under vmap (issue 26): tolerance comparisons do not see a
# zero's sign, so these compare it on its own. The engine's rule for cat and stack joins the
# tangents (the generic rule summed them: -0.0 + 0.0 is +0.0); a jvp whose primals or
# tangents are batched runs once per sample (vmap's loop), as torch's jacfwd = vmap(jvp).
SIGN_CASES = {
    "jacfwd of stack": "r = F.jacfwd(lambda a: m.stack([a[1], a[0].sin()]))(x)",
    "jacfwd of stack dim 1": "r = F.jacfwd(lambda a: m.stack([a[1:], a[:1].sin() * 0], 1))(x)",
    "jacfwd of cat": "r = F.jacfwd(lambda a: m.cat([a[1:], a[:1].sin()]))(x)",
    "jacfwd of stack with a constant": "r = F.jacfwd(lambda a: m.stack([a[1], w[0], -a[0].sin()]))(x)",
    "jvp of cat with an input without tangent":
        "r = F.jvp(lambda a: m.cat([a, w, a.sin()]), (x,), (-m.zeros(2),))",
    "vmap of jvp": "r = F.vmap(lambda t: F.jvp(lambda a: a[0].sin(), (x,), (t,))[1])(m.eye(2))",
    "vmap of jvp, batched primals":
        "r = F.vmap(lambda p: F.jvp(lambda a: (a * a).sum(), (p,), (m.ones(2),)))(m.eye(2) * 3)",
    "vmap of vmap of jvp": "r = F.vmap(F.vmap(lambda t: F.jvp(lambda a: a.sin(), (x,), (t,))[1]))"
                           "(m.eye(2).expand(3, 2, 2))",
    "vmap of jvp, out_dims 1": "r = F.vmap(lambda t: F.jvp(lambda a: a.cos() * a, (x,), (t,))[1], "
                               "out_dims=1)(m.eye(2))",
}

# jvp detached its results unless a primal or tangent required grad: a grad through jvp of
# a captured tensor was silently zero (torch: the gradient)
SIGN_CASES.update({
    "grad of vmap of jvp": "r = F.grad(lambda b: F.vmap(lambda t: F.jvp(lambda a: (a * b).sin(), (x,), (t,))[1])"
                           "(m.eye(2)).sum())(x)",
    "grad of jvp of a captured tensor":
        "r = F.grad(lambda b: F.jvp(lambda a: (a * b).sin(), (x,), (m.ones(2),))[1].sum())(x)",
    "hessian still detached": "r = F.hessian(lambda a: (a.sin() * w).sum())(x)",
    "grad of hessian of a captured tensor": "r = F.grad(lambda b: F.hessian(lambda a: (a.sin() * b).sum())(x).sum())(w)",
})


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(SIGN_CASES))
def test_forward_zero_signs_and_jvp_under_vmap(name, dtype):
    x = parity.make_tensor((2,), dtype, low=1.5, high=3)
    w = parity.make_tensor((2,), dtype, seed=1, low=-2, high=2)
    results = []
    for m, x_, w_ in ((engine, parity.to_engine(x), parity.to_engine(w)),
                      (torch, parity.to_torch(x), parity.to_torch(w))):
        scope = {"m": m, "F": m.func, "x": x_, "w": w_}
        exec(SIGN_CASES[name], scope)  # noqa: S102 - the same snippet for both libraries
        results.append(scope["r"])
    # (a result the loop stacks along out_dims=1 is row-major: DIFFERENCES.md "vmap's
    # per-sample loop")
    parity.assert_same(*results, exact=False, check_layout="out_dims" not in name)
    flat = [[t.detach().numpy() for t in (r if isinstance(r, tuple) else (r,))] for r in results]
    for e, t in zip(*flat):
        assert np.array_equal(np.signbit(e), np.signbit(t)), (e, t)
