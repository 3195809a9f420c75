# ruff: noqa: E501 (tables of cases, one per line)
"""A custom autograd.Function under vmap, against torch 2.15: its own ``vmap`` staticmethod is
called as torch calls it (engine/func/function_vmap.py): when, how often, with which ``info``
and ``in_dims`` and on which tensors (nested vmaps, chunks, randomness), what comes back of
what it returns (out_dims, identity) and torch's errors for each mistake a rule can make;
``generate_vmap_rule = True`` runs forward once on the batch; keyword arguments as torch's
``apply`` takes them; gradients through a rule (vmap of grad, grad of vmap, jacrev,
``.backward()`` through vmap's result), with the tutorial "Extending torch.func with
autograd.Function"'s NumpySort and NumpyTake.

Each case leaves what the Functions logged (``log``: the rule's calls, forward's, backward's)
and a result ``r``; both must be torch's."""
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

FUNCTIONS = """
import numpy as np
def shape(t):
    return tuple(t.shape) if hasattr(t, "shape") else t
class Scale(m.autograd.Function):
    @staticmethod
    def forward(x, k):
        log.append(f"forward {shape(x)} {k}")
        return x * k
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]
    @staticmethod
    def backward(ctx, g):
        log.append(f"backward {shape(g)}")
        return g * ctx.k, None
class Logged(Scale):
    @staticmethod
    def vmap(info, in_dims, x, k):
        log.append(f"rule {info} {in_dims} {shape(x)} {k}")
        return Logged.apply(x, k), in_dims[0]
def ruled(rule, forward=None):
    names = {"vmap": staticmethod(rule)}
    if forward is not None:
        names["forward"] = staticmethod(forward)
    return type("Ruled", (Scale,), names)
class Gen(Scale):
    generate_vmap_rule = True
class Plain(Scale):
    pass
x = m.tensor([[3., 1., 2.], [0., 5., 4.]])
w = m.tensor([1., 2., 3.])
"""

TUTORIAL = """
class NumpySort(m.autograd.Function):
    @staticmethod
    def forward(x, dim):
        log.append(f"Sort.forward {shape(x)} {dim}")
        ind = np.argsort(x.numpy(), axis=dim)
        ind_inv = np.argsort(ind, axis=dim)
        result = np.take_along_axis(x.numpy(), ind, axis=dim)
        return m.tensor(result), m.tensor(ind), m.tensor(ind_inv)
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim = inputs
        _, ind, ind_inv = output
        log.append(f"Sort.setup_context {shape(x)} {dim}")
        ctx.mark_non_differentiable(ind, ind_inv)
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim
    @staticmethod
    def backward(ctx, grad_output, _0, _1):
        ind, ind_inv = ctx.saved_tensors
        log.append(f"Sort.backward {shape(grad_output)} {ctx.dim}")
        return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None
    @staticmethod
    def vmap(info, in_dims, x, dim):
        log.append(f"Sort.vmap {info} {in_dims} {shape(x)} {dim}")
        x_bdim, _ = in_dims
        x = x.movedim(x_bdim, 0)
        dim = dim if dim >= 0 else dim + x.dim() - 1
        result = NumpySort.apply(x, dim + 1)
        return NumpySort.apply(x, dim + 1), (0, 0, 0)
class NumpyTake(m.autograd.Function):
    @staticmethod
    def forward(x, ind, ind_inv, dim):
        log.append(f"Take.forward {shape(x)} {dim}")
        return m.tensor(np.take_along_axis(x.numpy(), ind.numpy(), dim))
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, ind, ind_inv, dim = inputs
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim
    @staticmethod
    def backward(ctx, grad_output):
        ind, ind_inv = ctx.saved_tensors
        return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None, None, None
    @staticmethod
    def vmap(info, in_dims, x, ind, ind_inv, dim):
        log.append(f"Take.vmap {info} {in_dims} {shape(x)} {shape(ind)} {dim}")
        x_bdim, ind_bdim, ind_inv_bdim, _ = in_dims
        logical_dim = x.dim() if x_bdim is None else x_bdim - 1
        dim = dim if dim >= 0 else dim + logical_dim
        def maybe_expand_bdim_at_front(x, x_bdim):
            if x_bdim is None:
                return x.expand(info.batch_size, *x.shape)
            return x.movedim(x_bdim, 0)
        x = maybe_expand_bdim_at_front(x, x_bdim)
        ind = maybe_expand_bdim_at_front(ind, ind_bdim)
        ind_inv = maybe_expand_bdim_at_front(ind_inv, ind_inv_bdim)
        return NumpyTake.apply(x, ind, ind_inv, dim + 1), 0
def numpy_sort(x, dim=-1):
    result, _, _ = NumpySort.apply(x, dim)
    return result
weights = m.tensor([0., 1., 2.])
"""


