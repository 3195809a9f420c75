"""Convolutions, as ``torch.nn.functional`` computes them: ``conv1d``, ``conv2d``, ``unfold``,
``fold`` and the zero padding ``pad``.

A 2-d convolution slides a small kernel over the image: each output pixel is the dot product
of the kernel with the window of input under it (a cross-correlation, as in every deep
learning library). Written with matrices, it is one product: ``unfold`` (im2col) copies the
window under every output pixel into a column, and the convolution is ``weight @ columns``.

Backward is two matrix products as well. The weight's gradient multiplies the output
gradient with the same columns; the columns' gradient ``weight.T @ grad`` goes back to the
image through ``fold`` (col2im), which adds each column back where its window came from
(windows that overlap add up). ``unfold`` and ``fold`` are each other's adjoint: each one's
backward is the other, so the gradient of a convolution can itself be differentiated
(``create_graph=True``). A ``conv1d`` is computed as a ``conv2d`` of height 1.
"""
import numpy as np

from ..core.grad_mode import is_grad_enabled, no_grad
from ..core.node import Node, record
from ..core.tensor import Tensor, empty_strided, wrap
from ..fidelity import messages, signatures
from ..fidelity.layout import contiguous_strides, format_strides, suggested_memory_format
from ..fidelity.size import channels_last, channels_last_3d
from ..ops.common import not_implemented_for, overloads
from ..ops.creation import zeros
from ..fidelity.dtypes import scalar_type_name
from ..fidelity.messages import CPP_TYPE_NAMES, type_name
from ..ops.views import clone

_TRIGGERED_IN_CONVOLUTION = (" (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                             "Convolution.cpp:1135.)")


# ====================================================================== windows, in numpy
def _output_size(size, kernel, dilation, padding, stride):
    """How many windows fit along one dimension."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def _im2col(x, kernel, dilation, padding, stride):
    """(N, C, H, W) -> (N, C, kh, kw, out_h, out_w): the input under each kernel position."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel, dilation, padding, stride
    n, c, h, w = x.shape
    out_h = _output_size(h, kh, dh, ph, sh)
    out_w = _output_size(w, kw, dw, pw, sw)
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    columns = np.empty((n, c, kh, kw, out_h, out_w), x.dtype)
    for i in range(kh):
        for j in range(kw):
            # kernel element (i, j) sees every stride-th pixel, starting i*dh rows down
            columns[:, :, i, j] = padded[:, :, i * dh:i * dh + sh * (out_h - 1) + 1:sh,
                                         j * dw:j * dw + sw * (out_w - 1) + 1:sw]
    return columns


def _col2im(columns, size, dilation, padding, stride):
    """The adjoint of _im2col: (N, C, kh, kw, out_h, out_w) -> (N, C, H, W), windows added."""
    (h, w), (dh, dw), (ph, pw), (sh, sw) = size, dilation, padding, stride
    n, c, kh, kw, out_h, out_w = columns.shape
    padded = np.zeros((n, c, h + 2 * ph, w + 2 * pw), columns.dtype)
    for i in range(kh):
        for j in range(kw):
            padded[:, :, i * dh:i * dh + sh * (out_h - 1) + 1:sh,
                   j * dw:j * dw + sw * (out_w - 1) + 1:sw] += columns[:, :, i, j]
    return np.ascontiguousarray(padded[:, :, ph:ph + h, pw:pw + w])


def _products(a, b):
    """a @ b in numpy; float16 is computed in float32 and rounded once, as torch's kernels do."""
    if a.dtype.char == "e":
        return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
    return np.matmul(a, b)


def _pair(value):
    """torch's _pair: an iterable (a tensor too: its elements) as a tuple, else it twice."""
    return tuple(value) if isinstance(value, (tuple, list, Tensor)) else (value, value)


def _pairs_read(name, given):
    """F.unfold's and F.fold's arguments, each through torch's _pair, then as torch's im2col
    or col2im reads them: ``given``, (parameter, position, value, SymInt or not) each, read
    by its parser (int[2]s), then its checks of two values each."""
    pairs = [_pair(value) for _, _, value, _ in given]
    read = signatures.checked_ints_together(name, [
        (parameter, position, pair, symint)
        for (parameter, position, _, symint), pair in zip(given, pairs)])
    for (parameter, *_), values in zip(given, read):
        if len(values) != 2:
            raise RuntimeError(f"It is expected {parameter} equals to 2, but got size "
                               f"{len(values)}")
    return read


