"""Writes against torch: every way a value reaches a tensor's memory, the dtype ranges torch
checks on the way, and views that must stay inside their storage (issue 25).

torch converts a Python number, or a one-element tensor it reads as a number, to the
tensor's dtype with a range check ("value cannot be converted to type uint8_t without
overflow"), but copies tensor to tensor with C's wrap-around, and computes float16 in
float32 in some places (no check there). Each write path runs for every dtype with values
at and beyond each dtype's ends: the tensor written into is compared afterwards, or the error.
"""
import math

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

DTYPES = parity.DTYPES
INF, NAN = math.inf, math.nan

# Python numbers (and numpy's, which torch reads as Python numbers, or refuses)
NUMBERS = [True, 300, -1, -2, -129, 255, 256, 2**31, -2**31 - 1, 2**63 - 1, -2**63, 2**63,
           2**64 - 1, 2**64, -2**63 - 1, -2.0, 2.5, -0.5, 300.0, 1e5, 65504.0, 65520.0, 1e39,
           1e300, INF, -INF, NAN, np.int64(300), np.float32(-2.0), np.float16(2.5),
           np.bool_(True), np.float64(1e39)]
# tensors of one element: (dtype, value), made 0-d and 1-d
TENSOR_VALUES = [("float32", -2.0), ("float32", 300.0), ("float64", 1e39), ("float32", NAN),
                 ("float32", INF), ("float64", 1e5), ("int64", 300), ("int64", -1),
                 ("int64", 2**40), ("bool", True), ("float16", 60000.0), ("int32", -129),
                 ("uint8", 200), ("int8", -128)]


def _values():
    yield from ((repr(v), lambda m, v=v: v) for v in NUMBERS)
    for dtype, v in TENSOR_VALUES:
        yield f"tensor({v!r}, {dtype})", lambda m, d=dtype, v=v: m.tensor(v, dtype=getattr(m, d))
        yield f"tensor([{v!r}], {dtype})", lambda m, d=dtype, v=v: m.tensor([v],
                                                                             dtype=getattr(m, d))


def _mask(m, t):
    return t != 6


