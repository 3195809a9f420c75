"""Printed tensors must match PyTorch character for character.

Most tests build the same values in torch and in the engine and compare
``repr``.  A few engine-only tests at the end check hard-coded strings and run
without torch.
"""
import math

import numpy as np
import pytest

import engine
from engine.fidelity import dtypes as _dtype
from engine.fidelity.printing import (
    get_printoptions,
    printoptions,
    set_printoptions,
    tensor_format,
    tensor_repr,
)


# ---------------------------------------------------------------- building engine tensors
class _FakeGradFn:
    """Stands in for a recorded operation until autograd exists: printing reads only name()."""

    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name


def _engine_tensor(data, requires_grad=False, grad_fn=None):
    """A real engine tensor over ``data``, with autograd's two printed attributes set."""
    tensor = engine.from_numpy(np.array(data, order="C"))
    tensor.requires_grad = requires_grad
    tensor.grad_fn = grad_fn
    return tensor


def make_engine_like(torch_tensor, requires_grad=False, grad_fn_name=None):
    """An engine tensor with the values and dtype of ``torch_tensor``."""
    data = torch_tensor.detach().numpy().copy()
    grad_fn = _FakeGradFn(grad_fn_name) if grad_fn_name is not None else None
    return _engine_tensor(data, requires_grad=requires_grad or grad_fn is not None,
                          grad_fn=grad_fn)


# ---------------------------------------------------------------- engine-only tests
def _e(values, dtype, **kwargs):
    np_dtype = dtype.numpy_dtype
    return _engine_tensor(np.array(values, dtype=np_dtype), **kwargs)


def test_hard_coded_basic_strings():
    assert repr(_e([1.0, 2.5, -3.0], _dtype.float32)) == "tensor([ 1.0000,  2.5000, -3.0000])"
    assert repr(_e([1.0, 2.0], _dtype.float32)) == "tensor([1., 2.])"
    assert repr(_e([1, -20], _dtype.int64)) == "tensor([  1, -20])"
    assert repr(_e([1, 2], _dtype.int32)) == "tensor([1, 2], dtype=torch.int32)"
    assert repr(_e([True, False], _dtype.bool)) == "tensor([ True, False])"
    assert repr(_e(0.5, _dtype.float64)) == "tensor(0.5000, dtype=torch.float64)"
    assert repr(_e([], _dtype.float32)) == "tensor([])"
    assert repr(_e([], _dtype.int64)) == "tensor([], dtype=torch.int64)"
    assert repr(_e(np.zeros((2, 0)), _dtype.float32)) == "tensor([], size=(2, 0))"
    assert repr(_e([[1.0, 2.0], [3.0, 4.0]], _dtype.float32)) == \
        "tensor([[1., 2.],\n        [3., 4.]])"


def test_hard_coded_special_values_and_sci():
    assert repr(_e([math.nan, math.inf, -math.inf, -0.0], _dtype.float32)) == \
        "tensor([nan, inf, -inf, -0.])"
    assert repr(_e([1e-5, 1.0], _dtype.float32)) == "tensor([1.0000e-05, 1.0000e+00])"
    assert repr(_e([0.1], _dtype.float32)) == "tensor([0.1000])"
    with printoptions(precision=10):
        assert repr(_e([0.1], _dtype.float32)) == "tensor([0.1000000015])"


def test_hard_coded_suffixes():
    t = _e([1.0, 2.0], _dtype.float64, requires_grad=True)
    assert repr(t) == "tensor([1., 2.], dtype=torch.float64, requires_grad=True)"
    t = _e([2.0], _dtype.float32, requires_grad=True, grad_fn=_FakeGradFn("MulBackward0"))
    assert repr(t) == "tensor([2.], grad_fn=<MulBackward0>)"
    assert tensor_repr(_e([[1.0], [2.0]], _dtype.float32), prefix="Param(") == \
        "Param([[1.],\n       [2.]])"


