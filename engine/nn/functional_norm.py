"""Normalisation, as ``torch.nn.functional`` computes it: ``batch_norm``, ``layer_norm`` and
``rms_norm``.

Both shift and scale their input to mean 0 and variance 1, then apply a learned scale
(weight) and shift (bias): ``out = (x - mean) / sqrt(var + eps) * weight + bias``. They
differ in what the mean and variance are taken over: ``batch_norm`` over the batch (and
the pixels) of each channel, ``layer_norm`` over the last dimensions of each sample.

``batch_norm`` in training mode normalises with the statistics of the batch and updates
the running averages (``running_mean``, ``running_var``) that evaluation mode uses
instead. The forward passes follow torch's CPU kernels step by step (sums in float64 in
torch's order, the same roundings), so float32 values and running statistics are bit for
bit torch's. The backward formulas are written with engine operations, so they can be
differentiated again; their float32 values can differ from torch's in the last bits
(torch's kernels add in vectorised blocks). A float16 input takes torch's kernels for it,
in float32, forward and backward (functional_norm_half.py).

``rms_norm`` divides by the root mean square only (no mean taken off, no bias). torch's CPU
build has no kernel of its own for it (its fused one is CUDA's): it composes it of ordinary
operations, in every case (gradients required or not, any dtype, under autocast), and so does
the engine, operation for operation, so that values, nodes and gradients are torch's.
"""
import math

import numpy as np

from ..core.forward import has_tangent
from ..core.grad_mode import is_grad_enabled
from ..core.tangents import functorch_wraps
from ..core.node import Node, record
from ..core.tangents import transposed
from ..core.tensor import wrap
from ..fidelity import signatures
from ..fidelity import messages
from ..fidelity.dtypes import finfo, float16, float32, from_numpy_dtype, scalar_type_name
from ..fidelity.layout import suggested_memory_format
from ..fidelity.moments import rowwise_moments
from ..fidelity.rounding import fma32, fma64
from ..fidelity.messages import CPP_TYPE_NAMES, type_name
from ..ops.arithmetic import add_scalar, div
from ..ops.common import histories_read_first
from ..ops.creation import full_like
from .functional_norm_half import half_batch_norm, half_batch_norm_backward, is_mixed, memory_path
from .functional_pool import laid_out_as


# ====================================================================== batch_norm
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """out = (input - mean) / sqrt(var + eps) * weight + bias, per channel (dimension 1):
    the batch's statistics when training (the running ones updated in place), else the
    running ones"""
    if training:
        size = input.shape
        if math.prod([size[0], *size[2:]]) == 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             f"size {size}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return batch_norm_kernel(input, running_mean, running_var, weight, bias, training, momentum,
                             eps)


def batch_norm_kernel(input, running_mean, running_var, weight, bias, training, momentum, eps):
    """ATen's batch_norm (torch.batch_norm): batch_norm after F.batch_norm's Python checks"""
    if input.numel() == 0 and input.dim() > 1:
        return _empty_batch_norm(input, weight, bias)
    _check_batch_norm(input, running_mean, running_var, weight, bias, training)
    if input._data.dtype == np.float16:  # torch's kernels compute it in float32
        out, mean, invstd = half_batch_norm(input, weight, bias, running_mean, running_var,
                                            training, momentum, eps)
        return record(NativeBatchNormBackward0, out, (input, weight, bias),
                      saved=(input, weight, running_mean, running_var, wrap(mean),
                             wrap(invstd)), training=training, eps=eps)
    x = input._data
    channels_last = np.moveaxis(x, 1, -1)                    # (..., C): a channel per column
    with np.errstate(all="ignore"):  # (inf and nan in a batch: torch is silent)
        if training:
            mean, invstd = _batch_statistics(x, running_mean, running_var, momentum, eps)
        else:
            mean = running_mean._data
            invstd = 1 / np.sqrt(running_var._data + x.dtype.type(eps))
        # torch's alpha and beta: out = x * alpha + beta (its compiled kernel fuses a * b + c)
        alpha = invstd if weight is None else invstd * weight._data
        beta = _fused(-mean, alpha, np.zeros_like(mean) if bias is None else bias._data)
        out = np.moveaxis(_fused(channels_last, alpha, beta), -1, 1).astype(x.dtype, copy=False)
    empty = np.zeros(0, x.dtype)
    saved_mean, saved_invstd = (wrap(mean), wrap(invstd)) if training else (wrap(empty),
                                                                          wrap(empty))
    # (channels-last in, channels-last out, as torch's kernel writes)
    return record(NativeBatchNormBackward0, laid_out_as(out, input),
                  (input, weight, bias), saved=(input, weight, running_mean, running_var,
                                                saved_mean, saved_invstd),
                  training=training, eps=eps)


