"""Data types and PyTorch's type-promotion rules.

A dtype here is a small object that prints as ``torch.float32`` (the name a
learner will see in PyTorch) and knows the numpy dtype that stores its values.
"""
import numpy as np


class dtype:
    """One element type, e.g. ``float32``. Compare with ``is`` or ``==``."""

    __slots__ = ("name", "numpy_dtype", "itemsize", "is_floating_point", "is_signed",
                 "is_complex", "category")

    def __init__(self, name, numpy_dtype, category):
        self.name = name
        self.numpy_dtype = np.dtype(numpy_dtype)
        self.itemsize = self.numpy_dtype.itemsize
        self.category = category  # 0 bool, 1 integer, 2 floating: promotion climbs these
        self.is_floating_point = category == 2
        self.is_signed = name not in ("bool", "uint8")
        self.is_complex = False

    def __repr__(self):
        return "torch." + self.name

    def __call__(self, *args, **kwargs):
        raise TypeError("'torch.dtype' object is not callable")  # x.dtype is an attribute

    def __reduce__(self):
        return self.name  # pickles as the module attribute of that name

    def to_real(self):
        return self

    def to_complex(self):
        raise TypeError(f"{self!r} has no complex counterpart in this engine")


bool = dtype("bool", np.bool_, 0)  # noqa: A001 - torch.bool shadows the builtin too
uint8 = dtype("uint8", np.uint8, 1)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 1)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 1)
float16 = dtype("float16", np.float16, 2)
float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)

# torch's aliases are the very same objects: torch.float is torch.float32.
half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001

all_dtypes = (bool, uint8, int8, int16, int32, int64, float16, float32, float64)
from_numpy_dtype = {d.numpy_dtype: d for d in all_dtypes}

# The numpy names torch uses in messages such as "Found dtype Long but expected Float".
scalar_type_name = {bool: "Bool", uint8: "Byte", int8: "Char", int16: "Short", int32: "Int",
                    int64: "Long", float16: "Half", float32: "Float", float64: "Double"}


def as_dtype(value):
    """Accept an engine dtype, a numpy dtype or a Python type, as torch's ``dtype=``."""
    if value.__class__ is dtype:
        return value
    if value is builtins_float:
        return float64
    if value is builtins_int:
        return int64
    if value is builtins_bool:
        return bool
    if value is complex:  # (torch's complex128)
        raise TypeError("complex numbers are not supported by this engine")
    try:
        return from_numpy_dtype[np.dtype(value)]
    except (TypeError, KeyError):
        raise TypeError(f"dtype must be torch.dtype (got {type(value).__name__})") from None


import builtins as _builtins  # noqa: E402

builtins_float, builtins_int, builtins_bool = _builtins.float, _builtins.int, _builtins.bool


# ---------------------------------------------------------------- default dtype
_default = [float32]


def get_default_dtype():
    """The floating dtype for Python floats and for ``zeros(2)``: float32 unless changed."""
    return _default[0]


def set_default_dtype(d):
    """Change the default floating dtype (torch accepts float16, float32 and float64 here)."""
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


# ---------------------------------------------------------------- promotion
def _check_dtype_argument(value, function, name, position):
    if value.__class__ is not dtype:
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be "
                        f"torch.dtype, not {type(value).__name__}")


def promote_types(a, b):
    """The smallest dtype both ``a`` and ``b`` fit in, by torch's table."""
    _check_dtype_argument(a, "promote_types", "type1", 1)
    _check_dtype_argument(b, "promote_types", "type2", 2)
    return _promote(a, b)


def _promote(a, b):
    if a is b:
        return a
    if a is _uint64 or b is _uint64:  # torch promotes these with the floating types only
        if a.category == 2 or b.category == 2:
            return a if a.category == 2 else b
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {_promotion_name(a)} and {_promotion_name(b)}")
    if a.category == 2 or b.category == 2:
        if a.category != 2:
            return b
        if b.category != 2:
            return a
        return a if a.itemsize >= b.itemsize else b
    # bool and the integers promote as numpy does: uint8 with int8 gives int16.
    return from_numpy_dtype[np.promote_types(a.numpy_dtype, b.numpy_dtype)]


def _combine_categories(higher, lower):
    # torch's combine_categories: a lower-priority group only matters when it
    # belongs to a higher category (e.g. a float scalar next to an int tensor).
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == 2:
        return higher
    if higher is bool or lower.category == 2:
        return _promote(higher, lower)
    return higher


