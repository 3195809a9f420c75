"""Checkers for the exercises of lesson 2, shapes, indexing and broadcasting.

Used by solutions/02_shapes_indexing_broadcasting.ipynb and the exercise notebook generated
from it. The fix-the-bug helpers ``_call`` and ``_function_and_tensor`` are shared with
lesson 3 (checks_03_views_copies_inplace.py).
"""
import numpy as np

from exercises.checks import (_shown, all_of, checker, correct, describe, expect_items,
                              expect_tensor, is_function, is_number, is_tensor_like, plural,
                              unpack, wrong, wrong_form)
from exercises.checks_01_creating_tensors import _as_dtype_name, _dtype_form

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


SHAPE_FORM = "a tuple of sizes, like (1, 2)"


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
        return wrong_form("your prediction", prediction,
                          "a list of four shapes, one tuple per line, like [(1, 2), ...]")
    if prediction and _as_shape(prediction) is not None:
        return wrong(f"your prediction, {_shown(prediction)}, is one shape; write a list of "
                     f"four shapes, one per line, like [(1, 2), ...]")
    if len(prediction) != count:
        has = "is empty" if not prediction else f"has {plural(len(prediction), 'shape')}"
        return wrong(f"your list {has}; write one for each of the {count} lines")
    expected = [tuple(np.broadcast_shapes(a, b)) for a, b in BROADCASTS]
    for number, (shape, right_shape) in enumerate(zip(prediction, expected), start=1):
        a, b = BROADCASTS[number - 1]
        if _as_shape(shape) is None:
            return wrong_form(f"your shape for line {number}", shape, SHAPE_FORM)
        if _as_shape(shape) != right_shape:
            return wrong(f"your shape for line {number}, {a} with {b}, is {_shown(shape)}, "
                         f"which is not right",
                         "line the two shapes up on the right; a missing size counts as 1.")
    return correct("all four broadcast shapes are right.")


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
                      hints={"shape": "a single index, not a slice, removes its dimension."}),
        expect_tensor(inner, what="inner", shape=(2, 3), values=[[6, 7, 8], [11, 12, 13]],
                      hints={"shape": "a slice's stop is excluded; negative stops count "
                                      "from the end."}),
        expect_tensor(big_evens, what="big_evens", shape=(4,), values=[12, 14, 16, 18],
                      hints={"shape": "combine two masks with &, each in parentheses; "
                                      "'greater than 10' leaves 10 out."}),
        expect_tensor(corners, what="corners", shape=(4,), values=[0, 4, 15, 19],
                      hints={"shape": "two index lists pair up, one element per pair."}),
        success="last_col, inner, big_evens and corners are all right.",
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
    order_hint = ("reshape keeps the order in which elements are read; to move a dimension "
                  "to the front, reorder the dimensions instead.")
    return all_of(
        expect_tensor(chw, what="chw", shape=(4, 2, 3), values=moved.tolist(),
                      hints={"shape": "channels first, then height, then width: each "
                                      "chw[k] is a 2 × 3 picture.",
                             "values": order_hint}),
        expect_tensor(pixels, what="pixels", shape=(6, 4), values=hwc.reshape(6, 4).tolist(),
                      hints={"shape": "one row per pixel (2 × 3 of them), one column per "
                                      "channel."}),
        expect_tensor(channel_rows, what="channel_rows", shape=(4, 6),
                      values=moved.reshape(4, 6).tolist(),
                      hints={"values": "row k should hold all the pixels of channel k: start "
                                       "from chw."}),
        success="chw, pixels and channel_rows are right.",
    )


# ---------------------------------------------------------------- fix-the-bug helpers

def _call(func, *args, what="your function"):
    """(result, None) or (None, Feedback) when func is not a function or raises."""
    if not is_function(func):
        return None, wrong(f"{what} is {describe(func)}, not a function")
    try:
        result = func(*args)
    except Exception as error:  # the learner's bug is what this exercise is about
        message = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return None, wrong(f"calling {what} raised {type(error).__name__}: {message}")
    if result is None:
        return None, wrong(f"{what} returned None: does the function end with return?")
    return result, None


def _function_and_tensor(answer, function_name, tensor_name):
    """The pair (function, tensor) the check cell passes, or the Feedback saying what it is
    not."""
    parts = unpack(answer, (function_name, tensor_name))
    if not isinstance(parts, tuple):
        return parts
    func, tensor = parts
    if not is_function(func):
        return wrong(f"{function_name} is {describe(func)}; pass the function itself, without "
                     f"calling it")
    if not is_tensor_like(tensor):
        return wrong(f"{tensor_name} is {describe(tensor)}, not a tensor: pass the "
                     f"{tensor_name} of the exercise")
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
            return wrong(problem.message, "look at the shape of the row means, and at how it "
                                          "lines up with x.")
        values = np.asarray(sample.tolist())
        expected = values - values.mean(axis=1, keepdims=True)
        feedback = expect_tensor(result, what=f"center_rows({name})", shape=expected.shape,
                                 values=expected.tolist(), atol=1e-5,
                                 hints={"values": "each row should have mean 0 and keep the "
                                                  "differences between its own elements; "
                                                  "print the row means' shape."})
        if not feedback:
            return feedback
    return correct("center_rows subtracts each row's own mean, for any number of rows.")


# ---------------------------------------------------------------- 2.5 which dtype comes out

PROMOTION_LABELS = ["a", "b", "c", "d", "e"]


def _promotions(torch):
    ints, i32 = torch.tensor([1, 2]), torch.tensor([1, 2], dtype=torch.int32)
    made = [ints / 2, ints // 2, i32 + 10, i32 + 0.5,
            torch.ones(2) + torch.ones(2, dtype=torch.float64)]
    return [str(t.dtype) for t in made]


PROMOTIONS = ["torch.float32", "torch.int64", "torch.int32", "torch.float32", "torch.float64"]
PROMOTION_HINTS = {
    "a": "/ is always true division.",
    "b": "// rounds down and keeps integers integers.",
    "c": "a Python number of the same kind does not change a tensor's dtype.",
    "d": "a Python float against integers gives the default floating-point dtype.",
    "e": "between two tensors of the same kind, the wider dtype wins.",
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
                        normalise=_as_dtype_name, hints=PROMOTION_HINTS)
