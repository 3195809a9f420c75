"""Gradients of every differentiable op in engine/ops/ against torch 2.15.

Each case runs in both libraries on float64 inputs that require grad and compares
the result, the names of the whole recorded graph (grad_fn and everything it leads
to), and the gradients a random upstream gradient produces. The engine's gradients
are then checked against finite differences (gradcheck) and, where the op is twice
differentiable, so are its second derivatives (gradgradcheck).
"""
import itertools
import math

import numpy as np
import pytest

import engine
import parity
from ops.test_autograd_parity import (BROADCAST_PAIRS, _check_gradients, _compare, _graph,
                                      _positive, _signed)

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch


# ====================================================================== one input
UNARY = {
    # clamping: numbers as bounds
    "clamp": lambda m, x: x.clamp(-1, 1), "clamp min": lambda m, x: m.clamp(x, min=-0.5),
    "clamp max": lambda m, x: x.clamp(max=0.5), "clip": lambda m, x: x.clip(-1, 1),
    "clamp_min": lambda m, x: x.clamp_min(0.3), "clamp_max": lambda m, x: x.clamp_max(0.3),
    # step functions and their relatives
    "sign": lambda m, x: x.sign(), "floor": lambda m, x: x.floor(),
    "ceil": lambda m, x: x.ceil(), "round": lambda m, x: x.round(),
    "round decimals": lambda m, x: x.round(decimals=1), "trunc": lambda m, x: x.trunc(),
    "fix": lambda m, x: m.fix(x), "frac": lambda m, x: x.frac(),
    "nan_to_num": lambda m, x: x.nan_to_num(), "square": lambda m, x: x.square(),
    "x / 2": lambda m, x: x / 2, "div number": lambda m, x: m.div(x, 2.5),
    "div trunc": lambda m, x: m.div(x, 0.45, rounding_mode="trunc"),
    "div floor": lambda m, x: m.div(x, 0.45, rounding_mode="floor"),
    "fmod number": lambda m, x: x.fmod(0.45), "remainder number": lambda m, x: x.remainder(0.45),
    "x % number": lambda m, x: x % 0.45,
    "rsub number": lambda m, x: m.rsub(x, 2.0), "lerp number": lambda m, x: m.lerp(x, x * 2, 0.3),
    # powers
    "x ** 0": lambda m, x: x ** 0, "x ** 3": lambda m, x: x ** 3, "x ** -2": lambda m, x: x ** -2,
    "x ** 1": lambda m, x: x ** 1, "x ** 2.0": lambda m, x: x.pow(2.0),
    # reductions
    "max": lambda m, x: x.max(), "min": lambda m, x: x.min(),
    "max dim": lambda m, x: x.max(-1).values,
    "min dim keepdim": lambda m, x: m.min(x, 0, keepdim=True).values,
    "amax": lambda m, x: x.amax(), "amin dim": lambda m, x: x.amin(-1),
    "amax dims": lambda m, x: x.amax((0, -1), keepdim=True),
    "prod": lambda m, x: x.prod(), "prod dim": lambda m, x: x.prod(-1),
    "prod keepdim": lambda m, x: x.prod(0, keepdim=True),
    "std": lambda m, x: x.std(), "var": lambda m, x: x.var(),
    "std dim": lambda m, x: x.std(-1), "var dim": lambda m, x: x.var(0, correction=0),
    "var keepdim": lambda m, x: x.var(-1, keepdim=True),
    "std dims unbiased": lambda m, x: m.std(x, (0, -1), unbiased=False),
    "norm": lambda m, x: x.norm(), "norm 1": lambda m, x: x.norm(1),
    "norm inf": lambda m, x: x.norm(float("inf")), "norm -inf": lambda m, x: x.norm(-math.inf),
    "norm 3": lambda m, x: x.norm(3), "norm 1.5": lambda m, x: x.norm(1.5),
    "norm 0.5": lambda m, x: x.norm(0.5), "norm dim": lambda m, x: x.norm(dim=-1),
    "norm keepdim": lambda m, x: x.norm(2, 0, keepdim=True),
    "logsumexp": lambda m, x: x.logsumexp(-1),
    "logsumexp dims": lambda m, x: m.logsumexp(x, (0, -1)),
    "logsumexp keepdim": lambda m, x: x.logsumexp(0, keepdim=True),
    "cumsum": lambda m, x: x.cumsum(-1), "cumsum 0": lambda m, x: m.cumsum(x, 0),
    "cumprod": lambda m, x: x.cumprod(-1), "cumprod 0": lambda m, x: m.cumprod(x, 0),
    "nansum": lambda m, x: x.nansum(), "nansum dim": lambda m, x: x.nansum(-1),
    "sum dtype": lambda m, x: x.sum(dtype=m.float32),
    "sum dim dtype": lambda m, x: x.sum(-1, dtype=m.float32),
    "mean dtype": lambda m, x: x.mean(dtype=m.float32), "mean tuple": lambda m, x: x.mean((0, -1)),
    "sort": lambda m, x: x.sort().values,
    "sort descending": lambda m, x: m.sort(x, 0, descending=True).values,
    "topk": lambda m, x: x.topk(1).values,
    "where number": lambda m, x: m.where(x > 0, x, 0.0),
    "where number first": lambda m, x: m.where(x > 0, 1.5, x),
    "outer": lambda m, x: m.outer(x.flatten(), x.flatten()[:2]),
}
SHAPES = {"scalar": (), "vector": (3,), "matrix": (2, 3)}
NEEDS_DIMS = {"amax dims": 2, "std dims unbiased": 2, "logsumexp dims": 2, "mean tuple": 2,
              "outer": 1}