# A Python int from 2**63 up is an unsigned 64-bit number to torch, which promotes it with the
# floating types only: ``bool_tensor + 2**63`` is refused (an int64 tensor keeps its dtype and
# wraps). Only the promotion rules know this dtype; no tensor has it.
_uint64 = dtype("uint64", np.uint64, 1)


def _promotion_name(d):
    return "UInt64" if d is _uint64 else scalar_type_name[d]


def check_int_argument(value):
    """torch reads a Python int argument as an int64 or, failing that, a uint64: an int that
    is neither is refused before anything else happens."""
    if not -2**63 <= value < 2**64:
        raise OverflowError("int too big to convert" if value > 0 else
                            "can't convert negative int to unsigned")


def scalar_dtype(value):
    """The dtype torch gives a Python number that takes part in an operation."""
    cls = value.__class__
    if cls is builtins_bool:
        return bool
    if cls is builtins_int:
        check_int_argument(value)
        return int64 if value < 2**63 else _uint64
    if cls is builtins_float:
        return _default[0]
    if isinstance(value, np.generic):
        # torch reads numpy numbers as Python ones, and np.bool_ through __float__
        return int64 if value.dtype.kind in "iu" else _default[0]
    if isinstance(value, complex):
        raise TypeError("complex numbers are not supported by this engine")
    raise TypeError(f"unsupported operand type {cls.__name__}")


def result_type(*operands):
    """torch.result_type for tensors and Python scalars, by torch's three groups.

    Tensors with dimensions decide first; 0-dim tensors and then Python numbers
    only matter when they belong to a higher category (bool < int < float).
    """
    dim_result = zero_result = wrapped_result = None
    for op in operands:
        data = getattr(op, "_data", None)
        if data is None:
            d = scalar_dtype(op)
            wrapped_result = d if wrapped_result is None else _promote(wrapped_result, d)
        elif data.ndim == 0:
            d = from_numpy_dtype[data.dtype]
            zero_result = d if zero_result is None else _promote(zero_result, d)
        else:
            d = from_numpy_dtype[data.dtype]
            dim_result = d if dim_result is None else _promote(dim_result, d)
    return _combine_categories(dim_result, _combine_categories(zero_result, wrapped_result))


def can_cast(from_, to):
    """torch.can_cast: casting may not go down a category (float to int, int to bool)."""
    _check_dtype_argument(from_, "can_cast", "from_", 1)
    _check_dtype_argument(to, "can_cast", "to", 2)
    return from_.category <= to.category


# ---------------------------------------------------------------- finfo / iinfo
class finfo:
    """Limits of a floating dtype: ``bits eps max min tiny resolution``."""

    def __init__(self, type=None):  # noqa: A002 - torch's parameter name
        d = get_default_dtype() if type is None else as_dtype(type)
        if not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. "
                            "Use torch.iinfo to handle 'torch.finfo'")
        info = np.finfo(d.numpy_dtype)
        self.dtype = d.name
        self.bits = info.bits
        self.eps = _builtins.float(info.eps)
        self.max = _builtins.float(info.max)
        self.min = _builtins.float(info.min)
        self.tiny = self.smallest_normal = _builtins.float(info.tiny)
        self.resolution = 10.0 ** -info.precision  # as a Python float, like torch's

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype: ``bits max min``."""

    def __init__(self, type):  # noqa: A002
        d = as_dtype(type)
        if d.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. "
                            "Use torch.finfo to handle 'torch.iinfo'")
        if d is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        info = np.iinfo(d.numpy_dtype)
        self.dtype = d.name
        self.bits = info.bits
        self.max = _builtins.int(info.max)
        self.min = _builtins.int(info.min)

    def __repr__(self):
        # torch prints the limits with %g: iinfo(min=-2.14748e+09, max=2.14748e+09, ...)
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def legacy_type_name(dtype):
    """``'torch.FloatTensor'`` for float32: the name torch's messages and ``x.type()`` use."""
    return f"torch.{scalar_type_name[dtype]}Tensor"


def cpp_type_name(dtype):
    """How torch's C++ messages name a tensor's type (its ``toString()``): the legacy name
    where the type has one (``torch.FloatTensor``), else the dispatch key's: ``CPUBoolType``
    (and torch's ``CPUBFloat16Type``, ``CPUComplexFloatType``, types the engine lacks)."""
    if dtype is bool:
        return "CPUBoolType"
    return legacy_type_name(dtype)


LEGACY_TYPE_NAMES = {f"torch.{name}Tensor": d for d, name in scalar_type_name.items()}
