"""More elementwise functions: erf, erfc, erfinv, logit, mvlgamma, xlogy, copysign, hypot, fmax,
fmin, logaddexp, logaddexp2, deg2rad, rad2deg, signbit, each with its node class right below it.

Values: torch takes float32 and float64 erf, erfc and erfinv from Intel MKL, and log, exp,
hypot ... inside logit, xlogy, hypot and logaddexp from SLEEF or the C library; the engine
answers the correctly rounded value where torch's is within an ulp of it (see
engine/ops/README.md, "Where values can differ"). copysign, fmax, fmin, signbit and float16
erf are torch's bits.
"""
import math
from collections import namedtuple

import numpy as np

from ..fidelity import float32_math, messages, signatures, special
from ..fidelity.rounding import fma32, fma64
from ..fidelity import dtypes as _dtypes
from ..core.grad_mode import mode, no_grad
from ..core.node import Node, record
from ..core.tensor import Tensor
from .common import filed_return_type, histories_read_first
from .common import (NUMBER_OR_TENSOR_SELF, NUMBER_SELF_WITHOUT_OUT, overloads,
                     PYTHON_AND_NUMPY_NUMBERS, elementwise, float_dtype_for, float_operands,
                     histories_first, invalid_arguments_error, not_implemented_for,
                     operands_broadcast_shape, out_holds_result_type, out_of_inputs_dtype,
                     promote_operands, refuse_saving_inference, require_tensors, resize_out_first,
                     takes_out,
                     tensor_inputs, wrap_elementwise, write_out, zero_gradient_like)
from .creation import arange, full, full_like
from .arithmetic import (NotImplementedBackward, add_scalar, kept_for, mul, mul_scalar,
                         pow as power, where)
from .unary import UnaryBackward, exp, float_unary
from .reduce import return_types
from .common import number_parameters

__all__ = ["erf", "erfc", "erfinv", "logit", "mvlgamma", "xlogy", "copysign", "hypot", "fmax",
           "fmin", "logaddexp", "logaddexp2", "deg2rad", "rad2deg", "signbit", "sinc", "heaviside",
           "float_power", "gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift", "isneginf",
           "isposinf", "isreal", "conj", "conj_physical", "angle", "nextafter", "ldexp",
           "frexp"]

_f32 = np.float32


# ====================================================================== erf, erfc, erfinv
def _rounded_from_float64(function):
    """``function`` (float64 in, float64 out) at ``x``'s precision: float32 rounded once."""
    def compute(x):
        return function(x).astype(x.dtype)
    return compute


def _erf_half(x):
    # torch's float16 erf is ATen's vectorised float erf (a polynomial and exp), rounded once
    values = float32_math.erf_vector(np.atleast_1d(x).astype(_f32)).astype(np.float16)
    return values.reshape(np.shape(x))


_TWO_OVER_ROOT_PI = 2.0 / math.sqrt(math.pi)  # (as torch's C++ computes 2.0 / sqrt(M_PI))
_HALF_ROOT_PI = 0.5 * math.sqrt(math.pi)


class ErfBackward0(UnaryBackward):
    """out = erf x:  d/dx = 2 / sqrt(pi) * e ** -(x ** 2)"""

    def formula(self, grad, x):
        return mul_scalar(exp(-x.pow(2)), _TWO_OVER_ROOT_PI) * grad


class ErfcBackward0(UnaryBackward):
    """out = 1 - erf x:  d/dx = -2 / sqrt(pi) * e ** -(x ** 2)"""

    def formula(self, grad, x):
        return mul_scalar(exp(-x.pow(2)), -_TWO_OVER_ROOT_PI) * grad


class ErfinvBackward0(UnaryBackward):
    """out = erfinv x:  d/dx = sqrt(pi) / 2 * e ** (erfinv(x) ** 2)"""

    def formula(self, grad, x):
        return mul_scalar(exp(erfinv(x).pow(2)), _HALF_ROOT_PI) * grad


erf = float_unary(_rounded_from_float64(special.erf), "erf", "out = erf(input), the error "
                   "function 2 / sqrt(pi) * integral of e ** -t**2 from 0 to input",
                   ErfBackward0, float16=_erf_half)
erfc = float_unary(_rounded_from_float64(special.erfc), "erfc",
                    "out = 1 - erf(input), accurate where erf is near 1", ErfcBackward0)
erfinv = float_unary(_rounded_from_float64(special.erfinv), "erfinv",
                      "out = the x with erf(x) = input (inf at 1, nan outside [-1, 1])",
                      ErfinvBackward0)


# ====================================================================== mvlgamma
def _mvlgamma_out(out, input, p):
    """torch's mvlgamma_out: the result first, then its check, which names the input's dtype
    as the result's and the result's as the desired one (x.mvlgamma_(2) of an integer x)."""
    _mvlgamma_check(input, p)
    computed = input.dtype if input.dtype.is_floating_point else _dtypes.get_default_dtype()
    if not _dtypes.can_cast(computed, out.dtype):
        raise RuntimeError(f"mvlgamma: result type {_dtypes.scalar_type_name[input.dtype]} can't "
                           "be cast to the desired output type "
                           f"{_dtypes.scalar_type_name[computed]}")


@takes_out(before=_mvlgamma_out)
@overloads("(Tensor input, int p, *, Tensor out = None)")
def mvlgamma(input, p):
    """out = ln of the multivariate gamma function of dimension p: the sum over i < p of
    lgamma(input - i / 2), plus p (p - 1) / 4 ln(pi) (torch's order: arange, lgamma, sum)"""
    _mvlgamma_check(input, p)
    dtype = input.dtype if input.dtype.is_floating_point else _dtypes.get_default_dtype()
    with no_grad():
        result = _mvlgamma_terms(input, p, dtype).lgamma_().sum(-1).add_(
            float(p * (p - 1)) * math.log(math.pi) * 0.25)
    return record(MvlgammaBackward0, result, (input,), saved=(input,), p=p)


