"""Checkers for the exercises of lesson 10, Debugging gradients
(solutions/10_debugging_gradients.ipynb).

Every exercise here is *fix the bug*: the learner's function is called, and what it returns
(or the error it raises) is compared with the bug's own behaviour first. An answer that still
behaves exactly like the starting code gets "not done yet", with the symptom it still shows.
"""
import math
import warnings

from exercises.checks.toolkit import (
    _,
    all_of,
    as_values,
    call_quietly,
    checker,
    correct,
    describe,
    expect_tensor,
    is_function,
    is_number,
    is_stub,
    is_tensor_like,
    not_done,
    nth,
    unpack,
    wrong,
)
from exercises.checks.turning_gradients_off import _raised

# --- private helpers ----------------------------------------------------------------------


def _grad(tensor):
    with warnings.catch_warnings():  # torch warns when .grad of a non-leaf is read
        warnings.simplefilter("ignore")
        return tensor.grad


def _node_name(tensor):
    fn = getattr(tensor, "grad_fn", None)
    if fn is None:
        return None
    name = getattr(fn, "name", None)
    return name() if callable(name) else type(fn).__name__


def _not_a_function(name, value):
    return wrong(_("{name} is {value}, not a function: pass the function itself, without "
                   "calling it", name=name, value=describe(value)))


def _has_nan(values) -> bool:
    flat = list(values) if isinstance(values, list) else [values]
    out = []
    while flat:
        item = flat.pop()
        if isinstance(item, list):
            flat.extend(item)
        else:
            out.append(item)
    return any(isinstance(v, float) and math.isnan(v) for v in out)


# --- Exercise 10.1: a weight converted after it was made ---------------------------------

_X = [1.0, 2.0, 3.0]


def _weight_factory(torch, make):
    def weight_and_grad():
        torch.manual_seed(0)
        w = make(torch)
        x = torch.tensor(_X, dtype=torch.float64)
        loss = (x * w).sum() ** 2
        loss.backward()
        return w
    return weight_and_grad


def _weight_right(torch):
    return torch.randn(3).double().requires_grad_()


def _weight_right_dtype(torch):
    return torch.randn(3, dtype=torch.float64, requires_grad=True)


def _weight_bug(torch):
    return torch.randn(3, requires_grad=True).double()


def _weight_retained(torch):           # a .grad appears, but w is still not a leaf
    w = torch.randn(3, requires_grad=True).double()
    w.retain_grad()
    return w


def _weight_float32(torch):            # .double() dropped: the weight is float32
    return torch.randn(3, requires_grad=True)


def _weight_no_grad(torch):            # requires_grad dropped altogether
    return torch.randn(3).double()


@checker(right=lambda torch: _weight_factory(torch, _weight_right),
         wrong=lambda torch: [_weight_factory(torch, _weight_retained),
                              _weight_factory(torch, _weight_float32),
                              _weight_factory(torch, _weight_no_grad)])
def check_10_leaf_dtype(weight_and_grad):
    """Exercise 10.1: ``weight_and_grad()`` returns a float64 weight ``w`` that is a leaf,
    requires grad, and has the gradient of ``((x * w).sum()) ** 2`` in ``w.grad``."""
    if not is_function(weight_and_grad):
        return _not_a_function("weight_and_grad", weight_and_grad)
    w, error = call_quietly(weight_and_grad)
    if error is not None:
        hint = _("w must still require grad: backward needs a path to a tensor that " \
              "requires grad.") if "does not require grad" in str(error) else None
        return _raised(_("calling weight_and_grad()"), error, hint)
    if is_stub(w):
        return not_done()
    if not is_tensor_like(w):
        return wrong(_("weight_and_grad() returned {value}; it should return w", value=describe(w)))
    if "float64" not in str(w.dtype):
        return wrong(_("w has dtype {dtype}, but the data x is float64 and the weight should "
                       "be too", dtype=w.dtype),
                     _("keep the conversion to float64, just do it before asking for gradients."))
    grad = _grad(w)
    if not w.is_leaf and grad is None:
        return not_done(_("w is still not a leaf (its grad_fn is {node_name}), so backward "
                          "leaves w.grad as None. Fix the line that makes w, then run both "
                          "cells again", node_name=_node_name(w)))
    if not w.is_leaf:
        return wrong(_("w has a .grad now, but it is still not a leaf: it is the result of a "
                       "conversion, and an update of w would not change the tensor randn made"),
                     _("convert first, then ask for gradients, so that w itself is the leaf."))
    if not w.requires_grad:
        return wrong(_("w does not require grad"))
    values = w.tolist()
    total = sum(a * b for a, b in zip(_X, values))
    expected = [2 * total * a for a in _X]
    return expect_tensor(w, what="w", requires_grad=True, is_leaf=True, grad=expected,
                         atol=1e-6,
                         hints={"grad": _("run backward once, on the loss of the exercise.")})


