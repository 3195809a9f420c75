"""Lesson 12 (hooks and saved tensors): its checkers' feedback on the mistakes learners make,
with the engine and with real torch 2.15 (the same words from both)."""
import pytest

import engine
from exercises.checks.hooks_and_saved_tensors import (
    HOOKS,
    ORDER,
    _clip_all,
    _clip_fixed,
    _clip_upper_only,
    _clip_weights_only,
    _counter,
    _counter_once,
    _model_factory,
    _sample_x,
    _scaling_hook,
    check_12_backward_inputs,
    check_12_clip_hooks,
    check_12_count_saved,
    check_12_halve,
    check_12_hook_order,
)


@pytest.fixture(params=["engine", pytest.param("torch", marks=pytest.mark.torch)])
def tm(request):
    if request.param == "engine":
        return engine
    return pytest.importorskip("torch")


def said(feedback, status):
    assert feedback.status == status, feedback
    return feedback.message


def test_the_hook_order_is_torchs(tm):
    """ORDER is what torch (and the engine) really do with the exercise's five hooks."""
    order = []
    x = tm.tensor([1., 2.], requires_grad=True)
    a = x.exp()
    b = a * 2
    x.register_post_accumulate_grad_hook(lambda leaf: order.append(HOOKS[0]))
    a.grad_fn.register_hook(lambda sent, received: order.append(HOOKS[1]))
    x.register_hook(lambda g: order.append(HOOKS[2]))
    a.register_hook(lambda g: order.append(HOOKS[3]))
    b.grad_fn.register_prehook(lambda grads: order.append(HOOKS[4]))
    b.sum().backward()
    assert order == ORDER


def test_hook_order_feedback():
    message = said(check_12_hook_order(list(HOOKS)), "wrong")
    assert "registered" in message
    swapped = ORDER[:3] + [ORDER[4], ORDER[3]]
    message = said(check_12_hook_order(swapped), "wrong")
    assert "fourth hook" in message and "before that gradient is added" in message
    message = said(check_12_hook_order(ORDER[:4]), "wrong")
    assert "4 labels" in message
    message = said(check_12_hook_order(ORDER[:4] + ["tensor hook on b"]), "wrong")
    assert "not one of the labels" in message
    assert said(check_12_hook_order(tuple(ORDER)), "correct")


def test_halve_feedback(tm):
    def x():
        return tm.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def forgot_return(grad):
        grad = grad * 0.5  # noqa: F841 - the exercise's bug

    message = said(check_12_halve((forgot_return, x())), "not_done")
    assert "only sees what a hook returns" in message
    message = said(check_12_halve((_scaling_hook(2.0), x())), "wrong")
    assert "x.grad is 6 at index [0]" in message and "0.5" in message
    message = said(check_12_halve((lambda g: g.sum() * 0.5, x())), "wrong")
    assert "another shape" in message
    message = said(check_12_halve((_scaling_hook(0.5), tm.tensor([1.0, 2.0]))), "wrong")
    assert "pass the x of the exercise" in message
    # the check works on a copy: x itself gets no .grad, and a second run says the same
    given = x()
    assert said(check_12_halve((_scaling_hook(0.5), given)), "correct")
    assert given.grad is None
    assert said(check_12_halve((_scaling_hook(0.5), given)), "correct")


def test_clip_hooks_feedback(tm):
    make = _model_factory(tm)
    message = said(check_12_clip_hooks((_clip_weights_only, make)), "wrong")
    assert "bias's gradient is not clipped" in message and "every parameter" in message
    message = said(check_12_clip_hooks((_clip_upper_only, make)), "wrong")
    assert "below -limit" in message and "both sides" in message
    message = said(check_12_clip_hooks((_clip_fixed, make)), "wrong")
    assert "with limit 0.2" in message and "above limit" in message
    message = said(check_12_clip_hooks((lambda model, limit: None, make)), "not_done")
    assert "no hook changed anything" in message
    assert said(check_12_clip_hooks((_clip_all, make)), "correct")
    assert said(check_12_clip_hooks((_clip_all, make)), "correct")  # run again: fresh models


def test_count_saved_feedback(tm):
    x = _sample_x(tm)
    message = said(check_12_count_saved((_counter(tm, lambda t: t.numel()), x)), "wrong")
    assert "bytes is not" in message and "bytes of one element" in message
    message = said(check_12_count_saved((_counter(tm, lambda t: 4 * t.numel()), x)), "wrong")
    assert "x.double().sin()" in message and "float64 takes 8" in message
    message = said(check_12_count_saved((_counter_once(tm), x)), "wrong")
    assert "(x * x).sum()" in message and "counts it twice" in message
    message = said(check_12_count_saved((lambda fn: None, x)), "not_done")
    message = said(check_12_count_saved((lambda fn: "2, 96", x)), "wrong")
    assert "pair of whole numbers" in message
    message = said(check_12_count_saved((_counter_once(tm), tm.zeros(4, 3))), "wrong")
    assert "requires grad" in message


def test_backward_inputs_feedback(tm):
    message = said(check_12_backward_inputs((0.0, 12.0)), "wrong")
    assert "does not set it to zero" in message
    message = said(check_12_backward_inputs((9.0, 12.0)), "wrong")
    assert "not in inputs" in message
    message = said(check_12_backward_inputs((None, 6.0)), "wrong")
    assert "2 * a * b" in message and "6" in message
    message = said(check_12_backward_inputs((None, "12")), "wrong")
    assert "write a number" in message
    assert said(check_12_backward_inputs([None, tm.tensor(12.0)]), "correct")
