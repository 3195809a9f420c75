"""Operations on tensors, named and behaving as in PyTorch.

Each public function computes with numpy on ``tensor._data`` and wraps the result
with ``wrap``. PyTorch's rules that numpy does not share are made explicit here:
type promotion (``_common``), torch's error messages, how a new result is laid out
in memory (``_result``), and which results share memory (views live in ``_views``).

Where the values can differ from torch's in the last bits (tests/test_ops_parity.py
checks them with a tolerance; everything else matches bit for bit):

* sums, means, products, std/var, norms, logsumexp and matrix products: numpy adds
  in another order than torch's vectorised loops (and BLAS libraries differ);
* exp, log, sin, tanh, sigmoid, atan2, pow with a general exponent, and sqrt/rsqrt:
  numpy and torch use different math libraries (this torch build's sqrt comes from
  MKL and is not even correctly rounded), each within about an ulp;
* float16 add/sub with a fractional ``alpha``: torch rounds once in its vectorised
  loop but twice for the elements of the scalar tail; the engine rounds once;
* remainder/fmod when input / other overflows: torch's vectorised loop gives nan, its
  scalar tail (and numpy) the exact value.
"""
import builtins
import math
import warnings
from collections import namedtuple

import numpy as np

from . import _dtype
from ._dtype import from_numpy_dtype, result_type, scalar_type_name
from ._rounding import fma32, fma64  # fused multiply-adds, rounded once like torch's
from ._autograd import Node, _grad_enabled, no_grad, record
from ._layout import contiguous_strides, iterator_strides
from ._tensor import (Tensor, checked_scalar, copy_preserving_layout, empty_strided, make_view,
                      wrap)

# torch computes inf and nan without a word, numpy warns ("overflow encountered in
# multiply"): numpy's floating-point warnings from the operations here are silenced.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"engine\._ops")

# The operations `import engine` exposes as engine.<name>, as torch does.
__all__ = [
    "abs", "absolute", "acos", "add", "addcdiv", "addcmul", "addmm", "all", "allclose", "amax",
    "amin", "any", "arccos", "arcsin", "arctan", "argmax", "argmin", "argsort", "asin", "atan",
    "atan2", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "cat", "ceil",
    "clamp", "clamp_max", "clamp_min", "clip", "concat", "concatenate", "cos", "cosh",
    "count_nonzero", "cumprod", "cumsum", "div", "divide", "dot", "eq", "equal", "exp", "exp2",
    "expm1", "fix", "floor", "floor_divide", "fmod", "frac", "ge", "ger", "greater",
    "greater_equal", "gt", "hstack", "inner", "isclose", "isfinite", "isinf", "isnan", "le",
    "lerp", "less", "less_equal", "log", "log10", "log1p", "log2", "log_softmax", "logical_and",
    "logical_not", "logical_or", "logical_xor", "logsumexp", "lt", "matmul", "max", "maximum",
    "mean", "min", "minimum", "mm", "mul", "multiply", "mv", "nan_to_num", "nansum", "ne",
    "neg", "negative", "nonzero", "norm", "not_equal", "outer", "positive", "pow", "prod",
    "reciprocal", "relu", "remainder", "return_types", "round", "rsqrt", "rsub", "sigmoid",
    "sign", "sin", "sinh", "softmax", "sort", "sqrt", "square", "stack", "std", "sub",
    "subtract", "sum", "tan", "tanh", "topk", "true_divide", "trunc", "var", "vdot", "vstack",
    "where",
]

_PY_SCALARS = (builtins.int, builtins.float, builtins.bool)
_PY_SCALAR_TYPES = frozenset(_PY_SCALARS)
_HALF = np.dtype(np.float16)
_BOOL = np.dtype(np.bool_)
_NUMBERS = (builtins.int, builtins.float, builtins.bool, np.number, np.bool_)


# ====================================================================== helpers
def wrap_dim(dim, ndim):
    """A dimension index made non-negative, with torch's IndexError when out of range."""
    if dim.__class__ is not builtins.int:
        dim = dim.__index__()
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if dim < low or dim > high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], "
                         f"but got {dim})")
    return dim + ndim if dim < 0 else dim


def _dims(dim, ndim):
    """``dim`` as a tuple of non-negative axes (None means every axis)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list)):
        axes = tuple(wrap_dim(d, ndim) for d in dim)
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"dim {axes[0]} appears multiple times in the list of dims")
        return axes if axes or ndim == 0 else tuple(range(ndim))
    return (wrap_dim(dim, ndim),)


def _axes(dims, ndim):
    # numpy has no axes on a 0-d array; torch allows dim 0 / -1 there.
    return None if ndim == 0 else dims


def to_dtype(tensor, target):
    """A copy of ``tensor`` converted to dtype ``target`` (values cast as C casts them)."""
    data = tensor._data
    if target.is_floating_point or data.dtype.kind != "f":
        return wrap(data.astype(target.numpy_dtype, order="K"))
    # float -> int: torch truncates toward zero; nan/inf have no integer value.
    with np.errstate(invalid="ignore", over="ignore"):
        return wrap(data.astype(target.numpy_dtype, order="K"))


def to_copy(tensor, np_dtype):
    """``tensor.to(dtype)``: a converted copy laid out like ``tensor``."""
    return record(ToCopyBackward0, copy_preserving_layout(tensor, np_dtype), (tensor,))


class ToCopyBackward0(Node):
    """out = x converted to another dtype:  the gradient is converted back (in _validated)"""

    def backward(self, grad):
        return grad


def _scalar_value(value):
    """A Python number for ``value``, read as torch reads numpy scalars."""
    if isinstance(value, np.generic):
        # torch reads a numpy number as the Python number it converts to, except
        # np.bool_, which it reads through __float__ (so `x * np.bool_(True)` is float)
        return builtins.float(value) if value.dtype.kind == "b" else value.item()
    return value


def _cast_scalar(value, np_dtype):
    """A Python number as a numpy scalar of ``np_dtype``, as torch converts an operand.

    An integer too big for the dtype wraps around as C casts do (300 -> 44 in int8),
    and a float too big for float16/float32 becomes inf.
    """
    limit = _FLOAT_MAX.get(np_dtype.char)
    if limit is not None and not -limit <= value <= limit:
        with np.errstate(over="ignore"):  # numpy would warn
            return np_dtype.type(value)
    try:
        return np_dtype.type(value)
    except OverflowError:
        if value.__class__ is not builtins.int:
            raise
        if value >= 2**64:
            raise OverflowError("int too big to convert") from None
        if value < -2**63:
            raise OverflowError("can't convert negative int to unsigned") from None
        return np.array(value % 2**64, np.uint64).astype(np_dtype)[()]


_FLOAT_MAX = {"e": 65504.0, "f": 3.4028234663852886e38}  # the largest float16 and float32


def _operand_error(name, value, position, argument="other"):
    return TypeError(f"{name}(): argument '{argument}' (position {position}) must be Tensor, "
                     f"not {type(value).__name__}")


def _invalid_arguments(name, *args):
    """torch's message when no overload of ``name`` takes these argument types."""
    kinds = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({kinds}), "
                     "but expected one of:")


def _kernel_error(kernel, np_dtype):
    """torch's error for a dtype its kernel is not compiled for, e.g. bool in floor_divide."""
    return NotImplementedError(f"\"{kernel}\" not implemented for "
                               f"'{scalar_type_name[from_numpy_dtype[np_dtype]]}'")


def _require_tensors(name, input, other, other_name="other"):
    """For functions torch only defines on two tensors (maximum, atan2, mm ...)."""
    if not isinstance(input, Tensor):
        raise _operand_error(name, input, 1, "input")
    if not isinstance(other, Tensor):
        raise _operand_error(name, other, 2, other_name)


def _common(a, b, name="op"):
    """numpy operands for ``a`` and ``b`` converted to torch's common dtype, and that dtype.

    Either side may be a Python number. Same-dtype tensors (the usual case) pass
    straight through; otherwise torch's promotion picks the dtype (see _dtype.result_type).
    """
    a_is_tensor = isinstance(a, Tensor)
    b_is_tensor = isinstance(b, Tensor)
    if a_is_tensor and b_is_tensor:
        ad, bd = a._data, b._data
        if ad.dtype == bd.dtype:
            return ad, bd, ad.dtype
        common = result_type(a, b).numpy_dtype
        return ad.astype(common, copy=False), bd.astype(common, copy=False), common
    if a_is_tensor:
        if b.__class__ not in _PY_SCALAR_TYPES:  # a numpy number, or no number at all
            b = _scalar_value(b)
            if not isinstance(b, _PY_SCALARS):
                raise _operand_error(name, b, 2)
        common = result_type(a, b).numpy_dtype
        return a._data.astype(common, copy=False), _cast_scalar(b, common), common
    if b_is_tensor:
        a = _scalar_value(a)
        if not isinstance(a, _PY_SCALARS):
            raise _operand_error(name, a, 1, "input")
        common = result_type(a, b).numpy_dtype
        return _cast_scalar(a, common), b._data.astype(common, copy=False), common
    raise _operand_error(name, a, 1, "input")


def _broadcast_error(*operands):
    """torch's message for operands that do not broadcast, naming the first bad dimension.

    torch broadcasts the operands' shapes from left to right: "tensor a" is the shape
    broadcast so far, "tensor b" the next operand.
    """
    shapes = [np.shape(x) for x in operands]
    sa = shapes[0]
    for sb in shapes[1:]:
        ndim = builtins.max(len(sa), len(sb))
        for i in range(1, ndim + 1):
            na = sa[-i] if i <= len(sa) else 1
            nb = sb[-i] if i <= len(sb) else 1
            if na != nb and na != 1 and nb != 1:
                return RuntimeError(f"The size of tensor a ({na}) must match the size of tensor "
                                    f"b ({nb}) at non-singleton dimension {ndim - i}")
        sa = np.broadcast_shapes(sa, sb)
    return RuntimeError(f"shapes {[list(s) for s in shapes]} cannot be broadcast")


def _apply(ufunc, x, y):
    """``ufunc(x, y)`` with torch's broadcasting error instead of numpy's."""
    try:
        return ufunc(x, y)
    except ValueError:
        raise _broadcast_error(x, y) from None


# ---------------------------------------------------------------- result layout
def _row_major(x):
    return x.__class__ is not np.ndarray or x.flags.c_contiguous


def _wrap_like(result, operands):
    """``result`` as a tensor laid out in memory as torch lays out this elementwise result."""
    shape = result.shape
    operand_strides = []
    for x in operands:
        if x.__class__ is np.ndarray:
            # broadcast dimensions get stride 0: they have no say in the order
            lead = len(shape) - x.ndim
            operand_strides.append((0,) * lead + tuple(
                0 if n == 1 and m != 1 else s // x.itemsize
                for n, m, s in zip(x.shape, shape[lead:], x.strides)))
    same_shape = builtins.all(x.shape == shape for x in operands if x.__class__ is np.ndarray)
    strides = iterator_strides(shape, operand_strides, same_shape)
    if strides == contiguous_strides(shape):
        return wrap(np.ascontiguousarray(result) if result.ndim else result)
    tensor = empty_strided(shape, strides, result.dtype)
    np.copyto(tensor._data, result)
    return tensor


def _elementwise(ufunc, x, y):
    """``ufunc(x, y)`` as a tensor, with torch's broadcasting error and result layout."""
    try:
        result = ufunc(x, y)
    except ValueError:
        raise _broadcast_error(x, y) from None
    # (inlined _row_major: this is every arithmetic operation's path)
    if result.ndim > 1 and ((x.__class__ is np.ndarray and not x.flags.c_contiguous)
                            or (y.__class__ is np.ndarray and not y.flags.c_contiguous)):
        return _wrap_like(result, (x, y))
    return wrap(result)


def _result(result, *operands):
    """``wrap(result)`` laid out as torch lays out an elementwise result of ``operands``."""
    if result.ndim > 1 and not builtins.all(_row_major(x) for x in operands):
        return _wrap_like(result, operands)
    return wrap(result)


def _float_operands(input, other, a, b, common):
    """Operands for an op that computes in floating point (true division, atan2).

    Integers compute in the default float dtype, and every operand is converted
    straight to it (uint8 / -2 divides by -2.0, not by -2 wrapped into uint8).
    """
    if common.kind == "f":
        return a, b, common
    target = _dtype.get_default_dtype().numpy_dtype
    # each operand goes straight from its own dtype: uint8 / int8(-99) divides by -99.0
    a = input._data.astype(target) if isinstance(input, Tensor) else target.type(
        _scalar_value(input))
    b = other._data.astype(target) if isinstance(other, Tensor) else target.type(
        _scalar_value(other))
    return a, b, target


def _float_dtype_for(np_dtype):
    """The dtype a float-valued op (exp, sqrt, true division ...) computes in."""
    return np_dtype if np_dtype.kind == "f" else _dtype.get_default_dtype().numpy_dtype


def _half_with_scalar(ufunc, a, other):
    """``ufunc(a, other)`` for a float16 ``a`` and a scalar ``other``, as torch computes it.

    torch's float16 kernels for * / // and trunc division do not round a scalar second
    operand to float16: they compute in float32 with the scalar's own value and round
    the result once. (+ and - round the scalar to float16 first, like numpy.)
    """
    value = other._data.item() if isinstance(other, Tensor) else _scalar_value(other)
    with np.errstate(all="ignore"):
        return ufunc(a.astype(np.float32), np.float32(value)).astype(np.float16)


def _is_half_with_scalar(common, other):
    return common is _HALF and (not isinstance(other, Tensor) or other._data.ndim == 0)


def _is_bool(value):
    if isinstance(value, Tensor):
        return value._data.dtype is _BOOL
    return value.__class__ is builtins.bool


# ====================================================================== arithmetic
def _alpha(alpha, common):
    """``alpha`` checked and converted as torch's add/sub do."""
    if isinstance(alpha, builtins.bool) and common.kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, builtins.float) and common.kind != "f":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    return checked_scalar(alpha, common)


def _add_scaled(a, b, alpha, common, subtract=False):
    """a + alpha * b (or a - alpha * b) in ``common``, as torch's kernels compute it.

    Floats round once, as torch's fused multiply-add does; integers wrap around.
    """
    if common.kind != "f":
        with np.errstate(over="ignore"):
            return _apply(np.subtract if subtract else np.add, a, np.multiply(b, alpha))
    if subtract:
        alpha = -alpha
    try:
        np.broadcast_shapes(np.shape(a), np.shape(b))
    except ValueError:
        raise _broadcast_error(a, b) from None
    if common.char == "d":
        return np.asarray(fma64(b, alpha, a))
    if common.char == "f":
        return np.asarray(fma32(b, alpha, a))
    # float16: the product and sum of float16 numbers are exact in float64
    exact = np.asarray(b, np.float64) * np.float64(alpha) + np.asarray(a, np.float64)
    return exact.astype(np.float16)