WRITES = {
    # x[index] = value: basic indices, a mask, index tensors
    "x[0] = v": lambda m, t, v: t.__setitem__(0, v),
    "x[:] = v": lambda m, t, v: t.__setitem__(slice(None), v),
    "x[...] = v": lambda m, t, v: t.__setitem__(Ellipsis, v),
    "x[0, 0] = v": lambda m, t, v: t.__setitem__((0, 0), v),
    "x[mask] = v": lambda m, t, v: t.__setitem__(_mask(m, t), v),
    "x[mask of nothing] = v": lambda m, t, v: t.__setitem__(t > 100, v),
    "x[row mask] = v": lambda m, t, v: t.__setitem__(m.tensor([True, False, True]), v),
    "x[:, column mask] = v": lambda m, t, v: t.__setitem__((slice(None), m.tensor([True])), v),
    "x[[0, 2]] = v": lambda m, t, v: t.__setitem__([0, 2], v),
    "x[index] = v": lambda m, t, v: t.__setitem__(m.tensor([0, 2]), v),
    "x[[0, 2], [0, 0]] = v": lambda m, t, v: t.__setitem__(([0, 2], [0, 0]), v),
    "x[:, [0]] = v": lambda m, t, v: t.__setitem__((slice(None), [0]), v),
    # the fills
    "fill_": lambda m, t, v: t.fill_(v),
    "masked_fill_": lambda m, t, v: t.masked_fill_(_mask(m, t), v),
    "masked_fill": lambda m, t, v: t.masked_fill(_mask(m, t), v),
    "index_fill_": lambda m, t, v: t.index_fill_(0, m.tensor([0, 2]), v),
    "index_fill": lambda m, t, v: t.index_fill(0, m.tensor([0, 2]), v),
    "copy_": lambda m, t, v: t.copy_(v),
    "scatter_": lambda m, t, v: t.scatter_(0, m.tensor([[0]]), v),
    "scatter": lambda m, t, v: t.scatter(0, m.tensor([[0]]), v),
    # arithmetic in place with a number
    "add_": lambda m, t, v: t.add_(v),
    "sub_": lambda m, t, v: t.sub_(v),
    "mul_": lambda m, t, v: t.mul_(v),
    "+=": lambda m, t, v: t.__iadd__(v),
    "-=": lambda m, t, v: t.__isub__(v),
    "add_(x, alpha=v)": lambda m, t, v: t.add_(t, alpha=v),
    "clamp_(v)": lambda m, t, v: t.clamp_(min=v),
    "lerp_(x, v)": lambda m, t, v: t.lerp_(t, v),
    "addcmul_(value=v)": lambda m, t, v: t.addcmul_(t, t, value=v),
    "where(c, x, v)": lambda m, t, v: m.where(t > 6, t, v),
    # creation
    "full": lambda m, t, v: m.full((2,), v, dtype=t.dtype),
    "full of one element": lambda m, t, v: m.full((1, 1), v, dtype=t.dtype),
    "full ()": lambda m, t, v: m.full((), v, dtype=t.dtype),
    "full_like": lambda m, t, v: m.full_like(t, v),
    "full_like of one element": lambda m, t, v: m.full_like(t[0, 0], v),
    "new_full": lambda m, t, v: t.new_full((2,), v),
    "new_full of one element": lambda m, t, v: t.new_full((1,), v),
    "tensor(v)": lambda m, t, v: m.tensor(v, dtype=t.dtype),
    "tensor([v])": lambda m, t, v: m.tensor([v], dtype=t.dtype),
    "as_tensor([v, 1])": lambda m, t, v: m.as_tensor([v, 1], dtype=t.dtype),
    "tensor([1, v])": lambda m, t, v: m.tensor([1, v], dtype=t.dtype),
    "tensor([[v], [1]])": lambda m, t, v: m.tensor([[v], [1]], dtype=t.dtype),
    "tensor([v, 1]) inferred": lambda m, t, v: m.tensor([v, 1]),
}


def _write(path, dtype, make_value):
    def fn(m):
        t = m.tensor([[9], [9], [6]], dtype=getattr(m, dtype))
        result = WRITES[path](m, t, make_value(m))
        return (None if result is None or result is t else result), t
    return fn


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("path", list(WRITES))
def test_every_write_path_checks_ranges_as_torch(path, dtype):
    """The whole class: torch's range checks (or wrap-around, or inf) per path and dtype."""
    failures = []
    for label, make_value in _values():
        try:
            parity.run_both(_write(path, dtype, make_value), check_inputs=False)
        except AssertionError as error:
            failures.append(f"{label}: {error}")
    assert not failures, f"{len(failures)} values differ:\n" + "\n\n".join(failures[:5])


def test_the_issues_example():
    """t[t > 0] = torch.tensor(-2.0) into uint8: torch refuses, t is left as it was."""
    def write(m):
        t = m.tensor([[9], [9], [6]], dtype=m.uint8)
        try:
            t[t > 0] = m.tensor(-2.0)
        except RuntimeError as error:
            return str(error), t
        return None, t

    engine_result, torch_result = parity.run_both(write)
    assert engine_result[0] == "value cannot be converted to type uint8_t without overflow"


