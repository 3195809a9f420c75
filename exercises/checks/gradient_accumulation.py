"""Checkers for the exercises of lesson 6, gradient accumulation
(solutions/06_gradient_accumulation.ipynb)."""
from collections.abc import Mapping

import numpy as np

from exercises.checks.toolkit import (
    _,
    all_of,
    as_values,
    checker,
    correct,
    describe,
    expect_tensor,
    is_bool,
    is_function,
    is_number,
    is_tensor_like,
    n_,
    not_done,
    nth,
    unpack,
    wrong,
    wrong_form,
)

# --- private helpers ---------------------------------------------------------------


def _values(answer):
    """The values of a list, tuple, NumPy array or tensor as a plain list; None otherwise."""
    return None if isinstance(answer, (str, Mapping)) else as_values(answer)


def _numbers(answer, count, what):
    """``answer`` (a list, tuple, NumPy array or tensor) as a list of ``count`` floats, or the
    Feedback saying why it is not."""
    values = _values(answer)
    if values is None:
        return wrong_form(what, answer, _("a list of {count} numbers", count=count))
    if len(values) != count:
        if not values:
            return wrong(_("{what} is empty; {count} numbers are expected here", what=what,
                           count=count))
        return wrong(n_("{what} has {n} value; {count} numbers are expected here",
                        "{what} has {n} values; {count} numbers are expected here",
                        len(values), what=what, count=count))
    for index, value in enumerate(values):
        if not is_number(value):
            return wrong_form(_("the {nth} value of {what}", nth=nth(index), what=what), value,
                              _("a number"))
    return [float(v) for v in values]


def _same(values, expected, atol=1e-4):
    return bool(np.allclose(np.asarray(values, dtype=float), np.asarray(expected, dtype=float),
                            atol=atol, rtol=1e-4))


def _grad_values(tensor):
    """The values of ``tensor.grad`` as a list, or None when it has no gradient."""
    grad = tensor.grad
    return None if grad is None else grad.tolist()


def _call(function, what):
    """``(result, None)`` from calling ``function()``, or ``(None, Feedback)`` if it fails."""
    if not is_function(function):
        return None, wrong(_("{name} is {value}; pass the function itself (its name, "
                             "without parentheses)",
                             name=what.removesuffix('()'), value=describe(function)))
    try:
        return function(), None
    except Exception as error:  # the learner's bug is what the exercise is about
        message = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return None, wrong(_("{what} raised {name}: {message}",
                             what=what, name=type(error).__name__, message=message))


# --- Exercise 6.1: predict .grad after several backward calls -----------------------


@checker(right=lambda torch: [1.5, 1.5, 1.5, 1.5],
         wrong=lambda torch: [[0.25, 0.25, 0.25, 0.25],   # backward overwrites
                              [1.25, 1.25, 1.25, 1.25],   # the mean counted once
                              [1.0, 1.0, 1.0, 1.0],       # only the sum
                              [2.5, 2.5, 2.5, 2.5],       # the mean counted as 1 each time
                              ["1.5", "1.5", "1.5", "1.5"],  # numbers in quotes
                              1.5])                       # one number, not four
def check_06_predict_grad(prediction):
    """Exercise 6.1: x.grad after total.backward() and average.backward() twice, x of 4."""
    values = _numbers(prediction, 4, _("your prediction"))
    if not isinstance(values, list):
        return values
    if _same(values, [1.5] * 4):
        return correct(_("1 from the sum, then 0.25 from each of the two backward calls of the "
                         "mean, all added up."))
    if _same(values, [0.25] * 4):
        return wrong(_("your prediction is the gradient of the last call alone"),
                     _("does backward() replace .grad, or add to it?"))
    if _same(values, [1.0] * 4):
        return wrong(_("your prediction counts only the sum"),
                     _("the mean's graph saves no tensors: both of its backward calls run."))
    if _same(values, [1.25] * 4):
        return wrong(_("your prediction counts the mean's gradient only once"),
                     _("count the backward() calls."))
    return wrong(_("your prediction is not right"),
                 _("each element of the sum has derivative 1; of the mean of 4, 1/4."))


