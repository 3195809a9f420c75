"""Checkers for the exercises of lesson 2, shapes, indexing and broadcasting.

Used by solutions/02_shapes_indexing_broadcasting.ipynb and the exercise notebook generated
from it. The fix-the-bug helpers ``_call`` and ``_function_and_tensor`` are shared with
lesson 3 (views_copies_inplace.py).
"""
import ast
import inspect
import textwrap

import numpy as np

from exercises.checks.toolkit import (
    N_,
    _,
    _shape_text,
    _shown,
    all_of,
    checker,
    correct,
    describe,
    expect_items,
    expect_tensor,
    is_function,
    is_number,
    is_tensor_like,
    n_,
    not_done,
    said,
    unpack,
    wrong,
    wrong_form,
)
from exercises.checks.creating_tensors import _as_dtype_name, _dtype_form

# ---------------------------------------------------------------- 2.1 broadcast shapes

BROADCASTS = [((4, 1), (3,)), ((5, 1, 3), (4, 1)), ((3,), (3, 1)), ((2, 3), (2, 1))]


def _broadcast_shapes(torch):
    return [tuple((torch.ones(*a) + torch.ones(*b)).shape) for a, b in BROADCASTS]


def _size(value):
    """A size written as a whole number (4, 4.0, NumPy's), as an int; None otherwise."""
    if not is_number(value) or float(value) != int(value):
        return None
    return int(value)


def _as_shape(value):
    """A shape written as a tuple, list, Size or NumPy array of sizes, as a tuple of ints;
    None if it is not one."""
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = value.tolist()
    if not isinstance(value, (tuple, list)):
        return None
    sizes = tuple(_size(d) for d in value)
    return None if None in sizes else sizes


SHAPE_FORM = N_("a tuple of sizes, like (1, 2)")


@checker(right=_broadcast_shapes,
         wrong=lambda torch: [
             [(4, 3), (5, 4, 3), (3,), (2, 3)],        # (3,) with (3, 1) kept as (3,)
             [(4, 1), (5, 1, 3), (3, 1), (2, 3)],      # the larger input's shape
             [(4, 3), (5, 4, 3), (3, 3), (2, 2)],      # lined up on the left
             (4, 3),                                   # one shape, not a list
             ["(4, 3)", "(5, 4, 3)", "(3, 3)", "(2, 3)"],  # shapes in quotes
             [(4, 3), (5, 4, 3), 3, (2, 3)],           # a size alone, not a shape
         ])
def check_02_broadcast_shapes(prediction):
    """Exercise 2.1: the shapes of four broadcast results, as a list of tuples."""
    count = len(BROADCASTS)
    if not isinstance(prediction, (list, tuple)):
        return wrong_form(_("your prediction"), prediction,
                          _("a list of four shapes, one tuple per line, like [(1, 2), ...]"))
    if prediction and _as_shape(prediction) is not None:
        return wrong(_("your prediction, {shown}, is one shape; write a list of four shapes, "
                       "one per line, like [(1, 2), ...]", shown=_shown(prediction)))
    if len(prediction) != count:
        if not prediction:
            return wrong(_("your list is empty; write one for each of the {count} lines",
                           count=count))
        return wrong(n_("your list has {n} shape; write one for each of the {count} lines",
                        "your list has {n} shapes; write one for each of the {count} lines",
                        len(prediction), count=count))
    expected = [tuple(np.broadcast_shapes(a, b)) for a, b in BROADCASTS]
    for number, (shape, right_shape) in enumerate(zip(prediction, expected), start=1):
        a, b = BROADCASTS[number - 1]
        if _as_shape(shape) is None:
            return wrong_form(_("your shape for line {number}", number=number), shape,
                              _(SHAPE_FORM))
        if _as_shape(shape) != right_shape:
            return wrong(_("your shape for line {number}, {a} with {b}, is {shown}, which is "
                           "not right", number=number, a=a, b=b, shown=_shown(shape)),
                         _("line the two shapes up on the right; a missing size counts as 1."))
    return correct(_("all four broadcast shapes are right."))


# ---------------------------------------------------------------- 2.2 indexing

def _indexing(torch):
    x = torch.arange(20).reshape(4, 5)
    return (x[:, -1], x[1:-1, 1:-1], x[(x > 10) & (x % 2 == 0)],
            x[[0, 0, -1, -1], [0, -1, 0, -1]])