def _mvlgamma_check(input, p):
    if input.dtype == _dtypes.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


def _mvlgamma_terms(input, p, dtype):
    """input - i / 2 for i = p - 1 ... 0, along a new last dimension (torch's arange)."""
    return arange(-p * 0.5 + 0.5, 0.5, 0.5, dtype=dtype).add(input.unsqueeze(-1))


class MvlgammaBackward0(Node):
    """out = sum over i < p of lgamma(x - i / 2) + c:  d/dx = the sum of digamma(x - i / 2)
    * grad"""

    _saved_names = ("self",)
    p: int

    def backward(self, grad):
        (x,) = self.saved_tensors
        return grad * _mvlgamma_terms(x, self.p, x.dtype).digamma().sum(-1)


_MVLGAMMA_METHOD = signatures.Signature("(Tensor input, int p)", True)


def mvlgamma_written_back(self, *args, **kwargs):
    """What ``x.mvlgamma_(p)`` writes into x (an integer x: torch's refusal to cast the
    float result into it)."""
    _MVLGAMMA_METHOD.parse("mvlgamma_", args, kwargs, True, method_call=True)
    p = signatures.read("mvlgamma_", "p", "int", args[0] if args else kwargs["p"])
    _mvlgamma_out(self, self, p)  # (torch writes it through mvlgamma_out)
    return mvlgamma(self, p)


# ====================================================================== logit
@takes_out
@number_parameters("logit", {"eps": "float?"})
def logit(input, eps=None):
    """out = ln(p / (1 - p)) of p = input, first clamped to [eps, 1 - eps] when eps is given"""
    data = input._data
    x = data if data.dtype.kind == "f" else data.astype(float_dtype_for(data.dtype))
    one = x.dtype.type(1)
    with np.errstate(all="ignore"):
        p = x
        if eps is not None and eps >= 0:  # (a negative eps clamps nothing, as None)
            low = x.dtype.type(eps)
            p = np.where(np.isnan(x), x, np.minimum(np.maximum(x, low), one - low))
        ratio = p / (one - p)  # (float16 too: measured, torch's float16 ratio is rounded)
        log_precision = np.float32 if x.dtype == np.float16 else x.dtype
        values = np.log(ratio.astype(np.float64)).astype(log_precision).astype(x.dtype)
        result = wrap_elementwise(np.asarray(values), data)
    return record(LogitBackward0, result, (input,), saved=(input,), eps=eps)