def outcome(m, code):
    """What ``code`` logs and leaves in ``r`` with the library ``m``."""
    scope = {"m": m, "log": [], "error": parity.raised}
    exec(FUNCTIONS + TUTORIAL + code, scope)  # noqa: S102 - the same code for both libraries
    return scope["log"], parity.snippet_facts(scope["r"])


def assert_same(code):
    assert outcome(engine, code) == outcome(torch, code)


CALLS = {
    "the rule, once": "r = m.vmap(Logged.apply, in_dims=(0, None))(x, 2)",
    "info's class, fields and repr": "info = []\nR = ruled(lambda i, d, x, k: (info.append(i), (x * k, d[0]))[1])\nm.vmap(R.apply, in_dims=(0, None), randomness='same')(x, 2)\ni = info[0]\nr = [repr(i), type(i).__name__, i.batch_size, i.randomness, i._fields, isinstance(i, tuple), list(i)]",
    "in_dims 1": "r = m.vmap(Logged.apply, in_dims=(1, None))(x, 2)",
    "in_dims -1": "r = m.vmap(Logged.apply, in_dims=(-1, None))(x, 2)",
    "in_dims -2, vmap's out_dims 1": "r = m.vmap(Logged.apply, in_dims=(-2, None), out_dims=1)(x, 2)",
    "an unbatched tensor argument": "R = ruled(lambda i, d, x, k: (log.append(f'{d} {shape(x)} {shape(k)}'), (x.movedim(d[0], 0) * k, 0))[1])\nr = m.vmap(R.apply, in_dims=(0, None))(x, w)",
    "the second argument batched": "R = ruled(lambda i, d, x, k: (log.append(f'{d} {shape(x)} {shape(k)}'), (x * k.movedim(d[1], 0), 0))[1])\nr = m.vmap(R.apply, in_dims=(None, 0))(w, x)",
    "after an operation": "r = m.vmap(lambda v: Logged.apply(v * 2, 3) + 1)(x)",
    "after a unary operation the batch stays": "r = m.vmap(lambda v: Logged.apply(v.exp(), 1), in_dims=1)(x)",
    "a different rule": "R = ruled(lambda i, d, x, k: (x * k + 100, d[0]))\nr = [m.vmap(R.apply, in_dims=(0, None))(x, 2), R.apply(x, 2)]",
    "nothing batched here: no rule": "r = m.vmap(lambda v: Logged.apply(w, 2) + Logged.apply(v, 3))(x)",
    "chunk_size": "r = m.vmap(Logged.apply, in_dims=(0, None), chunk_size=1)(x, 2)",
    "chunk_size of a longer batch": "r = m.vmap(Logged.apply, in_dims=(1, None), chunk_size=2)(x, 2)",
    "randomness values": "r = [m.vmap(Logged.apply, in_dims=(0, None), randomness=v)(x, 2) for v in ('error', 'same', 'different')]",
    "a random draw in the rule": "R = ruled(lambda i, d, x, k: (log.append(str(m.rand(3).shape)), (x * k, d[0]))[1])\nr = [m.vmap(R.apply, in_dims=(0, None))(x, 2), error(lambda: m.vmap(lambda v: R.apply(v, 2) + m.rand(3))(x))]",
    "nested: the inner rule, then the outer": "r = m.vmap(m.vmap(Logged.apply, in_dims=(0, None)), in_dims=(1, None))(x, 2)",
    "nested: batched at the outer level only": "r = m.vmap(lambda a: m.vmap(lambda b: Logged.apply(a, 2) + b)(w))(x)",
    "nested: the tutorial's sort": "r = m.vmap(m.vmap(lambda v: numpy_sort(v, 0)))(x.reshape(2, 3, 1))",
}


@pytest.mark.parametrize("name", CALLS)
def test_when_and_how_the_rule_is_called(name):
    assert_same(CALLS[name])


