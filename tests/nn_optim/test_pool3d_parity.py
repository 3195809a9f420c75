"""F.avg_pool3d and nn.AvgPool3d against torch 2.15: avg_pool2d's windows in three dimensions.

Sums in torch's order (row by row through each window; the backward adds each window's share
in row-major order of the windows), so float32 and float64 values and gradients are compared
bit for bit, int64 forwards too; grad_fn names and saved values, the second derivative's
AvgPool3DBackwardBackward0, gradcheck / gradgradcheck, module reprs, torch's errors.
"""
import pytest

import engine
from engine.autograd import gradcheck, gradgradcheck

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _tensor(shape, seed=0, dtype="float64"):
    return parity.make_tensor(shape, dtype, seed, low=-2, high=2)


def _forward_backward(m, fn, x):
    """fn(x), its grad_fn's name, x's gradient, and the second derivative's node and values."""
    x.requires_grad_(True)
    out = fn(m, x)
    m.manual_seed(0)
    grad = m.randn(out.shape, dtype=out.dtype).requires_grad_()
    (grad_x,) = m.autograd.grad(out, x, grad, create_graph=True)
    (grad_grad,) = m.autograd.grad((grad_x * grad_x).sum(), grad)
    return out, out.grad_fn.name(), grad_x, grad_x.grad_fn.name(), grad_grad


AVG_POOL = {
    "2": (2,), "2 stride 1": (2, 1), "3 stride 2 padding 1": (3, 2, 1),
    "(2, 1, 3) stride (1, 2, 1) padding (1, 0, 1)": ((2, 1, 3), (1, 2, 1), (1, 0, 1)),
    "no pad counted": (3, 2, 1, False, False), "ceil_mode": (2, 2, 0, True),
    "ceil_mode padding": (3, 2, 1, True), "ceil_mode padding not counted": (3, 2, 1, True, False),
    "divisor_override": (3, 2, 1, False, True, 2), "divisor -3": (2, 2, 0, True, False, -3),
    "stride []": (2, []), "kernel (2,)": ((2,),),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 3, 5, 4, 6), (3, 5, 4, 6)])
@pytest.mark.parametrize("case", list(AVG_POOL))
def test_avg_pool3d(case, shape, dtype):
    args = AVG_POOL[case]
    parity.run_both(_forward_backward, lambda m, x: m.nn.functional.avg_pool3d(x, *args),
                    _tensor(shape, dtype=dtype))


def test_avg_pool3d_integers_and_node():
    parity.run_both(lambda m, x: m.nn.functional.avg_pool3d(x, 3, 2, 1), parity.make_tensor(
        (2, 3, 5, 6, 5), "int64", low=-50, high=50))
    parity.run_both(lambda m, x: m.nn.functional.avg_pool3d(x, 2, divisor_override=-3),
                    parity.make_tensor((1, 1, 4, 4, 4), "int64", low=-50, high=50))

    def fn(m, x):
        node = m.nn.functional.avg_pool3d(x, 3, 2, 1, True, False, 4).grad_fn
        return (node._saved_kernel_size, node._saved_stride, node._saved_padding,
                node._saved_ceil_mode, node._saved_count_include_pad,
                node._saved_divisor_override, node._saved_self,
                m.nn.functional.avg_pool3d(x, (2, 1, 2)).grad_fn._saved_stride)

    parity.run_both(fn, _tensor((1, 2, 5, 5, 4)).requires_grad_())


@pytest.mark.parametrize("case", ["3 stride 2 padding 1", "ceil_mode padding not counted",
                                  "divisor_override"])
def test_avg_pool3d_gradcheck(case):
    x = _tensor((1, 2, 5, 4, 6)).requires_grad_()
    fn = lambda x: engine.nn.functional.avg_pool3d(x, *AVG_POOL[case])  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def _pool(m, *args, **kwargs):
    return m.nn.functional.avg_pool3d(*args, **kwargs)