def add(input, other, *, alpha=1, out=None):
    """out = input + alpha * other"""
    a, b, common = _common(input, other, "add")
    if alpha != 1 or alpha.__class__ is not int:  # not the default: check and scale
        result = _result(_add_scaled(a, b, _alpha(alpha, common), common), a, b)
    else:
        result = _elementwise(np.add, a, b)
    if out is not None:
        return _out(result, out)
    return record(AddBackward0, result, (input, other), alpha=alpha)


class AddBackward0(Node):
    """out = input + alpha * other:  d/d input = 1,  d/d other = alpha"""

    def backward(self, grad):
        return grad, grad if self.alpha == 1 else grad * self.alpha


def sub(input, other, *, alpha=1, out=None):
    """out = input - alpha * other"""
    if _is_bool(input) or _is_bool(other):  # torch refuses bool on either side
        if _is_bool(input) and _is_bool(other):
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                               "supported. Use the `^` or `logical_xor()` operator instead.")
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    a, b, common = _common(input, other, "sub")
    if alpha != 1 or alpha.__class__ is not int:  # not the default: check and scale
        result = _result(_add_scaled(a, b, _alpha(alpha, common), common, subtract=True), a, b)
    else:
        result = _elementwise(np.subtract, a, b)
    if out is not None:
        return _out(result, out)
    if not isinstance(input, Tensor):  # number - tensor: torch records it as rsub
        return record(RsubBackward1, result, (other,), alpha=alpha)
    return record(SubBackward0, result, (input, other), alpha=alpha)


class SubBackward0(Node):
    """out = input - alpha * other:  d/d input = 1,  d/d other = -alpha"""

    def backward(self, grad):
        return grad, -grad if self.alpha == 1 else grad * -self.alpha


class RsubBackward1(Node):
    """out = number - alpha * input:  d/d input = -alpha"""

    def backward(self, grad):
        return -grad if self.alpha == 1 else grad * -self.alpha


subtract = sub


def rsub(input, other, *, alpha=1):
    """out = other - alpha * input"""
    if not isinstance(other, Tensor):
        return sub(other, input, alpha=alpha)  # number - tensor: sub records RsubBackward1
    with no_grad():
        result = sub(other, input, alpha=alpha)
    return record(RsubBackward0, result, (input, other), alpha=alpha)


class RsubBackward0(Node):
    """out = other - alpha * input:  d/d input = -alpha,  d/d other = 1"""

    def backward(self, grad):
        return (-grad if self.alpha == 1 else grad * -self.alpha), grad


def mul(input, other, *, out=None):
    """out = input * other"""
    a, b, common = _common(input, other, "mul")
    if common is _HALF and _is_half_with_scalar(common, other):
        result = _result(_half_with_scalar(np.multiply, a, other), a)
    else:
        result = _elementwise(np.multiply, a, b)
    if out is not None:
        return _out(result, out)
    return record(MulBackward0, result, (input, other),
                  saved=(_kept_for(other, input), _kept_for(input, other)))


class MulBackward0(Node):
    """out = input * other:  d/d input = other,  d/d other = input"""

    _saved_names = ("self", "other")

    def backward(self, grad):
        input, other = self.saved_tensors  # each saved only if the other side needs it
        return (None if other is None else grad * other,
                None if input is None else grad * input)


def _kept_for(needed_by, value):
    """``value`` when ``needed_by`` requires grad, else None: torch saves only what backward
    will read (so ``y = x * 2`` keeps 2, not x, and x may later change in place)."""
    return value if getattr(needed_by, "_requires_grad", False) else None


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    """out = input / other (true division: integers divide to floating point)"""
    if rounding_mode is None:
        a, b, common = _common(input, other, "div")
        a, b, common = _float_operands(input, other, a, b, common)
        if _is_half_with_scalar(common, other):
            result = _result(_half_with_scalar(np.true_divide, a, other), a)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                result = _elementwise(np.true_divide, a, b)
        if out is not None:
            return _out(result, out)
        return record(DivBackward0, result, (input, other),
                      saved=(_kept_for(other, input), other))
    if rounding_mode == "floor":
        with no_grad():
            result = floor_divide(input, other, out=out)
    elif rounding_mode == "trunc":
        result = _trunc_div(input, other, out)
    else:
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    if out is not None:
        return result
    return record(DivBackward2, result, (input, other), rounding_mode=rounding_mode)


def _trunc_div(input, other, out):
    a, b, common = _common(input, other, "div")
    _check_integer_divisor(a, b, common, "div_trunc_cpu")
    if common.kind == "f":
        if _is_half_with_scalar(common, other):
            return _out(_result(_half_with_scalar(_trunc_divide, a, other), a), out)
        return _out(_result(_trunc_divide(a, b), a, b), out)
    # integers: C division truncates toward zero (numpy's // floors)
    with np.errstate(all="ignore"):
        quotient = _apply(np.floor_divide, a, b)
        inexact = (quotient * b != a) & ((a < 0) != (b < 0))
    return _out(_result(np.where(inexact, quotient + 1, quotient).astype(common), a, b), out)


class DivBackward2(Node):
    """out = input / other rounded to a whole number:  a step function, d/d input = d/d other = 0"""

    def backward(self, grad):
        return _zeros_like(grad), _zeros_like(grad)


def _zeros_like(grad):
    """A constant zero gradient (torch's zeros_like: no graph, and inf * 0 gives no nan)."""
    return wrap(np.zeros_like(grad._data))


class NotImplementedBackward(Node):
    """An op torch has no derivative for (floor_divide ...): backward through it fails."""

    def name(self):
        return "torch::autograd::NotImplemented"  # torch's C++ name for this node

    def backward(self, grad):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


divide = true_divide = div


class DivBackward0(Node):
    """out = input / other:  d/d input = 1 / other,  d/d other = -input / other**2"""

    _saved_names = ("self", "other")

    def backward(self, grad):
        input, other = self.saved_tensors
        grad_other = None if input is None else -grad * input / (other * other)
        return grad / other, grad_other


def _trunc_divide(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.trunc(_apply(np.true_divide, a, b))


def _check_integer_divisor(a, b, common, kernel):
    """bool has no division kernel; integer division by zero raises (floats give inf/nan),
    unless the result is empty (torch's kernel then never divides)."""
    if common.kind == "b":
        raise _kernel_error(kernel, common)
    if common.kind in "iu" and np.any(np.asarray(b) == 0) and \
            math.prod(np.broadcast_shapes(np.shape(a), np.shape(b))):
        raise RuntimeError("ZeroDivisionError")


def floor_divide(input, other, *, out=None):
    """out = floor(input / other)"""
    a, b, common = _common(input, other, "floor_divide")
    _check_integer_divisor(a, b, common, "div_floor_cpu")
    if _is_half_with_scalar(common, other):
        result = _result(_half_with_scalar(np.floor_divide, a, other), a)
    else:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            result = _elementwise(np.floor_divide, a, b)
    if out is not None:
        return _out(result, out)
    return record(NotImplementedBackward, result,
                  tuple(v for v in (input, other) if isinstance(v, Tensor)), op="floor_divide")


def remainder(input, other, *, out=None):
    """out = input - floor(input / other) * other (the sign follows the divisor, like Python)"""
    a, b, common = _common(input, other, "remainder")
    _check_integer_divisor(a, b, common, "remainder_cpu")
    with np.errstate(divide="ignore", invalid="ignore"):
        result = _apply(np.remainder, a, b)
        if common.kind == "f":
            # torch computes fmod and then adds the divisor, so a zero result keeps the
            # sign of input (numpy gives it the sign of other)
            result = np.where(result == 0, np.copysign(result, a), result)
    result = _result(result, a, b)
    if out is not None:
        return _out(result, out)
    if not isinstance(input, Tensor):  # number % tensor: torch has no formula
        return record(NotImplementedBackward, result, (other,), op="remainder")
    if not isinstance(other, Tensor):
        return record(RemainderBackward0, result, (input,))
    return record(RemainderBackward1, result, (input, other), saved=(input, other))


class RemainderBackward0(Node):
    """out = input - floor(input / number) * number:  d/d input = 1"""

    def backward(self, grad):
        return grad


class RemainderBackward1(Node):
    """out = input - floor(input / other) * other:  d/d input = 1,
    d/d other = -floor(input / other)"""

    _saved_names = ("self", "other")
    rounding_mode = "floor"  # fmod's quotient truncates instead (FmodBackward1)

    def backward(self, grad):
        input, other = self.saved_tensors
        return grad, -grad * div(input, other, rounding_mode=self.rounding_mode)


def fmod(input, other, *, out=None):
    """out = input - trunc(input / other) * other (the sign follows the dividend, like C)"""
    if not isinstance(input, Tensor):
        raise _invalid_arguments("fmod", input, other)
    a, b, common = _common(input, other, "fmod")
    _check_integer_divisor(a, b, common, "fmod_cpu")
    with np.errstate(divide="ignore", invalid="ignore"):
        result = _elementwise(np.fmod, a, b)
    if out is not None:
        return _out(result, out)
    if not isinstance(other, Tensor):
        return record(FmodBackward0, result, (input,))
    return record(FmodBackward1, result, (input, other), saved=(input, other))


class FmodBackward0(RemainderBackward0):
    """out = input - trunc(input / number) * number:  d/d input = 1"""


class FmodBackward1(RemainderBackward1):
    """out = input - trunc(input / other) * other:  d/d input = 1,
    d/d other = -trunc(input / other)"""

    rounding_mode = "trunc"


def pow(input, exponent, *, out=None):  # noqa: A001 - torch.pow
    """out = input ** exponent"""
    if not isinstance(exponent, Tensor) and isinstance(input, Tensor):
        result = _pow_scalar_exponent(input, exponent)
        if out is not None:
            return _out(result, out)
        return record(PowBackward0, result, (input,), saved=(input,),
                      exponent=_scalar_value(exponent))
    a, b, common = _common(input, exponent, "pow")
    if not isinstance(input, Tensor):
        # number ** tensor: torch writes into a new row-major tensor, and 1 ** anything
        # is 1 (even 1 ** nan; but True is not 1 here)
        if a == 1 and not _is_bool(_scalar_value(input)):
            result = wrap(np.ones(np.shape(b), common))
        else:
            result = _power(a, b, common)._data
            result = wrap(result if result.flags.c_contiguous else result.copy())
        if out is not None:
            return _out(result, out)
        return record(PowBackward2, result, (exponent,), saved=(exponent,), saved_output=True,
                      self=_scalar_value(input))
    result = _power(a, b, common)
    if out is not None:
        return _out(result, out)
    return record(PowBackward1, result, (input, exponent), saved=(input, exponent),
                  saved_output=True)


class PowBackward0(Node):
    """out = input ** exponent (a number):  d/d input = exponent * input ** (exponent - 1)"""

    _saved_names = ("self",)

    def backward(self, grad):
        (input,) = self.saved_tensors
        if self.exponent == 0:
            return _zeros_like(grad)  # x ** 0 is the constant 1
        return grad * _mul_scalar(input ** (self.exponent - 1), self.exponent)


def _mul_scalar(input, number):
    """input * number as torch's own gradient formulas write it (at::mul with a Scalar):
    recorded as MulBackward1, where ``x * 3`` in Python records MulBackward0."""
    with no_grad():
        result = mul(input, number)
    return record(MulBackward1, result, (input,), other=number)


class MulBackward1(Node):
    """out = input * other (a number):  d/d input = other"""

    def backward(self, grad):
        return _mul_scalar(grad, self.other)


class PowBackward1(Node):
    """out = input ** exponent:  d/d input = exponent * input ** (exponent - 1),
    d/d exponent = out * ln(input)  (taken as 0 where input is 0 and exponent >= 0)"""

    _saved_names = ("self", "exponent", "result")

    def backward(self, grad):
        input, exponent, result = self.saved_tensors
        # where exponent is 0 the result is the constant 1 (even for 0 ** 0)
        grad_input = where(exponent == 0, 0.0, grad * (exponent * input ** (exponent - 1)))
        log_input = where((input == 0) & (exponent >= 0), 0.0, log(input))
        return grad_input, grad * result * log_input


class PowBackward2(Node):
    """out = number ** exponent:  d/d exponent = out * ln(number)"""

    _saved_names = ("exponent", "result")

    def backward(self, grad):
        exponent, result = self.saved_tensors
        if self.self == 0:
            # 0 ** exponent is 0 for exponent > 0 and 1 at 0: torch takes the derivative as 0
            # there; for exponent < 0 it is out * ln 0 = inf * -inf
            return grad * where(exponent >= 0, 0.0, result * -math.inf)
        return grad * result * math.log(self.self)


def _power(a, b, common):
    """a ** b for two operands in the common dtype, as a tensor."""
    if common.kind == "b":
        raise _kernel_error("pow", common)
    if common.kind in "iu":
        try:
            return _result(_integer_power(*np.broadcast_arrays(a, b)), a, b)
        except ValueError:
            raise _broadcast_error(a, b) from None
    with np.errstate(all="ignore"):
        return _elementwise(np.power, a, b)


def _integer_power(base, exponent):
    """base ** exponent in integers (wrapping); a negative exponent gives 1, -1 or 0 as in C."""
    negative = exponent < 0
    if not negative.any():
        return np.power(base, exponent)
    result = np.power(base, np.where(negative, 0, exponent))
    sign = np.where(exponent % 2 == 0, 1, -1)
    small = np.where(base == 1, 1, np.where(base == -1, sign, 0))
    return np.where(negative, small, result).astype(result.dtype)


def _pow_scalar_exponent(input, exponent):
    """tensor ** number: torch's special cases make 2, 3, 0.5, -1 ... exact."""
    exponent = _scalar_value(exponent)
    if not isinstance(exponent, _PY_SCALARS):
        raise _operand_error("pow", exponent, 2, "exponent")
    data = input._data
    if data.dtype.kind in "biu" and not isinstance(exponent, builtins.float) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    common = result_type(input, exponent).numpy_dtype
    if exponent == 0:
        return _result(np.ones_like(data, common), data)
    if exponent == 1:
        return _result(data.astype(common), data)
    x = data.astype(common, copy=False)
    with np.errstate(all="ignore"):
        if common.kind in "iu" or common is _HALF:
            # integers and float16 convert the exponent (range-checked); float16 has no
            # shortcuts in torch
            return _result(np.power(x, checked_scalar(exponent, common)), data)
        special = _POW_SHORTCUTS.get(exponent)
        if special is not None:
            return _result(special(x), data)
        return _result(np.power(x, common.type(exponent)), data)


_POW_SHORTCUTS = {
    2: lambda x: x * x,
    3: lambda x: x * x * x,
    -2: lambda x: 1 / (x * x),
    0.5: np.sqrt,
    -0.5: lambda x: 1 / np.sqrt(x),
    -1: lambda x: 1 / x,
}


def maximum(input, other, *, out=None):
    """out = the larger of input and other, elementwise (nan wins)"""
    _require_tensors("maximum", input, other)
    a, b, _ = _common(input, other, "maximum")
    result = _elementwise(np.maximum, a, b)
    if out is not None:
        return _out(result, out)
    return record(MaximumBackward0, result, (input, other), saved=(input, other))


class MaximumBackward0(Node):
    """out = max(a, b):  d/da = 1 where a > b,  d/db = 1 where b > a;  a tie splits it in half"""

    _saved_names = ("self", "other")

    def backward(self, grad):
        a, b = self.saved_tensors
        shared = where(a == b, grad / 2, grad)
        return where(a < b, 0.0, shared), where(a > b, 0.0, shared)


def minimum(input, other, *, out=None):
    """out = the smaller of input and other, elementwise (nan wins)"""
    _require_tensors("minimum", input, other)
    a, b, _ = _common(input, other, "minimum")
    result = _elementwise(np.minimum, a, b)
    if out is not None:
        return _out(result, out)
    return record(MinimumBackward0, result, (input, other), saved=(input, other))


class MinimumBackward0(Node):
    """out = min(a, b):  d/da = 1 where a < b,  d/db = 1 where b < a;  a tie splits it in half"""

    _saved_names = ("self", "other")

    def backward(self, grad):
        a, b = self.saved_tensors
        shared = where(a == b, grad / 2, grad)
        return where(a > b, 0.0, shared), where(a < b, 0.0, shared)


def atan2(input, other, *, out=None):
    """out = angle of the point (other, input)"""
    _require_tensors("atan2", input, other)
    a, b, common = _common(input, other, "atan2")
    a, b, _ = _float_operands(input, other, a, b, common)
    with np.errstate(all="ignore"):
        result = _elementwise(np.arctan2, a, b)
    if out is not None:
        return _out(result, out)
    return record(Atan2Backward0, result, (input, other), saved=(input, other))


class Atan2Backward0(Node):
    """out = atan2(y, x):  d/dy = x / (x**2 + y**2),  d/dx = -y / (x**2 + y**2)"""

    _saved_names = ("self", "other")

    def backward(self, grad):
        y, x = self.saved_tensors
        scale = grad / (y * y + x * x)
        return scale * x, scale * -y


def where(condition, input=None, other=None):
    """out = input where condition is True, else other"""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    cond = condition._data
    if cond.dtype == np.uint8:
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and "
                      "will be removed in a future version of PyTorch. Use a boolean condition "
                      "instead.", UserWarning, stacklevel=2)
        cond = cond.astype(bool)
    elif cond.dtype.kind != "b":
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {scalar_type_name[condition.dtype]}")
    common = result_type(input, other).numpy_dtype
    a = input._data if isinstance(input, Tensor) else checked_scalar(input, common)
    b = other._data if isinstance(other, Tensor) else checked_scalar(other, common)
    try:
        result = np.where(cond, a, b).astype(common, copy=False)
    except ValueError:
        raise _broadcast_error(cond, a, b) from None
    return record(WhereBackward0, _result(result, cond, a, b), (input, other),
                  saved=(condition,))


