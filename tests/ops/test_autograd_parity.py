"""Autograd against torch 2.15: gradients, node names, graph structure, rules and errors.

Every differentiable op listed in OPS runs in both libraries on float64 inputs that
require grad (shapes include 0-d and broadcast pairs); the test compares the result,
the name of its grad_fn and of the nodes it points to, and the gradients a random
upstream gradient produces. The engine's gradients are also checked against finite
differences (gradcheck), and second derivatives too (gradgradcheck).
"""
import gc
import re
import warnings
import weakref

import numpy as np
import pytest

import engine
import parity
from engine.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch


def _positive(shape, seed):
    return np.random.default_rng(seed).uniform(0.5, 2.0, shape)


def _signed(shape, seed):
    values = np.random.default_rng(seed).uniform(-2.0, 2.0, shape)
    return np.where(np.abs(values) < 0.2, 0.7, values)  # keep away from kinks at 0


UNARY = {
    "neg": lambda m, x: -x, "exp": lambda m, x: x.exp(), "log": lambda m, x: x.log(),
    "log2": lambda m, x: x.log2(), "log10": lambda m, x: x.log10(),
    "log1p": lambda m, x: x.log1p(), "exp2": lambda m, x: x.exp2(),
    "expm1": lambda m, x: x.expm1(), "sqrt": lambda m, x: x.sqrt(),
    "rsqrt": lambda m, x: x.rsqrt(), "sin": lambda m, x: x.sin(), "cos": lambda m, x: x.cos(),
    "tan": lambda m, x: (x / 4).tan(), "asin": lambda m, x: (x / 4).asin(),
    "acos": lambda m, x: (x / 4).acos(), "atan": lambda m, x: x.atan(),
    "sinh": lambda m, x: x.sinh(), "cosh": lambda m, x: x.cosh(),
    "tanh": lambda m, x: x.tanh(), "sigmoid": lambda m, x: x.sigmoid(),
    "reciprocal": lambda m, x: x.reciprocal(), "abs": lambda m, x: (x - 1.25).abs(),
    "relu": lambda m, x: (x - 1.25).relu(), "pow 2": lambda m, x: x ** 2,
    "pow 3": lambda m, x: x.pow(3), "pow 0.5": lambda m, x: x ** 0.5,
    "pow -1.5": lambda m, x: x ** -1.5, "2 ** x": lambda m, x: 2 ** x,
    "x * 3": lambda m, x: x * 3, "3 - x": lambda m, x: 3 - x, "x - 3": lambda m, x: x - 3,
    "x / 3": lambda m, x: x / 3, "3 / x": lambda m, x: 3 / x, "x + 3": lambda m, x: x + 3,
    "sum": lambda m, x: x.sum(), "mean": lambda m, x: x.mean(),
    "sum dim": lambda m, x: x.sum(-1), "sum keepdim": lambda m, x: x.sum(0, keepdim=True),
    "mean dim": lambda m, x: x.mean(-1), "mean dims": lambda m, x: x.mean((0, -1)),
    "clone": lambda m, x: x.clone(), "double to float": lambda m, x: x.float(),
    "view -1": lambda m, x: x.view(-1), "reshape": lambda m, x: x.reshape(-1, 1),
    "t": lambda m, x: x.t() if x.dim() <= 2 else x.mT,
    "transpose": lambda m, x: x.transpose(0, -1), "unsqueeze": lambda m, x: x.unsqueeze(0),
    "squeeze": lambda m, x: x.unsqueeze(0).squeeze(), "expand": lambda m, x: x.expand(2, *x.shape),
    "flatten": lambda m, x: x.flatten(), "x[0]": lambda m, x: x[0],
    "x[1:]": lambda m, x: x[1:], "x[None, ..., 0]": lambda m, x: x[None, ..., 0],
    "x[:, ::2]": lambda m, x: x[:, ::2], "permute": lambda m, x: x.permute(*range(x.dim())[::-1]),
    "contiguous": lambda m, x: x.mT.contiguous(), "reshape of t": lambda m, x: x.mT.reshape(-1),
    "narrow": lambda m, x: x.narrow(-1, 1, 2),
}
UNARY_SHAPES = {"scalar": (), "vector": (3,), "matrix": (2, 3), "batch": (2, 3, 4)}
NEEDS_DIMS = {"t": 2, "transpose": 1, "x[0]": 1, "x[1:]": 1, "x[None, ..., 0]": 1,
              "x[:, ::2]": 2, "contiguous": 2, "reshape of t": 2, "narrow": 1, "sum dim": 1,
              "mean dim": 1, "mean dims": 2, "sum keepdim": 1, "permute": 1}
NO_GRADCHECK = {"double to float"}  # float32 is too coarse for finite differences
POSITIVE_ONLY = {"log", "log2", "log10", "log1p", "sqrt", "rsqrt", "pow 0.5", "pow -1.5",
                 "reciprocal", "3 / x", "asin", "acos"}

BINARY = {
    "add": lambda m, a, b: a + b, "sub": lambda m, a, b: a - b, "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b, "pow": lambda m, a, b: a ** b,
    "add alpha": lambda m, a, b: m.add(a, b, alpha=2.5),
    "sub alpha": lambda m, a, b: m.sub(a, b, alpha=0.5),
    "composite": lambda m, a, b: (a * b + a / b).exp().sum(),
}
BROADCAST_PAIRS = [((), ()), ((3,), ()), ((), (3,)), ((2, 3), (3,)), ((3, 1), (1, 4)),
                   ((2, 1, 4), (3, 1)), ((2, 3), (2, 3))]
