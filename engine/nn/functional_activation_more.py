"""The rest of ``torch.nn.functional``'s activations: the piecewise-linear ones (hardtanh,
relu6, hardswish, hardsigmoid, softshrink, hardshrink, threshold), the smooth ones (selu,
celu, logsigmoid, mish, glu), prelu with its learned slopes, and the compositions torch
writes in Python (softsign, tanhshrink, softmin, gumbel_softmax).

The piecewise-linear forwards select or clamp, or compute torch's own arithmetic in the
input's dtype (float16 in float32, rounded once), so their values are torch's bit for bit;
the smooth ones compute in float64 and round once (within an ulp of torch's vectorised
kernels). Each node's backward is torch's kernel formula written with engine operations, so
it can be differentiated again; at a kink the gradient is the one torch's kernel picks (0 at
hardtanh's bounds, 0 inside the shrink bands, the inner formula at hardswish's +-3 ...).
"""
import warnings

import numpy as np

from ..core.forward import has_tangent
from ..core.grad_mode import is_grad_enabled, no_grad
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from ..fidelity.dtypes import float16, from_numpy_dtype, scalar_type_name
from ..fidelity import float32_math, messages, signatures
from ..fidelity.layout import contiguous_strides
from ..fidelity.messages import type_name
from ..fidelity.size import legacy_contiguous_format, wrap_dim
from ..ops.arithmetic import (NotImplementedBackward, addcmul, div_scalar, number_minus,
                              sub_scalar, where)
from ..ops.common import (laid_out_as_kernel, laid_out_row_major, widened,
                          number_parameters, wrap_elementwise)
