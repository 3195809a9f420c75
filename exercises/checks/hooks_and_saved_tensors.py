"""Checkers for the exercises of lesson 12, Hooks and saved tensors
(solutions/12_hooks_and_saved_tensors.ipynb).

The hooks a learner writes are run here on small graphs built with the library of the tensors
the check cell passes (engine or torch: a checker never imports either), and what they did to
the gradients, or what they counted, is compared with the expected result.
"""
import math

from exercises.checks.toolkit import (
    N_,
    _,
    as_number,
    as_values,
    call_quietly,
    checker,
    correct,
    describe,
    is_function,
    is_stub,
    is_tensor_like,
    library_of,
    not_done,
    nth,
    unpack,
    wrong,
)
from exercises.checks.turning_gradients_off import _raised

# --- private helpers ----------------------------------------------------------------------


def _not_a_function(name, value):
    return wrong(_("{name} is {value}, not a function: pass the function itself, without "
                   "calling it", name=name, value=describe(value)))


def _close(a, b, tol=1e-6) -> bool:
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=tol, abs_tol=tol)
                                    for x, y in zip(a, b))


def _flat(tensor):
    return [float(v) for v in tensor.detach().reshape(-1).tolist()]


# --- Exercise 12.1: the order of five hooks ----------------------------------------------

HOOKS = ["post-accumulate hook on x", "post-hook of a.grad_fn", "tensor hook on x",
         "tensor hook on a", "pre-hook of b.grad_fn"]  # the order they were registered in
ORDER = ["pre-hook of b.grad_fn", "tensor hook on a", "post-hook of a.grad_fn",
         "tensor hook on x", "post-accumulate hook on x"]

# Why a hook comes where it does, said without naming its position.
_WHY = {
    "pre-hook of b.grad_fn": N_("backward starts at b's node (MulBackward0); nothing about a or x "
                                "can fire before that node has been reached"),
    "tensor hook on a": N_("a's gradient is what MulBackward0 sends on: a's tensor hook fires as "
                           "soon as it is known, before a's own node (ExpBackward0) runs"),
    "post-hook of a.grad_fn": N_("a post-hook fires right after its node has run, and that node "
                                 "must run before anything below it receives a gradient"),
    "tensor hook on x": N_("a leaf's tensor hook fires when its gradient arrives, before that "
                           "gradient is added into x.grad"),
    "post-accumulate hook on x": N_("a post-accumulate hook fires only once x.grad has been "
                                    "updated, the very last step for x"),
}


@checker(right=lambda torch: list(ORDER),
         wrong=lambda torch: [list(HOOKS),                                  # registration order
                              ["pre-hook of b.grad_fn", "post-hook of a.grad_fn",
                               "tensor hook on a", "tensor hook on x",
                               "post-accumulate hook on x"],               # node before tensor
                              ["pre-hook of b.grad_fn", "tensor hook on a",
                               "post-hook of a.grad_fn", "post-accumulate hook on x",
                               "tensor hook on x"]])                       # leaf's two swapped
def check_12_hook_order(answer):
    """Exercise 12.1: the order in which the five hooks of ``b = x.exp() * 2`` fire."""
    if not isinstance(answer, (list, tuple)) and not is_tensor_like(answer) and \
            as_values(answer) is not None:  # a NumPy array of the labels
        answer = as_values(answer)
    if not isinstance(answer, (list, tuple)) or is_tensor_like(answer):
        return wrong(_("your answer is {value}; write a list of the five labels of HOOKS, in "
                       "the order the hooks fire", value=describe(answer)))
    if not all(isinstance(item, str) for item in answer):
        return wrong(_("every item of your list should be one of the labels of HOOKS, in "
                       "quotes, as written there"))
    unknown = [item for item in answer if item not in HOOKS]
    if unknown:
        return wrong(_('"{unknown}" is not one of the labels of HOOKS: copy them as they are '
                       "written there", unknown=unknown[0]))
    if len(answer) != len(HOOKS) or len(set(answer)) != len(answer):
        if len(set(answer)) != len(answer):
            return wrong(_("your list has {count} labels with repeats; each of the five hooks "
                           "fires exactly once", count=len(answer)))
        return wrong(_("your list has {count} labels; each of the five hooks fires exactly "
                       "once", count=len(answer)))
    answer = list(answer)
    if answer == HOOKS:
        return wrong(_("this is the order in which the hooks were registered, not the order in "
                       "which they fire"),
                     _("backward decides the order: it walks the graph from b down to x."))
    for position, (got, expected) in enumerate(zip(answer, ORDER)):
        if got != expected:
            return wrong(_('the {nth} hook to fire is not "{got}"', nth=nth(position), got=got),
                         _("{sentence}.", sentence=_(_WHY[expected])))
    return correct(_("down the graph node by node: a tensor's hook before the node that made "
                     "it, a node's post-hook after it, and at the leaf, the tensor hook before "
                     "the gradient is added into .grad and the post-accumulate hook after."))


