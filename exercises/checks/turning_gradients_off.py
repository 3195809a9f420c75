"""Checkers for the exercises of lesson 7, Turning gradients off
(solutions/07_turning_gradients_off.ipynb)."""
from exercises.checks.toolkit import (
    N_,
    _,
    all_of,
    checker,
    correct,
    describe,
    expect_items,
    expect_shares_memory,
    expect_tensor,
    is_function,
    is_stub,
    is_tensor_like,
    not_done,
    unpack,
    wrong,
)


# --- private helpers ----------------------------------------------------------------------

def _first_line(error: BaseException) -> str:
    """The error's message without torch's own "Hint: ..." (the checker gives its own)."""
    text = str(error).strip()
    return text.splitlines()[0].split(" Hint: ")[0] if text else ""


def _raised(what: str, error: BaseException, hint: str | None = None):
    message = _first_line(error)
    detail = f"{type(error).__name__}: {message}" if message else type(error).__name__
    return wrong(_("{what} raised {detail}", what=what, detail=detail), hint)


def _is_model(value) -> bool:
    return callable(getattr(value, "parameters", None)) and \
        callable(getattr(value, "children", None))


def _parameters_of(module):
    return list(module.parameters())


def _is_in(tensor, tensors) -> bool:
    return any(tensor is t for t in tensors)


# --- Exercise 7.1: predict requires_grad -------------------------------------------------

_PREDICT_LABELS = ("a.requires_grad", "b.requires_grad", "c.requires_grad", "d.requires_grad")
_PREDICT_EXPECTED = [False, True, False, True]
_PREDICT_HINTS = (
    N_("a is the result of an operation that ran inside the no_grad block."),
    N_("b is not the result of an operation: it is a tensor you created, with a flag you set "
       "yourself."),
    N_("look at where c is computed, not at what it is computed from."),
    N_("by the time d is computed the block has ended; does any of its inputs require grad?"),
)


@checker(
    right=lambda torch: [False, True, False, True],
    wrong=lambda torch: [
        [False, False, False, False],   # "nothing made inside no_grad requires grad"
        [False, False, False, True],    # the same, with d right
        [False, True, True, True],      # "c comes from b, which requires grad"
        [False, True, False, False],    # "a poisons everything computed from it"
        [False, True, False],           # one value short
        ["False", "True", "False", "True"],  # strings, not booleans
        [0, 1, 0, 1],                   # 0 and 1 for False and True
    ],
)
def check_07_predict_requires_grad(prediction):
    """Exercise 7.1: ``prediction = [a, b, c, d]``: requires_grad of four tensors made in
    and after a ``no_grad`` block."""
    return expect_items(prediction, _PREDICT_EXPECTED, _PREDICT_LABELS, form=bool,
                        hints=dict(zip(_PREDICT_LABELS, map(_, _PREDICT_HINTS))))


# --- Exercise 7.2: an evaluation function decorated with no_grad ---------------------------

def _evaluation_setup(torch):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    inputs = torch.randn(4, 3)
    targets = torch.randn(4, 1)
    return model, inputs, targets


def _evaluate_right(torch):
    @torch.no_grad()
    def evaluate(model, inputs, targets):
        predictions = model(inputs)
        return ((predictions - targets) ** 2).mean()
    return (evaluate, *_evaluation_setup(torch))


def _evaluate_undecorated(torch):
    def evaluate(model, inputs, targets):
        return ((model(inputs) - targets) ** 2).mean()
    return (evaluate, *_evaluation_setup(torch))


def _evaluate_detached(torch):
    def evaluate(model, inputs, targets):
        return ((model(inputs) - targets) ** 2).mean().detach()
    return (evaluate, *_evaluation_setup(torch))


def _evaluate_sum(torch):
    @torch.no_grad()
    def evaluate(model, inputs, targets):
        return ((model(inputs) - targets) ** 2).sum()
    return (evaluate, *_evaluation_setup(torch))


@checker(right=_evaluate_right,
         wrong=lambda torch: [_evaluate_undecorated(torch), _evaluate_detached(torch),
                              _evaluate_sum(torch)])