class WhereBackward0(Node):
    """out = where(condition, a, b):  d/da = 1 where condition holds, d/db = 1 elsewhere"""

    _saved_names = ("condition",)

    def backward(self, grad):
        (condition,) = self.saved_tensors
        return where(condition, grad, 0.0), where(condition, 0.0, grad)


def clamp(input, min=None, max=None, *, out=None):  # noqa: A002 - torch's parameter names
    """out = min(max(input, min), max)"""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        with no_grad():
            result = input
            if min is not None:
                result = maximum(result, min)
            if max is not None:
                result = minimum(result, max)
        if out is not None:
            return _out(result, out)
        return record(ClampBackward0, result, (input, min, max), saved=(input, min, max))
    data = input._data
    bounds = [_scalar_value(v) for v in (min, max) if v is not None]
    for bound in bounds:
        if not isinstance(bound, _PY_SCALARS):
            raise _invalid_arguments("clamp", input, *bounds)
    # a float tensor keeps its dtype; an integer one is promoted by float bounds
    common = data.dtype if data.dtype.kind == "f" else result_type(input, *bounds).numpy_dtype
    if common.kind == "b":
        raise _kernel_error("clamp_scalar_cpu" if len(bounds) == 2 else
                            ("clamp_min_scalar_cpu" if max is None else "clamp_max_scalar_cpu"),
                            common)
    if builtins.any(b != b for b in bounds):  # a nan bound makes every element nan
        result = _result(np.full_like(data, np.nan, common), data)
    else:
        result = data.astype(common, copy=False)
        # a tie keeps the input, as torch's kernel does: clamp(-0.0, min=0.0) is -0.0
        # (np.maximum's vectorised float32 loop would give the bound)
        if min is not None:
            bound = checked_scalar(min, common)
            result = np.where(result < bound, bound, result)
        if max is not None:
            bound = checked_scalar(max, common)
            result = np.where(result > bound, bound, result)
        result = _result(result, data)
    if out is not None:
        return _out(result, out)
    return record(ClampBackward1, result, (input,), saved=(input,), min=min, max=max)


class ClampBackward1(Node):
    """out = clamp(x, min, max) with numbers:  d/dx = 1 where min <= x <= max, else 0"""

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return where(_inside(x, self.min, self.max), grad, 0.0)


def _inside(x, low, high):
    """Where ``low <= x <= high`` (a missing bound does not limit)."""
    if low is None:
        return le(x, high)
    if high is None:
        return ge(x, low)
    return logical_and(ge(x, low), le(x, high))


class ClampBackward0(Node):
    """out = clamp(x, min, max) with tensors:  d/dx = 1 where min <= x <= max,
    d/d min = 1 where x < min,  d/d max = 1 where x > max (and max wins when min > max)"""

    _saved_names = ("self", "min", "max")

    def backward(self, grad):
        x, low, high = self.saved_tensors
        grad_x = where(_inside(x, low, high), grad, 0.0)
        if low is None or high is None:
            grad_low = None if low is None else where(x < low, grad, 0.0)
            grad_high = None if high is None else where(x > high, grad, 0.0)
            return grad_x, grad_low, grad_high
        grad_low = where(logical_and(x < low, low < high), grad, 0.0)
        grad_high = where(logical_or(x > high, high < low), grad, 0.0)
        return grad_x, grad_low, grad_high


clip = clamp


def clamp_min(input, min):  # noqa: A002
    """out = max(input, min)"""
    with no_grad():
        result = clamp(input, min=min)
    if isinstance(min, Tensor):
        return record(ClampMinBackward1, result, (input, min), saved=(input, min))
    return record(ClampMinBackward0, result, (input,), saved=(input,), min=min)


class ClampMinBackward0(Node):
    """out = max(x, number):  d/dx = 1 where x >= min"""

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return where(x >= self.min, grad, 0.0)


class ClampMinBackward1(Node):
    """out = max(x, min):  d/dx = 1 where x >= min,  d/d min = 1 where x < min"""

    _saved_names = ("self", "min")

    def backward(self, grad):
        x, low = self.saved_tensors
        return where(x >= low, grad, 0.0), where(x < low, grad, 0.0)


def clamp_max(input, max):  # noqa: A002
    """out = min(input, max)"""
    with no_grad():
        result = clamp(input, max=max)
    if isinstance(max, Tensor):
        return record(ClampMaxBackward1, result, (input, max), saved=(input, max))
    return record(ClampMaxBackward0, result, (input,), saved=(input,), max=max)


class ClampMaxBackward0(Node):
    """out = min(x, number):  d/dx = 1 where x <= max"""

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return where(x <= self.max, grad, 0.0)


class ClampMaxBackward1(Node):
    """out = min(x, max):  d/dx = 1 where x <= max,  d/d max = 1 where x > max"""

    _saved_names = ("self", "max")

    def backward(self, grad):
        x, high = self.saved_tensors
        return where(x <= high, grad, 0.0), where(x > high, grad, 0.0)


def _fused(a, b, c, np_dtype):
    """a * b + c rounded once, as torch's compiled kernels compute it (float16 via float32)."""
    with np.errstate(all="ignore"):
        fused = fma64(a, b, c) if np_dtype.char == "d" else fma32(a, b, c)
        plain = a * b + c
    # inf, nan and exact zeros: the error terms would lose them; the plain formula has them
    return np.where(np.isfinite(fused) & (fused != 0), fused, plain).astype(np_dtype)


def _opmath(np_dtype):
    """The dtype torch's float kernels compute in: float16 in float32, the others in their own."""
    return np.dtype(np.float32) if np_dtype is _HALF else np_dtype


def lerp(input, end, weight):
    """out = input + weight * (end - input)"""
    np_dtype = input._data.dtype
    if np_dtype.kind != "f":
        kind = "tensor" if isinstance(weight, Tensor) else "scalar"
        raise _kernel_error(f"lerp_kernel_{kind}", np_dtype)
    for name, value in (("end", end), ("weight", weight)):
        if isinstance(value, Tensor) and value._data.dtype != np_dtype and (
                name == "end" or value._data.ndim):
            raise RuntimeError(f"expected dtype {_CPP_NAMES[np_dtype.name]} for `{name}` but got "
                               f"dtype {_CPP_NAMES[value._data.dtype.name]}")
    compute = _opmath(np_dtype)
    a, b = input._data.astype(compute), end._data.astype(compute)
    w = weight._data if isinstance(weight, Tensor) else _scalar_value(weight)
    w = np.asarray(w, compute)
    with np.errstate(all="ignore"):
        diff = b - a
        # torch rounds once and starts from the nearer end: exact at weight 0 and 1
        values = np.where(np.abs(w) < 0.5, _fused(w, diff, a, compute),
                          _fused(-diff, 1 - w, b, compute)).astype(np_dtype)
    result = _result(values, input._data, end._data)
    if not isinstance(weight, Tensor):
        return record(LerpBackward0, result, (input, end), weight=_scalar_value(weight))
    return record(LerpBackward1, result, (input, end, weight), saved=(input, end, weight))


class LerpBackward0(Node):
    """out = a + w * (b - a) with a number w:  d/da = 1 - w,  d/db = w"""

    def backward(self, grad):
        return grad * (1 - self.weight), grad * self.weight


class LerpBackward1(Node):
    """out = a + w * (b - a):  d/da = 1 - w,  d/db = w,  d/dw = b - a"""

    _saved_names = ("self", "end", "weight")

    def backward(self, grad):
        a, b, w = self.saved_tensors
        return grad * (1 - w), grad * w, grad * (b - a)


def _addc_operands(name, input, tensor1, tensor2, value):
    """The three operands' data in their common dtype, that dtype, and ``value`` in it."""
    for position, (argument, t) in enumerate((("input", input), ("tensor1", tensor1),
                                              ("tensor2", tensor2)), 1):
        if not isinstance(t, Tensor):
            raise _operand_error(name, t, position, argument)
    common = result_type(input, tensor1, tensor2).numpy_dtype
    x, a, b = (t._data.astype(common, copy=False) for t in (input, tensor1, tensor2))
    try:
        np.broadcast_shapes(x.shape, a.shape, b.shape)
    except ValueError:
        raise _broadcast_error(x, a, b) from None
    return x, a, b, common, _scalar_value(value)


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """out = input + value * tensor1 * tensor2"""
    x, a, b, common, value = _addc_operands("addcmul", input, tensor1, tensor2, value)
    if common.kind == "f":
        compute = _opmath(common)
        scaled = a.astype(compute) * compute.type(value)
        # torch: one fused multiply-add, (value * tensor1) * tensor2 + input
        values = _fused(scaled, b.astype(compute), x.astype(compute), common)
    else:
        with np.errstate(over="ignore"):  # integers wrap around, value is truncated
            values = x + common.type(value) * a * b
    result = _out(_result(np.asarray(values, common), x, a, b), out)
    if out is not None:
        return result
    return record(AddcmulBackward0, result, (input, tensor1, tensor2),
                  saved=(_kept_for(tensor2, tensor1), _kept_for(tensor1, tensor2)), value=value)


class AddcmulBackward0(Node):
    """out = x + value * t1 * t2:  d/dx = 1,  d/dt1 = value * t2,  d/dt2 = value * t1"""

    _saved_names = ("tensor1", "tensor2")

    def backward(self, grad):
        t1, t2 = self.saved_tensors  # each saved only if the other one needs a gradient
        return (grad, None if t2 is None else grad * (t2 * self.value),
                None if t1 is None else grad * (t1 * self.value))


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """out = input + value * tensor1 / tensor2"""
    x, a, b, common, value = _addc_operands("addcdiv", input, tensor1, tensor2, value)
    if common.kind != "f":
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    compute = _opmath(common)
    with np.errstate(all="ignore"):  # torch: (value * tensor1) / tensor2 + input, no fusing
        values = (a.astype(compute) * compute.type(value) / b.astype(compute)
                  + x.astype(compute)).astype(common)
    result = _out(_result(np.asarray(values), x, a, b), out)
    if out is not None:
        return result
    saved_t1 = _kept_for(tensor2, tensor1)
    saved_t2 = tensor2 if tensor1.requires_grad or tensor2.requires_grad else None
    return record(AddcdivBackward0, result, (input, tensor1, tensor2), saved=(saved_t1, saved_t2),
                  value=value)


class AddcdivBackward0(Node):
    """out = x + value * t1 / t2:  d/dx = 1,  d/dt1 = value / t2,  d/dt2 = -value * t1 / t2**2"""

    _saved_names = ("tensor1", "tensor2")

    def backward(self, grad):
        t1, t2 = self.saved_tensors
        return (grad, None if t2 is None else grad * (self.value / t2),
                None if t1 is None else -grad * (self.value * t1 / (t2 * t2)))


