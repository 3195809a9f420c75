"""Issue 25's errors, check order, layouts and counters, against torch 2.15.

Each family runs many variants of one mechanism (several wrong things at once, every
non-contiguous layout, every op that writes its result in place) rather than the single
repro the issue names.
"""
import itertools

import numpy
import subprocess
import sys
import warnings

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch


def _ones(m, shape, dtype="float32"):
    return m.ones(shape, dtype=getattr(m, dtype))


# ---------------------------------------------------------------- the order of checks
# Two or more wrong things at once: the error torch names first is the one it checks first.
CHECK_ORDER = {
    "mv of a 0-d matrix": lambda m: m.mv(m.tensor(1.75), m.ones(2)),
    "topk dim out of range on 0-d": lambda m: m.tensor(-1).topk(2, dim=1),
    "topk bool, k too large": lambda m: m.tensor([True, False]).topk(3),
    "topk bool": lambda m: m.tensor([True, False]).topk(1),
    "topk float k": lambda m: m.ones(3).topk(1.0),
    "topk bool k": lambda m: m.ones(3).topk(True),
    "sort of 0-d, dim 2": lambda m: m.tensor(1.).sort(2),
    "addmm bool, wrong shapes": lambda m: m.addmm(_ones(m, (2, 2), "bool"),
                                                  _ones(m, (2, 3), "bool"),
                                                  _ones(m, (2, 2), "bool")),
    "addmm bool": lambda m: m.addmm(_ones(m, (2, 2), "bool"), _ones(m, (2, 3), "bool"),
                                    _ones(m, (3, 2), "bool")),
    "addmm bool, inner size 0": lambda m: m.addmm(_ones(m, (2, 2), "bool"),
                                                  _ones(m, (2, 0), "bool"),
                                                  _ones(m, (0, 2), "bool")),
    "addmm dtypes and dims": lambda m: m.addmm(m.ones(2, 2), _ones(m, (2, 3, 1), "int64"),
                                               m.ones(3, 2)),
    "addmm bias does not broadcast, bool": lambda m: m.addmm(
        _ones(m, (3, 2), "bool"), _ones(m, (2, 3), "bool"), _ones(m, (3, 2), "bool")),
    "addmm int, inner size 0, float beta": lambda m: m.addmm(
        _ones(m, (2, 2), "int64"), _ones(m, (2, 0), "int64"), _ones(m, (0, 2), "int64"),
        beta=0.5),
    "addmm int, inner size 0": lambda m: m.addmm(
        m.arange(2).reshape(2, 1), _ones(m, (2, 0), "int64"), _ones(m, (0, 2), "int64"),
        beta=3),
    "float ^, wrong shapes": lambda m: m.ones(2) ^ m.ones(3),
    "float |": lambda m: m.ones(2) | m.ones(2),
    "float &, wrong shapes": lambda m: m.bitwise_and(m.ones(2, 2), m.ones(3)),
    "neg_ of an expanded bool": lambda m: m.tensor([True]).expand(3).neg_(),
    "mul_ of an expanded tensor, wrong shapes": lambda m: m.zeros(3).expand(2, 3).mul_(
        m.ones(4)),
    "copy_ into an expanded tensor": lambda m: m.zeros(3).expand(2, 3).copy_(m.ones(2, 3)),
    "copy_ into an expanded tensor, wrong shapes": lambda m: m.zeros(3).expand(2, 3).copy_(
        m.ones(4)),
    "flip a dim twice": lambda m: m.ones(2, 3).flip(0, 0),
    "flip a dim out of range after a repeat": lambda m: m.ones(2, 3).flip(0, 5),
    "uniform_ of ints": lambda m: m.zeros(3, dtype=m.int64).uniform_(),
    "uniform_ from > to": lambda m: m.zeros(3).uniform_(2, 1),
    "uniform_ of an expanded tensor": lambda m: m.zeros(3).expand(2, 3).uniform_(),
    "normal_ of ints": lambda m: m.zeros(3, dtype=m.int64).normal_(),
    "normal_ of no int": lambda m: m.zeros(0, dtype=m.int64).normal_(),
    "exponential_ lambda < 0": lambda m: m.zeros(3).exponential_(-1),
    "exponential_ of ints": lambda m: m.zeros(3, dtype=m.int64).exponential_(),
    "bernoulli_ p > 1": lambda m: m.zeros(3).bernoulli_(2.0),
    "cumsum of no bools": lambda m: m.ones(0, dtype=m.bool).cumsum(0, dtype=m.bool),
    "vector_norm to float16": lambda m: m.linalg.vector_norm(m.ones(2), dtype=m.float16),
    "vector_norm to int64": lambda m: m.linalg.vector_norm(m.ones(2), dtype=m.int64),
    "vector_norm of ints": lambda m: m.linalg.vector_norm(_ones(m, 2, "int64")),
    "argmax of bools, a bool dim": lambda m: m.ones(2, 3, dtype=m.bool).argmax(True),
    "argmax of bools, a tuple dim": lambda m: m.argmax(m.ones(2, 3, dtype=m.bool), (0,)),
    "amax of nothing, a repeated dim": lambda m: m.ones(0, 3).amax((0, 0)),
    "amax of nothing, then out of range": lambda m: m.ones(2, 0).amax((1, 5)),
    "log_softmax of no bools": lambda m: m.ones(2, 0, dtype=m.bool).log_softmax(1),
    "logsumexp over ()": lambda m: m.ones(2, 3).logsumexp(()),
    "logsumexp over () of nothing": lambda m: m.ones(2, 0).logsumexp([]),
    "unique of a 0-d tensor, dim 0": lambda m: m.tensor(1.).unique(dim=0),
    "unique of a 0-d tensor, dim -3": lambda m: m.tensor(1).unique(dim=-3),
    "unique, a tuple dim": lambda m: m.ones(3).unique(dim=(0,)),
    "unique, a bool dim": lambda m: m.ones(3).unique(dim=True),
    "torch.unique, a float dim": lambda m: m.unique(m.ones(3), dim=1.0),
    "unique_consecutive of a 0-d tensor": lambda m: m.tensor(1.).unique_consecutive(dim=0),
    "unique_consecutive, a tuple dim": lambda m: m.ones(3).unique_consecutive(dim=()),
    "unique_consecutive, a positional bool dim": lambda m: m.unique_consecutive(
        m.ones(3), False, False, True),
}


@pytest.mark.parametrize("name", list(CHECK_ORDER))
def test_checks_come_in_torchs_order(name):
    parity.run_both(CHECK_ORDER[name], check_inputs=False)


MATRIX_PRODUCTS = {
    "mm": lambda m, a, b: m.mm(a, b),
    "matmul": lambda m, a, b: m.matmul(a, b),
    "bmm": lambda m, a, b: m.bmm(a[None], b[None]),
    "mv": lambda m, a, b: m.mv(a, b[:, 0]),
}
EMPTY_OPERANDS = [((2, 0), (0, 3)), ((0, 2), (2, 3)), ((2, 2), (2, 0)), ((0, 2), (2, 0))]


@pytest.mark.parametrize("op", list(MATRIX_PRODUCTS))
@pytest.mark.parametrize("shapes", EMPTY_OPERANDS, ids=str)
@pytest.mark.parametrize("dtypes", [("bool", "bool"), ("float32", "float64"),
                                    ("int64", "int64")], ids=str)
def test_matrix_products_with_nothing_to_multiply(op, shapes, dtypes):
    """torch's kernels never run then: bool and mixed dtypes give an empty (or zero) result."""
    parity.run_both(lambda m: MATRIX_PRODUCTS[op](m, _ones(m, shapes[0], dtypes[0]),
                                                  _ones(m, shapes[1], dtypes[1])))


PRODUCT_SHAPES = [(), (3,), (2, 3), (3, 2), (2, 2, 3), (0, 3), (3, 0)]
PRODUCT_DTYPES = [("float32", "float32"), ("float32", "int64"), ("bool", "bool"),
                  ("int64", "float64")]