class LogitBackward0(Node):
    """out = ln(x / (1 - x)):  d/dx = 1 / (x (1 - x)); nan outside [0, 1], or 0 outside
    [eps, 1 - eps] when eps is given (torch's two formulas: its kernel without create_graph,
    differentiable ops with it)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self",)
    eps: float | None

    def backward(self, grad):
        (x,) = self.saved_tensors
        if mode.grad_enabled:
            return self._differentiable(grad, x)
        g, data = grad._data, x._data
        compute = np.result_type(g.dtype, data.dtype)
        g, data = g.astype(compute), data.astype(compute)
        one = compute.type(1)
        with np.errstate(all="ignore"):
            value = np.asarray(g / (data * (one - data)))
            # torch's scalar loop (short rows, tails, strided operands) divides by +0.0 where
            # x is -0.0, its vectorised loop by -0.0: the sign of the infinite gradient
            scalar = np.asarray(g / ((data + compute.type(0)) * (one - data)))
            vector = float32_math.vectorised_elements(value.shape, (grad._data, x._data),
                                                      compute)
            flat, scalar = value.reshape(-1), np.broadcast_to(scalar, value.shape).reshape(-1)
            if isinstance(vector, int):
                flat[vector:] = scalar[vector:]
            else:
                flat[~vector] = scalar[~vector]
            value = flat.reshape(value.shape)
            if self.eps is None or self.eps < 0:
                value = np.where((data < 0) | (data > 1), compute.type(np.nan), value)
            else:
                low = compute.type(self.eps)
                value = np.where((data < low) | (data > one - low), compute.type(0), value)
        return wrap_elementwise(np.asarray(value), grad._data, x._data)

    def _differentiable(self, grad, x):
        # (torch's C++ 1.0 - x fills a new tensor with 1 and subtracts: SubBackward0)
        inside_ratio = grad / (x * (full_like(x, 1.0) - x))
        if self.eps is None:
            inside = (x >= 0.0).logical_and(x <= 1.0)
            return where(inside, inside_ratio, float("nan"))
        inside = (x >= self.eps).logical_and(x <= 1.0 - self.eps)
        return where(inside, inside_ratio, 0.0)


# ====================================================================== binary functions
def _two_tensors(name, input, other):
    """Promoted numpy operands of an op torch defines on two tensors only, and the dtype."""
    require_tensors(name, input, other)
    refuse_saving_inference((input, other), (input, other))
    return promote_operands(input, other, name)


def _floating(name, input, other):
    """Operands of a float-valued op of two tensors whose kernel has no integer version."""
    a, b, common = _two_tensors(name, input, other)
    if common.kind != "f":
        operands_broadcast_shape(a, b)  # (torch's iterator checks the shapes first)
        raise not_implemented_for(f"{name}_cpu", common)
    return a, b, common


def _computed(function, a, b, input, other):
    try:
        return elementwise(function, a, b)
    except RuntimeError:
        histories_first(input, other)
        raise


def _half_in_float(function):
    """function of float32 values for float16 operands, rounded once (torch's float16
    kernels compute in float)."""
    def compute(a, b):
        dtype = np.result_type(a, b)
        if dtype == np.float16:
            return function(np.asarray(a, _f32), np.asarray(b, _f32)).astype(np.float16)
        return function(a, b)
    return compute


def _correctly_rounded(ufunc):
    def compute(*operands):
        dtype = np.result_type(*operands)
        if dtype == np.float32:
            return ufunc(*(np.asarray(x, np.float64) for x in operands)).astype(_f32)
        return ufunc(*operands)
    return compute


# ---------------------------------------------------------------- xlogy
def _xlogy_values(x, y):
    # float16 as torch computes it: ln y rounded to float16, then the product rounded once
    dtype = np.result_type(x, y)
    log = np.log(np.asarray(y, np.float64))
    log = (log if dtype == np.float64 else log.astype(np.float32)).astype(dtype)
    return np.where(np.isnan(y), y, np.where(x == 0, x.dtype.type(0), x * log))


def _tensor_or_number(name, input, other, overloads, number_first=False):
    """torch's parser: a tensor and a tensor or a number (or, ``number_first``, a number and
    a tensor), else its list of the overloads."""
    numbers = PYTHON_AND_NUMPY_NUMBERS
    if isinstance(input, Tensor) and isinstance(other, (Tensor, *numbers)):
        return
    if number_first and isinstance(input, numbers) and isinstance(other, Tensor):
        return
    raise invalid_arguments_error(name, input, other, first_is_self=True, overloads=overloads)


_XLOGY_OVERLOADS = (" * (Tensor input, Tensor other, *, Tensor out = None)",
                    " * (Number self, Tensor other, *, Tensor out = None)",
                    " * (Tensor input, Number other, *, Tensor out = None)")
_COPYSIGN_OVERLOADS = (_XLOGY_OVERLOADS[0], _XLOGY_OVERLOADS[2])


@takes_out
def xlogy(input, other):
    """out = input * ln(other), 0 where input is 0 (and other is not nan)"""
    _tensor_or_number("xlogy", input, other, _XLOGY_OVERLOADS, number_first=True)
    refuse_saving_inference((input, other), (input, other))
    a, b, common = promote_operands(input, other, "xlogy")
    a, b, _ = float_operands(input, other, a, b, common)
    result = _computed(_xlogy_values, a, b, input, other)
    if isinstance(other, Tensor) and isinstance(input, Tensor):
        return record(XlogyBackward0, result, (input, other), saved=(input, other))
    if isinstance(other, Tensor):  # (a number's overload: one input, one edge)
        return record(XlogyBackward1, result, (other,), saved=(other,), self=input)
    return record(XlogyBackward2, result, (input,), saved=(input,), other=other)


class XlogyBackward0(Node):
    """out = x ln y:  d/dx = ln y (0 where x is 0 and y <= 0),  d/dy = x / y"""

    jvp = "element_wise"  # forward mode: these formulas of the tangents

    _saved_names = ("self", "other")

    def backward(self, grad):
        x, y = self.saved_tensors
        grad_x = xlogy(grad, y).masked_fill((x == 0.0).logical_and(y <= 0.0), 0.0)
        return grad_x, grad * x / y


class XlogyBackward1(Node):
    """out = a number x times ln y:  d/dy = x / y"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("other",)
    self: float

    def backward(self, grad):
        (y,) = self.saved_tensors
        return grad * self.self / y