# float32 results are too coarse for finite differences
NO_GRADCHECK = {"sum dtype", "sum dim dtype", "mean dtype"}
# ops whose gradient is itself a step function: the first derivative is checked, and
# the second is 0 where it exists (finite differences of a step are not)
FIRST_ORDER_ONLY = {"max", "min", "amax", "amin dim", "amax dims", "max dim",
                    "min dim keepdim", "norm inf", "norm -inf", "norm 1", "sort",
                    "sort descending", "topk"}
# a full-tensor statistic of a single element: torch's nan/0 cases, checked elsewhere
SKIP_SCALAR = {"std", "var", "std dim", "var keepdim", "std dims unbiased"}


@pytest.mark.parametrize("shape_name", list(SHAPES))
@pytest.mark.parametrize("op", list(UNARY))
def test_one_input_ops(op, shape_name):
    shape = SHAPES[shape_name]
    if len(shape) < NEEDS_DIMS.get(op, 0) or (shape == () and op in SKIP_SCALAR):
        pytest.skip("needs more elements")
    values = _signed(shape, 11)
    inputs = _compare(UNARY[op], [values])
    if op not in NO_GRADCHECK:
        _check_gradients(UNARY[op], inputs, second_order=op not in FIRST_ORDER_ONLY)


# ====================================================================== kinks and ties
# inputs where the op is not differentiable: torch's conventions (gradient split
# evenly between ties, 0 at relu(0) and |0| ...) are compared, not checked numerically
KINKS = {
    "relu at 0": ([0.0, 1.0, -1.0], lambda m, x: x.relu()),
    "abs at 0": ([0.0, 1.0, -1.0], lambda m, x: x.abs()),
    "sign at 0": ([0.0, 1.0, -1.0], lambda m, x: x.sign()),
    "sgn at 0 and nan": ([0.0, 1.0, -1.0, math.nan], lambda m, x: m.sgn(x) + x),
    "max ties": ([1.0, 3.0, 3.0, -2.0], lambda m, x: x.max()),
    "min ties": ([1.0, -2.0, 3.0, -2.0], lambda m, x: x.min()),
    "max dim ties": ([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], lambda m, x: x.max(1).values),
    "min dim ties": ([[1.0, 3.0, 1.0], [2.0, 2.0, 0.0]], lambda m, x: x.min(0).values),
    "amax ties": ([[1.0, 3.0, 3.0], [3.0, 2.0, 0.0]], lambda m, x: x.amax()),
    "amax dim ties": ([[1.0, 3.0, 3.0], [3.0, 2.0, 0.0]], lambda m, x: x.amax(1)),
    "amin dim ties": ([[1.0, 3.0, 3.0], [1.0, 2.0, 0.0]], lambda m, x: x.amin(0)),
    "norm inf ties": ([1.0, -3.0, 3.0], lambda m, x: x.norm(math.inf)),
    "norm of zeros": ([0.0, 0.0], lambda m, x: x.norm()),
    "norm 3 of zeros": ([0.0, 0.0], lambda m, x: x.norm(3)),
    "norm 1 with a zero": ([0.0, -2.0], lambda m, x: x.norm(1)),
    "norm 0": ([0.0, -2.0, 1.0], lambda m, x: (x.norm(0) + x.sum())),
    "std of a constant": ([2.0, 2.0, 2.0], lambda m, x: x.std()),
    "std dim of a constant": ([[2.0, 2.0], [1.0, 3.0]], lambda m, x: x.std(1)),
    "clamp at the bounds": ([-1.0, 0.0, 1.0, 2.0], lambda m, x: x.clamp(-1, 1)),
    "clamp_min at the bound": ([-1.0, 0.0, 1.0], lambda m, x: x.clamp_min(0)),
    "clamp_max at the bound": ([-1.0, 0.0, 1.0], lambda m, x: x.clamp_max(0)),
    "clamp nan bound": ([-1.0, 0.0], lambda m, x: x.clamp(min=float("nan"))),
    "prod with a zero": ([[2.0, 0.0, 3.0], [1.0, 2.0, 4.0]], lambda m, x: x.prod()),
    "prod with two zeros": ([0.0, 2.0, 0.0], lambda m, x: x.prod()),
    "prod dim with zeros": ([[0.0, 2.0, 3.0], [0.0, 0.0, 2.0], [1.0, 2.0, 3.0]],
                            lambda m, x: x.prod(1)),
    "cumprod with zeros": ([[0.0, 2.0, 3.0], [2.0, 0.0, 2.0], [1.0, 0.0, 0.0]],
                           lambda m, x: x.cumprod(1)),
    "x ** 0 at 0": ([0.0, 2.0], lambda m, x: x ** 0),
    "0 ** x": ([0.0, 1.0, -1.0, 2.5], lambda m, x: 0 ** x),
    "1 ** x": ([0.0, 1.0, -1.0], lambda m, x: 1 ** x),
    "2.5 ** x": ([0.0, 1.0, -1.0], lambda m, x: 2.5 ** x),
    "negative ** 3": ([-2.0, -1.5, 0.0], lambda m, x: x ** 3),
    "negative ** 2": ([-2.0, -1.5, 0.0], lambda m, x: x.pow(2)),
    "negative ** -1": ([-2.0, -1.5], lambda m, x: x ** -1),
    "negative ** 2.5": ([-2.0, 4.0], lambda m, x: x ** 2.5),
    "nan_to_num": ([float("nan"), float("inf"), -float("inf"), 1.0], lambda m, x: x.nan_to_num()),
    "nansum": ([float("nan"), 2.0, 1.0], lambda m, x: x.nansum()),
    "max with nan": ([1.0, float("nan"), 2.0], lambda m, x: x.max()),
    "sort ties": ([1.0, 3.0, 1.0, 3.0], lambda m, x: x.sort().values),
    "topk ties": ([3.0, 1.0, 3.0, 2.0], lambda m, x: x.topk(2).values),
}


