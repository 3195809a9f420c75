"""Checkers for the exercises of lesson 13, Forward mode, Jacobians and torch.func
(solutions/13_forward_mode_and_torch_func.ipynb).

The functions a learner writes run here on the tensors the check cell passes (engine or
torch: a checker never imports either); expected values are computed in plain Python from
the exercise's numbers, so a check does not lean on the transforms it is checking.
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


def _close(a, b, tol=1e-5) -> bool:
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=tol, abs_tol=tol)
                                    for x, y in zip(a, b))


def _flat(tensor):
    return [float(v) for v in tensor.detach().reshape(-1).tolist()]


def _closure(apply, name):
    """The one-argument function ``t -> apply(name, t)`` a learner's code is given."""
    def function(t):
        return apply(name, t)
    return function


def _first_difference(got, expected):
    """The first index where two flat lists of numbers differ, or None."""
    for index, (a, b) in enumerate(zip(got, expected)):
        if not math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-5):
            return index
    return None


# --- Exercise 13.1: how many products for a Jacobian (predict) -----------------------------

_INPUTS, _OUTPUTS = 3, 50
_TRANSFORMS = ("jacfwd", "jacrev")


@checker(right=lambda torch: (3, 50, "jacfwd"),
         wrong=lambda torch: [(50, 3, "jacrev"),       # products per output / per input swapped
                              (3, 50, "jacrev"),       # the counts, but the other transform
                              (1, 1, "jacfwd")])       # one product for the whole matrix
def check_13_products(answer):
    """Exercise 13.1: ``(jvps, vjps, cheaper)`` for the Jacobian of a function from 3 numbers
    to 50: 3 JVPs (one per column), 50 VJPs (one per row), and "jacfwd"."""
    parts = unpack(answer, ("jvps", "vjps", "cheaper"))
    if not isinstance(parts, tuple):
        return parts
    jvps, vjps, cheaper = parts
    for name, value in (("jvps", jvps), ("vjps", vjps)):
        if isinstance(value, bool) or as_number(value, tensors=True) is None:
            return wrong(_("{name} is {value}; write a whole number",
                           name=name, value=describe(value)))
    jvps, vjps = as_number(jvps, tensors=True), as_number(vjps, tensors=True)
    if not isinstance(cheaper, str):
        return wrong(_('cheaper is {value}; write the name of a transform in quotes, "jacfwd" '
                       'or "jacrev"', value=describe(cheaper)))
    if cheaper.strip().lower() not in _TRANSFORMS:
        return wrong(_('cheaper is "{cheaper}"; write "jacfwd" or "jacrev"', cheaper=cheaper))
    if (jvps, vjps) == (_OUTPUTS, _INPUTS):
        return wrong(_("the two counts are swapped"),
                     _("a JVP pushes one direction of the inputs forward and gives one column "
                       "(all outputs); a VJP pulls one output back and gives one row."))
    if jvps != _INPUTS:
        return wrong(_("{jvps:g} JVPs do not build this Jacobian exactly once", jvps=jvps),
                     _("one JVP gives one column of the Jacobian: how many columns has a "
                       "Jacobian of a function of 3 numbers?"))
    if vjps != _OUTPUTS:
        return wrong(_("{vjps:g} VJPs do not build this Jacobian exactly once", vjps=vjps),
                     _("one VJP gives one row, the gradient of one output: how many outputs "
                       "are there?"))
    if cheaper.strip().lower() != "jacfwd":
        return wrong(_("the counts are right, but not the cheaper transform"),
                     _("jacrev makes one VJP per output, jacfwd one JVP per input."))
    return correct(_("3 columns by forward mode against 50 rows by reverse mode: with few "
                     "inputs and many outputs, jacfwd does less work."))


# --- Exercise 13.2: a tangent read too late (fix the bug) --------------------------------

_X = [1.0, 2.0, 3.0]
# (function, direction, its JVP at _X) computed by hand: the checks' cases
_CASES = (
    ("cube_sum", [1.0, 0.0, 1.0], [3 * 1.0 ** 2 + 3 * 3.0 ** 2]),
    ("sin", [1.0, 1.0, 1.0], [math.cos(v) for v in _X]),
)


def _apply(name, t):
    return (t ** 3).sum() if name == "cube_sum" else t.sin()


def _directional_right(torch):
    forward_ad = torch.autograd.forward_ad

    def directional_derivative(f, x, v):
        with forward_ad.dual_level():
            out = f(forward_ad.make_dual(x, v))
            return forward_ad.unpack_dual(out).tangent
    return directional_derivative


def _directional_late(torch):
    forward_ad = torch.autograd.forward_ad

    def directional_derivative(f, x, v):
        with forward_ad.dual_level():
            out = f(forward_ad.make_dual(x, v))
        return forward_ad.unpack_dual(out).tangent
    return directional_derivative