RETURNS = {
    "out_dim 1": "R = ruled(lambda i, d, x, k: ((x * k).movedim(0, 1), 1))\nr = m.vmap(R.apply, in_dims=(0, None))(x, 2)",
    "out_dim -1": "R = ruled(lambda i, d, x, k: ((x * k).movedim(0, 1), -1))\nr = m.vmap(R.apply, in_dims=(0, None))(x, 2)",
    "out_dim -3 of a matrix": "R = ruled(lambda i, d, x, k: ((x * k).movedim(0, 1), -3))\nr = m.vmap(R.apply, in_dims=(0, None))(x, 2)",
    "out_dim True": "R = ruled(lambda i, d, x, k: ((x * k).movedim(0, 1), True))\nr = m.vmap(R.apply, in_dims=(0, None))(x, 2)",
    "out_dim None: the same for every sample": "R = ruled(lambda i, d, x, k: (w * k, None))\nr = m.vmap(lambda v: R.apply(v, 2) + v)(x)",
    "out_dim None of a batched result": "R = ruled(lambda i, d, x, k: (x * k, None))\nr = m.vmap(R.apply, in_dims=(0, None))(x, 2)",
    "a wrong out_dim": "R = ruled(lambda i, d, x, k: (x * k, 1))\nr = m.vmap(R.apply, in_dims=(0, None))(x, 2)",
    "another batch size": "R = ruled(lambda i, d, x, k: (m.ones(5, 3), 0))\nr = [m.vmap(R.apply, in_dims=(0, None))(x, 2), m.vmap(lambda v: R.apply(v, 2) + 1)(x)]",
    "an input as it is: the very tensor": "R = ruled(lambda i, d, x, k: (x, 0))\ny = m.vmap(R.apply, in_dims=(0, None))(x, 2)\nr = [y is x, y]",
    "an input as it is with out_dim None": "R = ruled(lambda i, d, x, k: (x, None))\nr = m.vmap(R.apply, in_dims=(0, None))(x, 2)",
    "an input changed in place": "R = ruled(lambda i, d, x, k: (x.mul_(k), d[0]))\nz = x.clone()\ny = m.vmap(R.apply, in_dims=(0, None))(z, 2)\nr = [y is z, z]",
    "two outputs, a tuple of out_dims": "T = ruled(lambda i, d, x, k: ((x * k, x[0] * k), (0, None)), forward=lambda x, k: (x * k, x * k))\nr = m.vmap(T.apply, in_dims=(0, None))(x, 2)",
    "two outputs, one int for both": "T = ruled(lambda i, d, x, k: ((x * k, x - k), 0), forward=lambda x, k: (x * k, x + k))\nr = m.vmap(T.apply, in_dims=(0, None))(x, 2)",
    "a number among the outputs": "T = ruled(lambda i, d, x, k: ((x * k + 1, 7), (0, 0)), forward=lambda x, k: (x * k, 7))\nr = [m.vmap(lambda v: T.apply(v, 2)[0])(x), error(lambda: m.vmap(T.apply, in_dims=(0, None))(x, 2))]",
    "a dict output": "T = ruled(lambda i, d, x, k: ({'a': x * k}, {'a': 0}))\nr = m.vmap(lambda v: T.apply(v, 2)['a'])(x)",
}


@pytest.mark.parametrize("name", RETURNS)
def test_what_the_rule_returns(name):
    assert_same(RETURNS[name])


MISTAKES = {
    "the output alone": "lambda i, d, x, k: x * k",
    "a list": "lambda i, d, x, k: [x * k, 0]",
    "one return": "lambda i, d, x, k: (x * k,)",
    "three returns": "lambda i, d, x, k: (x * k, 0, 0)",
    "in_dims for out_dims": "lambda i, d, x, k: (x * k, d)",
    "a tuple out_dims for one tensor": "lambda i, d, x, k: (x * k, (0,))",
    "a list out_dims": "lambda i, d, x, k: (x * k, [0])",
    "a float out_dim": "lambda i, d, x, k: (x * k, 0.0)",
    "a negative float out_dim": "lambda i, d, x, k: (x * k, -1.0)",
    "a str out_dim": "lambda i, d, x, k: (x * k, '0')",
    "out_dim out of range": "lambda i, d, x, k: (x * k, 2)",
    "negative out_dim out of range": "lambda i, d, x, k: (x * k, -4)",
    "out_dim 1 of a 0-d sample": "lambda i, d, x, k: ((x * k).sum(1), 1)",
    "a number with out_dim 0": "lambda i, d, x, k: (3, 0)",
    "None with out_dim 0": "lambda i, d, x, k: (None, 0)",
    "an error inside": "lambda i, d, x, k: 1 / 0",
    "the rule's own arguments wrong": "lambda i, d, x: (x, 0)",
}