class XlogyBackward2(Node):
    """out = x ln of a number y:  d/dx = ln y (0 where x is 0, when y <= 0)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self",)
    other: float

    def backward(self, grad):
        (x,) = self.saved_tensors
        grad_x = xlogy(grad, self.other)
        return grad_x if self.other > 0 else grad_x.masked_fill(x == 0.0, 0.0)


# ---------------------------------------------------------------- copysign
@takes_out
def copysign(input, other):
    """out = |input| with the sign of other (its sign bit: -0.0 counts as negative)"""
    _tensor_or_number("copysign", input, other, _COPYSIGN_OVERLOADS)
    refuse_saving_inference((input, other), (input,))
    a, b, common = promote_operands(input, other, "copysign")
    a, b, _ = float_operands(input, other, a, b, common)
    result = _computed(np.copysign, a, b, input, other)
    if isinstance(other, Tensor):
        return record(CopysignBackward0, result, (input, other),
                      saved=(kept_for(input, input),), saved_output=True)
    return record(CopysignBackward1, result, (input,), saved=(input,), saved_output=True)


def _copysign_gradient(grad, x, result):
    """grad * result / x, 0 where x is 0 (torch's copysign_tensor_self_backward)."""
    ratio = result / x
    return grad * ratio.masked_fill(x == 0, 0)


class CopysignBackward0(Node):
    """out = copysign(x, y):  d/dx = out / x (+-1; 0 at 0),  d/dy = 0"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self", "result")  # (self only when it requires grad)

    def backward(self, grad):
        x, result = self.saved_tensors
        return (None if x is None else _copysign_gradient(grad, x, result),
                zero_gradient_like(grad))


class CopysignBackward1(Node):
    """out = copysign(x, a number):  d/dx = out / x (+-1; 0 at 0)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self", "result")

    def backward(self, grad):
        x, result = self.saved_tensors
        return _copysign_gradient(grad, x, result)


# ---------------------------------------------------------------- hypot
@takes_out(before=out_holds_result_type)
def hypot(input, other):
    """out = sqrt(input ** 2 + other ** 2), without overflow on the way"""
    a, b, _ = _floating("hypot", input, other)
    result = _computed(_half_in_float(_correctly_rounded(np.hypot)), a, b, input, other)
    # (each operand kept only for its own gradient, as torch keeps them)
    return record(HypotBackward0, result, (input, other),
                  saved=(kept_for(input, input), kept_for(other, other)), saved_output=True)


class HypotBackward0(Node):
    """out = sqrt(x ** 2 + y ** 2):  d/dx = x / out,  d/dy = y / out"""

    jvp = "element_wise"  # forward mode: these formulas of the tangents

    _saved_names = ("self", "other", "result")

    def backward(self, grad):
        x, y, result = self.saved_tensors
        return (None if x is None else grad * x / result,
                None if y is None else grad * y / result)


# ---------------------------------------------------------------- fmax, fmin
def _fmax_values(a, b):
    if np.result_type(a, b).kind != "f":
        return np.maximum(a, b)
    return np.where((a >= b) | np.isnan(b), a, b)  # (a nan loses; a tie keeps a)


def _fmin_values(a, b):
    if np.result_type(a, b).kind != "f":
        return np.minimum(a, b)
    return np.where((a <= b) | np.isnan(b), a, b)


@takes_out(before=out_holds_result_type)
def fmax(input, other):
    """out = the larger of input and other, elementwise; a nan loses to a number"""
    a, b, _ = _two_tensors("fmax", input, other)
    result = _computed(_fmax_values, a, b, input, other)
    return record(FmaxBackward0, result, (input, other), saved=(input, other))


class FmaxBackward0(Node):
    """out = fmax(x, y):  d/dx = 1 where x > y or y is nan, d/dy = 1 where y > x or x alone is
    nan; a tie splits it in half"""

    _saved_names = ("self", "other")

    def backward(self, grad):
        x, y = self.saved_tensors
        return _split_at_ties(grad, x, y, (x > y).logical_or(y.isnan()))

    def jvp(self, tangent_x, tangent_y):
        """Forward mode, as torch's: the chosen one's tangent, the mean of both on a tie."""
        x, y = self.saved_tensors
        return _chosen_tangent(tangent_x, tangent_y, x, y, (x > y).logical_or(y.isnan()))


@takes_out(before=out_holds_result_type)
def fmin(input, other):
    """out = the smaller of input and other, elementwise; a nan loses to a number"""
    a, b, _ = _two_tensors("fmin", input, other)
    result = _computed(_fmin_values, a, b, input, other)
    return record(FminBackward0, result, (input, other), saved=(input, other))


class FminBackward0(Node):
    """out = fmin(x, y):  d/dx = 1 where x < y or y is nan, d/dy = 1 where y < x or x alone is
    nan; a tie splits it in half"""

    _saved_names = ("self", "other")

    def backward(self, grad):
        x, y = self.saved_tensors
        return _split_at_ties(grad, x, y, (x < y).logical_or(y.isnan()))

    def jvp(self, tangent_x, tangent_y):
        """Forward mode, as torch's: the chosen one's tangent, the mean of both on a tie."""
        x, y = self.saved_tensors
        return _chosen_tangent(tangent_x, tangent_y, x, y, (x < y).logical_or(y.isnan()))


def _split_at_ties(grad, x, y, x_chosen):
    """fmax's and fmin's gradients: all to the chosen one, half each on a tie (torch fills each
    in place: the gradients' version counters read 1)."""
    tie = x == y
    grad_x = where(tie, grad / 2, grad).masked_fill_(x_chosen.logical_or(tie).logical_not(), 0)
    grad_y = where(tie, grad / 2, grad).masked_fill_(x_chosen, 0)
    return grad_x, grad_y


def _chosen_tangent(tangent_x, tangent_y, x, y, x_chosen):
    zeros = (tangent_x if tangent_y is None else tangent_y) * 0
    tangent_x = zeros if tangent_x is None else tangent_x
    tangent_y = zeros if tangent_y is None else tangent_y
    share = where(x == y, 0.5, x_chosen.to(getattr(_dtypes, zeros._data.dtype.name)))
    return tangent_y + share * (tangent_x - tangent_y)


# ---------------------------------------------------------------- logaddexp, logaddexp2
def _log_add(exp_of, added):
    """torch's larger + log1p(exp_of(-|a - b|)), its last step ``added(larger, log1p)``."""
    def values(a, b):
        dtype = np.result_type(a, b)
        wide = np.float64
        with np.errstate(all="ignore"):
            larger = np.maximum(a, b)  # (nan wins, as torch's vectorised maximum)
            gap = -np.abs(a - b)  # in a's and b's precision, as torch
            term = exp_of(gap.astype(wide)).astype(dtype)
            result = added(larger, np.log1p(term.astype(wide)).astype(dtype))
            both_infinite = (a == b) & np.isinf(a)
            return np.where(both_infinite, a, result).astype(dtype)
    return values


def _plus_log1p_over_ln_2(larger, log1p):
    """larger + log1p * (1 / ln 2) in one fused multiply-add, the constant in the operands'
    precision, as torch's kernel: logaddexp2(-1, -1) is -1.06e-08 in float32, not 0."""
    fused = fma64 if larger.dtype == np.float64 else fma32
    return np.asarray(fused(log1p, larger.dtype.type(1.0 / math.log(2.0)), larger), larger.dtype)


_logaddexp_values = _log_add(np.exp, np.add)
_logaddexp2_values = _log_add(np.exp2, _plus_log1p_over_ln_2)


@takes_out(before=out_holds_result_type)
def logaddexp(input, other):
    """out = ln(e ** input + e ** other), without overflow"""
    a, b, _ = _floating("logaddexp", input, other)
    result = _computed(_half_in_float(_logaddexp_values), a, b, input, other)
    return record(LogaddexpBackward0, result, (input, other), saved=(input, other))


class LogaddexpBackward0(Node):
    """out = ln(e ** x + e ** y):  d/dx = 1 / (1 + e ** (y - x)),  d/dy = 1 / (1 + e ** (x - y))"""

    jvp = "element_wise"  # forward mode: these formulas of the tangents

    _saved_names = ("self", "other")

    def backward(self, grad):
        x, y = self.saved_tensors
        return (grad / add_scalar(exp(y - x), 1), grad / add_scalar(exp(x - y), 1))


@takes_out(before=out_holds_result_type)
def logaddexp2(input, other):
    """out = log2(2 ** input + 2 ** other), without overflow"""
    a, b, _ = _floating("logaddexp2", input, other)
    result = _computed(_half_in_float(_logaddexp2_values), a, b, input, other)
    return record(Logaddexp2Backward0, result, (input, other), saved=(input, other))


class Logaddexp2Backward0(Node):
    """out = log2(2 ** x + 2 ** y):  d/dx = 1 / (1 + 2 ** (y - x)),
    d/dy = 1 / (1 + 2 ** (x - y))"""

    jvp = "element_wise"  # forward mode: these formulas of the tangents

    _saved_names = ("self", "other")

    def backward(self, grad):
        x, y = self.saved_tensors
        return (grad / add_scalar(power(2, y - x), 1), grad / add_scalar(power(2, x - y), 1))


# ====================================================================== angles, sign bits
_PI_OVER_180 = math.pi / 180  # (torch's M_PI_180 and M_180_PI, the same doubles)
_180_OVER_PI = 180 / math.pi


def _scaled(input, factor, node):
    data = input._data
    if data.dtype.kind != "f":  # (integers never require grad)
        input = input.to(getattr(_dtypes, float_dtype_for(data.dtype).name))
    with no_grad():
        result = mul(input, factor)
    return record(node, result, (input,))


class Deg2RadBackward0(Node):
    """out = x * pi / 180:  d/dx = pi / 180"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    def backward(self, grad):
        return mul_scalar(grad, _PI_OVER_180)


class Rad2DegBackward0(Node):
    """out = x * 180 / pi:  d/dx = 180 / pi"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    def backward(self, grad):
        return mul_scalar(grad, _180_OVER_PI)


@takes_out
def deg2rad(input):
    """out = input (degrees) in radians: input * pi / 180"""
    return _scaled(input, _PI_OVER_180, Deg2RadBackward0)


@takes_out
def rad2deg(input):
    """out = input (radians) in degrees: input * 180 / pi"""
    return _scaled(input, _180_OVER_PI, Rad2DegBackward0)


def _boolean_out_of(name):
    def check(out, *args, **kwargs):
        if out.dtype is not _dtypes.bool:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
    return check


@takes_out(before=_boolean_out_of("signbit"))
def signbit(input):
    """out = True where input's sign bit is set (negative numbers, -0.0, -nan)"""
    data = input._data
    bits = np.signbit(data) if data.dtype.kind in "fi" else np.zeros(data.shape, bool)
    return wrap_elementwise(np.asarray(bits), data)


# ====================================================================== sinc
def _sinc_values(x):
    """sin(pi x) / (pi x), 1 at 0: torch's scalar kernel, in float for float16 (pi x rounded
    to the computing precision, sin correctly rounded there, then the division)."""
    compute = np.float32 if x.dtype == np.float16 else x.dtype.type
    product = compute(math.pi) * x.astype(compute)
    sine = np.sin(product.astype(np.float64)).astype(compute)
    values = np.where(x == 0, compute(1), sine / product)
    return np.asarray(values).astype(x.dtype)


class SincBackward0(UnaryBackward):
    """out = sin(pi x) / (pi x):  d/dx = (pi x cos(pi x) - sin(pi x)) / (pi x**2), 0 at 0"""

    def formula(self, grad, x):
        x_pi = mul_scalar(x, math.pi)
        squared_pi = mul_scalar(x * x, math.pi)
        # torch's grad * ((x_pi * cos - sin) / squared_pi).conj(), the operands of its
        # subtraction made right to left (sin before cos) as its C++ compiler makes them: the
        # nodes' order decides how the next derivative adds up
        sin = x_pi.sin()
        out = grad * ((x_pi * x_pi.cos() - sin) / squared_pi)
        return where(squared_pi == 0.0, zero_gradient_like(grad), out)


sinc = float_unary(_sinc_values, "sinc", "out = sin(pi input) / (pi input), 1 at 0",
                   SincBackward0)


# ====================================================================== heaviside
@takes_out(before=lambda out, input=None, values=None, *args, **kwargs:
           _same_dtypes(input, values, out))
def heaviside(input, values):
    """out = 0 where input < 0, 1 where input > 0, values where input is 0"""
    require_tensors("heaviside", input, values, "values")
    _same_dtypes(input, values)
    result = _computed(_heaviside_values, input._data, values._data, input, values)
    # (torch's NotImplemented node has an edge to each operand that requires grad, only)
    tracked = tuple(t for t in (input, values) if t.requires_grad)
    return record(NotImplementedBackward, result, tracked, op="heaviside")


def _heaviside_values(x, values):
    return np.where(x == 0, values, (x > 0).astype(x.dtype))


def _same_dtypes(*tensors):
    dtypes = {t.dtype for t in tensors if isinstance(t, Tensor)}
    if len(dtypes) > 1:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


# ====================================================================== float_power
_FLOAT_POWER_OVERLOADS = (" * (Tensor input, Tensor exponent, *, Tensor out = None)",
                          " * (Number self, Tensor exponent, *, Tensor out = None)",
                          " * (Tensor input, Number exponent, *, Tensor out = None)")


def _float_power_out(out, *args, **kwargs):
    if out.dtype is not _dtypes.float64:
        raise RuntimeError(f"the output given to float_power has dtype "
                           f"{_dtypes.scalar_type_name[out.dtype]} but the operation's result "
                           "requires dtype Double")


@takes_out(before=_float_power_out)
def float_power(input, exponent):
    """out = input ** exponent computed in float64 (both converted first)"""
    numbers = PYTHON_AND_NUMPY_NUMBERS
    if not ((isinstance(input, Tensor) and isinstance(exponent, (Tensor, *numbers)))
            or (isinstance(input, numbers) and isinstance(exponent, Tensor))):
        raise invalid_arguments_error("float_power", input, exponent, first_is_self=True,
                                      overloads=_FLOAT_POWER_OVERLOADS)
    base = input.to(_dtypes.float64) if isinstance(input, Tensor) else float(input)
    power_of = exponent.to(_dtypes.float64) if isinstance(exponent, Tensor) else \
        float(exponent)
    return power(base, power_of)


# ====================================================================== integers: gcd, lcm, shifts
def _integers(name, kernel, input, other):
    """Operands of an integer-only op of two tensors (bool refused too), and their dtype."""
    a, b, common = _two_tensors(name, input, other)
    if common.kind not in "iu":
        operands_broadcast_shape(a, b)
        raise not_implemented_for(kernel, common)
    return a, b


@takes_out(before=out_holds_result_type)
def gcd(input, other):
    """out = the greatest common divisor of input and other (integers; 0 with 0 is 0)"""
    a, b = _integers("gcd", "gcd_cpu", input, other)
    return _computed(np.gcd, a, b, input, other)


@takes_out(before=out_holds_result_type)
def lcm(input, other):
    """out = the least common multiple of input and other (integers; wraps as C++ does)"""
    a, b = _integers("lcm", "lcm_cpu", input, other)
    return _computed(_lcm_values, a, b, input, other)


def _lcm_values(a, b):
    g = np.gcd(a, b)
    # C++ computes |a / g * b| in int (int64 here) and wraps it into the dtype once
    wide_a, wide_b, wide_g = (np.asarray(v).astype(np.int64) for v in (a, b, g))
    with np.errstate(all="ignore"):
        values = np.abs(wide_a // np.where(wide_g == 0, 1, wide_g) * wide_b)
        return np.where(wide_g == 0, 0, values).astype(g.dtype)


def _shift_operands(name, kernel, input, other):
    numbers = PYTHON_AND_NUMPY_NUMBERS
    if not ((isinstance(input, Tensor) and isinstance(other, (Tensor, *numbers)))
            or (isinstance(input, numbers) and isinstance(other, Tensor))):
        raise invalid_arguments_error(name, input, other, first_is_self=True,
                                      overloads=_SHIFT_OVERLOADS)
    a, b, common = promote_operands(input, other, name)
    if common.kind not in "iu":
        if isinstance(input, Tensor) and isinstance(other, Tensor):
            operands_broadcast_shape(a, b)
        raise not_implemented_for(kernel, common)
    return a, b


_SHIFT_OVERLOADS = (" * (Tensor input, Tensor other, *, Tensor out = None)",
                    " * (Number self, Tensor other)",
                    " * (Tensor input, Number other, *, Tensor out = None)")


def _left_shift_values(a, b):
    """a << b in a's dtype, wrapping; 0 for a shift past the width or a negative one (torch)."""
    bits = np.dtype(np.result_type(a, b)).itemsize * 8
    inside = (b >= 0) & (b < bits)
    shifted = np.left_shift(a, np.where(inside, b, 0).astype(np.result_type(a, b)))
    return np.where(inside, shifted, 0).astype(shifted.dtype)


def _right_shift_values(a, b):
    """a >> b (arithmetic); past the width or negative: -1 for negative a, else 0 (torch)."""
    bits = np.dtype(np.result_type(a, b)).itemsize * 8
    inside = (b >= 0) & (b < bits)
    shifted = np.right_shift(a, np.where(inside, b, 0).astype(np.result_type(a, b)))
    return np.where(inside, shifted, np.where(a < 0, -1, 0)).astype(shifted.dtype)


@overloads(*NUMBER_OR_TENSOR_SELF)
@takes_out(before=out_holds_result_type, number_input_overloads=NUMBER_SELF_WITHOUT_OUT)
def bitwise_left_shift(input, other):
    """out = input shifted left by other bits (integers; as ``input << other``)"""
    a, b = _shift_operands("bitwise_left_shift", "lshift_cpu", input, other)
    return _computed(_left_shift_values, a, b, input, other)


@overloads(*NUMBER_OR_TENSOR_SELF)
@takes_out(before=out_holds_result_type, number_input_overloads=NUMBER_SELF_WITHOUT_OUT)
def bitwise_right_shift(input, other):
    """out = input shifted right by other bits, keeping its sign (as ``input >> other``)"""
    a, b = _shift_operands("bitwise_right_shift", "rshift_cpu", input, other)
    return _computed(_right_shift_values, a, b, input, other)


# ====================================================================== real numbers' tests
@takes_out(before=_boolean_out_of("isneginf"))
def isneginf(input):
    """out = True where input is -inf"""
    data = input._data
    return wrap_elementwise(np.asarray(np.isneginf(data) if data.dtype.kind == "f" else
                                      np.zeros(data.shape, bool)), data)


@takes_out(before=_boolean_out_of("isposinf"))
def isposinf(input):
    """out = True where input is +inf"""
    data = input._data
    return wrap_elementwise(np.asarray(np.isposinf(data) if data.dtype.kind == "f" else
                                      np.zeros(data.shape, bool)), data)


def isreal(input):
    """out = True where input has no imaginary part: everywhere (the engine has no complex
    numbers)"""
    return wrap_elementwise(np.ones(input._data.shape, bool), input._data)


def conj(input):
    """The complex conjugate: a real tensor itself (torch returns the same tensor)"""
    return input


@takes_out(before=out_of_inputs_dtype)
def conj_physical(input):
    """The complex conjugate, computed: a real tensor itself (as torch returns it)"""
    return input


def conj_physical_copy(input):
    """The conjugate written by ``x.conj_physical_()``: the same numbers, recorded as torch's
    in-place node (the write bumps x's version; a leaf that requires grad is refused)."""
    result = wrap_elementwise(input._data.copy(), input._data)
    return record(ConjPhysicalBackward1, result, (input,))


conj_physical_copy.__name__ = "conj_physical"


class ConjPhysicalBackward1(Node):
    """x.conj_physical_() of a real x:  d/dx = 1"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    def backward(self, grad):
        return grad


# ====================================================================== angle
def _angle_values(x):
    compute = x.dtype.type
    return np.where(np.isnan(x), x, np.where(x < 0, compute(math.pi), compute(0)))


class AngleBackward0(UnaryBackward):
    """out = the angle of a real number (0 or pi):  d/dx = 0 (torch: zeros like x)"""

    def formula(self, grad, x):
        return wrap_elementwise(np.zeros_like(x._data), x._data)


angle = float_unary(_angle_values, "angle", "out = the angle of input in the complex plane: "
                    "0 for positive real numbers, pi for negative ones", AngleBackward0)


# ====================================================================== nextafter, ldexp
@takes_out(before=out_holds_result_type)
def nextafter(input, other):
    """out = the next float after input in the direction of other"""
    a, b, _ = _floating("nextafter", input, other)
    result = _computed(_nextafter_values, a, b, input, other)
    return record(NextafterBackward0, result, (input, other),  # (only input's gradient reads)
                  saved=(kept_for(input, input), kept_for(input, other)))


def _nextafter_values(a, b):
    # (C's nextafter returns y itself when x == y: nextafter(0.0, -0.0) is -0.0)
    return np.where(a == b, b, np.nextafter(a, b))


class NextafterBackward0(Node):
    """out = the float next to x toward y:  d/dx = 1 where x != y (0 where they are equal and
    out is y), d/dy = 0 (as torch 2.15 gives them)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self", "other")

    def backward(self, grad):
        x, y = self.saved_tensors
        return (None if x is None else grad.masked_fill(x == y, 0)), zero_gradient_like(grad)


def _ldexp_result_fits(target, input, other):
    """torch's refusal of a result ldexp cannot write into ``target`` (its own words; before
    the shapes are looked at)."""
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        common = _dtypes.result_type(input, other)
        if not common.is_floating_point:
            common = _dtypes.get_default_dtype()
        if not _dtypes.can_cast(common, target.dtype):
            raise RuntimeError(f"ldexp can't be cast to the desired output type "
                               f"{_dtypes.scalar_type_name[target.dtype]}")


def _ldexp_for_out(out_dtype, input, other):
    """ldexp into out=: a bool exponent of a float input, which torch's ldexp kernel refuses,
    goes through torch's other path (input * 2.0 ** other) when out's dtype is not input's."""
    if isinstance(input, Tensor) and isinstance(other, Tensor) and \
            other._data.dtype.kind == "b" and input._data.dtype.kind == "f" and \
            out_dtype != input._data.dtype:
        with no_grad():
            return mul(input, power(2.0, other))
    return _ldexp(input, other, into_out=True)


def _ldexp_out(out, input=None, other=None, *args, **kwargs):
    _ldexp_result_fits(out, input, other)
    if isinstance(input, Tensor) and isinstance(other, Tensor) and \
            other._data.dtype.kind == "b" and input._data.dtype.kind == "f" and \
            out.dtype is input.dtype:  # (the kernel that refuses bool: out resized first)
        shape = _broadcast_or_none(input._data.shape, other._data.shape)
        if shape is not None:
            resize_out_first(out, shape)


def _broadcast_or_none(*shapes):
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


@takes_out(before=_ldexp_out, computed_for=_ldexp_for_out)
def ldexp(input, other):
    """out = input * 2 ** other (rounded once)"""
    return _ldexp(input, other)


def ldexp_written_back(input, other):
    """ldexp for ``x.ldexp_(other)``: written into x itself, no output to resize (no warning)."""
    return _ldexp(input, other, into_out=True)


ldexp_written_back.__name__ = "ldexp"  # (in_place names the op in its messages)


def _ldexp(input, other, into_out=False):
    require_tensors("ldexp", input, other)
    refuse_saving_inference((input, other), (other,))
    a, b, common = promote_operands(input, other, "ldexp")
    a, b, common = float_operands(input, other, a, b, common)
    original = other._data
    shape = _broadcast_or_none(input._data.shape, original.shape)  # (the kernel's error later)
    if original.dtype.kind in "iub" and input._data.dtype.kind == "f" and not into_out and \
            input._data.size and shape is not None and shape != input._data.shape:
        # torch's kernel writes into an output shaped like input, then resized (its warning,
        # as for an out= of the wrong shape)
        messages.warn_from_learner(messages.out_resized(input._data.shape, shape))
    if original.dtype.kind == "b" and input._data.dtype.kind == "f":  # (measured)
        operands_broadcast_shape(input._data, original)  # (the shapes' error comes first)
        raise not_implemented_for("ldexp_cpu_exp", original.dtype)
    if original.dtype.kind in "iub":  # exact powers of two: one rounding, as torch
        exponents = np.clip(original.astype(np.int64), -2**30, 2**30).astype(np.int32)
        result = _computed(np.ldexp, a, exponents, input, other)
    else:  # input * 2 ** other, as torch: pow(2.0, other) for a float32 (or integer) input
        # (a float32 power's bits are SLEEF's); for float64 and float16 a 0-d tensor 2.0 of
        # input's dtype to the power other, so that a 0-d other computes in their common dtype
        # (float64 ** a 0-d float16: in float64); then mul's own promotion and rounding
        two = 2.0 if input._data.dtype == np.float32 or input._data.dtype.kind != "f" \
            else full((), 2.0, dtype=input.dtype)
        try:
            with no_grad():
                result = mul(input, power(two, other))
        except RuntimeError:
            histories_first(input, other)
            raise
    return record(LdexpBackward0, result, (input, other), saved=(kept_for(input, other),),
                  saved_output=True)


class LdexpBackward0(Node):
    """out = x * 2 ** e:  d/dx = 2 ** e,  d/de = out * ln 2"""

    jvp = "element_wise"  # forward mode: these formulas of the tangents

    _saved_names = ("other", "result")

    def backward(self, grad):
        exponent, result = self.saved_tensors  # (exponent: None when x needs no gradient)
        return (None if exponent is None else grad * power(2.0, exponent),
                grad * mul_scalar(result, math.log(2.0)))



# ====================================================================== frexp
_MantissaExponent = namedtuple("_MantissaExponent", ["mantissa", "exponent"])


def _mantissa_exponent_type(name):
    """torch.return_types.frexp (and frexp_out): a (mantissa, exponent) named tuple."""
    def printed(self):
        return (f"torch.return_types.{name}(\nmantissa={self.mantissa!r},\n"
                f"exponent={self.exponent!r})")

    return filed_return_type(type(name, (_MantissaExponent, messages.CTypeAttributeErrors),
                                  {"__slots__": (), "__repr__": printed,
                                   "torch_type_name": f"torch.return_types.{name}"}))


_mantissa_exponent_type("frexp")
_mantissa_exponent_type("frexp_out")


def frexp(input, *, out=None):
    """(mantissa, exponent), input = mantissa * 2 ** exponent: |mantissa| in [0.5, 1), an
    int32 exponent (0, the infinities and nan are their own mantissa, exponent 0)"""
    if out is not None:
        if not isinstance(out, (tuple, list)):
            raise TypeError("frexp(): argument 'out' must be tuple of Tensors, not "
                            f"{messages.type_name(out)}")
        if len(out) != 2:
            raise TypeError(f"expected tuple of 2 elements but got {len(out)}")
        for position, written in enumerate(out):
            if not isinstance(written, Tensor):
                raise TypeError(f"expected Tensor as element {position} in argument 1, but got "
                                f"{messages.type_name(written)}")
        if mode.grad_enabled and (input.requires_grad or any(t.requires_grad for t in out)):
            raise RuntimeError("frexp(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
    data = input._data
    if data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if out is not None:
        for written, expected in ((out[0], data.dtype), (out[1], np.dtype(np.int32))):
            if written._data.dtype != expected:
                words = messages.CPP_TYPE_NAMES[written._data.dtype.name]
                raise RuntimeError("torch.frexp() expects " + (
                    f"mantissa to have dtype {messages.CPP_TYPE_NAMES[data.dtype.name]} but got "
                    if written is out[0] else "exponent to have int dtype but got ") + words)
    mantissa, exponent = np.frexp(data)
    mantissa = wrap_elementwise(mantissa.astype(data.dtype, copy=False), data)
    exponent = wrap_elementwise(exponent.astype(np.int32, copy=False), data)
    # (the exponent, an integer output, is kept as torch keeps it: a change to it in place
    # before backward is caught, and no node is named)
    record(FrexpBackward0, (mantissa, exponent), (input,), saved=(exponent,))
    if out is None:
        return return_types.frexp(mantissa, exponent)
    return return_types.frexp_out(write_out(mantissa, out[0]), write_out(exponent, out[1]))


class FrexpBackward0(Node):
    """mantissa = x / 2 ** exponent:  d/dx = 1 / 2 ** exponent (the power in float32)"""

    _saved_names = ("exponent",)
    num_outputs = 2

    def backward(self, grad, grad_exponent=None):
        return self.jvp(grad)

    def jvp(self, tangent):  # (forward mode: the same formula; a float16 tangent gets float32)
        (exponent,) = self.saved_tensors
        return tangent / exponent.to(_dtypes.float32).exp2()


def ldexp_check(self, other):
    """Before ``x.ldexp_(other)``: torch's refusal of a result x cannot hold, first."""
    _ldexp_result_fits(self, self, other)


def float_power_(self, exponent):
    """``x.float_power_(exponent)``: x ** exponent written into x, which must be float64."""
    if not isinstance(exponent, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)):
        raise invalid_arguments_error("float_power_", self, exponent, first_is_self=True,
                                      printed=("(Tensor input, Tensor exponent)",
                                               "(Tensor input, Number exponent)"))
    if self.dtype is not _dtypes.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{_dtypes.scalar_type_name[self.dtype]} but the operation's result "
                           "requires dtype Double")
    return self.pow_(exponent.to(_dtypes.float64) if isinstance(exponent, Tensor) else
                     float(exponent))


histories_read_first(globals(), __all__)

tensor_inputs(globals(), [name for name in __all__
                          if name not in ("xlogy", "copysign", "float_power", "bitwise_left_shift",
                                          "bitwise_right_shift")])