from ..ops.common import histories_read_first
from ..ops.creation import empty_like, zeros, zeros_like
from ..ops.inplace import write_inplace
from ..ops.join import cat
from ..ops.unary import threshold_backward
from .functional_activation import EluBackward0, EluBackward1, check_float, computed_once, \
    elu_backward, simd_nan, vector_lanes_of

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _check_tensor(function, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{function}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")


def _in_dtype(function, x):
    """function(x) in x's dtype, float16 through float32 (as torch's kernels compute it)."""
    wide = x.astype(np.float32) if x.dtype == np.float16 else x
    with np.errstate(invalid="ignore", over="ignore"):
        return wrap_elementwise(np.asarray(function(wide)).astype(x.dtype, copy=False), x)


def _zero_where(grad, mask, *kernel_operands):
    """grad, with 0 where ``mask`` holds (a kernel's ``cond ? 0 : grad``), laid out as
    torch's kernel over ``kernel_operands`` lays it out."""
    return laid_out_as_kernel(grad.where(~mask, zeros_like(grad)), *kernel_operands)


def _maybe_inplace(input, out, inplace):
    # in place, the node keeps a copy of the old values (write_inplace sees to it)
    return write_inplace(input, out) if inplace else out


# ====================================================================== hardtanh, relu6
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """out = min(max(input, min_val), max_val)"""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    name = "hardtanh_" if inplace else "hardtanh"
    _check_tensor(name, input)
    for position, (parameter, value) in enumerate((("min_val", min_val),
                                                    ("max_val", max_val)), 2):
        if not signatures.fits(value, "Number"):  # (torch's C++ hardtanh's, by position)
            raise TypeError(f"{name}(): argument '{parameter}' (position {position}) must be "
                            f"Number, not {type_name(value)}")
    min_val, max_val = (v.item() if isinstance(v, Tensor) else v for v in (min_val, max_val))
    x = input._data
    if x.dtype.kind == "b":
        raise NotImplementedError("Bool inputs not supported for hardtanh")
    if x.dtype.kind in "iu":
        low, high = _integer_bounds(min_val, max_val, x.dtype)
    else:
        low, high = x.dtype.type(min_val), x.dtype.type(max_val)
    # (a selection, not np.maximum: -0.0 stays -0.0 at a bound of 0, nan stays nan)
    raised = np.where(x < low, low, x)
    out = wrap_elementwise(np.asarray(np.where(raised > high, high, raised)), x)
    out = record(HardtanhBackward0, out, (input,), saved=(input,), min_val=min_val,
                 max_val=max_val)
    return _maybe_inplace(input, out, inplace)


def _integer_bounds(min_val, max_val, np_dtype):
    """hardtanh's bounds for an integer tensor, as torch's kernel converts them: through
    int64 (a float is cut toward 0), a bound past the dtype's range on its own side clipped
    to it, on the other side refused."""
    bounds = []
    for value in (min_val, max_val):
        if isinstance(value, float) and not -2.0**63 <= value < 2.0**63:
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        bounds.append(int(value))
    info, name = np.iinfo(np_dtype), scalar_type_name[from_numpy_dtype[np_dtype]]
    if bounds[0] > info.max:
        raise RuntimeError(f"Clamp min value {bounds[0]} is outside the representable range "
                           f"of {name}")
    if bounds[1] < info.min:
        raise RuntimeError(f"Clamp max value {bounds[1]} is outside the representable range "
                           f"of {name}")
    return np_dtype.type(max(bounds[0], info.min)), np_dtype.type(min(bounds[1], info.max))


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """hardtanh, written into input"""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """out = min(max(input, 0), 6)"""
    return hardtanh(input, 0, 6, inplace)  # (ints: what the node saves, as torch's)


def _masked_gradient(node, formula, grad, x, **state):
    """``formula(grad, x, **state)``, a gradient that is grad with some elements zeroed; under
    create_graph recorded as torch records it, one ``node`` linked to grad and x (d/dx = 0:
    a third derivative through it keeps its graph, as torch's)."""
    if not is_grad_enabled():
        return formula(grad, x, **state)
    with no_grad():
        out = formula(grad, x, **state)
    return record(node, out, (grad, x), saved=(x,), **state)


class _MaskedAgain(Node):
    """out = a masked gradient (recorded under create_graph):  d/dgrad = the same mask,
    d/dx = 0"""

    _saved_names = ("self",)
    formula = None  # the first-order formula (grad, x, **state), which this node repeats

    def backward(self, grad):
        (x,) = self.saved_tensors
        state = {name: getattr(self, name) for name in type(self).__annotations__}
        return _masked_gradient(type(self), type(self).formula, grad, x, **state), \
            zeros_like(grad)


def _hardtanh_gradient(grad, x, min_val, max_val):
    return _zero_where(grad, (x <= min_val) | (x >= max_val) | simd_nan(grad, x), grad, x)


class HardtanhBackward0(Node):
    """out = clamp(x, min_val, max_val):  d/dx = grad strictly between the bounds, else 0"""

    _saved_names = ("self",)
    min_val: float
    max_val: float

    def backward(self, grad):
        (x,) = self.saved_tensors
        return _masked_gradient(HardtanhBackwardBackward0, _hardtanh_gradient, grad, x,
                                min_val=self.min_val, max_val=self.max_val)


class HardtanhBackwardBackward0(_MaskedAgain):
    __doc__ = _MaskedAgain.__doc__
    min_val: float
    max_val: float
    formula = staticmethod(_hardtanh_gradient)


# ====================================================================== hardswish, hardsigmoid
def hardswish(input, inplace=False):
    """out = x * min(max(x + 3, 0), 6) / 6"""
    check_float("hardswish_cpu", input)
    out = _in_dtype(lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / x.dtype.type(6),
                    input._data)
    out = record(HardswishBackward0, out, (input,), saved=(input,))
    return _maybe_inplace(input, out, inplace)


class HardswishBackward0(Node):
    """out = x relu6(x + 3) / 6:  d/dx = 0 for x <= -3, (x / 3 + 1 / 2) * grad below 3,
    grad from 3 on (and for nan)"""

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return hardswish_backward(grad, x)


def hardswish_backward(grad, x):
    """torch's hardswish_backward kernel; under create_graph recorded as one
    HardswishBackwardBackward0 node, as torch records it."""
    if not is_grad_enabled():
        return _hardswish_backward(grad, x)
    with no_grad():
        out = _hardswish_backward(grad, x)
    return record(HardswishBackwardBackward0, out, (grad, x), saved=(grad, x))


def _hardswish_backward(grad, x):
    wide_grad, wide_x = (widened(grad), x.float()) if grad.dtype == float16 else (grad, x)
    middle = wide_grad * (wide_x / 3 + 0.5)
    out = wide_grad.where(~(x < 3) & ~simd_nan(grad, x, avx512_code=True),
                          middle).to(grad.dtype)
    return _zero_where(out, x <= -3, grad, x)


class HardswishBackwardBackward0(Node):
    """out = hardswish's gradient of grad_output at x (recorded under create_graph):
    d/dgrad_output = hardswish's gradient, d/dx = grad_output / 3 strictly between -3 and 3,
    else 0 (derivatives.yaml's where(-3 < x < 3, grad * grad_output / 3.0, zeros({})))"""

    _saved_names = ("grad_output", "self")

    def backward(self, gg):
        grad, x = self.saved_tensors
        inside = (x > -3.0).logical_and(x < 3.0)
        return (hardswish_backward(gg, x),
                where(inside, div_scalar(gg * grad, 3.0), zeros((), dtype=x.dtype)))


def hardsigmoid(input, inplace=False):
    """out = min(max(x + 3, 0), 6) / 6"""
    check_float("hardsigmoid_cpu", input)
    out = _in_dtype(lambda x: np.minimum(np.maximum(x + 3, 0), 6) / x.dtype.type(6),
                    input._data)
    out = record(HardsigmoidBackward0, out, (input,), saved=(input,))
    return _maybe_inplace(input, out, inplace)


class HardsigmoidBackward0(Node):
    """out = relu6(x + 3) / 6:  d/dx = grad / 6 strictly between -3 and 3, else 0"""

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        # (torch multiplies by 1/6 rounded to float32, whatever the dtype; it does not divide)
        sixth = float(np.float32(1 / 6))
        wide_grad = widened(grad) if grad.dtype == float16 else grad
        with no_grad():
            out = _zero_where((wide_grad * sixth).to(grad.dtype), ~((x > -3) & (x < 3)), grad,
                              x)
        if not is_grad_enabled():
            return out
        # (torch has no derivative of this gradient: a backward through it raises)
        return record(NotImplementedBackward, out, (x,), op="hardsigmoid_backward")


# ====================================================================== shrinks, threshold
def _dtype_max_text(dtype):
    """The dtype's largest value as C++'s default stream prints it (6 significant digits)."""
    return f"{float(np.finfo(dtype).max):g}"


@number_parameters("softshrink", {"lambd": "Number"})
def softshrink(input, lambd=0.5):
    """out = x - lambd above lambd, x + lambd below -lambd, 0 between"""
    check_float("softshrink_check", input)
    x = input._data
    if not 0 <= lambd <= float(np.finfo(x.dtype).max):
        raise RuntimeError(f"lambda must be in range [0, {_dtype_max_text(x.dtype)}] for input "
                           f"dtype {scalar_type_name[input.dtype]}, but found {lambd:g}")

    def shrunk(v):
        level = v.dtype.type(lambd)
        # in the band, torch's scalar loop multiplies by 0 (-0.3 gives -0.0), its SIMD steps
        # write +0.0; both keep nan
        band = v * 0
        vectorised = vector_lanes_of(x)
        if vectorised is not None:
            flat = band.reshape(-1)
            flat[vectorised & ~np.isnan(flat)] = 0
            band = flat.reshape(v.shape)
        return np.where(v > level, v - level, np.where(v < -level, v + level, band))

    out = _in_dtype(shrunk, x)
    return record(SoftshrinkBackward0, out, (input,), saved=(input,), lambd=lambd)


@number_parameters("hardshrink", {"lambd": "Number"})
def hardshrink(input, lambd=0.5):
    """out = x outside [-lambd, lambd], else 0"""
    check_float("hardshrink_cpu", input)
    x = input._data
    level = x.dtype.type(lambd)
    out = wrap_elementwise(np.asarray(np.where((x >= -level) & (x <= level), x.dtype.type(0),
                                               x)), x)
    return record(HardshrinkBackward0, out, (input,), saved=(input,), lambd=lambd)


def _shrink_gradient(grad, x, lambd):
    return _zero_where(grad, (x >= -lambd) & (x <= lambd) | simd_nan(grad, x), grad, x)


class SoftshrinkBackward0(Node):
    """out = x -+ lambd outside the band:  d/dx = 0 in [-lambd, lambd], else grad"""

    _saved_names = ("self",)
    lambd: float
    again = None  # (the node of its gradient under create_graph, below)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return _masked_gradient(self.again, _shrink_gradient, grad, x, lambd=self.lambd)


class HardshrinkBackward0(SoftshrinkBackward0):
    """out = x outside the band:  d/dx = 0 in [-lambd, lambd], else grad"""


class SoftshrinkBackwardBackward0(_MaskedAgain):
    __doc__ = _MaskedAgain.__doc__
    lambd: float
    formula = staticmethod(_shrink_gradient)


class HardshrinkBackwardBackward0(SoftshrinkBackwardBackward0):
    __doc__ = _MaskedAgain.__doc__
    lambd: float


SoftshrinkBackward0.again = SoftshrinkBackwardBackward0
HardshrinkBackward0.again = HardshrinkBackwardBackward0


@number_parameters("threshold", {"threshold": "Number", "value": "Number"},
                   always_positional=True)
def threshold(input, threshold, value, inplace=False):
    """out = value where input <= threshold, else input"""
    _check_tensor("threshold", input)
    x = input._data
    if x.dtype.kind == "b":
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    out = wrap_elementwise(np.asarray(np.where(x <= x.dtype.type(threshold),
                                               x.dtype.type(value), x)), x)
    if inplace:
        out = record(ThresholdBackward1, out, (input,), saved=(input,), threshold=threshold)
        return write_inplace(input, out)
    return record(ThresholdBackward0, out, (input,), saved=(input,), threshold=threshold)


def threshold_(input, threshold, value):
    """threshold, written into input"""
    return globals()["threshold"](input, threshold, value, inplace=True)


class ThresholdBackward0(Node):
    """out = value if x <= threshold else x:  d/dx = 0 where x <= threshold, else grad"""

    _saved_names = ("self",)
    threshold: float

    def backward(self, grad):
        (x,) = self.saved_tensors
        return threshold_backward(x, grad, self.threshold)  # (relu's, with its threshold)


class ThresholdBackward1(ThresholdBackward0):
    """threshold_ (in place): the same gradient, from a copy of the old values"""


# ====================================================================== selu, celu
def selu(input, inplace=False):
    """out = scale * (x where x > 0, else alpha (exp(x) - 1)), torch's fixed alpha and scale"""
    check_float("elu_cpu", input)
    state = {"alpha": _SELU_ALPHA, "scale": _SELU_SCALE, "input_scale": 1}
    out = computed_once(lambda x: _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(x)),
                    input._data)
    if inplace:
        return write_inplace(input, record(EluBackward1, out, (input,), saved_output=True,
                                           **state))
    return record(EluBackward0, out, (input,), saved=(input,), **state)


