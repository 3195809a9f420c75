"""Checkers for the exercises of lesson 3, views, copies and in-place operations.

Used by solutions/03_views_copies_inplace.ipynb and the exercise notebook generated from it.
"""
from collections.abc import Mapping

import numpy as np

from exercises.checks.toolkit import (
    N_,
    _,
    as_values,
    checker,
    correct,
    describe,
    expect_items,
    expect_tensor,
    is_bool,
    is_number,
    n_,
    said,
    wrong,
    wrong_form,
)
from exercises.checks.shapes_indexing_broadcasting import _call, _function_and_tensor

# ---------------------------------------------------------------- 3.1 which share memory

def _storage(tensor):
    return tensor.untyped_storage().data_ptr()


def _sharing(torch):
    x = torch.arange(6.0).reshape(2, 3)
    made = {"a": x[1], "b": x[:, ::2], "c": x[[0, 1]], "d": x[x > 2], "e": x.T,
            "f": x.reshape(3, 2), "g": x.T.reshape(6), "h": x.to(torch.float64),
            "i": x.float()}
    return {name: _storage(t) == _storage(x) for name, t in made.items()}


SHARING_NAMES = tuple("abcdefghi")


@checker(right=_sharing,
         wrong=lambda torch: [
             dict(_sharing(torch), c=True, d=True),       # every indexing is a view
             dict(_sharing(torch), g=True),               # reshape always a view
             dict(_sharing(torch), i=False),              # every conversion copies
             {name: True for name in SHARING_NAMES},
             ["a", "b", "e", "f", "i"],                   # not a dict
             {name: str(v) for name, v in _sharing(torch).items()},  # "True" in quotes
             {name.upper(): v for name, v in _sharing(torch).items()},  # other keys
         ])
def check_03_shares_memory(prediction):
    """Exercise 3.1: for each of a ... i, True if it shares memory with x."""
    if not isinstance(prediction, Mapping):
        return wrong_form(_("your prediction"), prediction,
                          _('a dict that maps each name, "a" to "i", to True or False'))
    missing = [n for n in SHARING_NAMES if n not in prediction]
    if missing:
        others = [k for k in prediction if k not in SHARING_NAMES]
        names = ", ".join(repr(n) for n in missing)
        hint = _('use the names "a" to "i" as keys, in quotes.')
        if not others:
            return wrong(_("your dict has no answer for {names}", names=names), hint)
        return wrong(_("your dict has no answer for {names} (its other keys: {others})",
                       names=names, others=", ".join(repr(k) for k in others[:9])), hint)
    not_bool = [n for n in SHARING_NAMES if not is_bool(prediction[n])]
    if not_bool:
        return wrong_form(_("the answer for {name}", name=repr(not_bool[0])),
                          prediction[not_bool[0]], _("True or False"))
    expected = {"a": True, "b": True, "c": False, "d": False, "e": True, "f": True,
                "g": False, "h": False, "i": True}
    mistakes = sum(bool(prediction[n]) != expected[n] for n in SHARING_NAMES)
    if mistakes:
        return wrong(n_("{n} of your {count} answers is not right",
                        "{n} of your {count} answers are not right", mistakes,
                        count=len(SHARING_NAMES)),
                     _("plain indexing and shape changes that need no copy give views; index "
                       "lists, masks and conversions to another dtype copy."))
    return correct(_("all nine answers are right."))


# ---------------------------------------------------------------- 3.2 which changes reach a

def _in_place(torch):
    a = torch.zeros(2, 3)
    row, col, rows, flat = a[0], a[:, 2], a[[1]], a.reshape(6)
    row.add_(1)
    col.fill_(5)
    rows += 10
    flat[3] = 7
    return a.tolist()


IN_PLACE = [[1.0, 1.0, 5.0], [7.0, 0.0, 5.0]]
IN_PLACE_FORM = N_("a list of two rows of three numbers, like [[0, 0, 0], [0, 0, 0]]")
IN_PLACE_HINTS = {
    (0, 0): N_("row = a[0] is plain indexing: does add_ through it reach a?"),
    (0, 1): N_("row = a[0] is plain indexing: does add_ through it reach a?"),
    (0, 2): N_("row and col overlap there; the later change is the one that stays."),
    (1, 0): N_("flat = a.reshape(6) of a contiguous tensor: a view or a copy? Element 3 of flat "
               "is row 1, column 0 of a."),
    (1, 1): N_("rows = a[[1]] uses an index list: a view or a copy?"),
    (1, 2): N_("col = a[:, 2] is a slice; rows = a[[1]] uses an index list."),
}