@checker(right=_indexing,
         wrong=lambda torch: [
             (torch.arange(20).reshape(4, 5)[:, -1:],) + _indexing(torch)[1:],  # keeps a dim
             _indexing(torch)[:1] + (torch.arange(20).reshape(4, 5)[1:3, 1:3],)
             + _indexing(torch)[2:],                                           # stop excluded
             _indexing(torch)[:2] + (torch.tensor([10, 12, 14, 16, 18]),)
             + _indexing(torch)[3:],                                           # >= instead of >
             _indexing(torch)[:3] + (torch.tensor([[0, 4], [15, 19]]),),       # a 2x2 block
         ])
def check_02_indexing(answer):
    """Exercise 2.2: (last_col, inner, big_evens, corners) from x = arange(20).reshape(4, 5)."""
    parts = unpack(answer, ("last_col", "inner", "big_evens", "corners"))
    if not isinstance(parts, tuple):
        return parts
    last_col, inner, big_evens, corners = parts
    return all_of(
        expect_tensor(last_col, what="last_col", shape=(4,), values=[4, 9, 14, 19],
                      hints={"shape": _("a single index, not a slice, removes its dimension.")}),
        expect_tensor(inner, what="inner", shape=(2, 3), values=[[6, 7, 8], [11, 12, 13]],
                      hints={"shape": _("a slice's stop is excluded; negative stops count from "
                                        "the end.")}),
        expect_tensor(big_evens, what="big_evens", shape=(4,), values=[12, 14, 16, 18],
                      hints={"shape": _("combine two masks with &, each in parentheses; "
                                        "'greater than 10' leaves 10 out.")}),
        expect_tensor(corners, what="corners", shape=(4,), values=[0, 4, 15, 19],
                      hints={"shape": _("two index lists pair up, one element per pair.")}),
        success=_("last_col, inner, big_evens and corners are all right."),
    )


# ---------------------------------------------------------------- 2.3 permute and reshape

def _layouts(torch):
    hwc = torch.arange(24).reshape(2, 3, 4)
    chw = hwc.permute(2, 0, 1)
    return chw, hwc.reshape(6, 4), chw.reshape(4, 6)


@checker(right=_layouts,
         wrong=lambda torch: [
             (torch.arange(24).reshape(4, 2, 3),) + _layouts(torch)[1:],   # reshape, not permute
             _layouts(torch)[:2] + (torch.arange(24).reshape(4, 6),),       # reshape of hwc
             (_layouts(torch)[0], torch.arange(24).reshape(2, 3, 4).reshape(4, 6),
              _layouts(torch)[2]),                                          # pixels as (4, 6)
         ])
def check_02_layouts(answer):
    """Exercise 2.3: (chw, pixels, channel_rows) from hwc = arange(24).reshape(2, 3, 4)."""
    parts = unpack(answer, ("chw", "pixels", "channel_rows"))
    if not isinstance(parts, tuple):
        return parts
    chw, pixels, channel_rows = parts
    hwc = np.arange(24).reshape(2, 3, 4)
    moved = np.transpose(hwc, (2, 0, 1))
    order_hint = (_("reshape keeps the order in which elements are read; to move a dimension "
                    "to the front, reorder the dimensions instead."))
    return all_of(
        expect_tensor(chw, what="chw", shape=(4, 2, 3), values=moved.tolist(),
                      hints={"shape": _("channels first, then height, then width: each chw[k] "
                                        "is a 2 × 3 picture."),
                             "values": order_hint}),
        expect_tensor(pixels, what="pixels", shape=(6, 4), values=hwc.reshape(6, 4).tolist(),
                      hints={"shape": _("one row per pixel (2 × 3 of them), one column per "
                                        "channel.")}),
        expect_tensor(channel_rows, what="channel_rows", shape=(4, 6),
                      values=moved.reshape(4, 6).tolist(),
                      hints={"values": _("row k should hold all the pixels of channel k: start "
                                         "from chw.")}),
        success=_("chw, pixels and channel_rows are right."),
    )


# ---------------------------------------------------------------- fix-the-bug helpers

