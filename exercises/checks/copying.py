"""Checkers for the exercises of lesson 4, ``04_copying`` (solutions/04_copying.ipynb)."""
from collections.abc import Mapping

from exercises.checks.toolkit import (
    Feedback,
    N_,
    _,
    all_of,
    all_right,
    as_values,
    checker,
    correct,
    describe,
    expect_equal,
    expect_shares_memory,
    expect_tensor,
    is_bool,
    is_function,
    is_number,
    is_stub,
    is_tensor_like,
    not_done,
    not_right,
    nth,
    unpack,
    wrong,
    wrong_form,
)

# --- private helpers -------------------------------------------------------------------


def _expect_predictions(answer, expected, compare, *, hints=None):
    """A dict of predictions, one per name (``{"b1": True, ...}``): name the first wrong one.

    ``compare(name, value, right)`` returns None when ``value`` matches, the name of the
    part that is wrong ("requires_grad", ...) or "" for the whole prediction, or a Feedback
    when the value is not written in the form asked for.
    """
    hints = hints or {}
    names = ", ".join(expected)
    if not isinstance(answer, Mapping):
        return wrong_form(_("your prediction"), answer,
                          _("a dict like the one given, with a value for each of {names}",
                            names=names))
    missing = [name for name in expected if name not in answer]
    if missing:
        others = [key for key in answer if key not in expected]
        if not others:
            return wrong(_("your prediction has no value for {missing}; keep every name given: "
                           "{names}", missing=missing[0], names=names))
        return wrong(_("your prediction has no value for {missing} (it has {others} instead); "
                       "keep every name given: {names}", missing=missing[0],
                       others=", ".join(repr(k) for k in others[:6]), names=names))
    if any(is_stub(answer[name]) for name in expected):
        return not_done()
    bad = []
    for name, right in expected.items():
        part = compare(name, answer[name], right)
        if part is not None:
            bad.append((name, part))
    if not bad:
        return correct(all_right(len(expected)))
    name, part = bad[0]
    if isinstance(part, Feedback):
        return part
    what = _("your {part} for {name}", part=_(PARTS[part]), name=name) if part else \
        _("your prediction for {label}", label=name)
    return wrong(not_right(what, len(bad) - 1), hints.get(name))


# The parts of a prediction _flag_and_node_compare names ("your requires_grad for c1").
PARTS = {"requires_grad": N_("requires_grad"), "grad_fn": N_("grad_fn")}


def _bool_compare(name, value, right):
    if not is_bool(value):
        return wrong_form(_("your prediction for {label}", label=name), value, _("True or False"))
    return None if bool(value) == right else ""


def _name_of_node(value):
    """The node a prediction names, without its number: "<CloneBackward0>",
    "CloneBackward0", "CloneBackward" and the node itself all give "CloneBackward"; None and
    "None" give "None". None for a value that names no node (a number, True, ...)."""
    if value is None:
        return "None"
    if hasattr(value, "next_functions") and callable(getattr(value, "name", None)):
        value = value.name()
    if not isinstance(value, str):
        return None
    text = value.strip().strip("<>").strip()
    return "None" if text.lower() == "none" else text.rstrip("0123456789")


NODE_FORM = N_('a node\'s name in quotes, like "MulBackward0", or None')


def _flag_and_node_compare(name, value, right):
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return wrong_form(_("your prediction for {label}", label=name), value,
                          _('a pair (requires_grad, grad_fn), like (True, "MulBackward0")'))
    requires_grad, node = value
    if not is_bool(requires_grad):
        return wrong_form(_("for {name}, requires_grad", name=name), requires_grad,
                          _("written as True or False"))
    if _name_of_node(node) is None:
        return wrong_form(_("for {name}, grad_fn", name=name), node,
                          _("written as {form}", form=_(NODE_FORM)))
    if bool(requires_grad) != right[0]:
        return "requires_grad"
    if _name_of_node(node) != _name_of_node(right[1]):
        return "grad_fn"
    return None


def _pair(answer, names):
    """``answer`` as two tensors ``(first, second)``, or a Feedback saying what is wrong."""
    parts = unpack(answer, names)
    if not isinstance(parts, tuple):
        return parts
    for name, value in zip(names, parts):
        if is_stub(value):
            return not_done()
        if not is_tensor_like(value):
            return wrong(_("{name} is {value}, not a tensor", name=name, value=describe(value)))
    return parts


