"""torch.autograd.functional against torch 2.15: vjp, jvp, jacobian, hessian, vhp, hvp.

Each case is a snippet run once with ``m = torch`` and once with ``m = engine``; its
result ``r`` (tensors with their dtype, shape, layout, requires_grad and grad_fn name,
or the error's type and message) must be the same. Afterwards the inputs must be
untouched (no ``.grad`` filled, same ``requires_grad``).
"""
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _grad_fns(value):
    """The grad_fn names inside a result (tensors' reprs show them only when printed)."""
    if isinstance(value, (tuple, list)):
        return [_grad_fns(v) for v in value]
    if hasattr(value, "grad_fn"):
        return None if value.grad_fn is None else value.grad_fn.name()
    return value


def _run(m, code, x, y, s):
    F = m.autograd.functional
    scope = {"m": m, "F": F, "x": x, "y": y, "s": s,
             "cube": lambda a: (a ** 3).sum(),
             "pair": lambda a, b: (a ** 2 * b.sum()).sum(),
             "two": lambda a: (a.exp(), (a * 2).sum())}
    exec(code, scope)  # noqa: S102 - the same snippet for both libraries
    r = scope["r"]
    return r, _grad_fns(r), [t.grad for t in (x, y, s)], [t.requires_grad for t in (x, y, s)]


def _inputs(dtype, requires_grad):
    x = parity.make_tensor((3,), dtype, low=-2, high=2)
    y = parity.make_tensor((2, 2), dtype, seed=1, low=-2, high=2)
    s = parity.make_tensor((), dtype, seed=2, low=0.5, high=2)
    if requires_grad:
        for t in (x, y, s):
            t.requires_grad_()
    return x, y, s