def test_hard_coded_summary_and_options():
    assert repr(_e(np.arange(10), _dtype.int64)) == "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"
    with printoptions(threshold=5):
        assert repr(_e(np.arange(10), _dtype.int64)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    assert get_printoptions() == dict(precision=4, threshold=1000, edgeitems=3,
                                      linewidth=80, sci_mode=None)
    set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == math.inf
    set_printoptions(precision=2)
    assert get_printoptions()["precision"] == 2
    with printoptions(sci_mode=True):
        assert get_printoptions()["sci_mode"] is True
    assert get_printoptions()["sci_mode"] is None


def test_hard_coded_format():
    assert format(_e(3.14159, _dtype.float32), ".2f") == "3.14"
    assert f"{_e(7, _dtype.int64)}" == "7"
    assert f"{_e(True, _dtype.bool)}" == "True"
    assert f"{_e([1, 2], _dtype.int64)}" == "tensor([1, 2])"
    with pytest.raises(TypeError):
        format(_e([1.0, 2.0], _dtype.float32), ".2f")


# ---------------------------------------------------------------- parity with torch
# The engine-only tests above must run without torch, so torch is not skipped
# at module level: each parity test asks for the ``needs_torch`` fixture.
try:
    import torch
except ImportError:
    torch = None


@pytest.fixture
def needs_torch():
    return pytest.importorskip("torch", reason="torch not installed: parity tests skipped")


def parity(test):
    """Mark a test as a torch comparison (``-m torch``) that skips without torch."""
    return pytest.mark.torch(pytest.mark.usefixtures("needs_torch")(test))


ALL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64",
              "float16", "float32", "float64"]
FLOAT_DTYPES = ["float16", "float32", "float64"]


def check(torch_tensor):
    """repr of the torch tensor equals the engine's for the same values."""
    grad_fn_name = type(torch_tensor.grad_fn).__name__ if torch_tensor.grad_fn else None
    engine_tensor = make_engine_like(torch_tensor, requires_grad=torch_tensor.requires_grad,
                                     grad_fn_name=grad_fn_name)
    expected = repr(torch_tensor)
    got = tensor_repr(engine_tensor)
    assert got == expected, f"\nengine:\n{got}\ntorch:\n{expected}"


def both_set_printoptions(**kwargs):
    torch.set_printoptions(**kwargs)
    set_printoptions(**kwargs)


VALUE_SETS = {
    "small": [1e-5, 2e-5, 3e-6],
    "large": [1e8, 2.5e8, 123456789.0],
    "mixed": [1e-5, 1.0, 1e8],
    "integral": [1.0, 2.0, 3.0, 100.0],
    "mixed_signs": [-1.5, 2.25, -0.125, 7.0],
    "all_negative": [-1.5, -2.25, -1000.0],
    "nan_inf": [math.nan, math.inf, -math.inf, 1.5],
    "only_nonfinite": [math.nan, math.inf, -math.inf],
    "zeros": [0.0, -0.0, 0.0],
    "neg_zero_mixed": [-0.0, 1.5, -2.0],
    "neg_zero_int": [-0.0, 1.0, -2.0],
    "thirds": [1 / 3, 2 / 3, 0.1],
    "big_int_float": [123456789.0, 1.0],
    "ratio_edge": [1.0, 1000.0],
    "ratio_over": [1.0, 1000.5],
    "tiny_edge": [1e-4, 0.5],
    "int_with_nan": [1.0, math.nan, 20.0],
}


@parity
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name", sorted(VALUE_SETS))
def test_value_sets(name, dtype):
    check(torch.tensor(VALUE_SETS[name]).to(getattr(torch, dtype)))


@parity
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (2, 0), (0, 3, 2), (2, 3, 4),
                                   (1, 1, 1, 1)])
def test_shapes(shape, dtype):
    n = int(np.prod(shape))
    values = torch.arange(n, dtype=torch.float64).reshape(shape) * 1.5 - 4
    check(values.to(getattr(torch, dtype)))


@parity
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_scalars(dtype):
    for value in [0, 1, -3.5, 0.1, 1e-7, 1e10, math.nan, -math.inf, -0.0, 255]:
        check(torch.tensor(value, dtype=torch.float64).to(getattr(torch, dtype)))


