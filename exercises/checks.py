"""The toolkit exercise checkers are built from.

A learner solves an exercise, then calls its checker in the next cell::

    check_01_dtype_inference(answer)

and sees one of three results (a ``Feedback``):

    ✅ Correct: your answer has the right shape, dtype and values.
    ⏳ Not done yet: replace the ... with your answer, then run this cell again.
    ❌ Not quite: your answer has dtype torch.int64, which is not the dtype expected here.

A checker never raises for a wrong or unfinished answer, and never reveals the expected
value: it names the first property that is wrong (which value, which attribute) and may
add a hint written by the exercise's author.

Checkers never import torch. They look at answers only through what engine tensors and
PyTorch tensors share (``.shape``, ``str(.dtype)``, ``.tolist()``, ``.requires_grad``,
``.is_leaf``, ``.grad``, ``.grad_fn.name()``, ``.untyped_storage()``/``.data_ptr()``), so the
same notebooks run on the engine and, with ``make compare-torch``, on real PyTorch.

Writing a checker (one module per lesson, ``exercises/checks_NN_<lesson>.py``)::

    from exercises.checks import checker, expect_tensor

    @checker(right=lambda torch: torch.tensor([1.0, 2.0]),
             wrong=lambda torch: [torch.tensor([1, 2])])
    def check_01_dtype_inference(answer):
        \"\"\"Exercise 1.3: a tensor of the floats 1 and 2.\"\"\"
        return expect_tensor(answer, shape=(2,), dtype="torch.float32", values=[1.0, 2.0],
                             hints={"dtype": "which dtype does torch infer from 1.0?"})

``right`` and ``wrong`` take the tensor module (``engine`` or ``torch``) and return the right
answer and a list of plausible wrong answers; the tests run every registered checker on them
with both modules, and on a stub.
"""
from __future__ import annotations

import functools
import html
import importlib
import pkgutil
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

__all__ = [
    "CHECKERS",
    "Feedback",
    "all_of",
    "checker",
    "correct",
    "discover",
    "expect_equal",
    "expect_error",
    "expect_items",
    "expect_shares_memory",
    "expect_tensor",
    "is_stub",
    "is_tensor_like",
    "not_done",
    "wrong",
]

# --- results -----------------------------------------------------------------------

CORRECT, NOT_DONE, WRONG = "correct", "not_done", "wrong"

_LABELS = {
    CORRECT: ("✅", "Correct", "#e6f4ea", "#1e7e34"),
    NOT_DONE: ("⏳", "Not done yet", "#fff8e1", "#8a6d00"),
    WRONG: ("❌", "Not quite", "#fdecea", "#b00020"),
}

NOT_DONE_MESSAGE = "replace the ... with your answer, then run this cell again."


@dataclass(frozen=True)
class Feedback:
    """The result of a checker: ``status`` is "correct", "not_done" or "wrong".

    It is true only when correct (``assert check(answer)`` in tests), prints as one
    deterministic line (``str``/``repr``, which nbval compares) and shows as a coloured
    box in Jupyter (``_repr_html_``).
    """

    status: str
    message: str

    def __post_init__(self):
        if self.status not in _LABELS:
            raise ValueError(f"unknown status {self.status!r}")

    @property
    def ok(self) -> bool:
        return self.status == CORRECT

    @property
    def done(self) -> bool:
        return self.status != NOT_DONE

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        icon, label, _, _ = _LABELS[self.status]
        return f"{icon} {label}: {self.message}"

    __repr__ = __str__

    def _repr_html_(self) -> str:
        icon, label, background, colour = _LABELS[self.status]
        return (
            f'<div style="background:{background}; border-left:4px solid {colour}; '
            f'padding:6px 10px; margin:4px 0;">'
            f"{icon} <strong>{label}:</strong> {html.escape(self.message)}</div>"
        )


def _sentence(message: str, hint: str | None = None) -> str:
    message = message.strip()
    if message and message[-1] not in ".!?":
        message += "."
    if hint:
        message += f" Hint: {hint.strip()}"
    return message


def correct(message: str = "well done.") -> Feedback:
    return Feedback(CORRECT, _sentence(message))