@pytest.mark.parametrize("case", list(KINKS))
def test_kinks_and_ties_follow_torch(case):
    values, fn = KINKS[case]
    _compare(fn, [np.array(values)])


def test_the_gradient_of_abs_is_built_on_sgn():
    """create_graph: abs's gradient is grad * x.sgn() (MulBackward0 -> SgnBackward0)."""
    graphs = []
    for m in (torch, engine):
        x = m.tensor([1.5, -2.0, 0.0], dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(x.abs().sum(), x, create_graph=True)
        graphs.append((_graph(g), g.tolist()))
    assert graphs[1] == graphs[0]


NAN_UPSTREAM = {
    "max": lambda m, x: x.max(), "min": lambda m, x: x.min(), "max ties": lambda m, x: x[0].max(),
    "max dim": lambda m, x: x.max(1).values, "min dim keepdim": lambda m, x: x.min(0, True)[0],
    "sort": lambda m, x: x.sort(1).values, "topk": lambda m, x: x.topk(2).values,
}


@pytest.mark.parametrize("case", list(NAN_UPSTREAM))
def test_a_nan_gradient_goes_only_where_the_picked_values_came_from(case):
    """torch scatters the gradient into zeros: the other elements get 0, not nan * 0."""
    def gradient(m):
        x = m.tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 5.0]], requires_grad=True)
        y = NAN_UPSTREAM[case](m, x)
        y.backward(m.full_like(y, math.nan))
        return x.grad

    parity.run_both(gradient)