# --- Exercise 4.1: does b change? --------------------------------------------------------

CHANGES = {"b1": True, "b2": False, "b3": True, "b4": False, "b5": True}


@checker(
    right=lambda torch: dict(CHANGES),
    wrong=lambda torch: [
        {**CHANGES, "b3": False},                  # detach() taken for a copy
        {**CHANGES, "b5": False},                  # .data taken for a copy
        {**CHANGES, "b2": True, "b4": True},       # every copy follows a
        {name: True for name in CHANGES},
        (True, False, True, False, True),          # a tuple, not the dict
        {**CHANGES, "b1": "True"},                 # True in quotes
        {**CHANGES, "b2": 0},                      # 0 for False
    ],
)
def check_04_does_b_change(prediction):
    """Exercise 4.1: for b1 ... b5, does b change when a is changed in place?"""
    return _expect_predictions(
        prediction, CHANGES, _bool_compare,
        hints={
            "b1": _("does b = a make a new tensor, or a new name?"),
            "b2": _("does clone() allocate new memory?"),
            "b3": _("does detach() allocate new memory, or only a new tensor object?"),
            "b4": _("which of the two steps allocates new memory?"),
            "b5": _("compare .data with detach(): where does each read its numbers from?"),
        })


# --- Exercise 4.2: requires_grad and grad_fn --------------------------------------------

FLAGS = {  # "None": no grad_fn (a learner may also write None; both read as "None")
    "c1": (True, "CloneBackward0"),
    "c2": (False, "None"),
    "c3": (False, "None"),
    "c4": (False, "None"),
    "c5": (True, "None"),
}


@checker(
    right=lambda torch: dict(FLAGS),
    wrong=lambda torch: [
        {**FLAGS, "c1": (True, "None")},           # clone() taken for a leaf
        {**FLAGS, "c1": (False, "None")},          # clone() taken to leave the graph
        {**FLAGS, "c3": (False, "CloneBackward0")},  # detach() keeps the clone's node
        {**FLAGS, "c5": (True, "CloneBackward0")},   # requires_grad_() puts it back in a graph
        {**FLAGS, "c5": (False, "None")},          # requires_grad_() forgotten
        {**FLAGS, "c2": False},                    # not a pair
        {**FLAGS, "c1": ("True", "CloneBackward0")},  # True in quotes
        {**FLAGS, "c2": (False, False)},           # False for "no grad_fn"
        {**FLAGS, "c1": (1, "CloneBackward0")},    # 1 for True
    ],
)
def check_04_requires_grad_and_grad_fn(prediction):
    """Exercise 4.2: (requires_grad, grad_fn's name or "None") for c1 ... c5."""
    return _expect_predictions(
        prediction, FLAGS, _flag_and_node_compare,
        hints={
            "c1": _("is clone() recorded when its input requires gradients?"),
            "c2": _("what does detach() do to a tensor's place in the graph?"),
            "c3": _("what does detach() return, whatever it is called on?"),
            "c4": _("clone() is recorded only when its input requires gradients; does "
                    "a.detach()?"),
            "c5": _("requires_grad_() sets a flag on the tensor; does it record an operation?"),
        })


# --- Exercise 4.3: an independent snapshot -------------------------------------------------

def _weights(torch):
    torch.manual_seed(0)
    return torch.randn(3, requires_grad=True)


@checker(
    right=lambda torch: (lambda w: (w, w.detach().clone()))(_weights(torch)),
    wrong=lambda torch: [
        (lambda w: (w, w.detach()))(_weights(torch)),   # shares memory
        (lambda w: (w, w.clone()))(_weights(torch)),    # still in the graph
        (lambda w: (w, w))(_weights(torch)),            # the same tensor
        (lambda w: (w, w.detach().clone() + 1))(_weights(torch)),  # other values
    ],
)
def check_04_snapshot(answer):
    """Exercise 4.3: ``(w, snapshot)``: snapshot has w's values, its own memory, no graph."""
    parts = _pair(answer, ("w", "snapshot"))
    if not isinstance(parts, tuple):
        return parts
    w, snapshot = parts
    return all_of(
        expect_tensor(snapshot, what="snapshot", shape=tuple(w.shape), dtype=w.dtype,
                      values=w.tolist(),
                      hints={"values": _("a snapshot holds the same numbers as w.")}),
        expect_tensor(snapshot, what="snapshot", requires_grad=False, grad_fn=None,
                      hints={"requires_grad": _("the snapshot should be out of the graph."),
                             "grad_fn": _("the snapshot should be out of the graph.")}),
        expect_shares_memory(w, snapshot, False, what=_("w and snapshot"),
                             hint=_("which of the two methods allocates new memory?")),
        success=_("snapshot holds w's values in its own memory, outside the graph."),
    )