def not_done(message: str = NOT_DONE_MESSAGE) -> Feedback:
    return Feedback(NOT_DONE, _sentence(message))


def wrong(message: str, hint: str | None = None) -> Feedback:
    return Feedback(WRONG, _sentence(message, hint))


def all_of(*results: Feedback, success: str | None = None) -> Feedback:
    """The first result that is not correct; if all are, one success (``success`` or theirs)."""
    for result in results:
        if not result.ok:
            return result
    if success is not None:
        return correct(success)
    return correct(" ".join(r.message for r in results) or "well done.")


# --- looking at answers ------------------------------------------------------------

_STUBS = (Ellipsis, NotImplemented)


def is_stub(value) -> bool:
    """True for an unfinished answer: ``...`` or ``NotImplemented``, or a tuple, list or
    dict (a multi-part answer) with such a part. ``None`` is an answer (``x.grad`` is often
    ``None``), never a blank."""
    if any(value is stub for stub in _STUBS):
        return True
    if isinstance(value, (tuple, list)) and not is_tensor_like(value):
        return any(is_stub(v) for v in value)
    if isinstance(value, dict):
        return any(is_stub(v) for v in value.values())
    return False


def is_tensor_like(value) -> bool:
    """True for engine and PyTorch tensors (anything with shape, dtype and tolist)."""
    return all(hasattr(value, name) for name in ("shape", "dtype", "tolist"))


def _dtype_name(dtype) -> str:
    name = str(dtype)
    return name if name.startswith("torch.") else f"torch.{name}"


def _shape_text(shape) -> str:
    dims = tuple(int(d) for d in shape)
    return str(dims) if len(dims) != 1 else f"({dims[0]},)"


def _plain(value):
    """Tensors (either kind) as nested lists; anything else unchanged."""
    return value.tolist() if is_tensor_like(value) else value


def _first_mismatch(actual, expected, atol: float, rtol: float) -> str | None:
    """None if ``actual`` (nested lists or a number) matches ``expected``; otherwise a
    description of the first differing value that shows only the learner's value."""
    a = np.asarray(actual)
    e = np.asarray(_plain(expected))
    if a.shape != e.shape:
        return f"it holds values of shape {_shape_text(a.shape)}, not the shape expected here"
    try:
        a_num = a.astype(np.int64) if a.dtype == bool else a
        e_num = e.astype(np.int64) if e.dtype == bool else e
        same = np.isclose(a_num, e_num, atol=atol, rtol=rtol, equal_nan=True)
    except (TypeError, ValueError):
        same = a == e
    same = np.asarray(same, dtype=bool)
    if same.all():
        return None
    bad = np.argwhere(~same)
    others = len(bad) - 1
    also = f" (and {others} other value{'s' if others > 1 else ''})" if others else ""
    if a.ndim == 0:
        return f"its value {a.item()!r} is not right"
    index = [int(i) for i in bad[0]]
    return f"the value at index {index} is {a[tuple(index)].item()!r}, which is not right{also}"


class _Unchecked:
    def __repr__(self):
        return "<not checked>"


UNCHECKED = _Unchecked()
"""Default of every property of ``expect_tensor``: not checked (``None`` means "is None")."""


def _read_grad(tensor):
    # torch warns when .grad of a non-leaf is read; the checker only looks.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tensor.grad


def _grad_fn_name(tensor) -> str | None:
    fn = tensor.grad_fn
    if fn is None:
        return None
    name = getattr(fn, "name", None)
    return name() if callable(name) else type(fn).__name__