# --- Exercise 6.2: which second backward raises -------------------------------------


_RAISES = [False, True, False, True]


@checker(right=lambda torch: [False, True, False, True],
         wrong=lambda torch: [[True, True, True, True],      # every graph is freed
                              [False, False, False, False],  # nothing is freed
                              [False, True, True, True],     # the mean saves something
                              [False, False, False, True],   # x * x needs nothing
                              ["False", "True", "False", "True"],  # in quotes
                              [0, 1, 0, 1]])                 # 0 and 1 for False and True
def check_06_second_backward(prediction):
    """Exercise 6.2: for each of four outputs, True if a second backward() raises."""
    values = _values(prediction)
    if values is None or len(values) != 4:
        return wrong_form(_("your prediction"), prediction,
                          _("a list of four True/False values, one per output a, b, c, d"))
    for name, value in zip("abcd", values):
        if not is_bool(value):
            return wrong_form(_("your prediction for {label}", label=name), value,
                              _("True or False"))
    prediction = [bool(v) for v in values]
    if prediction == _RAISES:
        return correct(_("only the graphs whose nodes saved a tensor (b and d) refuse a second "
                         "backward."))
    names = "abcd"
    bad = [names[i] for i, (p, e) in enumerate(zip(prediction, _RAISES)) if p != e]
    return wrong(_("your prediction for {names} is not right", names=', '.join(bad)),
                 _("for each grad_fn, ask: does its formula need a value from the forward "
                   "pass, or only the shape?"))


# --- Exercise 6.3: micro-batches ----------------------------------------------------

# The data of the exercise (written out again in the notebook).
_X = np.array([[1.0, 2.0], [0.0, 1.0], [2.0, -1.0], [1.0, 1.0],
               [3.0, 0.0], [-1.0, 2.0], [0.5, 0.5], [2.0, 2.0]])
_T = np.array([1.0, 0.0, 2.0, 3.0, -1.0, 1.0, 0.0, 2.0])
_W = np.array([0.5, -1.0])
_FULL = (2 * _X.T @ (_X @ _W - _T) / len(_T))
_LAST = (2 * _X[6:].T @ (_X[6:] @ _W - _T[6:]) / 2)


def _micro_batch_grad(torch, scale=4, zero_inside=False, size=2):
    X = torch.tensor(_X.tolist())
    t = torch.tensor(_T.tolist())
    w = torch.tensor(_W.tolist(), requires_grad=True)
    for i in range(0, 8, size):
        if zero_inside:
            w.grad = None
        loss = ((X[i:i + size] @ w - t[i:i + size]) ** 2).mean() / scale
        loss.backward()
    return w.grad


@checker(right=lambda torch: _micro_batch_grad(torch),
         wrong=lambda torch: [_micro_batch_grad(torch, scale=1),           # not scaled
                              _micro_batch_grad(torch, zero_inside=True),  # zeroed each time
                              _micro_batch_grad(torch, scale=2)])          # wrong scale
def check_06_micro_batches(grad):
    """Exercise 6.3: w.grad after one backward per micro-batch of 2 rows, equal to the
    gradient of the mean squared error over all 8 rows."""
    if grad is None:  # the loop has not run yet: w.grad is None until a first backward()
        return not_done(_("w.grad is still None: write the loop, with one backward() per "
                          "micro-batch, then run both cells again."))
    if is_tensor_like(grad) and tuple(grad.shape) == (2,):
        values = grad.tolist()
        if _same(values, 4 * _FULL):
            return wrong(_("w.grad is 4 times too large: each micro-batch's mean counts as if "
                           "it were the whole batch"),
                         _("how many micro-batches share the full batch's mean?"))
        if _same(values, _LAST / 4) or _same(values, _LAST):
            return wrong(_("w.grad holds only the last micro-batch's gradient"),
                         _("when do the gradients of the other micro-batches disappear?"))
    return expect_tensor(grad, what="w.grad", shape=(2,), values=_FULL.tolist(), atol=1e-5,
                         hints={"values": _("the full-batch loss is the mean of the 4 "
                                            "micro-batch means.")})


