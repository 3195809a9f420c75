"""Checkers for the exercises of lesson 1, Creating tensors (solutions/01_creating_tensors)."""
import numpy as np

from exercises.checks.toolkit import (
    N_,
    _,
    _dtype_name,
    all_of,
    checker,
    correct,
    describe,
    expect_items,
    expect_tensor,
    is_function,
    is_tensor_like,
    said,
    wrong,
)


def _as_dtype_name(value):
    """'torch.int64', 'int64', 'torch.long' and a dtype object all mean the same dtype."""
    return _dtype_name(str(value).strip().lower())


def _dtype_form(value):
    """None for a dtype or its name; otherwise how to write one."""
    if isinstance(value, str) or type(value).__name__ == "dtype":
        return None
    return _('a dtype name in quotes, such as "torch.bool"')


# --- Exercise 1.1: predict dtypes -------------------------------------------------------

DTYPE_LABELS = ["a", "b", "c", "d", "e", "f"]
DTYPES = ["torch.int64", "torch.float32", "torch.float64", "torch.int64", "torch.float32",
          "torch.int64"]
DTYPE_HINTS = {
    "a": N_("which dtype do Python integers become?"),
    "b": N_("one float among integers changes the whole tensor."),
    "c": N_("torch.tensor keeps a NumPy array's dtype; what is NumPy's float?"),
    "d": N_("full infers its dtype from the fill value."),
    "e": N_("arange's dtype follows its arguments."),
    "f": N_("*_like copies the dtype of the tensor it is given."),
}


@checker(
    right=lambda torch: list(DTYPES),
    wrong=lambda torch: [
        ["torch.int64", "torch.int64", "torch.float64", "torch.int64", "torch.float32",
         "torch.int64"],                                   # b: one float is enough
        ["torch.int64", "torch.float32", "torch.float32", "torch.int64", "torch.float32",
         "torch.int64"],                                   # c: NumPy floats stay float64
        ["torch.int64", "torch.float32", "torch.float64", "torch.float32", "torch.float32",
         "torch.float32"],                                 # d, f: full/zeros_like give float
        ["torch.int64", "torch.float32", "torch.float64"],  # too short
        "torch.int64",                                     # not a list
        [int, float, float, int, float, int],              # Python's types, not dtypes
    ],
)
def check_01_predict_dtypes(prediction):
    """Exercise 1.1: the dtypes of six tensors, as a list of names such as "torch.int64"."""
    return expect_items(prediction, DTYPES, DTYPE_LABELS, form=_dtype_form,
                        normalise=_as_dtype_name, hints=said(DTYPE_HINTS))


# --- Exercise 1.2: predict lengths ------------------------------------------------------

LENGTH_LABELS = ["a", "b", "c", "d", "e", "f"]
LENGTHS = [4, 5, 10, 3, 10, 7]
LENGTH_HINTS = {
    "a": N_("is arange's end included?"),
    "b": N_("linspace's third argument is not a step size."),
    "c": N_("with one argument, arange counts from 0 and stops before it."),
    "d": N_("logspace's third argument is not a step size either."),
    "e": N_("0.1 ten times reaches the end; is it included here? Try ceil((end - start) / step)."),
    "f": N_("compute (2.2 - 1) / 0.2 in Python, then round up."),
}


@checker(
    right=lambda torch: list(LENGTHS),
    wrong=lambda torch: [
        [5, 5, 10, 3, 10, 7],    # a: the end included
        [4, 4, 10, 3, 10, 7],    # b: linspace read as a step
        [4, 5, 10, 3, 10, 6],    # f: the floating-point trap missed
        [4, 5, 10, 3],           # too short
        (4, 5, 10, 3, 10, "7"),  # a string among the numbers
    ],
)
def check_01_predict_lengths(prediction):
    """Exercise 1.2: how many elements six ranges have, as a list of ints."""
    return expect_items(prediction, LENGTHS, LENGTH_LABELS, form=(int, float),
                        hints=said(LENGTH_HINTS))


# --- Exercise 1.3: a bias with the weight's dtype ---------------------------------------