@parity
@pytest.mark.parametrize("dtype", ["int64", "float32", "float64", "bool", "float16"])
@pytest.mark.parametrize("make", [
    lambda: torch.arange(1001.0),
    lambda: torch.arange(1600.0).reshape(40, 40) / 7,
    lambda: torch.arange(3000.0).reshape(3, 1000) - 1500,
    lambda: torch.arange(2000.0).reshape(2, 1000),
    lambda: torch.arange(24000.0).reshape(10, 20, 30 * 4) / 3,
    lambda: torch.arange(1000.0),
    lambda: torch.linspace(-1e-3, 1e6, 1200),
], ids=["1001", "40x40", "3x1000", "2x1000", "3d", "exactly1000", "linspace"])
def test_big_tensors(make, dtype):
    check(make().to(getattr(torch, dtype)))


@parity
def test_non_contiguous_data():
    t = torch.arange(24.0).reshape(4, 6) / 3
    check(t.t())
    check(t[::2].flip(1))
    # make_engine_like copies; here the engine reads a strided numpy view.
    view = make_engine_like(t)
    view._data = view._data[::2, ::-1].T
    assert tensor_repr(view) == repr(t[::2].flip(1).t())


@parity
@pytest.mark.parametrize("dtype", FLOAT_DTYPES + ["int64"])
def test_long_rows_wrap(dtype):
    rng = np.random.default_rng(0)
    check(torch.tensor(rng.uniform(-100, 100, 30)).to(getattr(torch, dtype)))
    check(torch.tensor(rng.uniform(-1e7, 1e7, (3, 30))).to(getattr(torch, dtype)))
    check(torch.tensor(rng.uniform(1, 10, 30) * 1e-6).to(getattr(torch, dtype)))


OPTIONS = [
    dict(precision=2), dict(precision=0), dict(precision=8), dict(sci_mode=True),
    dict(sci_mode=False), dict(threshold=5), dict(edgeitems=1), dict(edgeitems=0),
    dict(edgeitems=0, threshold=5), dict(linewidth=40), dict(linewidth=10),
    dict(profile="full"), dict(profile="short"), dict(profile="default"),
    dict(threshold=5, edgeitems=1, linewidth=30, precision=3),
    dict(threshold=0), dict(precision=2, sci_mode=True),
]

OPTION_INPUTS = {
    "arange10": lambda: torch.arange(10),
    "floats": lambda: torch.tensor([0.1, 1 / 3, 2.5, -7.25, 12.0]),
    "thirds64": lambda: torch.tensor([1 / 3, 2 / 3], dtype=torch.float64),
    "big": lambda: torch.arange(1200.0).reshape(30, 40) / 9,
    "mixed_mag": lambda: torch.tensor([[1e-5, 1.0], [1e8, -3.0]]),
    "integral": lambda: torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] * 3),
    "cube": lambda: torch.arange(60.0).reshape(3, 4, 5),
    "scalar": lambda: torch.tensor(1 / 3),
    "bool": lambda: torch.arange(12).reshape(3, 4) % 3 == 0,
    "empty": lambda: torch.zeros(0, 3),
    "half": lambda: torch.tensor([0.1, 1e-3, 300.0], dtype=torch.float16),
    "special": lambda: torch.tensor([math.nan, -0.0, 2.0, math.inf]),
    "requires_grad": lambda: torch.arange(30.0, dtype=torch.float64).requires_grad_(),
}


@parity
@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("name", sorted(OPTION_INPUTS))
def test_print_options(name, opts):
    both_set_printoptions(**opts)
    check(OPTION_INPUTS[name]())


@parity
def test_printoptions_context_matches_torch():
    with torch._tensor_str.printoptions(precision=2, sci_mode=True), \
            printoptions(precision=2, sci_mode=True):
        check(torch.tensor([0.1, 1 / 3]))
        assert get_printoptions() == torch._tensor_str.get_printoptions()
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    for profile in ["full", "short", "default"]:
        both_set_printoptions(profile=profile)
        assert get_printoptions() == torch._tensor_str.get_printoptions()


@parity
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_requires_grad_and_grad_fn(dtype):
    d = getattr(torch, dtype)
    x = torch.tensor([1.0, 2.5, -3.0], dtype=d, requires_grad=True)
    check(x)
    check(x * 2)
    check((x * 2).sum())
    check(torch.tensor(2.0, dtype=d, requires_grad=True))
    long = torch.linspace(-1000, 1000, 40, dtype=d).requires_grad_()
    check(long)
    check(long * 3)
    check((long * 3).reshape(8, 5))
    check(torch.tensor([123456.75] * 7, dtype=d, requires_grad=True))
    check(torch.tensor([123456.75] * 7, dtype=d, requires_grad=True) * 1)
    check(torch.zeros(0, 2, dtype=d, requires_grad=True))