ERRORS = [
    lambda m, x: _pool(m, x[0, 0], 2),
    lambda m, x: _pool(m, x[None], 2),
    lambda m, x: _pool(m, x[:, :, :0], 2),
    lambda m, x: _pool(m, x[:, :0], 2),
    lambda m, x: _pool(m, x[0, :0], 2),
    lambda m, x: _pool(m, x, 0),
    lambda m, x: _pool(m, x, (0, 2, 2)),
    lambda m, x: _pool(m, x, -1),
    lambda m, x: _pool(m, x, (2, 2)),
    lambda m, x: _pool(m, x, 2, stride=0),
    lambda m, x: _pool(m, x, 2, stride=-1),
    lambda m, x: _pool(m, x, 2, stride=(1, 1)),
    lambda m, x: _pool(m, x, 2, padding=-1),
    lambda m, x: _pool(m, x, 3, padding=2),
    lambda m, x: _pool(m, x, 2, padding=(1, 1)),
    lambda m, x: _pool(m, x, 6),
    lambda m, x: _pool(m, x, (2, 5, 2)),
    lambda m, x: _pool(m, x, 4, 1, 1, True),
    lambda m, x: _pool(m, x.bool(), 2),
    lambda m, x: _pool(m, x.half(), 2),
    lambda m, x: _pool(m, x.int(), 2),
    lambda m, x: _pool(m, x.bool(), 8),
    lambda m, x: _pool(m, x, 2.0),
    lambda m, x: _pool(m, x.tolist(), 2),
    lambda m, x: _pool(m, x, 2, divisor_override=0),
    lambda m, x: _pool(m, x, 2, divisor_override=1.5),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_avg_pool3d_errors(case):
    parity.run_both(ERRORS[case], _tensor((2, 3, 5, 4, 6), dtype="float32"))


def test_avg_pool3d_of_an_empty_batch():
    parity.run_both(lambda m, x: m.nn.functional.avg_pool3d(x, 2), _tensor((0, 3, 5, 4, 6)))


def test_avg_pool3d_module():
    def fn(m, x):
        layers = [m.nn.AvgPool3d(2), m.nn.AvgPool3d((2, 1, 3), stride=1, padding=(1, 0, 1),
                                                    ceil_mode=True, count_include_pad=False,
                                                    divisor_override=2)]
        return ([repr(layer) for layer in layers], [layer(x) for layer in layers],
                [list(layer.state_dict()) for layer in layers], layers[0].stride,
                isinstance(layers[0], m.nn.AvgPool2d))

    parity.run_both(fn, _tensor((2, 3, 5, 4, 6), dtype="float32"))


def test_no_torch_avg_pool3d():
    """torch has no torch.avg_pool3d (only F.avg_pool3d) nor Tensor.avg_pool3d"""
    assert not hasattr(torch, "avg_pool3d") and not hasattr(engine, "avg_pool3d")
    assert not hasattr(engine.Tensor, "avg_pool3d")


# ====================================================================== max_pool3d
MAX_POOL = {
    "2": (2,), "2 stride 1": (2, 1), "3 stride 2 padding 1": (3, 2, 1),
    "(3, 2, 1) stride (1, 2, 1)": ((3, 2, 1), (1, 2, 1)), "3 dilation 2": (3, 1, 0, 2),
    "ceil_mode": (2, 2, 0, 1, True), "ceil_mode padding": (3, 2, 1, 1, True),
    "ceil_mode dilation": (2, 3, 1, (2, 1, 2), True), "stride []": (2, []),
    "whole volume": ((5, 4, 6),),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 3, 5, 4, 6), (3, 5, 4, 6)])
@pytest.mark.parametrize("case", list(MAX_POOL))
def test_max_pool3d(case, shape, dtype):
    args = MAX_POOL[case]

    def fn(m, x):
        return m.nn.functional.max_pool3d(x, *args, return_indices=True)

    x = _tensor(shape, dtype=dtype)
    parity.run_both(fn, x)
    parity.run_both(_forward_backward, lambda m, x: fn(m, x)[0], x)


