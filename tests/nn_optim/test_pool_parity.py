"""engine.nn pooling against torch 2.15: F.max_pool2d, F.avg_pool2d, F.adaptive_avg_pool2d and
their modules.

The sums are made in torch's order, so values and gradients are compared bit for bit in
float32 and float64 (and int64 for the forward); also the indices of max_pool2d (the first of
equal maxima, the last nan), grad_fn names and saved values, second derivatives (their
``...BackwardBackward0`` nodes), gradcheck / gradgradcheck, reprs and torch's errors.
"""
import numpy as np
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
    if isinstance(out, tuple):
        out = out[0]
    m.manual_seed(0)
    grad = m.randn(out.shape, dtype=out.dtype).requires_grad_()
    (grad_x,) = m.autograd.grad(out, x, grad, create_graph=True)
    (grad_grad,) = m.autograd.grad((grad_x * grad_x).sum(), grad)
    return out, out.grad_fn.name(), grad_x, grad_x.grad_fn.name(), grad_grad


MAX_POOL = {
    "2": (2,), "2 stride 1": (2, 1), "3 stride 2 padding 1": (3, 2, 1),
    "(3, 2) stride (1, 2)": ((3, 2), (1, 2)), "3 dilation 2": (3, 1, 0, 2),
    "ceil_mode": (2, 2, 0, 1, True), "ceil_mode padding": (3, 2, 1, 1, True),
    "ceil_mode dilation": (2, 3, 1, 2, True), "stride []": (2, []),
    "whole image": ((7, 6),),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 7, 6)])
@pytest.mark.parametrize("case", list(MAX_POOL))
def test_max_pool2d(case, shape, dtype):
    args = MAX_POOL[case]

    def fn(m, x):
        return m.nn.functional.max_pool2d(x, *args, return_indices=True)

    x = _tensor(shape, dtype=dtype)
    parity.run_both(lambda m, x: fn(m, x), x)
    parity.run_both(_forward_backward, fn, x)


def test_max_pool2d_ties_nans_infinities_and_integers():
    nan, inf = float("nan"), float("inf")
    values = np.array([[1, nan, 3, 3], [nan, 2, 3, 0], [1, 1, -inf, -inf], [5, 5, -inf, -inf]])
    for array in (values, -np.full((3, 3), np.inf)):
        x = engine.tensor(array[None, None])
        for args in ((2,), (2, 1), (2, 1, 1), (3, 2, 1, 1, True)):
            parity.run_both(lambda m, x, args=args: m.nn.functional.max_pool2d(
                x, *args, return_indices=True), x)
            parity.run_both(_forward_backward, lambda m, x, args=args:
                            m.nn.functional.max_pool2d(x, *args), x)
    parity.run_both(lambda m, x: m.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True),
                    parity.make_tensor((2, 3, 6, 5), "int64"))
    parity.run_both(lambda m, x: m.nn.functional.max_pool2d(x, 2), _tensor((1, 2, 4, 4), 0,
                                                                           "float16"))


def test_max_pool2d_node_saves_like_torch():
    def fn(m, x):
        out, indices = m.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True)
        node = out.grad_fn
        return (node._saved_kernel_size, node._saved_stride, node._saved_padding,
                node._saved_dilation, node._saved_ceil_mode, node._saved_self,
                node._saved_result1, indices.requires_grad,
                m.nn.functional.max_pool2d(x, 2, stride=None).grad_fn._saved_stride)

    parity.run_both(fn, _tensor((1, 2, 5, 5)).requires_grad_())


@pytest.mark.parametrize("case", ["2", "3 stride 2 padding 1", "ceil_mode dilation"])
def test_max_pool2d_gradcheck(case):
    x = _tensor((1, 2, 7, 6)).requires_grad_()
    fn = lambda x: engine.nn.functional.max_pool2d(x, *MAX_POOL[case])  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