def _directional_primal(torch):
    forward_ad = torch.autograd.forward_ad

    def directional_derivative(f, x, v):
        with forward_ad.dual_level():
            out = f(forward_ad.make_dual(x, v))
            return forward_ad.unpack_dual(out).primal
    return directional_derivative


def _directional_pair(torch):
    forward_ad = torch.autograd.forward_ad

    def directional_derivative(f, x, v):
        with forward_ad.dual_level():
            out = f(forward_ad.make_dual(x, v))
            return forward_ad.unpack_dual(out)
    return directional_derivative


def _sample_x(torch):
    return torch.tensor(_X)


@checker(right=lambda torch: (_directional_right(torch), _sample_x(torch)),
         wrong=lambda torch: [(_directional_late(torch), _sample_x(torch)),
                              (_directional_primal(torch), _sample_x(torch)),
                              (_directional_pair(torch), _sample_x(torch))])
def check_13_directional(answer):
    """Exercise 13.2: ``answer = (directional_derivative, x)``; ``directional_derivative(f,
    x, v)`` returns the JVP of ``f`` at ``x`` along ``v`` (the tangent of ``f``'s output)."""
    parts = unpack(answer, ("directional_derivative", "x"))
    if not isinstance(parts, tuple):
        return parts
    function, x = parts
    if not is_function(function):
        return wrong(_("directional_derivative is {value}, not a function: pass the function "
                       "itself, without calling it", value=describe(function)))
    library = library_of(x) if is_tensor_like(x) else None
    if library is None or _flat(x) != _X:
        return wrong(_("x is {value}; pass the x of the exercise, [1.0, 2.0, 3.0]",
                       value=describe(x)))
    for name, direction, expected in _CASES:
        v = library.tensor(direction)
        f = _closure(_apply, name)
        result, error = call_quietly(lambda: function(f, x.detach(), v))  # noqa: B023 - called now
        if error is not None:
            return _raised("directional_derivative", error,
                           _("make the dual inside the with block, and read its tangent there."))
        if result is None:
            return wrong(_("directional_derivative returns None"),
                         _("a tangent exists only inside its dual_level: once the with block "
                           "has ended, the output carries none. Read it before the block ends."))
        if isinstance(result, tuple):
            return wrong(_("directional_derivative returns a pair (the value and the tangent); "
                           "return only the tangent"),
                         _("its .tangent, the second item of the pair."))
        if not is_tensor_like(result):
            return wrong(_("directional_derivative returns {value}, not a tensor",
                           value=describe(result)))
        got = _flat(result)
        value = _flat(_apply(name, x.detach()))
        if len(got) != len(expected):
            return wrong(_("directional_derivative returns {count} numbers where f's output "
                           "has {count2}", count=len(got), count2=len(expected)),
                         _("the tangent has the shape of f's output."))
        if _close(got, value) and not _close(got, expected):
            return wrong(_("directional_derivative returns f's value, not its tangent"),
                         _("a dual output holds the value (primal) and the tangent."))
        index = _first_difference(got, expected)
        if index is not None:
            return wrong(_("the tangent is {got:g} at index [{index}], which is not the "
                           "derivative along v", got=got[index], index=index))
    return correct(_("the tangent is read inside the dual level, where it still exists: this "
                     "is what torch.func.jvp does for you."))


# --- Exercise 13.3: per-sample gradients with vmap(grad(...)) ----------------------------

def _linear_losses_gradients(weight, bias, xs, ys):
    """Per sample i, the gradients of (w . x_i + b - y_i) ** 2 for a Linear(n, 1), by hand:
    ``[(weight gradient (n values), bias gradient)]``."""
    grads = []
    for x, (y,) in zip(xs, ys):
        error = sum(w * v for w, v in zip(weight, x)) + bias - y
        grads.append(([2 * error * v for v in x], 2 * error))
    return grads


def _per_sample_setup(torch):
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    params = {name: p.detach() for name, p in model.named_parameters()}
    xs, ys = torch.randn(6, 2), torch.randn(6, 1)

    def loss(params, x, y):
        out = torch.func.functional_call(model, params, (x.unsqueeze(0),))
        return torch.nn.functional.mse_loss(out, y.unsqueeze(0))
    return loss, params, xs, ys


def _per_sample_right(torch):
    loss, params, xs, ys = _per_sample_setup(torch)
    per_sample = torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))(params, xs, ys)
    return per_sample, params, xs, ys


def _per_sample_mean(torch):
    """The gradient of the batch's mean loss: one for all samples."""
    loss, params, xs, ys = _per_sample_setup(torch)
    model = torch.nn.Linear(2, 1)
    batch = {name: p.clone().requires_grad_() for name, p in params.items()}
    out = torch.func.functional_call(model, batch, (xs,))
    grads = torch.autograd.grad(torch.nn.functional.mse_loss(out, ys), list(batch.values()))
    return dict(zip(batch, grads)), params, xs, ys