# ====================================================================== comparisons
_TENSOR_OR_NUMBER = (Tensor, *_NUMBERS)


def _compare(ufunc, name):
    def compare(input, other, *, out=None):
        if not (isinstance(input, Tensor) and isinstance(other, _TENSOR_OR_NUMBER)):
            raise _invalid_arguments(name, input, other)
        a, b, _ = _common(input, other, name)
        return _out(_elementwise(ufunc, a, b), out)

    compare.__name__ = name
    compare.__doc__ = f"out = input {_COMPARE_SYMBOLS[name]} other, elementwise, as bool"
    return compare


_COMPARE_SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
                    "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">",
                    "greater_equal": ">="}
eq = _compare(np.equal, "eq")
ne = _compare(np.not_equal, "ne")
lt = _compare(np.less, "lt")
le = _compare(np.less_equal, "le")
gt = _compare(np.greater, "gt")
ge = _compare(np.greater_equal, "ge")
# the long names are the same operations, only named differently in error messages
not_equal = _compare(np.not_equal, "not_equal")
less = _compare(np.less, "less")
less_equal = _compare(np.less_equal, "less_equal")
greater = _compare(np.greater, "greater")
greater_equal = _compare(np.greater_equal, "greater_equal")


def _logical(ufunc, name):
    def logical(input, other, *, out=None):
        _require_tensors(name, input, other)
        a, b = input._data.astype(bool, copy=False), other._data.astype(bool, copy=False)
        return _out(_elementwise(ufunc, a, b), out)

    logical.__name__ = name
    logical.__doc__ = f"out = {name.split('_')[1]} of the truth values of input and other"
    return logical


logical_and = _logical(np.logical_and, "logical_and")
logical_or = _logical(np.logical_or, "logical_or")
logical_xor = _logical(np.logical_xor, "logical_xor")


def logical_not(input, *, out=None):
    """out = not input, as bool"""
    return _out(_result(np.logical_not(input._data), input._data), out)


def _bitwise(ufunc, name, symbol):
    def bitwise(input, other, *, out=None):
        a, b, common = _common(input, other, name)
        if common.kind == "f":
            raise _kernel_error(f"{name}_cpu", common)
        return _out(_elementwise(ufunc, a, b), out)

    bitwise.__name__ = name
    bitwise.__doc__ = f"out = input {symbol} other, bit by bit (logical for bool)"
    return bitwise


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and", "&")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or", "|")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor", "^")


def bitwise_not(input, *, out=None):
    """out = ~input, bit by bit (logical not for bool)"""
    data = input._data
    if data.dtype.kind == "f":
        raise _kernel_error("bitwise_not_cpu", data.dtype)
    return _out(_result(np.invert(data), data), out)