TWO_OPERAND_OPS = {
    "mm": lambda m, a, b: m.mm(a, b), "mv": lambda m, a, b: m.mv(a, b),
    "bmm": lambda m, a, b: m.bmm(a, b), "matmul": lambda m, a, b: m.matmul(a, b),
    "dot": lambda m, a, b: m.dot(a, b), "outer": lambda m, a, b: m.outer(a, b),
    "addmm": lambda m, a, b: m.addmm(m.ones(2, 2, dtype=a.dtype), a, b),
    "inner": lambda m, a, b: m.inner(a, b), "^": lambda m, a, b: a ^ b,
    "bitwise_and": lambda m, a, b: m.bitwise_and(a, b),
    "linalg.cross": lambda m, a, b: m.linalg.cross(a, b),
}


@pytest.mark.parametrize("op", list(TWO_OPERAND_OPS))
def test_two_wrong_things_at_once(op):
    """Every pair of shapes (wrong dimensions, sizes, empty) with every pair of dtypes
    (different, bool): the error torch names first, or its result."""
    for (sa, sb), (da, db) in itertools.product(itertools.product(PRODUCT_SHAPES, repeat=2),
                                                PRODUCT_DTYPES):
        parity.run_both(TWO_OPERAND_OPS[op], engine.ones(sa, dtype=getattr(engine, da)),
                        engine.ones(sb, dtype=getattr(engine, db)), exact=False)


REDUCTION_SHAPES = [(), (3,), (2, 3), (0,), (2, 0), (0, 3)]
REDUCTION_DIMS = [None, 0, 1, -3, 2, (0, 1), (0, 0), (), (1, 5)]
REDUCTIONS = {
    "sum": lambda x, d: x.sum() if d is None else x.sum(d),
    "mean": lambda x, d: x.mean() if d is None else x.mean(d),
    "std": lambda x, d: x.std(d), "var keepdim": lambda x, d: x.var(d, keepdim=True),
    "prod": lambda x, d: x.prod() if d is None else x.prod(d),
    "max": lambda x, d: x.max() if d is None else x.max(d),
    "argmax": lambda x, d: x.argmax(d),
    "amax": lambda x, d: x.amax(() if d is None else d),
    "logsumexp": lambda x, d: x.logsumexp(() if d is None else d),
    "logsumexp keepdim": lambda x, d: x.logsumexp(() if d is None else d, True),
    "softmax": lambda x, d: x.softmax(d), "log_softmax": lambda x, d: x.log_softmax(d),
    "cumsum": lambda x, d: x.cumsum(d), "cumprod": lambda x, d: x.cumprod(d),
    "topk": lambda x, d: x.topk(2, -1 if d is None else d),
    "sort": lambda x, d: x.sort(-1 if d is None else d),
    "argsort": lambda x, d: x.argsort(-1 if d is None else d),
    "norm": lambda x, d: x.norm(dim=d),
    "all": lambda x, d: x.all() if d is None else x.all(d),
    "count_nonzero": lambda x, d: x.count_nonzero(d), "nansum": lambda x, d: x.nansum(d),
    "flip": lambda x, d: x.flip(() if d is None else d),
}