def test_max_pool3d_ties_nans_integers_half_and_node():
    x = engine.tensor([[[[1.0, 1.0], [float("nan"), 2.0]], [[float("nan"), 2.0], [2.0, 0.0]]]])
    parity.run_both(lambda m, x: m.nn.functional.max_pool3d(x, 2, 1, 1, return_indices=True), x)
    for dtype in ("int64", "int32", "uint8", "int8", "float16"):
        parity.run_both(lambda m, x: m.nn.functional.max_pool3d(x, 2, return_indices=True),
                        parity.make_tensor((1, 2, 4, 4, 3), dtype))

    def fn(m, x):
        node = m.nn.functional.max_pool3d(x, 3, 2, 1, 1, True).grad_fn
        return (node.name(), node._saved_kernel_size, node._saved_stride, node._saved_padding,
                node._saved_dilation, node._saved_ceil_mode, node._saved_self,
                node._saved_result1, m.max_pool3d(x, (2, 1, 2)).grad_fn._saved_stride)

    parity.run_both(fn, _tensor((1, 2, 5, 5, 4)).requires_grad_())


@pytest.mark.parametrize("case", ["3 stride 2 padding 1", "ceil_mode dilation"])
def test_max_pool3d_gradcheck(case):
    x = _tensor((1, 2, 5, 4, 6)).requires_grad_()
    fn = lambda x: engine.nn.functional.max_pool3d(x, *MAX_POOL[case])  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def _max(m, *args, **kwargs):
    return m.nn.functional.max_pool3d(*args, **kwargs)


MAX_ERRORS = [
    lambda m, x: _max(m, x[0, 0], 2),
    lambda m, x: _max(m, x[None], 2),
    lambda m, x: _max(m, x[:, :, :0], 2),
    lambda m, x: _max(m, x[:, :0], 2),
    lambda m, x: _max(m, x, 0),
    lambda m, x: _max(m, x, -1),
    lambda m, x: _max(m, x, (2, 2)),
    lambda m, x: _max(m, x, 2, stride=(1, 2)),
    lambda m, x: _max(m, x, 2, stride=-1),
    lambda m, x: _max(m, x, 2, padding=(1, 1)),
    lambda m, x: _max(m, x, 2, padding=-1),
    lambda m, x: _max(m, x, 2, 1, 2),
    lambda m, x: _max(m, x, 2, 1, 0, (1, 1)),
    lambda m, x: _max(m, x, 2, dilation=0),
    lambda m, x: _max(m, x, 3, dilation=3),
    lambda m, x: _max(m, x, 6),
    lambda m, x: _max(m, x.bool(), 2),
    lambda m, x: _max(m, x.bool(), 8),
    lambda m, x: _max(m, x, 2.0),
    lambda m, x: _max(m, x.tolist(), 2),
    lambda m, x: m.max_pool3d(x, 2, return_indices=True),
    lambda m, x: m.max_pool3d(x),
    # (bool is refused once the shapes are checked, in 2-d too)
    lambda m, x: m.nn.functional.max_pool2d(x[0].bool(), 8),
    lambda m, x: m.nn.functional.avg_pool2d(x[0].bool(), 8),
    lambda m, x: m.nn.functional.max_pool2d(x[0, 0, 0].bool(), 2),
]


@pytest.mark.parametrize("case", range(len(MAX_ERRORS)))
def test_max_pool3d_errors(case):
    parity.run_both(MAX_ERRORS[case], _tensor((2, 3, 5, 4, 6), dtype="float32"))


def test_max_pool3d_of_an_empty_batch_and_module():
    parity.run_both(lambda m, x: m.nn.functional.max_pool3d(x, 2, return_indices=True),
                    _tensor((0, 3, 5, 4, 6)))

    def fn(m, x):
        layers = [m.nn.MaxPool3d(2), m.nn.MaxPool3d((2, 1, 3), stride=1, padding=(1, 0, 1),
                                                    dilation=2, return_indices=True,
                                                    ceil_mode=True)]
        return ([repr(layer) for layer in layers], [layer(x) for layer in layers],
                layers[0].stride, isinstance(layers[0], m.nn.MaxPool2d))

    parity.run_both(fn, _tensor((2, 3, 5, 4, 6), dtype="float32"))


@pytest.mark.parametrize("pool", ["avg_pool3d", "max_pool3d"])
def test_forward_mode_tangents(pool):
    def fn(m, x, t):
        return m.func.jvp(lambda x: getattr(m.nn.functional, pool)(x, 2, 1, 1), (x,), (t,))

    parity.run_both(fn, _tensor((1, 2, 4, 4, 4)), _tensor((1, 2, 4, 4, 4), 1))