# --- Exercise 10.2: loss.requires_grad = True ----------------------------------------------

_FIT_GRAD = [-5.0, -8.0]
_FIT_LOSS = 2.5


def _fit_factory(torch, make_loss):
    def fit_step():
        w = torch.tensor([1.0, -1.0], requires_grad=True)
        x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        y = torch.tensor([1.0, 0.0])
        loss = make_loss(torch, w, x, y)
        loss.backward()
        return loss, w
    return fit_step


def _loss_right(torch, w, x, y):
    return ((x @ w - y) ** 2).mean()


def _loss_bug(torch, w, x, y):
    loss = torch.tensor(((x @ w - y) ** 2).mean().item())
    loss.requires_grad = True
    return loss


def _loss_flag_removed(torch, w, x, y):   # the cut is still there: backward raises
    return torch.tensor(((x @ w - y) ** 2).mean().item())


def _loss_flag_kept(torch, w, x, y):      # the cut removed, the flag line kept
    loss = ((x @ w - y) ** 2).mean()
    loss.requires_grad = True
    return loss


def _loss_sum(torch, w, x, y):            # another loss: the sum, not the mean
    return ((x @ w - y) ** 2).sum()


@checker(right=lambda torch: _fit_factory(torch, _loss_right),
         wrong=lambda torch: [_fit_factory(torch, _loss_flag_removed),
                              _fit_factory(torch, _loss_flag_kept),
                              _fit_factory(torch, _loss_sum)])
def check_10_loss_requires_grad(fit_step):
    """Exercise 10.2: ``fit_step()`` returns ``(loss, w)``: the mean squared error, computed
    in the graph, and ``w`` with its gradient."""
    if not is_function(fit_step):
        return _not_a_function("fit_step", fit_step)
    result, error = call_quietly(fit_step)
    if error is not None:
        message = str(error)
        if "does not require grad" in message:
            hint = (_("the loss is still cut off from w: which line turns it into a plain number "
                      "and back?"))
        elif "leaf" in message:
            hint = _("once the loss is computed in the graph, the line that sets its flag is not " \
                     "needed at all.")
        else:
            hint = None
        return _raised(_("calling fit_step()"), error, hint)
    parts = unpack(result, ("loss", "w"), what=_("fit_step()'s return"))
    if not isinstance(parts, tuple):
        return parts
    loss, w = parts
    for name, value in (("loss", loss), ("w", w)):
        if not is_tensor_like(value):
            return wrong(_("fit_step() should return (loss, w), but {name} is {value}",
                           name=name, value=describe(value)))
    if _grad(w) is None and loss.is_leaf:
        return not_done(_("backward runs, but w.grad is still None: the loss is a leaf of its "
                          "own, not computed from w. Fix the lines that make the loss, then "
                          "run both cells again"))
    return all_of(
        expect_tensor(loss, what=_("the loss"), shape=(), values=_FIT_LOSS, grad_fn="MeanBackward",
                      atol=1e-5,
                      hints={"grad_fn": _("the loss should be the mean of the squared errors, "
                                          "computed from w."),
                             "values": _("the loss is the mean of the squared errors.")}),
        expect_tensor(w, what="w", is_leaf=True, grad=_FIT_GRAD, atol=1e-5),
        success=_("the loss is computed in the graph, and backward reaches w"),
    )


# --- Exercise 10.3: p * log(p) without nan -----------------------------------------------

_P = [0.0, 0.5, 1.0]
_PLOGP = [0.0, -0.3465735912322998, 0.0]
_PLOGP_GRAD = [0.0, 0.3068528175354004, 1.0]


def _plogp_right(torch):
    def plogp(p):
        safe_p = torch.where(p > 0, p, 1)
        return torch.where(p > 0, p * safe_p.log(), 0)
    return plogp