@pytest.mark.parametrize("case", ["prod with a zero", "prod dim with zeros",
                                  "cumprod with zeros"])
def test_products_with_zeros_are_checked_numerically(case):
    values, fn = KINKS[case]
    x = engine.tensor(values, dtype=engine.float64, requires_grad=True)
    _check_gradients(fn, [x])


def test_tensor_power_edge_cases():
    base = np.array([0.0, 0.0, -2.0, 2.0])
    exponent = np.array([0.0, 2.0, 3.0, -1.0])
    _compare(lambda m, a, b: a ** b, [base, exponent])
    _compare(lambda m, a, b: a ** b, [np.array([0.0, 0.0]), np.array([-1.0, 0.5])])


# where an op passes no gradient, torch puts 0, never -0.0 (relu's threshold_backward, clamp's
# where, max()'s masked_fill, sort/topk/max(dim)'s scatter into zeros), and it passes a
# gradient of -0.0 unchanged; clamp at its bounds and at nan, as torch 2.15: 0 at a number
# bound, ties with a tensor bound split in half; every (x, min, max) of -1, 0, 1 and nan
_NAN = float("nan")
_TRIPLES = [list(column) for column in zip(*itertools.product([-1.0, 0.0, 1.0, _NAN],
                                                             repeat=3))]
_SPECIAL = [-2.0, -0.0, 0.0, 1.0, _NAN, math.inf, -math.inf]
ZEROS_AND_KINKS = {
    "relu": (lambda m, x: x.relu(), [_SPECIAL]),
    "relu_": (lambda m, x: (x * 1).relu_(), [_SPECIAL]),
    "F.relu": (lambda m, x: m.nn.functional.relu(x), [_SPECIAL]),
    "abs": (lambda m, x: x.abs(), [_SPECIAL]),
    "maximum": (lambda m, x, y: m.maximum(x, y), [_SPECIAL, [0.0] * 7]),
    "max() ties": (lambda m, x: x.max(), [[1.0, 3.0, 3.0, -1.0]]),
    "min() ties": (lambda m, x: x.min(), [[1.0, -3.0, -3.0, 2.0]]),
    "max() with nan": (lambda m, x: x.max(), [[1.0, _NAN, 2.0]]),
    "sort": (lambda m, x: x.sort().values, [[3.0, 1.0, 2.0, 1.0]]),
    "sort along dim 0": (lambda m, x: x.reshape(2, 2).sort(0).values, [[3.0, 1.0, 2.0, 5.0]]),
    "topk": (lambda m, x: x.topk(2).values, [[3.0, 1.0, 2.0, 5.0]]),
    "max(dim)": (lambda m, x: x.reshape(2, 2).max(1).values, [[3.0, 1.0, 2.0, 5.0]]),
    "min(dim, keepdim)": (lambda m, x: x.reshape(2, 2).min(0, keepdim=True).values,
                          [[3.0, 1.0, 2.0, 5.0]]),
    "amax ties": (lambda m, x: x.reshape(2, 2).amax(1), [[3.0, 3.0, 2.0, 5.0]]),
    "clamp(-1, 1)": (lambda m, x: x.clamp(-1, 1), [_TRIPLES[0]]),
    "clamp(0, 0)": (lambda m, x: x.clamp(0, 0), [_TRIPLES[0]]),
    "clamp(1, -1)": (lambda m, x: x.clamp(1, -1), [_TRIPLES[0]]),
    "clamp(min=0)": (lambda m, x: x.clamp(min=0), [_TRIPLES[0]]),
    "clamp(max=0.0)": (lambda m, x: x.clamp(max=0.0), [_TRIPLES[0]]),
    "clamp(min=nan)": (lambda m, x: x.clamp(min=_NAN), [_TRIPLES[0]]),
    "clamp_min(0)": (lambda m, x: x.clamp_min(0), [_TRIPLES[0]]),
    "clamp_max(-1)": (lambda m, x: x.clamp_max(-1), [_TRIPLES[0]]),
    "clamp(tensors)": (lambda m, x, low, high: x.clamp(low, high), _TRIPLES),
    "clip(tensors)": (lambda m, x, low, high: x.clip(low, high), _TRIPLES),
    "clamp(min=tensor)": (lambda m, x, low: x.clamp(min=low), _TRIPLES[:2]),
    "clamp(max=tensor)": (lambda m, x, high: x.clamp(max=high), _TRIPLES[::2]),
    "clamp_min(tensor)": (lambda m, x, low: x.clamp_min(low), _TRIPLES[:2]),
    "clamp_max(tensor)": (lambda m, x, high: x.clamp_max(high), _TRIPLES[::2]),
}


