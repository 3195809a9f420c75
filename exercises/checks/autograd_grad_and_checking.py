"""Checkers for lesson 8: autograd.grad, higher-order gradients and gradient checking."""
from exercises.checks.toolkit import (
    _,
    all_of,
    as_number,
    checker,
    correct,
    describe,
    expect_equal,
    expect_tensor,
    is_function,
    is_stub,
    is_tensor_like,
    not_done,
    wrong,
    wrong_form,
)


def _first_sentence(error):
    """An error's message up to its first full stop (torch's messages run on)."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return text.split(". ")[0].rstrip(".")


def _call(function, what=None, hint=None):
    """(result, None) from calling ``function()``, or (None, feedback) when that is not
    possible: a stub, not a function, or an error raised inside it."""
    what = _("your function") if what is None else what
    if is_stub(function):
        return None, not_done()
    if not is_function(function):
        return None, wrong(_("{what} is {value}; pass the function itself (its name, without "
                             "parentheses)", what=what, value=describe(function)))
    try:
        result = function()
    except Exception as error:  # the learner's bug is what is being checked
        return None, wrong(_("{what} raised {error}: {message}", what=what,
                             error=type(error).__name__, message=_first_sentence(error)), hint)
    if is_stub(result):
        return None, not_done()
    return result, None


# --- 7.1 predict: what autograd.grad returns, and .grad ---------------------------------

@checker(right=lambda torch: (2.0, 7.0, True),
         wrong=lambda torch: [(2.0, 7.0, False),   # thinks grad() fills .grad like backward()
                              (2.0, 4.0, True),    # forgot u * v when differentiating by v
                              (3.0, 7.0, True),    # d(u * v)/du taken as u
                              (2.0, 7.0),          # a part missing
                              ("2", "7", "True"),  # in quotes
                              (2.0, 7.0, None)])   # what u.grad is, not whether it is None
def check_08_predict_grad(prediction):
    """Exercise 8.1: (grads[0] as a number, grads[1] as a number, u.grad is None)."""
    if not isinstance(prediction, (tuple, list)) or len(prediction) != 3:
        return wrong_form(_("your prediction"), prediction,
                          _("three values in a tuple: (number, number, True or False)"))
    # the number in a one-number tensor (grads[0] itself) is that number
    first, second, untouched = (
        v if as_number(v, tensors=True) is None else as_number(v, tensors=True)
        for v in prediction)
    return all_of(
        expect_equal(first, 2.0, what=_("your first number (df/du)"), atol=1e-6,
                     hint=_("treat v as a constant: what is the derivative of u * v with "
                            "respect to u?")),
        expect_equal(second, 7.0, what=_("your second number (df/dv)"), atol=1e-6,
                     hint=_("v appears in both terms of f.")),
        expect_equal(untouched, True, what=_("your third value (is u.grad still None?)"),
                     hint=_("does autograd.grad write into .grad the way backward() does?")),
        success=_("autograd.grad hands back df/du = 2 and df/dv = 7 and leaves u.grad alone "
                  "(None)."),
    )


# --- 7.2 write: first, second and third derivatives with create_graph ----------------------

def _derivatives(torch, chain=True):
    x = torch.tensor(2.0, requires_grad=True)
    y = x ** 3 + 2 * x + 1
    results, current = [], y
    for _unused in range(3):
        (d,) = torch.autograd.grad(current if chain else y, x, create_graph=True)
        results.append(d)
        current = d
    return results


@checker(right=_derivatives,
         wrong=lambda torch: [_derivatives(torch, chain=False),   # y differentiated 3 times
                              [torch.tensor(12.0), torch.tensor(12.0), torch.tensor(6.0)],
                              [torch.tensor(14.0), torch.tensor(12.0)],
                              [14.0, 12.0, 6.0],
                              torch.tensor([14.0, 12.0, 6.0])])    # one tensor of three
def check_08_derivatives(answer):
    """Exercise 8.2: [dy/dx, d2y/dx2, d3y/dx3] of y = x**3 + 2*x + 1 at x = 2, as tensors."""
    if not isinstance(answer, (tuple, list)) or len(answer) != 3:
        return wrong_form(_("your answer"), answer, _("a list of three tensors: [d1, d2, d3]"))
    names = (_("the first derivative"), _("the second derivative"), _("the third derivative"))
    hints = (_("differentiate every term of y, including 2 * x."),
             _("differentiate the first derivative (it needs a graph: create_graph=True), "
               "not y again."),
             _("differentiate the second derivative, not y or the first derivative."))
    return all_of(
        *(expect_tensor(d, what=name, shape=(), values=value, hints={"values": hint})
          for d, name, value, hint in zip(answer, names, (14.0, 12.0, 6.0), hints)),
        success=_("14, 12 and 6: each derivative is the derivative of the one before."),
    )


# --- 7.3 write: a central-difference gradient for any shape ----------------------------------

_X = [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]
_GRAD = [[-3.0, 9.0, 25.0], [-11.25, 9.0, 9.0]]  # 3 x**2 + prod(x) / x


def _f(t):
    return (t ** 3).sum() + t.prod()


def _numerical(torch, kind="central", dtype=None):
    """numerical_grad(_f, X) as written right, or with a learner's mistake."""
    x = torch.tensor(_X, dtype=dtype or torch.float64)
    eps = 1e-6
    grad = torch.zeros_like(x)
    flat_x, flat_grad = x.view(-1), grad.view(-1)
    for i in range(x.numel()):
        original = flat_x[i].item()
        if kind == "all at once":
            plus, minus = _f(x + eps).item(), _f(x - eps).item()
        else:
            flat_x[i] = original + eps
            plus = _f(x).item()
            flat_x[i] = original - eps if kind != "forward" else original
            minus = _f(x).item()
            if kind != "not restored":
                flat_x[i] = original
        width = eps if kind in ("forward", "divided by eps") else 2 * eps
        flat_grad[i] = (plus - minus) / width
    return grad