def _plogp_nan_to_num(torch):          # cleans the values, not the gradient
    return lambda p: torch.where(p > 0, p * p.log(), 0).nan_to_num()


def _plogp_clamp(torch):               # no nan, but a gradient of log(1e-12) at 0
    return lambda p: p * p.clamp(min=1e-12).log()


def _plogp_forgot_p(torch):            # safe, but log(p) instead of p * log(p)
    def plogp(p):
        safe_p = torch.where(p > 0, p, 1)
        return torch.where(p > 0, safe_p.log(), 0)
    return plogp


def _with_p(torch, plogp):
    return plogp, torch.tensor(_P, requires_grad=True)


@checker(right=lambda torch: _with_p(torch, _plogp_right(torch)),
         wrong=lambda torch: [_with_p(torch, _plogp_nan_to_num(torch)),
                              _with_p(torch, _plogp_clamp(torch)),
                              _with_p(torch, _plogp_forgot_p(torch))])
def check_10_plogp(answer):
    """Exercise 10.3: ``answer = (plogp, p)``: ``plogp(p)`` is ``p * log(p)``, 0 where ``p``
    is 0, and its gradient has no nan there (the double where); ``p`` is [0, 0.5, 1]."""
    parts = unpack(answer, ("plogp", "p"))
    if not isinstance(parts, tuple):
        return parts
    plogp, p = parts
    if not is_function(plogp):
        return _not_a_function("plogp", plogp)
    if not is_tensor_like(p) or as_values(p) != _P:
        return wrong(_("p is {value}; pass the p of the exercise, [0.0, 0.5, 1.0]",
                       value=describe(p)))
    # a fresh copy: the check can run again without adding to p.grad
    p = p.detach().clone().requires_grad_()
    result, error = call_quietly(lambda: plogp(p))
    if error is not None:
        return _raised(_("calling plogp(p)"), error)
    if is_stub(result):
        return not_done()
    if not is_tensor_like(result):
        return wrong(_("plogp(p) returned {value}; it should return a tensor",
                       value=describe(result)))
    values = expect_tensor(result, what=_("plogp(p)"), shape=(3,), values=_PLOGP, atol=1e-5,
                           hints={"values": _("the result is p * log(p), and 0 where p is 0.")})
    if not values.ok:
        return values
    if not result.requires_grad:
        return wrong(_("plogp(p) does not require grad: it is cut off from p"))
    _unused, error = call_quietly(lambda: result.sum().backward())
    if error is not None:
        return _raised(_("backward of plogp(p).sum()"), error)
    grad = _grad(p)
    if grad is None:
        return wrong(_("after backward, p.grad is None: plogp(p) is cut off from p"))
    grads = grad.tolist()
    if _has_nan(grads) and _node_name(result) == "WhereBackward0":
        return not_done(_("the values are right, but the gradient at p = 0 is still nan: the "
                          "branch torch.where does not take still gets a gradient. Fix plogp, "
                          "then run both cells again"))
    if _has_nan(grads):
        return wrong(_("the values are right, but the gradient at p = 0 is still nan: the nan "
                       "is made in backward, where cleaning the forward values cannot reach it"),
                     _("make the branch that is not taken safe: give log a harmless input "
                       "where p is 0."))
    return all_of(
        expect_tensor(
            grad, what=_("the gradient p.grad"), values=_PLOGP_GRAD, atol=1e-5,
            hints={"values": _("plogp is 0 where p is 0, so its gradient there is 0 too: keep "
                               "the torch.where, and make only its other branch safe.")}),
        success=_("the values are right, and the gradient has no nan: 0 where p is 0"))


# --- Exercise 10.4: a hidden state carried across steps -----------------------------------

_RNN_GRADS = [
    [[0.0, 0.0], [0.0, 0.0]],
    [[0.5910175442695618, 0.22866752743721008], [0.5910175442695618, 0.22866752743721008]],
    [[0.4691627621650696, 0.11433982104063034], [0.8292728066444397, 0.20210237801074982]],
]


def _rnn_factory(torch, step, retain=False):
    def run_steps(steps=3):
        torch.manual_seed(0)
        W = torch.randn(2, 2, requires_grad=True)
        h = torch.zeros(2)
        grads = []
        for _unused in range(steps):
            h = step(h, W, torch)
            loss = h.sum()
            loss.backward(retain_graph=retain)
            grads.append(W.grad.clone())
            W.grad = None
        return grads
    return run_steps