MASKED_WRITES = {
    "2-d mask": lambda m: (m.ones(2, 1, dtype=m.int8), m.tensor([[True], [False]])),
    "mask after an int": lambda m: (m.ones(2, 2, dtype=m.int8), (0, m.tensor([True, False]))),
    "mask after a slice": lambda m: (m.ones(2, 2, dtype=m.int8),
                                     (slice(None), m.tensor([True, False]))),
    "mask then an int": lambda m: (m.ones(2, 2, dtype=m.int8), (m.tensor([True, False]), 0)),
    "mask and a list": lambda m: (m.ones(2, 2, dtype=m.int8), (m.tensor([True, False]), [0])),
    "None then a mask": lambda m: (m.ones(2, 2, dtype=m.int8), (None, m.tensor([True, False]))),
    "... then a mask": lambda m: (m.ones(2, 2, dtype=m.int8), (..., m.tensor([True, False]))),
    "uint8 mask": lambda m: (m.ones(2, 2, dtype=m.int8), m.tensor([1, 0], dtype=m.uint8)),
    "expanded": lambda m: (m.ones(2, 2, dtype=m.int8).expand(2, 2, 2),
                           m.tensor([True, False])),
    "list of bools": lambda m: (m.ones(2, 2, dtype=m.int8), [True, False]),
    "True": lambda m: (m.ones(2, 2, dtype=m.int8), True),
    "0-d bool tensor": lambda m: (m.ones(2, 2, dtype=m.int8), m.tensor(True)),
    "mask of the wrong shape": lambda m: (m.ones(2, 2, dtype=m.int8), m.tensor([True] * 3)),
    "float16 from float64": lambda m: (m.ones(3, dtype=m.float16), m.tensor([True] * 3)),
}


@pytest.mark.parametrize("value", [1000, -1, 1e5, 1e39, 2.5])
@pytest.mark.parametrize("name", list(MASKED_WRITES))
def test_masked_writes_of_one_element_check_the_number(name, value):
    """torch's index_put_ of one value through one mask is masked_fill_ with value.item()."""
    def write(m, dtype):
        t, index = MASKED_WRITES[name](m)
        t[index] = m.tensor(value, dtype=dtype)
        return t

    for dtype in ("int64", "float64", "float32"):
        if isinstance(value, float) or dtype == "int64":
            parity.run_both(write, getattr(torch, dtype), check_inputs=False)