CASES = {
    # ---- vjp
    "vjp": "r = F.vjp(lambda a: a ** 2, x, m.ones_like(x))",
    "vjp of a scalar, no v": "r = F.vjp(cube, x)",
    "vjp of a 0-d input": "r = F.vjp(lambda a: a.sin(), s)",
    "vjp tuples": "r = F.vjp(lambda a, b: (a * b.sum(), b * 2), (x, y), (x * 0 + 1, y * 0 + 2))",
    "vjp create_graph": "r = F.vjp(lambda a: a ** 3, x, m.ones_like(x), create_graph=True)",
    "vjp unused input": "r = F.vjp(lambda a, b: a * 2, (x, s), m.ones_like(x))",
    "vjp strict unused": "r = F.vjp(lambda a, b: a * 2, (x, s), m.ones_like(x), strict=True)",
    "vjp strict constant output": "r = F.vjp(lambda a: m.ones(3, dtype=a.dtype), x, "
                                  "m.ones_like(x), strict=True)",
    "vjp needs v": "r = F.vjp(lambda a: a ** 2, x)",
    "vjp v of a wrong size": "r = F.vjp(lambda a: a ** 2, x, m.ones(2, dtype=x.dtype))",
    "vjp v tuple too short": "r = F.vjp(lambda a: (a, a * 2), x, (m.ones_like(x),))",
    "vjp v entry wrong size": "r = F.vjp(lambda a: (a, a * 2), x, (m.ones_like(x), m.ones(1)))",
    "vjp v tuple for one output": "r = F.vjp(lambda a: a * 2, x, (m.ones_like(x), m.ones_like(x)))",
    "vjp number output": "r = F.vjp(lambda a: 3, x)",
    "vjp list inputs": "r = F.vjp(lambda a: a.sum(), [x])",
    "vjp tuple with a number": "r = F.vjp(lambda a, b: a.sum(), (x, 2))",
    "vjp v not a tensor": "r = F.vjp(lambda a: a * 2, x, 1.0)",
    "vjp under no_grad": "with m.no_grad():\n    r = F.vjp(cube, x)",
    "vjp empty input": "r = F.vjp(lambda a: a.sum(), x[:0])",
    # ---- jvp
    "jvp": "r = F.jvp(lambda a: a ** 2, x, m.ones_like(x))",
    "jvp 0-d no v": "r = F.jvp(lambda a: a.exp() * 3, s)",
    "jvp needs v": "r = F.jvp(lambda a: a ** 2, x)",
    "jvp reduction": "r = F.jvp(lambda a: a.exp().sum(dim=1), y, m.ones_like(y))",
    "jvp tuples": "r = F.jvp(lambda a, b: (a * b.sum(), b @ b), (x, y), (x * 0 + 1, y))",
    "jvp create_graph": "r = F.jvp(lambda a: (a ** 3).sum(dim=1), y, m.ones_like(y), "
                        "create_graph=True)",
    "jvp unused input": "r = F.jvp(lambda a, b: a * 2, (x, s), (x, s))",
    "jvp strict unused": "r = F.jvp(lambda a, b: a * 2, (x, s), (x, s), strict=True)",
    "jvp strict constant output": "r = F.jvp(lambda a: a.detach() * 2, x, x, strict=True)",
    "jvp strict output independent of one input": "r = F.jvp(lambda a, b: (a * 2, b.detach()), "
                                                  "(x, s), (x, s), strict=True)",
    "jvp constant output": "r = F.jvp(lambda a: m.ones(2, dtype=a.dtype), x, x)",
    "jvp v wrong size": "r = F.jvp(lambda a: a, x, m.ones(4, dtype=x.dtype))",
    "jvp v tuple of wrong length": "r = F.jvp(lambda a, b: a, (x, s), (x,))",
    "jvp v tuple entry wrong size": "r = F.jvp(lambda a, b: a, (x, s), (x, x))",
    "jvp number output": "r = F.jvp(lambda a: 3, s)",
    "jvp linear (strict: gradient independent of the input is fine)":
        "r = F.jvp(lambda a: a * 3, x, x, strict=True)",
    # ---- vhp / hvp
    "vhp": "r = F.vhp(cube, x, m.ones_like(x))",
    "hvp": "r = F.hvp(cube, x, m.ones_like(x))",
    "vhp 0-d no v": "r = F.vhp(lambda a: a.sin(), s)",
    "hvp 0-d no v": "r = F.hvp(lambda a: a.sin(), s)",
    "vhp needs v": "r = F.vhp(cube, x)",
    "hvp needs v": "r = F.hvp(cube, x)",
    "vhp tuples": "r = F.vhp(pair, (x, y), (x, y))",
    "hvp tuples": "r = F.hvp(pair, (x, y), (x, y))",
    "vhp create_graph": "r = F.vhp(cube, x, x, create_graph=True)",
    "hvp create_graph": "r = F.hvp(cube, x, x, create_graph=True)",
    "vhp tuple output": "r = F.vhp(lambda a: (a.sum(),), x, x)",
    "hvp tuple output": "r = F.hvp(lambda a: (a.sum(),), x, x)",
    "vhp non-scalar output": "r = F.vhp(lambda a: a ** 2, x, x)",
    "hvp non-scalar output": "r = F.hvp(lambda a: a ** 2, x, x)",
    "vhp linear function": "r = F.vhp(lambda a: a.sum() * 2, x, x)",
    "hvp linear function": "r = F.hvp(lambda a: a.sum() * 2, x, x)",
    "vhp strict linear": "r = F.vhp(lambda a: a.sum() * 2, x, x, strict=True)",
    "hvp strict linear": "r = F.hvp(lambda a: a.sum() * 2, x, x, strict=True)",
    "vhp strict unused input": "r = F.vhp(lambda a, b: (a ** 3).sum(), (x, s), (x, s), "
                               "strict=True)",
    "hvp strict unused input": "r = F.hvp(lambda a, b: (a ** 3).sum(), (x, s), (x, s), "
                               "strict=True)",
    "vhp strict quadratic create_graph": "r = F.vhp(lambda a: (a ** 2).sum(), x, x, "
                                         "strict=True, create_graph=True)",
    "hvp strict quadratic create_graph": "r = F.hvp(lambda a: (a ** 2).sum(), x, x, "
                                         "strict=True, create_graph=True)",
    "vhp strict cubic": "r = F.vhp(cube, x, x, strict=True)",
    "hvp strict cubic": "r = F.hvp(cube, x, x, strict=True)",
    "vhp v wrong size": "r = F.vhp(cube, x, s)",
    "hvp v tuple wrong length": "r = F.hvp(pair, (x, y), (x,))",
    "vhp unused input": "r = F.vhp(lambda a, b: (a ** 3).sum(), (x, s), (x, s))",
    "hvp number output": "r = F.hvp(lambda a: 3, s)",
    # ---- jacobian
    "jacobian": "r = F.jacobian(lambda a: a ** 2, x)",
    "jacobian of two outputs and inputs": "r = F.jacobian(lambda a, b: (a * b.sum(), b @ b), "
                                          "(x, y))",
    "jacobian vectorize": "r = F.jacobian(lambda a: a.exp(), x, vectorize=True)",
    "jacobian vectorize strict": "r = F.jacobian(lambda a: a.exp(), x, vectorize=True, "
                                 "strict=True)",
    "jacobian forward-mode": "r = F.jacobian(lambda a, b: (a * b.sum(), b.exp()), (x, y), "
                             "vectorize=True, strategy='forward-mode')",
    "jacobian forward-mode not vectorized": "r = F.jacobian(lambda a: a.exp(), x, "
                                            "strategy='forward-mode')",
    "jacobian forward-mode strict": "r = F.jacobian(lambda a: a.exp(), x, strict=True, "
                                    "strategy='forward-mode')",
    "jacobian forward-mode create_graph": "r = F.jacobian(lambda a: a.exp(), x, "
                                          "create_graph=True, strategy='forward-mode')",
    "jacobian forward-mode of one input": "r = F.jacobian(lambda a: a.tanh() * a.sum(), x, "
                                          "vectorize=True, strategy='forward-mode')",
    "jacobian forward-mode of a matrix input": "r = F.jacobian(lambda a: (a @ a).sin(), y, "
                                               "vectorize=True, strategy='forward-mode')",
    "jacobian forward-mode constant output": "r = F.jacobian(lambda a: (a * 0 + 1, x.detach()), "
                                             "x, vectorize=True, strategy='forward-mode')",
    "jacobian forward-mode of softmax": "r = F.jacobian(lambda a: m.softmax(a, 0), x, "
                                        "vectorize=True, strategy='forward-mode')",
    "jacobian unknown strategy": "r = F.jacobian(lambda a: a.exp(), x, strategy='sideways')",
    "jacobian strict constant output": "r = F.jacobian(lambda a: a.detach(), x, strict=True)",
    "jacobian strict create_graph linear": "r = F.jacobian(lambda a: a * 2, x, strict=True, "
                                           "create_graph=True)",
    "jacobian of an empty output": "r = F.jacobian(lambda a: a[:0] * 2, x)",
    # ---- hessian
    "hessian": "r = F.hessian(cube, x)",
    "hessian 0-d": "r = F.hessian(lambda a: a.sin() * a, s)",
    "hessian of a matrix input": "r = F.hessian(lambda a: (a @ a).pow(2).sum(), y)",
    "hessian tuples": "r = F.hessian(pair, (x, y))",
    "hessian one-element tuple": "r = F.hessian(cube, (x,))",
    "hessian create_graph": "r = F.hessian(cube, x, create_graph=True)",
    "hessian vectorize": "r = F.hessian(cube, x, vectorize=True)",
    "hessian forward-over-reverse": "r = F.hessian(pair, (x, y), vectorize=True, "
                                    "outer_jacobian_strategy='forward-mode')",
    "hessian forward-over-reverse of one input": "r = F.hessian(lambda a: (a.tanh() * "
                                                 "a.sum()).sum(), x, vectorize=True, "
                                                 "outer_jacobian_strategy='forward-mode')",
    "hessian forward-over-reverse of a matrix": "r = F.hessian(lambda a: (a @ a).pow(2).sum(), "
                                                "y, vectorize=True, "
                                                "outer_jacobian_strategy='forward-mode')",
    "hessian forward-mode not vectorized": "r = F.hessian(cube, x, "
                                           "outer_jacobian_strategy='forward-mode')",
    "hessian unknown strategy": "r = F.hessian(cube, x, outer_jacobian_strategy='other')",
    "hessian non-scalar output": "r = F.hessian(lambda a: a ** 2, x)",
    "hessian one-element output": "r = F.hessian(lambda a: (a ** 3).sum().view(1, 1), x)",
    "hessian tuple output": "r = F.hessian(lambda a: (a.sum(),), x)",
    "hessian number output": "r = F.hessian(lambda a: 3, x)",
    "hessian linear": "r = F.hessian(lambda a: a.sum() * 2, x)",
    "hessian strict linear": "r = F.hessian(lambda a: a.sum() * 2, x, strict=True)",
    "hessian strict unused input": "r = F.hessian(lambda a, b: (a ** 3).sum(), (x, s), "
                                   "strict=True)",
    "hessian strict vectorize": "r = F.hessian(cube, x, strict=True, vectorize=True)",
    "hessian strict constant output": "r = F.hessian(lambda a: a.detach().sum(), x, strict=True)",
    "hessian of a non-tensor input": "r = F.hessian(cube, 3.0)",
    "hessian under no_grad": "with m.no_grad():\n    r = F.hessian(cube, x)",
    "hessian of an empty input": "r = F.hessian(lambda a: a.sum(), x[:0])",
}


@pytest.mark.parametrize("requires_grad", [False, True], ids=["plain", "requires_grad"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(CASES))
def test_functional(name, dtype, requires_grad):
    x, y, s = _inputs(dtype, requires_grad)
    parity.run_both(lambda m, x, y, s: _run(m, CASES[name], x, y, s), x, y, s, exact=False)


def test_results_of_create_graph_differentiate_again():
    def run(m, x):
        F = m.autograd.functional
        _, product = F.hvp(lambda a: (a ** 3).sum(), x, x * 0 + 1, create_graph=True)
        hess = F.hessian(lambda a: (a ** 3).sum(), x, create_graph=True)
        (product.sum() + hess.sum()).backward()
        return product, hess, x.grad

    x = parity.make_tensor((3,), "float64", low=-2, high=2).requires_grad_()
    parity.run_both(run, x, exact=False)