def expect_tensor(
    answer,
    *,
    what: str = "your answer",
    shape=UNCHECKED,
    dtype=UNCHECKED,
    values=UNCHECKED,
    requires_grad=UNCHECKED,
    is_leaf=UNCHECKED,
    grad_fn=UNCHECKED,
    grad=UNCHECKED,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    hints: Mapping[str, str] | None = None,
) -> Feedback:
    """Check a tensor's properties, in this order, and name the first one that is wrong.

    ``shape``: a tuple (or Size); ``dtype``: a dtype or its name ("torch.float32" or
    "float32"); ``values``: nested lists, a number or a tensor, compared with ``atol``/
    ``rtol``; ``requires_grad``, ``is_leaf``: bools; ``grad_fn``: the node's name
    ("MulBackward0"; "MulBackward" matches any number) or None; ``grad``: the expected
    gradient's values, or None for "no gradient". Properties left out are not checked.
    ``hints`` maps a property name ("shape", "dtype", ...) to a hint shown when it is wrong.
    """
    hints = dict(hints or {})
    if is_stub(answer):
        return not_done()
    if not is_tensor_like(answer):
        return wrong(f"{what} is a {type(answer).__name__}, not a tensor", hints.get("type"))
    checked = []

    if shape is not UNCHECKED:
        checked.append("shape")
        if tuple(int(d) for d in answer.shape) != tuple(int(d) for d in shape):
            return wrong(f"{what} has shape {_shape_text(answer.shape)}, which is not the "
                         f"shape expected here", hints.get("shape"))
    if dtype is not UNCHECKED:
        checked.append("dtype")
        if _dtype_name(answer.dtype) != _dtype_name(dtype):
            return wrong(f"{what} has dtype {_dtype_name(answer.dtype)}, which is not the "
                         f"dtype expected here", hints.get("dtype"))
    if values is not UNCHECKED:
        checked.append("values")
        problem = _first_mismatch(answer.tolist(), values, atol, rtol)
        if problem:
            return wrong(f"{what} does not hold the expected values: {problem}",
                         hints.get("values"))
    if requires_grad is not UNCHECKED:
        checked.append("requires_grad")
        if bool(answer.requires_grad) != bool(requires_grad):
            return wrong(f"{what} has requires_grad={bool(answer.requires_grad)}, which is "
                         f"not right here", hints.get("requires_grad"))
    if is_leaf is not UNCHECKED:
        checked.append("is_leaf")
        if bool(answer.is_leaf) != bool(is_leaf):
            return wrong(f"{what} has is_leaf={bool(answer.is_leaf)}, which is not right here",
                         hints.get("is_leaf"))
    if grad_fn is not UNCHECKED:
        checked.append("grad_fn")
        name = _grad_fn_name(answer)
        if grad_fn is None:
            if name is not None:
                return wrong(f"{what} has a grad_fn ({name}), which is not right here",
                             hints.get("grad_fn"))
        elif name is None:
            return wrong(f"{what} has no grad_fn (it is None), which is not right here",
                         hints.get("grad_fn"))
        elif name != grad_fn and name.rstrip("0123456789") != grad_fn:
            return wrong(f"{what} has grad_fn {name}, which is not the operation expected here",
                         hints.get("grad_fn"))
    if grad is not UNCHECKED:
        checked.append("grad")
        actual = _read_grad(answer)
        if grad is None:
            if actual is not None:
                return wrong(f"{what} has a .grad, which is not right here", hints.get("grad"))
        elif actual is None:
            return wrong(f"{what} has no .grad (it is None), which is not right here",
                         hints.get("grad"))
        else:
            problem = _first_mismatch(actual.tolist(), grad, atol, rtol)
            if problem:
                return wrong(f"the .grad of {what} is not the expected gradient: {problem}",
                             hints.get("grad"))

    if not checked:
        return correct(f"{what} is a tensor.")
    listed = ", ".join(checked[:-1]) + (" and " if len(checked) > 1 else "") + checked[-1]
    return correct(f"{what} has the right {listed}.")


def _normalise(value):
    if type(value).__name__ == "dtype":  # engine.dtype and torch.dtype
        return _dtype_name(value)
    if isinstance(value, tuple):  # also engine.Size and torch.Size
        return tuple(_normalise(v) for v in value)
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    return value


