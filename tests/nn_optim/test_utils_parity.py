"""engine.nn.utils against torch 2.15: clip_grad_norm_ (every norm_type, error_if_nonfinite,
the total norm it returns), clip_grad_value_, parameters_to_vector, vector_to_parameters.

The total norm is a sum of squares: within torch.testing's tolerance (numpy adds in another
order); clipping then scales each gradient as torch does.
"""
import math
import warnings

import pytest

import engine

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _model_with_grads(m, x, scale=1.0):
    m.manual_seed(0)
    model = m.nn.Sequential(m.nn.Linear(4, 5), m.nn.Tanh(), m.nn.Linear(5, 2, bias=False))
    (model(x).sum() * scale).backward()
    return model


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, "inf", 0.5, -math.inf])
@pytest.mark.parametrize("max_norm", [0.1, 1.0, 1e6])
def test_clip_grad_norm(max_norm, norm_type, dtype):
    def fn(m, x):
        model = _model_with_grads(m, x.to(getattr(m, dtype)))
        if dtype == "float64":
            model = _model_with_grads(m, x.double())
        total = m.nn.utils.clip_grad_norm_(model.parameters(), max_norm, norm_type)
        return total, [p.grad for p in model.parameters()]

    parity.run_both(fn, parity.make_tensor((3, 4), "float32", low=-3, high=3), exact=False)


def test_clip_grad_norm_details():
    def fn(m, x):
        model = _model_with_grads(m, x)
        weight = model[0].weight
        grad = weight.grad
        results = [m.nn.utils.clip_grad_norm_(weight, 0.5),           # a single tensor
                   weight.grad is grad,                                 # scaled in place
                   m.nn.utils.clip_grad_norm_([], 1.0),                 # nothing: tensor(0.)
                   m.nn.utils.clip_grad_norm_([m.nn.Parameter(m.ones(2))], 1.0),  # no grads
                   m.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=False),
                   m.nn.utils.get_total_norm([p.grad for p in model.parameters()])]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results.append(m.nn.utils.clip_grad_norm_(iter([]), 1.0))
            results.append(m.nn.utils.clip_grad_norm(model.parameters(), 10.0))
        results.append([(w.category.__name__, str(w.message)) for w in caught])
        return results

    parity.run_both(fn, parity.make_tensor((3, 4), "float32", low=-3, high=3), exact=False)


def test_clip_grad_norm_nonfinite():
    def fn(m, x, error):
        model = _model_with_grads(m, x)
        model[0].bias.grad[0] = math.inf
        total = m.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=error)
        return total, [p.grad for p in model.parameters()]

    x = parity.make_tensor((3, 4), "float32", low=-3, high=3)
    parity.run_both(fn, x, False, exact=False)
    parity.run_both(fn, x, True)


@pytest.mark.parametrize("clip_value", [0.05, 0.5, 10])
def test_clip_grad_value(clip_value):
    def fn(m, x):
        model = _model_with_grads(m, x)
        grads = [p.grad for p in model.parameters()]
        result = m.nn.utils.clip_grad_value_(model.parameters(), clip_value)
        return result, [p.grad for p in model.parameters()], \
            all(p.grad is g for p, g in zip(model.parameters(), grads))

    # (the gradients of Linear come from matrix products: within tolerance)
    parity.run_both(fn, parity.make_tensor((3, 4), "float32", low=-3, high=3), exact=False)


def test_parameters_to_vector_and_back():
    def fn(m, x):
        model = _model_with_grads(m, x)
        vec = m.nn.utils.parameters_to_vector(model.parameters())
        (vec * vec).sum().backward()
        m.nn.utils.vector_to_parameters(m.arange(vec.numel(), dtype=m.float32),
                                        model.parameters())
        errors = []
        try:
            m.nn.utils.vector_to_parameters([1.0], model.parameters())
        except TypeError as error:
            errors.append(str(error))
        return vec, vec.grad_fn.name(), [p for p in model.parameters()], \
            [p.grad for p in model.parameters()], errors

    parity.run_both(fn, parity.make_tensor((3, 4), "float32", low=-3, high=3), exact=False)


def test_clipping_in_a_training_loop():
    engine.manual_seed(0)
    model = engine.nn.Linear(3, 1)
    x, y = engine.randn(8, 3) * 100, engine.randn(8, 1)
    engine.nn.functional.mse_loss(model(x), y).backward()
    total = engine.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    assert total.item() > 1.0
    clipped = engine.nn.utils.get_total_norm([p.grad for p in model.parameters()])
    assert clipped.item() == pytest.approx(1.0, rel=1e-5)