@pytest.mark.parametrize("op", list(REDUCTIONS))
def test_reductions_with_wrong_dims_and_dtypes(op):
    """Every dim (none, in range, out of range, repeated, a list) on 0-d, empty and other
    shapes of five dtypes: torch's first error (the dim, its size, the dtype) or its result."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for shape, dtype, dim in itertools.product(REDUCTION_SHAPES, parity.DTYPES[:3] + [
                "float16", "float32"], REDUCTION_DIMS):
            parity.run_both(lambda m, x: REDUCTIONS[op](x, dim), engine.ones(  # noqa: B023
                shape, dtype=getattr(engine, dtype)), exact=False)


INNER_PRODUCTS = {
    "inner of matrices": lambda m: m.inner(m.arange(6.).reshape(2, 3),
                                           m.arange(9.).reshape(3, 3)),
    "inner over a size 1": lambda m: m.inner(m.arange(2.).reshape(2, 1),
                                             m.arange(3.).reshape(3, 1)),
    "inner of vectors": lambda m: m.inner(m.arange(3.), m.arange(3.)),
    "inner, number": lambda m: m.inner(m.tensor(2.), m.arange(3.)),
    "inner, wrong sizes": lambda m: m.inner(m.ones(2, 3), m.ones(2)),
    "inner, dtypes": lambda m: m.inner(m.ones(3), m.ones(3, dtype=m.float64)),
    "inner, gradient": lambda m: m.inner(m.ones(2, 3, requires_grad=True), m.ones(4, 3)),
    "vdot": lambda m: m.vdot(m.ones(3, requires_grad=True), m.ones(3)),
}


@pytest.mark.parametrize("name", list(INNER_PRODUCTS))
def test_inner_and_vdot(name):
    parity.run_both(INNER_PRODUCTS[name], exact=False)


# ---------------------------------------------------------------- result layouts
LAYOUTS = {
    "transposed": lambda m: m.arange(24.).reshape(2, 3, 4).permute(2, 0, 1),
    "sliced": lambda m: m.arange(48.).reshape(4, 3, 4)[::2, :, 1:],
    "channels-last": lambda m: m.arange(24.).reshape(1, 2, 3, 4).contiguous(
        memory_format=m.channels_last)[0],
    "expanded": lambda m: m.arange(4.).expand(2, 3, 4),
}
LAYOUT_OPS = {
    "sort": lambda x: x.sort(1), "sort(-1)": lambda x: x.sort(),
    "argsort": lambda x: x.argsort(0), "sort descending": lambda x: x.sort(1, True),
    "max(dim)": lambda x: x.max(1), "min(dim, keepdim)": lambda x: x.min(1, keepdim=True),
    "argmax(dim)": lambda x: x.argmax(2), "amax": lambda x: x.amax((0, 2)),
    "sum(dim)": lambda x: x.sum(1), "sum(dim, keepdim)": lambda x: x.sum(1, keepdim=True),
    "mean(dim)": lambda x: x.mean(0), "prod(dim)": lambda x: x.prod(2),
    "std(dim)": lambda x: x.std(1), "var(dim, keepdim)": lambda x: x.var(2, keepdim=True),
    "norm(dim)": lambda x: x.norm(dim=1), "logsumexp": lambda x: x.logsumexp(1),
    "any(dim)": lambda x: x.any(1), "count_nonzero": lambda x: x.count_nonzero(0),
    "repeat": lambda x: x.repeat(1, 2, 1), "sigmoid": lambda x: x.sigmoid(),
    "index_fill": lambda x: x.index_fill(1, x.new_ones(1).long(), 2.0),
}


@pytest.mark.parametrize("op", list(LAYOUT_OPS))
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_result_layouts_of_non_contiguous_inputs(op, layout):
    parity.run_both(lambda m: LAYOUT_OPS[op](LAYOUTS[layout](m)), exact=False)


def test_one_hot_is_row_major():
    parity.run_both(lambda m: m.nn.functional.one_hot(m.tensor([[0, 2], [1, 1]]).t()))


# ---------------------------------------------------------------- version counters
VERSIONS = {  # results torch finishes in place (squeeze_, |=, scatter_)
    "vector @ matrix": lambda m: m.ones(3) @ m.ones(3, 2),
    "matrix @ matrix": lambda m: m.ones(2, 3) @ m.ones(3, 2),
    "matrix @ vector": lambda m: m.ones(2, 3) @ m.ones(3),
    "isclose": lambda m: m.isclose(m.ones(3), m.ones(3)),
    "isclose equal_nan": lambda m: m.isclose(m.ones(3), m.ones(3), equal_nan=True),
    "isclose of ints": lambda m: m.isclose(m.arange(3), m.arange(3)),
    "isclose, no tolerance": lambda m: m.isclose(m.ones(3), m.ones(3), rtol=0, atol=0),
    "one_hot": lambda m: m.nn.functional.one_hot(m.tensor([0, 2])),
    "one_hot of nothing": lambda m: m.nn.functional.one_hot(m.zeros(0, dtype=m.int64), 3),
}


@pytest.mark.parametrize("name", list(VERSIONS))
def test_versions_of_results_made_in_place(name):
    parity.run_both(lambda m: (VERSIONS[name](m), VERSIONS[name](m)._version))


# ---------------------------------------------------------------- float overflow in reductions
OVERFLOW = {
    "std": lambda m: m.tensor([[3e38, -2.75]]).std(),
    "std unbiased=False": lambda m: m.tensor([[3e38, -2.75]]).std(unbiased=False),
    "var": lambda m: m.tensor([[3e38, -2.75]]).var(),
    "var(-1) of one element": lambda m: m.tensor([3e38]).var(-1),
    "var(dim)": lambda m: m.tensor([[3e38, -2.75], [1e20, 3.]]).var(1),
    "std(dim) keepdim": lambda m: m.tensor([[3e38, -2.75], [1e20, 3.]]).std(0, keepdim=True),
    "std float16": lambda m: m.tensor([[60000., -2.75]], dtype=m.float16).std(),
    "var float16 (dim)": lambda m: m.tensor([[60000., -2.75]], dtype=m.float16).var(1),
    "std float64": lambda m: m.tensor([1e300, -1e300], dtype=m.float64).std(),
    "var whose sum overflows": lambda m: m.tensor([3e38, 3e38, 3e38]).var(),
    "norm over dims of one": lambda m: m.tensor([[3e38], [1e-30]]).norm(dim=1),
    "vector_norm over dims of one": lambda m: m.linalg.vector_norm(
        m.tensor([[3e38], [1e-30]]), 3, dim=1, keepdim=True),
    "norm ord 0 over dims of one": lambda m: m.linalg.vector_norm(
        m.tensor([[3e38], [0.]]), 0, dim=1),
}


@pytest.mark.parametrize("name", list(OVERFLOW))
def test_reductions_do_not_overflow_where_torch_does_not(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (var of one element: both warn, tested apart)
        parity.run_both(OVERFLOW[name], exact=False)


# ---------------------------------------------------------------- deprecated overloads
DEPRECATED = {
    "add_": "m.ones(2).add_(2, m.ones(2))",
    "add": "m.add(m.ones(2), 2, m.ones(2))",
    "sub_": "m.ones(2).sub_(2, m.ones(2))",
    "addcmul": "m.ones(2).addcmul(2, m.ones(2), m.arange(2.))",
    "addcdiv_": "m.ones(2).addcdiv_(2, m.ones(2), m.arange(1., 3.))",
    "torch.addcmul": "m.addcmul(m.ones(2), 2, m.ones(2), m.arange(2.))",
}


@pytest.mark.parametrize("name", list(DEPRECATED))
def test_deprecated_scale_first_overloads(name):
    """The scale-first overloads old tutorials use: values, and torch's warning (warned once
    per process: each module runs in a fresh one)."""
    seen = {}
    for module in ("torch", "engine"):
        code = (f"import warnings; import {module} as m\n"
                "with warnings.catch_warnings(record=True) as caught:\n"
                "    warnings.simplefilter('always')\n"
                f"    result = {DEPRECATED[name]}\n"
                "    again = " + DEPRECATED[name] + "\n"
                "print(result.tolist(), [(w.category.__name__, str(w.message)) for w in caught])")
        seen[module] = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                      text=True, check=True).stdout
    assert "deprecated" in seen["torch"]
    assert seen["engine"] == seen["torch"]


DEPRECATED_ERRORS = {
    "both scales": lambda m: m.ones(2).add(2, m.ones(2), alpha=3),
    "a tensor scale": lambda m: m.ones(2).add(m.ones(2), m.ones(2)),
    "addcmul both scales": lambda m: m.addcmul(m.ones(2), 2, m.ones(2), m.ones(2), value=2),
    "addcmul method, both scales": lambda m: m.ones(2).addcmul(2, m.ones(2), m.ones(2),
                                                                value=2),
    "addcdiv_ both scales": lambda m: m.ones(2).addcdiv_(2, m.ones(2), m.ones(2), value=3),
    "torch.add both scales": lambda m: m.add(m.ones(2), 2, m.ones(2), alpha=2),
    "torch.addcmul, a tensor scale": lambda m: m.addcmul(m.ones(2), m.ones(2), m.ones(2),
                                                         m.ones(2)),
    "addcmul, a tensor scale": lambda m: m.ones(2).addcmul(m.ones(2), m.ones(2), m.ones(2)),
    "add_, a tensor scale": lambda m: m.ones(2).add_(m.ones(2), m.ones(2)),
    # a 0-d tensor that does not require grad is a Number to torch's parser
    "0-d float scale, int tensor": lambda m: m.tensor([[1, 2], [3, 4]]).add(m.tensor(2.0), 2),
    "0-d int scale, int tensor": lambda m: m.tensor([[1, 2], [3, 4]]).add(m.tensor(2), 2),
    "0-d scale": lambda m: m.tensor([1.5, 2.5]).add(m.tensor(2.0), m.tensor([1.5, 2.5])),
    "0-d scale, sub": lambda m: m.tensor([1.5, 2.5]).sub(m.tensor(2.0), m.tensor([1.5, 2.5])),
    "0-d scale, torch.add": lambda m: m.add(m.ones(2), m.tensor(0.5), m.arange(2.)),
    "0-d scale that requires grad": lambda m: m.ones(2).add(
        m.tensor(2.0, requires_grad=True), m.ones(2)),
    "1-element scale": lambda m: m.ones(2).add(m.tensor([2.0]), m.ones(2)),
    "0-d scale, addcmul": lambda m: m.ones(2).addcmul(m.tensor(2.0), m.ones(2), m.arange(2.)),
    "0-d scale, addcdiv": lambda m: m.ones(2).addcdiv(m.tensor(2.0), m.ones(2),
                                                      m.arange(1., 3.)),
}


@pytest.mark.parametrize("name", list(DEPRECATED_ERRORS))
def test_deprecated_overload_errors(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parity.run_both(DEPRECATED_ERRORS[name])


def test_var_over_an_empty_dimension_warns():
    seen = {}
    for m in (torch, engine):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = m.ones(2, 0).var(0)
        seen[m.__name__] = (result.shape, [(w.category, str(w.message)) for w in caught])
    assert seen["torch"][1]
    assert seen["engine"] == seen["torch"]


# ---------------------------------------------------------------- overloads torch refuses
OVERLOAD_MIXES = {
    "rsub(number, tensor)": lambda m: m.rsub(-1.0, m.tensor([1.])),
    "rsub(bool, tensor)": lambda m: m.rsub(True, m.tensor([1.])),
    "rsub(number, number)": lambda m: m.rsub(1, 2),
    "rsub(tensor, str)": lambda m: m.rsub(m.tensor([1.]), "a"),
    "rsub(tensor, number)": lambda m: m.rsub(m.tensor([1.]), -1.0),
    "rsub(tensor, tensor, alpha)": lambda m: m.rsub(m.tensor([1.]), m.tensor([3.]), alpha=2),
    "rsub(bool tensor, float tensor)": lambda m: m.rsub(m.tensor([True]), m.tensor([1.])),
    "sort(0, stable=True)": lambda m: m.tensor([3., 1.]).sort(0, stable=True),
    "sort(0, stable=False)": lambda m: m.tensor([3., 1.]).sort(0, stable=False),
    "sort(0, stable=None)": lambda m: m.tensor([3., 1.]).sort(0, stable=None),
    "torch.sort(x, 0, stable=True)": lambda m: m.sort(m.tensor([3., 1.]), 0, stable=True),
    "torch.sort(x, 0, True, stable=True)": lambda m: m.sort(m.tensor([3., 1.]), 0, True,
                                                            stable=True),
    "torch.sort(x, 0, True, True)": lambda m: m.sort(m.tensor([3., 1.]), 0, True, True),
    "sort(0, True, True)": lambda m: m.tensor([3., 1.]).sort(0, True, True),
    "sort(0, True, stable=True)": lambda m: m.tensor([3., 1.]).sort(0, True, stable=True),
    "sort(0, descending=True, stable=True)": lambda m: m.tensor([3., 1.]).sort(
        0, descending=True, stable=True),
    "sort(dim=0, stable=True)": lambda m: m.tensor([3., 2., 3.]).sort(dim=0, stable=True),
    "sort(stable=True, descending=True)": lambda m: m.tensor([3., 2., 3.]).sort(
        stable=True, descending=True),
    "sort(0, True)": lambda m: m.tensor([3., 2., 3.]).sort(0, True),
    "sort(axis=0, stable=True)": lambda m: m.tensor([3., 1.]).sort(axis=0, stable=True),
    "argsort(0, stable=True)": lambda m: m.tensor([3., 1.]).argsort(0, stable=True),
    "torch.argsort(x, 0, stable=True)": lambda m: m.argsort(m.tensor([3., 1.]), 0, stable=True),
    "torch.argsort(x, 0, True, True)": lambda m: m.argsort(m.tensor([3., 1.]), 0, True, True),
    "torch.argsort(x, 0, True, stable=False)": lambda m: m.argsort(m.tensor([3., 1.]), 0, True,
                                                                   stable=False),
    "argsort(0, True, True)": lambda m: m.tensor([3., 1.]).argsort(0, True, True),
    "torch.argsort(x, dim=0, stable=True)": lambda m: m.argsort(m.tensor([3., 2., 3.]), dim=0,
                                                                stable=True),
    "argsort(stable=True)": lambda m: m.tensor([3., 2., 3.]).argsort(stable=True),
    "argsort(0, True)": lambda m: m.tensor([3., 2., 3.]).argsort(0, True),
}


@pytest.mark.parametrize("name", list(OVERLOAD_MIXES))
def test_overloads_torch_refuses(name):
    """Whole messages: torch lists its overloads, or says stable= takes no positional dim."""
    engine_result, torch_result = parity.run_both(OVERLOAD_MIXES[name])
    if isinstance(torch_result, Exception):
        assert str(engine_result) == str(torch_result)


# ---------------------------------------------------------------- no numpy warning for a learner
def _warning_inputs(m):
    inputs = {}
    for name in parity.DTYPES:
        dtype = getattr(m, name)
        inputs[f"empty {name}"] = lambda dtype=dtype: m.ones(0, dtype=dtype)
        inputs[f"(2, 0) {name}"] = lambda dtype=dtype: m.ones(2, 0, dtype=dtype)
        inputs[f"0-d {name}"] = lambda dtype=dtype: m.tensor(1, dtype=dtype)
    for name in parity.FLOAT_DTYPES:
        dtype, big = getattr(m, name), 6e4 if name == "float16" else 1e30
        inputs[f"inf, nan and zeros {name}"] = lambda dtype=dtype, big=big: m.tensor(
            [float("inf"), float("-inf"), float("nan"), 0., -0., big], dtype=dtype)
        inputs[f"large {name}"] = lambda dtype=dtype, big=big: m.tensor([[big, big]], dtype=dtype)
    return inputs


WARNING_OPS = [
    "sum()", "mean()", "std()", "var()", "prod()", "max()", "min()", "norm()", "logsumexp(0)",
    "softmax(0)", "log_softmax(0)", "cumsum(0)", "cumprod(0)", "exp()", "log()", "sqrt()",
    "rsqrt()", "reciprocal()", "sigmoid()", "tanh()", "log1p()", "expm1()", "sin()", "tan()",
    "asin()", "acos()", "sinh()", "cosh()", "pow(2)", "pow(-1)", "pow(0.5)", "__truediv__(0)",
    "__floordiv__(0)", "__mod__(0)", "__rtruediv__(1)", "__rpow__(2)", "std(0)", "var(0)",
    "mean(0)", "amax(0)", "argmax()", "sign()", "round()", "frac()", "square()", "lgamma()",
    "digamma()", "nan_to_num()", "exp2()", "log2()", "log10()", "atan2(x)", "remainder(0)",
    "fmod(0)", "clamp(0, 1)", "isclose(x)", "sort()", "unique()", "norm(dim=0)",
    "std(0, unbiased=False)", "float().softmax(0)", "double().log_softmax(0)",
    "__mul__(float('inf'))", "div(x)", "div(x, rounding_mode='floor')", "maximum(x)",
]


@pytest.mark.parametrize("name", list(_warning_inputs(torch)))
def test_no_numpy_warning_reaches_a_learner(name):
    """The warnings of ~65 reductions and unary ops on empty, 0-d, inf/nan and large inputs
    are torch's (none, mostly): numpy's RuntimeWarnings never come through."""
    differ = []
    for op in WARNING_OPS:
        seen = {}
        for m in (torch, engine):
            x = _warning_inputs(m)[name]()  # noqa: F841  (read by eval)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    eval("x." + op)
                except Exception:  # (errors are compared elsewhere)
                    pass
            seen[m.__name__] = sorted({(w.category.__name__, str(w.message)) for w in caught})
        if seen["engine"] != seen["torch"]:
            differ.append((op, seen))
    assert not differ


# ---------------------------------------------------------------- torch's argument parser
# What Python's parsing of the engine's signatures takes and no overload of torch's does
# (and the other way round: x.squeeze(0, 1), x.amax(None)): whole messages, less torch's
# "didn't match because" notes.
def _x(m):
    return m.arange(6.).reshape(2, 3)


SIGNATURES = {
    "x.min(keepdim=True)": lambda m: _x(m).min(keepdim=True),
    "x.max(keepdim=True)": lambda m: _x(m).max(keepdim=True),
    "x.sum(keepdim=True)": lambda m: _x(m).sum(keepdim=True),
    "m.sum(x, keepdim=True)": lambda m: m.sum(_x(m), keepdim=True),
    "x.mean(keepdim=True)": lambda m: _x(m).mean(keepdim=True),
    "x.prod(keepdim=True)": lambda m: _x(m).prod(keepdim=True),
    "x.prod(keepdim=True, dtype=m.float64)": lambda m: _x(m).prod(keepdim=True, dtype=m.float64),
    "x.prod(0, m.float64)": lambda m: _x(m).prod(0, m.float64),
    "x.prod(0, True, m.float64)": lambda m: _x(m).prod(0, True, m.float64),
    "x.prod(0, True, dtype=m.float64)": lambda m: _x(m).prod(0, True, dtype=m.float64),
    "x.prod(dim=0, dtype=m.float64)": lambda m: _x(m).prod(dim=0, dtype=m.float64),
    "x.prod(m.float64)": lambda m: _x(m).prod(m.float64),
    "x.prod(dtype=m.float64)": lambda m: _x(m).prod(dtype=m.float64),
    "x.sum(m.float64)": lambda m: _x(m).sum(m.float64),
    "x.sum(0, True, m.float64)": lambda m: _x(m).sum(0, True, m.float64),
    "x.sum(0, m.float64)": lambda m: _x(m).sum(0, m.float64),
    "x.mean(0, True, m.float64)": lambda m: _x(m).mean(0, True, m.float64),
    "x.std(unbiased=False, correction=0)": lambda m: _x(m).std(unbiased=False, correction=0),
    "x.std(0, False, correction=0)": lambda m: _x(m).std(0, False, correction=0),
    "x.std(0, unbiased=False, correction=0)": lambda m: _x(m).std(0, unbiased=False, correction=0),
    "x.std(0, False, True)": lambda m: _x(m).std(0, False, True),
    "x.std(False)": lambda m: _x(m).std(False),
    "x.std(0, False)": lambda m: _x(m).std(0, False),
    "x.std(0, correction=0, keepdim=True)": lambda m: _x(m).std(0, correction=0, keepdim=True),
    "x.var(unbiased=False, correction=0)": lambda m: _x(m).var(unbiased=False, correction=0),
    "x.var(True, keepdim=True)": lambda m: _x(m).var(True, keepdim=True),
    "x.var(dim=None, unbiased=False)": lambda m: _x(m).var(dim=None, unbiased=False),
    "m.std(x, 0, False)": lambda m: m.std(_x(m), 0, False),
    "m.flip(x, 0)": lambda m: m.flip(_x(m), 0),
    "m.flip(x, (0,))": lambda m: m.flip(_x(m), (0,)),
    "m.flip(x, [0])": lambda m: m.flip(_x(m), [0]),
    "x.flip(0)": lambda m: _x(m).flip(0),
    "x.flip([0,1])": lambda m: _x(m).flip([0,1]),
    "m.flip(x, 0, 1)": lambda m: m.flip(_x(m), 0, 1),
    "x.squeeze(None)": lambda m: _x(m).squeeze(None),
    "x.squeeze((0,))": lambda m: _x(m).squeeze((0,)),
    "x.squeeze(dim=None)": lambda m: _x(m).squeeze(dim=None),
    "x.argsort(0, True, stable=True)": lambda m: _x(m).argsort(0, True, stable=True),
    "x.argsort(0, True)": lambda m: _x(m).argsort(0, True),
    "x.argsort(stable=True, dim=0)": lambda m: _x(m).argsort(stable=True, dim=0),
    "x.min(0, True)": lambda m: _x(m).min(0, True),
    "x.min(0, keepdim=True)": lambda m: _x(m).min(0, keepdim=True),
    "x.min(dim=0, keepdim=True)": lambda m: _x(m).min(dim=0, keepdim=True),
    "x.min(t)": lambda m: _x(m).min(m.ones(2, 3)),
    "x.min(t, 0)": lambda m: _x(m).min(m.ones(2, 3), 0),
    "x.min(0, t)": lambda m: _x(m).min(0, m.ones(2, 3)),
    "x.max(keepdim=False)": lambda m: _x(m).max(keepdim=False),
    "x.amax(keepdim=True)": lambda m: _x(m).amax(keepdim=True),
    "x.amax(None)": lambda m: _x(m).amax(None),
    "m.amax(x, None)": lambda m: m.amax(_x(m), None),
    "x.amin(None)": lambda m: _x(m).amin(None),
    "x.logsumexp(None)": lambda m: _x(m).logsumexp(None),
    "x.all(keepdim=True)": lambda m: _x(m).all(keepdim=True),
    "x.any(keepdim=True)": lambda m: _x(m).any(keepdim=True),
    "x.count_nonzero(keepdim=True)": lambda m: _x(m).count_nonzero(keepdim=True),
    "x.nansum(keepdim=True)": lambda m: _x(m).nansum(keepdim=True),
    "x.argmax(keepdim=True)": lambda m: _x(m).argmax(keepdim=True),
    "x.argmax(None, True)": lambda m: _x(m).argmax(None, True),
    "x.cumsum()": lambda m: _x(m).cumsum(),
    "x.cumsum(dtype=m.float64)": lambda m: _x(m).cumsum(dtype=m.float64),
    "x.softmax()": lambda m: _x(m).softmax(),
    "m.softmax(x)": lambda m: m.softmax(_x(m)),
    "m.softmax(x, 0, m.float64)": lambda m: m.softmax(_x(m), 0, m.float64),
    "m.log_softmax(x)": lambda m: m.log_softmax(_x(m)),
    "x.log_softmax()": lambda m: _x(m).log_softmax(),
    "x.prod(-2, m.int64)": lambda m: _x(m).prod(-2, m.int64),
    "y.prod(-2, m.int64)": lambda m: _x(m).requires_grad_().prod(-2, m.int64),
    "m.add(x, t, 2)": lambda m: m.add(_x(m), m.ones(2, 3), 2),
    "m.add(x, 2, t)": lambda m: m.add(_x(m), 2, m.ones(2, 3)),
    "m.sub(x, t, 2)": lambda m: m.sub(_x(m), m.ones(2, 3), 2),
    "m.mul(x, t, 2)": lambda m: m.mul(_x(m), m.ones(2, 3), 2),
    "x.add(t, 2)": lambda m: _x(m).add(m.ones(2, 3), 2),
    "x.sum(0, 1)": lambda m: _x(m).sum(0, 1),
    "x.sum((0, 1), True, m.float64)": lambda m: _x(m).sum((0, 1), True, m.float64),
    "x.mean(dtype=m.float64)": lambda m: _x(m).mean(dtype=m.float64),
    "x.mean(m.float64)": lambda m: _x(m).mean(m.float64),
    "x.max(0, True, True)": lambda m: _x(m).max(0, True, True),
    "x.sort(0, True, True)": lambda m: _x(m).sort(0, True, True),
    "x.topk(1, 0, True, True, True)": lambda m: _x(m).topk(1, 0, True, True, True),
    "x.transpose(0)": lambda m: _x(m).transpose(0),
    "x.unsqueeze()": lambda m: _x(m).unsqueeze(),
    "x.squeeze(0, 1)": lambda m: _x(m).squeeze(0, 1),
    "x.squeeze((0, 1))": lambda m: _x(m).squeeze((0, 1)),
    "x.cumsum(0, m.float64)": lambda m: _x(m).cumsum(0, m.float64),
    "x.cumsum(0, None)": lambda m: _x(m).cumsum(0, None),
    "x.nansum(m.float64)": lambda m: _x(m).nansum(m.float64),
    "x.all(0, True)": lambda m: _x(m).all(0, True),
    "x.any(None)": lambda m: _x(m).any(None),
    "x.all(None)": lambda m: _x(m).all(None),
    "x.std(None)": lambda m: _x(m).std(None),
    "x.var(None, True)": lambda m: _x(m).var(None, True),
    "x.std(correction=None)": lambda m: _x(m).std(correction=None),
    "x.count_nonzero(None)": lambda m: _x(m).count_nonzero(None),
    "x.prod((0,1))": lambda m: _x(m).prod((0,1)),
    "x.std((0,), 1, 2, 3)": lambda m: _x(m).std((0,), 1, 2, 3),
    "x.sum(0, keepdim=True, dtype=1)": lambda m: _x(m).sum(0, keepdim=True, dtype=1),
    "x.max(t, 0)": lambda m: _x(m).max(m.ones(2, 3), 0),
    "x.sum(0, True, dtype=float)": lambda m: _x(m).sum(0, True, dtype=float),
    "x.transpose()": lambda m: _x(m).transpose(),
    "x.sum(0, keepdim=True, dim=1)": lambda m: _x(m).sum(0, keepdim=True, dim=1),
    "x.sum(0, axis=1)": lambda m: _x(m).sum(0, axis=1),
    "x.sum(axis=1, keepdims=True)": lambda m: _x(m).sum(axis=1, keepdims=True),
    "m.sum(x, axis=1, keepdims=True)": lambda m: m.sum(_x(m), axis=1, keepdims=True),
    "m.sum(input=x, dim=1)": lambda m: m.sum(input=_x(m), dim=1),
    "x.max(other=t)": lambda m: _x(m).max(other=m.ones(2, 3)),
    "m.max(x, other=t)": lambda m: m.max(_x(m), other=m.ones(2, 3)),
    "m.max(x, 1, True)": lambda m: m.max(_x(m), 1, True),
    "m.max(x, dim=1, keepdim=True)": lambda m: m.max(_x(m), dim=1, keepdim=True),
    "x.var(0, True, True)": lambda m: _x(m).var(0, True, True),
    "x.var(0, correction=1)": lambda m: _x(m).var(0, correction=1),
    "x.var(correction=2)": lambda m: _x(m).var(correction=2),
    "x.var(True)": lambda m: _x(m).var(True),
    "x.var(False)": lambda m: _x(m).var(False),
    "m.var(x, False)": lambda m: m.var(_x(m), False),
    "x.std(dim=None, correction=None, keepdim=False)": lambda m: _x(m).std(
        dim=None, correction=None, keepdim=False),
    "m.std(x, None, True, True)": lambda m: m.std(_x(m), None, True, True),
    "x.flip(0, 1)": lambda m: _x(m).flip(0, 1),
    "x.flip((0, 1))": lambda m: _x(m).flip((0, 1)),
    "x.flip(dims=0)": lambda m: _x(m).flip(dims=0),
    "x.flip(dims=[0])": lambda m: _x(m).flip(dims=[0]),
    "x.squeeze((0,1))": lambda m: _x(m).squeeze((0,1)),
    "m.squeeze(x, (0,1))": lambda m: m.squeeze(_x(m), (0,1)),
    "x.count_nonzero((0,1))": lambda m: _x(m).count_nonzero((0,1)),
    "m.count_nonzero(x, dim=0)": lambda m: m.count_nonzero(_x(m), dim=0),
    "x.argmax(None)": lambda m: _x(m).argmax(None),
    "x.argmax(dim=1, keepdim=True)": lambda m: _x(m).argmax(dim=1, keepdim=True),
    "x.all((0, 1))": lambda m: _x(m).all((0, 1)),
    "x.any(dim=None, keepdim=True)": lambda m: _x(m).any(dim=None, keepdim=True),
    "m.softmax(x, dim=0, dtype=m.float64)": lambda m: m.softmax(_x(m), dim=0, dtype=m.float64),
    "x.softmax(0, dtype=m.float64)": lambda m: _x(m).softmax(0, dtype=m.float64),
    "m.cumsum(x, 0, dtype=m.float64)": lambda m: m.cumsum(_x(m), 0, dtype=m.float64),
    "x.cumsum(dim=0)": lambda m: _x(m).cumsum(dim=0),
    "x.topk(1, dim=0, largest=False)": lambda m: _x(m).topk(1, dim=0, largest=False),
    "x.topk(k=1)": lambda m: _x(m).topk(k=1),
    "x.topk(1.0)": lambda m: _x(m).topk(1.0),
    "m.topk(x, 1, 0, True, True)": lambda m: m.topk(_x(m), 1, 0, True, True),
    "x.transpose(dim0=0, dim1=1)": lambda m: _x(m).transpose(dim0=0, dim1=1),
    "x.unsqueeze(dim=0)": lambda m: _x(m).unsqueeze(dim=0),
    "x.sum(m.tensor(0))": lambda m: _x(m).sum(m.tensor(0)),
    "x.sum(0, m.tensor(True))": lambda m: _x(m).sum(0, m.tensor(True)),
    "x.amax(dim=(0,1))": lambda m: _x(m).amax(dim=(0,1)),
    "m.amax(x, None, True)": lambda m: m.amax(_x(m), None, True),
    "x.sum(dim=(0,1), keepdim=True)": lambda m: _x(m).sum(dim=(0,1), keepdim=True),
    "x.nansum(None, True)": lambda m: _x(m).nansum(None, True),
    "x.prod(None)": lambda m: _x(m).prod(None),
    "m.logsumexp(x, 0, True)": lambda m: m.logsumexp(_x(m), 0, True),
    "x.norm(None)": lambda m: _x(m).norm(None),
    "x.norm(None, 1)": lambda m: _x(m).norm(None, 1),
}


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_calls_as_torchs_argument_parser_takes_them(name):
    engine_result, torch_result = parity.run_both(SIGNATURES[name], exact=False)
    if isinstance(torch_result, TypeError):  # (word for word, torch's notes too)
        assert str(engine_result) == str(torch_result)


# Bounds, masks, dims and dtypes wrong at once (clamp, masked_fill, cumsum, bmm and matmul):
# x is a (2, 3) float tensor, t ones of its shape, y x requiring grad
MIXED = [
    "m.add(x, t, 2)",
    "m.add(x, t, alpha=2)",
    "x.clamp(t, 0)",
    "x.clamp(0, t)",
    "x.clamp(t, t)",
    "x.clamp(min=t, max=0)",
    "x.clamp(min=0, max=t)",
    "x.clamp(t)",
    "x.clamp(max=t)",
    "m.clamp(x, t, 0)",
    "x.clamp(m.ones(5), 0)",
    "x.clamp_(t, 0)",
    "x.clip(t, 0)",
    "x.masked_fill(m.ones(3, 3), 0)",
    "x.masked_fill(m.ones(3, 3, dtype=m.int64), 0)",
    "x.masked_fill(m.ones(3, 3, dtype=m.bool), 0)",
    "x.masked_fill(m.ones(3, dtype=m.bool), 0)",
    "x.masked_fill(m.ones(3, 3, dtype=m.bool), m.ones(2))",
    "x.masked_fill(m.ones(2, 3), m.ones(2))",
    "x.masked_fill(m.ones(2, 3, dtype=m.bool), m.ones(2))",
    "x.masked_fill_(m.ones(3, 3, dtype=m.bool), 0)",
    "x.masked_fill_(m.ones(3, 3), 0)",
    "x.masked_fill_(m.ones(2, 1, 3, dtype=m.bool), 0)",
    "x.masked_fill(m.ones(2, 1, 3, dtype=m.bool), 0)",
    "x.masked_fill_(m.ones(4, dtype=m.bool), 0)",
    "x.masked_fill_(m.ones(3, dtype=m.bool), m.tensor([1.]))",
    "m.ones(3).masked_fill_(m.ones(2, 3, dtype=m.bool), 0)",
    "y.cumsum(4, dtype=m.bool)",
    "x.cumsum(4, dtype=m.bool)",
    "x.cumsum(4, dtype=m.int64)",
    "x.cumprod(4, dtype=m.bool)",
    "m.ones(2, dtype=m.bool).cumsum(0, dtype=m.bool)",
    "m.ones(0, dtype=m.bool).cumsum(3, dtype=m.bool)",
    "m.ones(2, 2, 2, dtype=m.bool) @ m.ones(2, 2, 2, dtype=m.int64)",
    "m.ones(2, 2, 2, dtype=m.bool) @ m.ones(2, 2, 2, dtype=m.bool)",
    "m.ones(2, 2, 2, dtype=m.bool) @ m.ones(2, 3, 2, dtype=m.int64)",
    "m.ones(2, 2, 2, dtype=m.bool) @ m.ones(2, dtype=m.int64)",
    "m.ones(2, 2, dtype=m.bool) @ m.ones(2, 2, dtype=m.int64)",
    "m.ones(2, dtype=m.bool) @ m.ones(2, 2, 2, dtype=m.int64)",
    "m.ones(2, 2, dtype=m.bool) @ m.ones(3, 2, 2, dtype=m.int64)",
    "m.bmm(m.ones(2, 2, 2, dtype=m.bool), m.ones(2, 2, 2, dtype=m.int64))",
    "m.bmm(m.ones(2, 2, 2, dtype=m.bool), m.ones(2, 2, 2, dtype=m.bool))",
    "m.matmul(m.ones(2, 2, 2, dtype=m.int64), m.ones(2, 2, 2, dtype=m.bool))",
    "m.ones(2, 2, 2, dtype=m.float16) @ m.ones(2, 2, 2, dtype=m.int64)",
    "m.ones(2, 2, 2, dtype=m.bool) @ m.ones(2, 2, 3, dtype=m.bool)",
    "x.masked_fill_(m.ones(2, 3), m.ones(2))",
    "x.masked_fill_(m.ones(3, 3), m.ones(2))",
    "x.masked_fill_(m.ones(3, 3, dtype=m.bool), m.ones(2))",
    "x.masked_fill(m.ones(3, 3), m.ones(2))",
    "x.masked_fill(m.ones(2, 3, dtype=m.bool), m.tensor(1.))",
    "x.masked_fill_(m.ones(2, 3, dtype=m.bool), m.tensor(1.))",
    "x.masked_fill(m.ones(3, dtype=m.bool), 5)",
    'x.masked_fill(t, "a")',
    "x.masked_fill(m.ones(2, 3, dtype=m.bool), 1e300)",
    "m.ones(2, dtype=m.int8).masked_fill(m.ones(2, dtype=m.bool), 300)",
    "m.ones(2, dtype=m.int8).masked_fill(m.ones(3, dtype=m.bool), 300)",
    "m.ones(2, dtype=m.int8).masked_fill_(m.ones(3, dtype=m.bool), 300)",
    "m.ones(2).expand(3, 2).masked_fill_(m.ones(3, dtype=m.bool), 0)",
    "m.masked_fill(x, m.ones(3, dtype=m.bool), 5)",
    "x.clamp(0, 1)",
    "x.clamp(min=0.5)",
    "x.clamp(max=m.tensor(2.))",
    "x.clamp(m.tensor(1.), m.tensor(2.))",
    "x.clamp(m.tensor(1.), 3)",
    "x.clamp(None, 2)",
    "x.clamp()",
    "x.clamp(None, None)",
    "x.clip(0, 1)",
    "x.clip_(t, 0)",
    "m.clip(x, 0, 1)",
    "m.clamp(x, min=t)",
    "x.clamp_(0, 1)",
    "x.clamp_(min=t, max=0)",
    "x.clamp(np.float32(1), 2)",
    'x.clamp(1, "a")',
    "m.bmm(m.ones(2, 2, 2, dtype=m.int64), m.ones(2, 2, 2, dtype=m.bool))",
    "m.bmm(m.ones(2, 2, 2, dtype=m.bool), m.ones(2, 2, 2, dtype=m.float32))",
    "m.bmm(m.ones(2, 2, 2, dtype=m.float32), m.ones(2, 2, 2, dtype=m.int64))",
    "m.bmm(m.ones(2, 2, 2, dtype=m.float16), m.ones(2, 2, 2, dtype=m.bool))",
    "m.bmm(m.ones(2, 2, 2, dtype=m.bool), m.ones(2, 2, 2, dtype=m.float16))",
    "m.bmm(m.ones(2, 2, 0, dtype=m.bool), m.ones(2, 0, 2, dtype=m.float16))",
    "m.ones(2, 2, 2, dtype=m.int64) @ m.ones(2, 2, 2, dtype=m.bool)",
    "m.ones(2, 2, 2, dtype=m.bool) @ m.ones(2, 2, dtype=m.int64)",
    "m.mm(m.ones(2, 2, dtype=m.bool), m.ones(2, 2, dtype=m.int64))",
]

# out= with a dtype= that is not out's (torch: an error; computing in one and writing into the
# other would be a silently different value)
MIXED += [
    "m.cumsum(m.ones(2, dtype=m.int64), 0, dtype=m.float16, out=m.zeros(0, dtype=m.int64))",
    "m.cumprod(m.ones(2), 0, dtype=m.float64, out=m.zeros(0))",
    "m.cumsum(m.ones(2), 0, out=m.zeros(0, dtype=m.int64))",
    "m.sum(m.ones(2, dtype=m.int64), 0, dtype=m.float16, out=m.zeros(0, dtype=m.int64))",
    "m.sum(m.ones(2), 0, dtype=m.float64, out=m.zeros(0))",
    "m.prod(m.ones(2), 0, dtype=m.float64, out=m.zeros(0))",
    "m.mean(m.ones(2), 0, dtype=m.float64, out=m.zeros(0))",
    "m.sum(m.ones(2), 0, dtype=m.float64, out=m.zeros(0, dtype=m.float64))",
    "m.cumsum(m.ones(2, dtype=m.int64), 0, out=m.zeros(0, dtype=m.float16))",
]

# a dim named twice, a 0-d tensor's 0 and -1 too (torch names the wrapped dim)
MIXED += [
    "m.norm(m.tensor(0.5), 3, (-1, -1))",
    "m.ones(2, 2).sum((-1, 1))",
    "m.ones(2, 2).sum((1, -1))",
    "m.ones(2, 2).amax((-1, 1))",
    "m.ones(2, 2).amax((-2, 0))",
    "m.tensor(0.5).sum((-1, 0))",
    "m.tensor(0.5).sum((0, -1))",
    "m.tensor(0.5).amax((0, -1))",
    "m.linalg.vector_norm(m.tensor(0.5), 3, (-1, -1))",
    "m.ones(2, 2).flip(-1, 1)",
    "m.ones(2, 2).std((-1, 1))",
]


# the input given by keyword, not a tensor: an op with several overloads lists them (the
# keywords-only list ending in ", "), one with a single fitting overload names the input
# (fuzz 2849245); div's extra positional argument with out= and an input that requires grad:
# torch's parser counts out= first (fuzz 2849438)
MIXED += [
    "m.std(input=np.ones((2, 2), np.uint8), unbiased=False)",
    "m.std(input=[1., 2.])", "m.var(input=np.ones(2), unbiased=False)",
    "m.var_mean(input=np.ones(2))", "m.std_mean(input=3)", "m.mean(input=np.ones(2))",
    "m.sum(input=[1, 2])", "m.std(input=t, dim=0, unbiased=1)",
    "m.div(y, m.ones_like(y), None, out=m.zeros(0))", "m.div(y, y, 'floor', out=m.zeros(0))",
    "m.div(y, 2, None, out=m.zeros(0))", "m.div(y, y, None, None)",
]


@pytest.mark.parametrize("code", MIXED)
def test_which_of_two_wrong_things_torch_names(code):
    def run(m):
        x, y = m.arange(6.).reshape(2, 3), m.arange(6.).reshape(2, 3).requires_grad_()
        names = {"m": m, "np": numpy, "x": x, "t": m.ones(2, 3), "y": y}
        return eval(code, names)

    parity.run_both(run, exact=False, check_inputs=False)


# An inference tensor an op would save for backward, and shapes that do not fit: torch's
# autograd saves before the op runs, so the inference tensor is named first
SAVED_INFERENCE = {
    "w * x": lambda w, x: w * x,
    "w * x, same shapes": lambda w, x: w * x[:1].expand(3),
    "x / w": lambda w, x: x / w,
    "x.div(w)": lambda w, x: x.div(w),
    "x @ w": lambda w, x: x @ w,
    "mm": lambda w, x: w.reshape(1, 3).mm(x.reshape(2, 1)),
    "mv": lambda w, x: w.reshape(1, 3).mv(x),
    "dot": lambda w, x: x.dot(w),
    "bmm": lambda w, x: w.reshape(1, 1, 3).bmm(x.reshape(1, 2, 1)),
    "maximum": lambda w, x: x.maximum(w),
    "minimum": lambda w, x: w.minimum(x),
    "atan2": lambda w, x: x.atan2(w),
    "pow": lambda w, x: x.pow(w),
    "w + x (nothing saved)": lambda w, x: w + x,
    "w * x[0].detach() (no grad)": lambda w, x: w * x.detach(),
}


# the products with a bias, which save their matrices (F.linear with a bias is addmm; fuzz
# 2730172: an empty inference input to nn.Linear), with w the inference tensor in each place
SAVED_INFERENCE_BY_PRODUCTS = {
    "addmm, w the matrix": lambda m, w, x: x.new_ones(2).addmm(w.reshape(1, 3),
                                                               x.reshape(2, 1)),
    "addmm, w the second": lambda m, w, x: x.new_ones(2).addmm(x.reshape(1, 2),
                                                               w.reshape(1, 3)),
    "addmm, w the bias": lambda m, w, x: w.addmm(x.reshape(1, 2), x.reshape(1, 2)),
    "linear with a bias": lambda m, w, x: m.nn.functional.linear(w, x.reshape(1, 2), x),
    "linear, w the weight": lambda m, w, x: m.nn.functional.linear(x, w.reshape(3, 1), x),
    "addmv": lambda m, w, x: x.addmv(w.reshape(1, 3), x),
    "addr": lambda m, w, x: x.reshape(2, 1).addr(w, x),
    "baddbmm": lambda m, w, x: x.reshape(1, 1, 2).baddbmm(w.reshape(1, 1, 3),
                                                          x.reshape(1, 1, 2)),
    "addbmm": lambda m, w, x: x.reshape(1, 2).addbmm(w.reshape(1, 1, 3), x.reshape(1, 1, 2)),
    "linalg.cross": lambda m, w, x: m.linalg.cross(w, x),
    "outer": lambda m, w, x: w.reshape(3, 1).outer(x),
}


@pytest.mark.parametrize("name", list(SAVED_INFERENCE_BY_PRODUCTS))
def test_inference_tensors_products_with_a_bias_would_save_come_first(name):
    def run(m):
        with m.inference_mode():
            w = m.ones(3)
        return SAVED_INFERENCE_BY_PRODUCTS[name](m, w, m.ones(2, requires_grad=True))

    parity.run_both(run, check_inputs=False)


@pytest.mark.parametrize("name", list(SAVED_INFERENCE))
def test_inference_tensors_torch_would_save_come_first(name):
    def run(m):
        with m.inference_mode():
            w = m.ones(3)
        return SAVED_INFERENCE[name](w, m.ones(2, requires_grad=True))

    parity.run_both(run, check_inputs=False)


# ---------------------------------------------------------------- warnings end as torch's
WARNINGS = {
    "x.T of a 3-d tensor": "m.ones(2, 2, 2).T",
    "x.T of a 0-d tensor": "m.tensor(1.).T",
    "x.mT of a 0-d tensor": "m.tensor(1.).mT",
    "where with a uint8 condition": "m.where(m.tensor([1, 0], dtype=m.uint8), m.ones(2), 0.)",
    "a list as a multidimensional index": "m.ones(3, 3)[[slice(None), 0]]",
    "as_tensor of a read-only array": "m.as_tensor(np.broadcast_to(np.ones(2), (2, 2)))",
    "as_tensor of a read-only array to another dtype": "m.as_tensor(np.broadcast_to(np.ones(2), "
                                                       "(2, 2)), dtype=m.float32)",
    "from_numpy of a read-only array": "m.from_numpy(np.broadcast_to(np.ones(2), (2, 2)))",
    "var with no degrees of freedom": "m.ones(1).var()",
    "index_put_ of an expanded tensor": "m.ones(1).expand(3)[m.tensor([0])] = 2.",
}


def test_warnings_are_torchs_word_for_word():
    """The whole text, with the "(Triggered internally at ...)" ending torch's warnings from
    C++ have; in one fresh process per module, as torch gives some once per process (the
    read-only arrays after the first have no warning in either)."""
    seen = {}
    for module in ("torch", "engine"):
        code = [f"import warnings; import numpy as np; import {module} as m", "seen = {}"]
        for name, statement in WARNINGS.items():
            code += ["with warnings.catch_warnings(record=True) as caught:",
                     "    warnings.simplefilter('always')",
                     f"    {statement}",
                     f"seen[{name!r}] = [(w.category.__name__, str(w.message)) for w in caught]"]
        code.append("print(repr(seen))")
        output = subprocess.run([sys.executable, "-c", "\n".join(code)], capture_output=True,
                                text=True, check=True).stdout
        seen[module] = eval(output)
    once = [name for name in WARNINGS if "read-only" in name][1:]
    assert all(seen["torch"][name] for name in WARNINGS if name not in once)
    assert seen["engine"] == seen["torch"]


# ---------------------------------------------------------------- out=
OUT_OPS = {
    "amax": lambda m, x, out: m.amax(x, 1, out=out),
    "amin": lambda m, x, out: m.amin(x, (0, 1), True, out=out),
    "argmax": lambda m, x, out: m.argmax(x, 1, out=out),
    "argmin": lambda m, x, out: m.argmin(x, out=out),
    "logsumexp": lambda m, x, out: m.logsumexp(x, 1, out=out),
    "softmax": lambda m, x, out: m.softmax(x, 1, out=out),
    "log_softmax": lambda m, x, out: m.log_softmax(x, 0, out=out),
    "var": lambda m, x, out: m.var(x, 1, out=out),
    "std": lambda m, x, out: m.std(x, 1, keepdim=True, out=out),
    "var, correction": lambda m, x, out: m.var(x, 1, correction=0, out=out),
    "gather": lambda m, x, out: m.gather(x, 1, m.tensor([[0, 1], [1, 0]]), out=out),
    "index_select": lambda m, x, out: m.index_select(x, 1, m.tensor([0, 2]), out=out),
}
OUTS = {"empty": ("float32", 0), "float64": ("float64", 0), "int64": ("int64", 0),
        "float16": ("float16", 0), "wrong size": ("float32", 5), "right size": ("float32", 2)}


@pytest.mark.parametrize("out", list(OUTS))
@pytest.mark.parametrize("op", list(OUT_OPS))
def test_out_as_torch_takes_it(op, out):
    """Values, out's dtype rules (each op's own message), resizing with torch's warning."""
    dtype, size = OUTS[out]

    def run(m):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            target = m.zeros(size, dtype=getattr(m, dtype))
            result = OUT_OPS[op](m, m.arange(6.).reshape(2, 3), target)
        return result is target, result, [str(w.message) for w in caught]

    parity.run_both(run, exact=False)