def _fused(a, b, c):
    """a * b + c rounded once, as torch's compiled kernels compute it (float32: exactly;
    float64: within the last bit; other dtypes: rounded twice)."""
    if a.dtype == np.float32:
        return fma32(a, b, c)
    if a.dtype == np.float64:
        with np.errstate(over="ignore", invalid="ignore"):
            fused, plain = fma64(a, b, c), a * b + c
        return np.where(np.isfinite(fused) & (fused != 0), fused, plain)
    return a * b + c


def _empty_batch_norm(input, weight, bias):
    """torch's answer for an empty input: a copy, times weight[0], plus bias[0] (so that the
    result still depends on them; C++'s select, whose words an empty weight gets)."""
    out = input.clone()
    if weight is not None:
        out = out * weight.select(0, 0)
    if bias is not None:
        out = out + bias.select(0, 0)
    return out


def _batch_statistics(x, running_mean, running_var, momentum, eps):
    """The batch's mean and 1 / sqrt(var + eps) per channel, as torch's CPU kernel gets them
    (float64 sums, element by element); the running averages updated in place, with the
    unbiased variance (divided by count - 1)."""
    count = x.size // x.shape[1]
    if count != x.shape[0]:  # pixels: torch's kernel for contiguous images
        per_channel = np.moveaxis(x, 1, 0).reshape(x.shape[1], count)  # (C, N * pixels)
        mean = (_sequential_sum(per_channel) / count).astype(x.dtype)
        centred = per_channel - mean[:, None]
        var_sum = _sequential_sum(centred * centred).astype(x.dtype)
    else:  # (N, C): torch's kernel for channels-last data
        mean, var_sum = _channels_last_statistics(x.reshape(count, x.shape[1]))
    with np.errstate(divide="ignore", invalid="ignore"):
        invstd = (1 / np.sqrt((var_sum / x.dtype.type(count)).astype(np.float64) + eps)
                  ).astype(x.dtype)
        momentum = x.dtype.type(momentum)  # torch's kernel: the parameters' dtype
        if running_mean is not None:
            # (written by the kernel, as in torch: no in-place operation, no new version)
            running_mean._data[...] = momentum * mean + (1 - momentum) * running_mean._data
        if running_var is not None:
            unbiased = (var_sum / x.dtype.type(count - 1)).astype(np.float64)
            kept = ((1 - momentum) * running_var._data).astype(np.float64)
            running_var._data[...] = np.float64(momentum) * unbiased + kept
    return mean, invstd


def _channels_last_statistics(rows):
    """Mean and sum of squared deviations of each column of (N, C), as torch's kernel for
    channels-last data gets them: running sums in the input's dtype, row after row (the
    squares fused: acc + d * d rounded once); on one thread (torch, on several, splits
    the rows among them and adds their sums in float64)."""
    count = rows.shape[0]
    total = np.cumsum(rows, axis=0, dtype=rows.dtype)[-1] if count else np.zeros(rows.shape[1])
    mean = (total.astype(np.float64) / count).astype(rows.dtype)
    var_sum = np.zeros(rows.shape[1], rows.dtype)
    for row in rows:
        deviation = row - mean
        var_sum = _fused(deviation, deviation, var_sum)
    return mean, var_sum