# --- Exercise 4.4: a copy that keeps the gradient path ------------------------------------

def _masked_right(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    masked = x.clone()
    masked[0] = 0.0
    return x, masked


def _masked_detached(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    masked = x.detach().clone()
    masked[0] = 0.0
    return x, masked


def _masked_shared(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    masked = x.detach()
    masked[0] = 0.0  # writes into x
    return x, masked


def _masked_new_leaf(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return x, torch.tensor([0.0, 2.0, 3.0], requires_grad=True)


@checker(
    right=_masked_right,
    wrong=lambda torch: [
        _masked_detached(torch),
        _masked_shared(torch),
        _masked_new_leaf(torch),
        (lambda x: (x, x.clone()))(torch.tensor([1.0, 2.0, 3.0], requires_grad=True)),
    ],
)
def check_04_masked_copy(answer):
    """Exercise 4.4: ``(x, masked)``: masked is x with element 0 set to 0, in new memory,
    still in the graph: the gradient of ``(masked * 3).sum()`` reaches x as [0, 3, 3]."""
    parts = _pair(answer, ("x", "masked"))
    if not isinstance(parts, tuple):
        return parts
    x, masked = parts
    first = all_of(
        expect_tensor(x, what="x", values=[1.0, 2.0, 3.0],
                      hints={"values": _("x itself must stay unchanged.")}),
        expect_tensor(masked, what="masked", shape=(3,), values=[0.0, 2.0, 3.0]),
        expect_shares_memory(x, masked, False, what=_("x and masked")),
        expect_tensor(masked, what="masked", requires_grad=True, is_leaf=False,
                      hints={"requires_grad": _("a loss computed from masked must still reach "
                                                "x; which copy stays in the graph?"),
                             "is_leaf": _("masked is a new leaf, not connected to x; make it "
                                          "from x with an operation autograd records.")}),
    )
    if not first.ok:
        return first
    before = x.grad.tolist() if x.grad is not None else [0.0, 0.0, 0.0]
    (masked * 3).sum().backward()
    if x.grad is None:
        return wrong(_("a loss computed from masked sends no gradient to x"))
    reached = [after - b for after, b in zip(x.grad.tolist(), before)]
    if any(abs(r - e) > 1e-6 for r, e in zip(reached, [0.0, 3.0, 3.0])):
        return wrong(_("the gradient of (masked * 3).sum() that reaches x is not the expected "
                       "one"))
    return correct(_("masked is a copy in new memory, and its gradient flows back to x (0 for "
                     "the masked element)."))


# --- Exercise 4.5: fix the backup -----------------------------------------------------------

def _train(torch, make_backup, backup_after=False):
    """One SGD step (lr 0.1) on a seeded nn.Linear(3, 1); ``make_backup(model)`` is the
    learner's backup, taken before the step (or after it, a mistake)."""
    def train_one_step():
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 1)
        backup = None if backup_after else make_backup(model)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        model(torch.tensor([1.0, 2.0, 3.0])).sum().backward()
        optimizer.step()
        if backup_after:
            backup = make_backup(model)
        return model, backup
    return train_one_step


@checker(
    right=lambda torch: _train(torch, lambda m: {k: v.clone() for k, v in
                                                 m.state_dict().items()}),
    wrong=lambda torch: [
        _train(torch, lambda m: m.state_dict()),                          # the bug
        _train(torch, lambda m: {k: v.detach() for k, v in m.state_dict().items()}),
        _train(torch, lambda m: dict(m.named_parameters())),              # the parameters
        _train(torch, lambda m: {k: v.clone() for k, v in m.state_dict().items()},
               backup_after=True),                                       # too late
        _train(torch, lambda m: {"weight": m.weight.detach().clone()}),   # bias forgotten
    ],
)
def check_04_backup(train_one_step):
    """Exercise 4.5: ``train_one_step()`` returns ``(model, backup)``; backup must keep the
    weight and bias from before the SGD step (lr 0.1)."""
    if not is_function(train_one_step):
        return wrong(_("the check got {value}; pass the function train_one_step itself, "
                       "without calling it", value=describe(train_one_step)))
    try:
        result = train_one_step()
    except Exception as error:  # the learner's function is being checked
        message = str(error).strip().splitlines()[0] if str(error).strip() else ""
        if not message:
            return wrong(_("calling train_one_step() raised {error}",
                           error=type(error).__name__))
        return wrong(_("calling train_one_step() raised {error}: {message}",
                       error=type(error).__name__, message=message))
    if is_stub(result):
        return not_done()
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        return wrong(_("train_one_step() returned {value}; it should return the pair (model, "
                       "backup)", value=describe(result)))
    model, backup = result
    if not all(is_tensor_like(getattr(model, name, None)) for name in ("weight", "bias")):
        return wrong(_("the first value train_one_step() returns is {value}; it should be the "
                       "model", value=describe(model)))
    if not isinstance(backup, Mapping):
        return wrong(_("backup is {value}; a dict like state_dict() is expected here",
                       value=describe(backup)))
    for name in ("weight", "bias"):
        if name not in backup:
            return wrong(_("backup has no {name}; keep every tensor of the state dict",
                           name=repr(name)))
    for name in ("weight", "bias"):
        param, saved = getattr(model, name), backup[name]
        if not is_tensor_like(saved):
            return wrong(_("backup[{name}] is {value}, not a tensor",
                           name=repr(name), value=describe(saved)))
        shared = expect_shares_memory(
            param, saved, False, what=_("model.{name} and backup[{name2}]",
                                        name=name, name2=repr(name)),
            hint=_("the optimizer's step writes into the parameters in place; what else reads "
                   "that memory?"))
        if not shared.ok:
            return shared
        if param.grad is None:
            return wrong(_("model.{name} has no gradient: keep the training step as it is",
                           name=name))
        start = _minus(param.tolist(), _times(-0.1, param.grad.tolist()))
        values = expect_tensor(saved, what=_("backup[{name}]", name=repr(name)),
                               shape=tuple(param.shape),
                               values=start, atol=1e-5,
                               hints={"values": _("it should hold the values from before the "
                                                  "step.")})
        if not values.ok:
            return values
    return correct(_("backup keeps the starting weight and bias in its own memory; the "
                     "optimizer's step no longer changes it."))


def _times(factor, values):
    if isinstance(values, list):
        return [_times(factor, v) for v in values]
    return factor * values


def _minus(a, b):
    if isinstance(a, list):
        return [_minus(x, y) for x, y in zip(a, b)]
    return a - b


# --- Exercise 4.6: a gradient through .data ------------------------------------------------

DATA_GRADIENT_FORM = N_('a list of three numbers, or the string "error"')


@checker(
    right=lambda torch: [20.0, 40.0, 60.0],
    wrong=lambda torch: [[2.0, 4.0, 6.0], "error", [0.0, 0.0, 0.0], [20.0, 40.0],
                         ["20", "40", "60"],       # numbers in quotes
                         "RuntimeError"],          # the error's name instead of "error"
)
def check_04_data_gradient(prediction):
    """Exercise 4.6: a.grad after ``y = (a * a).sum(); a.data.mul_(10); y.backward()``."""
    if isinstance(prediction, str):
        if "error" not in prediction.lower():
            return wrong_form(_("your prediction"), prediction, _(DATA_GRADIENT_FORM))
        return wrong(_("you predict an error, but an error would need something to notice the "
                       "write"), _("does the version counter see writes made through .data?"))
    values = as_values(prediction)
    if values is None or len(values) != 3:
        return wrong_form(_("your prediction"), prediction, _(DATA_GRADIENT_FORM))
    for index, value in enumerate(values):
        if not is_number(value):
            return wrong_form(_("the {nth} value of your prediction", nth=nth(index)), value,
                              _("a number"))
    return expect_equal(
        [float(v) for v in values], [20.0, 40.0, 60.0], what=_("your prediction"),
        hint=_("MulBackward0 saved a tensor; what does that memory hold when backward runs?"))
