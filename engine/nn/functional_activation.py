"""More activations, as ``torch.nn.functional`` computes them: ``gelu``, ``leaky_relu``,
``elu``, ``softplus`` and ``silu``, each with torch's node.

Each forward computes with numpy (float32 through float64, rounded once; float16 through
float64 and float32, as torch computes float16 in float32; so the values can differ from
torch's vectorised kernels in the last bit, except for leaky_relu, which is exact); each
backward is written with engine operations, so it can be
differentiated again (``create_graph=True``).
"""
import math

import numpy as np

from ..core.grad_mode import is_grad_enabled, no_grad
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from ..fidelity import float32_math
from ..fidelity.dtypes import float16, scalar_type_name
from ..fidelity.messages import type_name
from ..ops.arithmetic import add_scalar, mul_scalar, number_minus
from ..ops.creation import zeros_like
from ..ops.unary import sigmoid_backward
from ..ops.common import laid_out_as_kernel, widened, number_parameters, wrap_elementwise
from ..ops.inplace import write_inplace

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_GELU_CUBIC = 0.044715  # gelu(approximate='tanh'): tanh(sqrt(2 / pi) (x + 0.044715 x ** 3))


def check_float(kernel, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{kernel.split('_')[0].lower()}(): argument 'input' (position 1) must "
                        f"be Tensor, not {type_name(input)}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")