# ====================================================================== unfold / fold
_WINDOW_CHECKS = {
    "kernel": (lambda v: v > 0, "kernel size should be greater than zero, but got "
               "kernel_height: {} kernel_width: {}"),
    "dilation": (lambda v: v > 0, "dilation should be greater than zero, but got "
                 "dilation_height: {} dilation_width: {}"),
    "padding": (lambda v: v >= 0, "padding should be non-negative, but got pad_height: {} "
                "pad_width: {}"),
    "stride": (lambda v: v > 0, "stride should be greater than zero, but got stride_height: {} "
               "stride_width: {}"),
}


def _check_windows(order, **pairs):
    """im2col's and col2im's checks of their (height, width) pairs, in ``order``."""
    for name in order:
        fits, message = _WINDOW_CHECKS[name]
        if not (fits(pairs[name][0]) and fits(pairs[name][1])):
            raise RuntimeError(message.format(*pairs[name]))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """out[n, (c, i, j), l] = input[n, c] at kernel position (i, j) of window l (im2col)"""
    _check_tensor("im2col", input)
    kernel, dilation, padding, stride = _pairs_read("im2col", (
        ("kernel_size", 2, kernel_size, False), ("dilation", 3, dilation, False),
        ("padding", 4, padding, False), ("stride", 5, stride, False)))
    _check_windows(("kernel", "dilation", "padding", "stride"), kernel=kernel,
                   dilation=dilation, padding=padding, stride=stride)
    sizes = (input.size(1), input.size(2))  # (torch reads them first: a 2-d input's IndexError)
    if not ((input.dim() == 3 and input.size(0) and all(sizes)) or
            (input.dim() == 4 and all(sizes) and input.size(3))):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(input.shape)}")
    batched = input.dim() == 4
    x = input._data if batched else input._data[None]
    h, w = x.shape[-2], x.shape[-1]
    blocks = [_output_size(size, k, d, p, s) for size, k, d, p, s in
              zip((h, w), kernel, dilation, padding, stride)]
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the "
                           f"array of sliding blocks as ({blocks[0]}, {blocks[1]}), but its "
                           "components must be at least one.")
    if x.dtype.kind in "iu":  # (its kernel is compiled for floats and bool, after the shapes)
        raise not_implemented_for("im2col_out_cpu", x.dtype)
    columns = _im2col(x, kernel, dilation, padding, stride)
    columns = columns.reshape(x.shape[0], x.shape[1] * kernel[0] * kernel[1],
                              blocks[0] * blocks[1])
    return record(Im2ColBackward0, wrap(columns if batched else columns[0]), (input,),
                  kernel_size=kernel, dilation=dilation, padding=padding, stride=stride,
                  self_sym_argsize_minus_2=h, self_sym_argsize_minus_1=w)


class Im2ColBackward0(Node):
    """out = unfold(x):  d/dx = fold(grad), each window's gradient added back where it was"""

    kernel_size: tuple
    dilation: tuple
    padding: tuple
    stride: tuple
    self_sym_argsize_minus_2: int
    self_sym_argsize_minus_1: int

    def backward(self, grad):
        size = (self.self_sym_argsize_minus_2, self.self_sym_argsize_minus_1)
        return fold(grad, size, self.kernel_size, self.dilation, self.padding, self.stride)