def selu_(input):
    """selu, written into input"""
    return selu(input, inplace=True)


def celu_(input, alpha=1.0):
    """celu, written into input"""
    return celu(input, alpha, inplace=True)


@number_parameters("celu", {"alpha": "Number"}, always_positional=True)
def celu(input, alpha=1.0, inplace=False):
    """out = x where x > 0, else alpha (exp(x / alpha) - 1)"""
    if alpha == 0:  # (torch's celu divides by alpha before its elu looks at the dtype)
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    check_float("elu_cpu", input)
    inverse = 1.0 / alpha
    out = computed_once(lambda x: np.where(x > 0, x, alpha * np.expm1(x * inverse)), input._data)
    if inplace:
        return write_inplace(input, record(CeluBackward1, out, (input,), saved_output=True,
                                           alpha=alpha))
    return record(CeluBackward0, out, (input,), saved=(input,), alpha=alpha)


class _CeluCoefficients:
    """elu_backward's coefficients for celu: torch passes 1 / alpha rounded to float32"""

    def __init__(self, alpha):
        self.alpha, self.scale = alpha, 1
        self.input_scale = float(np.float32(1) / np.float32(alpha))


class CeluBackward0(Node):
    """out = elu(x, alpha, input_scale=1 / alpha):  d/dx = grad where x > 0, else
    exp(x / alpha) * grad"""

    _saved_names = ("self",)
    alpha: float

    def backward(self, grad):
        (x,) = self.saved_tensors
        return elu_backward(grad, x, False, _CeluCoefficients(self.alpha))