def _call(func, *args, what=None):
    """(result, None) or (None, Feedback) when func is not a function or raises."""
    what = _("your function") if what is None else what
    if not is_function(func):
        return None, wrong(_("{what} is {value}, not a function", what=what, value=describe(func)))
    try:
        result = func(*args)
    except Exception as error:  # the learner's bug is what this exercise is about
        message = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return None, wrong(_("calling {what} raised {name}: {message}",
                             what=what, name=type(error).__name__, message=message))
    if result is None:
        return None, wrong(_("{what} returned None: does the function end with return?", what=what))
    return result, None


def _function_and_tensor(answer, function_name, tensor_name):
    """The pair (function, tensor) the check cell passes, or the Feedback saying what it is
    not."""
    parts = unpack(answer, (function_name, tensor_name))
    if not isinstance(parts, tuple):
        return parts
    func, tensor = parts
    if not is_function(func):
        return wrong(_("{function_name} is {value}; pass the function itself, without calling "
                       "it", function_name=function_name, value=describe(func)))
    if not is_tensor_like(tensor):
        return wrong(_("{tensor_name} is {value}, not a tensor: pass the {tensor_name} of the "
                       "exercise", tensor_name=tensor_name, value=describe(tensor)))
    return parts


# ---------------------------------------------------------------- 2.4 a broadcasting bug

SCORES = [[1.0, 2.0, 3.0], [10.0, 20.0, 30.0], [0.0, 0.0, 6.0]]


def _center_fixed(torch):
    return (lambda x: x - x.mean(dim=1, keepdim=True)), torch.tensor(SCORES)


@checker(right=_center_fixed,
         wrong=lambda torch: [
             ((lambda x: x - x.mean(dim=1)), torch.tensor(SCORES)),                # the bug
             ((lambda x: x - x.mean(dim=0, keepdim=True)), torch.tensor(SCORES)),  # columns
             ((lambda x: x - x.mean()), torch.tensor(SCORES)),                     # overall mean
         ])
def check_02_center_rows(answer):
    """Exercise 2.4: (center_rows, scores): subtract from each row its own mean."""
    parts = _function_and_tensor(answer, "center_rows", "scores")
    if not isinstance(parts, tuple):
        return parts
    func, scores = parts
    for name, sample in (("scores", scores), ("scores[:2]", scores[:2]),
                         ("scores[:, :2]", scores[:, :2])):
        result, problem = _call(func, sample, what=f"center_rows({name})")
        if problem is not None:
            return wrong(problem.message, _("look at the shape of the row means, and at how it "
                                            "lines up with x."))
        values = np.asarray(sample.tolist())
        expected = values - values.mean(axis=1, keepdims=True)
        feedback = expect_tensor(result, what=_("center_rows({name})", name=name),
                                 shape=expected.shape,
                                 values=expected.tolist(), atol=1e-5,
                                 hints={"values": _("each row should have mean 0 and keep the "
                                                    "differences between its own elements; "
                                                    "print the row means' shape.")})
        if not feedback:
            return feedback
    return correct(_("center_rows subtracts each row's own mean, for any number of rows."))


# ---------------------------------------------------------------- 2.5 which dtype comes out

PROMOTION_LABELS = ["a", "b", "c", "d", "e"]


def _promotions(torch):
    ints, i32 = torch.tensor([1, 2]), torch.tensor([1, 2], dtype=torch.int32)
    made = [ints / 2, ints // 2, i32 + 10, i32 + 0.5,
            torch.ones(2) + torch.ones(2, dtype=torch.float64)]
    return [str(t.dtype) for t in made]


PROMOTIONS = ["torch.float32", "torch.int64", "torch.int32", "torch.float32", "torch.float64"]
PROMOTION_HINTS = {
    "a": N_("/ is always true division."),
    "b": N_("// rounds down and keeps integers integers."),
    "c": N_("a Python number of the same kind does not change a tensor's dtype."),
    "d": N_("a Python float against integers gives the default floating-point dtype."),
    "e": N_("between two tensors of the same kind, the wider dtype wins."),
}


@checker(right=_promotions,
         wrong=lambda torch: [
             ["torch.int64", "torch.int64", "torch.int32", "torch.float32", "torch.float64"],
             ["torch.float32", "torch.int64", "torch.int64", "torch.float32", "torch.float64"],
             ["torch.float32", "torch.int64", "torch.int32", "torch.float64", "torch.float64"],
             ["torch.float32", "torch.int64", "torch.int32", "torch.float32", "torch.float32"],
             ["torch.float32", "torch.int64"],                   # too short
             [float, int, int, float, float],                    # Python's types
         ])
