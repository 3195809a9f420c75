"""``torch.testing.make_tensor``: a tensor of random test values, PyTorch 2.15's bit for bit.

Its values come from the default generator the way torch's function draws them (its
``torch/testing/_creation.py``): ``torch.randint(low, high, shape)`` for bools and integers,
``torch.empty(shape).uniform_(low, high)`` for floats (halved, then doubled, when the range
is wider than the dtype's largest value). The engine replays torch's generator for both, so
after ``torch.manual_seed(s)`` the engine's ``make_tensor`` gives the values torch's gives.

The default range is [-9, 9) for floats, [-9, 10) for integers (clamped to the dtype: [0, 10)
for uint8), [0, 2) for bools; a given ``low``/``high`` is clamped to the dtype's finite range,
and for integers rounded up (``high`` is exclusive).
"""
import collections.abc
import math
import warnings

from ..fidelity import dtypes
from ..ops.creation import empty, randint

__all__ = ["make_tensor"]

INTEGERS = [dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64]
BOOL_OR_INTEGERS = [dtypes.bool, *INTEGERS]
FLOATS = [dtypes.float16, dtypes.float32, dtypes.float64]  # (torch's bfloat16 and complex: absent)

LOW_EQUALS_HIGH_DEPRECATED = (
    "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
    "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.")


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` (sizes, or one sequence of them) with values drawn uniformly from
    ``[low, high)``. ``noncontiguous=True``: every other element of a tensor twice as wide
    (when it has two elements or more); ``exclude_zero=True``: zeros become 1 (bools and
    integers) or the dtype's smallest normal number (floats)."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got {noncontiguous=} and {memory_format=}")
    if requires_grad and dtype in BOOL_OR_INTEGERS:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got {dtype=}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # twice as wide, so that the elements skipped differ from those kept
        shape = (*shape[:-1], 2 * shape[-1])

    if dtype is dtypes.bool:
        low, high = bounds(low, high, dtype, default=(0, 2), supported=(0, 2))
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in INTEGERS:
        info = dtypes.iinfo(dtype)
        # randint takes its bounds as int64: it cannot reach int64's largest value
        largest = info.max + (1 if dtype is not dtypes.int64 else 0)
        low, high = bounds(low, high, dtype, default=(-9, 10), supported=(info.min, largest))
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in FLOATS:
        info = dtypes.finfo(dtype)
        low, high = bounds(low, high, dtype, default=(-9, 9), supported=(info.min, info.max))
        result = empty(shape, device=device, dtype=dtype)
        if high - low >= info.max:  # (uniform_ refuses a range wider than the dtype's largest)
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        f"torch.testing.make_tensor(). To request support, file an issue at: "
                        f"https://github.com/pytorch/pytorch/issues")

    if noncontiguous:
        result = result[..., 1::2]  # (from 1: a storage offset, too)
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in BOOL_OR_INTEGERS else dtypes.finfo(dtype).tiny
    if dtype in FLOATS:
        result.requires_grad = requires_grad
    return result


def bounds(low, high, dtype, *, default, supported):
    """``[low, high)`` with the defaults filled in, checked, clamped to the ``supported``
    ``[lowest, highest)``, and for bools and integers rounded up (both: ``high`` is
    exclusive)."""
    low = default[0] if low is None else low
    high = default[1] if high is None else high
    lowest, highest = supported
    if any(isinstance(value, float) and math.isnan(value) for value in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    if low == high and dtype in FLOATS:
        warnings.warn(LOW_EQUALS_HIGH_DEPRECATED, FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, "
                         f"{high}), but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype in BOOL_OR_INTEGERS:
        return math.ceil(low), math.ceil(high)
    return low, high