# --- Exercise 6.4: fix a training loop that forgets to zero ------------------------

_STEPS, _LR = 20, 0.1
_GOAL = 3 - 3 * (1 - 2 * _LR) ** _STEPS  # plain gradient descent on (w - 3) ** 2 from 0


def _training(torch, where="start"):
    def train():
        w = torch.tensor(0.0, requires_grad=True)
        optimizer = torch.optim.SGD([w], lr=_LR)
        for _unused in range(_STEPS):
            if where == "start":
                optimizer.zero_grad()
            loss = (w - 3) ** 2
            loss.backward()
            if where == "between":
                optimizer.zero_grad()
            optimizer.step()
            if where == "end":
                w.grad = None
        return w
    return train


def _no_zeroing_result():
    w, grad = 0.0, 0.0
    for _unused in range(_STEPS):
        grad += 2 * (w - 3)
        w -= _LR * grad
    return w


@checker(right=lambda torch: _training(torch),
         wrong=lambda torch: [_training(torch, where=None),       # the bug, unfixed
                              _training(torch, where="between"),  # zeroed before step()
                              lambda: 3.0])                       # not a tensor
def check_06_train_loop(train):
    """Exercise 6.4: a fixed train() whose 20 SGD steps on (w - 3) ** 2 zero the gradient."""
    w, problem = _call(train, "train()")
    if problem is not None:
        return problem
    if not is_tensor_like(w):
        return wrong(_("train() returned {value}; it should return w", value=describe(w)))
    value = w.tolist()
    if isinstance(value, list):
        return wrong(_("train() should return w, a tensor holding one number"))
    if abs(value - _no_zeroing_result()) < 1e-3:
        return wrong(_("w ends where the buggy loop leaves it: each step still adds the new "
                       "gradient to the old ones"),
                     _("something must reset the gradients once per step."))
    if abs(value) < 1e-6:
        return wrong(_("w never moved: optimizer.step() found no gradient"),
                     _("zero the gradients before backward(), or after step(), not in between."))
    if abs(value - _GOAL) < 1e-4:
        return correct(_("w walks steadily towards 3 now that every step starts from a clean "
                         "gradient."))
    return wrong(_("w does not end where 20 steps of plain gradient descent leave it"),
                 _("change only where the gradients are reset; keep lr and the number of steps."))


# --- Exercise 6.5: fix a second backward --------------------------------------------

_TWO_LOSSES_GRAD = [2.0, -6.0, 39.0]


def _two_losses(torch, how="retain"):
    def two_losses():
        x = torch.tensor([1.0, 2.0, 3.0])
        w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        h = x * w
        loss_a = h.sum()
        loss_b = (h ** 2).sum()
        if how == "retain":
            loss_a.backward(retain_graph=True)
            loss_b.backward()
        elif how == "sum":
            (loss_a + loss_b).backward()
        elif how == "late":  # retain_graph on the wrong call
            loss_a.backward()
            loss_b.backward(retain_graph=True)
        elif how == "zeroed":
            loss_a.backward(retain_graph=True)
            w.grad = None
            loss_b.backward()
        elif how == "one":
            loss_a.backward()
        return w
    return two_losses


@checker(right=lambda torch: _two_losses(torch),
         wrong=lambda torch: [_two_losses(torch, "late"), _two_losses(torch, "zeroed"),
                              _two_losses(torch, "one")])
def check_06_two_losses(two_losses):
    """Exercise 6.5: a fixed two_losses() that returns w with the gradient of both losses."""
    w, problem = _call(two_losses, "two_losses()")
    if problem is not None:
        if " raised " not in problem.message:  # not a function: no hint about backward
            return problem
        return wrong(problem.message.rstrip("."),
                     _("which backward() call frees what the other one still needs?"))
    if not is_tensor_like(w):
        return wrong(_("two_losses() returned {value}; it should return w", value=describe(w)))
    grad = _grad_values(w)
    if grad is not None and len(grad) == 3:
        if _same(grad, [1.0, 2.0, 3.0]):
            return wrong(_("w.grad holds the gradient of loss_a alone"),
                         _("both losses should add their gradients into w.grad."))
        if _same(grad, [1.0, -8.0, 36.0]):
            return wrong(_("w.grad holds the gradient of loss_b alone"),
                         _("both losses should add their gradients into w.grad."))
    return expect_tensor(w, what="w", shape=(3,), grad=_TWO_LOSSES_GRAD,
                         hints={"grad": _("w.grad should be the sum of both losses' gradients.")})


