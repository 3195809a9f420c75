"""tril/triu, diagonal/diag/diagflat, unfold, masked_select, index_add/index_copy,
tensor_split, argwhere, fliplr/flipud (engine/ops/structure.py) against torch 2.15: values,
dtypes, layout and memory sharing, reprs, errors, graphs and gradients."""
import itertools

import numpy as np
import pytest

import engine
import parity
from ops.test_autograd_parity import _check_gradients, _compare

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

MATRIX_SHAPES = [(), (3,), (3, 3), (2, 4), (4, 2), (2, 3, 4), (0, 3), (3, 0), (2, 0, 2)]


def _inputs(shape, dtype, seed=0):
    """The tensor, and a non-contiguous tensor of the same shape (a transposed copy)."""
    x = parity.make_tensor(shape, dtype, seed)
    if len(shape) < 2 or 0 in shape:  # (parity's copies of an empty tensor are contiguous)
        return [x]
    flipped = parity.make_tensor(shape[:-2] + shape[-2:][::-1], dtype, seed).transpose(-1, -2)
    return [x, flipped]


# ====================================================================== triangles
@pytest.mark.parametrize("diagonal", [0, 1, -1, 5, -5])
@pytest.mark.parametrize("shape", MATRIX_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_tril_triu_match_torch(dtype, shape, diagonal):
    for x in _inputs(shape, dtype):
        parity.run_both(lambda m, x: m.tril(x, diagonal), x)
        parity.run_both(lambda m, x: m.triu(x, diagonal=diagonal), x)
        parity.run_both(lambda m, x: x.tril(diagonal), x)
        parity.run_both(lambda m, x: x.clone().triu_(diagonal), x)
        parity.run_both(lambda m, x: m.tril(x, diagonal, out=m.empty(0, dtype=x.dtype)), x)


def test_attention_mask_as_tutorials_build_it():
    scores = parity.make_tensor((4, 4), "float32")
    parity.run_both(lambda m, s: s.masked_fill(m.triu(m.ones(4, 4), diagonal=1).bool(),
                                               float("-inf")).softmax(-1), scores)
    parity.run_both(lambda m: m.tril(m.ones(3, 3)) == 0)


def test_triangle_argument_errors():
    x = parity.make_tensor((2, 3), "float32")
    for bad in (1.5, "a", None):
        parity.run_both(lambda m, x, bad: m.tril(x, bad), x, bad)
    parity.run_both(lambda m: m.tril([[1.0]]))


# ====================================================================== diagonals
@pytest.mark.parametrize("args", [(), (1,), (-1,), (0, 1, 0), (2, 0, 2), (-1, -1, 0),
                                  (7,), (-7,), (0, 1, 1), (0, 0, 3)], ids=str)
@pytest.mark.parametrize("shape", MATRIX_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32"])
def test_diagonal_is_torch_view(dtype, shape, args):
    for x in _inputs(shape, dtype):
        parity.run_both(lambda m, x: m.diagonal(x, *args), x, check_sharing=True)
        parity.run_both(lambda m, x: x.diagonal(*args), x, check_sharing=True)


def test_diagonal_keywords_and_writes_through():
    parity.run_both(lambda m, x: m.diagonal(x, dim1=1, dim2=2, offset=1),
                    parity.make_tensor((2, 3, 4), "float32"), check_sharing=True)

    def write(m, x):
        x.diagonal().fill_(7)
        return x
    parity.run_both(write, parity.make_tensor((3, 4), "int32"))


@pytest.mark.parametrize("diagonal", [0, 2, -1, -4])
@pytest.mark.parametrize("shape", MATRIX_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_diag_and_diagflat_match_torch(dtype, shape, diagonal):
    for x in _inputs(shape, dtype):
        parity.run_both(lambda m, x: m.diag(x, diagonal), x)
        parity.run_both(lambda m, x: x.diag(diagonal=diagonal), x)
        parity.run_both(lambda m, x: m.diag(x, diagonal, out=m.empty(0, dtype=x.dtype)), x)
        parity.run_both(lambda m, x: m.diagflat(x, diagonal), x)
        parity.run_both(lambda m, x: x.diagflat(offset=diagonal), x)


# ====================================================================== flips
@pytest.mark.parametrize("shape", MATRIX_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_fliplr_flipud(dtype, shape):
    for x in _inputs(shape, dtype):
        parity.run_both(lambda m, x: m.fliplr(x), x)
        parity.run_both(lambda m, x: x.flipud(), x)


# ====================================================================== unfold
@pytest.mark.parametrize("args", [(0, 1, 1), (0, 2, 1), (-1, 2, 2), (1, 3, 1), (1, 0, 1),
                                  (0, 5, 1), (0, 1, 0), (0, 1, -1), (3, 1, 1), (0, 2, 3)],
                         ids=str)
@pytest.mark.parametrize("shape", [(), (4,), (3, 4), (2, 3, 4), (0, 3), (4, 0)], ids=str)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float32", "float64"])
def test_unfold_is_torch_view(dtype, shape, args):
    for x in _inputs(shape, dtype):
        parity.run_both(lambda m, x: x.unfold(*args), x, check_sharing=True)


def test_unfold_keywords():
    parity.run_both(lambda m, x: x.unfold(dimension=1, size=2, step=1),
                    parity.make_tensor((2, 5), "float32"), check_sharing=True)


# ====================================================================== masked_select
@pytest.mark.parametrize("shapes", parity.BROADCAST_PAIRS + [((), ()), ((2, 3), (2, 3))],
                         ids=str)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_masked_select(dtype, shapes):
    x = parity.make_tensor(shapes[0], dtype)
    mask = parity.make_tensor(shapes[1], "bool", seed=3)
    parity.run_both(lambda m, x, mask: m.masked_select(x, mask), x, mask)
    parity.run_both(lambda m, x, mask: x.masked_select(mask=mask), x, mask)
    parity.run_both(lambda m, x, mask: m.masked_select(x, mask, out=m.empty(0, dtype=x.dtype)),
                    x, mask)


def test_masked_select_errors():
    x = parity.make_tensor((2, 3), "float32")
    parity.run_both(lambda m, x: m.masked_select(x, m.ones(2, 3)), x)
    parity.run_both(lambda m, x: m.masked_select(x, m.ones(4, dtype=m.bool)), x)
    parity.run_both(lambda m, x: m.masked_select(x, 1), x)


# ====================================================================== index_add / index_copy
INDEX_CASES = [((3, 4), 0, [0, 2], (2, 4)), ((3, 4), 1, [3, 0, 3], (3, 3)),
               ((3, 4), -1, [1], (3, 1)), ((5,), 0, [4, 4, 0], (3,)),
               ((2, 3, 2), 1, [2, 0], (2, 2, 2)),
               ((3, 4), 0, [], (0, 4)), ((), 0, [0], ()), ((), 0, [0], (1,))]


@pytest.mark.parametrize("case", INDEX_CASES, ids=str)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_index_add_and_copy(dtype, case):
    shape, dim, index, source_shape = case
    x, source = parity.make_tensor(shape, dtype), parity.make_tensor(source_shape, dtype, 5)
    index = engine.tensor(index, dtype=engine.int64)
    for fn in (lambda m, x, i, s: m.index_add(x, dim, i, s),
               lambda m, x, i, s: x.index_add(dim, i, s, alpha=2 if dtype != "bool" else True),
               lambda m, x, i, s: x.clone().index_add_(dim, i, s),
               lambda m, x, i, s: m.index_copy(x, dim, i, s),
               lambda m, x, i, s: x.clone().index_copy_(dim, i, s),
               lambda m, x, i, s: m.index_add(x, dim, i, s, out=m.empty(0, dtype=x.dtype))):
        parity.run_both(fn, x, index, source)


@pytest.mark.parametrize("case", [
    ((3, 4), 0, [0, 3], (2, 4), "int64"), ((3, 4), 0, [0, -1], (2, 4), "int64"),
    ((3, 4), 0, [0, 1], (3, 4), "int64"), ((3, 4), 0, [0, 1], (2, 3), "int64"),
    ((3, 4), 0, [[0, 1]], (2, 4), "int64"), ((3, 4), 0, [0, 1], (2, 4), "float32"),
    ((3, 4), 2, [0, 1], (2, 4), "int64"), ((3, 4), 0, [0, 1], (2, 4), "int32")], ids=str)
def test_index_add_and_copy_errors(case):
    shape, dim, index, source_shape, index_dtype = case
    x, source = parity.make_tensor(shape, "float32"), parity.make_tensor(source_shape, "float32")
    index = engine.tensor(index, dtype=getattr(engine, index_dtype))
    parity.run_both(lambda m, x, i, s: m.index_add(x, dim, i, s), x, index, source)
    parity.run_both(lambda m, x, i, s: m.index_copy(x, dim, i, s), x, index, source)
    parity.run_both(lambda m, x, i, s: m.index_add(x, dim, i, s.double()), x, index, source)


# ====================================================================== tensor_split, argwhere
@pytest.mark.parametrize("split", [1, 2, 3, 5, [1, 2], [0], [2, 1], [-1], (1, 10), [], 0],
                         ids=str)
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("shape", [(), (4,), (3, 5), (0, 2)], ids=str)
def test_tensor_split(shape, split, dim):
    for x in _inputs(shape, "float32"):
        parity.run_both(lambda m, x: m.tensor_split(x, split, dim), x, check_sharing=True)
        parity.run_both(lambda m, x: x.tensor_split(split, dim=dim), x, check_sharing=True)


@pytest.mark.parametrize("shape", parity.SHAPES, ids=str)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_argwhere(dtype, shape):
    for x in _inputs(shape, dtype):
        parity.run_both(lambda m, x: m.argwhere(x), x)
        parity.run_both(lambda m, x: x.argwhere(), x)


# ====================================================================== autograd
GRADIENTS = {
    "tril": ((3, 4), lambda m, x: m.tril(x, 1)),
    "triu_batched": ((2, 3, 3), lambda m, x: x.triu(-1)),
    "triu_": ((3, 4), lambda m, x: (x * 1).triu_()),
    "diagonal": ((3, 4), lambda m, x: x.diagonal(1)),
    "diagonal_dims": ((2, 3, 4), lambda m, x: m.diagonal(x, -1, 2, 0)),
    "diag_vector": ((3,), lambda m, x: m.diag(x, -1)),
    "diag_matrix": ((3, 4), lambda m, x: m.diag(x, 1)),
    "diagflat": ((2, 2), lambda m, x: m.diagflat(x)),
    "unfold": ((3, 5), lambda m, x: x.unfold(1, 3, 1)),
    "unfold_gaps": ((7,), lambda m, x: x.unfold(0, 2, 3)),
    "masked_select": ((2, 3), lambda m, x: m.masked_select(x, m.tensor([True, False, True]))),
    "masked_select_broadcast": ((3,), lambda m, x: x.masked_select(
        m.tensor([[True, False, True], [False, True, True]]))),
    "fliplr": ((2, 3), lambda m, x: m.fliplr(x)),
    "tensor_split": ((5, 2), lambda m, x: m.tensor_split(x, 3)[1]),
}


@pytest.mark.parametrize("name", list(GRADIENTS))
def test_gradients_match_torch(name):
    shape, fn = GRADIENTS[name]
    values = np.random.default_rng(1).standard_normal(shape)
    inputs = _compare(fn, [values])
    _check_gradients(fn, inputs)


@pytest.mark.parametrize("alpha", [1, -2.5])
def test_index_add_gradients(alpha):
    def fn(m, x, s):
        return m.index_add(x, 1, m.tensor([2, 0, 2]), s, alpha=alpha)
    rng = np.random.default_rng(2)
    inputs = _compare(fn, [rng.standard_normal((2, 3)), rng.standard_normal((2, 3))])
    _check_gradients(fn, inputs)


def test_index_copy_gradients():
    def fn(m, x, s):
        return x.index_copy(0, m.tensor([2, 0]), s)
    rng = np.random.default_rng(3)
    inputs = _compare(fn, [rng.standard_normal((3, 2)), rng.standard_normal((2, 2))])
    _check_gradients(fn, inputs)


def test_forward_mode_through_views():
    for op in (lambda m, x: x.diagonal(), lambda m, x: x.unfold(0, 2, 1),
               lambda m, x: m.tril(x)):
        results = []
        for m in (torch, engine):
            primal, tangent = m.arange(9.).reshape(3, 3), m.ones(3, 3)
            with m.autograd.forward_ad.dual_level():
                out = op(m, m.autograd.forward_ad.make_dual(primal, tangent))
                results.append(m.autograd.forward_ad.unpack_dual(out).tangent.tolist())
        assert results[0] == results[1]


@pytest.mark.parametrize("name", ["tril", "triu", "diagonal", "diag", "diagflat",
                                  "masked_select", "index_add", "index_copy", "tensor_split",
                                  "argwhere", "fliplr", "flipud"])
def test_functions_and_methods_exist_as_in_torch(name):
    assert hasattr(engine, name) and hasattr(engine.Tensor, name)
    for suffix in ("_",):
        assert hasattr(engine.Tensor, name + suffix) == hasattr(torch.Tensor, name + suffix)


def test_unfold_is_a_method_only():
    assert hasattr(engine.Tensor, "unfold") and not hasattr(engine, "unfold")
    assert list(itertools.chain()) == []


@pytest.mark.parametrize("alpha", [0.1, -2.5, 3])
@pytest.mark.parametrize("shape", [(40,), (5, 40), (40, 5)], ids=str)
@pytest.mark.parametrize("dtype", parity.FLOAT_DTYPES + ["int32"])
def test_index_add_rounds_alpha_times_source_like_torch(dtype, shape, alpha):
    x, source = parity.make_tensor(shape, dtype, 1), parity.make_tensor(shape, dtype, 2)
    index = engine.tensor(np.random.default_rng(0).permutation(shape[0]), dtype=engine.int64)
    parity.run_both(lambda m, x, i, s: m.index_add(x, 0, i, s, alpha=alpha), x, index, source)
    parity.run_both(lambda m, x, i, s: m.index_add(x.t(), -1, i, s.t(), alpha=alpha).t(),
                    x, index, source)


# ====================================================================== inverse hyperbolics
HYPERBOLIC = {"asinh": (-3.0, 3.0), "acosh": (0.5, 4.0), "atanh": (-1.2, 1.2)}


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh"])
@pytest.mark.parametrize("shape", parity.SHAPES, ids=str)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_inverse_hyperbolic_functions(dtype, shape, name):
    low, high = HYPERBOLIC[name.replace("arc", "a")]
    x = parity.make_tensor(shape, dtype, low=low, high=high)
    # torch's float32/float64 atanh is SLEEF's: up to 2 ulp from numpy's (README, "Where values
    # can differ"); float16 through float32 and the others are torch's bits
    exact = not (name in ("atanh", "arctanh") and dtype in ("float32", "float64"))
    parity.run_both(lambda m, x: getattr(m, name)(x), x, exact=exact)
    parity.run_both(lambda m, x: getattr(x, name)(), x, exact=exact)
    parity.run_both(lambda m, x: getattr(m, name)(x, out=m.empty(0, dtype=m.float64)), x,
                    exact=exact)
    parity.run_both(lambda m, x: getattr(x.clone(), name + "_")(), x, exact=exact)
    parity.run_both(lambda m, x: getattr(m, name + "_")(x.clone()), x, exact=exact)


def test_every_float16_value_of_the_inverse_hyperbolics():
    every = np.arange(65536, dtype=np.uint16).view(np.float16)
    for name in ("asinh", "acosh", "atanh"):
        parity.run_both(lambda m, x, name: getattr(m, name)(x), every, name, check_repr=False)


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh"])
def test_inverse_hyperbolic_gradients(name):
    values = {"asinh": [-2.0, -0.3, 0.0, 1.5], "acosh": [1.2, 2.0, 3.5],
              "atanh": [-0.7, 0.0, 0.4, 0.9]}[name]

    def fn(m, x):
        return getattr(m, name)(x)
    inputs = _compare(fn, [np.array(values)])
    _check_gradients(fn, inputs)


# ====================================================================== addmv, addr, (b)addbmm
PRODUCTS = {  # name: (input shapes, first, second)
    "addmv": ([(2,), (), (1,)], (2, 3), (3,)),
    "addr": ([(2, 3), (), (3,), (2, 1)], (2,), (3,)),
    "addbmm": ([(2, 5), (), (5,)], (4, 2, 3), (4, 3, 5)),
    "baddbmm": ([(4, 2, 5), (2, 5), ()], (4, 2, 3), (4, 3, 5)),
}
SCALES = [{}, {"beta": 0}, {"alpha": 2, "beta": 3}, {"alpha": 0.5, "beta": -1.5}]


@pytest.mark.parametrize("scales", SCALES, ids=str)
@pytest.mark.parametrize("name", list(PRODUCTS))
@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float16", "float32", "float64"])
def test_scaled_products(dtype, name, scales):
    shapes, first, second = PRODUCTS[name]
    # matrix products add in numpy's order; addr's fused scaling is not replayed
    # (README, "Where values can differ"); float16 rounds once as torch
    exact = dtype not in parity.FLOAT_DTYPES or (dtype == "float16" and name != "addr") or (
        name == "addr" and scales in ({}, {"beta": 0}))
    for shape in shapes:
        x = parity.make_tensor(shape, dtype, 1, low=-2, high=2)
        a = parity.make_tensor(first, dtype, 2, low=-2, high=2)
        b = parity.make_tensor(second, dtype, 3, low=-2, high=2)
        parity.run_both(lambda m, x, a, b: getattr(m, name)(x, a, b, **scales), x, a, b,
                        exact=exact)
        parity.run_both(lambda m, x, a, b: getattr(x, name)(a, b, **scales), x, a, b,
                        exact=exact)
        parity.run_both(lambda m, x, a, b: getattr(m, name)(x, a, b, out=m.empty(0, dtype=x.dtype),
                                                            **scales), x, a, b, exact=exact)
        if shape == shapes[0]:
            parity.run_both(lambda m, x, a, b: getattr(x.clone(), name + "_")(a, b, **scales),
                            x, a, b, exact=exact)


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_scaled_products_wrap_negative_scales_into_unsigned(name):
    shapes, first, second = PRODUCTS[name]
    x, a, b = (parity.make_tensor(s, "uint8", i) for i, s in enumerate((shapes[0], first, second)))
    parity.run_both(lambda m, x, a, b: getattr(m, name)(x, a, b, alpha=-1, beta=-3), x, a, b)


def test_scaled_products_beta_zero_ignores_nan():
    for name, (shapes, first, second) in PRODUCTS.items():
        x = engine.full(shapes[0], float("nan"))
        a, b = parity.make_tensor(first, "float64", 2), parity.make_tensor(second, "float64", 3)
        parity.run_both(lambda m, x, a, b, name: getattr(m, name)(x, a, b, beta=0), x, a, b,
                        name, exact=False)


@pytest.mark.parametrize("case", [
    ("addmv", (3,), (2, 3), (3,)), ("addmv", (2,), (2, 3), (4,)), ("addmv", (2,), (3,), (3,)),
    ("addmv", (1, 2), (2, 3), (3,)), ("addr", (3, 2), (2,), (3,)), ("addr", (2, 3), (2, 3), (3,)),
    ("addbmm", (3, 5), (4, 2, 3), (4, 3, 5)), ("addbmm", (2, 5), (4, 2, 3), (4, 2, 3)),
    ("addbmm", (2, 5), (2, 3), (4, 3, 5)), ("addbmm", (2, 5), (4, 2, 3), (3, 3, 5)),
    ("baddbmm", (3, 5), (4, 2, 3), (4, 3, 5)), ("baddbmm", (4, 2, 5), (4, 2, 3), (4, 2, 3)),
    ("baddbmm", (4, 2, 5), (2, 3), (4, 3, 5)), ("baddbmm", (4, 2, 5), (4, 2, 3), (3, 3, 5))],
    ids=str)
def test_scaled_product_errors(case):
    name, *shapes = case
    x, a, b = (parity.make_tensor(s, "float32", i) for i, s in enumerate(shapes))
    parity.run_both(lambda m, x, a, b: getattr(m, name)(x, a, b), x, a, b)
    parity.run_both(lambda m, x, a, b: getattr(m, name)(x, a, b.double()), x, a, b)
    parity.run_both(lambda m, x, a, b: getattr(m, name)(x.double(), a, b), x, a, b)
    parity.run_both(lambda m, x, a, b: getattr(m, name)(x.long(), a.long(), b.long(), beta=0.5),
                    x, a, b)


@pytest.mark.parametrize("scales", SCALES, ids=str)
@pytest.mark.parametrize("name", list(PRODUCTS))
def test_scaled_product_gradients(name, scales):
    shapes, first, second = PRODUCTS[name]
    rng = np.random.default_rng(4)
    for shape in shapes:
        def fn(m, x, a, b):
            return getattr(m, name)(x, a, b, **scales)
        arrays = [rng.standard_normal(s) for s in (shape, first, second)]
        inputs = _compare(fn, arrays)
        _check_gradients(fn, inputs)


ARGUMENT_MISTAKES = [
    lambda m: m.diagonal(m.ones(2, 3), 1.5), lambda m: m.ones(3, 4).unfold(0, 2.0, 1),
    lambda m: m.masked_select(m.ones(2), None), lambda m: m.tensor_split(m.ones(4), 1.5),
    lambda m: m.tril("a"), lambda m: m.index_add(m.ones(3), 0.5, m.tensor([0]), m.ones(1)),
    lambda m: m.diag(None), lambda m: m.diag(m.ones(3), 1.5), lambda m: m.diagflat(m.ones(3), 1.5),
    lambda m: m.argwhere([1]), lambda m: m.fliplr(None), lambda m: m.ones(3).unfold(1, 1, 1),
    lambda m: m.tensor_split(m.ones(3), m.tensor([[1]])),
    lambda m: m.tensor_split(m.ones(5), m.tensor(2)),
    lambda m: m.tensor_split(m.ones(5), m.tensor([1, 3])),
    lambda m: m.tensor_split(m.ones(5), m.tensor(2.0)), lambda m: m.ones(2, 3).diagonal(0, 0, 2),
    lambda m: m.diagonal(m.ones(2, 3), offset=1, dim1=1, dim2=0),
    lambda m: m.tril(m.ones(2, 3), diagonal=m.tensor(1)), lambda m: m.atanh(None),
    lambda m: m.addmv(m.ones(2), m.ones(2, 3), m.ones(3), beta=None),
    lambda m: m.addmv(None, m.ones(2, 3), m.ones(3)),
    lambda m: m.addr(m.ones(2, 3), None, m.ones(3)),
    lambda m: m.ones(2, 2).tril_(m.tensor(0)), lambda m: m.triu(m.ones(2, 2), 1, 2),
    lambda m: m.ones(3, 3).index_copy(0, m.tensor([0, 0]), m.arange(6.0).reshape(2, 3)),
    lambda m: m.ones(3).index_add_(0, m.tensor([0]), m.ones(1, requires_grad=True)),
    lambda m: m.tensor_split(m.ones(5), sections=2),
    lambda m: m.tensor_split(m.ones(5), [1], dim=0),
    lambda m: m.ones(2, 3).tensor_split(indices=[1]),
]


@pytest.mark.parametrize("case", range(len(ARGUMENT_MISTAKES)))
def test_argument_mistakes_as_torch(case):
    parity.run_both(ARGUMENT_MISTAKES[case])


@pytest.mark.parametrize("name", ["asinh_", "acosh_", "atanh_", "arcsinh_", "arccosh_",
                                  "arctanh_"])
def test_in_place_inverse_hyperbolics_record_torchs_underivable_node(name):
    def backward_through(m):
        leaf = m.tensor([0.5, 2.0], requires_grad=True)
        x = leaf.clone()
        getattr(x, name)()
        assert x.grad_fn.name() == name.replace("arc", "a")[:-1].capitalize() + "Backward1"
        x.sum().backward()
    parity.run_both(backward_through)


def test_in_place_ops_with_gradients_through_them():
    def run(m, op):
        a = m.tensor(np.arange(12.0).reshape(3, 4) / 7, requires_grad=True)
        s = m.tensor(np.ones((2, 4)) / 3, requires_grad=True)
        x = a.clone()
        op(m, x, s)
        (x * m.arange(12.0).reshape(3, 4)).sum().backward()
        return x.grad_fn.name(), a.grad, s.grad
    for op in (lambda m, x, s: x.tril_(1), lambda m, x, s: x.triu_(-1),
               lambda m, x, s: x.index_add_(0, m.tensor([2, 0]), s, alpha=3),
               lambda m, x, s: x.index_copy_(0, m.tensor([2, 0]), s),
               lambda m, x, s: x.unfold(1, 2, 1).mul_(2), lambda m, x, s: x.diagonal().mul_(3),
               lambda m, x, s: x.addr_(m.ones(3), m.ones(4), beta=2),
               lambda m, x, s: x.tensor_split(2, 1)[1].mul_(2)):
        parity.run_both(run, op)


VMAPPED = {"tril": lambda m, x: m.tril(x, 1), "diagonal": lambda m, x: x.diagonal(),
           "diag": lambda m, x: m.diag(x), "unfold": lambda m, x: x.unfold(1, 2, 1),
           "index_add": lambda m, x: m.index_add(x, 0, m.tensor([1]), x[:1]),
           "asinh": lambda m, x: m.asinh(x), "addmv": lambda m, x: m.addmv(x[0], x, x[1]),
           "fliplr": lambda m, x: m.fliplr(x),
           "masked_select": lambda m, x: m.masked_select(x, m.tensor([True, False, True])),
           "batched mask": lambda m, x: m.masked_select(x, x > 0),
           "batched mask (method)": lambda m, x: x.masked_select(x > 0)}


@pytest.mark.parametrize("name", list(VMAPPED))
def test_vmap_over_structure_ops(name):
    values = np.arange(18.0).reshape(2, 3, 3) / 10 - 0.5
    parity.run_both(lambda m, x: m.func.vmap(lambda s: VMAPPED[name](m, s))(x), values,
                    exact=name != "addmv")