@pytest.mark.parametrize("upstream", [-1.0, -0.0, 1.0])
@pytest.mark.parametrize("case", list(ZEROS_AND_KINKS))
def test_zero_gradients_are_torchs_zeros_and_kinks_torchs(case, upstream):
    fn, values = ZEROS_AND_KINKS[case]

    def run(m):
        inputs = [m.tensor(v, requires_grad=True) for v in values]
        out = fn(m, *inputs)
        out.backward(m.full(out.shape, upstream))
        return [x.grad for x in inputs]

    parity.run_both(run)


# ====================================================================== two or three inputs
BINARY = {
    "maximum": lambda m, a, b: m.maximum(a, b), "minimum": lambda m, a, b: m.minimum(a, b),
    "max other": lambda m, a, b: m.max(a, b), "min other": lambda m, a, b: m.min(a, b),
    "atan2": lambda m, a, b: m.atan2(a - 1, b - 1),
    "fmod": lambda m, a, b: m.fmod(a * 3, b), "remainder": lambda m, a, b: m.remainder(a * 3, -b),
    "rsub": lambda m, a, b: m.rsub(a, b), "rsub alpha": lambda m, a, b: m.rsub(a, b, alpha=2),
    "sub alpha": lambda m, a, b: m.sub(a, b, alpha=-1.5),
    "add alpha": lambda m, a, b: a.add(b, alpha=3),
    "lerp": lambda m, a, b: m.lerp(a, b, 0.25),
    "lerp tensor weight": lambda m, a, b: a.lerp(b, b - 1),
    "clamp_min": lambda m, a, b: a.clamp_min(b), "clamp_max": lambda m, a, b: a.clamp_max(b),
    "clamp tensor min": lambda m, a, b: a.clamp(min=b),
    "clamp tensor max": lambda m, a, b: a.clamp(max=b),
    "clamp tensors": lambda m, a, b: m.clamp(a, b - 0.5, b + 0.25),
    "clamp min > max": lambda m, a, b: m.clamp(a, b, b - 0.5),
    "pow": lambda m, a, b: a.pow(b - 1), "where": lambda m, a, b: m.where(a > b, a, b * 2),
    "div": lambda m, a, b: m.div(a, b), "number / tensor": lambda m, a, b: 2 / b + a,
}
# step functions of the inputs: the second derivatives do not exist at the steps
BINARY_FIRST_ORDER = {"fmod", "remainder"}


