"""Elementwise functions of one tensor: exp, log, sin, sqrt, relu, rounding ...
"""
import builtins
import inspect
import math

import numpy as np

from ..fidelity import float32_math, messages, signatures, special
from ..fidelity.floating import quietly
from ..fidelity.dtypes import scalar_type_name
from ..core.grad_mode import mode, no_grad
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from .common import histories_read_first
from .common import (elementwise_shape, float_dtype_for, not_implemented_for,
                     number_parameters, out_of_inputs_dtype, overloads, takes_out, tensor_inputs,
                     wrap_elementwise, zero_gradient_like)
from .creation import ones_like, zeros_like
from .arithmetic import (PowBackward0, add_scalar, addcmul, mul_scalar, number_minus, sub_scalar,
                         where)

__all__ = ["abs", "absolute", "acos", "asin", "atan", "ceil", "cos", "cosh", "exp", "exp2",
           "expm1", "fix", "floor", "frac", "isfinite", "isinf", "isnan", "log", "log10", "log1p",
           "log2", "nan_to_num", "neg", "negative", "positive", "reciprocal", "relu", "round",
           "rsqrt", "sigmoid", "sign", "sgn", "sin", "sinh", "sqrt", "square", "tan", "tanh",
           "trunc", "arccos", "arcsin", "arctan", "lgamma", "digamma", "polygamma", "asinh",
           "acosh", "atanh", "arcsinh", "arccosh", "arctanh"]

# ====================================================================== unary
def _float_unary(ufunc, name, doc, node, saves="input", float32=None, float16=None,
                 float16_in_float64=False):
    """An op computing ``ufunc`` in floating point, whose gradient is ``node``'s formula.

    ``saves`` says what the formula needs: the ``"input"`` or the ``"result"``.
    ``float32``: the function torch's float32 kernel computes, last bits included
    (engine/fidelity/float32_math.py), where it differs from numpy's; float16 computes
    in float32 and rounds once, as torch's kernels do, unless ``float16`` says otherwise.
    ``float16_in_float64``: float16 computes in float64, rounded to float32, then float16:
    torch's float32 results (SLEEF's) of every float16 value round to those on any CPU, where
    numpy's float32 functions change with the CPU (AVX-512: its own SIMD code).
    """
    def op(input):
        data = input._data
        x = data if data.dtype.kind == "f" else data.astype(float_dtype_for(data.dtype))
        if float16 is not None and x.dtype == np.float16:
            with np.errstate(all="ignore"):
                return _recorded(input, wrap_elementwise(float16(x), data))
        half = x.dtype == np.float16
        if half:  # torch computes float16 in float32 and rounds once (numpy's float16
            # functions may round each step, or approximate)
            x = x.astype(np.float64 if float16_in_float64 else np.float32)
        compute = float32 if float32 is not None and x.dtype == np.float32 else ufunc
        with np.errstate(all="ignore"):
            values = compute(x)
            result = wrap_elementwise(values.astype(np.float32).astype(np.float16) if half
                                      else values, data)
        return _recorded(input, result)

    def _recorded(input, result):
        if saves == "result":
            return record(node, result, (input,), saved_output=True)
        return record(node, result, (input,), saved=(input,))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return takes_out(op)


class _UnaryBackward(Node):
    """A one-input node whose formula reads one saved tensor (the input or the result)."""

    jvp = "element_wise"  # forward mode: this formula of the tangent

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
        return mul_scalar(grad * result, math.log(2.0))  # (torch's M_LN2, a C++ number)


class Expm1Backward0(_UnaryOfResult):
    """out = e ** x - 1:  d/dx = out + 1"""

    def formula(self, grad, result):
        return grad * add_scalar(result, 1)  # (C++'s result + 1: AddBackward1)


class LogBackward0(_UnaryBackward):
    """out = ln x:  d/dx = 1 / x"""

    def formula(self, grad, x):
        return grad / x


class Log2Backward0(_UnaryBackward):
    """out = log2 x:  d/dx = 1 / (x ln 2)"""

    def formula(self, grad, x):
        return grad / mul_scalar(x, math.log(2.0))


class Log10Backward0(_UnaryBackward):
    """out = log10 x:  d/dx = 1 / (x ln 10)"""

    def formula(self, grad, x):
        return grad / mul_scalar(x, math.log(10.0))