# ------------------------------------------------------------------ numbers as arguments
NUMBER_ARGUMENTS = {
    "alpha: 1-element tensor": lambda m: m.ones(2).add(m.ones(2), alpha=m.tensor([2.])),
    "alpha_: 1-element tensor": lambda m: m.ones(2).add_(m.ones(2), alpha=m.tensor([2.])),
    "torch.add alpha tensor": lambda m: m.add(m.ones(2), m.ones(2), alpha=m.tensor([2.])),
    "sub alpha tensor": lambda m: m.ones(2).sub(m.ones(2), alpha=m.tensor([2.])),
    "alpha None": lambda m: m.ones(2).add(m.ones(2), alpha=None),
    "alpha str": lambda m: m.ones(2).add(m.ones(2), alpha="a"),
    "alpha 0-d requiring grad": lambda m: m.ones(2).add(
        m.ones(2), alpha=m.tensor(2., requires_grad=True)),
    "alpha 0-d": lambda m: m.ones(2).add(m.ones(2), alpha=m.tensor(2.)),
    "alpha 0-d bool into int": lambda m: m.ones(2, dtype=m.int8).add(
        m.ones(2, dtype=m.int8), alpha=m.tensor(True)),
    "alpha 0-d float into int": lambda m: m.ones(2, dtype=m.int8).add(
        m.ones(2, dtype=m.int8), alpha=m.tensor(2.)),
    "saved alpha of a 0-d tensor": lambda m: m.ones(2, requires_grad=True).add(
        m.ones(2), alpha=m.tensor(2.)).grad_fn._saved_alpha,
    "saved alpha of np.float32": lambda m: m.ones(2, requires_grad=True).add(
        m.ones(2), alpha=np.float32(2.5)).grad_fn._saved_alpha,
    "saved alpha of np.bool_": lambda m: m.ones(2, requires_grad=True).add(
        m.ones(2), alpha=np.True_).grad_fn._saved_alpha,
    "np.float32 alpha into int": lambda m: m.ones(2, dtype=m.int64).add(
        m.ones(2, dtype=m.int64), alpha=np.float32(2.)),
    "np.bool_ alpha into bool": lambda m: m.ones(2, dtype=m.bool).add(
        m.ones(2, dtype=m.bool), alpha=np.True_),
    "addcmul value tensor": lambda m: m.ones(2).addcmul(m.ones(2), m.ones(2),
                                                        value=m.tensor([2.])),
    "addcmul value 0-d": lambda m: m.ones(2).addcmul(m.ones(2), m.ones(2), value=m.tensor(2.)),
    "addcmul int8 1000": lambda m: m.ones(2, dtype=m.int8).addcmul(
        m.ones(2, dtype=m.int8), m.ones(2, dtype=m.int8), value=1000),
    "addcmul int8 2**63": lambda m: m.ones(2, dtype=m.int8).addcmul(
        m.ones(2, dtype=m.int8), m.ones(2, dtype=m.int8), value=2**63),
    "addcmul float32 1e39": lambda m: m.ones(2).addcmul(m.ones(2), m.ones(2), value=1e39),
    "addcmul float16 1e5 (float32 inside)": lambda m: m.ones(2, dtype=m.float16).addcmul(
        m.ones(2, dtype=m.float16), m.ones(2, dtype=m.float16), value=1e5),
    "addcdiv float32 1e39": lambda m: m.ones(2).addcdiv(m.ones(2), m.ones(2), value=1e39),
    "saved addcmul value": lambda m: m.ones(2, requires_grad=True).addcmul(
        m.ones(2), m.ones(2), value=0.1).grad_fn._saved_value,
    "lerp weight 1e39": lambda m: m.ones(2).lerp(m.ones(2), 1e39),
    "lerp float16 weight 1e5": lambda m: m.ones(2, dtype=m.float16).lerp(
        m.ones(2, dtype=m.float16), 1e5),
    "pow int8 2**63": lambda m: m.ones(2, dtype=m.int8).pow(2**63),
    "pow float 2**63": lambda m: m.ones(2).pow(2**63),
    "pow int -2**63-1": lambda m: m.ones(2, dtype=m.int64).pow(-2**63 - 1),
    "pow float 2**64": lambda m: m.ones(2).pow(2**64),
    "float + -2**63-1": lambda m: m.zeros(2).add_(-2**63 - 1),
    "float * 2**64": lambda m: m.zeros(2) * 2**64,
    "float == -2**63-1": lambda m: m.zeros(2) == -2**63 - 1,
    "clamp -2**63-1": lambda m: m.zeros(2, dtype=m.int8).clamp(-2**63 - 1),
    "clamp 2**64": lambda m: m.zeros(2).clamp(2**64),
    "full -2**63-1": lambda m: m.full((2,), -2**63 - 1),
    "clamp_ int by 1e39": lambda m: m.tensor([1, 2]).clamp_(1e39),
    "clamp_ bool by 1e39": lambda m: m.tensor([True]).clamp_(1e39),
    "clamp_ int by 2.5": lambda m: m.tensor([1, 2]).clamp_(2.5),
}


@pytest.mark.parametrize("name", list(NUMBER_ARGUMENTS))
def test_number_arguments_are_read_as_torch_reads_them(name):
    parity.run_both(NUMBER_ARGUMENTS[name])