def _check_tensor(name, input):
    """(torch's parser, before the sizes: its operator's name)"""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """out[n, c] = the sum of the columns input[n, (c, i, j), l], each put back at its window
    (col2im: the adjoint of unfold)"""
    _check_tensor("col2im", input)
    size, kernel, dilation, padding, stride = _pairs_read("col2im", (
        ("output_size", 2, output_size, True), ("kernel_size", 3, kernel_size, False),
        ("dilation", 4, dilation, False), ("padding", 5, padding, False),
        ("stride", 6, stride, False)))
    _check_windows(("kernel", "stride", "dilation", "padding"), kernel=kernel,
                   dilation=dilation, padding=padding, stride=stride)
    if input.dim() not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    batched = input.dim() == 3
    x = input._data if batched else input._data[None]
    n, rows, length = x.shape
    if rows % (kernel[0] * kernel[1]):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={rows} and "
                           f"kernel_size={kernel}.")
    blocks = [_output_size(s, k, d, p, st) for s, k, d, p, st in
              zip(size, kernel, dilation, padding, stride)]
    if blocks[0] * blocks[1] != length:
        raise RuntimeError(f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, "
                           f"padding={padding}, stride={stride}, expected size of input's "
                           "dimension 2 to match the calculated number of sliding blocks "
                           f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={length}.")
    if min(blocks) < 1:  # (-1 * -1 blocks pass the count's check: torch checks the shape next)
        raise RuntimeError(f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, "
                           f"padding={padding}, stride={stride}, calculated shape of the array "
                           f"of sliding blocks as ({blocks[0]}, {blocks[1]}), which is too small "
                           "(non-positive)")
    if x.dtype.kind in "iu":
        raise not_implemented_for("col2im_out_cpu", x.dtype)
    columns = x.reshape(n, rows // (kernel[0] * kernel[1]), *kernel, *blocks)
    image = _col2im(columns, size, dilation, padding, stride)
    return record(Col2ImBackward0, wrap(image if batched else image[0]), (input,),
                  kernel_size=kernel, dilation=dilation, padding=padding, stride=stride)


class Col2ImBackward0(Node):
    """out = fold(x):  d/dx = unfold(grad), each column reads the gradient of its window"""

    kernel_size: tuple
    dilation: tuple
    padding: tuple
    stride: tuple

    def backward(self, grad):
        return unfold(grad, self.kernel_size, self.dilation, self.padding, self.stride)


# ====================================================================== convolution
# torch's two overloads of conv1d and conv2d (their SymInt[1] and SymInt[2]: one int is taken
# for all the dimensions), which parse a call before it runs
_CONV = tuple(f"(Tensor input, Tensor weight, Tensor bias = None, tuple of SymInts[1] stride = "
              f"1, {padding}, tuple of SymInts[1] dilation = 1, SymInt groups = 1)"
              for padding in ("tuple of SymInts[1] padding = 0", 'str padding = "valid"'))


@overloads(*_CONV)
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """out[n, o] = bias[o] + sum over c, i, j of weight[o, c, i, j] * input[n, c, window]
    (input (N, C, H, W) or (C, H, W); weight (out_channels, C / groups, kh, kw))"""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@overloads(*_CONV)
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """out[n, o] = bias[o] + sum over c, i of weight[o, c, i] * input[n, c, window]
    (input (N, C, L) or (C, L); weight (out_channels, C / groups, k))"""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def _conv(name, spatial, input, weight, bias, stride, padding, dilation, groups):
    """torch's steps (its parser has read the arguments): add the batch dimension if there
    is none, turn a padding string into numbers, convolve."""
    if input.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) "
                           f"input to {name}, but got input of size: {list(input.shape)}")
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({_type_name(input)}) and bias type ({_type_name(bias)}) "
                           "should be the same")
    stride, dilation = _ints(stride, spatial), _ints(dilation, spatial)
    batched = input.dim() == spatial + 2
    if not batched:  # a batch of one, as torch computes it
        input = input.unsqueeze(0)
    if isinstance(padding, str):
        input, padding = _padding_from_string(input, weight, stride, padding, dilation)
    out = convolution(input, weight, bias, stride, _ints(padding, spatial), dilation, groups)
    return out if batched else out.squeeze(0)