def check_07_evaluate(answer):
    """Exercise 7.2: ``answer = (evaluate, model, inputs, targets)``: ``evaluate`` returns the
    mean squared error of ``model(inputs)`` against ``targets`` without recording a graph."""
    parts = unpack(answer, ("evaluate", "model", "inputs", "targets"))
    if not isinstance(parts, tuple):
        return parts
    evaluate, model, inputs, targets = parts
    if not is_function(evaluate):
        return wrong(_("evaluate is {value}, not a function", value=describe(evaluate)))
    if not _is_model(model):
        return wrong(_("model is {value}; pass the model of the exercise", value=describe(model)))
    for name, value in (("inputs", inputs), ("targets", targets)):
        if not is_tensor_like(value):
            return wrong(_("{name} is {value}, not a tensor: pass the {name} of the exercise",
                           name=name, value=describe(value)))

    seen = []

    def watched_model(x):
        # the model's output tells whether recording was on while evaluate ran it
        out = model(x)
        seen.append(bool(out.requires_grad))
        return out

    try:
        result = evaluate(watched_model, inputs, targets)
    except Exception as error:  # the learner's code is being checked
        return _raised(_("calling evaluate(model, inputs, targets)"), error)
    if result is None or is_stub(result):  # the stub's body is ``...``: it returns None
        return not_done(_("evaluate returns nothing yet: write its body (and return the mean "
                          "squared error), then run the cell again."))
    if not seen:
        return wrong(_("evaluate never called model(inputs)"))
    after = model(inputs)
    if not after.requires_grad:
        return wrong(_("after evaluate returned, recording was still switched off"),
                     _("switch recording off only inside the function (a decorator or a with "
                       "block switches it back on at the end)."))
    if seen[0]:
        return wrong(_("inside evaluate the model ran with recording switched on: its output "
                       "had a grad_fn"),
                     _("detaching the result at the end is too late, the graph is already "
                       "built; make the whole function run without recording."))
    expected = ((after - targets) ** 2).mean().tolist()
    return expect_tensor(
        result, what=_("the result of evaluate"), shape=(), values=expected,
        requires_grad=False, grad_fn=None,
        hints={"type": _("return the mean as the tensor .mean() gives, without .item()."),
               "values": _("the mean of the squared differences between predictions and "
                           "targets."),
               "shape": _("reduce the squared differences to a single number.")})


# --- Exercise 7.3: freeze the first layer ----------------------------------------------

def _model(torch):
    torch.manual_seed(0)
    nn = torch.nn
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))


def _frozen(torch, layers, train_all=False):
    model = _model(torch)
    for index in layers:
        for p in model[index].parameters():
            p.requires_grad_(False)
    params = model.parameters() if train_all else [p for p in model.parameters()
                                                   if p.requires_grad]
    return model, torch.optim.SGD(params, lr=0.1)


def _weight_only(torch):
    model = _model(torch)
    model[0].weight.requires_grad_(False)
    return model, torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)


@checker(right=lambda torch: _frozen(torch, [0]),
         wrong=lambda torch: [_frozen(torch, []),               # nothing frozen
                              _weight_only(torch),              # the bias forgotten
                              _frozen(torch, [0], train_all=True),  # optimizer over all
                              _frozen(torch, [4]),              # the last layer frozen
                              _frozen(torch, [0, 2, 4], train_all=True)])  # all frozen