@pytest.mark.parametrize("name", MISTAKES)
def test_a_mistake_in_the_rule(name):
    assert_same(f"R = ruled({MISTAKES[name]})\n"
                "r = [error(lambda: m.vmap(R.apply, in_dims=(0, None))(x, 2)), "
                "error(lambda: m.vmap(lambda v: R.apply(v, 2) + 1)(x))]")


TWO_OUTPUT_MISTAKES = {
    "too few out_dims": "((x * k, x + k), (0,))",
    "a list of out_dims": "((x * k, x + k), [0, 0])",
    "nested out_dims": "((x * k, x + k), ((0,), 0))",
    "a list of outputs": "([x * k, x + k], (0, 0))",
}


@pytest.mark.parametrize("name", TWO_OUTPUT_MISTAKES)
def test_out_dims_that_do_not_fit_two_outputs(name):
    assert_same(f"T = ruled(lambda i, d, x, k: {TWO_OUTPUT_MISTAKES[name]}, forward=lambda x, k: (x * k, x + k))\n"
                "r = [error(lambda: m.vmap(T.apply, in_dims=(0, None))(x, 2)), "
                "error(lambda: m.vmap(lambda v: T.apply(v, 2)[0])(x))]")


REFUSALS = {
    "no rule": "r = [error(lambda: m.vmap(Plain.apply, in_dims=(0, None))(x, 2)), error(lambda: m.vmap(lambda v: Plain.apply(w, 2) + v)(x))]",
    "both rules": "class Both(Logged):\n    generate_vmap_rule = True\nr = [error(lambda: m.vmap(Both.apply, in_dims=(0, None))(x, 2)), error(lambda: m.vmap(lambda v: Both.apply(w, 2) + v)(x))]",
    "a keyword-only tensor": "class K(Scale):\n    @staticmethod\n    def forward(x, *, k, j=5):\n        return x * k\n    @staticmethod\n    def vmap(info, in_dims, x, **kwargs):\n        log.append(f'rule {in_dims} {kwargs}')\n        return x * kwargs['k'], in_dims[0]\nr = [error(lambda: m.vmap(lambda v: K.apply(v, k=w))(x)), error(lambda: m.vmap(lambda v: K.apply(v, k=[w], j=1))(x)), m.vmap(lambda v: K.apply(v, k=2))(x)]",
}


@pytest.mark.parametrize("name", REFUSALS)
def test_torchs_refusals(name):
    assert_same(REFUSALS[name])


ARGUMENTS = {
    "forward's defaults: an in_dim, setup_context's inputs": "class D(Logged):\n    @staticmethod\n    def forward(x, k=2):\n        return x * k\n    @staticmethod\n    def setup_context(ctx, inputs, output):\n        log.append(f'setup {len(inputs)} {inputs[1:]}')\n    @staticmethod\n    def vmap(info, in_dims, *args):\n        log.append(f'rule {in_dims} {len(args)}')\n        return D.apply(*args), in_dims[0]\nr = [m.vmap(D.apply)(x), D.apply(x), D.apply(x, k=3)]",
    "keyword arguments outside transforms": "class K(Scale):\n    @staticmethod\n    def forward(x, *, k=1, j=5):\n        return x * 2\nclass Old(m.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, k=2, m_=3):\n        log.append(f'old {k} {m_}')\n        return x * k\n    @staticmethod\n    def backward(ctx, g):\n        return g, None, None\nr = [error(lambda: K.apply(x, j=3)), error(lambda: K.apply(x, z=3)), error(lambda: K.apply(x, 1)), Old.apply(x, m_=5, k=1), Old.apply(x=x), error(lambda: Old.apply(x, m_=5)), error(lambda: Old.apply(x, 4, k=5)), error(lambda: Old.apply(x, z=1))]",
    "keyword arguments under grad": "class K(Scale):\n    @staticmethod\n    def forward(x, *, k=1):\n        return x * 2\nr = error(lambda: m.func.grad(lambda v: K.apply(v).sum())(w))",
}