def expect_equal(
    answer,
    expected,
    *,
    what: str = "your answer",
    atol: float | None = None,
    hint: str | None = None,
) -> Feedback:
    """Check a plain Python value (number, bool, string, tuple, shape, dtype, ...).

    dtypes compare by name and shapes as tuples, so engine and torch answers both work;
    numbers compare within ``atol`` when it is given. A tensor ``expected`` is checked
    with ``expect_tensor`` (shape, dtype and values).
    """
    if is_stub(answer):
        return not_done()
    if is_tensor_like(expected):
        return expect_tensor(answer, what=what, shape=expected.shape, dtype=expected.dtype,
                             values=expected.tolist(), hints={"values": hint} if hint else None)
    if is_tensor_like(answer):
        return wrong(f"{what} is a tensor; a plain Python value is expected here",
                     hint or "a one-element tensor's .item() gives its number.")
    if isinstance(expected, bool) != isinstance(answer, bool):
        kind = "True or False" if isinstance(expected, bool) else "not True or False"
        return wrong(f"{what} is {answer!r}; the answer here is {kind}", hint)
    a, e = _normalise(answer), _normalise(expected)
    if atol is not None and isinstance(a, (int, float)) and isinstance(e, (int, float)):
        same = bool(np.isclose(a, e, atol=atol, rtol=0, equal_nan=True))
    else:
        try:
            same = bool(a == e)
        except Exception:  # an answer whose == does not give one truth value
            same = False
    if same:
        return correct(f"{what} is {answer!r}.")
    return wrong(f"{what} is {answer!r}, which is not right", hint)


def _form_problem(value, form) -> str | None:
    """How ``value`` should be written when it is not of ``form``; None when it is."""
    if form is None:
        return None
    types = form if isinstance(form, tuple) and all(isinstance(f, type) for f in form) \
        else (form,) if isinstance(form, type) else None
    if types is not None:  # a type (or types): True is an int to Python, not to a learner
        if isinstance(value, types) and (bool in types or not isinstance(value, bool)):
            return None
        if bool in types:
            return "True or False"
        return "a number" if int in types or float in types else "a string, in quotes"
    if any(value == allowed and type(value) is type(allowed) for allowed in form):
        return None  # one of the allowed values
    return " or ".join(repr(allowed) for allowed in form)


def expect_items(
    answer,
    expected,
    labels,
    *,
    form=None,
    normalise: Callable | None = None,
    hints: Mapping[str, str] | None = None,
    what: str = "your prediction",
) -> Feedback:
    """Check a list (or tuple) of answers, one per label, item by item; name the first wrong
    item by its label, never its right value, and count the other wrong ones.

    ``form`` is what one item must be: a type or types (``bool``, ``(int, float)``, ``str``)
    or the allowed values (``("ok", "error")``); an item of another form is asked to be
    written as one. ``normalise`` maps given and expected items before they are compared
    (``"int64"`` and ``"torch.int64"`` the same). ``hints`` maps a label to a hint shown when
    that item is the first wrong one.
    """
    if is_stub(answer):
        return not_done()
    hints = dict(hints or {})
    count, names = len(expected), ", ".join(labels)
    if not isinstance(answer, (list, tuple)) or is_tensor_like(answer):
        return wrong(f"{what} is a {type(answer).__name__}; write a list of {count} values, "
                     f"one for each of {names}")
    if len(answer) != count:
        return wrong(f"{what} has {len(answer)} values; give one for each of {names}, "
                     f"in that order")
    mistakes = []
    for label, got, want in zip(labels, answer, expected):
        problem = _form_problem(got, form)
        if problem:
            return wrong(f"{what} for {label} is {got!r}; write it as {problem}")
        if normalise is not None:
            got, want = normalise(got), normalise(want)
        if got != want or isinstance(got, bool) != isinstance(want, bool):
            mistakes.append(label)
    if not mistakes:
        return correct(f"all {count} predictions are right.")
    others = len(mistakes) - 1
    also = f" ({others} other{'s are' if others > 1 else ' is'} not right either)" \
        if others else ""
    return wrong(f"{what} for {mistakes[0]} is not right{also}", hints.get(mistakes[0]))


def _error_matches(error: BaseException, error_type) -> bool:
    types = error_type if isinstance(error_type, tuple) else (error_type,)
    for t in types:
        if isinstance(t, str):
            if any(cls.__name__ == t for cls in type(error).__mro__):
                return True
        elif isinstance(error, t):
            return True
    return False