AVG_POOL = {
    "2": (2,), "2 stride 1": (2, 1), "3 stride 2 padding 1": (3, 2, 1),
    "(3, 2) stride (1, 2) padding (1, 0)": ((3, 2), (1, 2), (1, 0)),
    "no pad counted": (3, 2, 1, False, False), "ceil_mode": (2, 2, 0, True),
    "ceil_mode padding": (3, 2, 1, True), "ceil_mode padding not counted": (3, 2, 1, True, False),
    "divisor_override": (3, 2, 1, False, True, 2), "divisor -3": (2, 2, 0, True, False, -3),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 7, 6)])
@pytest.mark.parametrize("case", list(AVG_POOL))
def test_avg_pool2d(case, shape, dtype):
    args = AVG_POOL[case]
    parity.run_both(_forward_backward, lambda m, x: m.nn.functional.avg_pool2d(x, *args),
                    _tensor(shape, dtype=dtype))


def test_avg_pool2d_integers_half_and_node():
    parity.run_both(lambda m, x: m.nn.functional.avg_pool2d(x, 3, 2, 1), parity.make_tensor(
        (2, 3, 6, 5), "int64", low=-50, high=50))
    parity.run_both(lambda m, x: m.nn.functional.avg_pool2d(x, 2, divisor_override=-3),
                    parity.make_tensor((1, 1, 4, 4), "int64", low=-50, high=50))
    parity.run_both(lambda m, x: m.nn.functional.avg_pool2d(x, 2), _tensor((1, 2, 4, 4), 0,
                                                                           "float16"))

    def fn(m, x):
        node = m.nn.functional.avg_pool2d(x, 3, 2, 1, True, False, 4).grad_fn
        return (node._saved_kernel_size, node._saved_stride, node._saved_padding,
                node._saved_ceil_mode, node._saved_count_include_pad,
                node._saved_divisor_override, node._saved_self,
                m.nn.functional.avg_pool2d(x, 2).grad_fn._saved_divisor_override)

    parity.run_both(fn, _tensor((1, 2, 5, 5)).requires_grad_())


@pytest.mark.parametrize("case", ["3 stride 2 padding 1", "ceil_mode padding not counted"])
def test_avg_pool2d_gradcheck(case):
    x = _tensor((1, 2, 7, 6)).requires_grad_()
    fn = lambda x: engine.nn.functional.avg_pool2d(x, *AVG_POOL[case])  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


ADAPTIVE = [(3, 4), 2, 5, (7, 6), (None, 2), (4, None), 10, (1, 3), (2, 1)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 7, 6)])
@pytest.mark.parametrize("output_size", ADAPTIVE)
def test_adaptive_avg_pool2d(output_size, shape, dtype):
    parity.run_both(_forward_backward, lambda m, x: m.nn.functional.adaptive_avg_pool2d(
        x, output_size), _tensor(shape, dtype=dtype))


@pytest.mark.parametrize("output_size", [1, (1, 1), (1, None)])
def test_adaptive_avg_pool2d_to_one_is_a_mean(output_size):
    parity.run_both(lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, output_size).grad_fn.name(),
                    _tensor((2, 3, 1, 6)).requires_grad_())
    parity.run_both(lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, output_size),
                    _tensor((2, 3, 4, 6)), exact=False)