class Log1PBackward0(_UnaryBackward):
    """out = ln(1 + x):  d/dx = 1 / (1 + x)"""

    def formula(self, grad, x):
        return grad / add_scalar(x, 1)


class SqrtBackward0(_UnaryOfResult):
    """out = sqrt x:  d/dx = 1 / (2 out)"""

    def formula(self, grad, result):
        return grad / mul_scalar(result, 2)  # (C++'s 2 * result: MulBackward1)


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
        return grad * add_scalar(result.pow(2), 1)  # (torch's 1 + result.pow(2))


class AsinBackward0(_UnaryBackward):
    """out = arcsin x:  d/dx = 1 / sqrt(1 - x ** 2)"""

    def formula(self, grad, x):
        return grad * rsqrt(add_scalar(-x * x, 1))  # (torch's -x * x + 1)


class AcosBackward0(_UnaryBackward):
    """out = arccos x:  d/dx = -1 / sqrt(1 - x ** 2)"""

    def formula(self, grad, x):
        return grad * -rsqrt(add_scalar(-x * x, 1))


class AtanBackward0(_UnaryBackward):
    """out = arctan x:  d/dx = 1 / (1 + x ** 2)"""

    def formula(self, grad, x):
        return grad / add_scalar(x * x, 1)


class AsinhBackward0(_UnaryBackward):
    """out = arsinh x:  d/dx = 1 / sqrt(x ** 2 + 1)"""

    def formula(self, grad, x):
        return grad * add_scalar(x.pow(2), 1).rsqrt()


class AcoshBackward0(_UnaryBackward):
    """out = arcosh x:  d/dx = 1 / sqrt(x ** 2 - 1)"""

    def formula(self, grad, x):
        return grad * sub_scalar(x * x, 1).rsqrt()


class AtanhBackward0(_UnaryBackward):
    """out = artanh x:  d/dx = 1 / (1 - x ** 2)"""

    def formula(self, grad, x):
        # torch's grad * 1 / (1 - x.pow(2)): one division (C++'s 1 - t: number_minus)
        return mul_scalar(grad, 1) / number_minus(1, x.pow(2))


class _InplaceNotDifferentiable(_UnaryBackward):
    """torch's asinh_, acosh_ and atanh_ record a node that has no derivative formula (the
    out-of-place ops have one): backward through it raises."""

    jvp = None  # (forward mode: torch's error, as messages.no_forward_ad words it)

    def formula(self, grad, x):
        raise NotImplementedError(f"the derivative for 'inplace version of {self.op}' is not "
                                  "implemented.")


class AsinhBackward1(_InplaceNotDifferentiable):
    op = "asinh"


class AcoshBackward1(_InplaceNotDifferentiable):
    op = "acosh"


class AtanhBackward1(_InplaceNotDifferentiable):
    op = "atanh"


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
        return _recorded_as(TanhBackwardBackward0, _tanh_backward, grad, result)


def _tanh_backward(grad, result):
    # torch's kernel rounds 1 - out * out once (a fused multiply-add): addcmul does too;
    # float16 computes a * (1 - b * b) in float32, rounded once
    if grad._data.dtype == np.float16 and result._data.dtype == np.float16:
        values = _tanh_backward(grad.float(), result.float()).half()._data
        return wrap_elementwise(values, grad._data, result._data)  # (laid out as torch's)
    return grad * addcmul(ones_like(result), result, result, value=-1)


def _recorded_as(node, formula, grad, result):
    """``formula(grad, result)``; under create_graph recorded as torch records it: one node
    (``TanhBackwardBackward0`` ...) for the whole formula, linked to grad and result."""
    if not mode.grad_enabled:
        return formula(grad, result)
    with no_grad():
        out = formula(grad, result)
    return record(node, out, (grad, result), saved=(grad, result))


class TanhBackwardBackward0(Node):
    """out = tanh's gradient grad * (1 - y ** 2) (recorded under create_graph):
    d/dgrad = 1 - y ** 2, d/dy = -2 y grad"""

    _saved_names = ("grad_output", "output")

    def backward(self, gg):
        grad, result = self.saved_tensors
        return (_recorded_as(TanhBackwardBackward0, _tanh_backward, gg, result),
                gg * (mul_scalar(result, -2.0) * grad))

    def jvp(self, grad_t, result_t):
        """Forward mode, torch's formula (its zero signs): grad_t (1 - y ** 2) + y_t (-2 y grad),
        a missing grad_t taken as zeros, a missing y_t's term left out."""
        grad, result = self.saved_tensors
        first = _tanh_backward(zeros_like(grad) if grad_t is None else grad_t, result)
        return first if result_t is None else first + result_t * (mul_scalar(result, -2.0) * grad)