# ============================================================ avg_pool1d, adaptive_avg_pool1d
def _graph(out):
    names, node = [], out.grad_fn
    while node is not None:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return names


POOL_1D = {
    "avg 2": lambda m, x: m.nn.functional.avg_pool1d(x, 2),
    "avg 3 stride 2 padding 1 ceil": lambda m, x: m.nn.functional.avg_pool1d(x, 3, 2, 1, True,
                                                                           False),
    "avg tuples": lambda m, x: m.avg_pool1d(x, (3,), [1], (1,)),
    "avg keywords": lambda m, x: m.avg_pool1d(x, kernel_size=2, count_include_pad=False),
    "adaptive 3": lambda m, x: m.nn.functional.adaptive_avg_pool1d(x, 3),
    "adaptive 1": lambda m, x: m.adaptive_avg_pool1d(x, (1,)),
    "modules": lambda m, x: m.nn.Sequential(m.nn.AvgPool1d(3, 1, 1), m.nn.AdaptiveAvgPool1d(4))(x),
}


@pytest.mark.parametrize("shape", [(2, 3, 7), (3, 7)])
@pytest.mark.parametrize("case", list(POOL_1D))
def test_pool1d(case, shape):
    def fn(m, x):
        x.requires_grad_()
        out = POOL_1D[case](m, x)
        (grad,) = m.autograd.grad(out.sum(), x)
        return out, _graph(out), grad

    # (an output of one is a mean, whose float32 sum may differ in its last bit)
    parity.run_both(fn, _tensor(shape, dtype="float32"), exact=case != "adaptive 1")


POOL_1D_ERRORS = [
    lambda m, x: m.nn.functional.avg_pool1d(x, (2, 2)),
    lambda m, x: m.nn.functional.avg_pool1d(x, 2, (1, 2)),
    lambda m, x: m.nn.functional.avg_pool1d(x, 2, 1, (1, 1)),
    lambda m, x: m.nn.functional.avg_pool1d(x[0, 0], 2),
    lambda m, x: m.nn.functional.avg_pool1d(x[None], 2),
    lambda m, x: m.nn.functional.avg_pool1d(x, 0),
    lambda m, x: m.nn.functional.avg_pool1d(x, 9),
    lambda m, x: m.nn.functional.avg_pool1d(x, 3, 1, 2),
    lambda m, x: m.nn.functional.avg_pool1d(x.bool(), 2),
    lambda m, x: m.nn.functional.avg_pool1d(x, 2.0),
    lambda m, x: m.nn.functional.avg_pool1d(x, 2, divisor_override=2),
    lambda m, x: m.nn.functional.adaptive_avg_pool1d(x, (2, 2)),
    lambda m, x: m.nn.functional.adaptive_avg_pool1d(x[0, 0], 2),
    lambda m, x: m.nn.functional.adaptive_avg_pool1d(x, -1),
    lambda m, x: m.nn.functional.avg_pool1d(x.long(), 2),
]


@pytest.mark.parametrize("case", range(len(POOL_1D_ERRORS)))
def test_pool1d_errors_and_integers(case):
    parity.run_both(POOL_1D_ERRORS[case], _tensor((2, 3, 7), dtype="float32"))


def test_pool1d_modules_and_out():
    def fn(m, x):
        out = m.empty(0)
        layers = [m.nn.AvgPool1d(2), m.nn.AvgPool1d((3,), None, 1, True, False),
                  m.nn.AdaptiveAvgPool1d(3), m.nn.AdaptiveAvgPool1d((3,))]
        return ([repr(layer) for layer in layers], layers[0].stride,
                hasattr(layers[0], "divisor_override"),
                parity.raised(lambda: m.avg_pool1d(x, 2, out=out)).args,
                parity.raised(lambda: m.adaptive_avg_pool1d(x, 2, out=out)).args)

    parity.run_both(fn, _tensor((2, 3, 7), dtype="float32"))


