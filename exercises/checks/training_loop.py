"""Checkers for the exercises of lesson 11, "Putting it together: a training loop".

The expected numbers were computed with PyTorch 2.15 (and agree with the engine to 1e-6);
they are compared with a tolerance, never shown.
"""
from collections.abc import Mapping

import numpy as np

from exercises.checks.toolkit import (
    _,
    all_of,
    as_number,
    as_values,
    checker,
    correct,
    describe,
    expect_tensor,
    is_number,
    is_tensor_like,
    n_,
    not_done,
    wrong,
    wrong_form,
)


def _losses_of(value, name, steps):
    """``value`` (a list, tuple or NumPy array of plain numbers, one per step) as a list of
    floats, or the Feedback saying what is wrong with it."""
    if is_tensor_like(value):
        return wrong(_("{name} is {value}; it should be a list of plain numbers, one per step",
                       name=name, value=describe(value)),
                     _("loss.item() turns a one-element tensor into a number."))
    if isinstance(value, np.ndarray) and value.ndim == 1:
        items = value.tolist()
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        return wrong_form(name, value, _("a list of numbers, one per step"))
    if len(items) != steps:
        if not items:
            return wrong(_("{name} is empty; one loss per step is expected ({steps} steps)",
                           name=name, steps=steps))
        return wrong(n_("{name} has {n} value; one loss per step is expected ({steps} steps)",
                        "{name} has {n} values; one loss per step is expected ({steps} steps)",
                        len(items), name=name, steps=steps))
    numbers = []
    for step, item in enumerate(items):
        if is_tensor_like(item):
            return wrong(_("the loss at step {step} is {value}; {name} should hold plain "
                           "numbers", step=step, value=describe(item), name=name),
                         _("loss.item() turns a one-element tensor into a number."))
        number = as_number(item)
        if number is None:
            return wrong_form(_("the loss at step {step}", step=step), item, _("a number"))
        numbers.append(float(number))
    return numbers


def _line_data(torch):
    """The lesson's data: y = 2 x1 - 3 x2 + 1 plus noise, 64 points, seeded."""
    torch.manual_seed(0)
    x = torch.rand(64, 2) * 2 - 1
    y = 2 * x[:, :1] - 3 * x[:, 1:] + 1 + 0.1 * torch.randn(64, 1)
    return x, y


def _losses(torch, steps, lr, *, zero_grad=True, item=True, zero_after_backward=False):
    """The losses of the lesson's loop, or of one of its classic mistakes."""
    x, y = _line_data(torch)
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _unused in range(steps):
        loss = torch.nn.functional.mse_loss(model(x), y)
        if zero_grad and not zero_after_backward:
            optimizer.zero_grad()
        loss.backward()
        if zero_after_backward:
            optimizer.zero_grad()
        optimizer.step()
        losses.append(loss.item() if item else loss)
    return losses


# --- 9.1 predict an SGD step -------------------------------------------------------------

@checker(right=lambda torch: [[0.95, -2.05]],
         wrong=lambda torch: [[[1.05, -1.95]],     # added the gradient
                              [[0.5, -2.5]],       # forgot the learning rate
                              [0.95, -2.05],       # lost the (1, 2) shape
                              [["0.95", "-2.05"]]])  # numbers in quotes
def check_11_predict_sgd_step(prediction):
    """Exercise 11.1: the weight after one SGD step, as nested lists (a tuple, NumPy array or
    tensor of that shape is as good)."""
    form = _("nested lists with the weight's shape (1, 2), like [[a, b]]")
    rows = None if isinstance(prediction, (str, Mapping)) else as_values(prediction)
    if rows is None:
        return wrong_form(_("your prediction"), prediction, form)
    if len(rows) == 2 and not any(isinstance(row, list) for row in rows):
        return wrong(_("your prediction is a flat list of 2 values; write it as {form}", form=form))
    if len(rows) != 1 or not isinstance(rows[0], list) or len(rows[0]) != 2:
        return wrong_form(_("your prediction"), prediction, form)
    expected = [0.95, -2.05]
    for column, (value, target) in enumerate(zip(rows[0], expected)):
        if not is_number(value):
            return wrong_form(_("the value at [0][{column}]", column=column), value, _("a number"))
        if abs(value - target) > 1e-6:
            if abs(value - (2 * [1.0, -2.0][column] - target)) < 1e-6:
                return wrong(_("the value at [0][{column}] moved the wrong way", column=column),
                             _("SGD steps *against* the gradient: p - lr * grad."))
            return wrong(_("the value at [0][{column}] is not what SGD computes", column=column),
                         _("new = old - lr * grad, with lr = 0.1."))
    return correct(_("SGD moved each number by lr * grad against its gradient."))


# --- 9.2 the SGD update by hand ----------------------------------------------------------

_STEPPED_WEIGHT = [[0.0478907, 0.1638832]]
_STEPPED_BIAS = [-0.2983642]


def _stepped(torch, how="right"):
    x, y = _line_data(torch)
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    torch.nn.functional.mse_loss(model(x), y).backward()
    with torch.no_grad():
        for p in model.parameters():
            if how == "right":
                p -= 0.1 * p.grad
            elif how == "plus":
                p += 0.1 * p.grad
            elif how == "no lr":
                p -= p.grad
            elif how == "weight only" and p is model.weight:
                p -= 0.1 * p.grad
    return model