class SigmoidBackward0(_UnaryOfResult):
    """out = 1 / (1 + e ** -x):  d/dx = out * (1 - out)"""

    def formula(self, grad, result):
        return _recorded_as(SigmoidBackwardBackward0, _sigmoid_backward, grad, result)


def sigmoid_backward(grad, result):
    """torch's sigmoid_backward (grad * (1 - y) * y), recorded under create_graph as one
    SigmoidBackwardBackward0 node (for the formulas of other ops that call it)."""
    return _recorded_as(SigmoidBackwardBackward0, _sigmoid_backward, grad, result)


def _sigmoid_backward(grad, result):
    return grad * (1 - result) * result  # in torch's order: (grad * (1 - out)) * out


class SigmoidBackwardBackward0(Node):
    """out = sigmoid's gradient grad * (1 - y) * y (recorded under create_graph):
    d/dgrad = (1 - y) y, d/dy = grad (1 - 2 y)"""

    _saved_names = ("grad_output", "output")

    def backward(self, gg):
        grad, result = self.saved_tensors
        return (_recorded_as(SigmoidBackwardBackward0, _sigmoid_backward, gg, result),
                # (torch's order: (gg * grad) * (1 - 2 y); the first product's layout leads)
                gg * grad * add_scalar(mul_scalar(result, -2.0), 1))

    def jvp(self, grad_t, result_t):
        """Forward mode, torch's formula: grad_t (1 - y) y + y_t (grad (1 - 2 y)), a missing
        grad_t taken as zeros, a missing y_t's term left out."""
        grad, result = self.saved_tensors
        first = _sigmoid_backward(zeros_like(grad) if grad_t is None else grad_t, result)
        return first if result_t is None else first + result_t * (grad * (1 - 2 * result))


class RsqrtBackward0(_UnaryOfResult):
    """out = 1 / sqrt x:  d/dx = -out ** 3 / 2"""

    def formula(self, grad, result):
        # torch's order, -0.5 * grad * result.pow(3): float16's pow(3) rounds once
        return mul_scalar(grad, -0.5) * result.pow(3)


class ReciprocalBackward0(_UnaryOfResult):
    """out = 1 / x:  d/dx = -out ** 2"""

    def formula(self, grad, result):
        # torch's -grad * (result * result), its operands evaluated as its C++ compiler does,
        # right to left: the nodes' order decides how a higher derivative adds up
        square = result * result
        return -grad * square


exp = _float_unary(np.exp, "exp", "out = e ** input", ExpBackward0, "result",
                   float32=float32_math.exp)
exp2 = _float_unary(np.exp2, "exp2", "out = 2 ** input", Exp2Backward0, "result",
                    float16_in_float64=True)
expm1 = _float_unary(np.expm1, "expm1", "out = e ** input - 1, accurate near 0",
                     Expm1Backward0, "result", float16_in_float64=True)
log = _float_unary(np.log, "log", "out = ln(input)", LogBackward0, float32=float32_math.log)
log2 = _float_unary(np.log2, "log2", "out = log2(input)", Log2Backward0,
                    float16_in_float64=True)
log10 = _float_unary(np.log10, "log10", "out = log10(input)", Log10Backward0,
                     float16_in_float64=True)
log1p = _float_unary(np.log1p, "log1p", "out = ln(1 + input), accurate near 0", Log1PBackward0,
                     float16_in_float64=True)
sqrt = _float_unary(np.sqrt, "sqrt", "out = input ** 0.5", SqrtBackward0, "result")
sin = _float_unary(np.sin, "sin", "out = sin(input)", SinBackward0, float32=float32_math.sin)
cos = _float_unary(np.cos, "cos", "out = cos(input)", CosBackward0, float32=float32_math.cos)
tan = _float_unary(np.tan, "tan", "out = tan(input)", TanBackward0, "result",
                   float16_in_float64=True)
asin = arcsin = _float_unary(np.arcsin, "asin", "out = arcsin(input)", AsinBackward0)
acos = arccos = _float_unary(np.arccos, "acos", "out = arccos(input)", AcosBackward0,
                             float16_in_float64=True)