MATMUL = {
    "mm": ((2, 3), (3, 4), lambda m, a, b: a.mm(b)),
    "matmul 2d": ((2, 3), (3, 4), lambda m, a, b: a @ b),
    "mv": ((2, 3), (3,), lambda m, a, b: a.mv(b)),
    "matmul mv": ((2, 3), (3,), lambda m, a, b: a @ b),
    "dot": ((3,), (3,), lambda m, a, b: a.dot(b)),
    "matmul dot": ((3,), (3,), lambda m, a, b: a @ b),
    "bmm": ((2, 2, 3), (2, 3, 4), lambda m, a, b: a.bmm(b)),
    "cat": ((2, 3), (1, 3), lambda m, a, b: m.cat([a, b])),
    "cat dim 1": ((2, 3), (2, 1), lambda m, a, b: m.cat([a, b], 1)),
    "stack": ((2, 3), (2, 3), lambda m, a, b: m.stack([a, b], 1)),
}


def _names(result):
    """grad_fn's name and the names of the nodes it points to."""
    node = result.grad_fn
    if node is None:
        return None
    return node.name(), [None if n is None else n.name() for n, _ in node.next_functions]


def _graph(result):
    """The names of every node reachable from result.grad_fn, depth first."""
    names, stack = [], [result.grad_fn]
    while stack:
        node = stack.pop()
        if node is None:
            names.append(None)
            continue
        names.append(node.name())
        stack.extend(n for n, _ in reversed(node.next_functions))
    return names


def _pair(values):
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    e = engine.tensor(values, dtype=engine.float64, requires_grad=True)
    return t, e


def _compare(fn, arrays, grads=None):
    """fn(torch, *inputs) and fn(engine, *inputs): values, graph, gradients."""
    grads = grads or [True] * len(arrays)
    pairs = [_pair(a) if g else (torch.tensor(a), engine.tensor(a))
             for a, g in zip(arrays, grads)]
    torch_inputs, engine_inputs = zip(*pairs)
    expected = fn(torch, *torch_inputs)
    got = fn(engine, *engine_inputs)
    assert str(got.dtype) == str(expected.dtype)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12,
                               atol=1e-12)
    assert got.requires_grad == expected.requires_grad
    assert _graph(got) == _graph(expected)
    seed = np.random.default_rng(7).standard_normal(tuple(expected.shape))
    expected.backward(torch.tensor(seed, dtype=expected.dtype))
    got.backward(engine.tensor(seed, dtype=got.dtype))
    for t, e in zip(torch_inputs, engine_inputs):
        assert (t.grad is None) == (e.grad is None)
        if t.grad is not None:
            assert tuple(e.grad.shape) == tuple(t.grad.shape)
            assert str(e.grad.dtype) == str(t.grad.dtype)
            np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
    return [e for e in engine_inputs if e.requires_grad]


def _check_gradients(fn, engine_inputs, second_order=True):
    inputs = tuple(e.detach().requires_grad_() for e in engine_inputs)
    assert gradcheck(lambda *xs: fn(engine, *xs), inputs)
    if second_order:
        assert gradgradcheck(lambda *xs: fn(engine, *xs), inputs)


@pytest.mark.parametrize("shape_name", list(UNARY_SHAPES))
@pytest.mark.parametrize("op", list(UNARY))
def test_unary_ops(op, shape_name):
    shape = UNARY_SHAPES[shape_name]
    if len(shape) < NEEDS_DIMS.get(op, 0):
        pytest.skip("needs more dimensions")
    values = _positive(shape, 1) if op in POSITIVE_ONLY else _signed(shape, 1) + (
        1.5 if op in ("abs", "relu") else 0)
    inputs = _compare(UNARY[op], [values])
    if shape_name != "batch" and op not in NO_GRADCHECK:
        _check_gradients(UNARY[op], inputs)


@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_ops_with_broadcasting(op, shapes):
    a, b = _positive(shapes[0], 2), _positive(shapes[1], 3)
    inputs = _compare(BINARY[op], [a, b])
    _check_gradients(BINARY[op], inputs, second_order=len(shapes[0]) < 3)


@pytest.mark.parametrize("op", list(MATMUL))
def test_matrix_products_and_joining(op):
    shape_a, shape_b, fn = MATMUL[op]
    inputs = _compare(fn, [_signed(shape_a, 4), _signed(shape_b, 5)])
    _check_gradients(fn, inputs)


def test_mixed_dtypes_give_each_input_its_own_dtype():
    for m in (torch, engine):
        a = m.tensor([1., 2.], requires_grad=True)
        b = m.tensor([3., 4.], dtype=m.float64, requires_grad=True)
        (a * b).sum().backward()
        assert str(a.grad.dtype) == "torch.float32" and str(b.grad.dtype) == "torch.float64"


# ====================================================================== graph and leaves
ARTICLE_GRAPH = """
x = m.tensor([1.0], requires_grad=True)
w = m.tensor([2.0], requires_grad=True)
a = x + w
b = w + 1
y = a * b
"""


def _run(code, m):
    scope = {"m": m}
    exec(code, scope)  # noqa: S102 - the same snippet for both libraries
    return scope