@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
@pytest.mark.parametrize("op", list(BINARY))
def test_two_input_ops_with_broadcasting(op, shapes):
    a, b = _positive(shapes[0], 2), _positive(shapes[1], 3)
    inputs = _compare(BINARY[op], [a, b])
    second = op not in BINARY_FIRST_ORDER and len(shapes[0]) < 3
    _check_gradients(BINARY[op], inputs, second_order=second)


def test_maximum_and_minimum_split_ties_half_and_half():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 3.5])
    _compare(lambda m, x, y: m.maximum(x, y), [a, b])
    _compare(lambda m, x, y: m.minimum(x, y), [a, b])
    _compare(lambda m, x, y: m.clamp(x, y, y), [a, b])


# every combination of x, min and max among values that tie, order both ways, or are nan
_CLAMP_VALUES = [-1.0, 0.0, 0.5, 1.0, math.nan]
_CLAMP_GRID = [np.array(column) for column in zip(*[
    (x, low, high) for x in _CLAMP_VALUES for low in _CLAMP_VALUES for high in _CLAMP_VALUES])]


@pytest.mark.parametrize("name, fn, bounds", [
    ("tensors", lambda m, x, low, high: m.clamp(x, low, high), 2),
    ("tensor min", lambda m, x, low: x.clamp(min=low), 1),
    ("tensor max", lambda m, x, high: x.clamp(max=high), 1),
    ("clamp_min", lambda m, x, low: x.clamp_min(low), 1),
    ("clamp_max", lambda m, x, high: x.clamp_max(high), 1),
    ("numbers", lambda m, x: x.clamp(0.0, 0.5), 0),
    ("numbers min > max", lambda m, x: x.clamp(1.0, 0.0), 0),
    ("number min", lambda m, x: x.clamp(min=0.0), 0),
    ("number max", lambda m, x: x.clamp(max=1.0), 0),
    ("clamp_min number", lambda m, x: x.clamp_min(0.5), 0),
    ("clamp_max number", lambda m, x: x.clamp_max(0.5), 0),
], ids=lambda value: value if isinstance(value, str) else "")
def test_clamp_gradients_at_the_bounds_and_with_nan(name, fn, bounds):
    """torch 2.15: 0 at a number bound; a tensor bound equal to x splits the gradient with
    it (as maximum/minimum do); with both tensor bounds, nan in x keeps x's gradient."""
    _compare(fn, _CLAMP_GRID[:bounds + 1])


# (torch's clamp backward itself fails when min and max broadcast beyond the input's shape)
@pytest.mark.parametrize("shapes", [((3,), (3,), (3,)), ((2, 3), (3,), ()), ((), (2, 1), (2, 1))],
                         ids=str)
def test_three_input_ops(shapes):
    x, low, weight = (_positive(s, i) for i, s in enumerate(shapes))
    fns = [lambda m, a, b, c: m.lerp(a, b, c), lambda m, a, b, c: m.clamp(a, b, b + c)]
    for fn in fns:
        inputs = _compare(fn, [x, low, weight])
        _check_gradients(fn, inputs)


# ====================================================================== matrix products
# torch builds batched matmul from views, mm / mv / bmm and _unsafe_view; the engine
# records the same pieces, so the whole graph is compared
MATMUL_SHAPES = [((2, 3, 4), (4, 5)), ((4,), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
                 ((2, 3, 4), (4,)), ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (1, 4, 5)),
                 ((1, 3, 4), (2, 4, 5)), ((3, 4), (2, 4, 5)), ((2, 2, 3, 4), (4,)),
                 ((3,), (2, 1, 3, 2)), ((3,), (3, 4))]


@pytest.mark.parametrize("grads", [(True, True), (True, False), (False, True)], ids=str)
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_batched_matmul_records_torchs_graph(shapes, grads):
    fn = lambda m, a, b: a @ b  # noqa: E731
    arrays = [_signed(shapes[0], 4), _signed(shapes[1], 5)]
    inputs = _compare(fn, arrays, grads=grads)
    if grads == (True, True):
        _check_gradients(fn, inputs)