atan = arctan = _float_unary(np.arctan, "atan", "out = arctan(input)", AtanBackward0,
                             float16_in_float64=True)
sinh = _float_unary(np.sinh, "sinh", "out = sinh(input)", SinhBackward0,
                    float16_in_float64=True)
cosh = _float_unary(np.cosh, "cosh", "out = cosh(input)", CoshBackward0,
                    float16_in_float64=True)
# (float16 through float32 gives torch's bits for all 65536 values; float64 would not)
asinh = arcsinh = _float_unary(np.arcsinh, "asinh", "out = arsinh(input)", AsinhBackward0)
acosh = arccosh = _float_unary(np.arccosh, "acosh", "out = arcosh(input)", AcoshBackward0)
atanh = arctanh = _float_unary(np.arctanh, "atanh", "out = artanh(input)", AtanhBackward0)
# what x.asinh_() & co compute before writing into x (methods.py): the same values, the node
# torch records for them
IN_PLACE_INVERSE_HYPERBOLICS = {
    name: _float_unary(ufunc, name, f"out = {name}(input), for {name}_", node)
    for name, ufunc, node in (("asinh", np.arcsinh, AsinhBackward1),
                              ("acosh", np.arccosh, AcoshBackward1),
                              ("atanh", np.arctanh, AtanhBackward1))}
tanh = _float_unary(np.tanh, "tanh", "out = tanh(input)", TanhBackward0, "result",
                    float32=float32_math.tanh)


class LgammaBackward0(_UnaryBackward):
    """out = ln |Gamma(x)|:  d/dx = digamma(x)"""

    def formula(self, grad, x):
        return grad * digamma(x)


class DigammaBackward0(_UnaryBackward):
    """out = digamma(x):  d/dx = trigamma(x) (torch's polygamma(1, x): PolygammaBackward0)"""

    def formula(self, grad, x):
        return grad * polygamma(1, x)


lgamma = _float_unary(special.lgamma, "lgamma", "out = ln |Gamma(input)|", LgammaBackward0)
digamma = _float_unary(special.digamma, "digamma", "out = d/dx ln Gamma(input)",
                       DigammaBackward0)


def _polygamma_arguments(name, args, kwargs, method=False):
    """(n, input) as torch's parser reads ``name(int n, Tensor input)`` (``x.name(int n)``):
    its TypeErrors for what does not fit, n an int (or an integer tensor of one element)."""
    names = ("n",) if method else ("n", "input")
    for key in kwargs:
        if key not in names:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    if len(args) > len(names):
        plural = "s" if len(names) > 1 else ""
        raise TypeError(f"{name}() takes {len(names)} positional argument{plural} but "
                        f"{len(args)} were given")
    values = dict(zip(names, args))
    for key in names:
        if key in kwargs:
            if key in values:
                raise TypeError(f"{name}() got multiple values for argument '{key}'")
            values[key] = kwargs[key]
    missing = [key for key in names if key not in values]
    if missing:
        raise TypeError(f'{name}() missing {len(missing)} required positional arguments: '
                        f'"{missing[0]}"')
    for position, key in enumerate(names, 1):
        value, where = values[key], f" (position {position})" if key not in kwargs else ""
        kind = "int" if key == "n" else "Tensor"
        if not signatures.fits(value, kind):
            raise TypeError(f"{name}(): argument '{key}'{where} must be {kind}, not "
                            f"{messages.type_name(value)}")
    return signatures.read(name, "n", "int", values["n"]), values.get("input")


def _polygamma(n, input, node=None):
    """out = the n-th derivative of digamma(input) (n >= 0): fidelity/special.py's values."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    data = input._data
    x = data if data.dtype.kind == "f" else data.astype(float_dtype_for(data.dtype))
    result = wrap_elementwise(np.asarray(special.polygamma(n, x)), data)
    return record(node or PolygammaBackward0, result, (input,), saved=(input,), n=n)


def polygamma(*args, **kwargs):
    """out = the n-th derivative of digamma(input): polygamma(n, input), n >= 0"""
    return _polygamma(*_polygamma_arguments("polygamma", args, kwargs))


polygamma.__signature__ = inspect.Signature(  # (torch's polygamma(int n, Tensor input))
    [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in ("n", "input")])
polygamma = takes_out(polygamma)


def polygamma_method(self, *args, **kwargs):
    """``x.polygamma(n)``: torch.polygamma(n, x)"""
    return _polygamma(_polygamma_arguments("polygamma", args, kwargs, method=True)[0], self)


def polygamma_written_back(self, *args, **kwargs):
    """What ``x.polygamma_(n)`` writes into x: recorded as torch's PolygammaBackward1."""
    n = _polygamma_arguments("polygamma_", args, kwargs, method=True)[0]
    return _polygamma(n, self, PolygammaBackward1)