@checker(right=_in_place,
         wrong=lambda torch: [
             [[1, 1, 5], [17, 10, 15]],     # the index list taken for a view
             [[1, 1, 5], [0, 0, 5]],        # reshape taken for a copy
             [[1, 1, 6], [7, 0, 5]],        # add_ after fill_
             [[0, 0, 0], [0, 0, 0]],        # nothing reaches a
             [1, 1, 5, 7, 0, 5],            # flat, not rows
         ])
def check_03_in_place(prediction):
    """Exercise 3.2: a's values after changes made through row, col, rows and flat."""
    values = None if isinstance(prediction, str) else as_values(prediction)
    if values is None or len(values) != len(IN_PLACE) or not all(
            isinstance(line, list) and len(line) == len(IN_PLACE[0]) for line in values):
        return wrong_form(_("your prediction"), prediction, _(IN_PLACE_FORM))
    for r, line in enumerate(values):
        for c, value in enumerate(line):
            if not is_number(value):
                return wrong_form(_("your value in row {r}, column {c}", r=r, c=c), value,
                                  _("a number"))
    mistakes = [(r, c) for r, line in enumerate(values) for c, value in enumerate(line)
                if abs(value - IN_PLACE[r][c]) > 1e-6]
    if mistakes:
        r, c = (1, 1) if (1, 1) in mistakes else mistakes[0]  # rows: the likeliest slip
        if len(mistakes) == 1:
            message = _("your value in row {r}, column {c} is not right", r=r, c=c)
        else:
            message = n_("your value in row {r}, column {c} is not right (and {n} other)",
                         "your value in row {r}, column {c} is not right (and {n} others)",
                         len(mistakes) - 1, r=r, c=c)
        return wrong(message, _(IN_PLACE_HINTS[(r, c)]))
    return correct(_("row, col and flat are views of a; rows is a copy."))


# ---------------------------------------------------------------- 3.3 view of a transpose

def _columns_fixed(torch):
    return (lambda m: m.T.reshape(-1)), torch.arange(6).reshape(2, 3)


@checker(right=_columns_fixed,
         wrong=lambda torch: [
             ((lambda m: m.T.view(-1)), torch.arange(6).reshape(2, 3)),   # the bug
             ((lambda m: m.view(-1)), torch.arange(6).reshape(2, 3)),     # rows, not columns
             ((lambda m: m.reshape(-1)), torch.arange(6).reshape(2, 3)),  # rows, not columns
         ])
def check_03_columns(answer):
    """Exercise 3.3: (columns_in_order, m): the function returns m's columns one after another."""
    parts = _function_and_tensor(answer, "columns_in_order", "m")
    if not isinstance(parts, tuple):
        return parts
    func, m = parts
    for name, sample in (("m", m), ("m.T", m.T), ("m.T.T", m.T.T)):
        result, problem = _call(func, sample, what=f"columns_in_order({name})")
        if problem is not None:
            return wrong(problem.message, _("view() cannot walk a transposed tensor's memory "
                                            "in order; which method copies when it has to?"))
        expected = np.asarray(sample.tolist()).T.reshape(-1)
        feedback = expect_tensor(result, what=_("columns_in_order({name})", name=name),
                                 shape=expected.shape, values=expected.tolist(),
                                 hints={"values": _("column 0 first, then column 1, and so on.")})
        if not feedback:
            return feedback
    return correct(_("columns_in_order works, also on transposed tensors."))


# ---------------------------------------------------------------- 3.4 a NumPy copy

def _scaled_buggy(t):
    n = t.numpy()
    n -= n.min()
    n /= n.max()
    return n


def _scaled_fixed(t):
    n = t.detach().numpy().copy()
    n -= n.min()
    n /= n.max()
    return n


def _scaled_in_place_detached(t):  # leaves the graph, but still writes into t
    n = t.detach().numpy()
    n -= n.min()
    n /= n.max()
    return n


def _scaled_copy_no_detach(t):  # copies, but .numpy() refuses a tensor that requires grad
    n = t.numpy().copy()
    n -= n.min()
    n /= n.max()
    return n