UINT64_NUMBERS = {
    "bool + 2**63": lambda m: m.tensor([True]) + 2**63,
    "0-d bool + 2**63": lambda m: m.tensor(True) + 2**63,
    "bool * (2**64 - 1)": lambda m: m.tensor([True]) * (2**64 - 1),
    "2**63 * bool": lambda m: 2**63 * m.tensor([True]),
    "bool == 2**63": lambda m: m.tensor([True]) == 2**63,
    "bool < 2**63": lambda m: m.tensor([True]) < 2**63,
    "bool & 2**63": lambda m: m.tensor([True]) & 2**63,
    "bool / 2**63": lambda m: m.tensor([True]).div(2**63),
    "bool fmod 2**63": lambda m: m.tensor([True]).fmod(2**63),
    "bool remainder 2**63": lambda m: m.tensor([True]).remainder(2**63),
    "bool floor_divide 2**63": lambda m: m.tensor([True]).floor_divide(2**63),
    "bool.mul_(2**63)": lambda m: m.tensor([True]).mul_(2**63),
    "bool clamp 2**63": lambda m: m.tensor([True]).clamp(2**63),
    "bool clamp_ 2**63": lambda m: m.tensor([True]).clamp_(2**63),
    "bool pow 2**63": lambda m: m.tensor([True]).pow(2**63),
    "where(bool, 2**63)": lambda m: m.where(m.tensor([True]), m.tensor([True]), 2**63),
    "where(2**63, 1)": lambda m: m.where(m.tensor([True]), 2**63, 1),
    "where(2**63, 1.5)": lambda m: m.where(m.tensor([True]), 2**63, 1.5),
    "result_type(bool, 2**63)": lambda m: m.result_type(m.tensor([True]), 2**63),
    "result_type(int, 2**63)": lambda m: m.result_type(m.tensor([1]), 2**63),
    "result_type(2**63, 1)": lambda m: m.result_type(2**63, 1),
    "result_type(2**63, 1.5)": lambda m: m.result_type(2**63, 1.5),
    "int + 2**63 (wraps)": lambda m: m.tensor([1, 2]) + 2**63,
    "uint8 * 2**63": lambda m: m.tensor([1, 2], dtype=m.uint8) * 2**63,
    "float * 2**63": lambda m: m.tensor([1., 2]) * 2**63,
    "bool masked_fill 2**63": lambda m: m.tensor([True]).masked_fill(m.tensor([True]), 2**63),
    "torch.add(2**63, 1)": lambda m: m.add(2**63, 1),
    "torch.add(2**63, 1.0)": lambda m: m.add(2**63, 1.0),
    "torch.add(1, 2**63)": lambda m: m.add(1, 2**63),
    "torch.add(1.5, 2**63)": lambda m: m.add(1.5, 2**63),
}


@pytest.mark.parametrize("name", list(UINT64_NUMBERS))
def test_ints_from_2_63_promote_as_torchs_uint64(name):
    """An int from 2**63 up is a uint64 to torch: it promotes with floats only."""
    parity.run_both(UINT64_NUMBERS[name])


NUMPY_SCALARS = [np.float16(2.5), np.float32(-2.0), np.float64(300.0), np.int8(-3),
                 np.int16(300), np.int64(300), np.uint8(200), np.bool_(True), np.float32(1e5)]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int64", "float16", "float32"])
def test_numpy_numbers_written_as_torch_writes_them(dtype):
    """x[i] = v refuses numpy floats other than float64, and numpy's bool; fills take them."""
    for value in NUMPY_SCALARS:
        for write in (lambda t, v: t.__setitem__(0, v), lambda t, v: t.__setitem__(t > 100, v),
                      lambda t, v: t.__setitem__([0], v), lambda t, v: t.fill_(v),
                      lambda t, v: t.masked_fill_(t > 100, v),
                      lambda t, v: t.index_fill_(0, t.new_tensor([0]).long(), v)):
            parity.run_both(lambda m, w=write, v=value: w(
                m.tensor([1, 2, 3]).to(getattr(m, dtype)), v), check_inputs=False)