def _sequential_sum(rows):
    """Each row's sum in float64, added element by element (torch's order)."""
    if rows.shape[1] == 0:
        return np.zeros(rows.shape[0])
    return np.cumsum(rows, axis=1, dtype=np.float64)[:, -1]


def _check_batch_norm(input, running_mean, running_var, weight, bias, training):
    """torch's checks, in its order."""
    channels = input.size(1)
    for name, tensor in (("running_mean", running_mean), ("running_var", running_var)):
        if tensor is not None and tensor.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {tensor.numel()}")
        if tensor is None and not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    for name, tensor in (("weight", weight), ("bias", bias)):
        if tensor is not None and tensor.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {tensor.numel()}")
    if training and (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be "
                         "None")
    parameters = (weight, bias, running_mean, running_var)
    mixed = is_mixed(input, parameters)
    if input._data.dtype.kind != "f":
        if training and not mixed and memory_path(input) == "strided":  # (torch.mean's)
            raise NotImplementedError("mean(): could not infer output dtype. Input dtype must "
                                      "be either a floating point or complex dtype. Got: "
                                      f"{scalar_type_name[input.dtype]}")
        raise NotImplementedError(f"\"batch_norm\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")
    if mixed:
        check_mixed_dtypes(input, parameters)
    else:
        _check_same_dtypes(input, parameters, training)


def _check_same_dtypes(input, parameters, training):
    """Parameters of the input's dtype (the first one given has it): torch reads each with
    its dtype, the running statistics first when training. Its loops for a layout other than
    row-major or channels-last meet another dtype in an internal assert."""
    weight, bias, running_mean, running_var = parameters
    order = (running_mean, running_var, weight, bias) if training else parameters
    other = [t for t in order if t is not None and t.dtype != input.dtype]
    if not other:
        return
    kernel = memory_path(input) != "strided" and all(
        t is None or t.is_contiguous() for t in parameters)
    if kernel or (training and any(other[0] is t for t in (running_mean, running_var))):
        raise RuntimeError(f"expected scalar type {scalar_type_name[input.dtype]} but found "
                           f"{scalar_type_name[other[0].dtype]}")
    raise RuntimeError(_DYNAMIC_CASTING)


_DYNAMIC_CASTING = ('!needs_dynamic_casting<func_t>::check(iter) INTERNAL ASSERT FAILED at '
                    '"/__w/pytorch/pytorch/aten/src/ATen/native/cpu/Loops.h":311, please '
                    'report a bug to PyTorch. ')


def check_mixed_dtypes(input, parameters):
    """torch's check_mixed_data_type (its CPU norms mix only a float16 input with float32
    parameters): when a parameter's dtype is not the input's, each parameter must be float32,
    in turn, then the input must be float16."""
    parameters = [t for t in parameters if t is not None]
    if any(t.dtype != input.dtype for t in parameters):
        if any(t._data.dtype != np.float32 for t in parameters):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if input._data.dtype != np.float16:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


