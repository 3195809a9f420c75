"""Python numbers stored as tensor elements: torch refuses values that do not fit.

``fill_``, ``full`` and ``x[i] = value`` check the value against the dtype and raise
torch's "value cannot be converted to type ... without overflow"; arithmetic with
Python numbers wraps instead (that is numpy's behaviour already).
"""
import math

import numpy as np

from .dtypes import check_int_argument  # (the ops import it from here, with the rest)

_OVERFLOW_TYPE_NAMES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int",
                        "int64": "int64_t", "float16": "c10::Half", "float32": "float",
                        "float64": "double"}


def parsed_number(value):
    """``value`` as torch's parser reads a number into a 64-bit Scalar: a Python int beyond
    64 bits is Python's OverflowError, before autograd or the kernel look at anything."""
    if value.__class__ is int and not -2 ** 63 <= value < 2 ** 64:
        raise OverflowError("int too big to convert" if value > 0 else
                            "can't convert negative int to unsigned")
    return value


def checked_scalar(value, np_dtype, check_half=True):
    """``value`` as one element of ``np_dtype``, refusing values that do not fit, as torch's
    fill_, full and ``x[i] = value`` do (arithmetic with Python numbers wraps instead).

    ``x[i] = value`` does not check float16 (``check_half=False``): it rounds to inf.
    """
    if hasattr(value, "item"):
        value = value.item()  # a one-element tensor or a numpy number
    if isinstance(value, int):
        check_int_argument(value)
    kind = np_dtype.kind
    if kind == "b":
        return np.bool_(value != 0)
    if kind == "f" and np_dtype.itemsize == 2 and not check_half:
        with np.errstate(over="ignore"):
            return np.float32(value).astype(np.float16)  # through float, as torch converts
    fits = _fits_float(float(value), np_dtype) if kind == "f" else _fits_integer(value, np_dtype)
    if not fits:
        raise RuntimeError(f"value cannot be converted to type "
                           f"{_OVERFLOW_TYPE_NAMES[np_dtype.name]} without overflow")
    if kind == "u":
        value = int(value) % 2 ** (8 * np_dtype.itemsize)  # negative numbers wrap, as in C
    elif kind == "i":
        value = int(value)  # C casts truncate toward zero
    elif np_dtype.itemsize == 2:
        return np.float32(value).astype(np.float16)  # (through float, as torch converts)
    return np_dtype.type(value)


def _fits_float(value, np_dtype):
    if not math.isfinite(value) or np_dtype.itemsize == 8:
        return True  # inf and nan fit every floating type
    return abs(value) <= (_FLOAT32_MAX if np_dtype.itemsize == 4 else 65504.0)


def _fits_integer(value, np_dtype):
    low, high = _INTEGER_RANGES[np_dtype]
    if isinstance(value, float):  # converted by truncation, then checked (torch 2.15)
        return math.isfinite(value) and low <= value < high + 1
    if low == 0:
        return -high <= value <= high  # unsigned: negative numbers wrap, as in C
    return low <= value <= high


_INTEGER_RANGES = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
                   for t in (np.uint8, np.int8, np.int16, np.int32, np.int64)}

_FLOAT32_MAX = float(np.finfo(np.float32).max)


def number_as_tensor(number, tensor_type):
    """A Python number operand as torch keeps it for a node: a 0-d tensor of ``tensor_type``
    (the engine's Tensor, passed in). torch wraps it as a "wrapped number", whose dtype is the
    widest of its kind (float64 for a float, whatever the default dtype; int64; bool): the
    operation still computes in the other operand's dtype."""
    if isinstance(number, (bool, np.bool_)):
        np_dtype = np.dtype(np.bool_)
    elif isinstance(number, (float, np.floating)):
        np_dtype = np.dtype(np.float64)
    else:
        np_dtype = np.dtype(np.int64)
    return tensor_type._from_numpy_array(np.array(number, np_dtype))