def test_matmul_of_a_transposed_batch():
    fn = lambda m, a, b: a.transpose(0, 1) @ b  # noqa: E731
    _compare(fn, [_signed((3, 2, 4), 1), _signed((4, 5), 2)])


# batches laid out in unusual ways: torch folds the batch into one mm whenever viewing it as
# rows needs no copy (dimensions of size 1 do not count), and returns a row-major result
MATMUL_LAYOUTS = {
    "a row of a wider matrix, unsqueezed": lambda m: m.ones(2, 8)[0:1, :4].unsqueeze(2),
    "rows of a wider matrix, unsqueezed": lambda m: m.ones(2, 8)[:, :4].unsqueeze(2),
    "permuted with size-1 dims": lambda m: m.ones(1, 3, 3, 1).permute(3, 0, 1, 2),
    "batch dims swapped": lambda m: m.ones(3, 2, 2, 3).permute(1, 0, 2, 3),
    "batch dims swapped, last sliced": lambda m: m.ones(3, 2, 2, 4).permute(1, 0, 2, 3)[..., :3],
    "transposed last dims": lambda m: m.ones(2, 3, 4).transpose(1, 2),
}


@pytest.mark.parametrize("requires_grad", [True, False])
@pytest.mark.parametrize("layout", list(MATMUL_LAYOUTS))
def test_matmul_folds_and_lays_out_like_torch(layout, requires_grad):
    results = []
    for m in (torch, engine):
        a = MATMUL_LAYOUTS[layout](m).requires_grad_(requires_grad) if requires_grad else \
            MATMUL_LAYOUTS[layout](m)
        b = m.ones(a.shape[-1], 2)
        y = a @ b
        results.append((y.stride(), _graph(y) if requires_grad else None, y.tolist()))
    assert results[1] == results[0]


def test_matmul_without_grad_records_nothing():
    a, b = engine.ones(2, 3, 4), engine.ones(4, 5, requires_grad=True)
    with engine.no_grad():
        assert (a @ b).grad_fn is None
    assert (a @ engine.ones(4, 5)).grad_fn is None


# ====================================================================== no gradient at all
NOT_DIFFERENTIABLE = {
    "gt": lambda m, x: x > 0, "eq": lambda m, x: m.eq(x, x), "argmax": lambda m, x: x.argmax(),
    "argmin dim": lambda m, x: x.argmin(0), "isnan": lambda m, x: x.isnan(),
    "max indices": lambda m, x: x.max(0).indices, "sort indices": lambda m, x: x.sort().indices,
    "topk indices": lambda m, x: x.topk(2).indices, "argsort": lambda m, x: x.argsort(),
    "floor_divide ints": lambda m, x: m.floor_divide(x.long(), 2),
    "nonzero": lambda m, x: x.nonzero(), "count_nonzero": lambda m, x: m.count_nonzero(x),
    "all": lambda m, x: x.all(), "logical_not": lambda m, x: m.logical_not(x),
    "isclose": lambda m, x: m.isclose(x, x), "sign of ints": lambda m, x: x.long().sign(),
}


@pytest.mark.parametrize("op", list(NOT_DIFFERENTIABLE))
def test_integer_and_bool_results_never_require_grad(op):
    for m in (torch, engine):
        x = m.tensor([1.5, -2.0, 3.0], dtype=m.float64, requires_grad=True)
        y = NOT_DIFFERENTIABLE[op](m, x)
        assert y.requires_grad is False and y.grad_fn is None and y.is_leaf