def computed_once(function, x):
    """function(x) computed in float64 and rounded once to x's dtype; float16 through
    float32, as torch computes it (a float32 result halfway between two float16 values
    rounds to even: gelu(6e-08) is 0)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # (torch: silent)
        values = np.asarray(function(x.astype(np.float64)))
        if x.dtype == np.float16:
            values = values.astype(np.float32)
        return wrap_elementwise(values.astype(x.dtype), x)


def vector_lanes_of(x, *more, avx512_code=False):
    """A flat boolean mask (row-major) of the elements torch's vectorised loop computes
    with SIMD for an elementwise op on x (and ``more`` operands of its shape; float16 in
    steps twice as long as float32's). Most of these kernels are AVX2 code on any x86 CPU
    (float32_math.AVX2_KERNEL_STEP); ``avx512_code``: the kernel has AVX-512 code of its own
    (measured: elu's and hardswish's backward; hardtanh's and the shrinks' have not)."""
    if x.size == 0:
        return None
    base = float32_math.STEP if avx512_code else float32_math.AVX2_KERNEL_STEP
    step = base * 4 // x.dtype.itemsize
    lanes = float32_math.vector_lanes(x.shape, (x, *more), False, step)
    if isinstance(lanes, (int, np.integer)):
        mask = np.zeros(x.size, bool)
        mask[:lanes] = True
        return mask
    return lanes


def simd_nan(grad, x, avx512_code=False):
    """Where x is nan and torch's backward kernel takes the element in a SIMD step: its
    vector code tests one side of a kink where its scalar code tests the other, so a nan
    takes the other branch there (0, or the formula of the other side) than in the scalar
    tail."""
    nan = np.isnan(x._data)
    if not nan.any():
        return wrap(np.zeros(x._data.shape, bool))
    lanes = vector_lanes_of(x._data, grad._data, avx512_code=avx512_code)
    return wrap(nan & lanes.reshape(nan.shape))


# ====================================================================== gelu
_erf = np.frompyfunc(math.erf, 1, 1)


def _normal_cdf_values(x):
    """P(Z <= x) for a standard normal Z, in float64."""
    # (np.asarray: a ufunc of a 0-d array returns a bare number, a Python float here)
    return 0.5 * (1 + np.asarray(_erf(x / math.sqrt(2))).astype(np.float64))


def gelu(input, approximate="none"):
    """out = x * P(Z <= x) for a standard normal Z (approximate='tanh':
    0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x ** 3))))"""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    check_float("GeluKernelImpl", input)
    if approximate == "tanh":
        out = computed_once(lambda x: 0.5 * x * (1 + np.tanh(_SQRT_2_OVER_PI * (
            x + _GELU_CUBIC * x ** 3))), input._data)
    elif input._data.dtype == np.float32 and input._data.size > 1 and \
            input._data.flags.c_contiguous:
        # oneDNN's kernel over the whole tensor, its tail too (bit for bit, with AVX2 and with
        # AVX-512); other layouts go through torch's scalar loop and the C library's erf,
        # within an ulp of the value rounded once (below)
        out = wrap_elementwise(float32_math.gelu_contiguous(input._data), input._data)
    else:
        out = computed_once(lambda x: x * _normal_cdf_values(x), input._data)
    return record(GeluBackward0, out, (input,), saved=(input,), approximate=approximate)



class GeluBackward0(Node):
    """out = x * cdf(x):  d/dx = (cdf(x) + x * pdf(x)) * grad   (pdf: the normal density)
    (approximate='tanh': out = 0.5 x (1 + t), t = tanh(u), u = sqrt(2/pi) (x + 0.044715 x^3):
    d/dx = (0.5 (1 + t) + 0.5 x (1 - t^2) du/dx) * grad)"""

    _saved_names = ("self",)
    approximate: str

    def backward(self, grad):
        (x,) = self.saved_tensors
        return _gelu_backward(grad, x, self.approximate)


def _gelu_backward(grad, x, approximate):
    """gelu's gradient; under create_graph recorded as torch records it, one
    GeluBackwardBackward0 node linked to grad and x (whose backward is torch's
    gelu_double_backward)."""
    with no_grad():
        half = x.dtype == float16  # torch's float16 kernel works in float32, rounds once
        wide, seed = (x.float(), grad.float()) if half else (x, grad)
        if approximate == "tanh":
            t = (_SQRT_2_OVER_PI * (wide + _GELU_CUBIC * wide ** 3)).tanh()
            du_dx = _SQRT_2_OVER_PI * (1 + 3 * _GELU_CUBIC * wide ** 2)
            out = (0.5 * (1 + t) + 0.5 * wide * (1 - t * t) * du_dx) * seed
        elif half:  # (torch's kernel: 0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) beta)
            cdf = 0.5 * (1 + (wide * math.sqrt(0.5)).erf())
            out = (cdf + wide * ((wide * wide * -0.5).exp() * _GELU_BETA)) * seed
        else:
            pdf = (-0.5 * wide * wide).exp() * (1 / math.sqrt(2 * math.pi))
            out = (normal_cdf(wide) + wide * pdf) * seed
        out = out.half() if half else out
    out = laid_out_as_kernel(out, grad, x)
    if not is_grad_enabled():
        return out
    return record(GeluBackwardBackward0, out, (grad, x), saved=(grad, x),
                  approximate=approximate)


_GELU_BETA = 1.12837916709551257390 * 0.70710678118654752440 * 0.5  # M_2_SQRTPI M_SQRT1_2 / 2


class GeluBackwardBackward0(Node):
    """out = gelu's gradient gO * gelu'(x) (recorded under create_graph): d/dgO = gelu's
    gradient again, d/dx = ggI * gO * gelu''(x) (torch's gelu_double_backward, its operands
    evaluated right to left as its C++ compiler does)"""

    _saved_names = ("grad_output", "self")
    approximate: str

    def backward(self, ggI):
        gO, x = self.saved_tensors
        d_grad = _gelu_backward(ggI, x, self.approximate)  # (first, as torch's node)
        if self.approximate == "tanh":
            second = _gelu_tanh_second_derivative(x)
        else:
            input_sq = x * x
            pdf = mul_scalar(mul_scalar(input_sq, -0.5).exp(), _GELU_BETA)
            right = input_sq * pdf
            second = mul_scalar(pdf, 2) - right
        return d_grad, ggI * gO * second


def _gelu_tanh_second_derivative(x):
    beta, kappa = math.sqrt(2) * 1.12837916709551257390 * 0.5, _GELU_CUBIC
    inner = mul_scalar(x + mul_scalar(x.pow(3), kappa), beta)
    tanh_inner = inner.tanh()
    sech_inner = 1 / inner.cosh()
    f = mul_scalar(x, 0.5)
    g = 1 - tanh_inner * tanh_inner
    h = mul_scalar(1 + mul_scalar(x, 3 * kappa) * x, beta)
    f_prime_gh = mul_scalar(g, 0.5) * h
    g_prime = mul_scalar(sech_inner, 2) * (-sech_inner * tanh_inner) * h
    g_prime_fh = f * h * g_prime
    h_prime_fg = f * g * mul_scalar(mul_scalar(x, 6 * kappa), beta)
    return f_prime_gh + f_prime_gh + g_prime_fh + h_prime_fg


def normal_cdf(input):
    """P(Z <= input) for a standard normal Z: what gelu multiplies x by (differentiable, so
    that gelu's gradient can be differentiated again)."""
    out = computed_once(_normal_cdf_values, input._data)
    return record(NormalCdfBackward, out, (input,), saved=(input,))


class NormalCdfBackward(Node):
    """out = cdf(x):  d/dx = pdf(x) * grad = exp(-x^2 / 2) / sqrt(2 pi) * grad"""

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return (-0.5 * x * x).exp() * (1 / math.sqrt(2 * math.pi)) * grad


# ====================================================================== leaky_relu
@number_parameters("leaky_relu", {"negative_slope": "Number"}, always_positional=True)
def leaky_relu(input, negative_slope=0.01, inplace=False):
    """out = x where x > 0, else negative_slope * x"""
    check_float("leaky_relu_cpu", input)
    if inplace:
        return write_inplace(input, _leaky_relu(input, negative_slope, LeakyReluBackward1))
    return _leaky_relu(input, negative_slope, LeakyReluBackward0)


def _leaky_relu(input, negative_slope, node):
    x = input._data
    # (float16 multiplies in float32 and rounds once, as torch)
    wide = x.astype(np.float32) if x.dtype == np.float16 else x
    out = wrap(np.where(x > 0, x, (wide * wide.dtype.type(negative_slope)).astype(x.dtype)))
    if node is LeakyReluBackward1:  # in place: x is gone, the result tells the sign
        return record(node, out, (input,), saved_output=True, negative_slope=negative_slope)
    return record(node, out, (input,), saved=(input,), negative_slope=negative_slope)


class LeakyReluBackward0(Node):
    """out = x if x > 0 else slope * x:  d/dx = grad where x > 0, else slope * grad"""

    _saved_names = ("self",)
    negative_slope: float

    def backward(self, grad):
        (x,) = self.saved_tensors
        return _leaky_relu_backward(grad, x, self.negative_slope)


class LeakyReluBackward1(Node):
    """leaky_relu_ (in place): the same gradient, read from the sign of the result"""

    _saved_names = ("result",)
    negative_slope: float

    def backward(self, grad):
        (result,) = self.saved_tensors
        return _leaky_relu_backward(grad, result, self.negative_slope)


def _leaky_relu_backward(grad, x, negative_slope):
    """grad where x > 0, else negative_slope * grad; under create_graph torch records it as
    one node linked to x too (so a third derivative keeps its graph)."""
    if not is_grad_enabled():
        return grad.where(x > 0, grad * negative_slope)
    with no_grad():
        out = grad.where(x > 0, grad * negative_slope)
    return record(LeakyReluBackwardBackward0, out, (grad, x), saved=(x,),
                  negative_slope=negative_slope)


class LeakyReluBackwardBackward0(Node):
    """out = leaky_relu's gradient (recorded under create_graph):  d/dgrad = the same
    slopes, d/dx = 0"""

    _saved_names = ("self",)
    negative_slope: float

    def backward(self, grad):
        (x,) = self.saved_tensors
        return _leaky_relu_backward(grad, x, self.negative_slope), zeros_like(grad)


# ====================================================================== elu
@number_parameters("elu", {"alpha": "Number"}, always_positional=True)
def elu(input, alpha=1.0, inplace=False):
    """out = x where x > 0, else alpha * (exp(x) - 1)"""
    check_float("elu_cpu", input)
    if inplace:
        return write_inplace(input, _elu(input, alpha, EluBackward1))
    return _elu(input, alpha, EluBackward0)


def _elu(input, alpha, node):
    # (a zero is kept as it is, whatever alpha's sign, as torch's kernel keeps it)
    out = computed_once(lambda x: np.where(x >= 0, x, alpha * np.expm1(x)), input._data)
    state = {"alpha": alpha, "scale": 1, "input_scale": 1}
    if node is EluBackward1:
        return record(node, out, (input,), saved_output=True, **state)
    return record(node, out, (input,), saved=(input,), **state)


class EluBackward0(Node):
    """out = x if x > 0 else alpha (exp(x) - 1):  d/dx = grad where x > 0, else
    alpha * exp(x) * grad"""

    _saved_names = ("self",)
    alpha: float
    scale: float
    input_scale: float

    def backward(self, grad):
        (x,) = self.saved_tensors
        return elu_backward(grad, x, False, self)


class EluBackward1(Node):
    """elu_ (in place): d/dx = grad where out > 0, else (out + alpha) * grad"""

    _saved_names = ("result",)
    alpha: float
    scale: float
    input_scale: float

    def backward(self, grad):
        (result,) = self.saved_tensors
        return elu_backward(grad, result, True, self)


def elu_backward(grad, x, is_result, coefficients):
    """torch's elu_backward: where x <= 0, grad * input_scale * alpha * scale * exp(x *
    input_scale) (of the result: grad * input_scale * (result + alpha * scale)), else grad *
    scale; under create_graph recorded as torch records it, one EluBackwardBackward0 node
    linked to grad and x, whose own backward multiplies as torch's elu_double_backward does
    (so inf * 0 is nan there, as in torch)."""
    alpha, scale, input_scale = (coefficients.alpha, coefficients.scale,
                                 coefficients.input_scale)
    with no_grad():
        # (float16 computes in float32 and rounds once, as torch's kernel)
        wide_grad, wide_x = ((widened(grad), x.float()) if grad.dtype == float16
                             else (grad, x))
        scaled = wide_grad * input_scale
        if is_result:
            negative = scaled * (wide_x + alpha * scale)
        else:
            negative = scaled * (alpha * scale) * (wide_x * input_scale).exp()
        out = negative.where((x <= 0) | simd_nan(grad, x, avx512_code=True),
                              wide_grad * scale).to(grad.dtype)
    out = laid_out_as_kernel(out, grad, x)
    if not is_grad_enabled():
        return out
    return record(EluBackwardBackward0, out, (grad, x), saved=(grad, x), alpha=alpha,
                  scale=scale, input_scale=input_scale, is_result=is_result)


class EluBackwardBackward0(Node):
    """out = elu's gradient (recorded under create_graph): d/dgrad = elu's gradient again;
    d/dx = torch's elu_double_backward: elu_backward(gg * grad * input_scale) * (x < 0) (of
    the result: gg * grad * input_scale * (result < 0))"""

    _saved_names = ("grad_output", "self_or_result")
    alpha: float
    scale: float
    input_scale: float
    is_result: bool

    def backward(self, gg):
        grad, x = self.saved_tensors
        below = (x < 0).to(gg.dtype)
        product = mul_scalar(gg * grad, self.input_scale)
        if not self.is_result:
            product = elu_backward(product, x, False, self)
        return elu_backward(gg, x, self.is_result, self), product * below


# ====================================================================== softplus
@number_parameters("softplus", {"beta": "Number", "threshold": "Number"})
def softplus(input, beta=1, threshold=20):
    """out = log(1 + exp(beta * x)) / beta, or x where beta * x > threshold (no overflow)"""
    check_float("softplus_cpu", input)
    out = computed_once(lambda x: np.where(x * beta > threshold, x, np.log1p(np.exp(
        np.minimum(x * beta, threshold))) / beta), input._data)
    return record(SoftplusBackward0, out, (input,), saved=(input,), beta=beta,
                  threshold=threshold)


class SoftplusBackward0(Node):
    """out = log(1 + exp(beta x)) / beta:  d/dx = sigmoid(beta x) * grad (grad itself where
    beta x > threshold)"""

    _saved_names = ("self",)
    beta: float
    threshold: float

    def backward(self, grad):
        (x,) = self.saved_tensors
        return _softplus_backward(grad, x, self.beta, self.threshold)


def _softplus_backward(grad, x, beta, threshold):
    """softplus's gradient; under create_graph recorded as torch records it: one
    SoftplusBackwardBackward0 node linked to grad and x. (Built from ordinary ops, its graph
    would share their nodes with the higher derivatives, and a backward through those would
    free nodes this gradient still needs.)"""
    if not is_grad_enabled():
        return _softplus_gradient(grad, x, beta, threshold)
    with no_grad():
        out = _softplus_gradient(grad, x, beta, threshold)
    return record(SoftplusBackwardBackward0, out, (grad, x), saved=(grad, x), beta=beta,
                  threshold=threshold)


def _softplus_gradient(grad, x, beta, threshold):
    """torch's kernel: z = exp(beta x), grad * z / (z + 1) (in this order: x / x's
    gradients cancel exactly as in torch), grad itself where beta x > threshold; float16
    in float32, rounded once"""
    wide_grad, wide_x = (widened(grad), x.float()) if grad.dtype == float16 else (grad, x)
    scaled = wide_x * beta
    z = scaled.exp()
    # (torch's test is beta x > threshold, false for nan: a nan input's gradient is nan)
    return laid_out_as_kernel(
        wide_grad.where(scaled > threshold, wide_grad * z / (z + 1)).to(grad.dtype), grad, x)


class SoftplusBackwardBackward0(Node):
    """out = softplus's gradient g * sigmoid(beta x) (recorded under create_graph):
    d/dg = sigmoid(beta x) (softplus's gradient again), d/dx = g beta sigmoid'(beta x) where
    beta x < threshold (torch's softplus_double_backward)"""

    _saved_names = ("grad_output", "self")
    beta: float
    threshold: float

    def backward(self, gg):
        grad, x = self.saved_tensors
        scaled = mul_scalar(x, self.beta)  # (at::mul with a Scalar: MulBackward1, as torch)
        below = (scaled < self.threshold).to(gg.dtype)
        return (_softplus_backward(gg, x, self.beta, self.threshold),
                mul_scalar(sigmoid_backward(gg * grad, scaled.sigmoid()) * below, self.beta))


# ====================================================================== silu
def silu(input, inplace=False):
    """out = x * sigmoid(x) = x / (1 + exp(-x))"""
    check_float("silu_cpu", input)
    out = computed_once(lambda x: x / (1 + np.exp(-x)), input._data)
    out = record(SiluBackward0, out, (input,), saved=(input,))
    # in place, the node keeps a copy of the old values (write_inplace sees to it)
    return write_inplace(input, out) if inplace else out


class SiluBackward0(Node):
    """out = x sigmoid(x):  d/dx = sigmoid(x) (1 + x (1 - sigmoid(x))) * grad"""

    _saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        if x.dtype == float16 and not is_grad_enabled():  # (torch's kernel: in float32,
            out = self.formula(grad.float(), x.float()).half()  # rounded once, laid out as
            return laid_out_as_kernel(out, grad, x)  # its iterator over grad and x)
        return self.formula(grad, x)

    def formula(self, grad, x):
        s = x.sigmoid()
        # torch's grad * s * (1 + x * (1 - s)), the right operand made first as its C++
        # compiler makes it (1 + t and 1 - s: AddBackward1, SubBackward0 under create_graph):
        # the nodes' order decides how the next derivative adds up
        right = add_scalar(x * number_minus(1, s), 1)
        return grad * s * right
