"""group_norm, local_response_norm, pixel_shuffle, pixel_unshuffle and channel_shuffle, as
``torch.nn.functional`` computes them.

group_norm has torch's node (NativeGroupNormBackward0). Its forward and its gradients replay
torch's kernels: for a row-major input (or any but a channels-last one, of which torch's
kernel reads a row-major copy) statistics by engine/fidelity/moments.py and gradients by
engine/fidelity/group_norm_backward.py; for a channels-last one both by
engine/fidelity/group_norm_channels_last.py.
local_response_norm is torch's Python composition (avg_pool2d over the channels of 3-d
input, avg_pool3d of 4-d and more).
pixel_shuffle and pixel_unshuffle move elements only: exact, each with its node.
"""
import math

import numpy as np

from ..core.forward import has_tangent
from ..core.grad_mode import is_grad_enabled, no_grad
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from ..fidelity import signatures
from ..fidelity.dtypes import float16, scalar_type_name
from ..fidelity.group_norm_backward import group_norm_backward
from ..fidelity.group_norm_channels_last import (group_norm_channels_last,
                                                 group_norm_channels_last_backward)
from ..fidelity.layout import suggested_memory_format
from ..fidelity.moments import rowwise_moments
from ..fidelity.rounding import fma32, fma64
from ..fidelity.messages import type_name
from ..fidelity.size import wrap_dim
from .functional_conv import pad
from .functional_norm import (affine_jvp, batch_norm_kernel, check_mixed_dtypes, derived,
                              norm_jvp)
from .functional_pool import avg_pool2d, avg_pool3d, laid_out_as
from ..ops.common import number_parameters