class CeluBackward1(Node):
    """celu_ (in place): d/dx = grad where out > 0, else (out / alpha + 1) * grad"""

    _saved_names = ("result",)
    alpha: float

    def backward(self, grad):
        (result,) = self.saved_tensors
        return elu_backward(grad, result, True, _CeluCoefficients(self.alpha))


# ====================================================================== logsigmoid, mish
def logsigmoid(input):
    """out = log(1 / (1 + exp(-x))) = min(x, 0) - log(1 + exp(-|x|))"""
    check_float("log_sigmoid_cpu", input)
    # (row-major, as torch's kernel writes its result and buffer)
    x = np.asarray(input._data, order="C")  # (0-d stays 0-d)
    out = computed_once(lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))), x)
    # torch keeps exp(-|x|) as its buffer (its CPU backward recomputes it from x)
    buffer = computed_once(lambda x: np.exp(-np.abs(x)), x)
    return record(LogSigmoidBackward0, out, (input,), saved=(input, buffer))


class LogSigmoidBackward0(Node):
    """out = log sigmoid(x):  d/dx = (1 - sigmoid(x)) * grad, as torch's kernel writes it:
    z = exp(-|x|), grad * ([x < 0] - sign * z / (1 + z)), sign = 1 for x < 0, else -1"""

    _saved_names = ("self", "buffer")

    def backward(self, grad):
        x, buffer = self.saved_tensors
        return log_sigmoid_backward(grad, x, buffer)