# ------------------------------------------------------------------ lerp, scatter: order of checks
ORDER = {
    "int lerp with a 0-d float weight": lambda m: m.tensor([1, 2]).lerp(m.tensor([3, 4]),
                                                                        m.tensor(0.5)),
    "int lerp_ with a 0-d float weight": lambda m: m.tensor([1, 2]).lerp_(m.tensor([3, 4]),
                                                                          m.tensor(0.5)),
    "int lerp_ with a 0-d int weight": lambda m: m.tensor([1, 2]).lerp_(m.tensor([3, 4]),
                                                                        m.tensor(2)),
    "bool lerp_ with a 0-d long weight": lambda m: m.tensor([True]).lerp_(m.tensor([True]),
                                                                          m.tensor(2)),
    "bool lerp with a 0-d float weight": lambda m: m.tensor([True]).lerp(m.tensor([True]),
                                                                         m.tensor(0.5)),
    "float16 lerp, float64 weight 1e5": lambda m: (lambda t: t.lerp_(t, m.tensor(
        1e5, dtype=m.float64)))(m.full((3,), 9., dtype=m.float16)),
    "float16 lerp, float64 weight 0.3": lambda m: m.tensor([1., 2], dtype=m.float16).lerp(
        m.tensor([3., 4], dtype=m.float16), m.tensor(0.3, dtype=m.float64)),
    "float32 lerp, float64 weight 0.3": lambda m: m.tensor([1., 2]).lerp(
        m.tensor([3., 4]), m.tensor(0.3, dtype=m.float64)),
    "scatter: 1-d src, 2-d index": lambda m: m.zeros(3, 1).scatter(0, m.tensor([[0]]),
                                                                   m.tensor([5.])),
    "scatter: 0-d src": lambda m: m.zeros(3, 1).scatter(0, m.tensor([[0]]), m.tensor(5.)),
    "scatter: 3-d src": lambda m: m.zeros(3, 1).scatter(0, m.tensor([[0]]),
                                                        m.tensor([[[5.]]])),
    "scatter: dtype before dims": lambda m: m.zeros(3, 1).scatter(
        0, m.tensor([0]), m.tensor([5], dtype=m.int64)),
    "scatter: dtype before src dims": lambda m: m.zeros(3, 1).scatter(
        0, m.tensor([[0]]), m.tensor(5, dtype=m.int64)),
    "scatter: int32 index, other dtype": lambda m: m.zeros(3, 1).scatter(
        0, m.tensor([[0]], dtype=m.int32), m.tensor([5], dtype=m.int64)),
    "scatter: empty index": lambda m: m.zeros(3, 1).scatter(0, m.zeros(0, dtype=m.int64),
                                                            m.tensor([5.])),
    "scatter: empty index, 1000 into int8": lambda m: m.zeros(3, 1, dtype=m.int8).scatter(
        0, m.zeros(0, dtype=m.int64), 1000),
    "scatter: index too big for src": lambda m: m.zeros(3, 2).scatter(
        1, m.tensor([[0], [1], [1], [1]]), m.zeros(4)),
    "scatter_add: 1-d src, 2-d index": lambda m: m.zeros(3, 1).scatter_add(
        0, m.tensor([[0]]), m.tensor([5.])),
    "scatter_add: dtype before dims": lambda m: m.zeros(3, 1).scatter_add(
        0, m.tensor([0]), m.tensor([[5]])),
}


@pytest.mark.parametrize("name", list(ORDER))
def test_checks_in_torchs_order(name):
    parity.run_both(ORDER[name], check_inputs=False)


# ------------------------------------------------------------------ views inside their storage
def _based(n, dtype):
    return lambda m: m.arange(n).to(getattr(m, dtype)) if n else m.tensor([], dtype=getattr(
        m, dtype))


AS_STRIDED = [((1,), (1,), None), ((2,), (1,), None), ((3,), (1,), None), ((3,), (2,), None),
              ((2, 2), (2, 1), None), ((1,), (1,), 5), ((2,), (1,), 2), ((0,), (1,), 10),
              ((2, 0), (1, 1), 7), ((2,), (0,), 5), ((2,), (0,), 6), ((1,), (1,), -1),
              ((2,), (-1,), None), ((7,), (1,), 0), ((3,), (2,), 1), ((), (), 5), ((), (), 6),
              ((0,), (1,), -1), ((2,), (1,), -5), ((100,), (1,), -2), ((-1,), (1,), None),
              ((-1,), (0,), None), ((-1, 2), (0, 1), None), ((2, -1), (1, 1), None),
              ((2**62,), (2**62,), None), ((3,), (2**62,), None), ((1,), (1,), 2**62),
              ((2**40,), (0,), None), ((2,), (1, 1), None), ((2, 2), (1,), None)]