@parity
def test_suffix_wrapping_at_line_width():
    # Lengths around the point where a suffix moves to its own line.
    for n in range(1, 12):
        x = torch.full((n,), 1.25, dtype=torch.float64, requires_grad=True)
        check(x)
        check(x * 2)
        check(torch.full((n,), 3, dtype=torch.int16))
    both_set_printoptions(linewidth=30)
    check(torch.tensor([1.5, 2.5], dtype=torch.float64, requires_grad=True) * 2)


@parity
def test_prefix_indentation_like_parameter():
    p = torch.nn.Parameter(torch.arange(6.0).reshape(2, 3) / 7)
    engine_like = make_engine_like(p, requires_grad=True)
    assert "Parameter containing:\n" + tensor_repr(engine_like) == repr(p)
    t = torch.arange(6.0).reshape(2, 3)
    got = tensor_repr(make_engine_like(t), prefix="Buffer(")
    assert got == "Buffer([[0., 1., 2.],\n        [3., 4., 5.]])"


@parity
def test_default_dtype_float64():
    torch.set_default_dtype(torch.float64)
    _dtype.set_default_dtype(_dtype.float64)
    check(torch.tensor([1.5, 2.0], dtype=torch.float32))
    check(torch.tensor([1.5, 2.0], dtype=torch.float64))
    check(torch.zeros(0, dtype=torch.float64))
    check(torch.zeros(0, dtype=torch.float32))


@parity
def test_format_matches_torch():
    for value, spec in [(3.14159, ".2f"), (1 / 3, ""), (2.0, "10.3e"), (1e-8, "g")]:
        t = torch.tensor(value)
        assert tensor_format(make_engine_like(t), spec) == format(t, spec)
    for value, spec in [(7, "5d"), (7, ""), (-3, "+d")]:
        t = torch.tensor(value)
        assert tensor_format(make_engine_like(t), spec) == format(t, spec)
    t = torch.tensor(True)
    assert tensor_format(make_engine_like(t), "") == format(t, "")
    t = torch.tensor([1.0, 2.0])
    assert tensor_format(make_engine_like(t), "") == format(t, "")


_MAGNITUDES = [1e-12, 1e-8, 1e-5, 1e-4, 1e-3, 0.1, 1.0, 10.0, 999.0, 1e3, 1e4, 1e6,
               1e8, 1e9, 1e15, 1e30]
_RANDOM_OPTIONS = [{}, {}, {}, dict(precision=2), dict(precision=6), dict(sci_mode=True),
                   dict(sci_mode=False), dict(linewidth=50), dict(threshold=20, edgeitems=2)]


@parity
@pytest.mark.parametrize("seed", range(300))
def test_random_values(seed):
    rng = np.random.default_rng(seed)
    dtype = ["float32", "float64", "float16"][seed % 3]
    shape = [(), (1,), (5,), (13,), (3, 4), (2, 3, 2), (7, 9)][rng.integers(7)]
    scale = _MAGNITUDES[rng.integers(len(_MAGNITUDES))]
    kind = rng.integers(5)
    if kind == 0:
        values = rng.standard_normal(shape) * scale
    elif kind == 1:
        values = rng.uniform(0, 1, shape) * scale
    elif kind == 2:  # whole numbers
        values = np.round(rng.standard_normal(shape) * scale)
    elif kind == 3:  # many orders of magnitude at once
        values = rng.standard_normal(shape) * 10.0 ** rng.uniform(-6, 9, shape)
    else:
        values = np.round(rng.standard_normal(shape) * scale, 2)
    values = np.asarray(values, dtype=np.float64)
    if values.size > 2 and rng.random() < 0.3:
        flat = values.reshape(-1)
        flat[rng.integers(flat.size)] = [math.nan, math.inf, -math.inf, 0.0, -0.0][
            rng.integers(5)]
    both_set_printoptions(**_RANDOM_OPTIONS[rng.integers(len(_RANDOM_OPTIONS))])
    check(torch.tensor(values).to(getattr(torch, dtype)))