def convolution(input, weight, bias, stride, padding, dilation, groups):
    """The batched convolution (torch.convolution, not transposed) and its node."""
    stride, padding, dilation = _check_convolution(input, weight, bias, stride, padding,
                                                   dilation, groups)
    x, w = input._data, weight._data
    if x.ndim == 3:  # conv1d: a conv2d of height 1
        x, w = x[:, :, None], w[:, :, None]
    columns = _im2col(x, w.shape[2:], _as_2d(dilation, 1), _as_2d(padding, 0), _as_2d(stride, 1))
    n, out_size = x.shape[0], columns.shape[4:]
    per_group = w[0].size  # each output channel's kernel: C / groups * kh * kw numbers
    # one matrix product per group: its output channels see only its input channels
    columns = columns.reshape(n, groups, per_group, out_size[0] * out_size[1])
    kernels = w.reshape(groups, w.shape[0] // groups, per_group)
    out = _products(kernels, columns).reshape(n, w.shape[0], *out_size)
    if bias is not None:
        out += bias._data[:, None, None]
    if input.dim() == 3:
        out = out[:, :, 0]
    return record(ConvolutionBackward0, wrap(out), (input, weight, bias), saved=(input, weight),
                  stride=stride, padding=padding, dilation=dilation, transposed=False,
                  output_padding=(0,) * len(stride), groups=groups,
                  bias_sym_sizes_opt=(0,) if bias is None else tuple(bias.shape))


class ConvolutionBackward0(Node):
    """out = weight @ unfold(input) + bias, per group:  d/dweight = grad @ unfold(input).T,
    d/dinput = fold(weight.T @ grad),  d/dbias = grad summed over all but the channels"""

    _saved_names = ("input", "weight")
    stride: tuple
    padding: tuple
    dilation: tuple
    transposed: bool
    output_padding: tuple
    groups: int
    bias_sym_sizes_opt: tuple

    def backward(self, grad):
        input, weight = self.saved_tensors
        if input.dim() == 3:  # conv1d: a conv2d of height 1
            input, weight, grad = input.unsqueeze(2), weight.unsqueeze(2), grad.unsqueeze(2)
        geometry = (weight.shape[2:], _as_2d(self.dilation, 1), _as_2d(self.padding, 0),
                    _as_2d(self.stride, 1))
        n, groups, blocks = input.shape[0], self.groups, grad.shape[2] * grad.shape[3]
        out_per_group, per_group = weight.shape[0] // groups, weight[0].numel()
        grad_columns = grad.reshape(n, groups, out_per_group, blocks)
        kernels = weight.reshape(groups, out_per_group, per_group)
        grad_input = grad_weight = grad_bias = None
        if self.next_functions[0][0] is not None:
            columns_grad = (kernels.transpose(1, 2) @ grad_columns).reshape(
                n, groups * per_group, blocks)
            grad_input = fold(columns_grad, input.shape[2:], *geometry)
        if self.next_functions[1][0] is not None:
            columns = unfold(input, *geometry).reshape(n, groups, per_group, blocks)
            grad_weight = (grad_columns @ columns.transpose(2, 3)).sum(0).reshape(weight.shape)
        if self.next_functions[2][0] is not None:
            grad_bias = grad.sum((0, 2, 3))
        if len(self.stride) == 1:
            grad_input, grad_weight = _squeezed(grad_input), _squeezed(grad_weight)
        return grad_input, grad_weight, grad_bias


def _squeezed(grad):
    return None if grad is None else grad.squeeze(2)


def _as_2d(values, fill):
    """conv1d's (k,) as conv2d's (fill, k): a 1-d convolution is a 2-d one of height 1."""
    return (fill,) * (2 - len(values)) + tuple(values)


# ====================================================================== arguments
def _type_name(tensor):
    return CPP_TYPE_NAMES[tensor._data.dtype.name]


def _ints(value, count):
    """An int becomes ``count`` copies (as torch's argument parser does); a list stays a list."""
    return (value,) * count if isinstance(value, int) else tuple(value)


def _expand_param(value, name, dims):
    """torch's expand_param_if_needed: one value for every dimension, or one per dimension."""
    if len(value) == 1:
        return value * dims
    if len(value) != dims:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dims} "
                           "values to match the convolution dimensions, but got "
                           f"{name}={list(value)}")
    return tuple(value)