polygamma_written_back.__name__ = "polygamma"


class PolygammaBackward0(_UnaryBackward):
    """out = polygamma(n, x):  d/dx = polygamma(n + 1, x)"""

    n: int

    def formula(self, grad, x):
        return grad * polygamma(self.n + 1, x)


class PolygammaBackward1(PolygammaBackward0):
    """x.polygamma_(n): the same formula, of x's values before the write"""


def _rsqrt(data):
    return np.reciprocal(np.sqrt(data))


def _sigmoid(data):
    # 1 / (1 + e^-x) overflows harmlessly to 0 for very negative x.
    return np.reciprocal(np.exp(-data) + 1)


def _reciprocal(data):
    return np.reciprocal(data)


rsqrt = _float_unary(_rsqrt, "rsqrt", "out = 1 / sqrt(input)", RsqrtBackward0, "result",
                     float16=float32_math.rsqrt16)
sigmoid = _float_unary(_sigmoid, "sigmoid", "out = 1 / (1 + e ** -input)", SigmoidBackward0,
                       "result", float32=float32_math.sigmoid)
reciprocal = _float_unary(_reciprocal, "reciprocal", "out = 1 / input", ReciprocalBackward0,
                          "result")


def _refuse_bool(input):
    if input._data.dtype.kind == "b":
        raise NotImplementedError(messages.NEG_A_BOOL)


def _neg_out(out, input=None, *args, **kwargs):
    """neg's out=: torch refuses a bool input before its iterator looks at out's dtype."""
    if isinstance(input, Tensor):
        _refuse_bool(input)
    out_of_inputs_dtype(out, input)


@takes_out(before=_neg_out)
def neg(input):
    """out = -input"""
    data = input._data
    _refuse_bool(input)
    with np.errstate(over="ignore"):
        result = wrap_elementwise(np.negative(data), data)
    return record(NegBackward0, result, (input,))


class NegBackward0(Node):
    """out = -x:  d/dx = -1"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    def backward(self, grad):
        return -grad


negative = neg


def positive(input):
    """out = +input: the input itself (torch refuses bool tensors)"""
    if input._data.dtype.kind == "b":
        raise NotImplementedError("The `+` operator, on a bool tensor is not supported.")
    return input


@takes_out(resized_first=elementwise_shape, before=out_of_inputs_dtype)
def abs(input):  # noqa: A001 - torch.abs
    """out = |input|"""
    data = input._data
    if data.dtype.kind == "b":
        raise not_implemented_for("abs_cpu", data.dtype)
    with np.errstate(over="ignore"):
        result = wrap_elementwise(np.abs(data), data)
    return record(AbsBackward0, result, (input,), saved=(input,))


class AbsBackward0(Node):
    """out = |x|:  d/dx = sign(x) (0 at 0)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return grad * sgn(x)


absolute = abs


@takes_out(before=out_of_inputs_dtype)
def sign(input):
    """out = -1, 0 or 1 by the sign of input (0 for nan, as torch computes (0 < x) - (x < 0))"""
    return _signs(input, SignBackward0)


def _signs(input, node):
    data = input._data
    if data.dtype.kind == "b":
        return wrap_elementwise(data.copy(), data)
    result = np.sign(data)
    if data.dtype.kind == "f":
        result = np.where(np.isnan(data), data.dtype.type(0), result)
    if node is SgnBackward0:  # (sgn's formula, for complex numbers, reads both)
        return record(node, wrap_elementwise(result, data), (input,), saved=(input,),
                      saved_output=True)
    return record(node, wrap_elementwise(result, data), (input,))