@pytest.mark.parametrize("dtype", ["float16", "int64", "bool"])
@pytest.mark.parametrize("n", [0, 1, 3, 6])
def test_as_strided_never_reads_past_its_storage(n, dtype):
    """The issue's example (an empty float16 storage) and every other geometry: torch refuses
    a view that reaches past the storage, before its offset, or with negative strides."""
    failures = []
    for size, stride, offset in AS_STRIDED:
        def view(m, size=size, stride=stride, offset=offset):
            base = _based(n, dtype)(m)
            result = base.as_strided(size, stride) if offset is None else \
                base.as_strided(size, stride, offset)
            return result.clone() if 0 < result.numel() < 2**20 else result.shape
        try:
            parity.run_both(view)
        except AssertionError as error:
            failures.append(f"{size}, {stride}, {offset}: {error}")
    assert not failures, f"{len(failures)} views differ:\n" + "\n\n".join(failures[:5])


AS_STRIDED_OF_VIEWS = {
    "a slice's storage": lambda m: m.arange(6.)[4:].as_strided((3,), (1,)),
    "a slice, fits": lambda m: m.arange(6.)[4:].as_strided((2,), (1,)),
    "a slice from 0": lambda m: m.arange(6.)[4:].as_strided((3,), (1,), 0),
    "transposed": lambda m: m.arange(6.).t().as_strided((7,), (1,)),
    "expanded": lambda m: m.arange(6.).expand(2, 6).as_strided((7,), (1,)),
    "a transposed matrix": lambda m: m.arange(12.).view(3, 4).T.as_strided((4, 3), (1, 5)),
    "torch.as_strided": lambda m: m.as_strided(m.arange(6.), (2,), (1,), 5),
    "keywords": lambda m: m.arange(6.).as_strided(size=(2,), stride=(1,), storage_offset=5),
    "requires grad": lambda m: m.arange(6., requires_grad=True).as_strided((3,), (1,), 4),
    "from_numpy of a slice": lambda m: m.from_numpy(np.arange(10.)[2:5]).as_strided((4,), (1,)),
    "from_numpy of a stepped array": lambda m: m.from_numpy(np.arange(10.)[::3]).as_strided(
        (4,), (3,)),
    "an empty view": lambda m: m.arange(6.)[:0].as_strided((1,), (1,)),
    "an empty matrix": lambda m: m.zeros(0, 3).as_strided((1,), (1,)),
    "size not a tuple": lambda m: m.arange(6.).as_strided(2, 1),
    "torch.as_strided, size not a tuple": lambda m: m.as_strided(m.arange(6.), 2, 1),
    "stride not a tuple": lambda m: m.arange(6.).as_strided((2,), 1),
    "a float size": lambda m: m.arange(6.).as_strided((2.0,), (1,)),
    "a bool size": lambda m: m.arange(6.).as_strided((True,), (1,)),
    "a float stride": lambda m: m.arange(6.).as_strided((2,), (1.5,)),
    "a float offset": lambda m: m.as_strided(m.arange(6.), (2,), (1,), 1.5),
    "numpy ints": lambda m: m.arange(6.).as_strided((np.int64(2),), (1,), np.int64(1)),
    "a 0-d tensor size": lambda m: m.arange(6.).as_strided((m.tensor(2),), (1,)),
}


@pytest.mark.parametrize("name", list(AS_STRIDED_OF_VIEWS))
def test_as_strided_of_views_and_arguments(name):
    parity.run_both(AS_STRIDED_OF_VIEWS[name])