def expect_error(
    func,
    error_type,
    phrase: str | None = None,
    *,
    what: str = "your code",
    hint: str | None = None,
) -> Feedback:
    """Check that calling ``func()`` raises ``error_type`` (a class, a class name or a tuple)
    with ``phrase`` in its message (case-insensitive); the phrase is never shown."""
    if is_stub(func):
        return not_done()
    if not callable(func):
        return wrong(f"{what} is a {type(func).__name__}; a function is expected here "
                     f"(for example lambda: ...)", hint)
    try:
        result = func()
    except Exception as error:  # the learner's error is what is being checked
        name = type(error).__name__
        message = str(error).strip().splitlines()[0] if str(error).strip() else ""
        if not _error_matches(error, error_type):
            return wrong(f"{what} raised {name}, which is not the error this exercise is about",
                         hint)
        if phrase is not None and phrase.lower() not in str(error).lower():
            return wrong(f"{what} raised {name}, but not for the reason this exercise is about "
                         f"(its message: {message!r})", hint)
        return correct(f"{what} raised {name}: {message}" if message else f"{what} raised {name}.")
    if result is Ellipsis or result is NotImplemented:
        return not_done()
    return wrong(f"{what} ran without raising an error", hint)


def _storage_ptr(tensor) -> int:
    storage = getattr(tensor, "untyped_storage", None)
    if callable(storage):
        return storage().data_ptr()
    return tensor.data_ptr()


def expect_shares_memory(a, b, expected: bool, *, what: str = "the two tensors",
                         hint: str | None = None) -> Feedback:
    """Check whether tensors ``a`` and ``b`` share memory (the same storage) or not."""
    if is_stub(a) or is_stub(b):
        return not_done()
    for tensor in (a, b):
        if not is_tensor_like(tensor):
            return wrong(f"{what} should both be tensors, but one is a {type(tensor).__name__}",
                         hint)
    shared = _storage_ptr(a) == _storage_ptr(b)
    if shared == bool(expected):
        state = "share memory" if shared else "do not share memory"
        return correct(f"{what} {state}.")
    if shared:
        return wrong(f"{what} share memory: writing into one changes the other, which is not "
                     f"right here", hint)
    return wrong(f"{what} do not share memory: writing into one leaves the other unchanged, "
                 f"which is not right here", hint)


# --- checkers and their registry ---------------------------------------------------

CHECKERS: dict[str, Callable] = {}
"""Every registered checker by name (``check_NN_...``); ``discover()`` fills it."""


def checker(func=None, *, right=None, wrong=None):
    """Register a checker: ``@checker`` or ``@checker(right=..., wrong=...)``.

    The decorated function takes the learner's answer and returns a ``Feedback``. The
    wrapper answers "not done yet" for a stub without calling it, and turns an exception
    raised while inspecting an odd answer into a "not quite" instead of a traceback.
    ``right(torch)`` returns the right answer and ``wrong(torch)`` a list of plausible wrong
    ones, built with the given tensor module; the tests use them.
    """
    def register(f):
        name = f.__name__
        if not name.startswith("check_"):
            raise ValueError(f"a checker's name starts with 'check_': {name}")
        known = CHECKERS.get(name)
        if known is not None and known.__module__ != f.__module__:
            raise ValueError(f"two checkers named {name}: in {known.__module__} "
                             f"and {f.__module__}")

        @functools.wraps(f)
        def run(answer):
            if is_stub(answer):
                return not_done()
            try:
                result = f(answer)
            except Exception as error:  # an answer the checker could not inspect
                return Feedback(WRONG, _sentence(
                    f"the checker could not inspect your answer "
                    f"({type(error).__name__}: {error})"))
            if not isinstance(result, Feedback):
                raise TypeError(f"{name} returned {type(result).__name__}, not Feedback")
            return result

        run.right = right
        run.wrong = wrong
        CHECKERS[name] = run
        return run

    return register(func) if func is not None else register


def discover() -> dict[str, Callable]:
    """Import every ``exercises.checks_*`` module and return the registry."""
    package = importlib.import_module("exercises")
    for module in pkgutil.iter_modules(package.__path__):
        if module.name.startswith("checks_"):
            importlib.import_module(f"exercises.{module.name}")
    return dict(CHECKERS)