def test_adaptive_avg_pool2d_gradcheck():
    x = _tensor((1, 2, 7, 6)).requires_grad_()
    fn = lambda x: engine.nn.functional.adaptive_avg_pool2d(x, (3, 4))  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_pooling_errors():
    F = lambda m: m.nn.functional  # noqa: E731
    cases = []
    for name in ("max_pool2d", "avg_pool2d"):
        pool = lambda m, *a, name=name, **k: getattr(F(m), name)(*a, **k)  # noqa: E731
        cases += [
            lambda m, x, pool=pool: pool(m, x[0, 0], 2),
            lambda m, x, pool=pool: pool(m, x[None], 2),
            lambda m, x, pool=pool: pool(m, x[:, :, :0], 2),
            lambda m, x, pool=pool: pool(m, x[:, :0], 2),
            lambda m, x, pool=pool: pool(m, x[:0], 2),
            lambda m, x, pool=pool: pool(m, x, 0),
            lambda m, x, pool=pool: pool(m, x, (0, 2)),
            lambda m, x, pool=pool: pool(m, x, -1),
            lambda m, x, pool=pool: pool(m, x, (2, 2, 2)),
            lambda m, x, pool=pool: pool(m, x, 2, stride=0),
            lambda m, x, pool=pool: pool(m, x, 2, stride=-1),
            lambda m, x, pool=pool: pool(m, x, 2, stride=(1, 1, 1)),
            lambda m, x, pool=pool: pool(m, x, 2, padding=-1),
            lambda m, x, pool=pool: pool(m, x, 3, padding=2),
            lambda m, x, pool=pool: pool(m, x, 2, padding=(1, 1, 1)),
            lambda m, x, pool=pool: pool(m, x, 8),
            lambda m, x, pool=pool: pool(m, x.bool(), 2),
            lambda m, x, pool=pool: pool(m, x, 2.0),
            lambda m, x, pool=pool: pool(m, x.tolist(), 2),
        ]
    cases += [
        lambda m, x: F(m).max_pool2d(x, 2, dilation=0),
        lambda m, x: F(m).max_pool2d(x, 2, dilation=(1, -1)),
        lambda m, x: F(m).max_pool2d(x, 2, dilation=(1, 1, 1)),
        lambda m, x: F(m).max_pool2d(x, 2, dilation=3, padding=2),
        lambda m, x: F(m).max_pool2d(x, 3, dilation=3),
        lambda m, x: F(m).avg_pool2d(x, 2, divisor_override=0),
        lambda m, x: F(m).avg_pool2d(x, 2, divisor_override=1.5),
    ]
    for size in (-1, (2,), (2, 2, 2), 2.0):
        cases.append(lambda m, x, size=size: F(m).adaptive_avg_pool2d(x, size))
    cases += [lambda m, x: F(m).adaptive_avg_pool2d(x[0, 0], 2),
              lambda m, x: F(m).adaptive_avg_pool2d(x[None], 2),
              lambda m, x: F(m).adaptive_avg_pool2d(x[:, :, :0], 2),
              lambda m, x: F(m).adaptive_avg_pool2d(x.long(), 2),
              lambda m, x: F(m).adaptive_avg_pool2d(x, (None, None, 2))]
    x = _tensor((2, 3, 7, 6), dtype="float32")
    for case in cases:
        parity.run_both(case, x)


def test_pooling_of_empty_batches():
    x = _tensor((0, 3, 7, 6))
    parity.run_both(lambda m, x: m.nn.functional.max_pool2d(x, 2, return_indices=True), x)
    parity.run_both(lambda m, x: m.nn.functional.avg_pool2d(x, 2), x)
    parity.run_both(lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, 2), x)
    parity.run_both(lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, (2, 0)), _tensor((1, 2,
                                                                                         3, 3)))


def test_pooling_modules():
    def fn(m, x):
        nn = m.nn
        layers = [nn.MaxPool2d(2), nn.MaxPool2d((3, 2), stride=1, padding=1, dilation=2,
                                                return_indices=True, ceil_mode=True),
                  nn.AvgPool2d(2), nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True,
                                                count_include_pad=False, divisor_override=2),
                  nn.AdaptiveAvgPool2d((1, 1)), nn.AdaptiveAvgPool2d(3),
                  nn.AdaptiveAvgPool2d((None, 2))]
        return ([repr(layer) for layer in layers], [layer(x) for layer in layers],
                [list(layer.state_dict()) for layer in layers], layers[0].stride,
                layers[2].stride)

    parity.run_both(fn, _tensor((2, 3, 7, 6), dtype="float32"), exact=False)