@pytest.mark.parametrize("name", ARGUMENTS)
def test_keyword_arguments_as_torchs_apply_takes_them(name):
    assert_same(ARGUMENTS[name])


GENERATED = {
    "forward once on the batch": "r = m.vmap(Gen.apply, in_dims=(1, None))(x, 2)",
    "a chunk at a time": "r = m.vmap(Gen.apply, in_dims=(1, None), chunk_size=2)(x, 2)",
    "backward through vmap's result": "xr = x.clone().requires_grad_()\ny = m.vmap(Gen.apply, in_dims=(0, None))(xr, 3)\ny.sum().backward()\nr = [y, xr.grad]",
    "vmap of grad": "r = m.vmap(m.func.grad(lambda v: Gen.apply(v, 3).sum()))(x)",
    "grad of vmap": "r = m.func.grad(lambda v: m.vmap(Gen.apply, in_dims=(0, None))(v, 3).sum())(x)",
    "a backward with an operation without a batching rule": "class FB(Scale):\n    generate_vmap_rule = True\n    @staticmethod\n    def backward(ctx, g):\n        return (g * ctx.k).flip(0).flip(0), None\nxr = x.clone().requires_grad_()\ny = m.vmap(FB.apply, in_dims=(0, None))(xr, 3)\ny.sum().backward()\nr = [y, xr.grad, m.vmap(m.func.grad(lambda v: FB.apply(v, 2).sum()))(x)]",
    "an operation without a batching rule: the values": "class Flip(Scale):\n    generate_vmap_rule = True\n    @staticmethod\n    def forward(x, k):\n        return x.flip(0) * k\nr = m.vmap(Flip.apply, in_dims=(0, None))(x, 2)",
}


@pytest.mark.parametrize("name", GENERATED)
def test_generate_vmap_rule(name):
    code = GENERATED[name]
    if "without a batching rule" in name:  # (torch has flip's rule: forward once, the engine loops)
        code += "\nlog.clear()"
    assert_same(code)


GRADIENTS = {
    "vmap: the tutorial's sort": "r = m.vmap(numpy_sort)(x)",
    "vmap, dim 0 at in_dims 1": "r = m.vmap(numpy_sort, in_dims=(1, None))(x, 0)",
    "vmap of grad: backward on the batch, Take's rule": "r = m.vmap(m.func.grad(lambda v: (numpy_sort(v) * weights).sum()))(x)",
    "vmap of grad of a different rule: backward, not the rule's": "R = ruled(lambda i, d, x, k: ((x * k).sin(), d[0]))\nr = m.vmap(m.func.grad(lambda v: R.apply(v, 3).sum()))(x)",
    "grad of vmap": "r = m.func.grad(lambda v: (m.vmap(numpy_sort)(v) * weights).sum())(x)\nlog[:] = [e for e in log if 'setup' not in e]",
    "grad of vmap of a different rule: the rule's graph": "R = ruled(lambda i, d, x, k: ((x * k).sin(), d[0]))\nr = m.func.grad(lambda v: m.vmap(R.apply, in_dims=(0, None))(v, 3).sum())(x)",
    "backward through vmap's result": "xr = x.clone().requires_grad_()\ny = m.vmap(numpy_sort)(xr)\n(y * weights).sum().backward()\nr = [y, xr.grad]",
    "a loss of parameters through vmap": "p = m.tensor([0.5, -1., 2.], requires_grad=True)\nloss = m.vmap(lambda row: (Logged.apply(row * p, 2) ** 2).sum())(x).mean()\nloss.backward()\nr = [loss, p.grad]",
    "vmap of jacrev: the rule of Sort": "r = m.vmap(m.func.jacrev(numpy_sort))(x)\nlog[:] = [e for e in log if e.startswith('Sort.vmap')]",
    "vmap of vmap of grad": "r = m.vmap(m.vmap(m.func.grad(lambda v: Logged.apply(v, 3))))(x)",
}


@pytest.mark.parametrize("name", GRADIENTS)
def test_gradients_through_a_rule(name):
    assert_same(GRADIENTS[name])
