"""Lesson 13 (forward mode, Jacobians and torch.func): its checkers' feedback on the mistakes
learners make, with the engine and with real torch 2.15 (the same words from both), and that
the facts the exercises rest on are torch's."""
import math
import warnings

import pytest

import engine
from exercises.checks.forward_mode_and_torch_func import (
    KINKS,
    _directional_late,
    _directional_pair,
    _directional_primal,
    _directional_right,
    _hvp_gradient,
    _hvp_right,
    _hvp_times_v,
    _per_sample_mean,
    _per_sample_right,
    _per_sample_scaled,
    _sample_x,
    check_13_directional,
    check_13_hvp,
    check_13_kinks,
    check_13_per_sample,
    check_13_products,
)


@pytest.fixture(params=["engine", pytest.param("torch", marks=pytest.mark.torch)])
def tm(request):
    if request.param == "engine":
        return engine
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _quiet():
    # torch's first forward-mode call warns that torch.jit.script is deprecated (so does the
    # engine, as torch): not what these tests are about
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`torch.jit.script` is deprecated")
        yield


def said(feedback, status):
    assert feedback.status == status, feedback
    return feedback.message


def test_the_kinks_are_torchs(tm):
    """The values of exercise 13.4 are what backward gives, in torch and the engine."""
    got = []
    for fn in (tm.relu, tm.abs, tm.sqrt):
        z = tm.tensor(0., requires_grad=True)
        fn(z).backward()
        got.append(z.grad.item())
    t = tm.tensor([2., 5., 5.], requires_grad=True)
    t.max().backward()
    got.append(t.grad[1].item())
    assert got == [0.0, 0.0, math.inf, 0.5]
    assert said(check_13_kinks(got), "correct")


def test_the_jacobian_counts_are_what_jacfwd_and_jacrev_build(tm):
    """A function from 3 numbers to 50: 3 columns, 50 rows, one product each."""
    weights = tm.arange(150.).reshape(50, 3) / 100

    def f(x):
        return (weights @ x).sin()
    x = tm.tensor([0.1, 0.2, 0.3])
    jvps = [tm.func.jvp(f, (x,), (e,))[1] for e in tm.eye(3)]
    y, back = tm.func.vjp(f, x)
    vjps = [back(e)[0] for e in tm.eye(50)]
    assert tm.allclose(tm.stack(jvps, dim=1), tm.func.jacfwd(f)(x))
    assert tm.allclose(tm.stack(vjps), tm.func.jacrev(f)(x))
    assert said(check_13_products((len(jvps), len(vjps), "jacfwd")), "correct")


def test_products_feedback():
    message = said(check_13_products((50, 3, "jacrev")), "wrong")
    assert "swapped" in message and "one column" in message
    message = said(check_13_products((3, 50, "jacrev")), "wrong")
    assert "not the cheaper transform" in message
    message = said(check_13_products((1, 1, "jacfwd")), "wrong")
    assert "1 JVPs" in message and "one column" in message
    message = said(check_13_products((3, 1, "jacfwd")), "wrong")
    assert "1 VJPs" in message and "one row" in message
    message = said(check_13_products((3, 50, "forward")), "wrong")
    assert '"jacfwd" or "jacrev"' in message
    assert said(check_13_products([3.0, 50, "jacfwd"]), "correct")


def test_directional_feedback(tm):
    x = _sample_x(tm)
    message = said(check_13_directional((_directional_late(tm), x)), "wrong")
    assert "returns None" in message and "dual_level" in message
    message = said(check_13_directional((_directional_primal(tm), x)), "wrong")
    assert "f's value, not its tangent" in message
    message = said(check_13_directional((_directional_pair(tm), x)), "wrong")
    assert "return only the tangent" in message

    def doubled(f, x, v):
        return 2 * _directional_right(tm)(f, x, v)
    message = said(check_13_directional((doubled, x)), "wrong")
    assert "at index [0]" in message and "derivative along v" in message

    def outside_level(f, x, v):
        return f(tm.autograd.forward_ad.make_dual(x, v))
    message = said(check_13_directional((outside_level, x)), "wrong")
    assert "raised RuntimeError: Trying to create a dual Tensor for forward AD but no level " \
           "exists" in message
    message = said(check_13_directional((_directional_right(tm), tm.tensor([1.0, 2.0]))),
                   "wrong")
    assert "pass the x of the exercise" in message
    assert said(check_13_directional((_directional_right(tm), x)), "correct")


def test_per_sample_feedback(tm):
    message = said(check_13_per_sample(_per_sample_mean(tm)), "wrong")
    assert "one gradient for the whole batch" in message and "in_dims=(None, 0, 0)" in message
    message = said(check_13_per_sample(_per_sample_scaled(tm)), "wrong")
    assert "sample 0 are not those of its own loss" in message
    per_sample, params, xs, ys = _per_sample_right(tm)
    message = said(check_13_per_sample(({"weight": per_sample["weight"]}, params, xs, ys)),
                   "wrong")
    assert 'per_sample has "weight"' in message
    summed = {name: g.sum(0, keepdim=True) for name, g in per_sample.items()}
    message = said(check_13_per_sample((summed, params, xs, ys)), "wrong")
    assert "has shape (1, 1, 2)" in message
    message = said(check_13_per_sample((per_sample, params, xs[:3], ys)), "wrong")
    assert "pass the params, xs and ys of the exercise" in message
    assert said(check_13_per_sample((per_sample, params, xs, ys)), "correct")


def test_kinks_feedback():
    message = said(check_13_kinks([0.5, 0.0, math.inf, 0.5]), "wrong")
    assert "first gradient (relu at 0) is not 0.5" in message and "left one" in message
    message = said(check_13_kinks([0.0, 0.0, math.nan, 0.5]), "wrong")
    assert "third gradient (sqrt at 0) is not nan" in message
    message = said(check_13_kinks([0.0, 0.0, math.inf, 1.0]), "wrong")
    assert "fourth gradient" in message and "evenly" in message
    message = said(check_13_kinks([0.0, 0.0, math.inf]), "wrong")
    assert "3 items" in message
    assert len(KINKS) == 4


def test_hvp_is_the_hessian_times_v(tm):
    """Exercise 13.5's expected values are torch's hessian(g)(x) @ v."""
    x = _sample_x(tm)
    for g, v in ((lambda t: (t ** 3).sum(), [1.0, 0.0, 1.0]),
                 (lambda t: t[0] * t[1] * t[2], [1.0, 1.0, 1.0])):
        v = tm.tensor(v)
        assert tm.allclose(_hvp_right(tm)(g, x, v), tm.func.hessian(g)(x) @ v)


def test_hvp_feedback(tm):
    x = _sample_x(tm)
    message = said(check_13_hvp((_hvp_gradient(tm), x)), "wrong")
    assert "the gradient of g, not the Hessian times v" in message
    message = said(check_13_hvp((_hvp_times_v(tm), x)), "wrong")
    assert "at index [0]" in message and "JVP of grad(g)" in message
    message = said(check_13_hvp((lambda g, x, v: ..., x)), "not_done")
    assert "still returns ..." in message

    def with_hessian(g, x, v):
        return tm.func.hessian(g)(x) @ v
    assert said(check_13_hvp((with_hessian, x)), "correct")
    assert said(check_13_hvp((_hvp_right(tm), x)), "correct")