class _ZeroGradient(Node):
    """A step function (sign, floor, round ...): flat almost everywhere, d/dx = 0"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    def backward(self, grad):
        return zero_gradient_like(grad)


class SignBackward0(_ZeroGradient):
    """out = sign(x):  d/dx = 0"""


@takes_out(before=out_of_inputs_dtype)
def sgn(input):
    """out = input / |input| (0 at 0): for real numbers, the values of sign (abs's gradient
    uses it)"""
    return _signs(input, SgnBackward0)


class SgnBackward0(_ZeroGradient):
    """out = sgn(x):  d/dx = 0 (for real x; x and out are kept, as torch keeps them, so that
    changing either in place before backward is caught)"""

    _saved_names = ("self", "result")

    def backward(self, grad):
        self.saved_tensors  # noqa: B018 - (read: a version check, as torch unpacks them)
        return zero_gradient_like(grad)


@takes_out
def square(input):
    """out = input * input"""
    data = input._data
    if data.dtype.kind == "b":
        data = data.astype(np.int64)
    with np.errstate(over="ignore"):
        result = wrap_elementwise(np.multiply(data, data), input._data)
    # torch computes square as pow(input, 2), and records it so
    return record(PowBackward0, result, (input,), saved=(input,), exponent=2)


def relu(input):
    """out = max(input, 0)"""
    data = input._data
    if data.dtype.kind == "b":
        raise NotImplementedError("Boolean inputs not supported for relu")
    result = np.asarray(np.maximum(data, data.dtype.type(0)))  # (nan stays the input's nan)
    # torch keeps the input where it ties with 0 (relu(-0.0) is -0.0): np.maximum may not
    np.copyto(result, data, where=data == 0)
    result = wrap_elementwise(result, data)
    return record(ReluBackward0, result, (input,), saved_output=True)


class ReluBackward0(Node):
    """out = max(x, 0):  d/dx = 1 where out > 0 (or nan), else 0 (torch's threshold_backward
    puts 0 there, never -0.0)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("result",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return threshold_backward(result, grad)


def threshold_backward(result, grad, threshold=0):
    """``where(result <= threshold, 0.0, grad)`` (relu's: 0; F.threshold's gives its input
    for result); without create_graph, for row-major tensors of one dtype (an MLP's), numpy's
    two calls with the same result (where's layout rules, its dtype promotion and its record
    have nothing to do then)."""
    r, g = result._data, grad._data
    if mode.grad_enabled:  # torch's own node, linked to result too (see below)
        with no_grad():
            masked = where(result <= threshold, 0.0, grad)
        return record(ThresholdBackwardBackward0, masked, (grad, result), saved=(result,),
                      threshold=threshold)
    if r.dtype != g.dtype or (g.ndim > 1 and not (
            r.flags.c_contiguous and g.flags.c_contiguous)):
        return where(result <= threshold, 0.0, grad)
    zero = g.dtype.type(0)
    return wrap(np.asarray(np.where(quietly(np.less_equal, r, r.dtype.type(threshold)), zero,
                                    g)))


class ThresholdBackwardBackward0(Node):
    """out = relu's gradient, threshold_backward(grad, result) (recorded under create_graph):
    d/dgrad = the same mask, d/dresult = 0. That edge to result is torch's: through it a
    third derivative of relu(t) * t still depends on t (its graph is kept)."""

    _saved_names = ("self",)
    threshold: float

    def backward(self, grad):
        (result,) = self.saved_tensors
        return threshold_backward(result, grad, self.threshold), zeros_like(grad)

    def jvp(self, grad_t, result_t):
        """Forward mode, torch's formula: the same mask applied to grad's tangent (zeros where
        there is none); result's tangent adds nothing."""
        (result,) = self.saved_tensors
        return threshold_backward(result, zeros_like(result) if grad_t is None else grad_t)


def _rounding(ufunc, name, doc, node):
    def op(input):
        data = input._data
        if data.dtype.kind == "b":
            raise not_implemented_for(f"{name}_vml_cpu", data.dtype)
        # integers are already whole: torch returns a copy unchanged
        result = wrap_elementwise(ufunc(data) if data.dtype.kind == "f" else data.copy(), data)
        return record(node, result, (input,))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return takes_out(op, before=out_of_inputs_dtype, resized_first=elementwise_shape)


class FloorBackward0(_ZeroGradient):
    """out = floor(x):  d/dx = 0"""


class CeilBackward0(_ZeroGradient):
    """out = ceil(x):  d/dx = 0"""


class TruncBackward0(_ZeroGradient):
    """out = trunc(x):  d/dx = 0"""


class RoundBackward0(_ZeroGradient):
    """out = round(x):  d/dx = 0"""

    _internal = ("decimals",)
    decimals: int | None


class RoundBackward1(_ZeroGradient):
    """out = round(x, decimals):  d/dx = 0"""

    _internal = ("decimals",)
    decimals: int | None


floor = _rounding(np.floor, "floor", "out = the largest integer <= input", FloorBackward0)
ceil = _rounding(np.ceil, "ceil", "out = the smallest integer >= input", CeilBackward0)
trunc = _rounding(np.trunc, "trunc", "out = input rounded toward zero", TruncBackward0)
fix = trunc


@overloads("(Tensor input, *, Tensor out = None)",
           "(Tensor input, *, int decimals, Tensor out = None)")
@takes_out(before=out_of_inputs_dtype, resized_first=elementwise_shape)
def round(input, *, decimals=None):  # noqa: A001 - torch.round
    """out = input rounded to the nearest integer, halves to even (as numpy and torch do)"""
    result = _round(input, decimals)
    return record(RoundBackward0 if decimals is None else RoundBackward1, result, (input,),
                  decimals=decimals)


def _round(input, decimals):
    data = input._data
    if decimals is None or data.dtype.kind != "f":
        if data.dtype.kind != "f" and (decimals is not None or data.dtype.kind == "b"):
            kernel = "round_vml_cpu" if not decimals else "round_cpu"
            raise not_implemented_for(kernel, data.dtype)
        return wrap_elementwise(np.round(data) if data.dtype.kind == "f" else data.copy(), data)
    if decimals == 0:
        return wrap_elementwise(np.round(data), data)
    # torch scales in float32 for float16, and divides for negative decimals
    x = data.astype(np.float32) if data.dtype.char == "e" else data
    with np.errstate(over="ignore", invalid="ignore"):
        scale = x.dtype.type(10.0 ** builtins.abs(decimals))  # (inf for float32's 10 ** 300)
        rounded = np.round(x * scale) / scale if decimals > 0 else np.round(x / scale) * scale
        return wrap_elementwise(rounded.astype(data.dtype, copy=False), data)


@takes_out(before=out_of_inputs_dtype, resized_first=elementwise_shape)
def frac(input):
    """out = input - trunc(input)"""
    data = input._data
    if data.dtype.kind != "f":
        raise not_implemented_for("frac_cpu", data.dtype)
    with np.errstate(invalid="ignore"):
        result = wrap_elementwise(data - np.trunc(data), data)
    return record(FracBackward0, result, (input,))


class FracBackward0(Node):
    """out = x - trunc(x):  d/dx = 1 (trunc is flat)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    def backward(self, grad):
        return grad


def isnan(input):
    return wrap_elementwise(np.isnan(input._data), input._data)


def isinf(input):
    return wrap_elementwise(np.isinf(input._data), input._data)


def isfinite(input):
    return wrap_elementwise(np.isfinite(input._data), input._data)


def _nan_to_num_out(out, input=None, *args, **kwargs):
    if isinstance(input, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError(f"nan_to_num: dtype of out: {scalar_type_name[out.dtype]} should be "
                           f"same as input: {scalar_type_name[input.dtype]}")


def _computes_floats(args, kwargs):
    input = args[0] if args else kwargs.get("input")
    return isinstance(input, Tensor) and input._data.dtype.kind == "f"


# (an integer input is copied by a composite of torch's, which resizes out row-major)
@takes_out(before=_nan_to_num_out, restrides=_computes_floats)
@number_parameters("nan_to_num", {"nan": "float?", "posinf": "float?", "neginf": "float?"})
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """out = input with nan, inf and -inf replaced (by 0 and the dtype's largest values)"""
    data = input._data
    if data.dtype.kind != "f":
        return wrap_elementwise(data.copy(), data)
    result = wrap_elementwise(np.nan_to_num(data, nan=0.0 if nan is None else nan,
                                            posinf=posinf, neginf=neginf), data)
    return record(NanToNumBackward0, result, (input,), saved=(input,))


class NanToNumBackward0(Node):
    """out = x with nan and infinities replaced:  d/dx = 1 where x is finite, else 0"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return grad * isfinite(x)


# for other families' float functions (ops/pointwise.py: erf, erfc, erfinv)
float_unary, UnaryBackward = _float_unary, _UnaryBackward

histories_read_first(globals(), __all__)

# torch.exp(None): torch's TypeError (polygamma's n comes first: its own parser)
tensor_inputs(globals(), [name for name in __all__ if name != "polygamma"])