def _invert(input):
    """``~input``: torch's operator says TypeError where bitwise_not says NotImplementedError."""
    if input._data.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(input)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """input == other, or |input - other| <= atol + rtol * |other|, elementwise"""
    _require_tensors("isclose", input, other)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"{scalar_type_name[input.dtype]} did not match "
                           f"{scalar_type_name[other.dtype]}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    # torch's steps, in the tensors' own dtype (bools count as the default float)
    close = eq(input, other)
    if equal_nan and input.is_floating_point():
        close = logical_or(close, logical_and(ne(input, input), ne(other, other)))
    if input._data.dtype.kind == "b":
        input, other = input.to(_dtype.get_default_dtype()), other.to(_dtype.get_default_dtype())
    allowed = add(abs(mul(other, rtol)), atol)
    actual = abs(sub(input, other))
    return logical_or(close, logical_and(isfinite(actual), le(actual, allowed)))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element is close (see isclose)"""
    return builtins.bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input, other):
    """True when both tensors have the same shape and the same values"""
    if input._data.shape != other._data.shape:
        return False
    a, b, _ = _common(input, other, "equal")
    return builtins.bool(np.array_equal(a, b))


# ====================================================================== unary
def _float_unary(ufunc, name, doc, node, saves="input"):
    """An op computing ``ufunc`` in floating point, whose gradient is ``node``'s formula.

    ``saves`` says what the formula needs: the ``"input"`` or the ``"result"``.
    """
    def op(input, *, out=None):
        data = input._data
        x = data if data.dtype.kind == "f" else data.astype(_float_dtype_for(data.dtype))
        with np.errstate(all="ignore"):
            result = _result(ufunc(x), data)
        if out is not None:
            return _out(result, out)
        if saves == "result":
            return record(node, result, (input,), saved_output=True)
        return record(node, result, (input,), saved=(input,))

    op.__name__ = name
    op.__doc__ = doc
    return op


class _UnaryBackward(Node):
    """A one-input node whose formula reads one saved tensor (the input or the result)."""

    _saved_names = ("self",)

    def backward(self, grad):
        (saved,) = self.saved_tensors
        return self.formula(grad, saved)


class _UnaryOfResult(_UnaryBackward):
    _saved_names = ("result",)


class ExpBackward0(_UnaryOfResult):
    """out = e ** x:  d/dx = out"""

    def formula(self, grad, result):
        return grad * result


class Exp2Backward0(_UnaryOfResult):
    """out = 2 ** x:  d/dx = out * ln 2"""

    def formula(self, grad, result):
        return grad * result * math.log(2.0)


class Expm1Backward0(_UnaryOfResult):
    """out = e ** x - 1:  d/dx = out + 1"""

    def formula(self, grad, result):
        return grad * (result + 1)


class LogBackward0(_UnaryBackward):
    """out = ln x:  d/dx = 1 / x"""

    def formula(self, grad, x):
        return grad / x


class Log2Backward0(_UnaryBackward):
    """out = log2 x:  d/dx = 1 / (x ln 2)"""

    def formula(self, grad, x):
        return grad / (x * math.log(2.0))


class Log10Backward0(_UnaryBackward):
    """out = log10 x:  d/dx = 1 / (x ln 10)"""

    def formula(self, grad, x):
        return grad / (x * math.log(10.0))


class Log1PBackward0(_UnaryBackward):
    """out = ln(1 + x):  d/dx = 1 / (1 + x)"""

    def formula(self, grad, x):
        return grad / (x + 1)


class SqrtBackward0(_UnaryOfResult):
    """out = sqrt x:  d/dx = 1 / (2 out)"""

    def formula(self, grad, result):
        return grad / (2 * result)


class SinBackward0(_UnaryBackward):
    """out = sin x:  d/dx = cos x"""

    def formula(self, grad, x):
        return grad * cos(x)


class CosBackward0(_UnaryBackward):
    """out = cos x:  d/dx = -sin x"""

    def formula(self, grad, x):
        return grad * -sin(x)


class TanBackward0(_UnaryOfResult):
    """out = tan x:  d/dx = 1 + out ** 2"""

    def formula(self, grad, result):
        return grad * (result * result + 1)


class AsinBackward0(_UnaryBackward):
    """out = arcsin x:  d/dx = 1 / sqrt(1 - x ** 2)"""

    def formula(self, grad, x):
        return grad * rsqrt(1 - x * x)


class AcosBackward0(_UnaryBackward):
    """out = arccos x:  d/dx = -1 / sqrt(1 - x ** 2)"""

    def formula(self, grad, x):
        return grad * -rsqrt(1 - x * x)


class AtanBackward0(_UnaryBackward):
    """out = arctan x:  d/dx = 1 / (1 + x ** 2)"""

    def formula(self, grad, x):
        return grad / (x * x + 1)


class SinhBackward0(_UnaryBackward):
    """out = sinh x:  d/dx = cosh x"""

    def formula(self, grad, x):
        return grad * cosh(x)


class CoshBackward0(_UnaryBackward):
    """out = cosh x:  d/dx = sinh x"""

    def formula(self, grad, x):
        return grad * sinh(x)


class TanhBackward0(_UnaryOfResult):
    """out = tanh x:  d/dx = 1 - out ** 2"""

    def formula(self, grad, result):
        return grad * (1 - result * result)


class SigmoidBackward0(_UnaryOfResult):
    """out = 1 / (1 + e ** -x):  d/dx = out * (1 - out)"""

    def formula(self, grad, result):
        return grad * (result * (1 - result))


class RsqrtBackward0(_UnaryOfResult):
    """out = 1 / sqrt x:  d/dx = -out ** 3 / 2"""

    def formula(self, grad, result):
        return grad * (result * result * result * -0.5)


class ReciprocalBackward0(_UnaryOfResult):
    """out = 1 / x:  d/dx = -out ** 2"""

    def formula(self, grad, result):
        return grad * -(result * result)


exp = _float_unary(np.exp, "exp", "out = e ** input", ExpBackward0, "result")
exp2 = _float_unary(np.exp2, "exp2", "out = 2 ** input", Exp2Backward0, "result")
expm1 = _float_unary(np.expm1, "expm1", "out = e ** input - 1, accurate near 0",
                     Expm1Backward0, "result")
log = _float_unary(np.log, "log", "out = ln(input)", LogBackward0)
log2 = _float_unary(np.log2, "log2", "out = log2(input)", Log2Backward0)
log10 = _float_unary(np.log10, "log10", "out = log10(input)", Log10Backward0)
log1p = _float_unary(np.log1p, "log1p", "out = ln(1 + input), accurate near 0", Log1PBackward0)
sqrt = _float_unary(np.sqrt, "sqrt", "out = input ** 0.5", SqrtBackward0, "result")
sin = _float_unary(np.sin, "sin", "out = sin(input)", SinBackward0)
cos = _float_unary(np.cos, "cos", "out = cos(input)", CosBackward0)
tan = _float_unary(np.tan, "tan", "out = tan(input)", TanBackward0, "result")
asin = arcsin = _float_unary(np.arcsin, "asin", "out = arcsin(input)", AsinBackward0)
acos = arccos = _float_unary(np.arccos, "acos", "out = arccos(input)", AcosBackward0)
atan = arctan = _float_unary(np.arctan, "atan", "out = arctan(input)", AtanBackward0)
sinh = _float_unary(np.sinh, "sinh", "out = sinh(input)", SinhBackward0)
cosh = _float_unary(np.cosh, "cosh", "out = cosh(input)", CoshBackward0)
tanh = _float_unary(np.tanh, "tanh", "out = tanh(input)", TanhBackward0, "result")


def _rsqrt(data):
    return np.reciprocal(np.sqrt(data))


def _sigmoid(data):
    # 1 / (1 + e^-x) overflows harmlessly to 0 for very negative x.
    return np.reciprocal(np.exp(-data) + 1)


def _reciprocal(data):
    return np.reciprocal(data)


rsqrt = _float_unary(_rsqrt, "rsqrt", "out = 1 / sqrt(input)", RsqrtBackward0, "result")
sigmoid = _float_unary(_sigmoid, "sigmoid", "out = 1 / (1 + e ** -input)", SigmoidBackward0,
                       "result")
reciprocal = _float_unary(_reciprocal, "reciprocal", "out = 1 / input", ReciprocalBackward0,
                          "result")


def neg(input, *, out=None):
    """out = -input"""
    data = input._data
    if data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    with np.errstate(over="ignore"):
        result = _result(np.negative(data), data)
    if out is not None:
        return _out(result, out)
    return record(NegBackward0, result, (input,))


class NegBackward0(Node):
    """out = -x:  d/dx = -1"""

    def backward(self, grad):
        return -grad


negative = neg


def positive(input):
    """out = +input: the input itself (torch refuses bool tensors)"""
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def abs(input, *, out=None):  # noqa: A001 - torch.abs
    """out = |input|"""
    data = input._data
    if data.dtype.kind == "b":
        raise _kernel_error("abs_cpu", data.dtype)
    with np.errstate(over="ignore"):
        result = _result(np.abs(data), data)
    if out is not None:
        return _out(result, out)
    return record(AbsBackward0, result, (input,), saved=(input,))


class AbsBackward0(Node):
    """out = |x|:  d/dx = sign(x) (0 at 0)"""

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return grad * sign(x)


absolute = abs


def sign(input, *, out=None):
    """out = -1, 0 or 1 by the sign of input (0 for nan, as torch computes (0 < x) - (x < 0))"""
    data = input._data
    if data.dtype.kind == "b":
        return _out(_result(data.copy(), data), out)
    result = np.sign(data)
    if data.dtype.kind == "f":
        result = np.where(np.isnan(data), data.dtype.type(0), result)
    if out is not None:
        return _out(_result(result, data), out)
    return record(SignBackward0, _result(result, data), (input,))


class _ZeroGradient(Node):
    """A step function (sign, floor, round ...): flat almost everywhere, d/dx = 0"""

    def backward(self, grad):
        return _zeros_like(grad)


class SignBackward0(_ZeroGradient):
    """out = sign(x):  d/dx = 0"""


def square(input, *, out=None):
    """out = input * input"""
    data = input._data
    if data.dtype.kind == "b":
        data = data.astype(np.int64)
    with np.errstate(over="ignore"):
        result = _result(np.multiply(data, data), input._data)
    if out is not None:
        return _out(result, out)
    # torch computes square as pow(input, 2), and records it so
    return record(PowBackward0, result, (input,), saved=(input,), exponent=2)


def relu(input):
    """out = max(input, 0)"""
    data = input._data
    if data.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    # not np.maximum: torch keeps the input where it ties with 0 (relu(-0.0) is -0.0)
    result = _result(np.where(data < 0, data.dtype.type(0), data), data)
    return record(ReluBackward0, result, (input,), saved_output=True)


class ReluBackward0(Node):
    """out = max(x, 0):  d/dx = 1 where out > 0, else 0"""

    _saved_names = ("result",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return grad * (result > 0)


def _rounding(ufunc, name, doc, node):
    def op(input, *, out=None):
        data = input._data
        if data.dtype.kind == "b":
            raise _kernel_error(f"{name}_vml_cpu", data.dtype)
        # integers are already whole: torch returns a copy unchanged
        result = _result(ufunc(data) if data.dtype.kind == "f" else data.copy(), data)
        if out is not None:
            return _out(result, out)
        return record(node, result, (input,))

    op.__name__ = name
    op.__doc__ = doc
    return op


class FloorBackward0(_ZeroGradient):
    """out = floor(x):  d/dx = 0"""


class CeilBackward0(_ZeroGradient):
    """out = ceil(x):  d/dx = 0"""


class TruncBackward0(_ZeroGradient):
    """out = trunc(x):  d/dx = 0"""


class RoundBackward0(_ZeroGradient):
    """out = round(x):  d/dx = 0"""


class RoundBackward1(_ZeroGradient):
    """out = round(x, decimals):  d/dx = 0"""


floor = _rounding(np.floor, "floor", "out = the largest integer <= input", FloorBackward0)
ceil = _rounding(np.ceil, "ceil", "out = the smallest integer >= input", CeilBackward0)
trunc = _rounding(np.trunc, "trunc", "out = input rounded toward zero", TruncBackward0)
fix = trunc


def round(input, *, decimals=None, out=None):  # noqa: A001 - torch.round
    """out = input rounded to the nearest integer, halves to even (as numpy and torch do)"""
    result = _round(input, decimals)
    if out is not None:
        return _out(result, out)
    return record(RoundBackward0 if decimals is None else RoundBackward1, result, (input,),
                  decimals=decimals)


def _round(input, decimals):
    data = input._data
    if decimals is None or data.dtype.kind != "f":
        if data.dtype.kind != "f" and (decimals is not None or data.dtype.kind == "b"):
            kernel = "round_vml_cpu" if not decimals else "round_cpu"
            raise _kernel_error(kernel, data.dtype)
        return _result(np.round(data) if data.dtype.kind == "f" else data.copy(), data)
    if decimals == 0:
        return _result(np.round(data), data)
    # torch scales in float32 for float16, and divides for negative decimals
    x = data.astype(np.float32) if data.dtype.char == "e" else data
    scale = x.dtype.type(10.0 ** builtins.abs(decimals))
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = np.round(x * scale) / scale if decimals > 0 else np.round(x / scale) * scale
    return _result(rounded.astype(data.dtype, copy=False), data)


def frac(input, *, out=None):
    """out = input - trunc(input)"""
    data = input._data
    if data.dtype.kind != "f":
        raise _kernel_error("frac_cpu", data.dtype)
    with np.errstate(invalid="ignore"):
        result = _result(data - np.trunc(data), data)
    if out is not None:
        return _out(result, out)
    return record(FracBackward0, result, (input,))


class FracBackward0(Node):
    """out = x - trunc(x):  d/dx = 1 (trunc is flat)"""

    def backward(self, grad):
        return grad


def isnan(input):
    return _result(np.isnan(input._data), input._data)


def isinf(input):
    return _result(np.isinf(input._data), input._data)


def isfinite(input):
    return _result(np.isfinite(input._data), input._data)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """out = input with nan, inf and -inf replaced (by 0 and the dtype's largest values)"""
    data = input._data
    if data.dtype.kind != "f":
        return _result(data.copy(), data)
    result = _result(np.nan_to_num(data, nan=nan, posinf=posinf, neginf=neginf), data)
    return record(NanToNumBackward0, result, (input,), saved=(input,))


class NanToNumBackward0(Node):
    """out = x with nan and infinities replaced:  d/dx = 1 where x is finite, else 0"""

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return grad * isfinite(x)


# ====================================================================== reductions
def _reduce_args(input, dim, keepdim):
    ndim = input._data.ndim
    dims = _dims(dim, ndim)
    return _axes(dims, ndim), keepdim


def _accumulated(data, reduce, **kwargs):
    """``reduce(data)`` with torch's accumulator: float32 for float16 data (rounded back
    once), and the data's own dtype for integers (numpy would widen int32 to int64)."""
    if data.dtype.char == "e":
        return np.asarray(reduce(data.astype(np.float32), **kwargs)).astype(np.float16)
    if data.dtype.kind in "iub":
        return reduce(data, dtype=data.dtype, **kwargs)  # bool: add is "or", multiply "and"
    return reduce(data, **kwargs)


def _mean_kernel(data, axis=None, keepdims=False):
    """What np.mean computes (the sum, then one division), without its Python overhead."""
    count = data.size if axis is None else math.prod(data.shape[a] for a in axis)
    return np.true_divide(_add_reduce(data, axis=axis, keepdims=keepdims), count)


# torch adds float32/float64 elements up in a fixed order (aten/src/ATen/native/cpu/
# SumKernel.cpp): in lanes of 8 (float64: 4), rows of 4 lanes, partial sums kept in up to
# 4 levels. numpy pairs them otherwise; a chain of operations can make that last bit
# visible (x.mean() * 20200910.0). A whole tensor of up to 32,768 elements (beyond that
# torch splits the work across threads) is added up in torch's order.
_SUM_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
_SUM_IN_TORCH_ORDER_UP_TO = 32768


def _add_reduce(data, axis=None, keepdims=False, **kwargs):
    """np.add.reduce; a whole float32/float64 tensor is added in torch's order."""
    whole = axis is None or len(axis) == data.ndim
    contiguous = data.flags.c_contiguous or data.flags.f_contiguous
    if not (whole and data.dtype in _SUM_LANES and 0 < data.size <= _SUM_IN_TORCH_ORDER_UP_TO
            and (contiguous or data.ndim == 1)):
        return np.add.reduce(data, axis=axis, keepdims=keepdims, **kwargs)
    if not contiguous:  # every other element, say: torch adds them one by one, in rows of 4
        return _torch_row_sum(data).reshape((1,) if keepdims else ())
    flat = data.ravel(order="K")  # in memory order, as torch walks it
    lanes = _SUM_LANES[data.dtype]
    count = flat.size // lanes * lanes
    if count == 0:  # fewer elements than lanes: added one by one, in rows of 4
        total = _torch_row_sum(flat)
    else:  # the elements after the last full lane, then the lanes' sums, from 0
        total = _added_in_order(flat[count:], flat.dtype.type(0))
        total = _added_in_order(_torch_row_sum(flat[:count].reshape(-1, lanes)), total)
    return total.reshape((1,) * data.ndim if keepdims else ())


def _added_in_order(rows, start):
    """start + rows[0] + rows[1] + ..., one addition after another."""
    if rows.ndim == 1 or len(rows) <= 4:  # numbers, or a few rows: a loop is quicker
        for row in rows:
            start = start + row  # numpy scalars keep the array's dtype and rounding
        return start
    return np.add.accumulate(np.concatenate([start[None], rows]), axis=0)[-1]


def _torch_row_sum(items):
    """torch's row_sum: items (n, ...) in rows of 4, each column added up in levels of 16
    (or more) rows, then the items left over and the 4 columns."""
    if items.ndim == 1 and len(items) < 4:  # no row of 4: simply added in order (a quick path)
        return _added_in_order(items, items.dtype.type(0))
    n4 = len(items) // 4
    rows = items[:n4 * 4].reshape((n4, 4) + items.shape[1:])
    power = builtins.max(4, (n4 - 1).bit_length() // 4)
    step = 1 << power
    levels = np.zeros((4,) + rows.shape[1:], items.dtype)
    for end in range(step, n4 + 1, step):
        levels[0] = _added_in_order(rows[end - step:end], levels[0])
        for j in range(1, 4):  # carry a level up when it holds step partial sums
            levels[j] += levels[j - 1]
            levels[j - 1] = 0
            if end & ((step - 1) << (j * power)):
                break
    partial = _added_in_order(rows[n4 // step * step:], levels[0])
    if n4 >= step:
        partial = _added_in_order(levels[1:], partial)
    partial[0] = _added_in_order(items[n4 * 4:], partial[0])
    return _added_in_order(partial[1:], partial[0])


def _quietly(degenerate, function, *args, **kwargs):
    """``function(*args, **kwargs)``, without numpy's RuntimeWarning in the ``degenerate``
    case (an empty mean, no degrees of freedom left), where torch gives nan silently.
    Only then: catching warnings costs microseconds on every call."""
    if not degenerate:
        return function(*args, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return function(*args, **kwargs)


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A001 - torch.sum
    """out = the sum of the elements over dim (all of them by default)"""
    if dtype is None and out is not None:
        dtype = out.dtype  # torch adds up in out's dtype
    data = input._data
    axes, keepdim = _reduce_args(input, dim, keepdim)
    if dtype is not None:
        data = data.astype(_dtype.as_dtype(dtype).numpy_dtype, copy=False)
    elif data.dtype.kind in "biu":
        data = data.astype(np.int64, copy=False)  # integers and bools add up in int64
    result = wrap(_accumulated(data, _add_reduce, axis=axes, keepdims=keepdim))
    if out is not None:
        return _out(result, out)
    if dim is None:
        return record(SumBackward0, result, (input,), self_sym_sizes=input._data.shape)
    return record(SumBackward1, result, (input,), self_sym_sizes=input._data.shape,
                  dim=_dims(dim, input._data.ndim), keepdim=keepdim)


class SumBackward0(Node):
    """out = sum of all x:  d/dx = 1 for every element (the gradient is broadcast back)"""

    def backward(self, grad):
        return grad.expand(self.self_sym_sizes)


class SumBackward1(Node):
    """out = sum of x over dim:  d/dx = 1, the gradient copied back along dim"""

    def backward(self, grad):
        return _unreduce(grad, self.self_sym_sizes, self.dim, self.keepdim)


def _unreduce(grad, shape, dims, keepdim):
    """Broadcast a reduction's gradient back to the input's ``shape``."""
    if not keepdim and shape:
        for d in sorted(dims):
            grad = grad.unsqueeze(d)
    return grad.expand(shape)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """out = the sum of the elements over dim, nan counted as 0"""
    with no_grad():
        result = sum(where(isnan(input), 0, input) if input.is_floating_point() else input,
                     dim, keepdim, dtype=dtype)
    return record(NansumBackward0, result, (input,), saved=(input,),
                  dim=_dims(dim, input._data.ndim), keepdim=keepdim)


class NansumBackward0(Node):
    """out = sum of x over dim, skipping nan:  d/dx = 1, and 0 where x is nan"""

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return _unreduce(grad, x._data.shape, self.dim, self.keepdim) * logical_not(isnan(x))


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """out = the average of the elements over dim"""
    data = input._data
    if dtype is not None:
        target = _dtype.as_dtype(dtype)
        if not target.is_floating_point:
            raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be "
                               "either a floating point or complex dtype. Got: "
                               f"{scalar_type_name[target]}")
        data = data.astype(target.numpy_dtype, copy=False)
    if data.dtype.kind != "f":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           "floating point or complex dtype. Got: "
                           f"{scalar_type_name[from_numpy_dtype[data.dtype]]}")
    axes, keepdim = _reduce_args(input, dim, keepdim)
    count = data.size if axes is None else math.prod(data.shape[a] for a in axes)
    result = wrap(_quietly(count == 0, _accumulated, data, _mean_kernel, axis=axes,
                           keepdims=keepdim))
    if out is not None:
        return _out(result, out)
    shape = input._data.shape
    if dim is None:
        return record(MeanBackward0, result, (input,), self_sym_sizes=shape,
                      self_sym_numel=input._data.size)
    dims = _dims(dim, input._data.ndim)
    count = 1
    for d in dims:
        count *= shape[d] if shape else 1
    return record(MeanBackward1, result, (input,), self_sym_sizes=shape, dim=dims,
                  keepdim=keepdim, count=count)


class MeanBackward0(Node):
    """out = mean of all x:  d/dx = 1 / N for every element"""

    def backward(self, grad):
        return grad.expand(self.self_sym_sizes) / self.self_sym_numel


class MeanBackward1(Node):
    """out = mean of x over dim:  d/dx = 1 / N, copied back along dim"""

    def backward(self, grad):
        return _unreduce(grad, self.self_sym_sizes, self.dim, self.keepdim) / self.count


def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """out = the product of the elements over dim"""
    if dtype is None and out is not None:
        dtype = out.dtype  # torch multiplies in out's dtype
    data = input._data
    if dtype is not None:
        data = data.astype(_dtype.as_dtype(dtype).numpy_dtype, copy=False)
    elif data.dtype.kind in "biu":
        data = data.astype(np.int64, copy=False)
    if dim is not None and not isinstance(dim, builtins.int):
        raise _invalid_arguments("prod", input, dim)  # one dim only, unlike sum
    axes, keepdim = _reduce_args(input, dim, keepdim)
    with np.errstate(over="ignore", invalid="ignore"):
        result = wrap(_accumulated(data, np.multiply.reduce, axis=axes, keepdims=keepdim))
    if out is not None:
        return _out(result, out)
    if dim is None:
        return record(ProdBackward0, result, (input,), saved=(input,), saved_output=True)
    return record(ProdBackward1, result, (input,), saved=(input,), saved_output=True,
                  dim=wrap_dim(dim, input._data.ndim), keepdim=keepdim)


class ProdBackward0(Node):
    """out = product of all x:  d/dx_i = the product of every other element (= out / x_i)"""

    _saved_names = ("self", "result")

    def backward(self, grad):
        x, result = self.saved_tensors
        if x._data.ndim == 0:
            return grad
        if not (x._data == 0).any():
            return grad * (result / x)
        return (grad * _product_of_others(x.reshape(-1), 0)).reshape(x._data.shape)


class ProdBackward1(Node):
    """out = product of x along dim:  d/dx_i = the product of the other elements (= out / x_i)"""

    _saved_names = ("self", "result")

    def backward(self, grad):
        x, result = self.saved_tensors
        if x._data.ndim == 0:
            return grad
        if not self.keepdim:
            grad, result = grad.unsqueeze(self.dim), result.unsqueeze(self.dim)
        if not (x._data == 0).any():
            return grad * (result / x)
        return grad * _product_of_others(x, self.dim)


def _product_of_others(x, dim):
    """Element i along dim: the product of all the other elements there.

    ``out / x_i`` would divide by zero where x_i is 0, so multiply what comes before
    and what comes after each element instead.
    """
    n = x._data.shape[dim]
    pieces = [x.narrow(dim, 0, i).prod(dim, keepdim=True)
              * x.narrow(dim, i + 1, n - i - 1).prod(dim, keepdim=True) for i in range(n)]
    return cat(pieces, dim)


_ValuesIndices = namedtuple("_ValuesIndices", ["values", "indices"])


class _ReturnType(_ValuesIndices):
    """torch.return_types.max & co: a (values, indices) named tuple."""

    __slots__ = ()
    _op = "max"

    def __repr__(self):
        return (f"torch.return_types.{self._op}(\nvalues={self.values!r},\n"
                f"indices={self.indices!r})")


def _return_type(op):
    return type(op, (_ReturnType,), {"__slots__": (), "_op": op})


class return_types:  # noqa: N801 - mirrors torch.return_types
    max = _return_type("max")
    min = _return_type("min")
    sort = _return_type("sort")
    topk = _return_type("topk")
    mode = _return_type("mode")
    median = _return_type("median")
    kthvalue = _return_type("kthvalue")
    cummax = _return_type("cummax")
    cummin = _return_type("cummin")
    aminmax = None


def _check_nonempty(input, name, dims):
    """torch's errors for max & co over nothing (there is no identity to return).

    ``dims`` are the dims as the caller gave them: amax names them so in the message,
    max and argmax name the wrapped dim.
    """
    data = input._data
    if data.size:
        return
    if dims is None:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' "
                           "argument.")
    for dim in dims:
        axis = wrap_dim(dim, data.ndim)
        if data.ndim and data.shape[axis] == 0:
            shown = dim if name in ("amax", "amin") else axis
            raise IndexError(f"{name}(): Expected reduction dim {shown} to have non-zero size.")


def _extreme(input, dim, keepdim, name, pick, arg_pick, other):
    if other is not None or isinstance(dim, Tensor):
        other = dim if isinstance(dim, Tensor) else other
        return (maximum if name == "max" else minimum)(input, other)
    data = input._data
    if dim is None:
        _check_nonempty(input, name, None)
        result = wrap(pick(data, axis=None))
        node = MaxBackward1 if name == "max" else MinBackward1
        return record(node, result, (input,), saved=(input,), saved_output=True)
    axis = wrap_dim(dim, data.ndim)
    _check_nonempty(input, name, (dim,))
    if data.ndim == 0:
        values, indices = wrap(data.copy()), wrap(np.zeros((), np.int64))
    else:
        values = wrap(pick(data, axis=axis, keepdims=keepdim))
        indices = wrap(arg_pick(data, axis=axis, keepdims=keepdim).astype(np.int64))
    # only the values are differentiable: record marks float results only
    node = MaxBackward0 if name == "max" else MinBackward0
    return record(node, getattr(return_types, name)(values, indices), (input,),
                  saved=(indices,), self_sym_sizes=data.shape, dim=axis, keepdim=keepdim)


class MaxBackward1(Node):
    """out = the largest element:  d/dx = 1 at the maximum, shared evenly between ties"""

    _saved_names = ("self", "result")

    def backward(self, grad):
        x, result = self.saved_tensors
        return _evenly_distributed(grad, x, result)


class MinBackward1(MaxBackward1):
    """out = the smallest element:  d/dx = 1 at the minimum, shared evenly between ties"""


def _evenly_distributed(grad, x, value):
    """``grad`` shared equally by the elements of x equal to value (nan counts as equal)."""
    hits = isnan(x) if value._data != value._data else eq(x, value)
    return hits * (grad / hits.sum())


class MaxBackward0(Node):
    """out = the largest element along dim:  d/dx = 1 at the index returned, 0 elsewhere"""

    _saved_names = ("indices",)

    def backward(self, grad):
        (indices,) = self.saved_tensors
        return _put_back(grad, indices, self.dim, self.self_sym_sizes, self.keepdim)


class MinBackward0(MaxBackward0):
    """out = the smallest element along dim:  d/dx = 1 at the index returned, 0 elsewhere"""


def _put_back(grad, indices, dim, shape, keepdim=True):
    """The gradient of picking x[..., indices, ...] along dim (max, sort, topk ...).

    Each picked value sends its gradient back to the position it came from, and
    the other positions get 0 (torch's scatter). Here as a sum over one-hot masks:
    position p receives sum_j grad[j] * (indices[j] == p).
    """
    if not shape:
        return grad
    if not keepdim:
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    # positions 0 .. n-1 laid along a new dimension right after dim
    positions = wrap(np.arange(shape[dim]).reshape((-1,) + (1,) * (len(shape) - dim - 1)))
    one_hot = eq(indices.unsqueeze(dim + 1), positions)
    return (grad.unsqueeze(dim + 1) * one_hot).sum(dim)


def max(input, dim=None, keepdim=False, *, other=None):  # noqa: A001 - torch.max
    """The largest element; with dim, (values, indices) along it; with a tensor, maximum."""
    return _extreme(input, dim, keepdim, "max", np.maximum.reduce, np.argmax, other)


def min(input, dim=None, keepdim=False, *, other=None):  # noqa: A001 - torch.min
    """The smallest element; with dim, (values, indices) along it; with a tensor, minimum."""
    return _extreme(input, dim, keepdim, "min", np.minimum.reduce, np.argmin, other)


def _amax_amin(input, dim, keepdim, name, pick):
    given = None if dim in ((), []) else (tuple(dim) if isinstance(dim, (tuple, list)) else (dim,))
    axes, keepdim = _reduce_args(input, given, keepdim)
    _check_nonempty(input, name, given)
    result = wrap(pick(input._data, axis=axes, keepdims=keepdim))
    return record(AmaxBackward0 if name == "amax" else AminBackward0, result, (input,),
                  saved=(input,), saved_output=True, dim=_dims(given, input._data.ndim),
                  keepdim=keepdim)


class AmaxBackward0(Node):
    """out = the largest elements over dim:  d/dx = 1 at the maximum, shared evenly by ties"""

    _saved_names = ("self", "result")

    def backward(self, grad):
        x, result = self.saved_tensors
        shape = x._data.shape
        grad = _unreduce(grad, shape, self.dim, self.keepdim)
        hits = eq(_unreduce(result, shape, self.dim, self.keepdim), x)
        return grad / hits.sum(self.dim, keepdim=True) * hits


class AminBackward0(AmaxBackward0):
    """out = the smallest elements over dim:  d/dx = 1 at the minimum, shared evenly by ties"""


def amax(input, dim=(), keepdim=False):
    """out = the largest elements over dim (all dims by default)"""
    return _amax_amin(input, dim, keepdim, "amax", np.maximum.reduce)


def amin(input, dim=(), keepdim=False):
    """out = the smallest elements over dim (all dims by default)"""
    return _amax_amin(input, dim, keepdim, "amin", np.minimum.reduce)


def _arg_extreme(input, dim, keepdim, name, arg_pick):
    data = input._data
    if data.dtype.kind == "b":
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if data.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        index = np.asarray(arg_pick(data), np.int64)
        return wrap(index.reshape((1,) * data.ndim) if keepdim else index)
    axis = wrap_dim(dim, data.ndim)
    _check_nonempty(input, name, (dim,))
    if data.ndim == 0:
        return wrap(np.zeros((), np.int64))
    return wrap(arg_pick(data, axis=axis, keepdims=keepdim).astype(np.int64))


def argmax(input, dim=None, keepdim=False):
    """The index of the largest element (of the flattened tensor when dim is None)"""
    return _arg_extreme(input, dim, keepdim, "argmax", np.argmax)


def argmin(input, dim=None, keepdim=False):
    """The index of the smallest element (of the flattened tensor when dim is None)"""
    return _arg_extreme(input, dim, keepdim, "argmin", np.argmin)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def _moment(input, dim, unbiased, keepdim, correction, name, reduce):
    if isinstance(dim, builtins.bool):  # legacy var(unbiased)
        dim, unbiased = None, dim
    data = input._data
    if data.dtype.kind != "f":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    axes, keepdim = _reduce_args(input, dim, keepdim)
    ddof = _correction(unbiased, correction)
    count = data.size if axes is None else math.prod(data.shape[a] for a in axes)
    if count - ddof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                      "less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    result = wrap(_quietly(count - ddof <= 0, _accumulated, data, reduce, axis=axes,
                           keepdims=keepdim, ddof=ddof))
    if name == "var":
        return record(VarBackward0, result, (input,), saved=(input,), dim=dim,
                      correction=ddof, keepdim=keepdim, count=count)
    return record(StdBackward0, result, (input,), saved=(input,), saved_output=True, dim=dim,
                  correction=ddof, keepdim=keepdim, count=count)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """out = sum((x - mean)^2) / (N - correction); correction=1 (Bessel's) by default"""
    return _moment(input, dim, unbiased, keepdim, correction, "var", np.var)