def _weight(torch):
    return torch.ones(4, 3, dtype=torch.float64)


@checker(
    right=lambda torch: _weight(torch).new_zeros(3),
    wrong=lambda torch: [
        torch.zeros(3),                       # the default dtype, not the weight's
        _weight(torch).new_zeros(4, 3),       # the weight's shape
        torch.zeros_like(_weight(torch)),     # *_like copies the shape too
        _weight(torch).new_ones(3),           # ones
        _weight(torch).new_zeros(3).requires_grad_(),
    ],
)
def check_01_bias_like_weight(bias):
    """Exercise 1.3: zeros of shape (3,) with the dtype of weight (float64)."""
    return expect_tensor(
        bias, what="bias", shape=(3,), dtype="torch.float64", values=[0.0, 0.0, 0.0],
        requires_grad=False,
        hints={"shape": _("one bias per column of weight: the shape is (3,), not weight's shape."),
               "dtype": _("torch.zeros uses the default dtype; which method takes its dtype "
                          "from weight?"),
               "values": _("a bias starts at zero."),
               "requires_grad": _("this exercise asks for a plain tensor, without "
                                  "requires_grad.")})


# --- Exercise 1.4: reproducible dice ----------------------------------------------------

DICE_SEED_0 = [3, 4, 6, 1, 2, 4, 2, 2, 2, 4]       # manual_seed(0); randint(1, 7, (10,))


def _dice(torch, seed, low, high):
    torch.manual_seed(seed)
    return torch.randint(low, high, (10,))


@checker(
    right=lambda torch: _dice(torch, 0, 1, 7),
    wrong=lambda torch: [
        _dice(torch, 0, 1, 6),                      # high taken as included: no 6 possible
        _dice(torch, 0, 0, 6),                      # 0 to 5
        _dice(torch, 1, 1, 7),                      # another seed
        _dice(torch, 0, 1, 7).float(),              # floats
        _dice(torch, 0, 1, 7)[:5],                  # five rolls
    ],
)
def check_01_dice(dice):
    """Exercise 1.4: ten rolls of a die (1 to 6), right after torch.manual_seed(0)."""
    shape_and_dtype = expect_tensor(
        dice, what="dice", shape=(10,), dtype="torch.int64",
        hints={"shape": _("ten rolls, one dimension: the size is a tuple (10,)."),
               "dtype": _("randint gives int64 unless told otherwise.")})
    if not shape_and_dtype.ok:
        return shape_and_dtype
    rolls = [int(v) for v in dice.tolist()]
    outside = [i for i, v in enumerate(rolls) if not 1 <= v <= 6]
    if outside:
        return wrong(_("roll {outside} is {rolls}, but a die shows 1 to 6",
                       outside=outside[0], rolls=rolls[outside[0]]),
                     _("randint(low, high, size) draws from low up to high, high excluded."))
    if rolls != DICE_SEED_0:
        first = next(i for i, (a, b) in enumerate(zip(rolls, DICE_SEED_0)) if a != b)
        return wrong(_("these are not the rolls seed 0 gives (roll {first} differs)", first=first),
                     _("call torch.manual_seed(0) in the same cell, right before one randint "
                       "call; and is randint's high included?"))
    return correct(_("ten rolls from 1 to 6, exactly the ones seed 0 gives."))


# --- Exercise 1.5: a tensor that shares the array's memory ------------------------------

def _changed_pixels():
    pixels = np.zeros((2, 3), dtype=np.float32)
    return pixels


def _share(torch):
    pixels = _changed_pixels()
    image = torch.from_numpy(pixels)
    pixels[0, 0] = 1.0  # what the check cell does
    return image


def _copy(torch, convert):
    pixels = _changed_pixels()
    image = convert(torch, pixels)
    pixels[0, 0] = 1.0
    return image