@pytest.mark.parametrize("case", ["floor_divide", "//", "remainder of a number"])
def test_ops_without_a_derivative_fail_in_backward_as_torch(case):
    fns = {"floor_divide": lambda m, x: m.floor_divide(x, x + 1),
           "//": lambda m, x: x // 2, "remainder of a number": lambda m, x: m.remainder(2.0, x)}
    results = []
    for m in (torch, engine):
        x = m.tensor([1.5, 2.5], dtype=m.float64, requires_grad=True)
        y = fns[case](m, x)
        names = _graph(y)
        with pytest.raises(RuntimeError) as error:
            y.sum().backward()
        results.append((y.requires_grad, names, str(error.value)))
    assert results[1] == results[0]


# ====================================================================== second derivatives
SECOND_ORDER = {
    "sigmoid": lambda m, x: x.sigmoid(), "tanh": lambda m, x: x.tanh(),
    "prod": lambda m, x: x.prod(), "prod dim": lambda m, x: x.prod(1),
    "cumprod": lambda m, x: x.cumprod(1), "cumsum": lambda m, x: (x * x).cumsum(0),
    "norm": lambda m, x: x.norm(), "norm 3": lambda m, x: x.norm(3, dim=1),
    "logsumexp": lambda m, x: x.logsumexp(1), "std": lambda m, x: x.std(0),
    "var": lambda m, x: x.var(), "atan2": lambda m, x: m.atan2(x, x * x + 1),
    "pow": lambda m, x: x ** 3, "square": lambda m, x: x.square(),
    "maximum": lambda m, x: m.maximum(x * x, x + 1),
    "matmul": lambda m, x: (x.unsqueeze(0).expand(2, 2, 3) @ x.t()).sum(0),
}


@pytest.mark.parametrize("op", list(SECOND_ORDER))
def test_second_derivatives_match_torch(op):
    values = _signed((2, 3), 8)
    results = []
    for m in (torch, engine):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        y = SECOND_ORDER[op](m, x)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        weight = m.tensor(np.arange(6.0).reshape(2, 3) / 5, dtype=m.float64)
        (h,) = m.autograd.grad((g * weight).sum(), x)
        results.append((g.detach().numpy(), h.numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-10, atol=1e-12)


# Every combination of below / at / above a bound and nan, for the clamp family and
# maximum / minimum: torch 2.15 splits ties in half, takes the subgradient 0 at a number
# bound, and sends a nan's gradient to both sides of max / min.
_GRID_VALUES = [-1.0, 0.0, 1.0, float("nan")]
CLAMP_FAMILY = {
    "clamp(x, min, max)": (3, lambda m, x, a, b: m.clamp(x, a, b)),
    "clamp(x, min=t)": (2, lambda m, x, a: m.clamp(x, min=a)),
    "clamp(x, max=t)": (2, lambda m, x, a: m.clamp(x, max=a)),
    "clamp_min(t)": (2, lambda m, x, a: x.clamp_min(a)),
    "clamp_max(t)": (2, lambda m, x, a: x.clamp_max(a)),
    "maximum": (2, lambda m, x, a: m.maximum(x, a)),
    "minimum": (2, lambda m, x, a: m.minimum(x, a)),
    "clamp(0, 1)": (1, lambda m, x: x.clamp(0.0, 1.0)),
    "clamp(min=0)": (1, lambda m, x: x.clamp(min=0.0)),
    "clamp(max=0)": (1, lambda m, x: x.clamp(max=0.0)),
    "clamp_min(0)": (1, lambda m, x: x.clamp_min(0.0)),
    "clamp_max(0)": (1, lambda m, x: x.clamp_max(0.0)),
    "clamp(1, -1)": (1, lambda m, x: x.clamp(1.0, -1.0)),
    "clamp(nan, 1)": (1, lambda m, x: x.clamp(float("nan"), 1.0)),
}


@pytest.mark.parametrize("name", list(CLAMP_FAMILY))
def test_clamp_family_gradients_at_ties_and_nans(name):
    count, fn = CLAMP_FAMILY[name]
    columns = list(zip(*itertools.product(_GRID_VALUES, repeat=count)))
    for needs_grad in itertools.product([True, False], repeat=count):
        if not any(needs_grad):
            continue
        seen = {}
        for m in (engine, torch):
            inputs = [m.tensor(column, dtype=m.float64, requires_grad=flag)
                      for column, flag in zip(columns, needs_grad)]
            out = fn(m, *inputs)
            out.sum().backward()
            seen[m.__name__] = (out.grad_fn.name(), repr(out.detach()),
                                [None if t.grad is None else repr(t.grad) for t in inputs])
        assert seen["engine"] == seen["torch"], needs_grad