class VarBackward0(Node):
    """out = sum((x - mean)^2) / (N - correction):  d/dx = 2 (x - mean) / (N - correction)"""

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return _var_backward(self, grad, x)


def _var_backward(node, grad, x):
    dims = _dims(node.dim, x._data.ndim)
    grad = _unreduce(grad, x._data.shape, dims, node.keepdim)
    dof = node.count - node.correction
    scale = 2.0 / dof if dof > 0 else math.inf  # no degrees of freedom: torch's inf (or nan)
    return scale * grad * (x - x.mean(dims, keepdim=True))


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """out = sqrt(var(input)); correction=1 (Bessel's) by default"""
    return _moment(input, dim, unbiased, keepdim, correction, "std", np.std)


class StdBackward0(Node):
    """out = sqrt(var):  d/dx = d var/dx / (2 out)  (taken as 0 where out is 0)"""

    _saved_names = ("self", "result")

    def backward(self, grad):
        x, result = self.saved_tensors
        grad_var = where(result == 0, 0.0, grad / (result * 2))
        return _var_backward(self, grad_var, x)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """out = (sum |x|^p)^(1/p) over dim; 'fro' and the default are the 2-norm"""
    if isinstance(p, str):
        # as torch.norm: "fro" over at most two dims is the vector 2-norm; anything
        # else named by a string is a matrix norm, which needs exactly two dims
        if p == "fro" and (dim is None or isinstance(dim, builtins.int) or len(dim) <= 2):
            p = 2
        else:
            _check_float_input(input, "linalg.matrix_norm", dtype)
            dims = tuple(range(input._data.ndim)) if dim is None else tuple(dim)
            if len(dims) != 2:
                raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                                   + " ".join(str(d) for d in dims))
            raise NotImplementedError(f"the matrix norm {p!r} is not part of this engine")
    return _vector_norm(input, p, dim, keepdim, dtype=dtype)


def _check_float_input(input, name, dtype):
    data_dtype = input.dtype if dtype is None else _dtype.as_dtype(dtype)
    if not data_dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {scalar_type_name[data_dtype]}")


def _vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """out = (sum |x|^ord)^(1/ord) over dim (max |x| for inf, the count of nonzeros for 0)"""
    _check_float_input(input, "linalg.vector_norm", dtype)
    data = input._data
    if dtype is not None:
        data = data.astype(_dtype.as_dtype(dtype).numpy_dtype)
    axes, keepdim = _reduce_args(input, dim, keepdim)
    # half precision accumulates in float32, as torch does
    magnitude = np.abs(data.astype(np.float32) if data.dtype.char == "e" else data)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if ord == 2:
            result = np.sqrt(np.sum(magnitude * magnitude, axis=axes, keepdims=keepdim))
        elif ord == math.inf:
            result = np.max(magnitude, axis=axes, keepdims=keepdim)
        elif ord == -math.inf:
            result = np.min(magnitude, axis=axes, keepdims=keepdim)
        elif ord == 0:
            result = np.sum(magnitude != 0, axis=axes, keepdims=keepdim)
        elif ord == 1:
            result = np.sum(magnitude, axis=axes, keepdims=keepdim)
        else:
            result = np.sum(magnitude ** ord, axis=axes, keepdims=keepdim) ** (1.0 / ord)
    result = wrap(np.asarray(result).astype(data.dtype))
    return record(LinalgVectorNormBackward0, result, (input,), saved=(input,),
                  saved_output=True, ord=ord, dim=_dims(dim, input._data.ndim), keepdim=keepdim)


class LinalgVectorNormBackward0(Node):
    """out = (sum |x|^p)^(1/p):  d/dx = sign(x) |x|^(p-1) / out^(p-1);
    p=2: x / out,  p=1: sign(x),  p=inf: sign(x) at the largest |x| (shared by ties)"""

    _saved_names = ("self", "result")

    def backward(self, grad):
        x, norm = self.saved_tensors
        p, shape = self.ord, x._data.shape
        if p == 0:
            return None  # counting nonzeros is flat: torch sends no gradient at all
        grad = _unreduce(grad, shape, self.dim, self.keepdim)
        norm = _unreduce(norm, shape, self.dim, self.keepdim)
        if p == 1:
            return sign(x) * grad
        if p == 2:
            return grad * where(norm == 0, 0.0, x / norm)
        if p in (math.inf, -math.inf):
            magnitude = abs(x)
            hits = logical_or(eq(magnitude, norm), isnan(magnitude))
            return sign(x) * (grad / hits.sum(self.dim, keepdim=True) * hits)
        if p < 1:
            scaled = sign(x) * where(x == 0, 0.0, abs(x) ** (p - 1))
            return scaled * grad * norm ** (1 - p)
        scaled = sign(x) * abs(x) ** (p - 1) if p < 2 else x * abs(x) ** (p - 2)
        return scaled * where(norm == 0, 0.0, grad / norm ** (p - 1))


_REQUIRED = object()  # marks a parameter torch requires although it is not first


def _missing_dim(name):
    return TypeError(f"{name}() missing 1 required positional arguments: \"dim\"")


def _softmax_operand(name, input, dim, dtype):
    """The input (cast to ``dtype``), its numpy data with a class axis, and the dim, checked."""
    if dtype is not None:
        input = input.to(dtype)
    dim = wrap_dim(dim, builtins.max(input.dim(), 1))  # a 0-d tensor counts as one element
    if not input.is_floating_point():
        last = "lastdim_" if dim == builtins.max(input.dim(), 1) - 1 else ""
        raise _kernel_error(f"{name}_{last}kernel_impl", input._data.dtype)
    data = input._data.reshape(1) if input.dim() == 0 else input._data
    return input, data, dim


def softmax(input, dim, dtype=None):
    """out = exp(input) / sum(exp(input)) along dim (shifted by the max: exp never overflows)"""
    input, x, dim = _softmax_operand("softmax", input, dim, dtype)
    with np.errstate(invalid="ignore"):
        exps = np.exp(x - x.max(axis=dim, keepdims=True)) if x.size else x.copy()
        result = exps / exps.sum(axis=dim, keepdims=True)
    result = wrap(result.reshape(input._data.shape))
    return record(SoftmaxBackward0, result, (input,), saved_output=True, dim=dim)


class SoftmaxBackward0(Node):
    """out = softmax(x):  d/dx = out * (grad - sum(grad * out, dim))"""

    _saved_names = ("result",)

    def backward(self, grad):
        (out,) = self.saved_tensors
        return out * (grad - (grad * out).sum(self.dim, keepdim=True))