@checker(right=lambda torch: _stepped(torch),
         wrong=lambda torch: [_stepped(torch, "plus"), _stepped(torch, "no lr"),
                              _stepped(torch, "weight only")])
def check_11_sgd_by_hand(model):
    """Exercise 11.2: the model after one hand-written SGD step (lr = 0.1)."""
    weight, bias = getattr(model, "weight", None), getattr(model, "bias", None)
    if not (is_tensor_like(weight) and is_tensor_like(bias)):
        return wrong(_("model is {value}; pass the model of the exercise, with its weight and "
                       "bias", value=describe(model)))
    if tuple(weight.shape) != (1, 2) or tuple(bias.shape) != (1,):
        return wrong(_("model.weight has shape {weight_shape} and model.bias {bias_shape}; use "
                       "the model of the exercise, nn.Linear(2, 1)",
                       weight_shape=tuple(weight.shape), bias_shape=tuple(bias.shape)))
    start = [[-0.0052940, 0.3793229], [-0.5819808]]
    now = [model.weight.tolist()[0], model.bias.tolist()]
    if all(abs(a - b) < 1e-6 for row_a, row_b in zip(now, start) for a, b in zip(row_a, row_b)):
        return not_done(_("the parameters still hold their starting values: write the update, "
                          "which must change the parameter tensors themselves, then run this "
                          "cell again."))
    return all_of(
        expect_tensor(model.weight, what="model.weight", values=_STEPPED_WEIGHT,
                      is_leaf=True, requires_grad=True, atol=1e-6,
                      hints={"values": _("each parameter p becomes p - lr * p.grad, in place "
                                         "(p -= ... or p.sub_(...)) inside torch.no_grad().")}),
        expect_tensor(model.bias, what="model.bias", values=_STEPPED_BIAS, is_leaf=True,
                      requires_grad=True, atol=1e-6,
                      hints={"values": _("update every parameter, the bias too.")}),
        success=_("both parameters took the SGD step and are still leaves."))


# --- 9.3 a whole training loop -------------------------------------------------------------

_LOSSES_50 = {0: 6.4139738, 9: 2.9443536, 24: 1.1519033, 49: 0.2937958}


@checker(right=lambda torch: _losses(torch, 50, 0.05),
         wrong=lambda torch: [_losses(torch, 50, 0.05, zero_grad=False),
                              _losses(torch, 49, 0.05),
                              _losses(torch, 50, 0.05, item=False),
                              _losses(torch, 50, 0.1)])
def check_11_training_loop(losses):
    """Exercise 11.3: the 50 losses of training on the lesson's data with lr = 0.05."""
    losses = _losses_of(losses, "losses", 50)
    if not isinstance(losses, list):
        return losses
    for step, expected in _LOSSES_50.items():
        if abs(losses[step] - expected) > 1e-4 * expected:
            hint = (_("compare your loop with the lesson's five lines: are the gradients "
                      "cleared every step, and does the optimizer use the lr given to train?")
                    if step > 0 else _("the first loss comes before any update."))
            return wrong(_("the loss at step {step} is not what the training loop gives",
                           step=step), hint)
    return correct(_("50 steps, each loss as the loop computes it."))


# --- 9.4 fix: evaluation that builds a graph ---------------------------------------------

_PREDICTIONS = [[3.4750733], [0.9907255]]


def _trained(torch):
    x, y = _line_data(torch)
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _unused in range(100):
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model


def _predict(torch, no_grad=True):
    model = _trained(torch)
    inputs = torch.tensor([[0.5, -0.5], [0.0, 0.0]])
    if not no_grad:
        return model(inputs)
    with torch.no_grad():
        return model(inputs)


@checker(right=lambda torch: _predict(torch),
         wrong=lambda torch: [_predict(torch, no_grad=False),
                              _predict(torch)[:1]])
def check_11_predict_without_graph(prediction):
    """Exercise 11.4: predictions of the trained model, made without recording a graph."""
    return expect_tensor(
        prediction, what=_("the prediction"), shape=(2, 1), values=_PREDICTIONS, atol=1e-5,
        requires_grad=False, grad_fn=None,
        hints={"requires_grad": _("a graph was recorded: which context manager turns that off?"),
               "shape": _("predict for both input rows.")})


# --- 9.5 fix: zero_grad in the wrong place ---------------------------------------------------

@checker(right=lambda torch: _losses(torch, 20, 0.1),
         wrong=lambda torch: [_losses(torch, 20, 0.1, zero_after_backward=True),
                              _losses(torch, 20, 0.1, zero_grad=False)])
def check_11_fixed_loop(fixed_losses):
    """Exercise 11.5: the 20 losses of the loop with its steps in the right order."""
    fixed_losses = _losses_of(fixed_losses, "fixed_losses", 20)
    if not isinstance(fixed_losses, list):
        return fixed_losses
    if max(fixed_losses) - min(fixed_losses) < 1e-9:
        return wrong(_("the loss never changes, so no step changed the model"),
                     _("when optimizer.step() runs, what is in each parameter's .grad?"))
    if abs(fixed_losses[-1] - 0.5142044) > 1e-4:
        return wrong(_("the loss changes, but the last loss is not what the loop gives with "
                       "its steps in the right order"),
                     _("forward, loss, zero_grad(), backward(), step()."))
    return correct(_("the loss falls from 6.41 as the five steps in their order make it."))