def _per_sample_scaled(torch):
    per_sample, params, xs, ys = _per_sample_right(torch)
    return {name: g * 0.5 for name, g in per_sample.items()}, params, xs, ys


@checker(right=_per_sample_right,
         wrong=lambda torch: [_per_sample_mean(torch), _per_sample_scaled(torch)])
def check_13_per_sample(answer):
    """Exercise 13.3: ``answer = (per_sample, params, xs, ys)``: ``per_sample`` is the dict of
    each sample's gradients, ``{"weight": (6, 1, 2), "bias": (6, 1)}``."""
    parts = unpack(answer, ("per_sample", "params", "xs", "ys"))
    if not isinstance(parts, tuple):
        return parts
    per_sample, params, xs, ys = parts
    if not isinstance(params, dict) or set(params) != {"weight", "bias"} or \
            not all(is_tensor_like(p) for p in params.values()) or \
            not is_tensor_like(xs) or not is_tensor_like(ys) or \
            tuple(xs.shape) != (6, 2) or tuple(ys.shape) != (6, 1):
        return wrong(_("pass the params, xs and ys of the exercise after per_sample, as the "
                       "check cell does"))
    if not isinstance(per_sample, dict):
        return wrong(_("per_sample is {value}; grad of a function of a dict of parameters "
                       'gives a dict with the same names, "weight" and "bias"',
                       value=describe(per_sample)))
    if set(per_sample) != {"weight", "bias"}:
        names = ", ".join(f'"{name}"' for name in per_sample) or _("no names")
        return wrong(_('per_sample has {names}; it should have the names of params, "weight" '
                       'and "bias"', names=names))
    expected = _linear_losses_gradients(_flat(params["weight"]), _flat(params["bias"])[0],
                                        xs.tolist(), ys.tolist())
    wanted = {"weight": (6, 1, 2), "bias": (6, 1)}
    for name in ("weight", "bias"):
        got = per_sample[name]
        if not is_tensor_like(got):
            return wrong(_('per_sample["{name}"] is {value}, not a tensor',
                           name=name, value=describe(got)))
        shape = tuple(got.shape)
        if shape == tuple(params[name].shape):
            return wrong(_('per_sample["{name}"] has the shape of the parameter itself, '
                           "{shape}: one gradient for the whole batch, not one per sample",
                           name=name, shape=shape),
                         _("vmap over the samples: in_dims=(None, 0, 0) shares params and "
                           "slices xs and ys."))
        if shape != wanted[name]:
            return wrong(_('per_sample["{name}"] has shape {shape}', name=name, shape=shape),
                         _("one gradient per sample: the batch of 6 in front of the "
                           "parameter's own shape."))
    for sample, (weight_grad, bias_grad) in enumerate(expected):
        got = _flat(per_sample["weight"][sample]) + _flat(per_sample["bias"][sample])
        if not _close(got, weight_grad + [bias_grad]):
            return wrong(_("the gradients of sample {sample} are not those of its own loss",
                           sample=sample),
                         _("grad(loss) differentiates loss(params, x, y) with respect to "
                           "params, for one sample x, y; vmap runs it for each."))
    return correct(_("one gradient per sample, in one batched call: their mean is the gradient "
                     "of the batch's mean loss."))


# --- Exercise 13.4: gradients at the kinks (predict) -------------------------------------

KINKS = ["relu at 0", "abs at 0", "sqrt at 0", "t.max() at index 1, t = [2., 5., 5.]"]
_KINK_VALUES = [0.0, 0.0, math.inf, 0.5]
_KINK_HINTS = (
    N_("relu's slope is 0 on the left and 1 on the right; PyTorch takes the left one at 0."),
    N_("abs's gradient is the sign of its input, and the sign of 0 is 0."),
    N_("sqrt's slope, 1 / (2 sqrt(x)), grows without bound as x comes down to 0."),
    N_("t.max() gives one number, but two elements hold it: PyTorch shares the gradient "
       "evenly among the tied maxima."),
)


@checker(right=lambda torch: [0.0, 0.0, math.inf, 0.5],
         wrong=lambda torch: [[0.5, 0.0, math.inf, 0.5],      # relu's average slope
                              [0.0, 0.0, math.nan, 0.5],      # sqrt: nan instead of inf
                              [0.0, 0.0, math.inf, 1.0]])     # max: all to one element
