"""lgamma and digamma (engine/ops/unary.py, engine/fidelity/special.py) against torch.

torch's float64 lgamma is SLEEF's vectorised one and the engine's the C library's through
Python, so values agree to rounding (not bit for bit); digamma and trigamma follow torch's
own code and agree almost always to the bit.
"""
import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

POINTS = [0.1, 0.5, 1.0, 1.5, 2.0, 3.5, 7.0, 9.99, 10.0, 10.5, 25.0, 1e3, 1e20, -0.5, -1.5,
          -3.7, 1e-8, 0.0, -0.0, -2.0, float("inf"), float("nan")]


@pytest.mark.parametrize("name", ["lgamma", "digamma"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_values(name, dtype):
    with np.errstate(over="ignore"):  # 1e20 is inf in float16
        x = np.array(POINTS, dtype=dtype)
    parity.run_both(lambda m, t: (getattr(m, name)(t), getattr(t, name)()), x, exact=False,
                    rtol=1e-6 if dtype != "float16" else 1e-3, atol=1e-12)
    parity.run_both(lambda m: getattr(m, name)(m.tensor([1, 2, 5])), exact=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_digamma_and_trigamma(dtype):
    x = np.array([0.1, 0.5, 1.5, 3.0, 12.0, -0.5, -2.5], dtype=dtype)

    def fn(m, t):
        t.requires_grad_()
        y = m.lgamma(t)
        (first,) = m.autograd.grad(y.sum(), t, create_graph=True)
        (second,) = m.autograd.grad(first.sum(), t)
        return y, first, second, y.grad_fn.name(), m.digamma(t).grad_fn.name()

    parity.run_both(fn, x, exact=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_third_derivative_is_polygammas(dtype):
    def fn(m, t):
        t.requires_grad_()
        (first,) = m.autograd.grad(m.lgamma(t).sum(), t, create_graph=True)
        (second,) = m.autograd.grad(first.sum(), t, create_graph=True)
        (third,) = m.autograd.grad(second.sum(), t)
        return first, second, third, first.grad_fn.next_functions[1][0].name(), \
            second.grad_fn.next_functions[1][0].name()

    parity.run_both(fn, np.array([1.5, 2.5, -0.5, 12.0], dtype=dtype))


def test_in_place_and_out():
    parity.run_both(lambda m: m.tensor([0.5, 3.0]).lgamma_())
    parity.run_both(lambda m: m.tensor([0.5, 3.0]).digamma_(), exact=False)
    parity.run_both(lambda m: m.lgamma(m.tensor([0.5, 3.0]), out=m.empty(2)), exact=False)


def test_broadcast_tensors_returns_a_tensor_that_has_the_shape_itself():
    def fn(m):
        a = m.zeros(2, requires_grad=True)
        b, c = m.broadcast_tensors(a, m.ones(2))
        d, e = m.broadcast_tensors(a, m.ones(3, 2))
        return b is a, b.grad_fn, d.grad_fn.name(), e.shape

    parity.run_both(fn)