# --- Exercise 12.2: a hook that changes nothing (fix the bug) ----------------------------

_X = [1.0, 2.0, 3.0]


def _scaling_hook(factor, returns=True):
    def hook(grad):
        scaled = grad * factor
        return scaled if returns else None
    return hook


def _halving_pair(torch, hook):
    return hook, torch.tensor(_X, requires_grad=True)


@checker(right=lambda torch: _halving_pair(torch, _scaling_hook(0.5)),
         wrong=lambda torch: [_halving_pair(torch, _scaling_hook(2.0)),          # doubles
                              _halving_pair(torch, lambda grad: grad.sum() * 0.5),  # shape
                              _halving_pair(torch, lambda grad: 0.5)])          # a number
def check_12_halve(answer):
    """Exercise 12.2: ``answer = (halve, x)``: ``halve``, registered on ``h = x * 3``, halves
    the gradient that flows on, so ``x.grad`` is 1.5 everywhere after ``h.sum().backward()``."""
    parts = unpack(answer, ("halve", "x"))
    if not isinstance(parts, tuple):
        return parts
    halve, x = parts
    if not is_function(halve):
        return _not_a_function("halve", halve)
    if not is_tensor_like(x) or _flat(x) != _X:
        return wrong(_("x is {value}; pass the x of the exercise, [1.0, 2.0, 3.0]",
                       value=describe(x)))
    x = x.detach().clone().requires_grad_()  # a fresh copy: the check can run again

    def run():
        h = x * 3
        h.register_hook(halve)
        h.sum().backward()
    _unused, error = call_quietly(run)
    if error is not None:
        if "size" in str(error) or "shape" in str(error):
            return wrong(_("backward stopped: halve returned a gradient of another shape than h"),
                         _("return a tensor of the gradient's own shape."))
        return _raised(_("backward with halve on h"), error,
                       _("a hook gets the gradient and returns the one to use instead; it "
                         "should not change the gradient it was given in place."))
    grad = x.grad
    if grad is None:
        return wrong(_("x.grad is None after backward: the hook stopped the gradient"))
    values = _flat(grad)
    if _close(values, [3.0] * 3):
        returned, _unused = call_quietly(lambda: halve(x.detach() * 1))
        if returned is None:
            return not_done(_("x.grad is still 3 everywhere, as if there were no hook: halve "
                              "computes a halved gradient, but autograd only sees what a hook "
                              "returns"))
        return wrong(_("x.grad is still 3 everywhere: the gradient that flows on is not halved"))
    if _close(values, [1.5] * 3):
        return correct(_("what a hook returns replaces the gradient: h's gradient became 0.5, "
                         "and x.grad is 3 times that."))
    return wrong(_("x.grad is {values:g} at index [0], not half of 3", values=values[0]),
                 _("multiply the gradient by 0.5 and return the result."))


# --- Exercise 12.3: clip every gradient with hooks ---------------------------------------

_LIMITS = (0.05, 0.2)


def _model_factory(torch):
    def make_model():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.Tanh(),
                                   torch.nn.Linear(4, 1))
    return make_model


def _clip_all(model, limit):
    for p in model.parameters():
        p.register_hook(lambda g: g.clamp(-limit, limit))


def _clip_weights_only(model, limit):
    for name, p in model.named_parameters():
        if name.endswith("weight"):
            p.register_hook(lambda g: g.clamp(-limit, limit))


def _clip_upper_only(model, limit):
    for p in model.parameters():
        p.register_hook(lambda g: g.clamp(max=limit))


def _clip_fixed(model, limit):
    for p in model.parameters():
        p.register_hook(lambda g: g.clamp(-0.05, 0.05))


def _gradients(make_model, add_hooks, limit):
    """The gradients of every parameter of a fresh model after one loss's backward, with
    ``add_hooks(model, limit)`` called first (unless None)."""
    model = make_model()
    params = list(model.parameters())
    torch = library_of(params[0])
    if add_hooks is not None:
        add_hooks(model, limit)
    torch.manual_seed(1)
    data, target = torch.randn(8, 2), torch.randn(8, 1)
    ((model(data) - target) ** 2).mean().backward()
    return [None if p.grad is None else _flat(p.grad) for p in params]