class NativeBatchNormBackward0(Node):
    """out = x_hat * weight + bias, x_hat = (x - mean) * invstd per channel:
    d/dweight = sum of grad * x_hat,  d/dbias = sum of grad,
    d/dx = (grad - mean of grad - x_hat * mean of grad * x_hat) * invstd * weight (training;
    in eval mode mean and invstd are constants: d/dx = grad * invstd * weight)"""

    _saved_names = ("input", "weight", "running_mean", "running_var", "result1", "result2")
    training: bool
    eps: float

    def backward(self, grad):
        input, weight, running_mean, running_var, mean, invstd = self.saved_tensors
        if input._data.dtype != np.float16:
            grads = self.formula(grad, input, weight, running_mean, running_var)
            if is_grad_enabled() or grads[0] is None:
                return grads
            # (torch's kernel writes the input's gradient in the input's memory format)
            return (laid_out_as(grads[0]._data, input),) + tuple(grads[1:])
        # float16: torch's kernel (in float32, from the saved statistics)
        values = half_batch_norm_backward(grad, input, weight, running_mean, running_var, mean,
                                          invstd, self.training, self.eps)
        if not is_grad_enabled():
            return values[0], wrap(values[1]), wrap(values[2])
        # create_graph: the formula's graph (its second derivative), holding the kernel's values
        return tuple(_holding(result, np.asarray(getattr(value, "_data", value)))
                     for result, value in zip(self.formula(grad, input, weight, running_mean,
                                                           running_var), values))

    def formula(self, grad, input, weight, running_mean, running_var):
        """The gradients by engine operations, which create_graph differentiates again."""
        dims = [0, *range(2, input.dim())]              # all but the channels
        shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
        if self.training:  # recomputed with engine ops: create_graph differentiates them too
            mean = input.mean(dims, keepdim=True)
            invstd = ((input - mean) ** 2).mean(dims, keepdim=True).add(self.eps).rsqrt()
        else:
            mean = running_mean.view(shape)
            invstd = running_var.view(shape).add(self.eps).rsqrt()
        x_hat = (input - mean) * invstd
        grad_weight = (grad * x_hat).sum(dims)
        grad_bias = grad.sum(dims)
        scale = invstd if weight is None else invstd * weight.view(shape)
        if self.training:
            count = input.numel() // input.shape[1]
            grad = grad - grad_bias.view(shape) / count - x_hat * grad_weight.view(shape) / count
        return grad * scale, grad_weight, grad_bias

    def jvp(self, tangent, tangent_weight, tangent_bias):
        """Forward mode, torch's batch_norm_jvp: the normalisation's tangent (norm_jvp), per
        channel; in eval mode t * invstd, invstd = 1 / sqrt(running_var + eps); then the
        weight's and bias's terms (affine_jvp)."""
        input, weight, running_mean, running_var, mean, invstd = self.saved_tensors
        if self.training and has_tangent(input):
            return derived(self, tangent, tangent_weight, tangent_bias)
        shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
        if self.training:
            dims = [0, *range(2, input.dim())]
            mean, invstd = mean.view(shape), invstd.view(shape)
            result = norm_jvp(input, tangent, mean, invstd, dims, input.numel() // shape[1])
        else:
            mean = running_mean.view(shape)
            invstd = div(full_like(running_var, 1), (running_var + self.eps).sqrt()).view(shape)
            result = None if tangent is None else tangent * invstd
        return affine_jvp(result, input, mean, invstd, weight, tangent_weight, tangent_bias,
                          shape)


def _holding(result, values):
    """``result`` (a new tensor, recorded) in the dtype of ``values``, holding them (written
    into it: the graph behind it is kept)"""
    if result._data.dtype != values.dtype:
        result = result.to(from_numpy_dtype[values.dtype])
    result._data[...] = values
    return result


def derived(node, *tangents):
    """The normalisations' tangent inside an outer level (a second derivative): derived
    from the backward, whose statistics are recomputed, so they have tangents too. (torch's
    formulas read its saved mean and rstd, constants there but for group_norm's: its forward
    over forward through layer_norm and batch_norm is wrong, see test_nested_forward_parity.)
    """
    return transposed(node, type(node), tangents, node.results, node.primals, recorded=True)[0]


def norm_jvp(input, tangent, mean, invstd, dims, count):
    """torch's tangent of (input - mean) * invstd, the statistics over ``dims`` (``count``
    elements), op by op as its _norm_jvp computes it: with c = t - mean(t),
    c * invstd + (input - mean) * sum(c * (input - mean) * -invstd^3) / count.
    Under torch.func.jvp torch's tensors are functorch's wrappers, and it multiplies
    -invstd^3 first (torch.autograd.forward_ad's plain tensors: last, in place)."""
    if tangent is None:
        return None
    centred, deviation = tangent - tangent.mean(dims, keepdim=True), input - mean
    cubed = -(invstd ** 3)
    if functorch_wraps():
        invstd_t = cubed * centred * deviation
    else:
        invstd_t = centred * deviation * cubed
    invstd_t = invstd_t.sum(dims, keepdim=True) / count
    return centred * invstd + deviation * invstd_t


def affine_jvp(result, input, mean, invstd, weight, tangent_weight, tangent_bias, shape):
    """torch's tangent of normalised * weight + bias (_affine_jvp), from the normalisation's
    tangent ``result`` (None: zero): result * weight + normalised * t_weight, plus t_bias;
    weight and the tangents viewed as ``shape``."""
    if weight is not None:
        if result is not None:
            result = result * weight.view(shape)
        if tangent_weight is not None:
            term = (input - mean) * invstd * tangent_weight.view(shape)
            result = term if result is None else result + term
    if tangent_bias is not None:
        term = tangent_bias.view(shape)
        result = term if result is None else result + term
    return result


# ====================================================================== layer_norm
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """out = (x - mean) / sqrt(var + eps) * weight + bias, mean and (biased) var taken over
    the last len(normalized_shape) dimensions of each sample"""
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of "
                        f"ints, not {type_name(normalized_shape)}")
    # (torch's F.layer_norm hands it on by position, to torch.layer_norm's SymInt[]: its
    # first element's type, eps's type, then the list read)
    signatures.int_list_checked("layer_norm", "normalized_shape", normalized_shape,
                                " (position 2)", unpack=False, symint=True)
    if not signatures.fits(eps, "float"):
        raise TypeError(f"layer_norm(): argument 'eps' (position 5) must be float, not "
                        f"{type_name(eps)}")
    eps = float(eps)
    normalized_shape = signatures.unpack_ints("layer_norm", "normalized_shape",
                                              normalized_shape, True)
    _check_layer_norm(input, normalized_shape, weight, bias)
    x = input._data
    kept = x.ndim - len(normalized_shape)               # the dimensions of the samples
    rows = x.reshape(math.prod(x.shape[:kept]), math.prod(normalized_shape))  # one sample a row
    # the statistics as torch's kernel gets them (fidelity/moments.py: its vectorised
    # Welford sums, replayed); float16: in float32, stored as float16 for the backward pass
    computed = np.dtype(np.float32 if x.dtype == np.float16 else x.dtype)
    with np.errstate(all="ignore"):  # (inf and nan in a row: torch is silent)
        if rows.shape[1]:
            mean, var = rowwise_moments(rows)
        else:
            mean = var = np.full(rows.shape[0], np.nan, computed)
        # (in that dtype, as torch's kernel: 1 / sqrt(var + eps), eps a C++ float there)
        rstd = 1 / np.sqrt(var + computed.type(eps))
    out = _layer_norm_rows(rows, mean, rstd, weight, bias)
    mean, rstd = mean.astype(x.dtype), rstd.astype(x.dtype)
    stats_shape = x.shape[:kept] + (1,) * len(normalized_shape)
    return record(NativeLayerNormBackward0,
                  wrap(np.asarray(out.reshape(x.shape), x.dtype, order="C")),
                  (input, weight, bias), saved=(input, weight, bias,
                                                wrap(mean.reshape(stats_shape)),
                                                wrap(rstd.reshape(stats_shape))),
                  normalized_shape=normalized_shape, eps=eps)