def check_13_kinks(answer):
    """Exercise 13.4: the gradients PyTorch returns at the kinks of KINKS, in order."""
    if not isinstance(answer, (list, tuple)) and as_values(answer) is not None:
        answer = as_values(answer)  # a NumPy array or a tensor of the four numbers
    if not isinstance(answer, (list, tuple)) or is_tensor_like(answer):
        return wrong(_("your answer is {value}; write a list of four numbers, one per item of "
                       "KINKS", value=describe(answer)))
    if len(answer) != len(KINKS):
        return wrong(_("your list has {count} items; write four numbers, one per item of KINKS",
                       count=len(answer)))
    for position, (value, expected, hint) in enumerate(zip(answer, _KINK_VALUES,
                                                          map(_, _KINK_HINTS))):
        number = None if isinstance(value, bool) else as_number(value, tensors=True)
        if number is None:
            return wrong(_('the {nth} item is {value}; write a number (float("inf") or '
                           "math.inf for infinity)", nth=nth(position), value=describe(value)))
        if math.isnan(number) or not math.isclose(number, expected, abs_tol=1e-9):
            return wrong(_("the {nth} gradient ({KINKS}) is not {number:g}",
                           nth=nth(position), KINKS=KINKS[position], number=number), hint)
    return correct(_("0 for relu and abs, inf for sqrt (a true infinite slope), and an even "
                     "share of the gradient among tied maxima."))


# --- Exercise 13.5: a Hessian-vector product, forward over reverse (write the code) -------

# (function, direction, H v at _X) computed by hand: g1 = sum t**3 has H = diag(6 t);
# g2 = t0 t1 t2 has H = [[0, t2, t1], [t2, 0, t0], [t1, t0, 0]]
_HVP_CASES = (
    ("cube_sum", [1.0, 0.0, 1.0], [6.0, 0.0, 18.0]),
    ("product", [1.0, 1.0, 1.0], [5.0, 4.0, 3.0]),
)
_HVP_GRADIENTS = {"cube_sum": [3.0, 12.0, 27.0], "product": [6.0, 3.0, 2.0]}


def _hvp_apply(name, t):
    return (t ** 3).sum() if name == "cube_sum" else t[0] * t[1] * t[2]


def _hvp_right(torch):
    def hvp(g, x, v):
        return torch.func.jvp(torch.func.grad(g), (x,), (v,))[1]
    return hvp


def _hvp_gradient(torch):
    def hvp(g, x, v):
        return torch.func.jvp(torch.func.grad(g), (x,), (v,))[0]
    return hvp


def _hvp_times_v(torch):
    def hvp(g, x, v):
        return torch.func.grad(g)(x) * v
    return hvp


@checker(right=lambda torch: (_hvp_right(torch), _sample_x(torch)),
         wrong=lambda torch: [(_hvp_gradient(torch), _sample_x(torch)),
                              (_hvp_times_v(torch), _sample_x(torch))])
def check_13_hvp(answer):
    """Exercise 13.5: ``answer = (hvp, x)``; ``hvp(g, x, v)`` returns the Hessian of ``g`` at
    ``x`` times ``v``."""
    parts = unpack(answer, ("hvp", "x"))
    if not isinstance(parts, tuple):
        return parts
    function, x = parts
    if not is_function(function):
        return wrong(_("hvp is {value}, not a function: pass the function itself, without "
                       "calling it", value=describe(function)))
    library = library_of(x) if is_tensor_like(x) else None
    if library is None or _flat(x) != _X:
        return wrong(_("x is {value}; pass the x of the exercise, [1.0, 2.0, 3.0]",
                       value=describe(x)))
    for name, direction, expected in _HVP_CASES:
        v = library.tensor(direction)
        g = _closure(_hvp_apply, name)
        result, error = call_quietly(lambda: function(g, x.detach(), v))  # noqa: B023 - called now
        if error is not None:
            return _raised("hvp", error, _("take the JVP of the function grad(g), at x, "
                                           "along v."))
        if is_stub(result):
            return not_done(_("hvp still returns ...: replace it with the Hessian times v"))
        if not is_tensor_like(result):
            return wrong(_("hvp returns {value}, not a tensor", value=describe(result)),
                         _("jvp returns a pair: the value and the JVP."))
        got = _flat(result)
        if len(got) != len(expected):
            return wrong(_("hvp returns {count} numbers where x has {count2}",
                           count=len(got), count2=len(expected)))
        if _close(got, _HVP_GRADIENTS[name]):
            return wrong(_("hvp returns the gradient of g, not the Hessian times v"),
                         _("jvp returns a pair: the value of grad(g) and its JVP. Which one do "
                           "you want?"))
        index = _first_difference(got, expected)
        if index is not None:
            return wrong(_("H v is {got:g} at index [{index}], which is not right",
                           got=got[index], index=index),
                         _("the Hessian is the Jacobian of the gradient: H v is the JVP of "
                           "grad(g) along v."))
    return correct(_("the JVP of the gradient is the Hessian times v, computed without "
                     "building the Hessian: forward over reverse, as hessian itself does."))