@checker(right=lambda torch: (_clip_all, _model_factory(torch)),
         wrong=lambda torch: [(_clip_weights_only, _model_factory(torch)),
                              (_clip_upper_only, _model_factory(torch)),
                              (_clip_fixed, _model_factory(torch))])
def check_12_clip_hooks(answer):
    """Exercise 12.3: ``answer = (add_clip_hooks, make_model)``: after
    ``add_clip_hooks(model, limit)``, every element of every parameter's gradient is the
    unhooked one clipped to ``[-limit, limit]`` (checked with two limits)."""
    parts = unpack(answer, ("add_clip_hooks", "make_model"))
    if not isinstance(parts, tuple):
        return parts
    add_clip_hooks, make_model = parts
    if not is_function(add_clip_hooks):
        return _not_a_function("add_clip_hooks", add_clip_hooks)
    if not is_function(make_model):
        return _not_a_function("make_model", make_model)
    model, error = call_quietly(make_model)
    if error is not None or not callable(getattr(model, "parameters", None)) or \
            library_of(next(iter(model.parameters()), None)) is None:
        return wrong(_("make_model() should return the model of the exercise; pass the "
                       "make_model defined there"))
    plain, error = call_quietly(lambda: _gradients(make_model, None, None))
    if error is not None:
        return _raised(_("the model's backward without hooks"), error)
    names = [name for name, _unused in model.named_parameters()]
    for limit in _LIMITS:
        hooked, error = call_quietly(
            lambda limit=limit: _gradients(make_model, add_clip_hooks, limit))
        if error is not None:
            return _raised(_("backward with add_clip_hooks(model, {limit})", limit=limit), error,
                           _("each hook gets a gradient and returns the clipped one."))
        if all(h is not None and _close(h, p) for h, p in zip(hooked, plain)):
            return not_done(_("with add_clip_hooks(model, {limit}), every gradient is the same "
                              "as without: no hook changed anything yet", limit=limit))
        problems = []  # (0: clipped wrongly, 1: not clipped at all, message)
        for name, grad, reference in zip(names, hooked, plain):
            expected = [min(max(v, -limit), limit) for v in reference]
            if grad is None:
                return wrong(_("after backward, {name}'s .grad is None: a hook should return "
                               "the clipped gradient, not None", name=name))
            if _close(grad, expected):
                continue
            if _close(grad, reference):
                problems.append((1, wrong(_("{name}'s gradient is not clipped (limit {limit})",
                                            name=name, limit=limit),
                                          _("register a hook on every parameter: "
                                            "model.parameters() gives them all."))))
                continue
            bad = next(i for i, (g, e) in enumerate(zip(grad, expected))
                       if not math.isclose(g, e, rel_tol=1e-6, abs_tol=1e-6))
            side = _("below -limit") if reference[bad] < -limit else \
                _("above limit") if reference[bad] > limit else _("within the limits")
            problems.append((0, wrong(_("with limit {limit}, element {bad} of {name}'s "
                                        "gradient is {grad:.4g}; its unclipped value is {side}",
                                        limit=limit, bad=bad, name=name, grad=grad[bad], side=side),
                                      _("clip both sides, to [-limit, limit], using the limit "
                                        "passed in."))))
        if problems:  # a wrong clip says more than a parameter left out
            return min(problems, key=lambda problem: problem[0])[1]
    return correct(_("each hook clips its parameter's gradient as backward computes it, on "
                     "both sides and with the limit you pass."))


# --- Exercise 12.4: count what a graph saves ----------------------------------------------


def _reference_count(fn, torch):
    sizes = []

    def pack(t):
        sizes.append(t.numel() * t.element_size())
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn()
    return len(sizes), sum(sizes)


def _counter(torch, per_tensor):
    def count_saved(fn):
        sizes = []

        def pack(t):
            sizes.append(per_tensor(t))
            return t
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            fn()
        return len(sizes), sum(sizes)
    return count_saved


def _counter_once(torch):  # each tensor counted once, however many nodes saved it
    def count_saved(fn):
        seen = {}

        def pack(t):
            seen[id(t)] = t.numel() * t.element_size()
            return t
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            fn()
        return len(seen), sum(seen.values())
    return count_saved


def _samples(torch, x):
    """(description, function) pairs whose saved tensors are counted."""
    return [("(x * x).sum()", lambda: (x * x).sum()),
            ("x.exp().sum()", lambda: x.exp().sum()),
            ("x.double().sin()", lambda: x.double().sin()),
            ("(x + 1).sum()", lambda: (x + 1).sum())]


def _sample_x(torch):
    torch.manual_seed(0)
    return torch.randn(4, 3, requires_grad=True)