def _layer_norm_rows(rows, mean, rstd, weight, bias):
    """torch's last step, row by row. float32 and float64: (x - mean) * rstd, then times
    weight plus bias fused (a constant row gives exact zeros); without weight or bias, torch
    multiplies by 1 and adds 0 all the same (-0.0 comes out as 0.0). float16: in float32,
    x * rstd + (-rstd * mean) fused, then * weight + bias fused, rounded to float16 at the
    end (a constant row keeps the rounding residue of rstd * mean)."""
    w = None if weight is None else weight._data.reshape(-1)
    b = None if bias is None else bias._data.reshape(-1)
    if rows.dtype == np.float16:
        wide = rows.astype(np.float32)
        rstd32, mean32 = rstd[:, None], mean[:, None]  # (float32, as torch's kernel has them)
        with np.errstate(over="ignore", invalid="ignore"):
            # x * rstd + (-rstd * mean), then * weight + bias, each fused (rounded once)
            out = fma32(wide, np.broadcast_to(rstd32, wide.shape),
                        np.broadcast_to(-rstd32 * mean32, wide.shape))
            out = fma32(out, np.broadcast_to(np.float32(1) if w is None else w.astype(
                np.float32), wide.shape), np.broadcast_to(np.float32(0) if b is None else
                                                          b.astype(np.float32), wide.shape))
            return out.astype(np.float16)
    with np.errstate(over="ignore", invalid="ignore"):
        normalised = (rows - mean[:, None]) * rstd[:, None]
        if w is None or b is None:
            one, zero = rows.dtype.type(1), rows.dtype.type(0)
            return normalised * (one if w is None else w) + (zero if b is None else b)
        return _fused(normalised, w, b)