def _scaled_tensor(t):  # right numbers, but a tensor
    return (t - t.min()) / (t.max() - t.min())


READINGS = [2.0, 4.0, 6.0, 3.0]


def _readings(torch):
    return torch.tensor(READINGS)


def _scaled_expected(values):
    low, high = min(values), max(values)
    return [(v - low) / (high - low) for v in values]


@checker(right=lambda torch: (_scaled_fixed, _readings(torch)),
         wrong=lambda torch: [
             (_scaled_buggy, _readings(torch)),               # the bug
             (_scaled_in_place_detached, _readings(torch)),   # still writes into t
             (_scaled_copy_no_detach, _readings(torch)),      # fails with requires_grad
             (_scaled_tensor, _readings(torch)),              # not a NumPy array
             ((lambda t: t.detach().numpy().copy()), _readings(torch)),  # not scaled
         ])
def check_03_numpy_copy(answer):
    """Exercise 3.4: (scaled_copy, t): t scaled to 0 ... 1 as a NumPy array, t unchanged."""
    parts = _function_and_tensor(answer, "scaled_copy", "t")
    if not isinstance(parts, tuple):
        return parts
    func, t = parts
    plain = t.detach().clone()
    tracked = t.detach().float().clone().requires_grad_(True)
    for name, sample in (("t", plain), (N_("a tensor that requires grad"), tracked)):
        before = sample.tolist()
        result, problem = _call(func, sample, what=_("scaled_copy on {name}", name=_(name)))
        if problem is not None:
            return wrong(problem.message, _("a tensor that requires grad must leave the graph "
                                            "before it meets NumPy."))
        if sample.tolist() != before:
            return wrong(_("scaled_copy changed the tensor it was given ({name}): its values "
                           "are not the ones it had before", name=name),
                         _(".numpy() shares memory with the tensor, and -= and /= write into "
                           "that memory."))
        if not isinstance(result, np.ndarray):
            return wrong(_("scaled_copy returned {value}; it should return a NumPy array",
                           value=describe(result)))
        expected = _scaled_expected([float(v) for v in np.ravel(before)])
        if result.shape != (len(expected),):
            return wrong(_("scaled_copy's array for {name} has shape {shape}, which is not the "
                           "shape of the tensor it was given",
                           name=name, shape=tuple(result.shape)))
        off = [i for i, (got, want) in enumerate(zip(result.tolist(), expected))
               if not is_number(got) or abs(got - want) > 1e-6]
        if off:
            return wrong(_("scaled_copy's array for {name} has a wrong value at position {off}",
                           name=name, off=off[0]),
                         _("the smallest value should become 0 and the largest 1."))
    return correct(_("scaled_copy leaves its tensor alone, also one that requires grad."))


# ---------------------------------------------------------------- 3.5 contiguous or not

CONTIGUOUS_LABELS = ["a", "b", "c", "d", "e", "f"]


def _contiguity(torch):
    x = torch.arange(6).reshape(2, 3)
    made = [x.T, x[1], x[:, 1], x.T.contiguous(), x.unsqueeze(0), x[:, :2]]
    return [t.is_contiguous() for t in made]


CONTIGUOUS = [False, True, False, True, True, False]
CONTIGUOUS_HINTS = {
    "a": N_("read row by row, does x.T visit the storage in order?"),
    "b": N_("one whole row of x: its elements sit next to each other."),
    "c": N_("one column of x: how far apart are its elements in the storage?"),
    "d": N_("contiguous() copies when it has to."),
    "e": N_("a size-1 dimension never breaks the order."),
    "f": N_("after each row's first two elements, the third is skipped."),
}


@checker(right=_contiguity,
         wrong=lambda torch: [
             [True, True, True, True, True, True],      # every view is contiguous
             [False, True, True, True, True, False],    # a column looks like a row
             [False, True, False, False, True, False],  # contiguous() keeps the layout
             [False, True, False, True, True],          # too short
             ["False", "True", "False", "True", "True", "False"],  # in quotes
         ])
def check_03_contiguous(prediction):
    """Exercise 3.5: is_contiguous() of six tensors made from x, as a list of True/False."""
    return expect_items(prediction, CONTIGUOUS, CONTIGUOUS_LABELS, form=bool,
                        hints=said(CONTIGUOUS_HINTS))
