"""engine.nn pooling beyond test_pool_parity.py against torch 2.15: F.max_pool1d/2d/3d's
``*_with_indices`` forms and the return_indices dispatch, F.adaptive_max_pool1d/2d (and their
``*_with_indices``, torch.adaptive_max_pool1d), F.lp_pool1d/2d, F.max_unpool1d/2d, and the
modules nn.AdaptiveMaxPool1d/2d, nn.LPPool1d/2d, nn.MaxUnpool1d/2d, nn.Fold, nn.Unfold,
nn.Softmax2d.

Values bit for bit (every float dtype the engine has: float16, float32, float64; the engine
has no bfloat16), indices (the first of equal maxima, the last nan), shapes, strides (a
channels-last input gives channels-last results, as torch's kernels do), reprs, grad_fn names
and what the nodes save, gradients by autograd.grad with create_graph (second derivatives
too), gradcheck in float64, module reprs and state_dicts, and torch's errors word for word
(the whole message) for wrong inputs: dims, sizes, dtypes, output sizes, argument types, calls
with too many or unknown arguments.
"""
import math

import numpy as np
import pytest

import engine
from engine.autograd import gradcheck, gradgradcheck

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

FLOATS = ["float16", "float32", "float64"]


def _same(code, exact=True, **arrays):
    """``code`` (leaving ``r``) run with each library (``m``; ``F`` its nn.functional, ``nn``
    its nn; ``arrays`` as tensors of each): the same results (parity.assert_same, ``exact``
    or to float rounding), or the same error, its type and its whole message."""
    results = []
    for m in (torch, engine):
        names = {k: (torch.from_numpy(v.copy()) if m is torch else engine.from_numpy(v.copy()))
                 for k, v in arrays.items()}
        names.update(F=m.nn.functional, nn=m.nn)
        results.append(parity.outcome(m, code, names))
    expected, got = results
    if isinstance(expected, tuple) and len(expected) == 2 and isinstance(expected[0], str) \
            and isinstance(expected[1], str):
        assert got == expected, code
    else:
        parity.assert_same(got, expected, exact=exact)
    return expected


def _values(shape, dtype="float64", seed=0):
    return parity.make_values(shape, dtype, seed, low=-2, high=2)


def _layouts(shape, dtype="float64", seed=0):
    """Engine tensors of ``shape`` laid out in several ways: row-major, the last two dims
    transposed, every other element of a longer last dim, and channels-last (4-d)."""
    found = {"contiguous": engine.from_numpy(_values(shape, dtype, seed))}
    if 0 in shape:
        return found
    if len(shape) >= 2:
        found["transposed"] = engine.from_numpy(
            _values(shape[:-2] + shape[-2:][::-1], dtype, seed)).transpose(-1, -2)
    found["strided"] = engine.from_numpy(_values(shape[:-1] + (2 * shape[-1],), dtype,
                                                 seed))[..., ::2]
    if len(shape) == 4 and shape[1] > 1:
        found["channels_last"] = engine.from_numpy(_values(shape, dtype, seed)).contiguous(
            memory_format=engine.channels_last)
    return found


def _gradients(m, fn, x):
    """fn(x) (its first result), its grad_fn's name, x's gradient (create_graph) and its
    grad_fn's name, and the second derivative with respect to the incoming gradient."""
    x = x.detach().requires_grad_(True)
    out = fn(m, x)
    if isinstance(out, tuple):
        out = out[0]
    m.manual_seed(0)
    grad = m.randn(out.shape, dtype=out.dtype).requires_grad_()
    (grad_x,) = m.autograd.grad(out, x, grad, create_graph=True)
    if out.numel() == 0 or not grad_x.requires_grad:
        return out, out.grad_fn.name(), grad_x
    (grad_grad,) = m.autograd.grad((grad_x * grad_x).sum(), grad)
    return out, out.grad_fn.name(), grad_x, grad_x.grad_fn.name(), grad_grad


# ====================================================================== max_poolNd_with_indices
WITH_INDICES = {
    "1d": ("max_pool1d", (2, 3, 7), (3, 2, 1)),
    "1d unbatched": ("max_pool1d", (3, 7), (2,)),
    "2d": ("max_pool2d", (2, 3, 7, 6), (3, 2, 1)),
    "2d unbatched": ("max_pool2d", (3, 7, 6), ((2, 3), 1)),
    "3d": ("max_pool3d", (1, 2, 4, 5, 6), (2, 2, 1)),
}


@pytest.mark.parametrize("case", list(WITH_INDICES))
def test_max_pool_with_indices_always_returns_the_indices(case):
    name, shape, args = WITH_INDICES[case]
    x = parity.make_tensor(shape, "float32", low=-2, high=2)
    for kwargs in ({}, {"return_indices": False}, {"return_indices": True}):
        parity.run_both(lambda m, x, kwargs=kwargs: getattr(
            m.nn.functional, name + "_with_indices")(x, *args, **kwargs), x)
    parity.run_both(lambda m, x: getattr(m.nn.functional, name)(x, *args, return_indices=True),
                    x)
    parity.run_both(lambda m, x: getattr(m.nn.functional, name)(x, *args), x)
    parity.run_both(_gradients, lambda m, x: getattr(m.nn.functional, name + "_with_indices")(
        x, *args), x.double())


@pytest.mark.parametrize("name", ["max_pool1d", "max_pool2d", "max_pool3d"])
def test_max_pool_dispatch_and_its_errors(name):
    """F.max_poolNd is torch's boolean_dispatch: return_indices (by keyword, or the 7th
    argument) picks max_poolNd_with_indices or _max_poolNd, whose names Python's errors show;
    the operator each calls parses its arguments under its own name."""
    shape = {"max_pool1d": (2, 3, 7), "max_pool2d": (2, 3, 7, 6),
             "max_pool3d": (1, 2, 4, 5, 6)}[name]
    x = _values(shape, "float32")
    for call in ("F.{n}(x, 2, 2, 0, 1, False, True)[1]", "F.{n}(x, 2, 2, 0, 1, False, 0)",
                 "F.{n}(x, 2, return_indices='yes')[1]", "F.{n}(x, 2, return_indices=None)",
                 "F.{n}(x, kernel_size=2, return_indices=True)[1]",
                 "F.{n}(input=x, kernel_size=2)",
                 "F.{n}(x, 2, 2, 0, 1, False, False, 3)", "F.{n}(x, 2, 2, 0, 1, False, True, 3)",
                 "F.{n}(x, 2, foo=1)", "F.{n}(x, 2, return_indices=True, foo=1)",
                 "F.{n}(x)", "F.{n}(x, return_indices=True)",
                 "F.{n}(x, 2.0)", "F.{n}(x, 2.0, return_indices=True)",
                 "F.{n}(x.tolist(), 2)", "F.{n}(x.tolist(), 2, return_indices=True)",
                 "F.{n}(x, 2, (2.0, 1), return_indices=True)",
                 "F.{n}(x, 2, 2, 'a', return_indices=True)",
                 "F.{n}(x, 2, 2, 0, 1.5, return_indices=True)",
                 "F.{n}(x, 2, ceil_mode=None)", "F.{n}(x, 2, ceil_mode=1)",
                 "F.{n}(x, 2, ceil_mode=None, return_indices=True)",
                 "F.{n}(x, (2, 2.0), ceil_mode=None)", "F.{n}(x, (2, 2.0), ceil_mode=False)",
                 "F.{n}_with_indices(x, 2, 2, 0, 1, False, False, 3)",
                 "F.{n}_with_indices(x, 2, foo=3)", "F.{n}_with_indices(x)",
                 "F.{n}_with_indices(x, 2.0)", "F.{n}_with_indices(x.tolist(), 2)",
                 "F.{n}_with_indices(x, 2, ceil_mode=None)",
                 "F.{n}_with_indices(x, 2, None, 0, 1, True)[1]",
                 "F.{n}_with_indices(x, 2, [], 0, 1, True)[1]",
                 "F.{n}_with_indices(x.bool(), 2)", "F.{n}_with_indices(x.long(), 2)",
                 "F.{n}_with_indices(x[:0], 2)[1]", "F.{n}_with_indices(x[None, None], 2)",
                 "(F.{n}.__name__, F.{n}_with_indices.__name__)"):
        _same("r = " + call.format(n=name), x=x)