def check_07_freeze_first_layer(answer):
    """Exercise 7.3: ``answer = (model, optimizer)``: the first Linear layer of ``model``
    frozen, the optimizer over the parameters still trained; one training step leaves the
    frozen ones untouched."""
    parts = unpack(answer, ("model", "optimizer"))
    if not isinstance(parts, tuple):
        return parts
    model, optimizer = parts
    if not _is_model(model):
        return wrong(_("model is {value}; pass the model of the exercise", value=describe(model)))
    groups = getattr(optimizer, "param_groups", None)
    if not isinstance(groups, (list, tuple)) or \
            not all(isinstance(g, dict) and "params" in g for g in groups):
        return wrong(_("optimizer is {value}, not an optimizer from optim",
                       value=describe(optimizer)))
    layers = [m for m in model.children() if list(m.parameters())]
    if len(layers) < 2:
        return wrong(_("model should be the five-layer Sequential of the exercise"))
    first = layers[0]
    frozen = _parameters_of(first)
    trained = [p for m in layers[1:] for p in m.parameters()]
    for name, p in first.named_parameters():
        if p.requires_grad:
            return wrong(_("the first layer's {name} still requires grad", name=name),
                         _("freeze every parameter of model[0]: its weight and its bias."))
    for index, module in enumerate(model.children()):
        for name, p in module.named_parameters():
            if not p.requires_grad and module is not first:
                return wrong(_("model[{index}].{name} does not require grad, but only the "
                               "first layer should be frozen", index=index, name=name))
    held = [p for group in groups for p in group["params"]]
    if any(_is_in(p, held) for p in frozen):
        return wrong(_("the optimizer holds the frozen parameters too"),
                     _("give the optimizer only the parameters that still require grad."))
    missing = [p for p in trained if not _is_in(p, held)]
    if missing:
        return wrong(_("the optimizer is missing {count} of the parameters that are still "
                       "trained", count=len(missing)))

    # one training step: the frozen layer must get no gradient and keep its values
    before = [p.tolist() for p in frozen]
    trained_before = [p.tolist() for p in trained]
    inputs = frozen[0].new_ones(5, first.weight.shape[1])
    optimizer.zero_grad()
    try:
        loss = model(inputs).pow(2).mean()
        loss.backward()
    except Exception as error:  # the learner's model is being checked
        return _raised(_("a training step (forward and backward)"), error)
    optimizer.step()
    for (name, p), values in zip(first.named_parameters(), before):
        if p.grad is not None:
            return wrong(_("after backward the first layer's {name} has a .grad", name=name))
        if p.tolist() != values:
            return wrong(_("the optimizer step changed the first layer's {name}", name=name))
    if all(p.tolist() == v for p, v in zip(trained, trained_before)):
        return wrong(_("the optimizer step changed none of the parameters that are trained"))
    return correct(_("the first layer is frozen: no .grad, values unchanged, and the optimizer "
                     "updates only the other layers"))


# --- Exercise 7.4: fix an in-place update of a leaf ------------------------------------

_DESCENT_EXPECTED = [1.464, 0.024]


def _descend_factory(torch, update):
    def descend(steps=3, lr=0.1):
        w = torch.tensor([0.0, 1.0], requires_grad=True)
        target = torch.tensor([3.0, -1.0])
        for _unused in range(steps):
            loss = ((w - target) ** 2).sum()
            loss.backward()
            w = update(torch, w, lr)
            w.grad.zero_()
        return w
    return descend


def _update_no_grad(torch, w, lr):
    with torch.no_grad():
        w -= lr * w.grad
    return w


def _update_in_place(torch, w, lr):       # the bug of the exercise
    w -= lr * w.grad
    return w


def _update_new_tensor(torch, w, lr):     # w is no longer a leaf
    return w - lr * w.grad


def _update_new_leaf(torch, w, lr):       # a new tensor that does not require grad
    with torch.no_grad():
        return w - lr * w.grad


@checker(right=lambda torch: _descend_factory(torch, _update_no_grad),
         wrong=lambda torch: [_descend_factory(torch, _update_in_place),
                              _descend_factory(torch, _update_new_tensor),
                              _descend_factory(torch, _update_new_leaf)])
def check_07_fix_leaf_update(descend):
    """Exercise 7.4: ``descend()`` runs three steps of gradient descent on a leaf ``w``
    without the in-place error, and returns ``w``, still a leaf that requires grad."""
    if not is_function(descend):
        return wrong(_("descend is {value}, not a function", value=describe(descend)))
    try:
        w = descend()
    except Exception as error:  # the learner's code is being checked
        hints = {
            "RuntimeError": _("read the message: which rule of autograd does the update break, "
                              "and in which mode is it allowed?"),
            "AttributeError": _("after the update, is w still the same leaf tensor, with its "
                                ".grad?"),
        }
        return _raised(_("calling descend()"), error, hints.get(type(error).__name__))
    if is_stub(w):
        return not_done()
    if w is None:
        return wrong(_("descend() returned None; it should return w"))
    return expect_tensor(
        w, what=_("the w returned by descend()"), shape=(2,), values=_DESCENT_EXPECTED,
        requires_grad=True, is_leaf=True, grad_fn=None, atol=1e-5,
        hints={"values": _("each step subtracts lr * w.grad from w, once."),
               "requires_grad": _("update w in place, so that it stays the same leaf."),
               "is_leaf": _("update w in place, so that it stays the same leaf.")})


# --- Exercise 7.5: fix the modified saved tensor -------------------------------------

_PROBS = [0.7310585975646973, 0.8807970285415649, 0.9525741338729858]
_PERCENT = [73.10585975646973, 88.07970285415649, 95.25741338729858]
_SIGMOID_GRAD = [0.19661193, 0.10499359, 0.04517666]