def log_sigmoid_backward(grad, x, buffer=None):
    """torch's log_sigmoid_backward kernel; under create_graph recorded as one
    LogSigmoidBackwardBackward0 node, as torch records it."""
    if not is_grad_enabled():
        return _log_sigmoid_backward(grad, x, buffer)
    with no_grad():
        out = _log_sigmoid_backward(grad, x, buffer)
    return record(LogSigmoidBackwardBackward0, out, (grad, x), saved=(grad, x))


def _log_sigmoid_backward(grad, x, buffer):
    wide_grad, wide_x = (widened(grad), x.float()) if grad.dtype == float16 else (grad, x)
    negative = wide_x < 0
    # (float16: torch's kernel reads the forward's buffer, exp(-|x|) stored as a float16)
    z = buffer.float() if buffer is not None and buffer.dtype == float16 else \
        (-wide_x.abs()).exp()
    fraction = z / (1 + z)
    out = wide_grad * (negative.to(wide_x.dtype) - fraction.where(negative, -fraction))
    # (torch's kernel writes into empty_like(grad): grad's layout, or row-major when grad is
    # expanded, whatever x's)
    if grad.is_non_overlapping_and_dense():
        return laid_out_as_kernel(out.to(grad.dtype), grad)
    return laid_out_row_major(out.to(grad.dtype))


class LogSigmoidBackwardBackward0(Node):
    """out = logsigmoid's gradient of grad (recorded under create_graph):
    d/dgrad = logsigmoid's gradient, d/dx = grad * (s - 1) * s, s = sigmoid(x) (torch's
    log_sigmoid_double_backward, of gg * grad)"""

    _saved_names = ("grad_output", "self")

    def backward(self, gg):
        grad, x = self.saved_tensors
        s = x.sigmoid()
        return log_sigmoid_backward(gg, x), gg * grad * sub_scalar(s, 1) * s


def mish(input, inplace=False):
    """out = x * tanh(softplus(x)) = x tanh(log(1 + exp(x)))"""
    check_float("mish_cpu", input)
    out = computed_once(lambda x: x * np.tanh(np.log1p(np.exp(x))), input._data)
    out = record(MishBackward0, out, (input,), saved=(input,))
    return _maybe_inplace(input, out, inplace)


class MishBackward0(Node):
    """out = x tanh(softplus(x)):  d/dx = (t + x sigmoid(x) (1 - t^2)) * grad, t =
    tanh(softplus(x))"""

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        wide_grad, wide_x = (widened(grad), x.float()) if grad.dtype == float16 else (grad, x)
        # torch's order: sigmoid, then tanh(softplus); each product's right operand first
        s = wide_x.sigmoid()
        t = wide_x.exp().log1p().tanh()
        one_minus = number_minus(1, t * t)
        return (wide_grad * (t + wide_x * s * one_minus)).to(grad.dtype)