def test_torch_max_pool1d_with_indices_keeps_its_cpp_signature():
    x = _values((3, 7), "float32")
    for call in ("m.max_pool1d_with_indices(x, 2, (), 0, 1, True)",
                 "m.max_pool1d_with_indices(x, 2, None, 0, 1, True)[1]",
                 "m.max_pool1d_with_indices(x, 2, (), 0, 1, True, True)",
                 "m.max_pool1d_with_indices(x, 2, return_indices=True)",
                 "m.max_pool1d_with_indices(x, (2, 2))", "m.max_pool1d(x, 2, (), 0, 1, True)"):
        _same("r = " + call, x=x)


# ====================================================================== adaptive_max_pool1d/2d
ADAPTIVE_2D_SHAPES = [(2, 3, 7, 6), (3, 7, 6), (0, 2, 5, 4), (1, 2, 1, 1), (2, 1, 3, 5)]
ADAPTIVE_2D_SIZES = [3, (3, 4), 1, (1, 1), (7, 6), (10, 13), (None, 2), (4, None), (2, 0),
                     [5, 1]]


@pytest.mark.parametrize("output_size", ADAPTIVE_2D_SIZES, ids=str)
@pytest.mark.parametrize("shape", ADAPTIVE_2D_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", FLOATS)
def test_adaptive_max_pool2d_values_indices_and_layout(dtype, shape, output_size):
    """Values and indices bit for bit; a channels-last input gives channels-last values and
    indices, any other layout row-major ones."""
    for x in _layouts(shape, dtype).values():
        parity.run_both(lambda m, x: m.nn.functional.adaptive_max_pool2d(x, output_size, True),
                        x)
        parity.run_both(lambda m, x: m.nn.functional.adaptive_max_pool2d(x, output_size), x)
        parity.run_both(lambda m, x: m.nn.functional.adaptive_max_pool2d_with_indices(
            x, output_size), x)


@pytest.mark.parametrize("output_size", ADAPTIVE_2D_SIZES, ids=str)
@pytest.mark.parametrize("shape", ADAPTIVE_2D_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adaptive_max_pool2d_gradients(dtype, shape, output_size):
    """The gradient goes to each window's max (added up where windows share it), laid out as
    the input; its own gradient reads the incoming one back there. An empty output refuses
    its gradient (torch's check of grad_output)."""
    for x in _layouts(shape, dtype).values():
        parity.run_both(_gradients, lambda m, x: m.nn.functional.adaptive_max_pool2d(
            x, output_size), x)


ADAPTIVE_1D_SHAPES = [(2, 3, 7), (3, 7), (0, 2, 5), (1, 1, 1), (4, 1)]
ADAPTIVE_1D_SIZES = [3, (4,), 1, 7, 10, [2], 0]


@pytest.mark.parametrize("output_size", ADAPTIVE_1D_SIZES, ids=str)
@pytest.mark.parametrize("shape", ADAPTIVE_1D_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", FLOATS)
def test_adaptive_max_pool1d_values_indices_layout_and_gradients(dtype, shape, output_size):
    for x in _layouts(shape, dtype).values():
        for fn in (lambda m, x: m.nn.functional.adaptive_max_pool1d(x, output_size, True),
                   lambda m, x: m.nn.functional.adaptive_max_pool1d(x, output_size),
                   lambda m, x: m.nn.functional.adaptive_max_pool1d_with_indices(
                       x, output_size),
                   lambda m, x: m.adaptive_max_pool1d(x, output_size)):
            parity.run_both(fn, x)
        if dtype != "float16":
            parity.run_both(_gradients, lambda m, x: m.nn.functional.adaptive_max_pool1d(
                x, output_size), x)


def test_adaptive_max_pool_nans_ties_and_infinities():
    """torch's loop keeps a value when value > max or isnan(value): the last nan of a window
    wins, else the first of equal maxima; a window of -inf keeps its first element."""
    nan, inf = math.nan, math.inf
    values = np.array([[1, nan, 3, 3], [nan, 2, 3, 0], [5, 5, -inf, -inf], [5, 5, -inf, -inf]])
    for array in (values, np.full((3, 3), -inf), np.full((3, 3), nan), np.ones((3, 4))):
        for dtype in FLOATS:
            x = engine.from_numpy(array[None].astype(dtype))
            for size in (1, 2, (2, 3), (5, 7), (3, 1)):
                parity.run_both(lambda m, x, size=size: m.nn.functional.adaptive_max_pool2d(
                    x, size, True), x)
                parity.run_both(lambda m, x, size=size: m.nn.functional.adaptive_max_pool1d(
                    x, size[-1] if isinstance(size, tuple) else size, True), x)
            if dtype == "float64":
                parity.run_both(_gradients, lambda m, x: m.nn.functional.adaptive_max_pool2d(
                    x, (3, 2)), x)


def test_adaptive_max_pool2d_node_saves_like_torch():
    def fn(m, x):
        out, indices = m.nn.functional.adaptive_max_pool2d(x, (3, 2), True)
        node = out.grad_fn
        (grad,) = m.autograd.grad(out, x, m.ones_like(out).requires_grad_(), create_graph=True)
        return (node.name(), node._saved_self, node._saved_result1, indices.requires_grad,
                indices.grad_fn, [n.name() for n, _ in grad.grad_fn.next_functions],
                grad.grad_fn._saved_indices,
                sorted(a for a in dir(node) if a.startswith("_saved")),
                sorted(a for a in dir(grad.grad_fn) if a.startswith("_saved")),
                m.nn.functional.adaptive_max_pool1d(x[0], 2).grad_fn.name(),
                m.nn.functional.adaptive_max_pool1d(x[0], 2).grad_fn.next_functions[0][0].name())

    parity.run_both(fn, parity.make_tensor((1, 2, 5, 4), "float64", low=-2,
                                           high=2).requires_grad_())


@pytest.mark.parametrize("output_size", [(3, 4), 2, (5, 7), (None, 3)], ids=str)
def test_adaptive_max_pool_gradcheck(output_size):
    x = engine.from_numpy(np.random.default_rng(0).permutation(60).reshape(1, 3, 5, 4) / 7.0)
    x.requires_grad_()
    fn = lambda x: engine.nn.functional.adaptive_max_pool2d(x, output_size)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    size = output_size[-1] if isinstance(output_size, tuple) else output_size
    fn = lambda x: engine.nn.functional.adaptive_max_pool1d(x[0], size)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_adaptive_max_pool_forward_mode():
    def fn(m, x, t):
        return m.func.jvp(lambda x: m.nn.functional.adaptive_max_pool2d(x, (3, 2)), (x,), (t,))

    rng = np.random.default_rng(1)
    parity.run_both(fn, rng.standard_normal((2, 5, 4)), rng.standard_normal((2, 5, 4)))


ADAPTIVE_ERRORS = [
    # output sizes: negative, too few or many, None where torch takes none, not ints
    "F.adaptive_max_pool2d(x, -1)", "F.adaptive_max_pool2d(x, (2, -1))",
    "F.adaptive_max_pool2d(x, (-2, -3))", "F.adaptive_max_pool2d(x[:0], -3)",
    "F.adaptive_max_pool2d(x, 0)", "F.adaptive_max_pool2d(x, (3,))",
    "F.adaptive_max_pool2d(x, (3, 3, 3))", "F.adaptive_max_pool2d(x, ())",
    "F.adaptive_max_pool2d(x, [])", "F.adaptive_max_pool2d(x, (None, None, 3))",
    "F.adaptive_max_pool2d(x, (1, 2, 3, 4))", "F.adaptive_max_pool2d(x[0, 0], (1, 2, 3, 4))",
    "F.adaptive_max_pool2d(x, (None, None))", "F.adaptive_max_pool2d(x, 2.0)",
    "F.adaptive_max_pool2d(x, (2.0, 2))", "F.adaptive_max_pool2d(x, (2, 2.5))",
    "F.adaptive_max_pool2d(x, (None, 2.5))", "F.adaptive_max_pool2d(x, [None, 'a'])",
    "F.adaptive_max_pool2d(x, None)", "F.adaptive_max_pool2d(x, 'a')",
    "F.adaptive_max_pool2d(x, True)", "F.adaptive_max_pool2d(x, (True, 2))",
    "F.adaptive_max_pool2d(x, m.tensor(2))", "F.adaptive_max_pool2d(x, (m.tensor(2), 3))",
    "F.adaptive_max_pool2d(x, m.tensor([2, 3]))", "F.adaptive_max_pool2d(x, m.tensor([2., 3]))",
    "F.adaptive_max_pool2d(x, {2: 3, 4: 5})", "F.adaptive_max_pool2d(x, 2 ** 70)",
    "F.adaptive_max_pool2d_with_indices(x, (3,))",
    # inputs: dims, empty non-batch dims, dtypes, not a tensor
    "F.adaptive_max_pool2d(x[0, 0], 2)", "F.adaptive_max_pool2d(x[None], 2)",
    "F.adaptive_max_pool2d(x[0, 0], (3,))", "F.adaptive_max_pool2d(x[0, 0], -1)",
    "F.adaptive_max_pool2d(x[:, :0], 2)", "F.adaptive_max_pool2d(x[:, :, :0], 2)",
    "F.adaptive_max_pool2d(x[:, :, :, :0], -1)", "F.adaptive_max_pool2d(x[0, :0], 2)",
    "F.adaptive_max_pool2d(x[0, :, :0], 2)", "F.adaptive_max_pool2d(x[:0], 2)",
    "F.adaptive_max_pool2d(x.long(), 2)", "F.adaptive_max_pool2d(x.int(), 2)",
    "F.adaptive_max_pool2d(x.bool(), 2)", "F.adaptive_max_pool2d(x.bool(), (1, 1))",
    "F.adaptive_max_pool2d(x.long(), 0)", "F.adaptive_max_pool2d(x.long(), -1)",
    "F.adaptive_max_pool2d(x.long(), (3,))", "F.adaptive_max_pool2d(x[:0].long(), 2)",
    "F.adaptive_max_pool2d(x[:, :, :0].long(), 2)", "F.adaptive_max_pool2d(x.to(m.uint8), 2)",
    "F.adaptive_max_pool2d(x.long().contiguous(memory_format=m.channels_last), 2)",
    "F.adaptive_max_pool2d(x.bool().contiguous(memory_format=m.channels_last), 2)",
    "F.adaptive_max_pool2d(x.tolist(), 2)", "F.adaptive_max_pool2d(x.tolist(), (2, 2))",
    "F.adaptive_max_pool2d(3, (2, 2))",
    # calls: keywords, positions, too many or unknown arguments
    "F.adaptive_max_pool2d(input=x, output_size=2)",
    "F.adaptive_max_pool2d(x, output_size=2, return_indices=True)",
    "F.adaptive_max_pool2d(x, 2, False)", "F.adaptive_max_pool2d(x, 2, 1)",
    "F.adaptive_max_pool2d(x, 2, False, 3)", "F.adaptive_max_pool2d(x, 2, True, 3)",
    "F.adaptive_max_pool2d(x, 2, foo=3)", "F.adaptive_max_pool2d(x, 2, True, foo=3)",
    "F.adaptive_max_pool2d(x)", "F.adaptive_max_pool2d_with_indices(x, 2, False)",
    "F.adaptive_max_pool2d_with_indices(x, 2, False, 1)",
    "(F.adaptive_max_pool2d.__name__, F.adaptive_max_pool2d_with_indices.__name__)",
    # 1-d
    "F.adaptive_max_pool1d(z, -1)", "F.adaptive_max_pool1d(z, (3, 2))",
    "F.adaptive_max_pool1d(z, ())", "F.adaptive_max_pool1d(z, (None,))",
    "F.adaptive_max_pool1d(z, None)", "F.adaptive_max_pool1d(z, 2.0)",
    "F.adaptive_max_pool1d(z, True)", "F.adaptive_max_pool1d(z, m.tensor(2))",
    "F.adaptive_max_pool1d(z, m.tensor([2]))", "F.adaptive_max_pool1d(z, m.tensor(2.))",
    "F.adaptive_max_pool1d(z, 2 ** 70)", "F.adaptive_max_pool1d(z, -2 ** 40)",
    "F.adaptive_max_pool1d(z[0, 0], 2)", "F.adaptive_max_pool1d(z[None], 2)",
    "F.adaptive_max_pool1d(z[0, 0], (3, 2))", "F.adaptive_max_pool1d(z[:, :0], (3, 2))",
    "F.adaptive_max_pool1d(z.long(), (3, 2))", "F.adaptive_max_pool1d(z.long(), -1)",
    "F.adaptive_max_pool1d(z[:, :0], 2)", "F.adaptive_max_pool1d(z[:, :, :0], 2)",
    "F.adaptive_max_pool1d(z[0, :, :0], 2)", "F.adaptive_max_pool1d(z[0, :0], 2)",
    "F.adaptive_max_pool1d(z.long(), 2)", "F.adaptive_max_pool1d(z.bool(), 2)",
    "F.adaptive_max_pool1d(z.tolist(), 2)", "F.adaptive_max_pool1d(z, 2, False, 1)",
    "F.adaptive_max_pool1d(z, 2, True, foo=1)", "F.adaptive_max_pool1d(z)",
    "F.adaptive_max_pool1d(z, output_size=2)", "F.adaptive_max_pool1d(input=z, output_size=2)",
    "m.adaptive_max_pool1d(z, 2, True)", "m.adaptive_max_pool1d(z)",
    "m.adaptive_max_pool1d(input=z, output_size=2)", "m.adaptive_max_pool1d(z, 2.0)",
    "m.adaptive_max_pool1d(z.tolist(), 2)", "m.adaptive_max_pool1d(z, output_size=(2, 2))",
]


@pytest.mark.parametrize("code", ADAPTIVE_ERRORS)
def test_adaptive_max_pool_errors_and_odd_calls(code):
    _same("r = " + code, x=_values((2, 3, 7, 6), "float32"), z=_values((2, 3, 7), "float32"))


def test_adaptive_max_pool_modules():
    def fn(m, x):
        nn = m.nn
        layers = [nn.AdaptiveMaxPool2d(3), nn.AdaptiveMaxPool2d((None, 2), return_indices=True),
                  nn.AdaptiveMaxPool2d((1, 1)), nn.AdaptiveMaxPool2d([4, 5], True),
                  nn.AdaptiveMaxPool1d(4), nn.AdaptiveMaxPool1d((2,), return_indices=True)]
        inputs = [x, x, x[0], x, x[0], x[:, 0]]
        return ([repr(layer) for layer in layers],
                [layer(input) for layer, input in zip(layers, inputs)],
                [list(layer.state_dict()) for layer in layers],
                [(layer.output_size, layer.return_indices) for layer in layers],
                repr(nn.Sequential(nn.AdaptiveMaxPool2d(2), nn.AdaptiveMaxPool1d(1))))

    parity.run_both(fn, parity.make_tensor((2, 3, 7, 6), "float32", low=-2, high=2))
    _same("r = nn.AdaptiveMaxPool2d(2)(x.long())", x=_values((2, 3, 7, 6)))
    _same("r = nn.AdaptiveMaxPool1d(2)(x)", x=_values((2, 3, 7, 6)))
    _same("r = nn.AdaptiveMaxPool2d()", x=_values((2, 3)))
    _same("r = nn.AdaptiveMaxPool2d(2, True, 3)", x=_values((2, 3)))


# ====================================================================== lp_pool1d, lp_pool2d
NORMS = [2, 2.0, 1, 3, 0.5, -1, 1.5, math.inf, -math.inf, True]
LP_2D = {"2": (2,), "(2, 3) stride 1": ((2, 3), 1), "3 stride 2": (3, 2),
         "3 ceil_mode": (3, None, True), "(1, 2) stride (2, 1) ceil_mode": ((1, 2), (2, 1), True),
         "[2, 2] stride []": ([2, 2], None)}
LP_1D = {"2": (2,), "3 stride 1": (3, 1), "3 stride 2 ceil_mode": (3, 2, True),
         "1": (1,), "[3] stride [2]": (3, [2])}


def _lp_exact(dtype, norm_type):
    """Whether lp_pool's values are torch's bit for bit: its powers x ** p and y ** (1 / p)
    are, for whole exponents, and in float16 (computed in float32, rounded); a float32 ** 0.5
    is a square root (MKL's in torch) and a float64 ** a fraction SLEEF's vectorised pow in
    torch, each within an ulp of the engine's (notebooks/DIFFERENCES.md)."""
    return dtype == "float16" or norm_type in (1, -1, math.inf, -math.inf)


@pytest.mark.parametrize("case", list(LP_2D))
@pytest.mark.parametrize("norm_type", NORMS, ids=str)
@pytest.mark.parametrize("dtype", FLOATS)
def test_lp_pool2d_values_layouts_and_gradients(dtype, norm_type, case):
    """torch's composition: avg_pool2d of x ** p, times the window's size, sign * relu(abs),
    to the power 1 / p (max_pool2d of |x| for inf): its values, layouts and nodes."""
    args, exact = LP_2D[case], _lp_exact(dtype, norm_type)
    for shape in ((2, 3, 7, 6), (3, 5, 4), (0, 2, 4, 4)):
        for x in _layouts(shape, dtype).values():
            parity.run_both(lambda m, x: m.nn.functional.lp_pool2d(x, norm_type, *args), x,
                            exact=exact)
            if dtype != "float16":
                parity.run_both(_gradients, lambda m, x: m.nn.functional.lp_pool2d(
                    x, norm_type, *args), x, exact=exact)


@pytest.mark.parametrize("case", list(LP_1D))
@pytest.mark.parametrize("norm_type", NORMS, ids=str)
@pytest.mark.parametrize("dtype", FLOATS)
def test_lp_pool1d_values_layouts_and_gradients(dtype, norm_type, case):
    args, exact = LP_1D[case], _lp_exact(dtype, norm_type)
    for shape in ((2, 3, 7), (3, 5), (0, 2, 4)):
        for x in _layouts(shape, dtype).values():
            parity.run_both(lambda m, x: m.nn.functional.lp_pool1d(x, norm_type, *args), x,
                            exact=exact)
            if dtype != "float16":
                parity.run_both(_gradients, lambda m, x: m.nn.functional.lp_pool1d(
                    x, norm_type, *args), x, exact=exact)


def test_lp_pool_graph_and_saved_values():
    def fn(m, x):
        out = m.nn.functional.lp_pool2d(x, 3, 2)
        found, node = [], out.grad_fn
        while node is not None:  # the first input's nodes, down to the leaf
            found.append(node.name())
            node = node.next_functions[0][0] if node.next_functions else None
        mul = out.grad_fn.next_functions[0][0]
        return (found, out.grad_fn._saved_exponent, mul._saved_other,
                [n.name() if n else None for n, _ in mul.next_functions[0][0].next_functions],
                m.nn.functional.lp_pool2d(x, math.inf, 2).grad_fn.name(),
                m.nn.functional.lp_pool2d(x, -math.inf, 2).grad_fn.name(),
                m.nn.functional.lp_pool1d(x[0], math.inf, 2).grad_fn.name(),
                m.nn.functional.lp_pool2d(x, m.tensor(2.0), 2).grad_fn.name())

    parity.run_both(fn, parity.make_tensor((1, 2, 4, 4), "float64", low=-2,
                                           high=2).requires_grad_())


def test_lp_pool_of_integers_bools_zeros_and_nans():
    """int64 goes through avg_pool2d's integer division (then a float power), bool's power is
    an int64, other integers are refused by avg_pool2d; a window of zeros has the gradient 0
    (its sign), a nan norm makes nans."""
    for dtype in ("int64", "bool", "int32", "uint8", "int16"):
        x = parity.make_values((2, 3, 6, 5), dtype, low=0 if dtype == "uint8" else -3, high=3) \
            if dtype != "bool" else parity.make_values((2, 3, 6, 5), dtype)
        for code in ("F.lp_pool2d(x, 2, 2)", "F.lp_pool2d(x, 2.0, 2)", "F.lp_pool2d(x, 3, 2)",
                     "F.lp_pool2d(x, math.inf, 2)", "F.lp_pool1d(x[0], 2, 2)",
                     "F.lp_pool1d(x[0], 1.0, 3)", "F.lp_pool1d(x[0], -math.inf, 2)",
                     "F.lp_pool2d(x, -1, 2)"):
            # (float32 ** 0.5 and ** (1 / 3): within an ulp, see _lp_exact)
            _same("import math\nr = " + code, "inf" in code or "1" in code.split(",")[1], x=x)
    zeros = np.zeros((1, 2, 4, 4))
    zeros[0, 0, :2, :2] = [[1, -1], [2, 0]]
    for norm_type in (1, 2, 3, 0.5):
        parity.run_both(_gradients, lambda m, x, p=norm_type: m.nn.functional.lp_pool2d(
            x, p, 2), engine.from_numpy(zeros))
    _same("r = F.lp_pool2d(x, math.nan, 2)", x=_values((2, 3, 4, 4)))
    _same("import math\nr = F.lp_pool1d(x, math.nan, 2)", x=_values((2, 3, 4)))


@pytest.mark.parametrize("norm_type", [2, 3, 1.5, math.inf])
def test_lp_pool_gradcheck(norm_type):
    x = engine.from_numpy(np.random.default_rng(0).permutation(60).reshape(1, 3, 5, 4) / 7.0
                          + 0.5).requires_grad_()
    fn = lambda x: engine.nn.functional.lp_pool2d(x, norm_type, 2, 1)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    fn = lambda x: engine.nn.functional.lp_pool1d(x[0], norm_type, 3, 2, True)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


LP_ERRORS = [
    "F.lp_pool2d(x, 0, 2)", "F.lp_pool2d(x, 0.0, 2)", "F.lp_pool2d(x, False, 2)",
    "F.lp_pool2d(x, -0.0, 2)", "F.lp_pool2d(x, 'a', 2)", "F.lp_pool2d(x, None, 2)",
    "F.lp_pool2d(x, [2], 2)", "F.lp_pool2d(x, m.tensor(2.), 2)", "F.lp_pool2d(x, m.tensor(0.), 2)",
    "F.lp_pool2d(x, 2, (2, 3, 4))", "F.lp_pool2d(x, 2, [2])", "F.lp_pool2d(x, 2, 2.0)",
    "F.lp_pool2d(x, math.inf, 2.0)", "F.lp_pool2d(x, 2, 8)", "F.lp_pool2d(x, 2, 0)",
    "F.lp_pool2d(x, 2, 2, 0)", "F.lp_pool2d(x, 2, -1)", "F.lp_pool2d(x, 2, 2, -1)",
    "F.lp_pool2d(x, math.inf, 8)", "F.lp_pool2d(x, math.inf, 2, 0)",
    "F.lp_pool2d(x[0, 0], 2, 2)", "F.lp_pool2d(x[None], 2, 2)",
    "F.lp_pool2d(x[0, 0], math.inf, 2)", "F.lp_pool2d(x[:, :0], 2, 2)",
    "F.lp_pool2d(x.tolist(), 2, 2)", "F.lp_pool2d(x, 2, 2, foo=1)", "F.lp_pool2d(x, 2)",
    "F.lp_pool2d(x, 2, 2, None, False, 1)", "F.lp_pool2d(x, 2, 2, ceil_mode=None)",
    "F.lp_pool2d(x, math.inf, 2, ceil_mode=None)",
    "F.lp_pool2d(input=x, norm_type=1, kernel_size=2)",
    "F.lp_pool1d(z, 0, 2)", "F.lp_pool1d(z, 'a', 2)", "F.lp_pool1d(z, 2, (2,))",
    "F.lp_pool1d(z, 2, [2])", "F.lp_pool1d(z, 2, (2, 2))", "F.lp_pool1d(z, 2, 2.0)",
    "F.lp_pool1d(z, math.inf, (2,))", "F.lp_pool1d(z, 2, 8)", "F.lp_pool1d(z[0, 0], 2, 2)",
    "F.lp_pool1d(z[None], 2, 2)", "F.lp_pool1d(z, 2, 2, 0)", "F.lp_pool1d(z.tolist(), 2, 2)",
    "F.lp_pool1d(z, 2)", "F.lp_pool1d(z, 2, 2, None, False, 3)",
]


@pytest.mark.parametrize("code", LP_ERRORS)
def test_lp_pool_errors_and_odd_calls(code):
    _same("import math\nr = " + code, x=_values((2, 3, 7, 6), "float32"),
          z=_values((2, 3, 7), "float32"))


def test_lp_pool_modules():
    def fn(m, x):
        nn = m.nn
        layers = [nn.LPPool2d(2, 3), nn.LPPool2d(2.0, (3, 2), 1, True),
                  nn.LPPool2d(math.inf, 2), nn.LPPool2d(m.tensor(3.0), 2),
                  nn.LPPool1d(1, 3), nn.LPPool1d(-1, [3], stride=[2], ceil_mode=True)]
        inputs = [x, x, x[0], x, x[0], x[:, 0]]
        return ([repr(layer) for layer in layers],
                [layer(input) for layer, input in zip(layers, inputs)],
                [list(layer.state_dict()) for layer in layers],
                [(layer.norm_type, layer.kernel_size, layer.stride) for layer in layers[:3]])

    parity.run_both(fn, parity.make_tensor((2, 3, 7, 6), "float32", low=-2, high=2))
    for code in ("nn.LPPool2d(0, 3)", "nn.LPPool1d(0.0, 3)", "nn.LPPool1d(False, 3)",
                 "nn.LPPool1d('a', 3)(x[0])", "repr(nn.LPPool1d('a', 3))", "nn.LPPool2d(2)",
                 "nn.LPPool2d(2, 2)(x.long())", "nn.LPPool2d(2, 2)(x.int())",
                 "nn.LPPool1d(None, 2)(x[0])"):
        _same("r = " + code, x=_values((2, 3, 7, 6), "float32"))


# ====================================================================== channels-last pooling
CHANNELS_LAST_CALLS = {
    "max_pool2d": lambda m, x: m.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True),
    "max_pool2d ceil dilation": lambda m, x: m.nn.functional.max_pool2d(x, 2, 3, 1, 2, True),
    "avg_pool2d": lambda m, x: m.nn.functional.avg_pool2d(x, 2),
    "avg_pool2d padded": lambda m, x: m.nn.functional.avg_pool2d(x, 3, 2, 1, True, False),
    "avg_pool2d divisor": lambda m, x: m.nn.functional.avg_pool2d(x, 3, 1, 1, False, True, 2),
    "adaptive_avg_pool2d": lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, (3, 4)),
    "max_pool1d": lambda m, x: m.nn.functional.max_pool1d(x[:, :, 0].transpose(1, 2), 2),
    "max_pool1d indices": lambda m, x: m.nn.functional.max_pool1d(
        x[:, :, 0].transpose(1, 2), 2, return_indices=True),
    "avg_pool1d": lambda m, x: m.nn.functional.avg_pool1d(x[:, :, 0].transpose(1, 2), 2),
    "adaptive_avg_pool1d": lambda m, x: m.nn.functional.adaptive_avg_pool1d(
        x[:, :, 0].transpose(1, 2), 3),
}


@pytest.mark.parametrize("call", list(CHANNELS_LAST_CALLS))
@pytest.mark.parametrize("dtype", FLOATS)
def test_pooling_keeps_channels_last(dtype, call):
    """torch's 2-d pooling kernels write a channels-last result (and gradient) for a
    channels-last input (a (N, C, L) input whose L is innermost is one once unsqueezed); the
    values are the same as for a row-major input."""
    fn = CHANNELS_LAST_CALLS[call]
    x = engine.from_numpy(_values((2, 3, 7, 6), dtype))
    for layout in (engine.channels_last, engine.contiguous_format):
        parity.run_both(fn, x.contiguous(memory_format=layout))
        if dtype != "float16":
            parity.run_both(_gradients, fn, x.contiguous(memory_format=layout))
    with torch.no_grad(), engine.no_grad():  # (max_pool1d's kernel without indices)
        parity.run_both(fn, x.contiguous(memory_format=engine.channels_last))


def test_pooling_channels_last_refusals():
    x = _values((2, 3, 7, 6), "float32")
    for code in ("F.max_pool2d(x.contiguous(memory_format=m.channels_last).bool(), 3, 1)",
                 "F.avg_pool2d(x.contiguous(memory_format=m.channels_last).int(), 3, 1)",
                 "F.avg_pool2d(x.contiguous(memory_format=m.channels_last).long(), 3, 1)",
                 "F.adaptive_avg_pool2d(x.contiguous(memory_format=m.channels_last).long(), 3)",
                 "F.max_pool3d(x.contiguous(memory_format=m.channels_last), 2)",
                 "F.max_pool3d(x.contiguous(memory_format=m.channels_last), 2, 0)",
                 "F.max_pool3d(x.contiguous(memory_format=m.channels_last), (2, 2))",
                 "F.max_pool3d(x.contiguous(memory_format=m.channels_last)[:, :0], 2)"):
        _same("r = " + code, x=x)


# ====================================================================== max_unpool1d/2d
def _pooled(shape, dims, dtype="float64", seed=0, *args):
    """A max pooling's values and indices (numpy), of distinct values (no ties)."""
    values = np.random.default_rng(seed).permutation(math.prod(shape)).reshape(shape) / 4.0
    pool = torch.nn.functional.max_pool2d if dims == 2 else torch.nn.functional.max_pool1d
    out, indices = pool(torch.from_numpy(values), *(args or (2,)), return_indices=True)
    return out.numpy().astype(dtype), indices.numpy()


UNPOOL_2D = {  # (input shape, max_pool2d's arguments, max_unpool2d's arguments)
    "2": ((2, 3, 6, 5), (2,), (2,)),
    "unbatched": ((3, 6, 5), (2,), (2,)),
    "output_size": ((2, 3, 6, 5), (2,), (2, None, 0, (6, 5))),
    "output_size of 4": ((2, 3, 7, 5), (2,), (2, None, 0, (2, 3, 7, 5))),
    "3 stride 2 padding 1": ((2, 3, 7, 6), (3, 2, 1), (3, 2, 1)),
    "(2, 3) stride 1": ((1, 2, 5, 6), ((2, 3), 1), ((2, 3), 1, 0, [5, 6])),
    "empty batch": ((0, 3, 6, 5), (2,), (2,)),
    "1x1": ((2, 3, 1, 1), (1,), (1,)),
    "larger": ((1, 2, 4, 4), (2,), (2, 3)),
    "empty output": ((1, 2, 4, 4), (2,), (2, 2, 1)),
}


@pytest.mark.parametrize("case", list(UNPOOL_2D))
@pytest.mark.parametrize("dtype", FLOATS)
def test_max_unpool2d_values_layouts_and_gradients(dtype, case):
    """Each value put back at its index in its plane, zeros elsewhere, laid out as the
    input's format suggests; the gradient reads the incoming one back at the indices
    (MaxUnpool2DBackward0, whose own backward is a gather)."""
    shape, pool_args, args = UNPOOL_2D[case]
    values, indices = _pooled(shape, 2, dtype, 0, *pool_args)
    for layout, x in _layouts(values.shape, dtype).items():
        x = engine.from_numpy(values) if layout == "contiguous" else x
        x.copy_(engine.from_numpy(values))
        # (parity's copies of an empty tensor are row-major: no channels-last ones)
        for i in (engine.from_numpy(indices), engine.from_numpy(indices).contiguous(
                memory_format=engine.channels_last) if indices.ndim == 4 and indices.size
                else None):
            if i is None:
                continue
            parity.run_both(lambda m, x, i: m.nn.functional.max_unpool2d(x, i, *args), x, i)
            if dtype != "float16":
                parity.run_both(lambda m, x, i: _gradients(
                    m, lambda m, x: m.nn.functional.max_unpool2d(x, i, *args), x), x, i)


UNPOOL_1D = {
    "2": ((2, 3, 7), (2,), (2,)),
    "unbatched": ((3, 8), (2,), (2,)),
    "output_size": ((2, 3, 7), (2,), (2, None, 0, [7])),
    "output_size of 3": ((2, 3, 7), (2,), (2, None, 0, (2, 3, 7))),
    "3 stride 2 padding 1": ((2, 3, 7), (3, 2, 1), (3, 2, 1)),
    "empty batch": ((0, 3, 6), (2,), (2,)),
    "kernel 0": ((2, 3, 6), (2,), (0,)),
}


@pytest.mark.parametrize("case", list(UNPOOL_1D))
@pytest.mark.parametrize("dtype", FLOATS)
def test_max_unpool1d_values_layouts_and_gradients(dtype, case):
    shape, pool_args, args = UNPOOL_1D[case]
    values, indices = _pooled(shape, 1, dtype, 0, *pool_args)
    for layout, x in _layouts(values.shape, dtype).items():
        x = engine.from_numpy(values) if layout == "contiguous" else x
        x.copy_(engine.from_numpy(values))
        i = engine.from_numpy(indices)
        parity.run_both(lambda m, x, i: m.nn.functional.max_unpool1d(x, i, *args), x, i)
        if dtype != "float16":
            parity.run_both(lambda m, x, i: _gradients(
                m, lambda m, x: m.nn.functional.max_unpool1d(x, i, *args), x), x, i)


def test_max_unpool_repeated_indices_and_its_node():
    """Where indices repeat, the last value written wins (in the input's memory order);
    the node saves the indices only and has an edge for the input alone."""
    values = np.arange(1.0, 17.0).reshape(1, 2, 2, 4)
    for indices in (np.zeros((1, 2, 2, 4), np.int64), np.tile([3, 1, 3, 1], (1, 2, 2, 1)),
                    np.array([[[[5, 5, 0, 5], [0, 5, 5, 0]], [[1, 2, 1, 2], [2, 2, 1, 1]]]])):
        for layout in (engine.contiguous_format, engine.channels_last):
            parity.run_both(lambda m, x, i: m.nn.functional.max_unpool2d(x, i, 2),
                            engine.from_numpy(values).contiguous(memory_format=layout),
                            engine.from_numpy(indices))

    def fn(m, x, i):
        out = m.nn.functional.max_unpool2d(x, i, 2)
        (grad,) = m.autograd.grad(out, x, m.ones_like(out).requires_grad_(), create_graph=True)
        node = out.grad_fn
        return (node.name(), node._saved_indices, len(node.next_functions),
                sorted(a for a in dir(node) if a.startswith("_saved")), grad.grad_fn.name(),
                m.nn.functional.max_unpool1d(x[0], i[0], 2).grad_fn.name(),
                m.nn.functional.max_unpool1d(x[0], i[0], 2).grad_fn.next_functions[0][0].name())

    parity.run_both(fn, engine.from_numpy(values).requires_grad_(),
                    engine.from_numpy(np.tile([[0, 2], [9, 11]], (1, 2, 1, 2))))


def test_max_unpool_gradcheck():
    """(indices without repeats: where two values go to one place, only the last stays)"""
    values, indices = _pooled((1, 2, 6, 5), 2, "float64", 0, (2, 3), (2, 3), (1, 1))
    x, i = engine.from_numpy(values).requires_grad_(), engine.from_numpy(indices)
    fn = lambda x: engine.nn.functional.max_unpool2d(x, i, (2, 3), (2, 3), 1,  # noqa: E731
                                                     (6, 5))
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    values, indices = _pooled((2, 3, 7), 1, "float64", 0, 2, 2, 1)
    x, i = engine.from_numpy(values).requires_grad_(), engine.from_numpy(indices)
    fn = lambda x: engine.nn.functional.max_unpool1d(x, i, 2, 2, 1, [7])  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


UNPOOL_ERRORS = [
    # output sizes: out of range, wrong lengths, not ints, negative, a Size, a tensor
    "F.max_unpool2d(o, i, 2, output_size=(4, 4))", "F.max_unpool2d(o, i, 2, output_size=(2, 4))",
    "F.max_unpool2d(o, i, 2, output_size=(1, 4))", "F.max_unpool2d(o, i, 2, output_size=(3,))",
    "F.max_unpool2d(o, i, 2, output_size=(3, 4, 5))", "F.max_unpool2d(o, i, 2, output_size=3)",
    "F.max_unpool2d(o, i, 2, output_size=x.shape)", "F.max_unpool2d(o, i, 2, output_size=[3, 4])",
    "F.max_unpool2d(o, i, 2, output_size=m.Size([1, 1, 3, 7]))",
    "F.max_unpool2d(o, i, 2, output_size=(3.0, 4))",
    "F.max_unpool2d(o, i, 2, output_size=(None, 4))",
    "F.max_unpool2d(o, i, 2, output_size=(0, 4))", "F.max_unpool2d(o, i, 1, output_size=(0, 2))",
    "F.max_unpool2d(o, i, 1, 1, 1, output_size=(-1, 0))",
    "F.max_unpool2d(o, i, 2, output_size=m.tensor([3, 4]))",
    "F.max_unpool2d(o, i, 2, output_size=m.tensor([3, 6]))",
    # kernels, strides, paddings that do not fit the indices, or are not ints
    "F.max_unpool2d(o, i, 2, stride=1)", "F.max_unpool2d(o, i, 2, stride=3)",
    "F.max_unpool2d(o, i, 2, 2, 1)", "F.max_unpool2d(o, i, 3, 2, 1)",
    "F.max_unpool2d(o, i, 1, 1, 1)", "F.max_unpool2d(o, i, 1, 1, 2)", "F.max_unpool2d(o, i, 0)",
    "F.max_unpool2d(o, i, -1)", "F.max_unpool2d(o, i, (2, 2, 2))", "F.max_unpool2d(o, i, 2.0)",
    "F.max_unpool2d(o, i, (2.0, 2))", "F.max_unpool2d(o, i, 2, 0)",
    "F.max_unpool2d(o, i, 2, 2, -1)", "F.max_unpool2d(o, i, m.tensor(2))",
    "F.max_unpool2d(o, i, [2, 2], [2, 2], [0, 0])", "F.max_unpool2d(o, i, (2, 2), 2, (0,))",
    "F.max_unpool2d(o, i, 2, (2,))", "F.max_unpool2d(o, i, 2, 'ab')",
    "F.max_unpool2d(o, i, 'ab')", "F.max_unpool2d(o, i, 2, 2, 0, 'ab')",
    # indices: dtype, shape, out of range (the last one met is named)
    "F.max_unpool2d(o, i.int(), 2)", "F.max_unpool2d(o, i.float(), 2)",
    "F.max_unpool2d(o, i[0], 2)", "F.max_unpool2d(o[0], i, 2)",
    "F.max_unpool2d(o, i.unsqueeze(0), 2)", "F.max_unpool2d(o, i.expand(2, 2, 1, 2), 2)",
    "F.max_unpool2d(o.expand(2, 2, 1, 2), i, 2)", "F.max_unpool2d(o, i + 10, 2)",
    "F.max_unpool2d(o, i - 10, 2)", "F.max_unpool2d(o, i * 0 + 11, 2)",
    "F.max_unpool2d(o, i * 0 - 1, 2)",
    "F.max_unpool2d(o, i - m.tensor([[[[0, 10]], [[10, 0]]]]), 2)",
    "F.max_unpool2d(o.contiguous(memory_format=m.channels_last), "
    "i - m.tensor([[[[0, 10]], [[10, 0]]]]), 2)",
    "F.max_unpool2d(o.contiguous(memory_format=m.channels_last), "
    "i - m.tensor([[[[10, 0]], [[0, 10]]]]), 2)",
    "F.max_unpool2d(o, i.contiguous(memory_format=m.channels_last) - 10, 2)",
    # inputs: dims, empty dims, dtypes, not tensors
    "F.max_unpool2d(o[0, 0], i[0, 0], 2)", "F.max_unpool2d(o[None], i[None], 2)",
    "F.max_unpool2d(o[:, :0], i[:, :0], 2)", "F.max_unpool2d(o[:, :, :0], i[:, :, :0], 2)",
    "F.max_unpool2d(o.long(), i, 2)", "F.max_unpool2d(o.int(), i, 2)",
    "F.max_unpool2d(o.bool(), i, 2)", "F.max_unpool2d(o.long(), i, 1, 1, 1, output_size=(0, 2))",
    "F.max_unpool2d(o[:0].long(), i[:0], 2)",
    "F.max_unpool2d(o.long().contiguous(memory_format=m.channels_last), i, 2)",
    "F.max_unpool2d(o.tolist(), i, 2)", "F.max_unpool2d(o, i.tolist(), 2)",
    "F.max_unpool2d(3, i, 2)",
    # calls
    "F.max_unpool2d(o, i, 2, 2, 0, (2, 4), 5)", "F.max_unpool2d(o, i, 2, foo=1)",
    "F.max_unpool2d(o, i)", "F.max_unpool2d(o, indices=i, kernel_size=2)",
    "F.max_unpool2d(input=o, indices=i, kernel_size=2)",
    # 1-d
    "F.max_unpool1d(o1, i1, 2, output_size=(5,))", "F.max_unpool1d(o1, i1, 2, output_size=[5])",
    "F.max_unpool1d(o1, i1, 2, output_size=(2, 3, 5))",
    "F.max_unpool1d(o1, i1, 2, output_size=(6,))", "F.max_unpool1d(o1, i1, 2, output_size=4)",
    "F.max_unpool1d(o1, i1, 2, output_size=(4, 4))",
    "F.max_unpool1d(o1, i1, 2, output_size=m.Size([2, 3, 5]))",
    "F.max_unpool1d(o1, i1, 2, output_size=m.Size([5]))", "F.max_unpool1d(o1, i1, (2, 2))",
    "F.max_unpool1d(o1, i1, 2, (2, 2))", "F.max_unpool1d(o1, i1, 2.0)",
    "F.max_unpool1d(o1[0, 0], i1[0, 0], 2)", "F.max_unpool1d(o1[None], i1[None], 2)",
    "F.max_unpool1d(o1, i1 + 10, 2)", "F.max_unpool1d(o1, i1 - 10, 2)",
    "F.max_unpool1d(o1.long(), i1, 2)", "F.max_unpool1d(o1.bool(), i1, 2)",
    "F.max_unpool1d(o1, i1.int(), 2)", "F.max_unpool1d(o1, i1, 2, 1)",
    "F.max_unpool1d(o1, i1, 0)", "F.max_unpool1d(o1, i1.tolist(), 2)",
    "F.max_unpool1d(o1.tolist(), i1, 2)", "F.max_unpool1d(o1, i1, 2, 2, 0, None, 1)",
]


@pytest.mark.parametrize("code", UNPOOL_ERRORS)
def test_max_unpool_errors_and_odd_calls(code):
    x = np.arange(24.0).reshape(1, 2, 3, 4)
    o, i = torch.nn.functional.max_pool2d(torch.from_numpy(x), 2, return_indices=True)
    o1, i1 = torch.nn.functional.max_pool1d(torch.from_numpy(x[0]), 2, return_indices=True)
    _same("r = " + code, x=x, o=o.numpy(), i=i.numpy(), o1=o1.numpy(), i1=i1.numpy())


def test_max_unpool_modules():
    def fn(m, x):
        nn = m.nn
        o, i = m.nn.functional.max_pool2d(x, 2, return_indices=True)
        o1, i1 = m.nn.functional.max_pool1d(x[0], 2, return_indices=True)
        layers = [nn.MaxUnpool2d(2), nn.MaxUnpool2d((2, 2), 2, [0, 0]), nn.MaxUnpool1d(2),
                  nn.MaxUnpool1d([2], (2,), 0)]
        return ([repr(layer) for layer in layers],
                [layers[0](o, i), layers[1](o, i, (7, 6)), layers[1](o, i, output_size=[7, 7]),
                 layers[2](o1, i1), layers[3](o1, i1, [7])],
                [list(layer.state_dict()) for layer in layers],
                [(layer.kernel_size, layer.stride, layer.padding) for layer in layers],
                repr(nn.MaxUnpool2d(m.tensor([2, 1]))))

    parity.run_both(fn, parity.make_tensor((2, 3, 6, 6), "float32", low=-2, high=2))
    for code in ("nn.MaxUnpool2d(2)(x)", "nn.MaxUnpool2d()", "nn.MaxUnpool2d(m.tensor(2))",
                 "nn.MaxUnpool1d(2)(x, x.long(), (7,))", "nn.MaxUnpool2d(2, 2, 0, 1)"):
        _same("r = " + code, x=_values((2, 3, 6)))


# ====================================================================== Fold, Unfold, Softmax2d
def test_fold_and_unfold_modules():
    def fn(m, x):
        nn = m.nn
        unfolds = [nn.Unfold(2), nn.Unfold((2, 3), 2, 1, 2), nn.Unfold(kernel_size=3, stride=3)]
        folds = [nn.Fold((6, 6), 2), nn.Fold(4, (2, 3), dilation=2, padding=1, stride=(1, 2)),
                 nn.Fold(output_size=[6, 6], kernel_size=3, stride=3)]
        columns = [unfold(x) for unfold in unfolds]
        x.requires_grad_()
        out = folds[0](unfolds[0](x))
        (grad,) = m.autograd.grad(out, x, m.ones_like(out))
        return ([repr(layer) for layer in unfolds + folds], columns,
                folds[0](columns[0]), folds[2](columns[2]), folds[0](columns[0][0]),
                out.grad_fn.name(), grad,
                [list(layer.state_dict()) for layer in unfolds + folds],
                [(layer.kernel_size, layer.dilation, layer.padding, layer.stride)
                 for layer in unfolds],
                [layer.output_size for layer in folds],
                repr(nn.Sequential(nn.Unfold(2), nn.Fold(6, 2))))

    parity.run_both(fn, parity.make_tensor((2, 3, 6, 6), "float32", low=-2, high=2),
                    exact=False)
    for code in ("nn.Fold(6, 2)(x)", "nn.Unfold(2)(x[0, 0])", "nn.Unfold(2)(x.long())",
                 "nn.Fold((6, 6), 2)(x[:, :5].flatten(2))", "nn.Fold()", "nn.Unfold()",
                 "nn.Unfold(2, 1, 0, 1, 5)", "nn.Unfold(2)(x.tolist())",
                 "nn.Unfold(2.0)(x)", "nn.Fold(6, 2, foo=1)"):
        _same("r = " + code, x=_values((2, 3, 6, 6), "float32"))


@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax2d(dtype):
    """softmax over the channels (dim -3) of a 3-d or 4-d input; any other is a
    ValueError before softmax runs."""
    for shape in ((2, 3, 4, 5), (3, 4, 5), (0, 3, 2, 2), (2, 1, 3, 3)):
        for x in _layouts(shape, dtype).values():
            parity.run_both(lambda m, x: m.nn.Softmax2d()(x), x, exact=False)
            if dtype != "float16":
                parity.run_both(_gradients, lambda m, x: m.nn.Softmax2d()(x), x, exact=False)
    for code in ("nn.Softmax2d()(x[0, 0])", "nn.Softmax2d()(x[None])",
                 "nn.Softmax2d()(m.tensor(1.))", "nn.Softmax2d()(x.long())",
                 "nn.Softmax2d()(x.tolist())", "nn.Softmax2d()(x[:, :0])",
                 "nn.Softmax2d()(x[0, 0, 0])", "nn.Softmax2d(1)", "nn.Softmax2d(dim=1)",
                 "repr(nn.Softmax2d())", "list(nn.Softmax2d().state_dict())",
                 "nn.Softmax2d()(x.requires_grad_()).grad_fn.name()",
                 "nn.Softmax2d()(x.double()).dtype", "nn.Softmax2d()(x, 1)"):
        _same("r = " + code, x=_values((2, 3, 4, 5), dtype))