# ====================================================================== max_pool1d
MAX_POOL_1D = {
    "F 2": lambda m, x: m.nn.functional.max_pool1d(x, 2),
    "F indices": lambda m, x: m.nn.functional.max_pool1d(x, 3, 2, 1, 1, True, True),
    "F dilation": lambda m, x: m.nn.functional.max_pool1d(x, 2, 1, 0, 3),
    "torch": lambda m, x: m.max_pool1d(x, (3,), [], 1),
    "torch with indices": lambda m, x: m.max_pool1d_with_indices(x, 2, ceil_mode=True),
    "module": lambda m, x: m.nn.MaxPool1d(3, 1, 1, return_indices=True)(x),
}


@pytest.mark.parametrize("grad", [True, False])
@pytest.mark.parametrize("shape", [(2, 3, 7), (3, 7)])
@pytest.mark.parametrize("case", list(MAX_POOL_1D))
def test_max_pool1d(case, shape, grad):
    def fn(m, x):
        x.requires_grad_(grad)
        out = MAX_POOL_1D[case](m, x)
        values = out[0] if isinstance(out, tuple) else out
        if not grad:  # (torch.max_pool1d's kernel: a tensor of its own, 2-d input at version 1)
            return out, [(t._version, t._base is None) for t in (out if isinstance(
                out, tuple) else (out,))]
        (gradient,) = m.autograd.grad(values.sum(), x)
        return out, _graph(values), gradient

    parity.run_both(fn, _tensor(shape, dtype="float32"))


MAX_POOL_1D_ERRORS = [
    lambda m, x: m.nn.functional.max_pool1d(x, (2, 2)),
    lambda m, x: m.nn.functional.max_pool1d(x, 2, (1, 2)),
    lambda m, x: m.nn.functional.max_pool1d(x, 2, 1, (1, 1)),
    lambda m, x: m.nn.functional.max_pool1d(x, 2, 1, 0, (1, 1)),
    lambda m, x: m.nn.functional.max_pool1d(x[0, 0], 2),
    lambda m, x: m.nn.functional.max_pool1d(x[None], 2),
    lambda m, x: m.nn.functional.max_pool1d(x[:, :0], 2),
    lambda m, x: m.nn.functional.max_pool1d(x[:0], 2),
    lambda m, x: m.nn.functional.max_pool1d(x, 0),
    lambda m, x: m.nn.functional.max_pool1d(x, 2, 0),
    lambda m, x: m.nn.functional.max_pool1d(x, 2, -1),
    lambda m, x: m.nn.functional.max_pool1d(x, 2, 1, -1),
    lambda m, x: m.nn.functional.max_pool1d(x, 9),
    lambda m, x: m.nn.functional.max_pool1d(x, 3, 1, 2),
    lambda m, x: m.nn.functional.max_pool1d(x, 2, dilation=0),
    lambda m, x: m.nn.functional.max_pool1d(x, 3, dilation=4),
    lambda m, x: m.nn.functional.max_pool1d(x.bool(), 2),
    lambda m, x: m.nn.functional.max_pool1d(x.long(), 2),
    lambda m, x: m.nn.functional.max_pool1d(x.long(), 2, return_indices=True),
    lambda m, x: m.nn.functional.max_pool1d(x.half(), 2),
    lambda m, x: m.nn.functional.max_pool1d(x, (2, 2), return_indices=True),
    lambda m, x: m.nn.functional.max_pool1d(x[0, 0], 2, return_indices=True),
    lambda m, x: m.nn.functional.max_pool1d(x.requires_grad_(), 2, (1, 1)),
    lambda m, x: m.nn.functional.max_pool1d(x.requires_grad_(), 3, 1, 2),
    lambda m, x: m.max_pool1d(x, 2.0),
    lambda m, x: m.max_pool1d(x, 2, return_indices=True),
    lambda m, x: m.max_pool1d_with_indices(x),
]


@pytest.mark.parametrize("case", range(len(MAX_POOL_1D_ERRORS)))
def test_max_pool1d_errors_and_dtypes(case):
    parity.run_both(MAX_POOL_1D_ERRORS[case], _tensor((2, 3, 7), dtype="float32"))


def test_max_pool1d_module_repr():
    parity.run_both(lambda m: [repr(m.nn.MaxPool1d(2)), repr(m.nn.MaxPool1d((3,), None, 1, 2,
                                                                            True, True))])