# ====================================================================== glu
def glu(input, dim=-1):
    """out = a * sigmoid(b), a and b the two halves of input along dim"""
    _check_tensor("glu", input)
    dim = signatures.checked_int("glu", "dim", 2, dim)  # (torch's F.glu passes it on so)
    x = input._data
    if x.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    axis = wrap_dim(dim, x.ndim)
    if x.shape[axis] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size "
                           f"{x.shape[axis]}")
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"glu_cpu\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")
    a, b = np.split(x, 2, axis=axis)
    if x.dtype == np.float64:
        with np.errstate(over="ignore"):
            values = a * (1 / (1 + np.exp(-b)))
    else:  # (torch's kernel, vectorised where it is, over the halves)
        values = float32_math.glu(a, b)
    out = wrap_elementwise(values.astype(x.dtype), a, b)
    # (torch keeps dim as an unsigned number: -1 reads back as 2 ** 64 - 1)
    return record(GluBackward0, out, (input,), saved=(input,), dim=dim % 2 ** 64)


class GluBackward0(Node):
    """out = a sigmoid(b):  d/da = sigmoid(b) * grad, d/db = (1 - sigmoid(b)) sigmoid(b) a
    * grad"""

    _saved_names = ("self",)
    dim: int

    def backward(self, grad):
        (x,) = self.saved_tensors
        return _glu_backward(grad, x, self.dim - 2 ** 64 if self.dim >= 2 ** 63 else self.dim)

    def jvp(self, tangent):
        """Forward mode, torch's glu_jvp: t_a * s + out * (t_b - s * t_b), s = 1 / (1 +
        exp(-b)); its kernel is for float32 and float64 only, without a forward formula of its own
        (no second order)."""
        (x,), (out,) = self.primals, self.results
        if x._data.dtype not in (np.float32, np.float64):
            raise NotImplementedError(f"\"glu_jvp_cpu\" not implemented for "
                                      f"'{scalar_type_name[x.dtype]}'")
        if has_tangent(x) or has_tangent(tangent):  # (glu_jvp has no forward formula)
            raise NotImplementedError(messages.no_forward_ad(type(self), "glu_jvp"))
        dim = self.dim - 2 ** 64 if self.dim >= 2 ** 63 else self.dim
        (_, b), (tangent_a, tangent_b) = x.chunk(2, dim), tangent.chunk(2, dim)
        s = ((-b).exp() + 1).reciprocal()
        # (its compiled kernel fuses both multiply-adds: addcmul rounds each once, as it)
        return addcmul(out * addcmul(tangent_b, -s, tangent_b), tangent_a, s)


def _glu_backward(grad, x, dim):
    """glu's gradient (torch's glu_backward); under create_graph recorded as torch records
    it, one GluBackwardBackward0 node linked to grad and x."""
    out = wrap(_glu_backward_values(grad._data, x._data, wrap_dim(dim, x.dim())))
    if not is_grad_enabled():
        return out
    return record(GluBackwardBackward0, out, (grad, x), saved=(grad, x), dim=dim)


def _glu_backward_values(grad, x, axis):
    """torch's glu_backward into a row-major gradient: its first half sigmoid(b) (written
    there by sigmoid_out), then the second (1 - s) * s * a * gO left to right (float16:
    in float32, rounded once), then the first half times gO."""
    a, b = np.split(x, 2, axis=axis)
    with np.errstate(all="ignore"):
        if x.dtype == np.float64:
            s = 1 / (1 + np.exp(-b))
            second = (1 - s) * s * a * grad
        else:
            # (into the first half of the row-major gradient: that view's strides)
            s = float32_math.sigmoid(b, result_strides=contiguous_strides(x.shape))
            wide = [v.astype(np.float32) for v in (s, a, grad)]
            second = ((1 - wide[0]) * wide[0] * wide[1] * wide[2]).astype(x.dtype)
        return np.concatenate([s * grad, second], axis=axis)