def _check_layer_norm(input, normalized_shape, weight, bias):
    """torch's checks, in its order."""
    if not normalized_shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, tensor in (("weight", weight), ("bias", bias)):
        if tensor is not None and tuple(tensor.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(tensor.shape)} and normalized_shape "
                               f"= {list(normalized_shape)}")
    if tuple(input.shape[input.dim() - len(normalized_shape):]) != normalized_shape or \
            input.dim() < len(normalized_shape):
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input "
                           f"with shape [*, {', '.join(map(str, normalized_shape))}], but got "
                           f"input of size{list(input.shape)}")
    check_mixed_dtypes(input, (weight, bias))
    if input._data.dtype.kind != "f":
        raise NotImplementedError("\"LayerNormKernelImpl\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")


class NativeLayerNormBackward0(Node):
    """out = x_hat * weight + bias, x_hat = (x - mean) * rstd over the normalized dimensions:
    d/dweight = sum over samples of grad * x_hat,  d/dbias = sum over samples of grad,
    d/dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat)) with g = grad * weight"""

    _saved_names = ("input", "weight", "bias", "result1", "result2")
    normalized_shape: tuple
    eps: float  # (torch's node does not keep eps: its second derivative is a formula of its own)

    def backward(self, grad):
        input, weight, _, mean, rstd = self.saved_tensors
        if grad.dtype == float16 and not is_grad_enabled():
            # torch's float16 kernel: float32 arithmetic on the values and the statistics it
            # saved, each gradient rounded to float16 once
            wide = self.gradients(grad.float(), input.float(),
                                  None if weight is None else weight.float(), mean.float(),
                                  rstd.float())
            return tuple(None if g is None else g.half() for g in wide)
        return self.gradients(grad, input, weight)

    def gradients(self, grad, input, weight, mean=None, rstd=None):
        dims = tuple(range(input.dim() - len(self.normalized_shape), input.dim()))
        samples = tuple(range(input.dim() - len(self.normalized_shape)))
        if mean is None:  # recomputed with engine ops: create_graph differentiates them too
            mean = input.mean(dims, keepdim=True)
            rstd = ((input - mean) ** 2).mean(dims, keepdim=True).add(self.eps).rsqrt()
        x_hat = (input - mean) * rstd
        g = grad if weight is None else grad * weight
        grad_input = rstd * (g - g.mean(dims, keepdim=True)
                             - x_hat * (g * x_hat).mean(dims, keepdim=True))
        if not samples:  # a single sample: nothing to add up
            return grad_input, grad * x_hat, grad
        return grad_input, (grad * x_hat).sum(samples), grad.sum(samples)

    def jvp(self, tangent, tangent_weight, tangent_bias):
        """Forward mode, torch's layer_norm_jvp: the normalisation's tangent (norm_jvp) over
        the normalized dimensions, then the weight's and bias's terms (affine_jvp). Inside an
        outer level: see derived."""
        input, weight, _, mean, rstd = self.saved_tensors
        if has_tangent(input):
            return derived(self, tangent, tangent_weight, tangent_bias)
        kept = input.dim() - len(self.normalized_shape)
        dims = tuple(range(kept, input.dim()))
        result = norm_jvp(input, tangent, mean, rstd, dims, math.prod(self.normalized_shape))
        return affine_jvp(result, input, mean, rstd, weight, tangent_weight, tangent_bias,
                          [1] * kept + list(self.normalized_shape))