@checker(
    right=_share,
    wrong=lambda torch: [
        _copy(torch, lambda t, p: t.tensor(p)),                  # a copy
        _copy(torch, lambda t, p: t.from_numpy(p).double()),     # a converted copy
        _copy(torch, lambda t, p: t.zeros(2, 3)),                # not from the array
        _copy(torch, lambda t, p: t.from_numpy(p).T),            # another shape
        _changed_pixels(),                                        # the array itself
    ],
)
def check_01_share_numpy(image):
    """Exercise 1.5: ``image`` made from the array ``pixels`` without copying; the check cell
    then sets pixels[0, 0] = 1.0, which must show in image."""
    return all_of(
        expect_tensor(image, what="image", shape=(2, 3), dtype="torch.float32",
                      hints={"type": _("make a tensor from pixels, one that uses the array's "
                                       "own memory."),
                             "shape": _("keep the array's shape."),
                             "dtype": _("keep the array's dtype: converting makes a copy.")}),
        expect_tensor(image, what="image", values=[[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                      hints={"values": _("the change made to pixels after image was created "
                                         "does not show in image: it has its own memory.")}),
        success=_("image shares the array's memory: the change to pixels shows in it."),
    )


# --- Exercise 1.6: fix a grid that misses its end point ---------------------------------

@checker(
    right=lambda torch: torch.linspace(0, 1, 5),
    wrong=lambda torch: [
        torch.arange(0, 1, 0.25),                    # the bug: end excluded
        torch.linspace(0, 1, 4),                     # 4 points
        torch.linspace(0, 1, 5, dtype=torch.float64),
        torch.arange(0, 5) / 5,                      # the wrong step
    ],
)
def check_01_fix_grid(grid):
    """Exercise 1.6: the five float32 points 0, 0.25, 0.5, 0.75 and 1."""
    return expect_tensor(
        grid, what="grid", shape=(5,), dtype="torch.float32",
        values=[0.0, 0.25, 0.5, 0.75, 1.0],
        hints={"shape": _("five points, both ends included. Which range function includes its "
                          "end?"),
               "dtype": _("keep the default float32."),
               "values": _("the points run from 0 to 1, 0.25 apart.")})


# --- Exercise 1.7: fix a requires_grad on integers --------------------------------------

def _function_returning(make):
    return lambda torch: (lambda: make(torch))


@checker(
    right=_function_returning(lambda torch: torch.tensor([1.0, 2.0, 3.0], requires_grad=True)),
    wrong=lambda torch: [
        lambda: torch.tensor([1, 2, 3], requires_grad=True),              # the bug
        lambda: torch.tensor([1.0, 2.0, 3.0]),                            # no requires_grad
        lambda: torch.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1,    # not a leaf
        lambda: torch.tensor([1, 2, 3], dtype=torch.float64, requires_grad=True),
        torch.tensor([1.0, 2.0, 3.0], requires_grad=True),                # not a function
    ],
)
def check_01_fix_requires_grad(make_weights):
    """Exercise 1.7: ``make_weights()`` returns the leaf [1., 2., 3.] (float32) with
    requires_grad=True."""
    if not is_function(make_weights):
        return wrong(_("make_weights is {value}; pass the function itself, without calling it",
                       value=describe(make_weights)))
    try:
        weights = make_weights()
    except Exception as error:  # the learner's bug is what is being checked
        message = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return wrong(_("make_weights() raised {name}: {message}",
                       name=type(error).__name__, message=message),
                     _("read the message: which tensors can require gradients, and which dtype "
                       "do the values 1, 2, 3 give?"))
    if weights is Ellipsis or weights is None:
        return wrong(_("make_weights() returns nothing yet"))
    if not is_tensor_like(weights):
        return wrong(_("make_weights() returns {value}; it should return a tensor",
                       value=describe(weights)))
    return expect_tensor(
        weights, what=_("the tensor make_weights() returns"), shape=(3,), dtype="torch.float32",
        values=[1.0, 2.0, 3.0], requires_grad=True, is_leaf=True,
        hints={"dtype": _("keep the default floating-point dtype."),
               "requires_grad": _("autograd should track these weights."),
               "is_leaf": _("create the tensor with requires_grad directly, without computing "
                            "anything from it.")})