def _check_convolution(input, weight, bias, stride, padding, dilation, groups):
    """torch's checks, in torch's order; returns stride, padding, dilation, one per dimension."""
    dims = weight.dim() - 2
    if dims <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride = _expand_param(stride, "stride", dims)
    padding = _expand_param(padding, "padding", dims)
    dilation = _expand_param(dilation, "dilation", dims)
    weight_size = list(weight.shape)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if input.dim() != weight.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-"
                           f"dimensional weight {weight_size}, but got {input.dim()}-dimensional "
                           f"input of size {list(input.shape)} instead")
    if weight_size[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {weight_size} instead")
    if weight_size[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{weight_size}] instead")
    if input.shape[1] != weight_size[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {weight_size}, expected "
                           f"input{list(input.shape)} to have {weight_size[1] * groups} "
                           f"channels, but got {input.shape[1]} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight_size[0]):
        raise RuntimeError(f"Given weight of size {weight_size}, expected bias to be "
                           f"1-dimensional with {weight_size[0]} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    padded = [size + 2 * p for size, p in zip(input.shape[2:], padding)]
    kernel = [d * (k - 1) + 1 for d, k in zip(dilation, weight_size[2:])]
    if any(p < k for p, k in zip(padded, kernel)):
        raise RuntimeError("Calculated padded input size per channel: ("
                           f"{' x '.join(map(str, padded))}). Kernel size: ("
                           f"{' x '.join(map(str, kernel))}). Kernel size can't be greater than "
                           "actual input size")
    if 0 in weight_size[2:]:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{weight_size[-2]} kernel_width: {weight_size[-1]}")
    if 0 in dilation:
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(input)} but found "
                           f"{_scalar_name(weight)}")
    if input._data.dtype.kind == "b":
        raise NotImplementedError("\"slow_conv2d_cpu\" not implemented for 'Bool'")
    return stride, padding, dilation


def _scalar_name(tensor):
    return scalar_type_name[tensor.dtype]


# ====================================================================== padding='same'
_warned_same_padding = []


def _padding_from_string(input, weight, stride, padding, dilation):
    """padding='valid' is no padding; 'same' pads so the output keeps the input's size.

    torch pads dilation * (kernel - 1) in total, half on each side; when that is odd the
    extra one goes at the end, by an explicit zero-padded copy of the input (F.pad).
    """
    if padding == "valid":
        return input, (0,)
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    dims = weight.dim() - 2
    if weight.dim() != input.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-"
                           f"dimensional weight{list(weight.shape)}, but got {input.dim()}-"
                           f"dimensional input of size {list(input.shape)} instead")
    for argument, values in (("stride", stride), ("dilation", dilation)):
        if len(values) not in (1, dims):
            raise RuntimeError(f"{argument} cannot broadcast to {dims} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilation = dilation * dims if len(dilation) == 1 else dilation
    totals = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
    if all(total % 2 == 0 for total in totals):
        return input, tuple(total // 2 for total in totals)
    if not _warned_same_padding:  # torch warns once per process
        _warned_same_padding.append(True)
        messages.warn_from_learner("Using padding='same' with even kernel lengths and odd "
                                   "dilation may require a zero-padded copy of the input be "
                                   "created" + _TRIGGERED_IN_CONVOLUTION)
    extra = []  # F.pad's order: the last dimension first, (before, after) for each
    for total in reversed(totals):
        extra += [0, total % 2]
    return pad(input, extra), tuple(total // 2 for total in totals)


# ====================================================================== pad
def pad(input, pad, mode="constant", value=None):
    """``input`` with ``value`` (0 by default) added around it: ``pad`` = (before, after) for
    the last dimension, then for the one before it, ...; negative amounts cut instead"""
    if not (pad.__class__ is tuple and all(p.__class__ is int for p in pad)):
        where = " (position 2)"  # (torch's F.pad passes it on by position)
        if not isinstance(pad, (tuple, list)):
            raise TypeError(f"pad(): argument 'pad'{where} must be tuple of ints, not "
                            f"{type_name(pad)}")
        # (torch's SymInt[]: the first element's type now, the others read once every
        # argument fits; after the first, a bool counts as an integer, not a bool tensor)
        signatures.int_list_checked("pad", "pad", pad, where, unpack=False, symint=True)
        unread = pad
    else:
        unread = None
    if not isinstance(mode, str):
        raise TypeError(f"pad(): argument 'mode' (position 3) must be str, not {type_name(mode)}")
    if value is not None:  # (torch's float?: a 0-d tensor that needs no grad is its value)
        if not signatures.fits(value, "float"):
            raise TypeError(f"pad(): argument 'value' (position 4) must be float, not "
                            f"{type_name(value)}")
        value = value.item() if isinstance(value, Tensor) else value
    if unread is not None:
        pad = signatures.unpack_ints("pad", "pad", unread, True)
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.dim()}")
    if mode != "constant":
        if value is not None and value != 0:
            raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
        padded = len(pad) // 2
        if input.dim() not in (padded + 1, padded + 2):
            raise NotImplementedError(
                f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
                "Supported combinations for non-constant padding:\n"
                "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
        if mode == "circular":
            return _pad_circular(input, tuple(pad))
        return _pad_by_index(input, tuple(pad), mode)
    x = input._data
    # (before, after) per dimension, in the order of the dimensions
    amounts = [(0, 0)] * (x.ndim - len(pad) // 2) + [
        (pad[2 * i], pad[2 * i + 1]) for i in reversed(range(len(pad) // 2))]
    shape = [size + before + after for size, (before, after) in zip(x.shape, amounts)]
    if any(size < 0 for size in shape):
        raise RuntimeError("narrow(): length must be non-negative.")
    # the part of the input that stays, and where it goes
    kept = tuple(slice(max(-before, 0), size - max(-after, 0))
                 for size, (before, after) in zip(x.shape, amounts))
    if all(before <= 0 and after <= 0 for before, after in amounts):
        with no_grad():  # only cuts: torch returns a copy of that part, laid out like it
            out = clone(input[kept])
    else:
        out = wrap(np.full(shape, 0 if value is None else value).astype(x.dtype))
        placed = tuple(slice(max(before, 0), max(before, 0) + s.stop - s.start)
                       for (before, _), s in zip(amounts, kept))
        out._data[placed] = x[kept]
    return record(ConstantPadNdBackward0, out, (input,), pad=tuple(pad))


_DIM_NAMES = ("D", "H", "W")
_FORMATS = {"channels_last": channels_last, "channels_last_3d": channels_last_3d}


def _pad_by_index(input, pad, mode):
    """reflect (mirrored about the edge, the edge itself not repeated) and replicate (the edge
    repeated): each output element is an input element, found by its index along each padded
    dim; torch's reflection_pad / replication_pad kernels and their checks."""
    padded = len(pad) // 2
    shape = input._data.shape
    kernel = f"{'reflection' if mode == 'reflect' else 'replication'}_pad{padded}d"
    if any(size == 0 for size in (shape[1:] if len(shape) == padded + 2 else shape)):
        raise RuntimeError(f"Expected {padded + 1}D or {padded + 2}D (batch mode) tensor with "
                           f"possibly 0 batch size and other non-zero dimensions for input, but "
                           f"got: [{', '.join(str(n) for n in shape)}]")
    # (before, after) per padded dim, outermost first; pad lists the last dim first
    amounts = [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(padded))]
    sizes = shape[len(shape) - padded:]
    if mode == "reflect":
        for i in range(padded):  # (torch checks the last dim first)
            before, after = pad[2 * i], pad[2 * i + 1]
            dim = len(shape) - 1 - i
            if not (before < shape[dim] and after < shape[dim]):
                raise RuntimeError(
                    f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding "
                    f"input dimension, but got: padding ({before}, {after}) at dimension {dim} "
                    f"of input [{', '.join(str(n) for n in shape)}]")
    out_sizes = [size + before + after for size, (before, after) in zip(sizes, amounts)]
    if any(size < 1 for size in out_sizes):
        names = _DIM_NAMES[3 - padded:]
        if padded == 1:
            raise RuntimeError(f"input (W: {sizes[0]}) is too small. Calculated output W: "
                               f"{out_sizes[0]}")
        raise RuntimeError(
            "Calculated output " + " ".join(f"{n}: {o}" for n, o in zip(names, out_sizes))
            + " must be >= 1 in every dimension (input "
            + ", ".join(f"{n}: {i}" for n, i in zip(names, sizes)) + ")")
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    places = []
    for size, (before, _), out in zip(sizes, amounts, out_sizes):
        at = np.arange(out) - before
        if mode == "reflect":
            at = np.abs(at)
            at = np.where(at >= size, 2 * (size - 1) - at, at)
        else:
            at = np.clip(at, 0, size - 1)
        places.append(at)
    values = input._data[(Ellipsis,) + np.ix_(*places)]
    out_shape = shape[:len(shape) - padded] + tuple(out_sizes)
    layout = suggested_memory_format(shape, input.stride())
    result = empty_strided(out_shape, contiguous_strides(out_shape) if layout ==
                           "contiguous_format" else format_strides(out_shape, None,
                                                                   _FORMATS[layout]),
                           input._data.dtype)
    result._data[...] = values
    # each output element's place in the flattened input, in the output's row-major order
    flat = np.arange(int(np.prod(shape))).reshape(shape)[(Ellipsis,) + np.ix_(*places)]
    node = _PAD_NODES[mode][padded]
    return record(node, result, (input,), saved=(input,), padding=tuple(pad),
                  places=flat.reshape(-1))


def _index_pad_gradient(grad, input, places):
    """Each output's gradient added back at the input element it copied, in the output's
    order (as torch's kernel), laid out as the input"""
    shape = input._data.shape
    total = zeros(int(np.prod(shape)), dtype=grad.dtype)
    result = total.index_add(0, wrap(places), grad.reshape(-1)).view(shape)
    layout = suggested_memory_format(shape, input.stride())
    if layout != "contiguous_format":  # (torch: zeros_like the input, then added into)
        result = result.contiguous(memory_format=_FORMATS[layout])
    return result


class _IndexPadBackward(Node):
    """out = input padded by copies of its own elements:  d/d input = each output's gradient
    added back at the element it copied"""

    _saved_names = ("self",)
    _internal = ("places",)
    padding: tuple
    places: np.ndarray

    def backward(self, grad):
        (input,) = self.saved_tensors
        if not is_grad_enabled():
            return _index_pad_gradient(grad, input, self.places)
        with no_grad():  # (recorded as torch records it: one node, linked to grad and input)
            result = _index_pad_gradient(grad, input, self.places)
        return record(self.again, result, (grad, input), padding=self.padding,
                      input_shape=input._data.shape, input_dtype=input.dtype)


class _IndexPadAgain(Node):
    """out = a padding's gradient (under create_graph):  d/dgrad = the same padding of the
    gradient, d/dinput = 0"""

    _internal = ("input_shape", "input_dtype")
    padding: tuple
    input_shape: tuple
    input_dtype: object
    mode = "reflect"

    def backward(self, grad):
        return pad(grad, self.padding, self.mode), zeros(self.input_shape,
                                                          dtype=self.input_dtype)


def _index_pad_nodes(mode, kind, n):
    again = type(f"{kind}Pad{n}DBackwardBackward0", (_IndexPadAgain,), {
        "__doc__": _IndexPadAgain.__doc__, "__module__": __name__, "mode": mode})
    return type(f"{kind}Pad{n}DBackward0", (_IndexPadBackward,), {
        "__doc__": _IndexPadBackward.__doc__, "__module__": __name__, "again": again})


_PAD_NODES = {mode: {n: _index_pad_nodes(mode, kind, n) for n in (1, 2, 3)}
              for mode, kind in (("reflect", "Reflection"), ("replicate", "Replication"))}


def _pad_circular(input, pad):
    """circular: the input placed in the middle, then each padded dim's edges copied from the
    opposite side of the result itself (torch builds it so, slice by slice: CopySlices)"""
    padded = len(pad) // 2
    shape = input._data.shape
    out_shape = list(shape)
    for i in range(padded):  # (the last dim first)
        dim = len(shape) - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        if before > shape[dim] or after > shape[dim]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out_shape[dim] = shape[dim] + before + after
        if out_shape[dim] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = input.new_empty(out_shape)
    inner, source = out, input
    for i in range(padded):
        dim = len(shape) - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        inner = inner.narrow(dim, max(before, 0), out_shape[dim] - max(before, 0) - max(after, 0))
        source = source.narrow(dim, max(-before, 0), shape[dim] - max(-before, 0) - max(-after, 0))
    inner.copy_(source)
    for i in range(padded):
        dim = len(shape) - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        size = out_shape[dim]
        if before > 0:
            out.narrow(dim, 0, before).copy_(
                out.narrow(dim, size - before - max(after, 0), before))
        if after > 0:
            out.narrow(dim, size - after, after).copy_(out.narrow(dim, max(before, 0), after))
    return out


class ConstantPadNdBackward0(Node):
    """out = x padded by p:  d/dx = grad padded by -p (the padding cut off again)"""

    pad: tuple

    def backward(self, grad):
        return pad(grad, [-p for p in self.pad])