def _step_right(h, W, torch):
    return torch.tanh(h.detach() @ W + 1)


def _step_bug(h, W, torch):
    return torch.tanh(h @ W + 1)


def _step_detach_after(h, W, torch):   # the new state detached: nothing left to backward
    return torch.tanh(h @ W + 1).detach()


def _step_detach_weight(h, W, torch):  # W detached: the graph no longer reaches W
    return torch.tanh(h @ W.detach() + 1)


@checker(right=lambda torch: _rnn_factory(torch, _step_right),
         wrong=lambda torch: [_rnn_factory(torch, _step_bug, retain=True),
                              _rnn_factory(torch, _step_detach_after),
                              _rnn_factory(torch, _step_detach_weight)])
def check_10_hidden_state(run_steps):
    """Exercise 10.4: ``run_steps()`` runs three steps, each with its own backward through
    that step only, and returns the three gradients of ``W``."""
    if not is_function(run_steps):
        return _not_a_function("run_steps", run_steps)
    grads, error = call_quietly(run_steps)
    if error is not None:
        message = str(error)
        if "a second time" in message:
            return not_done(_("run_steps() still raises the error about backward through the "
                              "graph a second time. Fix the line that computes h, then run "
                              "both cells again"))
        if "does not require grad" in message:
            return _raised(_("calling run_steps()"), error,
                           _("detach the state that comes in from the previous step, not the "
                             "new state and not W: the new state must stay connected to W."))
        return _raised(_("calling run_steps()"), error)
    if is_stub(grads):
        return not_done()
    if not isinstance(grads, (list, tuple)) or len(grads) != 3:
        return wrong(_("run_steps() returned {value}; it should return the list of 3 gradients",
                       value=describe(grads)))
    for index, (grad, expected) in enumerate(zip(grads, _RNN_GRADS)):
        if not is_tensor_like(grad):
            return wrong(_("the {nth} gradient is {value}, not a tensor",
                           nth=nth(index), value=describe(grad)))
        result = expect_tensor(grad, what=_("the gradient of step {value}", value=index + 1),
                               shape=(2, 2),
                               values=expected, atol=1e-5,
                               hints={"values": _("each backward should run through its own "
                                                  "step only. retain_graph=True silences the "
                                                  "error, but then backward runs through the "
                                                  "earlier steps again.")})
        if not result.ok:
            return result
    return correct(_("each step's backward runs through that step only, and the three "
                     "gradients are right"))


# --- Exercise 10.5: a softmax written in place -------------------------------------------

_PROBS = [0.09003057330846786, 0.2447284758090973, 0.6652409434318542]
_SOFTMAX_GRAD = [0.08192506432533264, -0.022033045068383217, -0.05989202484488487]


def _softmax_factory(torch, normalise):
    def softmax_and_grad():
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        e = x.exp()
        probs = normalise(e, torch)
        probs[0].backward()
        return probs, x.grad
    return softmax_and_grad


def _normalise_right(e, torch):
    return e / e.sum()


def _normalise_bug(e, torch):
    e /= e.sum()
    return e


def _normalise_data(e, torch):         # hides the change from autograd: a wrong gradient
    e.data /= e.sum()
    return e


def _normalise_constant(e, torch):     # the sum treated as a constant: a wrong gradient
    return e / e.sum().detach()


def _normalise_item(e, torch):         # the sum as a plain number: a wrong gradient
    return e / e.sum().item()


@checker(right=lambda torch: _softmax_factory(torch, _normalise_right),
         wrong=lambda torch: [_softmax_factory(torch, _normalise_data),
                              _softmax_factory(torch, _normalise_constant),
                              _softmax_factory(torch, _normalise_item)])