def check_02_promotion(prediction):
    """Exercise 2.5: the dtypes of five results, as a list of names such as "torch.int64"."""
    return expect_items(prediction, PROMOTIONS, PROMOTION_LABELS, form=_dtype_form,
                        normalise=_as_dtype_name, hints=said(PROMOTION_HINTS))


# ---------------------------------------------------------------- 2.6-2.9 puzzles
# Each puzzle is a function the check calls on random inputs of several shapes, made with the
# tensor module of the example the check cell passes (the engine or PyTorch alike). The rule
# of the puzzles, "broadcasting and indexing only", is read from the function's source: no
# Python loop or comprehension, and not the ready-made function that solves it.

LOOPS = (ast.For, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
NOT_ALLOWED = {"outer", "ger", "eye", "cdist", "diag", "diagonal", "diag_embed", "einsum",
               "tensordot", "repeat", "tile", "tolist", "numpy", "item", "kron", "cartesian_prod"}


def _source_problem(func, name):
    """Why ``func`` breaks the puzzles' rule, or None (also when its source cannot be read)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, LOOPS):
            return _("{name} uses a Python loop or comprehension; the puzzle asks for "
                     "broadcasting and indexing only", name=name)
        called = node.attr if isinstance(node, ast.Attribute) else \
            node.id if isinstance(node, ast.Name) else None
        if called in NOT_ALLOWED:
            return _("{name} uses {called}, which the puzzle asks you to do without", name=name,
                     called=called)
    return None


def _random_inputs(example, shapes, seed):
    """Tensors of these shapes, of the example's module and dtype, with small random values."""
    generator = np.random.default_rng(seed)
    return [example.new_tensor(np.round(generator.uniform(-3, 3, shape), 1).tolist())
            for shape in shapes]


def _puzzle(answer, name, reference, input_shapes, hint):
    """Check a puzzle: (function, example input, ...) from the check cell; the function must
    follow the rule and agree with ``reference`` (NumPy) on every case of ``input_shapes``."""
    if not isinstance(answer, tuple) or len(answer) < 2 or not is_tensor_like(answer[1]):
        return wrong(_("pass ({name}, and the example tensors of the exercise) to the check, "
                       "as the check cell does, not {value}", name=name, value=describe(answer)))
    func, example = answer[0], answer[1]
    if not is_function(func):
        return wrong(_("{name} is {value}, not a function: pass the function itself, without "
                       "calling it", name=name, value=describe(func)))
    problem = _source_problem(func, name)
    if problem is not None:
        return wrong(problem, hint)
    for case, shapes in enumerate(input_shapes):
        inputs = list(answer[1:]) if case == 0 else _random_inputs(example, shapes, case)
        shown = ", ".join(_shape_text(tuple(t.shape)) for t in inputs)
        result, problem = _call(func, *inputs, what=_("{name} on inputs of shape {shapes}",
                                                          name=name, shapes=shown))
        if problem is not None:
            return problem if case else wrong(problem.message, hint)
        if result is Ellipsis:
            return not_done()
        expected = reference(*(np.asarray(t.tolist(), dtype=float) for t in inputs))
        feedback = expect_tensor(result, what=_("{name} on inputs of shape {shapes}",
                                                name=name, shapes=shown),
                                 shape=expected.shape, values=expected.tolist(), atol=1e-4,
                                 hints={"shape": hint, "values": hint})
        if not feedback:
            return feedback
    return correct(_("{name} works for every shape the check tried, with broadcasting alone.",
                     name=name))


def _outer_fixed(torch):
    return (lambda a, b: a[:, None] * b), torch.tensor([1.0, 2.0, 3.0]), torch.tensor([10.0, 20.0])


@checker(right=_outer_fixed,
         wrong=lambda torch: [
             ((lambda a, b: a * b), torch.tensor([1.0, 2.0, 3.0]), torch.tensor([10.0, 20.0])),
             ((lambda a, b: a[None, :] * b[:, None]), torch.tensor([1.0, 2.0, 3.0]),
              torch.tensor([10.0, 20.0])),                                   # transposed
             ((lambda a, b: torch.outer(a, b)), torch.tensor([1.0, 2.0, 3.0]),
              torch.tensor([10.0, 20.0])),                                   # the ready-made one
             ((lambda a, b: torch.stack([x * b for x in a])), torch.tensor([1.0, 2.0, 3.0]),
              torch.tensor([10.0, 20.0])),                                   # a loop
         ])
def check_02_outer(answer):
    """Exercise 2.6: outer(a, b)[i, j] == a[i] * b[j], for vectors of any lengths."""
    return _puzzle(answer, "outer", np.multiply.outer, [None, ((4,), (5,)), ((1,), (3,)),
                                                        ((6,), (1,))],
                   _("give a a dimension of size 1 on the right (a[:, None]) and let * line it "
                     "up against b."))


def _eye_fixed(torch):
    return lambda n: (torch.arange(n)[:, None] == torch.arange(n)).float()


@checker(right=_eye_fixed,
         wrong=lambda torch: [
             lambda n: torch.arange(n)[:, None] == torch.arange(n),          # booleans
             lambda n: torch.eye(n),                                         # the ready-made one
             lambda n: (torch.arange(n)[:, None] >= torch.arange(n)).float(),  # a triangle
         ])
def check_02_eye(eye):
    """Exercise 2.7: eye(n), the n x n identity as float32, from arange and a comparison."""
    if not is_function(eye):
        return wrong(_("eye is {value}, not a function: pass the function itself, without "
                       "calling it", value=describe(eye)))
    hint = (_("compare a column of row numbers, arange(n)[:, None], with a row of column "
              "numbers, arange(n); a comparison gives booleans: .float() makes them numbers."))
    problem = _source_problem(eye, "eye")
    if problem is not None:
        return wrong(problem, hint)
    for n in (3, 1, 5):
        result, problem = _call(eye, n, what=f"eye({n})")
        if problem is not None:
            return problem
        if result is Ellipsis:
            return not_done()
        feedback = expect_tensor(result, what=_("eye({n})", n=n), shape=(n, n), dtype="float32",
                                 values=np.eye(n).tolist(), hints={"dtype": hint,
                                                                   "values": hint})
        if not feedback:
            return feedback
    return correct(_("eye(n) is the identity for every n the check tried, from a comparison "
                     "alone."))


def _distances_fixed(torch):
    return ((lambda x, y: ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1)),
            torch.tensor([[0.0, 0.0], [3.0, 4.0]]), torch.tensor([[0.0, 1.0], [1.0, 1.0],
                                                                  [3.0, 0.0]]))