def log_softmax(input, dim, dtype=None):
    """out = input - log(sum(exp(input))) along dim, computed stably (log-sum-exp)"""
    input, x, dim = _softmax_operand("log_softmax", input, dim, dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = x.max(axis=dim, keepdims=True) if x.size else np.zeros((), x.dtype)
        result = x - (shift + np.log(np.exp(x - shift).sum(axis=dim, keepdims=True)))
    result = wrap(result.reshape(input._data.shape))
    return record(LogSoftmaxBackward0, result, (input,), saved_output=True, dim=dim)


class LogSoftmaxBackward0(Node):
    """out = log_softmax(x):  d/dx = grad - exp(out) * sum(grad, dim)"""

    _saved_names = ("result",)

    def backward(self, grad):
        (out,) = self.saved_tensors
        return grad - out.exp() * grad.sum(self.dim, keepdim=True)


def logsumexp(input, dim=_REQUIRED, keepdim=False):
    """out = log(sum(exp(input))) over dim, computed stably by shifting by the max"""
    if dim is _REQUIRED:
        raise _missing_dim("logsumexp")
    data = input._data
    if data.dtype.kind != "f":
        data = data.astype(_float_dtype_for(data.dtype))
    axes, _ = _reduce_args(input, dim, keepdim)
    # torch's steps, each rounded to the dtype: shift by the max (unless infinite),
    # exp, sum, log, shift back
    shift = np.max(data, axis=axes, keepdims=True) if data.size else np.zeros((), data.dtype)
    shift = np.where(np.isinf(shift), data.dtype.type(0), shift)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        total = _accumulated(np.exp(data - shift), np.sum, axis=axes, keepdims=True)
        result = np.log(total) + shift
    if not keepdim:
        result = np.squeeze(result, axis=axes) if axes is not None else result.reshape(())
    return record(LogsumexpBackward0, wrap(np.asarray(result, data.dtype)), (input,),
                  saved=(input,), saved_output=True, dim=_dims(dim, input._data.ndim),
                  keepdim=keepdim)


class LogsumexpBackward0(Node):
    """out = log(sum(exp(x))):  d/dx = exp(x) / sum(exp(x)) = exp(x - out)  (softmax)"""

    _saved_names = ("self", "result")

    def backward(self, grad):
        x, result = self.saved_tensors
        shape = x._data.shape
        grad = _unreduce(grad, shape, self.dim, self.keepdim)
        return grad * exp(x - _unreduce(result, shape, self.dim, self.keepdim))


def _cumulative(ufunc, name, node):
    def cumulative(input, dim=_REQUIRED, *, dtype=None, out=None):
        if dim is _REQUIRED:
            raise _missing_dim(name)
        if dtype is None and out is not None:
            dtype = out.dtype  # torch accumulates in out's dtype
        data = input._data
        if dtype is not None:
            data = data.astype(_dtype.as_dtype(dtype).numpy_dtype)
        elif data.dtype.kind in "biu":
            data = data.astype(np.int64)
        if data.dtype.kind == "b":
            raise _kernel_error(f"{name}_out_cpu", data.dtype)
        axis = wrap_dim(dim, data.ndim)
        if data.ndim == 0:
            result = wrap(data.copy())
        else:
            # torch accumulates float16 and float32 in double (its CPU "acc_type") and
            # rounds every partial result back to the dtype
            wide = data.astype(np.float64) if data.dtype.kind == "f" else data
            with np.errstate(over="ignore", invalid="ignore"):
                result = wrap(ufunc(wide, axis=axis, dtype=wide.dtype).astype(data.dtype,
                                                                            copy=False))
        if out is not None:
            return _out(result, out)
        if node is CumsumBackward0:  # a sum's gradient needs no values
            return record(node, result, (input,), dim=axis)
        return record(node, result, (input,), saved=(input,), saved_output=True, dim=axis)

    cumulative.__name__ = name
    return cumulative


class CumsumBackward0(Node):
    """out[i] = x[0] + ... + x[i]:  d/dx[i] = the sum of grad[j] for j >= i"""

    def backward(self, grad):
        if grad._data.ndim == 0:
            return grad
        return _reversed_cumsum(grad, self.dim)


def _reversed_cumsum(grad, dim):
    """out[i] = grad[i] + ... + grad[n-1] along dim (a cumsum from the end)"""
    return grad.sum(dim, keepdim=True) - grad.cumsum(dim) + grad


class CumprodBackward0(Node):
    """out[i] = x[0] * ... * x[i]:  d/dx[i] = sum over j >= i of grad[j] * out[j] / x[i]"""

    _saved_names = ("self", "result")

    def backward(self, grad):
        x, result = self.saved_tensors
        if x._data.ndim == 0:
            return grad
        if not (x._data == 0).any():
            return _reversed_cumsum(grad * result, self.dim) / x
        # out[j] / x[i] divides by zero where x[i] is 0: multiply the other factors instead
        dim, n = self.dim, x._data.shape[self.dim]
        pieces = []
        for i in range(n):
            before = x.narrow(dim, 0, i).prod(dim, keepdim=True)
            after = x.narrow(dim, i + 1, n - i - 1).cumprod(dim)
            # out[j] without its factor x[i], for j = i .. n-1
            others = cat([before, before * after], dim)
            pieces.append((grad.narrow(dim, i, n - i) * others).sum(dim, keepdim=True))
        return cat(pieces, dim)


cumsum = _cumulative(np.cumsum, "cumsum", CumsumBackward0)
cumsum.__doc__ = "out[i] = input[0] + ... + input[i] along dim"
cumprod = _cumulative(np.cumprod, "cumprod", CumprodBackward0)
cumprod.__doc__ = "out[i] = input[0] * ... * input[i] along dim"


def _truth_reduction(np_func):
    def reduction(input, dim=None, keepdim=False):
        data = input._data
        if isinstance(dim, (tuple, list)) and not dim:
            result = data != 0  # unlike sum, torch's all and any reduce nothing over dim=()
        else:
            axes, keepdim = _reduce_args(input, dim, keepdim)
            result = np_func(data, axis=axes, keepdims=keepdim)
        # torch keeps uint8 for uint8 input; every other dtype gives bool
        return wrap(np.asarray(result).astype(np.uint8 if data.dtype == np.uint8 else bool))

    return reduction


all = _truth_reduction(np.all)  # noqa: A001 - torch.all
all.__doc__ = "True when every element (over dim) is nonzero"
any = _truth_reduction(np.any)  # noqa: A001 - torch.any
any.__doc__ = "True when some element (over dim) is nonzero"


def count_nonzero(input, dim=None):
    """out = the number of nonzero elements over dim"""
    axes, _ = _reduce_args(input, dim, False)
    return wrap(np.asarray(np.count_nonzero(input._data, axis=axes), np.int64))


def nonzero(input, *, as_tuple=False):
    """The indices of the nonzero elements, one row per element (or one tensor per dim)"""
    data = input._data
    if as_tuple and data.ndim == 0:
        data = data.reshape(1)  # torch treats a 0-dim input as 1-dim here
    if data.ndim == 0:
        indices = np.zeros((1 if data.item() else 0, 0), np.int64)
    else:
        indices = np.argwhere(data).astype(np.int64)
    # torch fills the result column by column: its strides are (1, rows)
    rows = indices.shape[0]
    result = wrap(np.asfortranarray(indices))
    result._stride = (1, rows)
    if not as_tuple:
        return result
    # one index tensor per dimension: views of the result's columns
    return tuple(make_view(result, (rows,), (1,), d * rows) for d in range(indices.shape[1]))


def sort(input, dim=-1, descending=False, stable=False):
    """(values, indices) sorted along dim; ties keep their order"""
    data = input._data
    if data.ndim == 0:
        result = return_types.sort(wrap(data.copy()), wrap(np.zeros((), np.int64)))
        return record(SortBackward0, result, (input,), saved=(result.indices,),
                      self_sym_sizes=data.shape, dim=0)
    axis = wrap_dim(dim, data.ndim)
    key = -data if descending and data.dtype.kind != "b" else data
    if descending and data.dtype.kind == "b":
        key = ~data
    indices = np.argsort(key, axis=axis, kind="stable")
    result = return_types.sort(wrap(np.take_along_axis(data, indices, axis)),
                               wrap(indices.astype(np.int64)))
    return record(SortBackward0, result, (input,), saved=(result.indices,),
                  self_sym_sizes=data.shape, dim=axis)


class SortBackward0(Node):
    """out = x reordered along dim:  each value's gradient goes back where it came from"""

    _saved_names = ("indices",)

    def backward(self, grad):
        (indices,) = self.saved_tensors
        return _put_back(grad, indices, self.dim, self.self_sym_sizes)


def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending, stable).indices


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """(values, indices) of the k largest (or smallest) elements along dim"""
    ndim = input._data.ndim
    with no_grad():
        values, indices = sort(input, dim, descending=largest)
        if not 0 <= k <= (values.shape[dim] if ndim else 1):
            raise RuntimeError("selected index k out of range")
        if ndim:  # (a 0-d tensor is its own single largest value)
            values, indices = values.narrow(dim, 0, k), indices.narrow(dim, 0, k)
        result = return_types.topk(values.contiguous(), indices.contiguous())
    return record(TopkBackward0, result, (input,), saved=(result.indices,),
                  self_sym_sizes=input._data.shape, dim=wrap_dim(dim, ndim) if ndim else 0)


class TopkBackward0(SortBackward0):
    """out = the k largest values along dim:  their gradients go back where they came from"""


# ====================================================================== matrix products
# C++ type names in torch's "expected m1 and m2 to have the same dtype" messages
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def _products(a, b):
    """a @ b in numpy; float16 accumulates in float32 (as torch's kernels do) and rounds once."""
    if a.dtype.char == "e":
        return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
    with np.errstate(over="ignore"):
        return np.matmul(a, b)


def _check_mm(a, b, rows=None):
    """torch's checks for (rows x m) @ (m2 x p), in torch's order: shapes, dtypes, bool."""
    (n, m), (m2, p) = a.shape, b.shape
    if m != m2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({n if rows is None else rows}x{m} and {m2}x{p})")
    if a.dtype != b.dtype:
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{_CPP_NAMES[a.dtype.name]} != {_CPP_NAMES[b.dtype.name]}")
    if a.dtype.kind == "b":
        raise _kernel_error("addmm_impl_cpu_", a.dtype)


def _check_mv(mat, vec, out=None):
    (n, m), (k,) = mat.shape, vec.shape
    if m != k:
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{m}), vec ({k})")
    result_dtype = vec.dtype if out is None else out._data.dtype
    if not mat.dtype == vec.dtype == result_dtype:
        names = [scalar_type_name[from_numpy_dtype[d]] for d in (result_dtype, mat.dtype,
                                                                  vec.dtype)]
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{names[0]}, {names[1]}, and {names[2]}")
    if mat.dtype.kind == "b":
        raise _kernel_error("addmv_impl_cpu", mat.dtype)


def _check_bmm(a, b, batch, m, k):
    if m != k:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{batch}, {m}] but got: [{batch}, {k}].")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name[from_numpy_dtype[a.dtype]]} "
                           f"but found {scalar_type_name[from_numpy_dtype[b.dtype]]}")
    if a.dtype.kind == "b":
        raise _kernel_error("bmm", a.dtype)


def _matmul_out(result, out):
    """out= for matrix products: the dtype must be the result's own (no casting)."""
    if out is not None and out._data.dtype != result._data.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype "
                           f"{_CPP_NAMES[result._data.dtype.name]}, but got "
                           f"{_CPP_NAMES[out._data.dtype.name]} instead")
    return _out(result, out)


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """out = beta * input + alpha * (mat1 @ mat2)  (F.linear's bias + x @ W.T)"""
    _require_tensors("addmm", mat1, mat2, "mat2")
    if mat1._data.ndim != 2 or mat2._data.ndim != 2:
        raise RuntimeError(f"{'mat1' if mat1._data.ndim != 2 else 'mat2'} must be a matrix, got "
                           f"{builtins.max(mat1._data.ndim, mat2._data.ndim)}-D tensor")
    # torch compares the dtypes before the shapes, the bias's first (F.linear on int input)
    for name, tensor in (("self", input), ("mat1", mat1)):
        if tensor.dtype is not mat2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{scalar_type_name[tensor.dtype]} and "
                               f"{scalar_type_name[mat2.dtype]}")
    _check_mm(mat1._data, mat2._data)
    products = _products(mat1._data, mat2._data)
    if alpha != 1:
        products = products * products.dtype.type(alpha)
    with no_grad():  # (expand gives torch's error when input does not broadcast)
        bias = input.expand(products.shape)._data
    # beta = 0 ignores input entirely (its nan and inf too), as BLAS does
    if beta != 1:
        bias = np.zeros((), products.dtype) if beta == 0 else bias * products.dtype.type(beta)
    result = wrap(bias + products)
    if out is not None:
        return _matmul_out(result, out)
    # each matrix is kept only if the other one needs a gradient (its formula reads it)
    return record(AddmmBackward0, result, (input, mat1, mat2),
                  saved=(_kept_for(mat2, mat1), _kept_for(mat1, mat2)), alpha=alpha, beta=beta,
                  mat1_sym_sizes=mat1._data.shape, mat1_sym_strides=mat1.stride(),
                  mat2_sym_sizes=mat2._data.shape, mat2_sym_strides=mat2.stride())


def _column_major(sizes, strides):
    return strides[0] == 1 and strides[1] == sizes[0]


def _mat1_grad(grad, mat2, sizes, strides):
    """d/dA of A @ B = grad @ B.T, computed as (B @ grad.T).T when A is column-major (a
    transposed matrix), as torch does: the gradient then has A's layout, and no copy is needed."""
    if _column_major(sizes, strides):
        return mat2.mm(grad.t()).t()
    return grad.mm(mat2.t())


def _mat2_grad(grad, mat1, sizes, strides):
    """d/dB of A @ B = A.T @ grad, computed as (grad.T @ A).T when B is column-major (as
    ``weight.t()`` in ``F.linear``): the weight's gradient comes back row-major, like the weight."""
    if _column_major(sizes, strides):
        return grad.t().mm(mat1).t()
    return mat1.t().mm(grad)