# ====================================================================== group_norm
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """out = (x - mean) / sqrt(var + eps) * weight + bias, mean and (biased) var taken over
    each sample's channels in groups of C / num_groups (and all their positions)"""
    if not isinstance(input, Tensor):
        raise TypeError(f"group_norm(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    size = [input.shape[0] * input.shape[1] // num_groups, num_groups, *input.shape[2:]]
    if size[0] * math.prod(size[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {size}")
    # (torch's F.group_norm hands it on to torch.group_norm, whose int it is)
    num_groups = signatures.checked_int("group_norm", "num_groups", 2, num_groups)
    if not signatures.fits(eps, "float"):
        raise TypeError(f"group_norm(): argument 'eps' (position 5) must be float, not "
                        f"{type_name(eps)}")
    return group_norm_kernel(input, num_groups, weight, bias, float(eps))


def group_norm_kernel(input, num_groups, weight, bias, eps):
    """ATen's group_norm (torch.group_norm): group_norm after F.group_norm's Python checks"""
    if input.dim() == 0:  # (ATen reads the sizes of dimensions 0 and 1 first)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input.dim() == 1:
        wrap_dim(1, 1)
    x = input._data
    samples, channels = x.shape[:2]
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if channels % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(x.shape)} and num_groups={num_groups}")
    for name, tensor in (("weight", weight), ("bias", bias)):
        if tensor is not None and (tensor.dim() != 1 or tensor.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{list(tensor.shape)} and input of shape {list(x.shape)}")
    check_mixed_dtypes(input, (weight, bias))
    if x.dtype.kind != "f":
        raise NotImplementedError("\"GroupNormKernelImpl\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")
    positions = math.prod(x.shape[2:])
    if positions == 0 and samples:
        raise RuntimeError("Expected HxW to be greater than 0, got 0")
    per_group = channels // num_groups * positions
    if not (samples and per_group):
        values, mean, rstd = _group_norm_in_float64(x, num_groups, weight, bias, eps)
    elif _read_row_major(input):
        values, mean, rstd = _group_norm_as_torch(x, num_groups, weight, bias, eps)
    else:
        values, mean, rstd = group_norm_channels_last(
            x, num_groups, *(None if t is None else t._data for t in (weight, bias)), eps)
    # (a float16 input with float32 parameters, torch's mixed types: float32 statistics)
    stats_dtype = np.float32 if any(t is not None and t.dtype != input.dtype
                                    for t in (weight, bias)) else x.dtype
    # (channels-last in, channels-last out, as torch's kernel writes)
    return record(NativeGroupNormBackward0, laid_out_as(values, input), (input, weight, bias),
                  saved=(input, weight, wrap(mean.astype(stats_dtype)),
                         wrap(rstd.astype(stats_dtype))),
                  N=samples, C=channels, HxW=positions, group=num_groups, eps=eps)


def _read_row_major(input):
    """torch's kernels read a row-major copy of an input they do not see as channels-last
    (X.contiguous(X.suggest_memory_format()))."""
    return suggested_memory_format(input._data.shape, input.stride()) == "contiguous_format"


def _group_norm_as_torch(x, groups, weight, bias, eps):
    """torch's kernel for a row-major input (or its row-major copy): each group's statistics
    by RowwiseMoments, in float32 (float16 too) or float64; then per channel scale = rstd *
    weight and shift = -scale * mean + bias, and scale * x + shift, each a fused multiply-add
    (without weight and bias: (x - mean) * rstd). Measured against torch 2.15: every mean
    and rstd, and 99.4% of the float32 results (all of those without weight and bias) are
    torch's."""
    samples, channels = x.shape[:2]
    mean, var = rowwise_moments(x.reshape(samples * groups, -1))
    kind = mean.dtype.type
    fma = fma64 if kind is np.float64 else fma32
    with np.errstate(all="ignore"):
        # (1 / sqrt(var + eps) with eps a C++ double: in double, rounded once)
        rstd = (1 / np.sqrt(np.maximum(var, 0).astype(np.float64) + eps)).astype(kind)
        per_group = x.reshape(samples, groups, channels // groups, -1).astype(kind)
        group_mean, group_rstd = (s.reshape(samples, groups, 1, 1) for s in (mean, rstd))
        if weight is None and bias is None:
            out = (per_group - group_mean) * group_rstd
        else:
            gamma, beta = (np.full(channels, kind(default)) if t is None else
                           t._data.astype(kind) for t, default in ((weight, 1), (bias, 0)))
            scale = group_rstd * gamma.reshape(1, groups, -1, 1)
            shift = fma(-scale, np.broadcast_to(group_mean, scale.shape),
                        np.broadcast_to(beta.reshape(1, groups, -1, 1), scale.shape))
            out = fma(np.broadcast_to(scale, per_group.shape), per_group,
                      np.broadcast_to(shift, per_group.shape))
    return out.astype(x.dtype).reshape(x.shape), mean.reshape(samples, groups), \
        rstd.reshape(samples, groups)


def _group_norm_in_float64(x, groups, weight, bias, eps):
    """Nothing to normalise (no samples): the statistics in float64, rounded once."""
    samples, channels = x.shape[:2]
    positions = math.prod(x.shape[2:])
    groups_of = x.reshape(samples, groups, channels // groups * positions).astype(np.float64)
    with np.errstate(all="ignore"):
        if groups_of.shape[2]:
            mean = groups_of.mean(axis=2)
            var = ((groups_of - mean[..., None]) ** 2).mean(axis=2)
        else:
            mean = var = np.zeros(groups_of.shape[:2])
        rstd = 1 / np.sqrt(var + eps)
        out = ((groups_of - mean[..., None]) * rstd[..., None]).reshape(samples, channels,
                                                                        positions)
        if weight is not None:
            out = out * weight._data.astype(np.float64)[:, None]
        if bias is not None:
            out = out + bias._data.astype(np.float64)[:, None]
        if x.dtype == np.float16:
            out = out.astype(np.float32)
        return np.ascontiguousarray(out.astype(x.dtype).reshape(x.shape)), mean, rstd


class NativeGroupNormBackward0(Node):
    """out = x_hat * weight + bias, x_hat = (x - mean) * rstd over each group:
    d/dweight = sum over samples and positions of grad * x_hat,  d/dbias = sum of grad,
    d/dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat)) per group, g = grad * weight.

    torch's kernel writes d/dx as c1 * grad + c2 * x + c3 per group: c1 = rstd * weight,
    c2 = (sum(g) * mean - sum(g * x)) * rstd**3 / n and c3 = -c2 * mean - sum(g) * rstd / n
    (n values in a group). The engine replays it (its sums and roundings:
    engine/fidelity/group_norm_backward.py for an input torch reads row-major,
    group_norm_channels_last.py for a channels-last one), so where the exact gradient is 0
    (groups of one value, the gradient of a sum of outputs) its residues are torch's. A
    backward pass with grad mode on (create_graph=True) takes the formula above, whose
    operations are differentiated in turn (torch then takes a differentiable formula of its
    own too)."""

    _saved_names = ("input", "weight", "result1", "result2")
    N: int
    C: int
    HxW: int
    group: int
    eps: float

    def backward(self, grad):
        input, weight, mean, rstd = self.saved_tensors
        if is_grad_enabled():
            return self.gradients(grad, input, weight)
        needed = [node is not None for node, _ in self.next_functions]
        if needed[2] and weight is None and mean.dtype != input.dtype:
            # (mixed types without a weight: torch's kernel reads its float16 dbias as float)
            raise RuntimeError("expected scalar type Float but found Half")
        gamma = None if weight is None else weight._data
        if input.numel() and _read_row_major(input):
            return tuple(None if g is None else wrap(g) for g in group_norm_backward(
                grad._data, input._data, mean._data, rstd._data, gamma, self.group, needed))
        if input.numel():  # channels-last: torch's kernel writes dx channels-last too
            dx, dgamma, dbeta = group_norm_channels_last_backward(
                grad._data, input._data, mean._data, rstd._data, gamma, self.group, needed)
            return (None if dx is None else laid_out_as(dx, input),
                    *(None if g is None else wrap(g) for g in (dgamma, dbeta)))
        # an empty input: the formula (float16 in float32, each gradient rounded to its
        # tensor's dtype once, as torch's kernel: float32 ones with float32 parameters)
        if grad.dtype == float16:
            wide = self.gradients(grad.float(), input.float(),
                                  None if weight is None else weight.float(),
                                  mean.float().unsqueeze(-1), rstd.float().unsqueeze(-1))
            return tuple(None if g is None else g.to(t.dtype)
                         for g, t in zip(wide, (input, mean, mean)))
        return self.gradients(grad, input, weight)

    def gradients(self, grad, input, weight, mean=None, rstd=None):
        shape = input.shape
        per_channel = (1, self.C) + (1,) * (input.dim() - 2)
        g = grad if weight is None else grad * weight.view(per_channel)
        x = input.reshape(self.N, self.group, self.C // self.group * self.HxW)
        if mean is None:  # recomputed with engine ops: create_graph differentiates them too
            mean = x.mean(2, keepdim=True)
            rstd = ((x - mean) ** 2).mean(2, keepdim=True).add(self.eps).rsqrt()
        x_hat = (x - mean) * rstd
        g = g.reshape(self.N, self.group, self.C // self.group * self.HxW)
        grad_input = rstd * (g - g.mean(2, keepdim=True)
                             - x_hat * (g * x_hat).mean(2, keepdim=True))
        needed = [node is not None for node, _ in self.next_functions]
        x_hat = x_hat.reshape(shape)
        others = (0, *range(2, input.dim()))
        grad_weight = (grad * x_hat).sum(others) if needed[1] else None
        grad_bias = grad.sum(others) if needed[2] else None
        grad_input = grad_input.reshape(shape)
        if not is_grad_enabled():  # (torch's kernel writes it in the input's memory format)
            grad_input = laid_out_as(grad_input._data, input)
        return grad_input, grad_weight, grad_bias

    def jvp(self, tangent, tangent_weight, tangent_bias):
        """Forward mode, torch's group_norm_jvp: the input as one batch of N * group
        channels, batch_norm's training tangent (norm_jvp), then the weight's and bias's
        terms per channel (affine_jvp). Inside an outer level, or under a backward through
        the tangent: see derived."""
        input, weight, mean, rstd = self.saved_tensors
        if has_tangent(input) or is_grad_enabled() and input.requires_grad:  # (torch's mean
            return derived(self, tangent, tangent_weight, tangent_bias)  # and rstd have a
        # tangent and a gradient there; the saved ones do not)
        groups = (1, self.N * self.group, -1 if self.N else 1)
        stats = (1, self.N * self.group, 1)
        mean, rstd, grouped = mean.view(stats), rstd.view(stats), input.view(groups)
        result = None if tangent is None else norm_jvp(
            grouped, tangent.view(groups), mean, rstd, (0, 2),
            grouped.shape[2]).view(input.shape)
        normalised = input if weight is None else ((grouped - mean) * rstd).view(input.shape)
        one = normalised.new_zeros(())  # ((x - 0) * 1 is x: the normalised value, as torch's)
        return affine_jvp(result, normalised, one, one + 1, weight, tangent_weight,
                          tangent_bias, (1, self.C) + (1,) * (input.dim() - 2))


# ====================================================================== local_response_norm
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """out = x / (k + alpha * mean of x^2 over the ``size`` neighbouring channels) ** beta"""
    dims = input.dim()
    if dims < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input "
                         f"(got {dims} dimensions)")
    if input.numel() == 0:
        return input
    squares = input.mul(input)
    if dims == 3:
        squares = pad(squares.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        squares = avg_pool2d(squares, (size, 1), stride=1).squeeze(1)
    else:  # (N, 1, C, H, rest): windows of size channels, one position each
        sizes = input.size()
        squares = squares.view(sizes[0], 1, sizes[1], sizes[2], -1)
        squares = pad(squares, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        squares = avg_pool3d(squares, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    return input / squares.mul(alpha).add(k).pow(beta)


# ====================================================================== pixel_shuffle
def _check_pixel(name, input, factor, kind):
    if input.dim() < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input "
                           f"with {input.dim()} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {kind}_factor, but got {factor}")


@number_parameters("pixel_shuffle", {"upscale_factor": "int"})
def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r): each group of r^2 channels becomes an r x r
    block of pixels"""
    if not isinstance(input, Tensor):
        raise TypeError(f"pixel_shuffle(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")
    r = upscale_factor
    _check_pixel("pixel_shuffle", input, r, "upscale")
    *batch, channels, height, width = input.shape
    if channels % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)="
                           f"{channels} is not divisible by {r * r}")
    x = input._data.reshape(*batch, channels // (r * r), r, r, height, width)
    n = len(batch)
    x = x.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    out = np.ascontiguousarray(x).reshape(*batch, channels // (r * r), height * r, width * r)
    return record(PixelShuffleBackward0, wrap(out), (input,), upscale_factor=r)


def channel_shuffle(input, groups):
    """(N, C, *) with C = g k: the channels read as g groups of k, taken one from each group in
    turn (channel i k + j goes to j g + i)"""
    if not isinstance(input, Tensor):
        raise TypeError(f"channel_shuffle(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")
    groups = signatures.checked_int("channel_shuffle", "groups", 2, groups, symint=True)
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    channels = input.shape[1]
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    if channels % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} "
                           f"channels and {groups} groups.")
    x = input._data
    if x.size == 0:  # (torch returns an alias: the input's strides)
        with no_grad():
            alias = input.as_strided(input.shape, input.stride(), input.storage_offset())
        return record(ChannelShuffleBackward0, alias, (input,), groups=groups)
    grouped = x.reshape(x.shape[0], groups, channels // groups, *x.shape[2:]).swapaxes(1, 2)
    out = np.ascontiguousarray(grouped).reshape(x.shape)
    return record(ChannelShuffleBackward0, wrap(out), (input,), groups=groups)


class ChannelShuffleBackward0(Node):
    """out = the channels interleaved from groups of C / groups:  d/dx = the gradient's
    channels shuffled back (the shuffle with C / groups groups)"""

    groups: int

    def backward(self, grad):
        return channel_shuffle(grad, grad.shape[1] // self.groups)


@number_parameters("pixel_unshuffle", {"downscale_factor": "int"})
def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W): pixel_shuffle undone"""
    if not isinstance(input, Tensor):
        raise TypeError(f"pixel_unshuffle(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")
    r = downscale_factor
    _check_pixel("pixel_unshuffle", input, r, "downscale")
    *batch, channels, height, width = input.shape
    for side, length, position in (("height", height, -2), ("width", width, -1)):
        if length % r:
            raise RuntimeError(f"pixel_unshuffle expects {side} to be divisible by "
                               f"downscale_factor, but input.size({position})={length} is not "
                               f"divisible by {r}")
    x = input._data.reshape(*batch, channels, height // r, r, width // r, r)
    n = len(batch)
    x = x.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    out = np.ascontiguousarray(x).reshape(*batch, channels * r * r, height // r, width // r)
    return record(PixelUnshuffleBackward0, wrap(out), (input,), downscale_factor=r)


class PixelShuffleBackward0(Node):
    """a permutation of the elements: the gradient goes back through pixel_unshuffle"""

    upscale_factor: int

    def backward(self, grad):
        return pixel_unshuffle(grad, self.upscale_factor)


class PixelUnshuffleBackward0(Node):
    """a permutation of the elements: the gradient goes back through pixel_shuffle"""

    downscale_factor: int

    def backward(self, grad):
        return pixel_shuffle(grad, self.downscale_factor)


# ====================================================================== instance_norm
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """batch_norm of each sample's channels on their own: the input seen as one sample of
    N * C channels (torch's composition: view, batch_norm, view back), the per-channel
    parameters and running statistics repeated for each sample"""
    if use_input_stats:
        size = list(input.shape)
        if math.prod(size[2:]) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {input.size()}")
    return instance_norm_kernel(input, running_mean, running_var, weight, bias, use_input_stats,
                                momentum, eps)


def instance_norm_kernel(input, running_mean, running_var, weight, bias, use_input_stats,
                         momentum, eps):
    """ATen's instance_norm (torch.instance_norm): instance_norm after F.instance_norm's
    Python check"""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    samples, channels = input.shape[0], input.shape[1]
    shape = [1, samples * channels, *input.shape[2:]]
    # the running statistics in the weight's dtype (else the input's), repeated
    stats_dtype = (input if weight is None else weight).dtype
    repeated = [None if t is None else t.repeat(samples) for t in (weight, bias)] + [
        None if t is None else t.to(stats_dtype).repeat(samples)
        for t in (running_mean, running_var)]
    out = batch_norm_kernel(input.contiguous().view(shape), repeated[2], repeated[3],
                            repeated[0], repeated[1], use_input_stats, momentum, eps)
    if use_input_stats:  # (the batch's statistics: their average over the samples kept)
        for kept, updated in ((running_mean, repeated[2]), (running_var, repeated[3])):
            if kept is not None:
                kept.copy_(updated.view(samples, channels).mean(0, False).to(kept.dtype))
    return out.view(input.shape)