def _distances_reference(x, y):
    return ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1)


@checker(right=_distances_fixed,
         wrong=lambda torch: [
             ((lambda x, y: ((x - y) ** 2).sum(-1)), *_distances_fixed(torch)[1:]),  # no new dims
             ((lambda x, y: ((x[:, None, :] - y[None, :, :]) ** 2).sum(0)),
              *_distances_fixed(torch)[1:]),                                  # the wrong dim
             ((lambda x, y: ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1).sqrt()),
              *_distances_fixed(torch)[1:]),                                  # not squared
         ])
def check_02_distances(answer):
    """Exercise 2.8: distances(x, y)[i, j] = squared distance between the rows x[i], y[j]."""
    return _puzzle(answer, "distances", _distances_reference,
                   [None, ((4, 3), (5, 3)), ((1, 2), (6, 2)), ((5, 1), (2, 1))],
                   _("x[i] - y[j] for every pair is x[:, None, :] - y[None, :, :], of shape "
                     "(n, m, d); then square and add up the last dimension."))


def _diagonal_fixed(torch):
    return (lambda a: a[torch.arange(a.shape[0]), torch.arange(a.shape[0])]), \
        torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])


@checker(right=_diagonal_fixed,
         wrong=lambda torch: [
             ((lambda a: a[0]), _diagonal_fixed(torch)[1]),                   # the first row
             ((lambda a: a[:, torch.arange(a.shape[0])][0]), _diagonal_fixed(torch)[1]),
             ((lambda a: a.diagonal()), _diagonal_fixed(torch)[1]),           # the ready-made one
         ])
def check_02_diagonal(answer):
    """Exercise 2.9: diagonal(a) = [a[0, 0], a[1, 1], ...] for a square a, by indexing."""
    return _puzzle(answer, "diagonal", np.diagonal, [None, ((4, 4),), ((1, 1),), ((6, 6),)],
                   _("index with two tensors of row and column numbers: m[rows, columns] picks "
                     "one element per pair."))