def _percent_factory(torch, make_percent):
    def probabilities_and_grad():
        logits = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        probs = logits.sigmoid()
        percent = make_percent(probs)
        probs.sum().backward()
        return probs, percent, logits.grad
    return probabilities_and_grad


def _percent_right(probs):
    return probs.detach() * 100


def _percent_bug(probs):              # the bug of the exercise: shares memory with probs
    percent = probs.detach()
    percent *= 100
    return percent


def _percent_data(probs):             # hides the change from autograd: a wrong gradient
    percent = probs.data
    percent *= 100
    return percent


def _percent_in_graph(probs):         # right values, but part of the graph
    return probs * 100


@checker(right=lambda torch: _percent_factory(torch, _percent_right),
         wrong=lambda torch: [_percent_factory(torch, _percent_bug),
                              _percent_factory(torch, _percent_data),
                              _percent_factory(torch, _percent_in_graph)])
def check_07_fix_saved_tensor(probabilities_and_grad):
    """Exercise 7.5: ``probabilities_and_grad()`` returns ``(probs, percent, grad)``: the
    sigmoid probabilities, the same as percentages outside the graph, and the gradient of
    ``probs.sum()``, without the version-counter error."""
    if not is_function(probabilities_and_grad):
        return wrong(_("probabilities_and_grad is {value}, not a function",
                       value=describe(probabilities_and_grad)))
    try:
        result = probabilities_and_grad()
    except Exception as error:  # the learner's code is being checked
        return _raised(_("calling probabilities_and_grad()"), error,
                       _("which tensor did backward save, and which other tensor shares its "
                         "memory and changes it in place?"))
    if is_stub(result):
        return not_done()
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        return wrong(_("probabilities_and_grad() returned {value}; it should return (probs, "
                       "percent, logits.grad)", value=describe(result)))
    probs, percent, grad = result
    if grad is None:
        return wrong(_("backward left no gradient in logits.grad"))
    if not is_tensor_like(grad):
        return wrong(_("the third value probabilities_and_grad() returns is {value}; it should "
                       "be logits.grad", value=describe(grad)))
    return all_of(
        expect_tensor(probs, what="probs", values=_PROBS, atol=1e-4,
                      hints={"values": _("probs itself must still hold the probabilities: "
                                         "something changed it in place.")}),
        expect_tensor(percent, what="percent", values=_PERCENT, requires_grad=False,
                      atol=1e-3,
                      hints={"requires_grad": _("percent is only for display: keep it out of "
                                                "the graph.")}),
        expect_shares_memory(probs, percent, False, what=_("probs and percent")),
        expect_tensor(grad, what="logits.grad", values=_SIGMOID_GRAD, atol=1e-5,
                      hints={"values": _("autograd computed the gradient from a saved tensor "
                                         "that had been changed behind its back.")}),
        success=_("no error, probs unchanged, percent outside the graph, and the right gradient"),
    )


# --- Exercise 7.6: predict which backward calls fail -----------------------------------

_SNIPPET_LABELS = (N_("snippet A"), N_("snippet B"), N_("snippet C"), N_("snippet D"))
_SNIPPET_EXPECTED = ["error", "ok", "error", "ok"]
_SNIPPET_HINTS = (
    N_("what does the backward formula of exp(x) need, and where does it get it from?"),
    N_("what does the backward formula of x * 3 need: the result y, or only the number 3?"),
    N_("x * x saves x for its backward formula; was x changed after that?"),
    N_("the change happened before the graph was built: what version did x * x save?"),
)


@checker(
    right=lambda torch: ["error", "ok", "error", "ok"],
    wrong=lambda torch: [
        ["error", "error", "error", "error"],   # "any in-place change breaks backward"
        ["ok", "ok", "error", "error"],         # "only changes to x itself matter"
        ["error", "ok", "ok", "ok"],            # "no_grad makes the change invisible"
        ["error", "ok", "error", "OK"],         # a word outside the two choices
    ],
)
def check_07_predict_errors(prediction):
    """Exercise 7.6: ``prediction``: "ok" or "error" for each of four snippets."""
    labels = [_(label) for label in _SNIPPET_LABELS]
    return expect_items(prediction, _SNIPPET_EXPECTED, labels, form=("ok", "error"),
                        hints=dict(zip(labels, map(_, _SNIPPET_HINTS))))