def test_the_articles_graph_and_leaf_rules():
    for m in (torch, engine):
        s = _run(ARTICLE_GRAPH, m)
        s["a"].retain_grad()
        s["y"].backward()
        assert [s[n].is_leaf for n in "xwaby"] == [True, True, False, False, False]
        assert [s[n].requires_grad for n in "xwaby"] == [True] * 5
        assert s["w"].grad.tolist() == [6.0] and s["x"].grad.tolist() == [3.0]
        assert s["a"].grad.tolist() == [3.0] and s["a"].retains_grad
        assert repr(s["y"]) == "tensor([9.], grad_fn=<MulBackward0>)"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert s["b"].grad is None
        assert "is not a leaf Tensor is being accessed" in str(caught[0].message)
        leaf_node = s["a"].grad_fn.next_functions[0][0]
        assert type(leaf_node).__name__ == "AccumulateGrad" and leaf_node.variable is s["x"]
        assert leaf_node.name() == "torch::autograd::AccumulateGrad"


def _error(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001 - comparing what each library raises
        return type(error), str(error).splitlines()[0]
    return None


ERRORS = {
    "backward twice": "y = (x * x).sum(); y.backward(); y.backward()",
    "non-scalar backward": "(x * 2).backward()",
    "no grad at all": "m.tensor([1., 2.]).sum().backward()",
    "requires_grad on ints": "m.tensor([1, 2]).requires_grad_()",
    "requires_grad = on ints": "t = m.tensor([1, 2]); t.requires_grad = True",
    "non-leaf requires_grad off": "(x * 2).requires_grad_(False)",
    "in-place on a leaf": "x.add_(1)",
    "in-place on a view of a leaf": "x[:2].mul_(2)",
    "setitem on a leaf": "x[0] = 5.",
    "zero_ on a leaf": "x.zero_()",
    "numpy of requires_grad": "x.numpy()",
    "gradient of wrong shape": "(x * 2).backward(m.ones(2))",
    "grad of unused input": "m.autograd.grad((x * 2).sum(), [m.ones(2, requires_grad=True)])",
    "grad of input without grad": "m.autograd.grad((x * 2).sum(), [m.ones(2)])",
    "modified saved tensor": "s = x.sigmoid(); s.detach().zero_(); s.sum().backward()",
    "modified saved input": "y = x * 1; z = y.log(); y.detach().mul_(2); z.sum().backward()",
    "retain_grad without grad": "m.ones(2).retain_grad()",
    "grad of no graph wrt no grad": "m.autograd.grad(m.ones(2).sum(), m.ones(2))",
    "modified result of min()": "y = x.min(); z = y * y\nwith m.no_grad(): y.add_(1)\n"
                                "z.backward()",
    "modified result of fill_": "y = x * 1; y.fill_(2.); z = y * y\n"
                                "with m.no_grad(): y.add_(1)\nz.sum().backward()",
}


# what each node keeps for backward: an operand changed in place (under no_grad) before
# backward is refused only if a gradient formula reads it, as in torch
KEEPS = {
    "mul": lambda m, a, b: a * b, "div": lambda m, a, b: a / b, "pow": lambda m, a, b: a ** b,
    "remainder": lambda m, a, b: m.remainder(a, b), "fmod": lambda m, a, b: m.fmod(a, b),
    "lerp": lambda m, a, b: m.lerp(a, b, 0.3), "lerp weight": lambda m, a, b: m.lerp(b, b * 2, a),
    "atan2": lambda m, a, b: m.atan2(a, b), "maximum": lambda m, a, b: m.maximum(a, b),
    "addcmul": lambda m, a, b: m.addcmul(b, a, b), "addcdiv": lambda m, a, b: m.addcdiv(b, a, b),
}


@pytest.mark.parametrize("changed", ["a", "b"])
@pytest.mark.parametrize("grad", ["a", "b"])
@pytest.mark.parametrize("op", list(KEEPS))
def test_ops_keep_only_what_backward_reads(op, grad, changed):
    results = []
    for m in (torch, engine):
        a = m.tensor([1.0, 2.0, 3.0], requires_grad=grad == "a")
        b = m.tensor([2.0, 1.0, 1.5], requires_grad=grad == "b")
        y = KEEPS[op](m, a, b)
        with m.no_grad():
            (a if changed == "a" else b).mul_(1.5)
        results.append(_error(lambda y=y: y.sum().backward()))
    assert results[1] == results[0]


# a Python number and a tensor: torch computes add(x, 2) for 2 + x, rsub(x, 2) for 2 - x, and
# records sub(2, x) with an edge for the number; floor_divide's node is called NotImplemented
NUMBER_AND_TENSOR = ["2 + x", "2.5 + x", "True + x", "x + 2", "2 - x", "m.sub(2, x)",
                     "m.rsub(x, 2)", "m.add(2, x)", "2 * x", "2 / x", "2 ** x", "2 // x",
                     "2 % x", "2 + x.sum()"]


@pytest.mark.parametrize("expression", NUMBER_AND_TENSOR)
def test_a_number_and_a_tensor_record_torchs_graph(expression):
    results = []
    for m in (torch, engine):
        y = eval(expression, {"m": m, "x": m.tensor([1.5, 2.0], requires_grad=True)})  # noqa: S307
        results.append((y.tolist(), _graph(y), re.sub(r"0x[0-9a-f]+", "0x", repr(y.grad_fn))))
    assert results[1] == results[0]


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    results = []
    for m in (torch, engine):
        scope = {"m": m, "x": m.tensor([1., 2., 3.], requires_grad=True)}
        results.append(_error(lambda scope=scope: exec(ERRORS[name], scope)))  # noqa: S102
    expected, got = results
    assert expected is not None, "torch raised nothing"
    assert got is not None and got[0] is expected[0], f"engine: {got}, torch: {expected}"
    assert expected[1] in got[1] or got[1] in expected[1], f"{got[1]!r} vs {expected[1]!r}"


BEHAVIOURS = {
    "accumulation": "y = (x * x).sum(); y.backward(retain_graph=True); y.backward(); r = x.grad",
    "graph without saved tensors walks twice": "y = x.sum() + x.mean(); y.backward(); "
                                               "y.backward(); r = x.grad",
    "zeroing in place": "(x * 2).sum().backward(); g = x.grad; x.grad.zero_(); "
                        "(x * 3).sum().backward(); r = (x.grad, g is x.grad)",
    "grad set to None": "(x * 2).sum().backward(); x.grad = None; (x * 3).sum().backward(); "
                        "r = x.grad",
    "vector-Jacobian product": "y = x * x; y.backward(m.tensor([1., 0.1, 0.01])); r = x.grad",
    "cat of two results": "y0 = x[:2] * 2; y1 = x[2:] ** 2; y = m.cat([y0, y1]); "
                          "y.backward(m.ones(3)); r = x.grad",
    "no_grad": "with m.no_grad(): y = x * 2\nr = (y.requires_grad, y.grad_fn, y.is_leaf)",
    "no_grad decorator": "f = m.no_grad()(lambda t: t * 2); y = f(x); r = y.requires_grad",
    "enable_grad inside no_grad": "with m.no_grad():\n    with m.enable_grad():\n"
                                  "        y = x * 2\nr = y.requires_grad",
    "set_grad_enabled": "with m.set_grad_enabled(False): y = x * 2\nr = (y.requires_grad, "
                        "m.is_grad_enabled())",
    "inference_mode": "with m.inference_mode(): y = x * 2\nr = (y.requires_grad, "
                      "m.is_grad_enabled())",
    "detach": "d = x.detach(); r = (d.requires_grad, d.is_leaf, d._version, "
              "d.data_ptr() == x.data_ptr())",
    "in-place under no_grad": "with m.no_grad(): x.add_(1)\nr = (x, x._version, x.is_leaf)",
    ".data hides changes": "s = x.sigmoid(); s.data.zero_(); s.sum().backward(); r = x.grad",
    "autograd.grad": "y = (x ** 3).sum(); (g,) = m.autograd.grad(y, x, create_graph=True); "
                     "(h,) = m.autograd.grad(g.sum(), x); r = (g, h, x.grad)",
    "allow_unused": "w = m.ones(2, requires_grad=True); "
                    "r = m.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)",
    "hooks": "seen = []; y = x * 2; y.register_hook(lambda g: seen.append(g.clone())); "
             "h = x.register_hook(lambda g: g * 10); y.sum().backward(); r = (seen, x.grad)",
    "retain_grad chain": "a = x * 2; b = a + 1; c = b.sum(); a.retain_grad(); b.retain_grad(); "
                         "c.backward(); r = (a.grad, b.grad, x.grad)",
    "backward inputs=": "w = m.ones(3, requires_grad=True); (x * w).sum().backward(inputs=[w]); "
                        "r = (x.grad, w.grad)",
    "mm keeps only what backward reads": "w = m.ones(3, 2); y = x.unsqueeze(0).mm(w)\n"
                                        "with m.no_grad(): x.mul_(2)\n"
                                        "y.sum().backward(); r = x.grad",
    "mv keeps only what backward reads": "a = m.ones(2, 3); y = a.mv(x)\n"
                                        "with m.no_grad(): x.mul_(2)\n"
                                        "y.sum().backward(); r = x.grad",
    "dot keeps only what backward reads": "v = m.ones(3); y = m.dot(v, x)\n"
                                         "with m.no_grad(): x.mul_(2)\ny.backward(); r = x.grad",
    "bmm keeps only what backward reads": "b = x.view(1, 1, 3); y = m.ones(1, 2, 1).bmm(b)\n"
                                         "with m.no_grad(): x.mul_(2)\ny.sum().backward(); "
                                         "r = x.grad",
    "in-place on a non-leaf": "y = x * 2; y.mul_(3); y.sum().backward(); "
                              "r = (x.grad, y.grad_fn.name())",
    "in-place with a tensor": "w = m.ones(3, requires_grad=True); y = x * 1; y.mul_(w); "
                              "y.sum().backward(); r = (x.grad, w.grad)",
    "double backward through pow": "y = x ** 2; (g,) = m.autograd.grad(y.sum(), x, "
                                   "create_graph=True); g.sum().backward(); r = (g, x.grad)",
}


def _plain(value):
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist") and hasattr(value, "dtype"):
        return ("tensor", str(value.dtype), value.tolist(), repr(value))
    if hasattr(value, "name") and callable(value.name):
        return value.name()
    return value


@pytest.mark.parametrize("name", list(BEHAVIOURS))
def test_behaviours_match_torch(name):
    results = []
    for m in (torch, engine):
        scope = {"m": m, "x": m.tensor([1., 2., 3.], requires_grad=True)}
        exec(BEHAVIOURS[name], scope)  # noqa: S102
        results.append(_plain(scope["r"]))
    assert results[1] == results[0]


# x[index] = value: torch fills for a Python number (fill_, index_fill_ for one index tensor,
# masked_fill_ for one mask: no edge for the number), copies a tensor (copy_, index_put_),
# writes into x itself for full slices and ..., and views / expands a value of another shape
INDEX_ASSIGNMENTS = [
    "w[0] = 5.", "w[0] = 5", "w[0] = True", "w[0, 1] = 5.", "w[:1] = 5.", "w[:2] = 5.",
    "w[:] = 5.", "w[:5] = 5.", "w[...] = 5.", "w[:, :2] = 5.", "w[0, :2] = 5.", "w[None] = 5.",
    "w[True] = 5.", "w[False] = 5.", "w[[0, 1]] = 5.", "w[:, [1]] = 5.", "w[[0], [1]] = 5.",
    "w[w > 0] = 5.", "w[m.tensor([True, False])] = 5.", "w[0, [1]] = 5.",
    "w[m.tensor([[0, 1]])] = 5.", "w[0] = m.tensor(5.)", "w[...] = m.tensor(5.)",
    "w[...] = m.tensor(5., requires_grad=True)", "w[0] = y2", "w[0] = y1", "w[...] = y2",
    "w[:2] = y2", "w[...] = y22", "w[:, 0] = y2", "w[0] = m.ones(1, 1, 2, requires_grad=True)",
    "w[[0, 1]] = y2", "w[[0, 1]] = y1", "w[w > 0] = m.tensor(2., requires_grad=True)",
    "v[0] = 5.", "s[...] = 5.", "s[None] = 5.",
]


@pytest.mark.parametrize("statement", INDEX_ASSIGNMENTS)
def test_index_assignment_records_torchs_graph(statement):
    results = []
    for m in (torch, engine):
        m.manual_seed(0)
        leaves = {name: m.randn(shape, dtype=m.float64, requires_grad=True)
                  for name, shape in [("x", (2, 2)), ("y1", (1,)), ("y2", (2,)),
                                      ("y22", (2, 2)), ("xv", (2,)), ("xs", ())]}
        scope = {"m": m, **leaves, "w": leaves["x"].clone(), "v": leaves["xv"].clone(),
                 "s": leaves["xs"].clone()}
        exec(statement, scope)  # noqa: S102
        target = scope[statement[0]]
        target.sum().backward()
        results.append((_graph(target), target._version, target.tolist(),
                        [None if t.grad is None else t.grad.tolist() for t in leaves.values()]))
    assert results[1] == results[0]


# ====================================================================== custom Function
class _Exp:
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


def test_custom_function_matches_torch():
    results = []
    for m in (torch, engine):
        MyExp = type("MyExp", (m.autograd.Function,), dict(vars(_Exp)))
        x = m.tensor([0.5, 1.0], dtype=m.float64, requires_grad=True)
        y = MyExp.apply(x)
        y.sum().backward()
        node = re.sub(r"0x[0-9a-f]+", "0x", repr(y.grad_fn))  # <torch.autograd.function...>
        results.append((_names(y), x.grad.tolist(), repr(y).split("grad_fn")[0], node))
    assert results[1] == results[0]
    MyExp = type("MyExp", (engine.autograd.Function,), dict(vars(_Exp)))
    x = engine.tensor([0.5, 1.0], dtype=engine.float64, requires_grad=True)
    assert gradcheck(MyExp.apply, (x,))


def test_gradcheck_reports_a_wrong_backward():
    class Wrong(engine.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return 3 * x * grad_output

    x = engine.tensor([1., 2.], dtype=engine.float64, requires_grad=True)
    with pytest.raises(engine.autograd.GradcheckError, match="Jacobian mismatch"):
        gradcheck(Wrong.apply, (x,))
    assert gradcheck(Wrong.apply, (x,), raise_exception=False) is False


# ctx.mark_dirty: the input forward changed in place (and returned) gets the function's node
# as its grad_fn, as after any in-place op; an input returned as it is comes back as a view
def _functions(m):
    """Custom Functions for the tests below, made for module ``m``."""
    def function(name, forward, backward):
        return type(name, (m.autograd.Function,), {"forward": staticmethod(forward),
                                                    "backward": staticmethod(backward)})

    def add_one_in_place(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    def times_in_place(ctx, x, w):
        x.mul_(w)
        ctx.mark_dirty(x)
        ctx.save_for_backward(w)
        return x

    def doubled_in_place(ctx, x):  # saves its own result, x
        x.mul_(2)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    def add_one_non_differentiable(ctx, x):
        add_one_in_place(ctx, x)
        ctx.mark_non_differentiable(x)
        return x

    def add_one_and_not_returned(ctx, x):
        add_one_in_place(ctx, x)
        return x * 3

    def marked_only(ctx, x):
        ctx.mark_dirty(x)
        return x

    def row(ctx, x):
        return x[0]

    return {
        "Inc": function("Inc", add_one_in_place, lambda ctx, g: g * 2),
        "Times": function("Times", times_in_place,
                          lambda ctx, g: (g * ctx.saved_tensors[0], None)),
        "Doubled": function("Doubled", doubled_in_place, lambda ctx, g: g * ctx.saved_tensors[0]),
        "NonDiff": function("NonDiff", add_one_non_differentiable, lambda ctx, g: g),
        "NotReturned": function("NotReturned", add_one_and_not_returned, lambda ctx, g: g),
        "Marked": function("Marked", marked_only, lambda ctx, g: g * 2),
        "IncAndTwice": function("IncAndTwice", lambda ctx, x: (add_one_in_place(ctx, x), x * 2),
                                lambda ctx, g, h: g + 2 * h),
        "TwiceAndInc": function("TwiceAndInc",
                                lambda ctx, x: (add_one_in_place(ctx, x) * 2, x),
                                lambda ctx, g, h: 2 * g + h),
        "Id": function("Id", lambda ctx, x: x, lambda ctx, g: g),
        "Row": function("Row", row, lambda ctx, g: m.stack([g, m.zeros_like(g)])),
    }


def _apply(m, name, *args):
    return _functions(m)[name].apply(*args)


def _dirty_non_leaf(m, name="Inc"):
    x = m.ones(3, requires_grad=True)
    y = x * 1
    before = y._version
    z = _apply(m, name, y)
    seen = (z is y, y.grad_fn.name(), y._version - before, y.requires_grad, y.is_leaf,
            [n.name() for n, _ in y.grad_fn.next_functions])
    y.sum().backward()
    return seen, x.grad


def _dirty_view(m):
    x = m.ones(2, 3, requires_grad=True)
    y = x * 1
    row = y[0]
    z = _apply(m, "Inc", row)
    seen = (z is row, row.grad_fn.name(), y.grad_fn.name(), row._version)
    y.sum().backward()
    return seen, x.grad


def _dirty_without_grad_times_leaf(m):
    y = m.ones(3)
    w = m.full((3,), 2., requires_grad=True)
    z = _apply(m, "Times", y, w)
    seen = (z is y, y.grad_fn.name(), y.requires_grad, y.is_leaf)
    y.sum().backward()
    return seen, w.grad


def _two_outputs(m, name):
    x = m.ones(3, requires_grad=True)
    a, b = _apply(m, name, x * 1)
    seen = (a.output_nr, b.output_nr, a.grad_fn.name(), b.grad_fn.name())
    (a.sum() + b.sum()).backward()
    return seen, x.grad


def _under_no_grad(m, name, x):
    with m.no_grad():
        z = _apply(m, name, x)
    return z is x, z._base is x, z.grad_fn, z.requires_grad, x._version, z


def _returned_input(m, name, requires_grad=True, leaf=False, change=False):
    x = m.ones(2, 3, requires_grad=requires_grad)
    y = x if leaf else x * 1
    z = _apply(m, name, y)
    seen = (z is y, z._base is y, None if z.grad_fn is None else z.grad_fn.name(),
            z.is_leaf, z.requires_grad)
    if change:
        z.add_(1)
    return seen


def _view_returned_then_base_changed(m):
    y = m.ones(2, 3, requires_grad=True) * 1
    z = _apply(m, "Row", y)
    y.add_(1)
    return z.grad_fn


def _view_returned_backward(m):
    x = m.ones(2, 3, requires_grad=True)
    z = _apply(m, "Row", x * 1)
    (z * 2).sum().backward()
    return x.grad


MARK_DIRTY = {
    "a non-leaf": lambda m: _dirty_non_leaf(m),
    "marked but unchanged": lambda m: _dirty_non_leaf(m, "Marked"),
    "a leaf that requires grad": lambda m: _apply(m, "Inc", m.ones(3, requires_grad=True)),
    "a leaf, under no_grad": lambda m: _under_no_grad(m, "Inc", m.ones(3, requires_grad=True)),
    "a tensor without grad": lambda m: _under_no_grad(m, "Inc", m.ones(3)),
    "a view": _dirty_view,
    "a view of a leaf that requires grad": lambda m: _apply(
        m, "Inc", m.ones(4, 3, requires_grad=True)[:, 2][0:2]),
    "a view, with two outputs": lambda m: _apply(m, "IncAndTwice",
                                                 (m.ones(2, 3, requires_grad=True) * 1)[0]),
    "without grad, times a leaf": _dirty_without_grad_times_leaf,
    "dirty and returned first of two": lambda m: _two_outputs(m, "IncAndTwice"),
    "dirty and returned second of two": lambda m: _two_outputs(m, "TwiceAndInc"),
    "dirty and non-differentiable": lambda m: _returned_input(m, "NonDiff"),
    "dirty, not returned": lambda m: _apply(m, "NotReturned", m.ones(3, requires_grad=True) * 1),
    "dirty, not returned, no grad": lambda m: _apply(m, "NotReturned", m.ones(3)),
    "a saved input, then made dirty": lambda m: _saved_then_dirty(m),
    "its saved output": lambda m: _dirty_non_leaf(m, "Doubled"),
    "its saved output, changed after": lambda m: _saved_output_changed(m),
    # an input returned as it is, or a view of one
    "an input returned": lambda m: _returned_input(m, "Id"),
    "an input returned, changed in place": lambda m: _returned_input(m, "Id", change=True),
    "a leaf returned, changed in place": lambda m: _returned_input(m, "Id", leaf=True,
                                                                   change=True),
    "an input without grad returned, changed": lambda m: _returned_input(
        m, "Id", requires_grad=False, leaf=True, change=True),
    "an input returned under no_grad": lambda m: _under_no_grad(
        m, "Id", m.ones(2, 3, requires_grad=True)),
    "a view returned": lambda m: _returned_input(m, "Row"),
    "a view returned, changed in place": lambda m: _returned_input(m, "Row", change=True),
    "a view returned, then its base changed": _view_returned_then_base_changed,
    "a view returned, backward": _view_returned_backward,
}


def _saved_then_dirty(m):
    y = m.ones(3, requires_grad=True) * 1
    p = y * y
    _apply(m, "Inc", y)
    p.sum().backward()


def _saved_output_changed(m):
    y = m.ones(3, requires_grad=True) * 1
    z = _apply(m, "Doubled", y)
    z.add_(1)
    z.sum().backward()


@pytest.mark.parametrize("name", list(MARK_DIRTY))
def test_custom_functions_that_change_or_return_their_inputs(name):
    parity.run_both(MARK_DIRTY[name])


_DIRTY_INPUTS = {
    "a leaf": lambda m: m.arange(4., requires_grad=True),
    "a view of a leaf": lambda m: m.arange(4., requires_grad=True).view(-1),
    "a non-leaf": lambda m: m.arange(4., requires_grad=True) * 1,
    "a view of a non-leaf": lambda m: (m.arange(4., requires_grad=True) * 1).view(-1),
    "a view made without grad": lambda m: _view_made_without_grad(m),
}


def _view_made_without_grad(m):
    base = m.arange(4., requires_grad=True) * 1
    with m.no_grad():
        view = base.view(-1)
    return view.requires_grad_()


def _dirty_after_a_retained_gradient(m, function, kind):
    """Which of torch's checks refuses first, and whether the gradient the input retained
    survives: torch drops it before it checks a view (fuzz 2702067)."""
    y = _DIRTY_INPUTS[kind](m)
    if not y.is_leaf:
        y.retain_grad()
    y.sum().backward(retain_graph=True)
    try:
        _apply(m, function, y)
        outcome = "ok"
    except RuntimeError as error:
        outcome = str(error)
    return outcome, y.grad, y.requires_grad, y._version


@pytest.mark.parametrize("kind", list(_DIRTY_INPUTS))
@pytest.mark.parametrize("function", ["Inc", "NotReturned", "IncAndTwice", "NonDiff"])
def test_a_dirty_input_checked_in_torchs_order_after_a_retained_gradient(function, kind):
    parity.run_both(lambda m: _dirty_after_a_retained_gradient(m, function, kind))


# ====================================================================== scale and memory
def test_a_chain_of_100000_ops_backpropagates():
    x = engine.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.backward()
    assert x.grad.item() == 1.0


def test_the_graph_is_freed_after_backward():
    x = engine.tensor([1., 2.], requires_grad=True)
    y = (x.exp() * 2).sum()
    node = weakref.ref(y.grad_fn)
    exp_node = y.grad_fn.next_functions[0][0].next_functions[0][0]  # Sum <- Mul <- Exp
    saved = weakref.ref(exp_node._saved[0].tensor)  # exp's saved result
    y.backward()
    del y
    gc.collect()
    assert node() is None and saved() is None


# ====================================================================== lesson 9: nodes by hand
def _wrong_exp(m):
    """_Exp with a backward off by a factor of 2 (exp' = exp), for gradcheck to catch."""
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result * 2

    return type("WrongExp", (m.autograd.Function,),
                {**vars(_Exp), "backward": staticmethod(backward)})


def test_gradcheck_error_message_is_torchs():
    messages = []
    for m in (engine, torch):
        x = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            m.autograd.gradcheck(_wrong_exp(m).apply, (x,))
        messages.append((type(info.value).__name__, str(info.value)))
    assert messages[0] == messages[1]


def test_gradcheck_reports_the_first_output_then_input_like_torch():
    messages = []
    for m in (engine, torch):
        x = m.tensor([0.5, 1.0], dtype=m.float64, requires_grad=True)
        y = m.tensor([2.0, 3.0], dtype=m.float64, requires_grad=True)
        wrong = _wrong_exp(m).apply
        with pytest.raises(RuntimeError) as info:
            m.autograd.gradcheck(lambda a, b, wrong=wrong: (a * b, wrong(b)), (x, y))
        messages.append(str(info.value).splitlines()[0])
    assert messages[0] == messages[1]


def test_calling_a_node_gives_none_for_inputs_without_an_edge():
    results = []
    for m in (engine, torch):
        w = m.tensor([1.0, 2.0], requires_grad=True)
        b = w + m.ones(3, 2)
        with m.no_grad():
            grads = b.grad_fn(m.ones(3, 2))
        results.append([None if g is None else (tuple(g.shape), g.tolist()) for g in grads])
    assert results[0] == results[1]


def test_node_hooks_show_the_order_backward_runs_nodes_leaves_included():
    orders = []
    for m in (engine, torch):
        x = m.tensor(2.0, requires_grad=True)
        w = m.tensor(3.0, requires_grad=True)
        a = x + w
        b = w + 1
        y = a * b
        labels = {y.grad_fn: "y", a.grad_fn: "a", b.grad_fn: "b",
                  a.grad_fn.next_functions[0][0]: "x", a.grad_fn.next_functions[1][0]: "w"}
        order = []
        for node, label in labels.items():
            node.register_hook(lambda grad_inputs, grad_outputs, label=label, order=order:
                               order.append((label, len(grad_inputs),
                                             [g.tolist() for g in grad_outputs])))
        y.backward()
        orders.append(order)
    assert orders[0] == orders[1]


def test_reading_a_non_leafs_grad_warns_with_torchs_exact_text():
    texts = []
    for m in (torch, engine):
        y = m.tensor([1.0], requires_grad=True) * 2
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert y.grad is None
        assert [w.category for w in caught] == [UserWarning]
        assert caught[0].filename == __file__  # points at the line that read .grad
        texts.append(str(caught[0].message))
    assert texts[0] == texts[1]


def test_a_gradient_for_a_non_tensor_input_of_a_function_is_an_error():
    messages = []
    for m in (engine, torch):
        class Clamp(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, low, high):
                return x.clamp(low, high)

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output, grad_output, None  # low is a number: None expected

        u = m.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            Clamp.apply(u, 0.0, 1.0).sum().backward()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("make_grad", [
    lambda m: m.ones(3),                       # another size
    lambda m: m.ones(2, 3),                    # another shape
    lambda m: m.ones(2, dtype=m.float64),      # another dtype (checked before the size)
    lambda m: m.ones(3, dtype=m.int64),        # both: the dtype is reported
    lambda m: m.ones(2, dtype=m.float16),
])
def test_assigning_a_grad_of_another_size_or_dtype_is_refused_with_torchs_message(make_grad):
    """Lesson 6 resets gradients by hand (x.grad = ...): the errors read as torch's."""
    messages = []
    for m in (engine, torch):
        x = m.zeros(2, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            x.grad = make_grad(m)
        messages.append(str(info.value))
        x.grad = m.ones(2)  # the right size and dtype is accepted
        assert x.grad.tolist() == [1.0, 1.0]
    assert messages[0] == messages[1]


def test_legacy_spellings_of_autograd_calls_behave_as_torchs(torch_or_skip):
    """grad_variables (deprecated alias), materialize_grads with allow_unused=False, and
    calling a Function instance: what older code and tutorials write."""
    import warnings

    def run(tm):
        found = []
        x = tm.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tm.autograd.backward([x.sum()], grad_variables=[tm.tensor(1.0)])
        found.append((x.grad.tolist(), [(w.category, str(w.message)) for w in caught]))
        attempts = [
            lambda: tm.autograd.backward([x.sum()], grad_tensors=[tm.tensor(1.0)],
                                         grad_variables=[tm.tensor(1.0)]),
            lambda: tm.autograd.grad(x.sum() * 2, [x, tm.ones(1, requires_grad=True)],
                                     allow_unused=False, materialize_grads=True),
        ]

        class Identity(tm.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t

        attempts.append(lambda: Identity.__call__(Identity.__new__(Identity), x))
        for attempt in attempts:
            with pytest.raises(Exception) as error:
                attempt()
            found.append((type(error.value).__name__, str(error.value)))
        return found

    assert run(engine) == run(torch_or_skip)


def test_backward_with_create_graph_keeps_a_differentiable_copy_and_warns(torch_or_skip,
                                                                          monkeypatch):
    """The first .grad is a recorded copy (CopyBackwards); torch warns about the cycle, once
    per process: the engine's memory of having warned starts empty here, as if this test ran
    first, and the second run in the engine says nothing."""
    from engine.fidelity import messages
    monkeypatch.setattr(messages, "_warned_about_create_graph", [])

    def run(tm):
        z = tm.tensor(2.0, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            (z ** 3).backward(create_graph=True)
        first = (repr(z.grad), z.grad.is_leaf, [str(w.message)[:60] for w in caught][:1])
        second_derivative = tm.autograd.grad(z.grad, z, retain_graph=True)
        (z ** 3).backward(create_graph=True)
        return first, repr(second_derivative), repr(z.grad)

    engine_result, torch_result = run(engine), run(torch_or_skip)
    assert engine_result[0][2] and run(engine)[0][2] == []
    if not torch_result[0][2]:  # torch warned before, in another test
        engine_result = ((*engine_result[0][:2], []), *engine_result[1:])
    assert engine_result == torch_result



def _views_returned(m):
    def function(name, forward, backward):
        return type(name, (m.autograd.Function,), {"forward": staticmethod(forward),
                                                    "backward": staticmethod(backward)})
    return {
        "Id": function("Id", lambda ctx, x: x, lambda ctx, g: g),
        "Part": function("Part", lambda ctx, x: x[:2], lambda ctx, g: m.cat([g, g.new_zeros(1)])),
        "Two": function("Two", lambda ctx, x: (x[:1], x[1:]), lambda ctx, a, b: m.cat([a, b])),
    }


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name", ["Id", "Part", "Two"])
def test_views_a_custom_function_returns_refuse_in_place_changes_as_torch(name, requires_grad):
    def change(m):
        x = m.ones(3, requires_grad=True) * 1 if requires_grad else m.ones(3)
        out = _views_returned(m)[name].apply(x)
        (out[0] if isinstance(out, tuple) else out).add_(m.ones(1, requires_grad=True))

    parity.run_both(change)


def test_backward_with_inputs_stores_gradients_as_backward_does():
    def stored(m):
        w = m.ones(3, requires_grad=True)
        h = w * 1
        h.retain_grad()
        (h * 2).sum().backward(inputs=[h])  # retain_grad stores it: once
        x = m.ones(2, 3, requires_grad=True)
        (x * 2).sum().backward(inputs=[x])
        first = x.grad
        (x * 2).sum().backward(inputs=[x])  # into the same tensor, in place
        return h.grad, x.grad, first is x.grad, x.grad._version

    parity.run_both(stored)


def test_anomaly_detection_knows_where_an_in_place_write_was_made():
    def detected(m):
        x, w = m.ones(3, requires_grad=True), m.ones(1, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with m.autograd.detect_anomaly():
                y = x * 1
                y[0:1].mul_(w)
                with m.no_grad():
                    w.add_(1)
                with pytest.raises(RuntimeError):
                    y.sum().backward()
        return [str(c.message).split("\n")[0] for c in caught if "Error detected" in str(c.message)]

    parity.run_both(detected)