class GluBackwardBackward0(Node):
    """out = glu's gradient [s gO, (1 - s) s a gO] (a, b the halves of x, s = sigmoid(b)),
    recorded under create_graph: d/dgO = the two halves of ggI * glu_backward(1, x) added
    (torch's glu_double_backward_grad_output); d/dx = [ggI_b gO s(1-s), ggI_b a gO
    (s(1-s)(1-s) - s s(1-s)) + ggI_a gO s(1-s)] (glu_double_backward), in torch's order."""

    _saved_names = ("grad_output", "self")
    dim: int

    def backward(self, ggI):
        gO, x = self.saved_tensors
        dim = self.dim % x.dim()
        half = x.shape[dim] // 2
        ones = x.new_ones(x.shape[:dim] + (half,) + x.shape[dim + 1:])
        both = ggI * _glu_backward(ones, x, dim)
        d_grad = both.narrow(dim, 0, half) + both.narrow(dim, half, half)
        first, second = x.narrow(dim, 0, half), x.narrow(dim, half, half)
        sig = second.sigmoid()
        one_sub_sig = number_minus(1, sig)
        sig_one_sub_sig = sig * one_sub_sig
        gg_first, gg_second = ggI.narrow(dim, 0, half), ggI.narrow(dim, half, half)
        gg_second_times_first = gg_second * first
        d_first = gg_second * gO * sig_one_sub_sig
        second_order = sig_one_sub_sig * one_sub_sig - sig * sig_one_sub_sig
        d_second = gg_second_times_first * gO * second_order + gg_first * gO * sig_one_sub_sig
        return d_grad, cat([d_first, d_second], dim)


# ====================================================================== prelu
def prelu(input, weight):
    """out = x where x > 0, else weight * x (one weight, or one per channel: dim 1)"""
    for position, (name, value) in enumerate([("input", input), ("weight", weight)], 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"prelu(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type_name(value)}")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{scalar_type_name[input.dtype]} and "
                           f"{scalar_type_name[weight.dtype]}")
    dims = input.dim()
    if weight.numel() != 1:
        if dims == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if dims > 1 else 1
        if channels != weight.numel():
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
    if weight.dim() > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if dims != weight.dim():  # torch's reshape, so the slopes broadcast over channel dim 1
        shape = [1] * dims
        if dims > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    check_float("prelu_cpu", input)
    x, w = input._data, weight._data
    wide_x, wide_w = (x.astype(np.float32), w.astype(np.float32)) if x.dtype == np.float16 \
        else (x, w)
    values = np.where(x > 0, wide_x, wide_w * wide_x).astype(x.dtype)
    out = wrap_elementwise(np.ascontiguousarray(values) if values.ndim else values, x)
    return record(PreluKernelBackward0, out, (input, weight), saved=(input, weight))


class PreluKernelBackward0(Node):
    """out = x if x > 0 else w x:  d/dx = grad where x > 0, else w * grad;
    d/dw = x * grad where x <= 0, summed over the dims w was broadcast along"""

    _saved_names = ("self", "weight")

    def backward(self, grad):
        x, w = self.saved_tensors
        positive = x > 0
        grad_x = grad.where(positive, w * grad)
        grad_w = zeros_like(grad).where(positive, x * grad)
        broadcast = tuple(i for i in range(grad_w.dim()) if w.dim() == grad_w.dim() and
                          w.shape[i] == 1 and grad_w.shape[i] != 1)
        if w.dim() != grad_w.dim():  # (a 0-d or 1-element weight with a 0-d input)
            grad_w = grad_w.sum().reshape(w.shape)
        elif broadcast:
            grad_w = grad_w.sum(broadcast, keepdim=True)
        return grad_x, grad_w


# ====================================================================== compositions
def implicit_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softsign(input):
    """out = x / (1 + |x|)"""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """out = x - tanh(x)"""
    return input - input.tanh()


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """out = softmax(-input) along dim"""
    if dim is None:
        dim = implicit_softmax_dim("softmin", input.dim(), _stacklevel)
    dim = signatures.checked_int("softmax", "dim", 1, dim)  # (torch's: (-input).softmax(dim))
    return (-input).softmax(dim, dtype=dtype) if dtype is not None else (-input).softmax(dim)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """out = softmax((logits + g) / tau) along dim, g Gumbel(0, 1) noise (-log of
    exponential draws, from torch's generator); hard: the one-hot of its largest entry, whose
    gradient is the soft one's (straight through)"""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -empty_like(logits, memory_format=legacy_contiguous_format).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft  # the reparameterisation trick
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits, memory_format=legacy_contiguous_format).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


histories_read_first(globals(), ["glu"])  # (torch's glu op reads the input's node first)