def check_10_inplace_softmax(softmax_and_grad):
    """Exercise 10.5: ``softmax_and_grad()`` returns ``(probs, x.grad)``: the softmax of x and
    the gradient of its first value, without the in-place change that breaks backward."""
    if not is_function(softmax_and_grad):
        return _not_a_function("softmax_and_grad", softmax_and_grad)
    result, error = call_quietly(softmax_and_grad)
    if error is not None:
        if "modified by an inplace operation" in str(error):
            return not_done(_("softmax_and_grad() still raises the in-place error: "
                              "ExpBackward0 saved e, and e is still changed in place (with "
                              "recording on or off: the version counter counts every change). "
                              "Fix the line that divides, then run both cells again"))
        return _raised(_("calling softmax_and_grad()"), error)
    parts = unpack(result, ("probs", "grad"), what=_("softmax_and_grad()'s return"))
    if not isinstance(parts, tuple):
        return parts
    probs, grad = parts
    if grad is None:
        return wrong(_("x.grad is None after backward: probs is cut off from x"))
    if not is_tensor_like(grad):
        return wrong(_("the gradient is {value}, not a tensor", value=describe(grad)))
    return all_of(
        expect_tensor(probs, what="probs", shape=(3,), values=_PROBS, atol=1e-5,
                      hints={"values": _("probs is e divided by the sum of e.")}),
        expect_tensor(grad, what="x.grad", shape=(3,), values=_SOFTMAX_GRAD, atol=1e-5,
                      hints={"values": _("autograd must see the whole computation: the "
                                         "division by e.sum() is part of it, sum included. "
                                         "Neither .data nor detach() belongs here.")}),
        success=_("no error, the right probabilities and the right gradient"),
    )


# --- Exercise 10.6: a list of losses ------------------------------------------------------

_LOSSES = [12.070337295532227, 7.725015640258789, 4.944009780883789, 3.164166212081909,
           2.025066375732422]


def _train_factory(torch, keep):
    def train(steps=5):
        torch.manual_seed(0)
        w = torch.randn(3, requires_grad=True)
        losses = []
        for _unused in range(steps):
            loss = ((w - 1) ** 2).sum()
            loss.backward()
            with torch.no_grad():
                w -= 0.1 * w.grad
            w.grad = None
            losses.append(keep(loss))
        return losses
    return train


@checker(right=lambda torch: _train_factory(torch, lambda loss: loss.item()),
         wrong=lambda torch: [_train_factory(torch, lambda loss: loss.clone()),
                              _train_factory(torch, lambda loss: loss.item),
                              _train_factory(torch, lambda loss: loss.requires_grad_(False))])
def check_10_keep_losses(train):
    """Exercise 10.6: ``train()`` returns the five losses as numbers (or tensors without a
    graph), not as the loss tensors with their graphs."""
    if not is_function(train):
        return _not_a_function("train", train)
    losses, error = call_quietly(train)
    if error is not None:
        hint = _("a computed tensor's flag cannot be switched off: keep a number instead.") \
            if "leaf" in str(error) else None
        return _raised(_("calling train()"), error, hint)
    if is_stub(losses):
        return not_done()
    if not isinstance(losses, (list, tuple)) or len(losses) != 5:
        return wrong(_("train() returned {value}; it should return the list of the 5 losses",
                       value=describe(losses)))
    if all(is_tensor_like(v) and _node_name(v) == "SumBackward0" for v in losses):
        return not_done(_("train() still keeps each loss with its graph: every item has a "
                          "grad_fn. Fix the line that appends the loss, then run both cells "
                          "again"))
    numbers = []
    for index, value in enumerate(losses):
        if is_tensor_like(value):
            if _node_name(value) is not None:
                return wrong(_("the {nth} loss still has a grad_fn ({node_name}), so it keeps "
                               "a graph alive", nth=nth(index), node_name=_node_name(value)),
                             _("keep a plain number, or a tensor detached from the graph."))
            value = as_values(value.reshape(-1))
            value = value[0] if value and len(value) == 1 else value
        if callable(value):
            return wrong(_("the {nth} loss is {value}, not a number",
                           nth=nth(index), value=describe(value)),
                         _("a method gives its value when you call it, with ()."))
        if not is_number(value):
            return wrong(_("the {nth} loss is {value}, not a number",
                           nth=nth(index), value=describe(value)))
        numbers.append(value)
    for index, (got, expected) in enumerate(zip(numbers, _LOSSES)):
        if not math.isclose(got, expected, rel_tol=1e-5, abs_tol=1e-5):
            return wrong(_("the {nth} loss is {got}, which is not right",
                           nth=nth(index), got=repr(got)),
                         _("keep the training loop as it is: change only what is appended."))
    return correct(_("train() keeps the five losses as numbers, without their graphs"))