@checker(right=lambda torch: (_counter(torch, lambda t: t.numel() * t.element_size()),
                              _sample_x(torch)),
         wrong=lambda torch: [(_counter(torch, lambda t: t.numel()), _sample_x(torch)),
                              (_counter(torch, lambda t: 4 * t.numel()), _sample_x(torch)),
                              (_counter_once(torch), _sample_x(torch)),
                              (lambda fn: (0, 0), _sample_x(torch))])
def check_12_count_saved(answer):
    """Exercise 12.4: ``answer = (count_saved, x)``: ``count_saved(fn)`` runs ``fn`` and
    returns ``(how many tensors the nodes saved, their bytes)``, every save counted."""
    parts = unpack(answer, ("count_saved", "x"))
    if not isinstance(parts, tuple):
        return parts
    count_saved, x = parts
    if not is_function(count_saved):
        return _not_a_function("count_saved", count_saved)
    torch = library_of(x) if is_tensor_like(x) else None
    if torch is None or tuple(x.shape) != (4, 3) or not x.requires_grad:
        return wrong(_("x is {value}; pass the x of the exercise, a (4, 3) tensor that "
                       "requires grad", value=describe(x)))
    for what, fn in _samples(torch, x):
        got, error = call_quietly(lambda fn=fn: count_saved(fn))
        if error is not None:
            return _raised(f"count_saved(lambda: {what})", error)
        if is_stub(got) or got is None:
            return not_done()
        if not isinstance(got, (tuple, list)) or len(got) != 2 or \
                not all(isinstance(v, int) and not isinstance(v, bool) for v in got):
            return wrong(_("count_saved(lambda: {what}) returned {value}; it should return a "
                           "pair of whole numbers (tensors, bytes)",
                           what=what, value=describe(got)))
        count, size = _reference_count(fn, torch)
        if got[0] != count:
            hint = _("a node that saves the same tensor twice (x * x) counts it twice: count " \
                  "every call of pack.") if "x * x" in what else \
                _("count inside a saved_tensors_hooks block: pack is called once per saved tensor.")
            return wrong(_("for {what}, your count of saved tensors is {got}, which is not "
                           "what the graph saves", what=what, got=got[0]), hint)
        if got[1] != size:
            hint = _("a tensor's bytes are its number of elements times the bytes of one " \
                  "element, and float64 takes 8.") if got[1] else None
            return wrong(_("for {what}, the number of tensors is right but {got} bytes is not",
                           what=what, got=got[1]),
                         hint)
    return correct(_("pack sees every tensor a node saves, so it can count them and their "
                     "bytes (and, in real code, keep something smaller instead)."))


# --- Exercise 12.5: what backward(inputs=...) fills ---------------------------------------


def _grad_value(value):
    """A learner's gradient as a float, None for None, or ``...`` when it is neither."""
    if value is None:
        return None
    number = as_number(value, tensors=True)  # a NumPy number or a one-value tensor too
    return ... if number is None else float(number)


@checker(right=lambda torch: (None, 12.0),
         wrong=lambda torch: [(9.0, 12.0), (0.0, 12.0), (None, 6.0), (None, None)])
def check_12_backward_inputs(answer):
    """Exercise 12.5: ``(a.grad, b.grad)`` after ``(a * b ** 2).backward(inputs=[b])`` with
    ``a = 2``, ``b = 3``: ``(None, 12.0)``."""
    parts = unpack(answer, ("a_grad", "b_grad"), what=_("the check: your prediction"))
    if not isinstance(parts, tuple):
        return parts
    a_grad, b_grad = (_grad_value(part) for part in parts)
    for name, given, value in (("a.grad", parts[0], a_grad), ("b.grad", parts[1], b_grad)):
        if value is ...:
            return wrong(_("your prediction for {name} is {value}; write a number, or None for "
                           "no gradient at all", name=name, value=describe(given)))
    if a_grad is not None:
        hint = _("backward never writes into a.grad when a is not in inputs; it does not set "
                 "it to zero either.") if a_grad == 0 else \
            _("a requires grad, but it is not in inputs.")
        return wrong(_("a.grad is not {a_grad:g}", a_grad=a_grad), hint)
    if b_grad is None:
        return wrong(_("b is in inputs, so backward does fill b.grad"))
    if not math.isclose(b_grad, 12.0):
        return wrong(_("b.grad is not {b_grad:g}", b_grad=b_grad),
                     _("the derivative of a * b ** 2 with respect to b is 2 * a * b."))
    return correct(_("inputs=[b] limits backward to b: a.grad stays None, and b.grad is 2 * a "
                     "* b = 12."))