# ====================================================================== rms_norm
_RMS_NORM = signatures.Signature("(Tensor input, tuple of SymInts normalized_shape, "
                                 "Tensor? weight = None, float? eps = None)", False)
_warned_mixed_dtypes = []  # (torch's TORCH_WARN_ONCE: once per process, whatever the dtypes)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """out = x / sqrt(mean(x ** 2) + eps) * weight, the mean taken over the last
    len(normalized_shape) dimensions of each sample; eps None: the machine epsilon of the
    dtype computed in (float32 for float16)"""
    # (torch's F.rms_norm hands its arguments on by position to torch.rms_norm's parser)
    given = (input, normalized_shape, weight, eps)
    _RMS_NORM.parse("rms_norm", given, {}, True)
    read = _RMS_NORM.read_ints("rms_norm", given, {})
    input, normalized_shape, weight, eps = given if read is None else read[0]
    normalized_shape = tuple(normalized_shape)
    _check_rms_norm(input, normalized_shape, weight)
    # (torch asks only on its way to the fused kernel, which a channels-last input skips)
    if weight is not None and weight.dtype != input.dtype and not _warned_mixed_dtypes and \
            suggested_memory_format(input._data.shape, input.stride()) == "contiguous_format":
        _warned_mixed_dtypes.append(True)
        messages.warn_from_learner(
            f"Mismatch dtype between input and weight: input dtype = "
            f"{CPP_TYPE_NAMES[input._data.dtype.name]}, weight dtype = "
            f"{CPP_TYPE_NAMES[weight._data.dtype.name]}, Cannot dispatch to fused "
            "implementation." + messages.triggered_in("aten/src/ATen/native/layer_norm.cpp:350"))
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"rms_norm\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")
    return _rms_norm_composite(input, normalized_shape, weight, eps)


def _rms_norm_composite(input, normalized_shape, weight, eps):
    """torch's rms_norm_composite, operation for operation: in float32 for float16 (its
    opmath type, the result rounded back at the end), eps a float there (a C++ float: the
    given number rounded to float32) and a double for float64; the result made contiguous
    unless the input is laid out channels-last."""
    dims = [input.dim() - i - 1 for i in range(len(normalized_shape))]
    opmath = float32 if input.dtype == float16 else input.dtype
    if eps is None:
        eps = finfo(opmath).eps
    elif opmath == float32:
        with np.errstate(over="ignore"):  # (1e300 is inf as a C++ float)
            eps = float(np.float32(eps))
    upcast = input.to(opmath)
    rstd = add_scalar(upcast.pow(2).mean(dims, keepdim=True), float(eps)).rsqrt()
    result = upcast.mul(rstd)
    if weight is not None:
        result = result.mul(weight)
    if suggested_memory_format(tuple(input.shape), input.stride()) == "contiguous_format":
        result = result.contiguous()
    return result.type_as(input)


def _check_rms_norm(input, normalized_shape, weight):
    """torch's checks (_check_rms_norm_inputs), in its order."""
    if not normalized_shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if weight is not None and tuple(weight.shape) != normalized_shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(normalized_shape)}")
    if input.dim() < len(normalized_shape):
        raise ValueError(f"Input tensor must have at least {len(normalized_shape)} dimensions, "
                         f"but got {input.dim()}")
    if tuple(input.shape[input.dim() - len(normalized_shape):]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input "
                           f"with shape [*{', '.join(map(str, normalized_shape))}], but got "
                           f"input of size{list(input.shape)}")


__all__ = ["batch_norm", "layer_norm", "rms_norm"]


# (torch's native_layer_norm reads the input's node before its checks)
histories_read_first(globals(), ["layer_norm"])
