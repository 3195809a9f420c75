"""More pooling, as ``torch.nn.functional`` computes it: ``lp_pool1d``/``2d`` (torch's
composition of avg_pool, sign, relu, mul and pow, so its nodes and values are those
operations') and ``max_unpool1d``/``2d``, the partial inverse of a max pooling: each value put
back where its index says, zeros elsewhere (``MaxUnpool2DBackward0``; 1-d: the 2-d unpooling
of ``input.unsqueeze(-1)``).
"""
import math
from collections.abc import Iterable

import numpy as np

from ..core.node import Node, record
from ..core.tensor import Tensor
from ..fidelity import signatures
from ..fidelity.dtypes import scalar_type_name
from ..fidelity.layout import suggested_memory_format
from ..fidelity.size import channels_last
from ..ops.common import overloads
from ..ops.creation import zeros
from .functional_pool import (avg_pool1d, avg_pool2d, max_pool1d, max_pool2d,
                              max_pool_double_backward)


def _ntuple(value, n):
    """torch's _single/_pair: an iterable as a tuple, anything else ``n`` times."""
    return tuple(value) if isinstance(value, Iterable) else (value,) * n


# ====================================================================== lp_pool1d, lp_pool2d
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """out = (sum of x ** norm_type over each window) ** (1 / norm_type): avg_pool2d of
    input ** p, times the window's size, its sign times its relu to the power 1 / p (torch's
    composition); norm_type inf: max_pool2d of |x|, -inf: -max_pool2d(-|x|)"""
    kw, kh = _ntuple(kernel_size, 2)
    if isinstance(norm_type, (int, float)):
        special = _special_norm(input, norm_type, max_pool2d, kernel_size, stride, ceil_mode)
        if special is not None:
            return special
    powered = _method("pow", input, "exponent", norm_type)
    if stride is not None:
        out = avg_pool2d(powered, kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(powered, kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """lp_pool2d over the last dimension only (torch's composition with avg_pool1d)"""
    if isinstance(norm_type, (int, float)):
        special = _special_norm(input, norm_type, max_pool1d, kernel_size, stride, ceil_mode)
        if special is not None:
            return special
    powered = _method("pow", input, "exponent", norm_type)
    if stride is not None:
        out = avg_pool1d(powered, kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(powered, kernel_size, padding=0, ceil_mode=ceil_mode)
    signed = out.sign() * out.abs().relu()
    return _method("mul", signed, "other", kernel_size).pow(1.0 / norm_type)


def _method(name, tensor, argument, value):
    """``tensor.name(value)`` (pow, mul), as torch's Python calls it: a value the method's
    parser refuses is refused in a method's words (its arguments counted without self),
    which the engine, reading the learner's call (a function's), would not give."""
    if isinstance(tensor, Tensor) and not isinstance(value, Tensor) and \
            not signatures.fits(value, "Number"):
        printed = [f"(Tensor input, {kind} {argument}, *, Tensor out = None)"
                   for kind in (("Tensor", "Number") if name == "pow" else ("Tensor",))]
        raise signatures.refuse(name, printed, True, (value,), {}, True, True)
    return getattr(tensor, name)(value)


def _special_norm(input, norm_type, max_pool, kernel_size, stride, ceil_mode):
    """torch's refusal of a norm_type of 0, and its max poolings for inf and -inf (None for
    any other norm_type)."""
    if norm_type == 0:
        raise ValueError(f"norm_type must be a non-zero value, but got {norm_type}")
    if norm_type == math.inf:
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -math.inf:
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    return None


# ====================================================================== max_unpool1d, max_unpool2d
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """out = zeros of output_size (by default the size max_pool2d's input had), with each
    element of input put back at its index (the flat place in its plane that indices gives,
    as max_pool2d(return_indices=True) returns them)"""
    kernel_size = _ntuple(kernel_size, 2)
    stride = _ntuple(stride, 2) if stride is not None else kernel_size
    padding = _ntuple(padding, 2)
    output_size = unpool_output_size(input, kernel_size, stride, padding, output_size)
    return torch_max_unpool2d(input, indices, output_size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool2d over the last dimension only (torch's: the 2-d unpooling of
    input.unsqueeze(-1) to (size, 1))"""
    kernel_size = _ntuple(kernel_size, 1)
    stride = _ntuple(stride, 1) if stride is not None else kernel_size
    padding = _ntuple(padding, 1)
    output_size = unpool_output_size(input, kernel_size, stride, padding, output_size)
    output_size = output_size + ([1] if isinstance(output_size, list) else (1,))
    return torch_max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1),
                              output_size).squeeze(-1)


def unpool_output_size(input, kernel_size, stride, padding, output_size):
    """torch's _unpool_output_size: the size max pooling had (the default), or output_size
    (its last dimensions), which must be within a stride of it."""
    input_size = input.size()
    default = [(input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d]
               - 2 * padding[d] for d in range(len(kernel_size))]
    if output_size is None:
        result = default
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError(f"output_size should be a sequence containing {len(kernel_size)} "
                             f"or {len(kernel_size) + 2} elements, but it has a length of "
                             f"'{len(output_size)}'")
        for d in range(len(kernel_size)):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                                 f'{low} and {high})')
        result = output_size
    for d in range(len(kernel_size)):
        valid = result[d] >= 0  # (torch._check_value: the condition must be a bool)
        if not isinstance(valid, bool):
            raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                            "torch._check_tensor_all() to assert that all elements are true."
                            if isinstance(valid, Tensor) else
                            f"cond must be a bool, but got {type(valid)}")
        if not valid:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={result[d]}")
    return result


def _torch_max_unpool2d(input, indices, output_size):
    """torch._C._nn.max_unpool2d: its checks in its order, then each plane's values written
    at their indices into zeros (a later value over an earlier one at the same index), laid
    out as the input's format suggests"""
    size = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    if indices.dtype.name != "int64":
        raise RuntimeError("elements in indices should be type int64 but got: "
                           f"{scalar_type_name[indices.dtype]}")
    if input.dim() not in (3, 4):
        raise RuntimeError("Input to max_unpooling2d should be a 3d or 4d Tensor, but got a "
                           f"tensor with {input.dim()} dimensions.")
    if len(size) != 2:
        raise RuntimeError("There should be exactly two elements (height, width) in "
                           f"output_size, but got {len(size)} elements.")
    if input.shape != indices.shape:
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    for dim in range(1, input.dim()):
        if input.shape[dim] == 0:
            raise RuntimeError("max_unpooling2d_forward_out_cpu(): Expected input to have "
                               "non-zero size for non-batch dimensions, but input has sizes "
                               f"{list(input.shape)} with dimension {dim} being empty")
    if min(size) < 0:
        raise RuntimeError("max_unpooling2d(): output_size must contain non-negative spatial "
                           f"dimensions, but got output_size={list(size)}")
    layout = suggested_memory_format(input._data.shape, input.stride())
    out = zeros((*input.shape[:-2], *size), dtype=input.dtype)
    if layout == "channels_last":
        out = out.contiguous(memory_format=channels_last)
    if out.numel():
        _unpool_into(out, input, indices, layout)
    return record(MaxUnpool2DBackward0, out, (input,), saved=(indices,))


_torch_max_unpool2d.__name__ = _torch_max_unpool2d.__qualname__ = "max_unpool2d"  # (torch's)
torch_max_unpool2d = overloads("(Tensor input, Tensor indices, tuple of SymInts[1] "
                               "output_size)")(_torch_max_unpool2d)


def _unpool_into(out, input, indices, layout):
    """torch's kernel: each value written at its index in its plane, in the order of the
    input's memory (planes one after another; channels-last: each place's channels), an
    index out of range its error (the last one met)."""
    if input._data.dtype.kind != "f":
        kernel = "max_unpool2d" + ("_channels_last" if layout == "channels_last" else "")
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")
    height, width = out.shape[-2:]
    planes = input._data.reshape(-1, math.prod(input.shape[-2:]))
    where = indices._data.reshape(planes.shape)
    bad = (where < 0) | (where >= height * width)
    if bad.any():
        if layout == "channels_last":  # (its loop: each batch's places, each place's channels)
            channels = input.shape[1]
            order = bad.reshape(-1, channels, bad.shape[1]).transpose(0, 2, 1)
            n, place, c = np.unravel_index(np.flatnonzero(order)[-1], order.shape)
            index = where[n * channels + c, place]
        else:
            index = where.reshape(-1)[np.flatnonzero(bad)[-1]]
        raise RuntimeError(f"Found an invalid max index: {index} (output volumes are of size "
                           f"{height}x{width})")
    # the last value for each place wins: its first in the reversed order
    targets = (np.arange(planes.shape[0])[:, None] * (height * width) + where).reshape(-1)
    last = targets.size - 1 - np.unique(targets[::-1], return_index=True)[1]
    flat = out._data.reshape(-1) if out.is_contiguous() else None
    if flat is None:  # (channels-last: written in row-major order, then laid out)
        values = np.zeros(out._data.size, out._data.dtype)
        values[targets[last]] = planes.reshape(-1)[last]
        out._data[...] = values.reshape(out._data.shape)
    else:
        flat[targets[last]] = planes.reshape(-1)[last]


class MaxUnpool2DBackward0(Node):
    """out = input's values put at their indices:  d/dinput = the gradient read back at the
    indices (torch's max_pool_double_backward); the indices are not differentiable"""

    _saved_names = ("indices",)

    def backward(self, grad):
        (indices,) = self.saved_tensors
        return max_pool_double_backward(grad, indices, 2)