class AddmmBackward0(Node):
    """out = beta * x + alpha * A @ B:  d/dx = beta,  d/dA = alpha * grad @ B.T,
    d/dB = alpha * A.T @ grad"""

    _saved_names = ("mat1", "mat2")

    def backward(self, grad):
        a, b = self.saved_tensors

        def scaled(g, factor):
            return g if factor == 1 else g * factor
        grad_a = None if b is None else _mat1_grad(grad, b, self.mat1_sym_sizes,
                                                   self.mat1_sym_strides)
        grad_b = None if a is None else _mat2_grad(grad, a, self.mat2_sym_sizes,
                                                   self.mat2_sym_strides)
        return (scaled(grad, self.beta), None if grad_a is None else scaled(grad_a, self.alpha),
                None if grad_b is None else scaled(grad_b, self.alpha))


def mm(input, mat2, *, out=None):
    """out = input @ mat2 for two matrices (n x m) @ (m x p)"""
    _require_tensors("mm", input, mat2, "mat2")
    if input._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm(input._data, mat2._data)
    result = wrap(_products(input._data, mat2._data))
    if out is not None:
        return _matmul_out(result, out)
    return record(MmBackward0, result, (input, mat2), saved=(input, mat2))


class MmBackward0(Node):
    """out = A @ B:  d/dA = grad @ B^T,  d/dB = A^T @ grad"""

    _saved_names = ("self", "mat2")

    def backward(self, grad):
        a, b = self.saved_tensors  # (both kept: their layouts choose the formulas too)
        return (_mat1_grad(grad, b, a._data.shape, a.stride()),
                _mat2_grad(grad, a, b._data.shape, b.stride()))


def mv(input, vec, *, out=None):
    """out = input @ vec for a matrix and a vector"""
    _require_tensors("mv", input, vec, "vec")
    mat, v = input._data, vec._data
    if mat.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {mat.ndim}, {v.ndim}")
    _check_mv(mat, v, out)
    result = wrap(_products(mat, v))
    if out is not None:
        return _out(result, out)
    return record(MvBackward0, result, (input, vec), saved=(input, vec))


class MvBackward0(Node):
    """out = A @ v:  d/dA = outer(grad, v),  d/dv = A^T @ grad"""

    _saved_names = ("self", "vec")

    def backward(self, grad):
        a, v = self.saved_tensors
        return grad.unsqueeze(1) * v, a.t().mv(grad)


def dot(input, other, *, out=None):
    """out = sum(input * other) for two vectors of the same length"""
    _require_tensors("dot", input, other, "tensor")
    a, b = input._data, other._data
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{scalar_type_name[input.dtype]} and {scalar_type_name[other.dtype]}")
    n, k = a.shape[0], b.shape[0]
    if n != k:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{k}] to "
                           f"have the same number of elements, but got {n} and {k} elements "
                           "respectively")
    if a.dtype.kind == "b":
        raise _kernel_error("dot", a.dtype)
    if out is not None and out._data.dtype != a.dtype:
        raise RuntimeError(f"result dtype {scalar_type_name[out.dtype]} does not match input "
                           f"dtype {scalar_type_name[input.dtype]}")
    result = wrap(_products(a, b))
    if out is not None:
        return _out(result, out)
    return record(DotBackward0, result, (input, other), saved=(input, other))


class DotBackward0(Node):
    """out = sum(a * b):  d/da = grad * b,  d/db = grad * a"""

    _saved_names = ("self", "tensor")

    def backward(self, grad):
        a, b = self.saved_tensors
        return grad * b, grad * a


inner = dot
vdot = dot


def bmm(input, mat2, *, out=None):
    """out[b] = input[b] @ mat2[b] for two batches of matrices"""
    _require_tensors("bmm", input, mat2, "mat2")
    a, b = input._data, mat2._data
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    _check_bmm(a, b, a.shape[0], a.shape[2], b.shape[1])
    result = wrap(_products(a, b))
    if out is not None:
        return _matmul_out(result, out)
    return record(BmmBackward0, result, (input, mat2), saved=(input, mat2))


class BmmBackward0(Node):
    """out[i] = A[i] @ B[i]:  d/dA = grad @ B^T,  d/dB = A^T @ grad, batch by batch"""

    _saved_names = ("self", "mat2")

    def backward(self, grad):
        a, b = self.saved_tensors
        return grad.bmm(b.mT), a.mT.bmm(grad)


def _foldable(tensor, transposed=False):
    """Whether torch's matmul folds ``tensor``'s batch dimensions into rows (a free view)."""
    if tensor._data.size == 0:
        return True
    shape, strides = list(tensor._data.shape), list(tensor.stride())
    if transposed:  # the strides of tensor.mT
        shape[-2:], strides[-2:] = shape[:-3:-1], strides[:-3:-1]
    return builtins.all(strides[i] == strides[i + 1] * shape[i + 1]
                        for i in range(len(shape) - 2))


def _should_fold(input, other):
    """torch's choice, when recording: fold the larger operand's batch into one mm / mv.

    It folds whenever the smaller operand requires grad (its gradient is then one mm,
    not a bmm summed over the batch), even if the fold has to copy.
    """
    larger_first = input._data.ndim >= other._data.ndim
    big, small = (input, other) if larger_first else (other, input)
    if big._data.ndim < 3 or small._data.ndim > 2:
        return False
    if small.requires_grad:
        return True
    if input._data.ndim == 2:
        return False  # the result would need a transposed copy
    return _foldable(big, transposed=not larger_first)


def _unsafe_view(tensor, shape):
    """A fresh result seen with another shape (torch's _unsafe_view: no copy, no view)."""
    from ._views import UnsafeViewBackward0  # (_views imports this module)
    result = wrap(tensor._data.reshape(shape))
    return record(UnsafeViewBackward0, result, (tensor,), self_sym_sizes=tensor._data.shape)


def _recorded_matmul(input, other):
    """matmul of 3-D and larger operands built from differentiable pieces, as torch does.

    Recording torch's decomposition gives the same graph: e.g. (2, 3, 4) @ (4, 5) is
    a view to (6, 4), one mm, and an _unsafe_view back to (2, 3, 5).
    """
    da, db = input._data.ndim, other._data.ndim
    if _should_fold(input, other):
        transpose = db > da  # the larger operand is other: compute (other^T @ input^T)^T
        big = other.mT if transpose else input
        small = (input.t() if da == 2 else input) if transpose else other
        rows = big._data.shape[:-1]
        folded = big.reshape(math.prod(rows), big._data.shape[-1])
        if small._data.ndim == 1:
            return _unsafe_view(folded.mv(small), rows)
        result = _unsafe_view(folded.mm(small), rows + small._data.shape[1:])
        return result.mT.contiguous() if transpose else result
    n, m = (input._data.shape[-2] if da > 1 else 1), input._data.shape[-1]
    k, p = (other._data.shape[-2], other._data.shape[-1]) if db > 1 else (other._data.shape[0], 1)
    a_batch, b_batch = input._data.shape[:-2], other._data.shape[:-2]
    if da == 3 and db == 3 and a_batch[0] != b_batch[0]:
        # a batch of one that requires grad is squeezed so that the matmul folds
        if a_batch[0] == 1 and input.requires_grad:
            return _recorded_matmul(input.squeeze(0), other)
        if b_batch[0] == 1 and other.requires_grad:
            return _recorded_matmul(input, other.squeeze(0))
    try:
        batch = np.broadcast_shapes(a_batch, b_batch)
    except ValueError:
        raise _broadcast_error(np.empty(a_batch), np.empty(b_batch)) from None
    count = math.prod(batch)
    left = input.expand(batch + (n, m)).reshape(count, n, m)
    if db == 1:
        right = other.expand(batch + (k,)).reshape(count, k).unsqueeze(2)
    else:
        right = other.expand(batch + (k, p)).reshape(count, k, p)
    product = left.bmm(right)
    shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    return _unsafe_view(product.squeeze(-1) if db == 1 else product, shape)


def matmul(input, other, *, out=None):
    """out = input @ other: dot, matrix-vector, matrix-matrix or batched, by the dims.

    As torch: 1-D operands count as a row (left) or a column (right); a batch of
    matrices times a matrix or vector is folded into one big mm/mv; everything else
    broadcasts the batch dimensions and multiplies batch by batch.
    """
    _require_tensors("matmul", input, other)
    a, b = input._data, other._data
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 1 and db == 1:
        return _matmul_out(dot(input, other), out)
    if da == 2 and db == 1:
        return _matmul_out(mv(input, other), out)
    if da == 1 and db == 2:
        if out is None and _grad_enabled[0] and (input._requires_grad or other._requires_grad):
            return input.unsqueeze(0).mm(other).squeeze_(0)  # recorded as torch does
        _check_mm(a[None], b)
        return _matmul_out(wrap(_products(a, b)), out)
    if da == 2 and db == 2:
        return mm(input, other, out=out)
    if out is None and _grad_enabled[0] and (input._requires_grad or other._requires_grad):
        return _recorded_matmul(input, other)
    if da >= 3 and db <= 2 and _foldable(input):
        rows = a.size // a.shape[-1]
        if db == 1:
            _check_mv(a.reshape(rows, a.shape[-1]), b)
        else:
            _check_mm(a.reshape(rows, a.shape[-1]), b, rows)
        return _matmul_out(wrap(_products(a, b)), out)
    # batched: the batch dimensions broadcast; a 1-D operand is a row / a column
    a_batch, b_batch = a.shape[:-2], b.shape[:-2]
    try:
        batch = np.broadcast_shapes(a_batch, b_batch)
    except ValueError:
        raise _broadcast_error(np.empty(a_batch), np.empty(b_batch)) from None
    m, k = a.shape[-1], (b.shape[0] if db == 1 else b.shape[-2])
    _check_bmm(a, b, math.prod(batch), m, k)
    return _matmul_out(wrap(_products(a, b)), out)


def outer(input, vec2):
    """out[i, j] = input[i] * vec2[j]"""
    _require_tensors("outer", input, vec2, "vec2")
    for name, t in (("self", input), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got "
                               f"{t._data.ndim}-D")
    return mul(input.reshape(-1, 1), vec2)


ger = outer


# ====================================================================== joining
def _check_cat_inputs(tensors, name):
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    if len(tensors) == 0:
        if name == "cat":
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")


def _cat_out(result, out):
    """out= for cat and stack: the result must be castable to out's dtype."""
    if out is not None and not _dtype.can_cast(result.dtype, out.dtype):
        raise TypeError("torch.cat(): input types can't be cast to the desired output type "
                        f"{scalar_type_name[out.dtype]}")
    return _out(result, out)


def cat(tensors, dim=0, *, out=None):
    """Join tensors along an existing dimension (sizes must match in every other one)"""
    _check_cat_inputs(tensors, "cat")
    common = result_type(*tensors).numpy_dtype
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    # torch still skips legacy empty 1-D tensors of shape (0,) in cat
    parts = [t for t in tensors if t._data.shape != (0,)] or [tensors[0]]
    first = parts[0]._data
    axis = wrap_dim(dim, first.ndim)
    for i, t in enumerate(tensors):
        shape = t._data.shape
        if shape == (0,):
            continue
        if len(shape) != first.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} "
                               f"and {len(shape)}")
        for d in range(first.ndim):
            if d != axis and shape[d] != first.shape[d]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {axis}. "
                                   f"Expected size {first.shape[d]} but got size {shape[d]} "
                                   f"for tensor number {i} in the list.")
    arrays = [t._data.astype(common, copy=False) for t in parts]
    # the result is row-major whatever the inputs' layouts (numpy would keep theirs)
    result = wrap(np.ascontiguousarray(np.concatenate(arrays, axis=axis)))
    if out is not None:
        return _cat_out(result, out)
    return record(CatBackward0, result, tuple(tensors), dim=axis,
                  sizes=[t._data.shape[axis] if t._data.shape != (0,) else 0 for t in tensors])


class CatBackward0(Node):
    """out = the inputs joined along dim:  each input's gradient is its own piece of grad"""

    def backward(self, grad):
        pieces, start = [], 0
        for size in self.sizes:
            pieces.append(grad.narrow(self.dim, start, size))
            start += size
        return tuple(pieces)


concat = concatenate = cat


def stack(tensors, dim=0, *, out=None):
    """Join tensors of equal shape along a new dimension"""
    _check_cat_inputs(tensors, "stack")
    first = tensors[0]._data.shape
    axis = wrap_dim(dim, len(first) + 1)
    for i, t in enumerate(tensors):
        if t._data.shape != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(first)} at entry 0 and {list(t._data.shape)} at entry {i}")
    common = result_type(*tensors).numpy_dtype
    arrays = [t._data.astype(common, copy=False) for t in tensors]
    result = wrap(np.ascontiguousarray(np.stack(arrays, axis=axis)))
    if out is not None:
        return _cat_out(result, out)
    return record(StackBackward0, result, tuple(tensors), dim=axis)


class StackBackward0(Node):
    """out = the inputs stacked along a new dim:  each input's gradient is its slice of grad"""

    def backward(self, grad):
        return tuple(grad.select(self.dim, i) for i in range(grad._data.shape[self.dim]))


def hstack(tensors):
    """Join along dim 1 (dim 0 for vectors); numbers count as vectors"""
    _check_cat_inputs(tensors, "hstack")
    tensors = [t.reshape(1) if t._data.ndim == 0 else t for t in tensors]
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors):
    """Join along dim 0; vectors and numbers count as rows"""
    _check_cat_inputs(tensors, "vstack")
    return cat([t if t._data.ndim >= 2 else t.reshape(1, -1) for t in tensors], 0)


# ====================================================================== out=
def _out(result, out):
    """Write ``result`` into ``out`` when given (resizing it as torch does), else return it."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if not _dtype.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {scalar_type_name[result.dtype]} can't be cast to the "
                           f"desired output type {scalar_type_name[out.dtype]}")
    if out._data.shape != result._data.shape:
        if out._data.size != 0:
            warnings.warn("An output with one or more elements was resized since it had shape "
                          f"{list(out._data.shape)}, which does not match the required output "
                          f"shape {list(result._data.shape)}. This behavior is deprecated, and "
                          "in a future PyTorch release outputs will not be resized unless they "
                          "have zero elements. You can explicitly reuse an out tensor t by "
                          "resizing it, inplace, to zero elements with t.resize_(0).",
                          UserWarning, stacklevel=3)
        out._data = np.empty(result._data.shape, out._data.dtype)
        out._stride = out._storage = None
        out._offset = 0
    np.copyto(out._data, result._data, casting="unsafe")
    out._bump_version()
    return out