# --- Exercise 6.6: a vector-Jacobian product ----------------------------------------

_JACOBIAN = [[3.0, 2.0], [1.0, 1.0], [0.0, 6.0]]
_VJP = [5.0, -2.0]  # [1, 2, -1] @ _JACOBIAN


def _vjp(torch, gradient=(1.0, 2.0, -1.0), jacobian=_JACOBIAN):
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    z = torch.stack([x[0] * x[1], x[0] + x[1], x[1] ** 2])
    z.backward(gradient=torch.tensor(list(gradient)))
    return jacobian, x


@checker(right=lambda torch: _vjp(torch),
         wrong=lambda torch: [_vjp(torch, jacobian=[[3.0, 1.0, 0.0], [2.0, 1.0, 6.0]]),
                              _vjp(torch, gradient=(1.0, 1.0, 1.0)),
                              _vjp(torch, jacobian=[[3.0, 2.0], [1.0, 1.0], [0.0, 3.0]]),
                              (_JACOBIAN, torch.tensor([2.0, 3.0], requires_grad=True)),
                              ([["3", "2"], ["1", "1"], ["0", "6"]], _vjp(torch)[1]),  # quotes
                              ([3.0, 2.0, 1.0, 1.0, 0.0, 6.0], _vjp(torch)[1])])   # flat
def check_06_vjp(answer):
    """Exercise 6.6: ``answer = (J, x)``: the Jacobian of z = [x0*x1, x0+x1, x1**2] at
    x = [2, 3] as nested lists, and x after z.backward(gradient=[1, 2, -1])."""
    parts = unpack(answer, ("J", "x"))
    if not isinstance(parts, tuple):
        return parts
    J, x = parts
    rows = _values(J)
    form = _("a nested list of 3 rows (one per output) of 2 numbers (one per input)")
    if rows is None:
        return wrong_form("J", J, form)
    if not all(isinstance(row, list) for row in rows):
        return wrong(n_("J is a flat list of {n} value; write it as {form}, like [[a, b], "
                        "[c, d], [e, f]]",
                        "J is a flat list of {n} values; write it as {form}, like [[a, b], "
                        "[c, d], [e, f]]", len(rows), form=form))
    shape = (len(rows), *{len(row) for row in rows})
    if shape == (2, 3):
        return wrong(_("J has 2 rows and 3 columns: its rows should be the outputs z0, z1, z2, "
                       "its columns the inputs x0, x1"))
    if shape != (3, 2):
        return wrong(_("J should be {form}", form=form))
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            if not is_number(value):
                return wrong_form(_("J[{i}][{j}]", i=i, j=j), value, _("a number"))
    rows = [[float(v) for v in row] for row in rows]
    for i, (row, expected) in enumerate(zip(rows, _JACOBIAN)):
        if not _same(row, expected):
            return wrong(_("row {i} of J (the derivatives of z{i}) is not right", i=i),
                         _("differentiate that one output with respect to x0, then x1, at x = "
                           "[2, 3]."))
    if not is_tensor_like(x):
        return wrong(_("x is {value}, not a tensor", value=describe(x)))
    grad = _grad_values(x)
    if grad is not None and _same(grad, [4.0, 9.0]):
        return wrong(_("x.grad is the gradient of z.sum(): the weights were all 1"),
                     _("the gradient= tensor holds one weight per output of z."))
    return all_of(
        expect_tensor(x, what="x", shape=(2,), grad=_VJP,
                      hints={"grad": _("x.grad should be v @ J for v = [1, 2, -1].")}),
        success=_("J is right, and backward(gradient=v) gave v @ J without building J."),
    )
