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

An answer written in another form than the one asked for (a string for a number, 1 for True,
None, a NumPy array where a tensor is expected, ...) is told about its form, in plain words,
never about its value: ``describe(value)`` says what a value is ("the string "True"", "a list
of 2 values", "a NumPy array of shape (3,)"), ``wrong_form(what, value, "True or False")``
says what to write instead, and ``unpack`` asks for the tuple a check cell passes. Equivalent
forms count as the same answer: ``as_values`` reads a list, tuple, NumPy array or tensor of
values, ``as_number`` a NumPy number (or a one-element tensor, where that is the natural
reading). The wrapper's last-resort message for an answer that made a checker fail is never
meant to be reached.

Writing a checker (one module per lesson, ``exercises/checks/<lesson>.py``)::

    from exercises.checks.toolkit import checker, expect_tensor

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
import importlib
import numbers
import os
import pkgutil
import sys
import warnings
from collections.abc import (Callable, ItemsView, Iterable, Iterator, KeysView, Mapping,
                             Sized, ValuesView)

import numpy as np

from exercises.checks.answer_cells import install, stale_answer
from exercises.checks.feedback import (WRONG, Feedback, _sentence, correct, not_checked, not_done,
                                       wrong)
from exercises.checks.i18n import N_, _, n_

__all__ = [
    "CHECKERS",
    "Feedback",
    "NotCorrect",
    "all_of",
    "as_number",
    "as_values",
    "call_quietly",
    "checker",
    "correct",
    "describe",
    "discover",
    "expect_equal",
    "expect_error",
    "expect_items",
    "expect_shares_memory",
    "expect_tensor",
    "all_right",
    "either",
    "is_bool",
    "is_function",
    "is_number",
    "is_stub",
    "is_tensor_like",
    "library_of",
    "not_checked",
    "not_done",
    "not_right",
    "nth",
    "joined",
    "n_",
    "N_",
    "_",
    "plural",
    "said",
    "unpack",
    "wrong",
    "wrong_form",
]

# --- results (Feedback and its four kinds are in feedback.py) ------------------------

def all_of(*results: Feedback, success: str | None = None) -> Feedback:
    """The first result that is not correct; if all are, one success (``success`` or theirs)."""
    for result in results:
        if not result.ok:
            return result
    if success is not None:
        return correct(success)
    return correct(joined(r.message for r in results) or _("well done."))


def joined(sentences) -> str:
    """Sentences one after another, as the language writes them (a space in English)."""
    sentences = list(sentences)
    text = sentences[0] if sentences else ""
    for sentence in sentences[1:]:
        text = _("{first} {second}", first=text, second=sentence)
    return text


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
    """True for engine and PyTorch tensors (anything with shape, dtype and tolist that is not
    a NumPy array or NumPy number)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return False
    return all(hasattr(value, name) for name in ("shape", "dtype", "tolist"))


# --- describing answers in plain words ---------------------------------------------

def call_quietly(function):
    """``(result, None)`` or ``(None, error)`` of ``function()``: the learner's code is what is
    being checked, so its errors become feedback, and its warnings are not the check's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return function(), None
        except Exception as error:  # the learner's code is being checked
            return None, error


def library_of(value):
    """The module (engine or torch) a tensor or parameter comes from, or None: a checker
    builds what it compares with in the learner's own library, never importing either."""
    root = type(value).__module__.split(".")[0]
    return sys.modules.get(root) if root in ("engine", "torch") else None


def plural(count: int, word: str, words: str | None = None) -> str:
    """``plural(1, "value")`` is "1 value", ``plural(2, "value")`` "2 values". English only:
    a message says a count with ``n_`` (i18n.py), a whole sentence for each count."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def is_bool(value) -> bool:
    """True for True and False (also NumPy's)."""
    return isinstance(value, (bool, np.bool_))


def is_number(value) -> bool:
    """True for a plain number (int or float, also NumPy's); never for True or False."""
    return isinstance(value, numbers.Real) and not is_bool(value)


def _number_text(value) -> str:
    value = value.item() if isinstance(value, np.generic) else value
    return repr(value) if isinstance(value, float) else str(value)


def _quoted(text: str) -> str:
    return f'"{text}"' if '"' not in text else repr(text)


def _is_dtype(value) -> bool:
    return type(value).__name__ == "dtype"  # engine.dtype and torch.dtype


def _is_node(value) -> bool:
    return hasattr(value, "next_functions") and callable(getattr(value, "name", None))


def is_function(value) -> bool:
    """True for a function (``def`` or ``lambda``, a method, ...), the answer of an exercise
    that asks for one; False for a class, a model, a tensor or a graph node, which can be
    called too."""
    return callable(value) and not isinstance(value, type) and not is_tensor_like(value) \
        and not callable(getattr(value, "parameters", None)) and not _is_node(value)


def describe(value) -> str:
    """What ``value`` is, in plain words a learner knows, to follow "is" or "not": "None",
    "True", "the number 3", 'the string "abc"', "a list of 2 values", "a dict with keys 'a',
    'b'", "a tensor of shape (3,)", "a NumPy array of shape (2, 3)", "a function", ...

    It shows the learner's own value only when it is short (a number, a short string)."""
    if value is None:
        return "None"
    if value is Ellipsis:
        return "..."
    if is_bool(value):
        return str(bool(value))
    if is_number(value):
        return _("the number {number}", number=_number_text(value))
    if isinstance(value, str):
        if not value.strip():
            return _("an empty string") if not value else _("a string of spaces")
        if len(value) <= 40 and "\n" not in value:
            return _("the string {text}", text=_quoted(value))
        return _("a string")
    if is_tensor_like(value):
        shape = tuple(int(d) for d in value.shape)
        return _("a tensor holding one number") if shape == () else \
            _("a tensor of shape {shape}", shape=_shape_text(shape))
    if isinstance(value, np.ndarray):
        return _("a NumPy array holding one value") if value.ndim == 0 else \
            _("a NumPy array of shape {shape}", shape=_shape_text(value.shape))
    if _is_dtype(value):
        return _("the dtype {dtype}", dtype=_dtype_name(value))
    if type(value).__name__ == "Size":  # engine.Size and torch.Size
        return _("the shape {shape}", shape=_shape_text(value))
    if isinstance(value, Mapping):
        keys = list(value)
        if not keys:
            return _("an empty dict")
        shown = ", ".join(repr(k) for k in keys[:6]) + (", ..." if len(keys) > 6 else "")
        return n_("a dict with key {keys}", "a dict with keys {keys}", len(keys), keys=shown)
    if isinstance(value, (list, tuple, set, frozenset)):
        count = len(value)
        if isinstance(value, list):
            return n_("a list of {n} value", "a list of {n} values", count) if value \
                else _("an empty list")
        if isinstance(value, tuple):
            return n_("a tuple of {n} value", "a tuple of {n} values", count) if value \
                else _("an empty tuple")
        return n_("a set of {n} value", "a set of {n} values", count) if value \
            else _("an empty set")
    if isinstance(value, KeysView):
        return _("the keys of a dict (list(...) makes a list of them)")
    if isinstance(value, ValuesView):
        return _("the values of a dict (list(...) makes a list of them)")
    if isinstance(value, ItemsView):
        return _("the items of a dict (list(...) makes a list of them)")
    if isinstance(value, type):
        return _("the class {name}", name=value.__name__)
    bases = {cls.__name__ for cls in type(value).__mro__}
    if "Module" in bases:
        return _("a model ({name})", name=type(value).__name__)
    if "Optimizer" in bases:
        return _("an optimizer ({name})", name=type(value).__name__)
    if _is_node(value):
        try:
            return _("a graph node ({name})", name=value.name())
        except Exception:  # a node-like object whose name() fails
            return _("a graph node")
    if isinstance(value, Iterator):
        return _("a generator (list(...) makes a list of its values)")
    if callable(value):
        return _("a function")
    if isinstance(value, Sized) and isinstance(value, Iterable):
        return n_("a collection of {n} value", "a collection of {n} values", len(value))
    name = type(value).__name__
    return _("a plain object") if name == "object" else _("a {name} object", name=name)


_ORDINALS = (N_("first"), N_("second"), N_("third"), N_("fourth"), N_("fifth"), N_("sixth"),
             N_("seventh"), N_("eighth"), N_("ninth"), N_("tenth"))


def nth(index: int) -> str:
    """The position of item ``index`` (from 0) in words: "first", "second", ... (to fill a
    message's ``{nth}``: "the {nth} value")."""
    return _(_ORDINALS[index]) if 0 <= index < len(_ORDINALS) else \
        _("number {number}", number=index + 1)


def wrong_form(what: str, value, wanted: str, hint: str | None = None) -> Feedback:
    """A "not quite" for an answer written in the wrong form, about its form only:
    ``wrong_form("your prediction for a", "True", "True or False")`` says 'your prediction
    for a should be True or False, not the string "True"'."""
    return wrong(_("{what} should be {wanted}, not {value}", what=what, wanted=wanted,
                   value=describe(value)), hint)


def as_number(value, *, tensors: bool = False):
    """``value`` as a plain Python number (NumPy numbers and one-value NumPy arrays too; a
    one-element tensor too when ``tensors``), or None when it is not one. Never True/False."""
    if is_number(value):
        return value.item() if isinstance(value, np.generic) else value
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iuf":
        return value.reshape(()).item()
    if tensors and is_tensor_like(value) and "bool" not in str(value.dtype):
        try:
            number = value.tolist()
        except Exception:  # a tensor-like object that cannot list its values
            return None
        while isinstance(number, list) and len(number) == 1:
            number = number[0]
        return number if is_number(number) else None
    return None


def _plain_item(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray) or is_tensor_like(value):
        try:
            return value.tolist()
        except Exception:  # a tensor-like object that cannot list its values
            return value
    if isinstance(value, (list, tuple)):
        return [_plain_item(v) for v in value]
    return value


def as_values(value) -> list | None:
    """The values of a list, a tuple, a NumPy array or a tensor (either kind) as a plain
    Python list (nested for more dimensions; NumPy numbers become Python numbers), or None
    when ``value`` is none of these (or has no dimension)."""
    if isinstance(value, (list, tuple)):
        return [_plain_item(v) for v in value]
    if isinstance(value, np.ndarray) or is_tensor_like(value):
        try:
            values = value.tolist()
        except Exception:  # a tensor-like object that cannot list its values
            return None
        return values if isinstance(values, list) else None
    return None


def _unreadable(error: BaseException) -> str:
    """What a checker says when an answer made it fail: plain words, no error's text (the
    checkers handle the answers they expect; this is the last resort for the others)."""
    del error  # its text is the checker's business, not the learner's
    return _("the check cannot read this answer: it is not written the way the exercise asks. "
             "Compare it with the form shown in the exercise, then run both cells again")


def unpack(answer, names, *, what: str | None = None):
    """``answer`` as a tuple of ``len(names)`` parts (a list is fine too), or the Feedback
    that asks for that tuple: ``unpack(answer, ("x", "d"))``."""
    count = len(names)
    if is_stub(answer):
        return not_done()
    if isinstance(answer, (tuple, list)) and not is_tensor_like(answer) \
            and len(answer) == count:
        return tuple(answer)
    what = _("the check") if what is None else what
    values = dict(names=", ".join(names), what=what, value=describe(answer))
    if count == 2:
        return wrong(_("pass the pair ({names}) to {what}, not {value}", **values))
    return wrong(_("pass the tuple ({names}) to {what}, not {value}", **values))


_DTYPE_ALIASES = {"float": "float32", "double": "float64", "half": "float16", "long": "int64",
                  "int": "int32", "short": "int16", "cfloat": "complex64",
                  "cdouble": "complex128"}


def _dtype_name(dtype) -> str:
    """A dtype's full name: a dtype, "torch.int64", "int64" and "torch.long" all give
    "torch.int64"."""
    name = str(dtype).strip()
    name = name[len("torch."):] if name.startswith("torch.") else name
    return f"torch.{_DTYPE_ALIASES.get(name, name)}"


def _shape_text(shape) -> str:
    dims = tuple(int(d) for d in shape)
    return str(dims) if len(dims) != 1 else f"({dims[0]},)"


def _first_mismatch(actual, expected, atol: float, rtol: float) -> str | None:
    """None if ``actual`` (nested lists or a number) matches ``expected``; otherwise a
    description of the first differing value that shows only the learner's value."""
    a = np.asarray(actual)
    e = np.asarray(_plain_item(expected))
    if a.shape != e.shape:
        return _("it holds values of shape {shape}, not the shape expected here",
                 shape=_shape_text(a.shape))
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
    if a.ndim == 0:
        return _("its value {value} is not right", value=repr(a.item()))
    index = [int(i) for i in bad[0]]
    value = repr(a[tuple(index)].item())
    if not others:
        return _("the value at index {index} is {value}, which is not right", index=index,
                 value=value)
    return n_("the value at index {index} is {value}, which is not right (and {n} other value)",
              "the value at index {index} is {value}, which is not right (and {n} other values)",
              others, index=index, value=value)


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


# The properties expect_tensor checks, as a success message lists them.
_PROPERTIES = {"shape": N_("shape"), "dtype": N_("dtype"), "values": N_("values"),
               "requires_grad": N_("requires_grad"), "is_leaf": N_("is_leaf"),
               "grad_fn": N_("grad_fn"), "grad": N_("grad")}


def expect_tensor(
    answer,
    *,
    what: str | None = None,
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
    what = _("your answer") if what is None else what
    if is_stub(answer):
        return not_done()
    if not is_tensor_like(answer):
        return wrong(_("{what} is {value}, not a tensor", what=what, value=describe(answer)),
                     hints.get("type"))
    checked = []

    if shape is not UNCHECKED:
        checked.append("shape")
        if tuple(int(d) for d in answer.shape) != tuple(int(d) for d in shape):
            return wrong(_("{what} has shape {shape}, which is not the shape expected here",
                           what=what, shape=_shape_text(answer.shape)), hints.get("shape"))
    if dtype is not UNCHECKED:
        checked.append("dtype")
        if _dtype_name(answer.dtype) != _dtype_name(dtype):
            return wrong(_("{what} has dtype {dtype}, which is not the dtype expected here",
                           what=what, dtype=_dtype_name(answer.dtype)), hints.get("dtype"))
    if values is not UNCHECKED:
        checked.append("values")
        problem = _first_mismatch(answer.tolist(), values, atol, rtol)
        if problem:
            return wrong(_("{what} does not hold the expected values: {problem}", what=what,
                           problem=problem), hints.get("values"))
    if requires_grad is not UNCHECKED:
        checked.append("requires_grad")
        if bool(answer.requires_grad) != bool(requires_grad):
            return wrong(_("{what} has requires_grad={value}, which is not right here",
                           what=what, value=bool(answer.requires_grad)),
                         hints.get("requires_grad"))
    if is_leaf is not UNCHECKED:
        checked.append("is_leaf")
        if bool(answer.is_leaf) != bool(is_leaf):
            return wrong(_("{what} has is_leaf={value}, which is not right here", what=what,
                           value=bool(answer.is_leaf)), hints.get("is_leaf"))
    if grad_fn is not UNCHECKED:
        checked.append("grad_fn")
        name = _grad_fn_name(answer)
        if grad_fn is None:
            if name is not None:
                return wrong(_("{what} has a grad_fn ({name}), which is not right here",
                               what=what, name=name), hints.get("grad_fn"))
        elif name is None:
            return wrong(_("{what} has no grad_fn (it is None), which is not right here",
                           what=what), hints.get("grad_fn"))
        elif name != grad_fn and name.rstrip("0123456789") != grad_fn:
            return wrong(_("{what} has grad_fn {name}, which is not the operation expected "
                           "here", what=what, name=name), hints.get("grad_fn"))
    if grad is not UNCHECKED:
        checked.append("grad")
        actual = _read_grad(answer)
        if grad is None:
            if actual is not None:
                return wrong(_("{what} has a .grad, which is not right here", what=what),
                             hints.get("grad"))
        elif actual is None:
            return wrong(_("{what} has no .grad (it is None), which is not right here",
                           what=what), hints.get("grad"))
        else:
            problem = _first_mismatch(actual.tolist(), grad, atol, rtol)
            if problem:
                return wrong(_("the .grad of {what} is not the expected gradient: {problem}",
                               what=what, problem=problem), hints.get("grad"))

    if not checked:
        return correct(_("{what} is a tensor.", what=what))
    # the properties are attribute names (shape, dtype, values, requires_grad, ...): a list
    # of words in the sentence's language ("shape, dtype and values")
    checked = [_(_PROPERTIES[name]) for name in checked]
    if len(checked) == 1:
        listed = checked[0]
    else:
        listed = _("{items} and {last}", items=_(", ").join(checked[:-1]), last=checked[-1])
    return correct(_("{what} has the right {properties}.", what=what, properties=listed))


def _normalise(value):
    if type(value).__name__ == "dtype":  # engine.dtype and torch.dtype
        return _dtype_name(value)
    if isinstance(value, tuple):  # also engine.Size and torch.Size
        return tuple(_normalise(v) for v in value)
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    return value


def _shown(value) -> str:
    """The learner's value as they would write it: NumPy numbers as plain numbers, shapes as
    tuples, dtypes by name."""
    if _is_dtype(value):
        return _dtype_name(value)
    if type(value).__name__ == "Size":
        return _shape_text(value)
    if isinstance(value, tuple):
        inner = ", ".join(_shown(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    if isinstance(value, np.generic):
        return repr(value.item())
    return repr(value)


def _wanted(expected) -> str:
    """How a value like ``expected`` is written, said to a learner."""
    if is_bool(expected):
        return _("True or False")
    if is_number(expected):
        return _("a number")
    if isinstance(expected, str):
        return _("a string, in quotes")
    if _is_dtype(expected):
        return _("a dtype, such as torch.float32")
    if isinstance(expected, (list, tuple)):
        return n_("a list of {n} value", "a list of {n} values", len(expected))
    return _("a value of the kind the exercise asks for")


def expect_equal(
    answer,
    expected,
    *,
    what: str | None = None,
    atol: float | None = None,
    hint: str | None = None,
) -> Feedback:
    """Check a plain Python value (number, bool, string, list, tuple, shape, dtype, ...).

    dtypes compare by name (a dtype or its name, "torch.int64" or "int64"), shapes and other
    sequences as lists (a list, a tuple, a NumPy array or a tensor of the values), NumPy
    numbers as numbers; numbers compare within ``atol`` when it is given. An answer of
    another kind (a string for a number, a number for True or False, ...) is told what to
    write instead (without ``hint``, which is about the value). A tensor ``expected`` is
    checked with ``expect_tensor`` (shape, dtype and values).
    """
    if is_stub(answer):
        return not_done()
    what = _("your answer") if what is None else what
    if is_tensor_like(expected):
        return expect_tensor(answer, what=what, shape=expected.shape, dtype=expected.dtype,
                             values=expected.tolist(), hints={"values": hint} if hint else None)
    wanted = _wanted(expected)
    if isinstance(expected, (list, tuple)):
        values = None if isinstance(answer, str) else as_values(answer)
        if values is None:
            return wrong_form(what, answer, wanted)
        a, e = _normalise(values), _normalise(_plain_item(expected))
    else:
        if is_number(expected) and is_tensor_like(answer):
            return wrong_form(what, answer, wanted,
                              _("a one-element tensor's .item() gives its number."))
        if _is_dtype(expected) or _is_dtype(answer):  # a dtype or its name
            if not (_is_dtype(answer) or isinstance(answer, str)):
                return wrong_form(what, answer, wanted)
            if isinstance(expected, str) or _is_dtype(expected):
                expected = _dtype_name(expected)
        if is_bool(expected) != is_bool(answer) \
                or (is_number(expected) and not is_number(answer)) \
                or (isinstance(expected, str) and not isinstance(answer, str)
                    and not _is_dtype(answer)):
            return wrong_form(what, answer, wanted)
        a, e = _normalise(_plain_item(answer)), _normalise(expected)
        if isinstance(e, str) and e.startswith("torch.") and isinstance(a, str):
            a = _dtype_name(a)
    if atol is not None and is_number(a) and is_number(e):
        same = bool(np.isclose(a, e, atol=atol, rtol=0, equal_nan=True))
    else:
        try:
            same = bool(a == e)
        except Exception:  # an answer whose == does not give one truth value
            same = False
    shown = _shown(answer if isinstance(answer, (list, tuple))
                   or not isinstance(expected, (list, tuple)) else values)
    if same:
        return correct(_("{what} is {value}.", what=what, value=shown))
    return wrong(_("{what} is {value}, which is not right", what=what, value=shown), hint)


def _form_problem(value, form) -> str | None:
    """How ``value`` should be written when it is not of ``form``; None when it is."""
    if form is None:
        return None
    if callable(form) and not isinstance(form, type):
        return form(value)
    types = form if isinstance(form, tuple) and all(isinstance(f, type) for f in form) \
        else (form,) if isinstance(form, type) else None
    if types is not None:  # a type (or types): True is an int to Python, not to a learner
        if bool in types and is_bool(value):
            return None
        if (int in types or float in types) and is_number(value):
            return None
        if isinstance(value, types) and not is_bool(value):
            return None
        if bool in types:
            return _("True or False")
        return _("a number") if int in types or float in types else _("a string, in quotes")
    if any(value == allowed and type(value) is type(allowed) for allowed in form):
        return None  # one of the allowed values
    return either(_quoted(a) if isinstance(a, str) else repr(a) for a in form)


def either(choices) -> str:
    """Choices a learner may write, said as the language says them ("A or B or C")."""
    choices = list(choices)
    text = choices[0] if choices else ""
    for choice in choices[1:]:
        text = _("{choices} or {choice}", choices=text, choice=choice)
    return text


def expect_items(
    answer,
    expected,
    labels,
    *,
    form=None,
    normalise: Callable | None = None,
    hints: Mapping[str, str] | None = None,
    what: str | None = None,
) -> Feedback:
    """Check a list of answers, one per label, item by item; name the first wrong item by
    its label, never its right value, and count the other wrong ones. A tuple, a NumPy
    array or a tensor of the items is as good as a list.

    ``form`` is what one item must be: a type or types (``bool``, ``(int, float)``, ``str``),
    the allowed values (``("ok", "error")``), or a function that returns how an item of
    another form should be written (None when it is fine); an item of another form is asked
    to be written as one. ``normalise`` maps given and expected items before they are
    compared (``"int64"`` and ``"torch.int64"`` the same). ``hints`` maps a label to a hint
    shown when that item is the first wrong one.
    """
    if is_stub(answer):
        return not_done()
    hints = dict(hints or {})
    own_what = what is not None
    what = _("your prediction") if what is None else what
    count, names = len(expected), ", ".join(labels)
    values = None if isinstance(answer, (str, Mapping)) else as_values(answer)
    if values is None:
        return wrong_form(what, answer, n_("a list of {n} value, one for each of {names}",
                                           "a list of {n} values, one for each of {names}",
                                           count, names=names))
    if len(values) != count:
        if not values:
            return wrong(_("{what} is empty; give one for each of {names}, in that order",
                           what=what, names=names))
        return wrong(n_("{what} has {n} value; give one for each of {names}, in that order",
                        "{what} has {n} values; give one for each of {names}, in that order",
                        len(values), what=what, names=names))
    mistakes = []
    for label, got, want in zip(labels, values, expected):
        problem = _form_problem(got, form)
        if problem:
            part = _("{what} for {label}", what=what, label=label) if own_what else \
                _("your prediction for {label}", label=label)
            return wrong_form(part, got, problem)
        if normalise is not None:
            got, want = normalise(got), normalise(want)
        if got != want or is_bool(got) != is_bool(want):
            mistakes.append(label)
    if not mistakes:
        return correct(all_right(count))
    part = _("{what} for {label}", what=what, label=mistakes[0]) if own_what else \
        _("your prediction for {label}", label=mistakes[0])
    return wrong(not_right(part, len(mistakes) - 1), hints.get(mistakes[0]))


def said(texts: Mapping) -> dict:
    """A mapping of messages marked with ``N_`` (a module's hints by label), translated now."""
    return {key: _(text) for key, text in texts.items()}


def all_right(count: int) -> str:
    """"all 5 predictions are right." (a checker's success)."""
    return n_("all {n} predictions are right.", "all {n} predictions are right.", count)


def not_right(what: str, others: int) -> str:
    """"{what} is not right", and how many other parts are not right either."""
    if not others:
        return _("{what} is not right", what=what)
    return n_("{what} is not right ({n} other is not right either)",
              "{what} is not right ({n} others are not right either)", others, what=what)


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
    what: str | None = None,
    hint: str | None = None,
) -> Feedback:
    """Check that calling ``func()`` raises ``error_type`` (a class, a class name or a tuple)
    with ``phrase`` in its message (case-insensitive); the phrase is never shown."""
    if is_stub(func):
        return not_done()
    what = _("your code") if what is None else what
    if not is_function(func):
        return wrong_form(what, func, _("a function (for example lambda: ...)"), hint)
    try:
        result = func()
    except Exception as error:  # the learner's error is what is being checked
        name = type(error).__name__
        message = str(error).strip().splitlines()[0] if str(error).strip() else ""
        if not _error_matches(error, error_type):
            return wrong(_("{what} raised {error}, which is not the error this exercise is "
                           "about", what=what, error=name), hint)
        if phrase is not None and phrase.lower() not in str(error).lower():
            return wrong(_("{what} raised {error}, but not for the reason this exercise is "
                           "about (its message: {message})", what=what, error=name,
                           message=repr(message)), hint)
        return correct(_("{what} raised {error}: {message}", what=what, error=name,
                         message=message) if message else
                       _("{what} raised {error}.", what=what, error=name))
    if result is Ellipsis or result is NotImplemented:
        return not_done()
    return wrong(_("{what} ran without raising an error", what=what), hint)


def _storage_ptr(tensor) -> int:
    storage = getattr(tensor, "untyped_storage", None)
    if callable(storage):
        return storage().data_ptr()
    return tensor.data_ptr()


def expect_shares_memory(a, b, expected: bool, *, what: str | None = None,
                         hint: str | None = None) -> Feedback:
    """Check whether tensors ``a`` and ``b`` share memory (the same storage) or not."""
    if is_stub(a) or is_stub(b):
        return not_done()
    what = _("the two tensors") if what is None else what
    for tensor in (a, b):
        if not is_tensor_like(tensor):
            return wrong(_("{what} should both be tensors, but one is {value}", what=what,
                           value=describe(tensor)), hint)
    shared = _storage_ptr(a) == _storage_ptr(b)
    if shared == bool(expected):
        return correct(_("{what} share memory.", what=what) if shared else
                       _("{what} do not share memory.", what=what))
    if shared:
        return wrong(_("{what} share memory: writing into one changes the other, which is not "
                       "right here", what=what), hint)
    return wrong(_("{what} do not share memory: writing into one leaves the other unchanged, "
                   "which is not right here", what=what), hint)


# --- checkers and their registry ---------------------------------------------------

CHECKERS: dict[str, Callable] = {}
"""Every registered checker by name (``check_NN_...``); ``discover()`` fills it."""


# nbgrader's autograde (and validate) give a graded cell its points when it runs without an
# error, and set this variable while they run a notebook: there a verdict other than correct
# raises, with the same words. In a learner's notebook (unset) the verdict shows as always.
NBGRADER_EXECUTION = "NBGRADER_EXECUTION"


class NotCorrect(AssertionError):
    """Raised by a checker, under nbgrader only, for a verdict other than correct."""


def nbgrader_verdict(result: Feedback):
    """A verdict as nbgrader grades it: not correct raises (no points), with the verdict's
    words; correct is shown (displayed, not the cell's value: nbgrader reads a graded cell's
    value as partial credit, and warns that a value it cannot read as a number may one day
    be an error)."""
    if not result.ok:
        raise NotCorrect(str(result))
    shell = sys.modules.get("IPython")
    shell = shell.get_ipython() if shell is not None else None
    if shell is None:
        return result
    from IPython.display import display

    display(result)
    return None


def checker(func=None, *, right=None, wrong=None):
    """Register a checker: ``@checker`` or ``@checker(right=..., wrong=...)``.

    The decorated function takes the learner's answer and returns a ``Feedback``. The
    wrapper answers "not done yet" for a stub without calling it, and turns an exception
    raised while inspecting an odd answer into a "not quite" instead of a traceback. Under
    nbgrader (``NBGRADER_EXECUTION`` set) a verdict other than correct raises ``NotCorrect``
    with the same message, as nbgrader's graded cells do.
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

        def judge(answer):
            stale = stale_answer(name)
            if stale is not None:  # never a verdict on an answer the learner no longer sees
                return not_checked(stale)
            if is_stub(answer):
                return not_done()
            try:
                result = f(answer)
            except Exception as error:  # an answer the checker could not inspect
                return Feedback(WRONG, _sentence(_unreadable(error)))
            if not isinstance(result, Feedback):
                raise TypeError(f"{name} returned {type(result).__name__}, not Feedback")
            return result

        @functools.wraps(f)
        def run(answer):
            result = judge(answer)
            if os.environ.get(NBGRADER_EXECUTION):
                return nbgrader_verdict(result)
            return result

        run.right = right
        run.wrong = wrong
        CHECKERS[name] = run
        return run

    return register(func) if func is not None else register


def discover() -> dict[str, Callable]:
    """Import every module of ``exercises.checks`` (each lesson's checkers) and return the
    registry."""
    package = importlib.import_module("exercises.checks")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"exercises.checks.{module.name}")
    return dict(CHECKERS)


# In a notebook, start the log of cell runs that tells each check whether its answer cell ran
# without an error (exercises/checks/answer_cells.py); outside IPython this does nothing.
install()