def test_out_refused_when_an_input_requires_grad():
    parity.run_both(lambda m: m.amax(m.ones(2, requires_grad=True), 0, out=m.zeros(0)))


PAIR_OUTS = {
    "max(x, 1)": lambda m, x, out: m.max(x, 1, out=out),
    "max(x, 1, True)": lambda m, x, out: m.max(x, 1, True, out=out),
    "min(x, dim=0)": lambda m, x, out: m.min(x, dim=0, out=out),
    "sort(x, 1)": lambda m, x, out: m.sort(x, 1, out=out),
    "sort(x, 0, True)": lambda m, x, out: m.sort(x, 0, True, out=out),
    "sort(x, stable=True)": lambda m, x, out: m.sort(x, stable=True, out=out),
    "topk(x, 2)": lambda m, x, out: m.topk(x, 2, out=out),
    "topk(x, 1, 0, False)": lambda m, x, out: m.topk(x, 1, 0, False, out=out),
}
PAIRS = {"empty": ("float32", "int64", 0), "a list": ("float32", "int64", 0),
         "values float64": ("float64", "int64", 0), "indices int32": ("float32", "int32", 0),
         "indices float": ("float32", "float32", 0), "wrong sizes": ("float32", "int64", 5),
         "three": ("float32", "int64", 0), "one tensor": ("float32", "int64", 0)}


@pytest.mark.parametrize("out", list(PAIRS))
@pytest.mark.parametrize("op", list(PAIR_OUTS))
def test_pair_outs_as_torch_takes_them(op, out):
    values, indices, size = PAIRS[out]

    def run(m):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pair = (m.zeros(size, dtype=getattr(m, values)),
                    m.zeros(size, dtype=getattr(m, indices)))
            given = {"a list": list(pair), "three": (*pair, m.zeros(0)),
                     "one tensor": pair[0]}.get(out, pair)
            result = PAIR_OUTS[op](m, m.arange(6.).reshape(2, 3), given)
        return [r is p for r, p in zip(result, pair)], result, [str(w.message) for w in caught]

    parity.run_both(run)


@pytest.mark.parametrize("out", ["float32", "float64", "float16", "int64"])
@pytest.mark.parametrize("op", ["max", "min"])
def test_max_and_min_into_one_tensor(op, out):
    def run(m):
        x, target = m.arange(6.).reshape(2, 3), m.zeros(0, dtype=getattr(m, out))
        return (getattr(m, op)(x, out=target) is target, target,
                getattr(m, op)(x, x.flip(0), out=target) is target, target)

    parity.run_both(run)