@checker(right=_numerical,
         wrong=lambda torch: [_numerical(torch, "forward"), _numerical(torch, "divided by eps"),
                              _numerical(torch, "all at once"), _numerical(torch, "not restored"),
                              _numerical(torch, dtype=torch.float32),
                              _numerical(torch).view(-1), None,
                              _numerical(torch).tolist()])
def check_08_numerical_grad(answer):
    """Exercise 8.3: numerical_grad(f, X) for the 2 x 3 float64 X of the exercise."""
    if answer is None:
        return wrong(_("numerical_grad(f, X) returned None: does the function end with return "
                       "grad?"))
    return expect_tensor(
        answer, what=_("numerical_grad(f, X)"), shape=(2, 3), dtype="torch.float64", values=_GRAD,
        atol=1e-7, rtol=0.0,
        hints={"shape": _("the gradient has the shape of x."),
               "dtype": _("make the gradient with the dtype of x (zeros_like does)."),
               "values": _("move one element at a time, by +eps and by -eps around its "
                           "original value, put it back afterwards, and divide by the full "
                           "width 2 * eps.")})


# --- 7.4 fix: a finite-difference check in float32 with a tiny eps ---------------------------

def _difference_check(torch, dtype=None, eps=1e-6):
    def finite_difference_check():
        x = torch.tensor(2.0, dtype=dtype or torch.float64)
        numerical = ((x + eps) ** 3 - (x - eps) ** 3) / (2 * eps)
        analytical = 3 * x ** 2
        return numerical, analytical
    return finite_difference_check


@checker(right=_difference_check,
         wrong=lambda torch: [_difference_check(torch, torch.float32, 1e-7),  # the bug as given
                              _difference_check(torch, torch.float32, 1e-3),  # eps alone
                              _difference_check(torch, torch.float64, 1e-13),  # too small
                              _difference_check(torch, torch.float64, 1e-2),  # too big
                              lambda: (1 / 0, None)])
def check_08_float32_eps(finite_difference_check):
    """Exercise 8.4: the fixed function returns (numerical, analytical) within 1e-6."""
    result, problem = _call(finite_difference_check)
    if problem is not None:
        return problem
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        return wrong(_("your function returned {value}; it should return two tensors: "
                       "numerical, analytical", value=describe(result)))
    numerical, analytical = result
    for name, value in (("numerical", numerical), ("analytical", analytical)):
        if not is_tensor_like(value) or tuple(value.shape) != ():
            return wrong_form(name, value, _("a tensor holding one number"))
    shown = expect_tensor(analytical, what="analytical", values=12.0,
                          hints={"values": _("the derivative of x ** 3 at 2 is not the bug "
                                             "here.")})
    if not shown:
        return shown
    difference = abs(numerical.item() - analytical.item())
    if difference > 1e-6:
        dtype = str(numerical.dtype).replace("torch.", "")
        if dtype != "float64":
            hint = _("how many significant digits does {dtype} keep, and how does eps compare "
                     "with the gap between neighbouring {dtype} numbers near 2?", dtype=dtype)
        else:
            hint = _("in float64, an eps that is too small drowns in rounding error and one "
                     "that is too big in truncation error (the curve in the lesson).")
        return wrong(_("numerical and analytical differ by {difference:.1e}, more than 1e-6",
                       difference=difference),
                     hint)
    return correct(_("numerical and analytical now agree within 1e-6."))


# --- 7.5 fix: two autograd.grad calls on one graph ------------------------------------------

def _two_gradients(torch, mode="retain"):
    def gradients():
        w = torch.tensor(2.0, requires_grad=True)
        b = torch.tensor(1.0, requires_grad=True)
        loss = (3 * w + b) ** 2
        if mode == "one call":
            dw, db = torch.autograd.grad(loss, [w, b])
        elif mode == "swapped":
            db, dw = torch.autograd.grad(loss, [w, b])
        else:
            (dw,) = torch.autograd.grad(loss, w, retain_graph=(mode == "retain"))
            (db,) = torch.autograd.grad(loss, b)
        return dw, db
    return gradients


@checker(right=_two_gradients,
         wrong=lambda torch: [_two_gradients(torch, "bug"), _two_gradients(torch, "swapped"),
                              lambda: (torch.tensor(42.0),)])
def check_08_retain_graph(gradients):
    """Exercise 8.5: gradients() returns (dloss/dw, dloss/db) = (42, 14) without an error."""
    result, problem = _call(gradients, hint=_("autograd.grad frees the graph it walks, just "
                                               "as backward() does."))
    if problem is not None:
        return problem
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        return wrong(_("your function returned {value}; it should return two tensors: dw, db",
                       value=describe(result)))
    dw, db = result
    return all_of(
        expect_tensor(dw, what="dw", shape=(), values=42.0,
                      hints={"values": _("dw is the derivative of the loss with respect to w.")}),
        expect_tensor(db, what="db", shape=(), values=14.0,
                      hints={"values": _("db is the derivative of the loss with respect to b.")}),
        success=_("both gradients come from one graph: dw = 42 and db = 14."),
    )
