"""Pooling, as ``torch.nn.functional`` computes it: ``max_pool2d``, ``max_pool3d``,
``avg_pool2d``, ``avg_pool3d``, ``adaptive_avg_pool2d``, ``adaptive_max_pool2d`` (and
``max_pool1d``, ``avg_pool1d``, ``adaptive_avg_pool1d``, ``adaptive_max_pool1d``: torch's 2-d
pooling of ``input.unsqueeze(-2)``). Each max pooling with ``return_indices`` is torch's
``boolean_dispatch`` between ``max_pool2d_with_indices`` (values and indices) and its
values-only twin.

Pooling slides a window over each channel of an image (each *plane*) and keeps one number
per window: the largest (max) or the mean (avg). ``adaptive_avg_pool2d`` and
``adaptive_max_pool2d`` choose the windows themselves, so that the output has the size asked
for. A channels-last input gives channels-last results (and gradients) from the 2-d
poolings, as torch's kernels do (the 3-d ones return row-major ones).

Every pooling here is linear in what it keeps, so each backward is a "put back": the
gradient of a window goes to the input element its max came from (max), or is spread
evenly over the window (avg). Those put-backs are recorded operations too
(``...BackwardBackward0``, as in torch) whose own backward is the pooling again, so the
gradients can be differentiated (``create_graph=True``). The sums are made in torch's
order (row by row inside a window, windows in row-major order), so float32 values are
bit for bit torch's.
"""
import functools
import itertools
import math

import numpy as np

from ..core.grad_mode import is_grad_enabled
from ..core.node import Node, record
from ..core.tensor import Tensor, empty_strided, wrap
from ..fidelity import signatures
from ..fidelity.dtypes import scalar_type_name
from ..fidelity.layout import format_strides, suggested_memory_format
from ..fidelity.messages import type_name
from ..fidelity.size import channels_last, channels_last_3d, contiguous_format
from ..ops.common import overloads
from ..ops.creation import empty_like, zeros_like


# ====================================================================== geometry
def _per_dim(value, dims, message):
    """An int or a tuple of one or ``dims`` ints as one int per dimension, or torch's
    RuntimeError."""
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if len(values) not in (1, dims):
        raise RuntimeError(message)
    return values * dims if len(values) == 1 else values


def _argument_messages(name, dims):
    """How torch words a wrong number of values in a pooling's arguments (avg_pool3d's own
    way without "either")."""
    count = {2: "two", 3: "three"}[dims]
    either = "" if name == "avg_pool3d" else "either "
    return {"kernel_size": f"{name}: kernel_size must {either}be a single int, or a tuple of "
                           f"{count} ints",
            "stride": f"{name}: stride must {either}be omitted, a single int, or a tuple of "
                      f"{count} ints",
            "padding": f"{name}: padding must {either}be a single int, or a tuple of {count} ints",
            "dilation": f"{name}: dilation must be either a single int, or a tuple of {count} "
                        "ints"}


# the name pool3d_shape_check gives itself in its message about an empty dimension
_SHAPE_CHECK_NAMES = {"avg_pool3d": "avg_pool3d", "max_pool3d":
                      "max_pool3d_with_indices_out_cpu_template"}


def _output_size(size, kernel, pad, stride, dilation, ceil_mode):
    """torch's pooling_output_shape: how many windows fit (ceil_mode: a last partial one)."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > int(((kernel - 1) * dilation + 1) / 2):  # (C's division: toward zero)
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                           f"pad={pad}, kernel_size={kernel} and dilation={dilation}")
    out = (size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
           ) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1  # the last window must start inside the image or its left padding
    return out


class _Geometry:
    """Where the windows of a 2-d (or 3-d: ``dims``) pooling are: kernel, stride, padding,
    dilation, and once measured on an input, its size and the number of windows along each
    dimension (out)."""

    def __init__(self, name, kernel_size, stride, padding, dilation, dims=2):
        self.dims, self.name = dims, name
        # the arguments as torch's node saves them: an int once per dimension, a tuple as given
        self.given = {argument: () if value is None else tuple(value) if isinstance(
            value, (tuple, list)) else (value,) * dims for argument, value in (
            ("kernel_size", kernel_size), ("stride", stride), ("padding", padding),
            ("dilation", dilation))}
        messages = _argument_messages(name, dims)
        self.kernel = _per_dim(kernel_size, dims, messages["kernel_size"])
        if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
            stride = self.kernel  # the default: windows side by side
        self.stride = _per_dim(stride, dims, messages["stride"])
        self.padding = _per_dim(padding, dims, messages["padding"])
        self.dilation = _per_dim(dilation, dims, messages["dilation"])

    def measure(self, input, ceil_mode):
        """How many windows fit in ``input`` (then torch's checks of it all)."""
        self.size = input.shape[-self.dims:]
        self.out = tuple(_output_size(*values, ceil_mode) for values in zip(
            self.size, self.kernel, self.padding, self.stride, self.dilation))
        if self.dims == 3:
            self.check_3d(input)
        else:
            self.check(input)

    def check(self, input):
        """torch's pool2d_shape_check."""
        (kh, kw), (sh, sw), (dh, dw) = self.kernel, self.stride, self.dilation
        if kh <= 0 or kw <= 0:
            raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} "
                               f"kW: {kw}")
        if sh <= 0 or sw <= 0:
            raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
        if dh <= 0 or dw <= 0:
            raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} "
                               f"dilationW: {dw}")
        shape = input.shape
        if not ((input.dim() == 3 and 0 not in shape) or (input.dim() == 4 and 0 not in shape[1:])):
            raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                               f"size for input, but got:{list(shape)}")
        (ph, pw) = self.padding
        if kw // 2 < pw or kh // 2 < ph:
            raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but "
                               f"got padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")
        if min(self.out) < 1:
            raise RuntimeError(f"Given input size: ({shape[-3]}x{shape[-2]}x{shape[-1]}). "
                               f"Calculated output size: ({shape[-3]}x{self.out[0]}x"
                               f"{self.out[1]}). Output size is too small")

    def check_3d(self, input):
        """torch's pool3d_shape_check (after the number of dimensions, checked first)."""
        (kt, kh, kw), (st, sh, sw), (dt, dh, dw) = self.kernel, self.stride, self.dilation
        if kt <= 0 or kh <= 0 or kw <= 0:
            raise RuntimeError(f"kernel size should be greater than zero, but got kT: {kt} "
                               f"kH: {kh} kW: {kw}")
        if st <= 0 or sh <= 0 or sw <= 0:
            raise RuntimeError(f"stride should be greater than zero, but got dT: {st} dH: {sh} "
                               f"dW: {sw}")
        if dt <= 0 or dh <= 0 or dw <= 0:
            raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {dt} "
                               f"dilationH: {dh} dilationW: {dw}")
        shape = list(input.shape)
        for dim in range(input.dim() - 4, input.dim()):
            if shape[dim] == 0:
                raise RuntimeError(f"{_SHAPE_CHECK_NAMES[self.name]}(): Expected input to have "
                                   "non-zero size for "
                                   f"non-batch dimensions, but input has sizes {shape} with "
                                   f"dimension {dim} being empty")
        (t, h, w), (pt, ph, pw) = self.size, self.padding
        if self.name == "avg_pool3d" and (t < kt or h < kh or w < kw):
            raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size "
                               f"(kT: {kt} kH: {kh} kW: {kw})")
        if kt // 2 < pt or kw // 2 < pw or kh // 2 < ph:
            raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but "
                               f"got kT: {kt} kW: {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}")
        if min(self.out) < 1:
            planes = shape[-4]
            raise RuntimeError(f"Given input size: ({planes}x{t}x{h}x{w}). Calculated output "
                               f"size: ({planes}x{self.out[0]}x{self.out[1]}x{self.out[2]}). "
                               "Output size is too small")

    def windows(self, planes, fill):
        """(P, H, W) -> (P, kh * kw, out_h, out_w) (or (P, T, H, W) -> (P, kt * kh * kw,
        out_t, out_h, out_w)): the elements of each window, row by row, with ``fill`` where a
        window reaches into the padding."""
        padded = np.pad(planes, ((0, 0), *self.padding_around()), constant_values=fill)
        windows = np.empty((planes.shape[0], math.prod(self.kernel), *self.out), planes.dtype)
        for index, offset in enumerate(itertools.product(*map(range, self.kernel))):
            windows[:, index] = padded[(slice(None), *self.window_slices(offset, True))]
        return windows

    def padding_around(self):
        """The padding before and after each dimension: after too, enough for ceil_mode's
        last window."""
        return [(pad, max(pad, (out - 1) * stride + dilation * (kernel - 1) + 1 - size - pad))
                for size, kernel, stride, pad, dilation, out in zip(
                    self.size, self.kernel, self.stride, self.padding, self.dilation, self.out)]

    def window_slices(self, offset, dilated):
        """Slices of the padded planes: element ``offset`` of every window."""
        return tuple(slice(i * (dilation if dilated else 1),
                           i * (dilation if dilated else 1) + stride * (out - 1) + 1, stride)
                     for i, stride, dilation, out in zip(offset, self.stride, self.dilation,
                                                         self.out))


def _planes(input, dims=2):
    """The input as a stack of 2-d planes (P, H, W) (3-d: (P, T, H, W)): pooling treats each
    one alike."""
    return input._data.reshape(-1, *input._data.shape[-dims:])


def _check_input_type(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")


def _check_not_bool(name, input):
    """(torch's kernels refuse bool once the shapes are checked)"""
    if input._data.dtype.kind == "b":
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")




# ====================================================================== max_pool2d, max_pool3d
def boolean_dispatch(if_true, if_false, index, name, doc):
    """torch's boolean_dispatch: one function ``name`` that calls ``if_true`` when its
    ``return_indices`` (by keyword, else the argument at ``index``) is true, else ``if_false``
    (Python's errors about the call's arguments name the function called)."""
    def dispatched(*args, **kwargs):
        if "return_indices" in kwargs:
            flag = kwargs["return_indices"]
        else:
            flag = args[index] if index < len(args) else False
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    dispatched.__name__ = dispatched.__qualname__ = name
    dispatched.__doc__ = doc
    return dispatched


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool2d's values and, whatever return_indices says, where each max was (its flat
    index in its plane)"""
    return _max_pool(2, "max_pool2d_with_indices", input, kernel_size, stride, padding,
                     dilation, ceil_mode)


def _max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    return _max_pool(2, "max_pool2d", input, kernel_size, stride, padding, dilation,
                     ceil_mode)[0]


max_pool2d = boolean_dispatch(max_pool2d_with_indices, _max_pool2d, 6, "max_pool2d", """out =
    the largest element of each window (a nan wins); with return_indices, also where it was
    (max_pool2d_with_indices)""")


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool3d's values and, whatever return_indices says, where each max was (its flat
    index in its (T, H, W) volume)"""
    input.is_cuda  # noqa: B018 (torch's reads it first: a list's AttributeError)
    return _max_pool(3, "max_pool3d_with_indices", input, kernel_size, stride, padding,
                     dilation, ceil_mode)


def _max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    return _max_pool(3, "max_pool3d", input, kernel_size, stride, padding, dilation,
                     ceil_mode)[0]


max_pool3d = boolean_dispatch(max_pool3d_with_indices, _max_pool3d, 6, "max_pool3d", """
    max_pool2d with windows of depth, height and width (input (N, C, T, H, W) or
    (C, T, H, W)); indices count through each (T, H, W) volume""")


def _max_pool(dims, parsed_as, input, kernel_size, stride, padding, dilation, ceil_mode):
    """(values, indices); ``parsed_as``: the name torch's parser gives the operator called
    (torch.max_pool2d, or torch._C._nn.max_pool2d_with_indices for the indices)"""
    name = f"max_pool{dims}d"
    _check_input_type(parsed_as, input)
    # (torch's F.max_pool2d hands them on by position to torch.max_pool2d's int[2]s)
    given = [("kernel_size", 2, kernel_size, False), ("stride", 3, stride, False),
             ("padding", 4, padding, False), ("dilation", 5, dilation, False)]
    if stride is None:  # (torch's F.max_pool2d hands on an empty list: the kernel's size)
        del given[1]
    read = signatures.checked_ints_together(parsed_as, given, [("ceil_mode", 6, ceil_mode)])
    if stride is None:
        read.insert(1, None)
    kernel_size, stride, padding, dilation = read
    geometry = _Geometry(name, kernel_size, stride, padding, dilation, dims)
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"non-empty {dims + 1}D or {dims + 2}D (batch mode) tensor expected "
                           "for input")
    layout = format_of(input)
    if dims == 3 and layout == "channels_last":  # (a 4-d (C, T, H, W) input laid out so)
        raise RuntimeError("Unsupported memory format. Supports only ChannelsLast3d, "
                           "Contiguous")
    geometry.measure(input, ceil_mode)
    _check_not_bool(name + ("_channels_last" if layout == "channels_last" else ""), input)
    planes = _planes(input, dims)
    lowest = -np.inf if planes.dtype.kind == "f" else np.iinfo(planes.dtype).min
    windows = geometry.windows(planes, lowest)
    inside = geometry.windows(np.ones((1, *planes.shape[1:]), bool), False)  # not padding
    position = _position_of_max(windows, inside)
    values = np.take_along_axis(windows, position[:, None], 1)[:, 0]
    out_shape = (*input.shape[:-dims], *geometry.out)
    out = _laid_out(values.reshape(out_shape), layout)
    indices = _laid_out(_flat_index(position, geometry).reshape(out_shape), layout)
    node = MaxPool3DWithIndicesBackward0 if dims == 3 else MaxPool2DWithIndicesBackward0
    record(node, (out, indices), (input,), saved=(input, indices), ceil_mode=ceil_mode,
           **geometry.given)
    return out, indices


def _position_of_max(windows, inside):
    """Which element of each window is its max: the first of equal maxima, the last nan
    (torch's loop keeps a value when ``value > max or isnan(value)``); never the padding."""
    inside = np.broadcast_to(inside, windows.shape)
    lowest = -np.inf if windows.dtype.kind == "f" else np.iinfo(windows.dtype).min
    largest = np.where(inside, windows, lowest).max(axis=1, keepdims=True)
    position = (inside & (windows == largest)).argmax(axis=1)  # argmax: the first True
    if windows.dtype.kind == "f":
        nan = inside & np.isnan(windows)
        last_nan = windows.shape[1] - 1 - nan[:, ::-1].argmax(axis=1)
        position = np.where(nan.any(axis=1), last_nan, position)
    return position


def _flat_index(position, geometry):
    """Where in its plane (row * width + column; 3-d: (depth * height + row) * width +
    column) each window's element ``position`` (P, *out) is."""
    offsets = np.unravel_index(position, geometry.kernel)
    flat = np.zeros(position.shape, np.int64)
    for dim, (offset, size, stride, pad, dilation, out) in enumerate(zip(
            offsets, geometry.size, geometry.stride, geometry.padding, geometry.dilation,
            geometry.out)):
        starts = (np.arange(out) * stride - pad).reshape(
            (out,) + (1,) * (geometry.dims - 1 - dim))
        flat = flat * size + starts + offset * dilation
    return flat


class MaxPool2DWithIndicesBackward0(Node):
    """out = the max of each window:  d/dx = each window's gradient at the element its max
    came from (added up where windows share it), 0 elsewhere"""

    _saved_names = ("self", "result1")
    kernel_size: tuple
    stride: tuple
    padding: tuple
    dilation: tuple
    ceil_mode: bool
    dims = 2

    def backward(self, grad):
        input, indices = self.saved_tensors
        return max_pool_backward(self.dims, grad, input, indices)


class MaxPool3DWithIndicesBackward0(MaxPool2DWithIndicesBackward0):
    """out = the max of each 3-d window:  d/dx as max_pool2d's"""

    dims = 3


def max_pool_backward(dims, grad, input, indices):
    """Each gradient added to the input element ``indices`` names (torch's
    max_pool2d_with_indices_backward and max_pool3d's); under create_graph recorded linked
    to grad and input, as torch's node (d/dinput = 0)."""
    input_shape = input.shape
    planes = grad._data.reshape(-1, math.prod(grad._data.shape[-dims:]))
    where = indices._data.reshape(planes.shape)
    out = np.zeros((planes.shape[0], math.prod(input_shape[-dims:])), planes.dtype)
    # np.add.at goes through the windows in row-major order, as torch's loop does
    np.add.at(out, (np.arange(planes.shape[0])[:, None], where), planes)
    node = MaxPool3DWithIndicesBackwardBackward0 if dims == 3 else \
        MaxPool2DWithIndicesBackwardBackward0
    return record(node, _laid_out(out.reshape(input_shape), format_of(input)), (grad, input),
                  saved=(indices,))


class MaxPool2DWithIndicesBackwardBackward0(Node):
    """out = grad put back at the max positions:  d/dgrad = the gradient read back there,
    d/dinput = 0"""

    _saved_names = ("indices",)
    dims = 2

    def backward(self, grad):
        (indices,) = self.saved_tensors
        return max_pool_double_backward(grad, indices, self.dims), zeros_like(grad)


class MaxPool3DWithIndicesBackwardBackward0(MaxPool2DWithIndicesBackwardBackward0):
    """out = grad put back at the 3-d windows' max positions:  d/dgrad as max_pool2d's"""

    dims = 3


# ====================================================================== avg_pool2d, avg_pool3d
_AVG_POOL = ("(Tensor input, tuple of ints[1] kernel_size, tuple of ints[1]? stride = None, "
             "tuple of ints[1] padding = 0, bool ceil_mode = False, "
             "bool count_include_pad = True, int? divisor_override = None)")


@overloads(_AVG_POOL)
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """out = the sum of each window / its size (count_include_pad: padding zeros count too;
    divisor_override: divide by that instead)"""
    return _avg_pool(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


@overloads(_AVG_POOL)
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """avg_pool2d with windows of depth, height and width (input (N, C, T, H, W) or
    (C, T, H, W))"""
    return _avg_pool(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def _avg_pool(dims, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override):
    name = f"avg_pool{dims}d"  # (its arguments' types checked by torch's parser: _AVG_POOL)
    geometry = _AvgGeometry(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                            divisor_override, dims)
    layout = format_of(input)
    if dims == 2 and (input._data.dtype.kind in "biu" and input._data.dtype != np.int64):
        # (its kernel: floating dtypes and int64 only, once the shapes are checked)
        kernel = name + ("_channels_last" if layout == "channels_last" else "")
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")
    planes = _planes(input, dims)
    if dims == 3 and planes.dtype not in (np.float32, np.float64, np.int64):
        raise NotImplementedError("\"avg_pool3d_out_frame\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")
    windows = geometry.windows(planes.astype(_accumulator(planes.dtype)), 0)
    total = np.zeros((windows.shape[0], *geometry.out), windows.dtype)
    for k in range(windows.shape[1]):  # torch's order: row by row through the window
        total += windows[:, k]
    out = _divide(total, geometry.divisors()).astype(planes.dtype)
    node = AvgPool3DBackward0 if dims == 3 else AvgPool2DBackward0
    return record(node, _laid_out(out.reshape(*input.shape[:-dims], *geometry.out), layout),
                  (input,), saved=(input,), ceil_mode=ceil_mode,
                  count_include_pad=count_include_pad, divisor_override=divisor_override,
                  **{name: value for name, value in geometry.given.items() if name != "dilation"})


class _AvgGeometry(_Geometry):
    """avg_pool2d's and avg_pool3d's windows (no dilation), and what each window's sum is
    divided by."""

    def __init__(self, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                 divisor_override, dims=2):
        super().__init__(f"avg_pool{dims}d", kernel_size, stride, padding, 1, dims)
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override
        if dims == 3 and input.dim() not in (4, 5):
            raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        # (torch reads the number of planes first: an IndexError for 2-d input to avg_pool2d)
        input.size(-dims - 1)
        self.measure(input, ceil_mode)

    def divisors(self):
        """(out_h, out_w) (3-d: (out_t, out_h, out_w)): each window's element count (torch's
        divide_factor)."""
        if self.divisor_override is not None:
            return np.full(self.out, self.divisor_override)
        counts = [self._counts(*values) for values in zip(self.size, self.kernel, self.stride,
                                                          self.padding, self.out)]
        return functools.reduce(np.multiply.outer, counts)

    def _counts(self, size, kernel, stride, pad, out):
        start = np.arange(out) * stride - pad
        end = np.minimum(start + kernel, size + pad)  # a window may reach into the padding
        if self.count_include_pad:
            return end - start
        return np.minimum(end, size) - np.maximum(start, 0)


def _accumulator(np_dtype):
    """torch sums float16 in float32 and rounds once at the end."""
    return np.float32 if np_dtype == np.float16 else np_dtype


def _divide(total, divisors):
    """total / divisors, as C divides: integers truncate toward zero."""
    if total.dtype.kind == "f":
        return total / divisors.astype(total.dtype)
    quotient = np.abs(total) // np.abs(divisors)
    return np.where((total < 0) != (divisors < 0), -quotient, quotient)


class AvgPool2DBackward0(Node):
    """out = the mean of each window:  d/dx = each window's gradient / its divisor, spread
    over the window's elements (added up where windows overlap)"""

    _saved_names = ("self",)
    kernel_size: tuple
    stride: tuple
    padding: tuple
    ceil_mode: bool
    count_include_pad: bool
    divisor_override: object
    dims = 2

    def backward(self, grad):
        (input,) = self.saved_tensors
        return _avg_pool_backward(self.dims, grad, input, self.kernel_size, self.stride,
                                  self.padding, self.ceil_mode, self.count_include_pad,
                                  self.divisor_override)


class AvgPool3DBackward0(AvgPool2DBackward0):
    """out = the mean of each 3-d window:  d/dx as avg_pool2d's"""

    dims = 3


def _avg_pool_backward(dims, grad, input, kernel_size, stride, padding, ceil_mode,
                       count_include_pad, divisor_override):
    """Each window's gradient / its divisor, added to the window's elements (torch's
    avg_pool2d_backward and avg_pool3d_backward, in their order: windows row by row)."""
    geometry = _AvgGeometry(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                            divisor_override, dims)
    planes = grad._data.reshape(-1, *geometry.out)
    deltas = _divide(planes, geometry.divisors()).astype(planes.dtype)
    around = geometry.padding_around()
    padded = np.zeros((planes.shape[0], *(before + size + after for (before, after), size in
                                          zip(around, geometry.size))), planes.dtype)
    # reversed: so each element gets its windows in row-major order
    for offset in reversed(list(itertools.product(*map(range, geometry.kernel)))):
        padded[(slice(None), *geometry.window_slices(offset, False))] += deltas
    inside = tuple(slice(before, before + size) for (before, _), size in zip(around,
                                                                            geometry.size))
    grad_input = _laid_out(padded[(slice(None), *inside)].reshape(input.shape), format_of(input))
    node = AvgPool3DBackwardBackward0 if dims == 3 else AvgPool2DBackwardBackward0
    return record(node, grad_input, (grad, input), kernel_size=kernel_size,
                  stride=stride, padding=padding, ceil_mode=ceil_mode,
                  count_include_pad=count_include_pad, divisor_override=divisor_override)


class AvgPool2DBackwardBackward0(Node):
    """out = grad spread over the windows:  d/dgrad = avg_pool2d of the gradient again,
    d/dinput = 0"""

    kernel_size: tuple
    stride: tuple
    padding: tuple
    ceil_mode: bool
    count_include_pad: bool
    divisor_override: object
    dims = 2

    def backward(self, grad):
        return _avg_pool(self.dims, grad, self.kernel_size, self.stride, self.padding,
                         self.ceil_mode, self.count_include_pad, self.divisor_override), \
            zeros_like(grad)


class AvgPool3DBackwardBackward0(AvgPool2DBackwardBackward0):
    """out = grad spread over the 3-d windows:  d/dgrad = avg_pool3d of the gradient again"""

    dims = 3


# ====================================================================== the 1-d poolings
def _check_1d(name, input, arguments):
    """ATen's checks of a 1-d pooling, which then pools input.unsqueeze(-2) in 2-d."""
    if not 2 <= input.dim() <= 3:
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {name})")
    values = {}
    for argument, value in arguments.items():
        value = tuple(value) if isinstance(value, (tuple, list)) else (value,)
        if len(value) != 1:
            raise RuntimeError(f"{name}() argument '{argument}' should contain one int (got "
                               f"{len(value)})")
        values[argument] = value[0]
    return values


@overloads("(Tensor input, tuple of ints[1] kernel_size, tuple of ints[1] stride = (), "
           "tuple of ints[1] padding = 0, bool ceil_mode = False, bool count_include_pad = True)")
def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    """avg_pool2d over the last dimension only (torch's composition: unsqueeze, avg_pool2d,
    squeeze)"""
    if stride is None or isinstance(stride, (tuple, list)) and not stride:  # (torch's parser
        # takes None for its empty default)
        stride = kernel_size
    given = _check_1d("avg_pool1d", input, {"kernel_size": kernel_size, "stride": stride,
                                            "padding": padding})
    return avg_pool2d(input.unsqueeze(-2), (1, given["kernel_size"]), (1, given["stride"]),
                      (0, given["padding"]), ceil_mode, count_include_pad).squeeze(-2)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool1d's values and, whatever return_indices says, where each max was
    (torch.max_pool1d_with_indices)"""
    stride = () if stride is None else stride
    return torch_max_pool1d_with_indices(input, kernel_size, stride, padding, dilation,
                                         ceil_mode)


def _max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    stride = () if stride is None else stride
    return torch_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


max_pool1d = boolean_dispatch(max_pool1d_with_indices, _max_pool1d, 6, "max_pool1d", """
    max_pool2d over the last dimension only; with return_indices, also where each max was
    (torch.max_pool1d_with_indices, else torch.max_pool1d)""")


_MAX_POOL_1D = ("(Tensor input, tuple of ints[1] kernel_size, tuple of ints[1] stride = (), "
                "tuple of ints[1] padding = 0, tuple of ints[1] dilation = 1, "
                "bool ceil_mode = False)")


def _torch_max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                                   ceil_mode=False):
    """torch.max_pool1d_with_indices: ATen's 1-d checks, then max_pool2d of
    input.unsqueeze(-2), values and indices squeezed"""
    if stride is None or isinstance(stride, (tuple, list)) and not stride:
        stride = kernel_size
    given = _check_1d("max_pool1d", input, {"kernel_size": kernel_size, "stride": stride,
                                            "padding": padding, "dilation": dilation})
    out, indices = max_pool2d_with_indices(input.unsqueeze(-2), (1, given["kernel_size"]),
                                           (1, given["stride"]), (0, given["padding"]),
                                           (1, given["dilation"]), ceil_mode)
    return out.squeeze(-2), indices.squeeze(-2)


_torch_max_pool1d_with_indices.__name__ = _torch_max_pool1d_with_indices.__qualname__ = \
    "max_pool1d_with_indices"
torch_max_pool1d_with_indices = overloads(_MAX_POOL_1D)(_torch_max_pool1d_with_indices)


def _torch_max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool1d: its own checks; an input that needs a gradient goes the way of
    max_pool1d_with_indices, any other through a kernel of floats only"""
    stride = () if stride is None else stride  # (None: the parser's empty default)
    shape = list(input.shape)
    if not (len(shape) == 2 and 0 not in shape) and not (len(shape) == 3 and 0 not in
                                                          shape[1:]):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{shape}")
    _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    needs_indices = input.requires_grad and is_grad_enabled()
    if not needs_indices and input._data.dtype.kind != "f":
        raise NotImplementedError("\"max_pool1d_impl\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")
    out = torch_max_pool1d_with_indices(input, kernel_size, stride, padding, dilation,
                                        ceil_mode)[0]
    if needs_indices:
        return out
    # torch's kernel writes a row-major tensor of its own, with a batch of one for 2-d input
    # that it then squeezes in place (version 1)
    return out.clone(memory_format=contiguous_format) if input.dim() == 3 else \
        out.unsqueeze(0).clone().squeeze_(0)


_torch_max_pool1d.__name__ = _torch_max_pool1d.__qualname__ = "max_pool1d"
torch_max_pool1d = overloads(_MAX_POOL_1D)(_torch_max_pool1d)


def _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """ATen's check_max_pool1d"""
    sizes = {}
    for argument, value, forms in (
            ("kernel_size", kernel_size, "an int, list of ints or tuple of ints"),
            ("stride", stride, "None, an int, list of ints, or tuple of ints"),
            ("padding", padding, "an int, list of ints, or tuple of ints"),
            ("dilation", dilation, "an int, list of ints or tuple of ints")):
        value = tuple(value) if isinstance(value, (tuple, list)) else (value,)
        if len(value) != 1 and not (argument == "stride" and not value):
            raise RuntimeError(f"max_pool1d() {argument} must be {forms} of size 1 but got size "
                               f"{len(value)}")
        sizes[argument] = value[0] if value else None
    kernel, stride, pad, dilation = (sizes["kernel_size"], sizes["stride"], sizes["padding"],
                                     sizes["dilation"])
    stride = kernel if stride is None else stride
    for name, value, rule in (("kernel_size", kernel, "greater than zero"),
                              ("stride", stride, "greater than zero"),
                              ("padding", pad, "non-negative")):
        if value < 0 or (value == 0 and rule != "non-negative"):
            raise RuntimeError(f"max_pool1d() {name} must be {rule}, but got {value}")
    if pad > kernel // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={pad} and kernel_size={kernel}")
    if dilation <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dilation}")
    out = _output_size(input.shape[-1], kernel, pad, stride, dilation, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


@overloads("(Tensor input, tuple of ints[1] output_size)")
def adaptive_avg_pool1d(input, output_size):
    """adaptive_avg_pool2d over the last dimension only (torch's composition)"""
    given = _check_1d("adaptive_avg_pool1d", input, {"output_size": output_size})
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, given["output_size"])).squeeze(-2)


# ====================================================================== adaptive_avg_pool2d
def adaptive_avg_pool2d(input, output_size):
    """out = the mean of each of output_size windows, chosen to cover the input evenly
    (window i of n over a size s runs from floor(i s / n) to ceil((i + 1) s / n))"""
    _check_input_type("adaptive_avg_pool2d", input)
    if not isinstance(output_size, int):
        if len(input.shape) <= len(output_size):
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        output_size = [size if want is None else want
                       for want, size in zip(output_size, input.shape[-len(output_size):])]
    # (torch's F.adaptive_avg_pool2d hands it on to a SymInt[2])
    output_size = signatures.checked_ints("adaptive_avg_pool2d", "output_size", 2, output_size,
                                          symint=True)
    size = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    if size == (1, 1):  # torch takes the mean (its refusal of a bool input too)
        return input.mean((-1, -2), keepdim=True)
    if len(size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if min(size) < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or "
                           f"equal to 0 but received {{{size[0]}, {size[1]}}}")
    _check_adaptive_input(input, size)
    planes = _planes(input).astype(_accumulator(input._data.dtype))
    out = np.empty((planes.shape[0], *size), planes.dtype)
    for oh, rows in enumerate(_adaptive_ranges(input.shape[-2], size[0])):
        for ow, columns in enumerate(_adaptive_ranges(input.shape[-1], size[1])):
            total = np.zeros(planes.shape[0], planes.dtype)
            for row in range(rows.start, rows.stop):  # torch's order: row by row
                for column in range(columns.start, columns.stop):
                    total += planes[:, row, column]
            out[:, oh, ow] = total / len(rows) / len(columns)
    out = _laid_out(out.astype(input._data.dtype).reshape(*input.shape[:-2], *size),
                    format_of(input))
    return record(AdaptiveAvgPool2DBackward0, out, (input,), saved=(input,))


def laid_out_as(values, like):
    """A new tensor of ``values`` in ``like``'s suggested memory format (channels-last in,
    channels-last out, as torch's pooling and upsampling kernels write); row-major without
    ``like``."""
    layout = "contiguous_format" if like is None else suggested_memory_format(
        tuple(like.shape), like.stride())
    if layout == "contiguous_format":
        return wrap(np.ascontiguousarray(values))
    fmt = channels_last if layout == "channels_last" else channels_last_3d
    out = empty_strided(values.shape, format_strides(values.shape, None, fmt), values.dtype)
    np.copyto(out._data, values)
    return out


def _check_adaptive_input(input, size):
    """torch's checks of adaptive_avg_pool2d's input: only its height and width must not be
    empty (no channels is allowed, unlike adaptive_max_pool2d), and its kernel, which refuses
    integers, is not called for an empty output."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    for dim in (input.dim() - 2, input.dim() - 1):
        if input.shape[dim] == 0:
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {dim} being empty")
    if input._data.dtype.kind != "f" and math.prod((*input.shape[:-2], *size)):
        kernel = "adaptive_avg_pool2d" + ("_channels_last" if format_of(input) ==
                                          "channels_last" else "")
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")


def _adaptive_ranges(size, count):
    """The ``count`` windows over ``size`` elements: from floor(i size / count) to
    ceil((i + 1) size / count)."""
    return [range(i * size // count, -(-(i + 1) * size // count)) for i in range(count)]


class AdaptiveAvgPool2DBackward0(Node):
    """out = the mean of each window:  d/dx = each window's gradient / its size, spread over
    the window"""

    _saved_names = ("self",)

    def backward(self, grad):
        (input,) = self.saved_tensors
        return adaptive_avg_pool2d_backward(grad, input)


def adaptive_avg_pool2d_backward(grad, input):
    """Each window's gradient / its size, added to its elements (torch's order: windows row
    by row); torch's backward refuses an empty gradient but for its batch."""
    _check_non_batch_sizes("adaptive_avg_pool2d_backward", list(grad.shape), "grad_output")
    planes = grad._data.reshape(-1, *grad._data.shape[-2:])
    out = np.zeros((planes.shape[0], *input._data.shape[-2:]), planes.dtype)
    for oh, rows in enumerate(_adaptive_ranges(input.shape[-2], planes.shape[1])):
        for ow, columns in enumerate(_adaptive_ranges(input.shape[-1], planes.shape[2])):
            out[:, rows.start:rows.stop, columns.start:columns.stop] += (
                planes[:, oh, ow] / len(rows) / len(columns))[:, None, None]
    return record(AdaptiveAvgPool2DBackwardBackward0,
                  _laid_out(out.reshape(input.shape), format_of(input)), (grad, input),
                  output_size=tuple(grad.shape[-2:]))


class AdaptiveAvgPool2DBackwardBackward0(Node):
    """out = grad spread over the windows:  d/dgrad = adaptive_avg_pool2d of it again,
    d/dinput = 0"""

    output_size: tuple

    def backward(self, grad):
        return adaptive_avg_pool2d(grad, self.output_size), zeros_like(grad)


# ====================================================================== adaptive_max_pool2d
def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool2d's values and, whatever return_indices says, where each max was (its
    flat index in its plane)"""
    return torch_adaptive_max_pool2d(input, list_with_default(output_size, input.size()))


def _adaptive_max_pool2d(input, output_size, return_indices=False):
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


adaptive_max_pool2d = boolean_dispatch(
    adaptive_max_pool2d_with_indices, _adaptive_max_pool2d, 2, "adaptive_max_pool2d", """out
    = the largest element of each of output_size windows, chosen to cover the input evenly
    as adaptive_avg_pool2d's (a nan wins; None in output_size keeps that dimension's size);
    with return_indices, also where each max was""")


def list_with_default(output_size, defaults):
    """torch's _list_with_default: an int as it is, else the sizes asked for with None
    replaced by the input's own (``defaults``: its sizes)."""
    if isinstance(output_size, int):
        return output_size
    if len(defaults) <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    return [size if size is not None else default
            for size, default in zip(output_size, defaults[-len(output_size):])]


def torch_adaptive_max_pool2d(input, output_size):
    """torch._C._nn.adaptive_max_pool2d: (values, indices), laid out as the input's format
    suggests (channels-last stays channels-last)."""
    _check_input_type("adaptive_max_pool2d", input)
    size = signatures.checked_ints("adaptive_max_pool2d", "output_size", 2, output_size)
    size = (size, size) if isinstance(size, int) else tuple(size)
    _check_int64(size)
    shape = list(input.shape)
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {shape}")
    _check_non_batch_sizes("adaptive_max_pool2d", shape)
    if len(size) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    out_shape = [*shape[:-2], *size]
    for n in out_shape:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{out_shape}")
    layout = format_of(input)
    if input._data.dtype.kind != "f":
        kernel = "adaptive_max_pool2d" + ("_channels_last" if layout == "channels_last" else "")
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")
    planes, width = _planes(input), shape[-1]
    values = np.empty((planes.shape[0], *size), planes.dtype)
    indices = np.empty((planes.shape[0], *size), np.int64)
    for oh, rows in enumerate(_adaptive_ranges(shape[-2], size[0])):
        for ow, columns in enumerate(_adaptive_ranges(width, size[1])):
            window = planes[:, rows.start:rows.stop, columns.start:columns.stop].reshape(
                planes.shape[0], len(rows) * len(columns))
            # (torch's loop: row by row, keeping a value when value > max or isnan(value))
            position = _position_of_max(window, np.ones((1, window.shape[1]), bool))
            values[:, oh, ow] = np.take_along_axis(window, position[:, None], 1)[:, 0]
            indices[:, oh, ow] = (rows.start + position // len(columns)) * width + \
                columns.start + position % len(columns)
    out = _laid_out(values.reshape(out_shape), layout)
    indices = _laid_out(indices.reshape(out_shape), layout)
    record(AdaptiveMaxPool2DBackward0, (out, indices), (input,), saved=(input, indices))
    return out, indices


def _check_int64(sizes):
    """(torch's parser reads each int as a C++ int64)"""
    if any(not -2 ** 63 <= n < 2 ** 63 for n in sizes):
        raise ValueError("Overflow when unpacking long long")


def _check_non_batch_sizes(name, shape, what="input"):
    for dim in range(1, len(shape)):
        if shape[dim] == 0:
            raise RuntimeError(f"{name}(): Expected {what} to have non-zero size for non-batch "
                               f"dimensions, but {what} has sizes {shape} with dimension {dim} "
                               "being empty")


def format_of(input):
    """The memory format torch's pooling kernels read off the input: "channels_last" for a
    4-d input laid out N, H, W, C (its results are too), else "contiguous_format"."""
    return suggested_memory_format(input._data.shape, input.stride())


def _laid_out(array, layout):
    """``array`` as a new tensor in the memory format ``layout`` names."""
    if layout != "channels_last":
        return wrap(np.ascontiguousarray(array))
    result = empty_strided(array.shape, format_strides(array.shape, None, channels_last),
                           array.dtype)
    result._data[...] = array
    return result


class AdaptiveMaxPool2DBackward0(Node):
    """out = the max of each window:  d/dx = each window's gradient at the element its max
    came from (added up where windows share it), 0 elsewhere"""

    _saved_names = ("self", "result1")

    def backward(self, grad):
        input, indices = self.saved_tensors
        return adaptive_max_pool2d_backward(grad, input, indices)


def adaptive_max_pool2d_backward(grad, input, indices):
    """Each gradient added to the input element ``indices`` names, windows in row-major
    order (torch's kernel, in the input's dtype), laid out as the input's format suggests;
    under create_graph recorded linked to grad and input (d/dinput = 0)."""
    _check_non_batch_sizes("adaptive_max_pool2d_backward", list(grad.shape), "grad_output")
    planes = grad._data.reshape(-1, math.prod(grad._data.shape[-2:]))
    where = indices._data.reshape(planes.shape)
    out = np.zeros((planes.shape[0], math.prod(input._data.shape[-2:])), planes.dtype)
    np.add.at(out, (np.arange(planes.shape[0])[:, None], where), planes)
    return record(AdaptiveMaxPool2DBackwardBackward0,
                  _laid_out(out.reshape(input._data.shape), format_of(input)), (grad, input),
                  saved=(indices,))


class AdaptiveMaxPool2DBackwardBackward0(Node):
    """out = grad put back at the max positions:  d/dgrad = the gradient read back there,
    d/dinput = 0"""

    _saved_names = ("indices",)

    def backward(self, grad):
        (indices,) = self.saved_tensors
        return max_pool_double_backward(grad, indices, 2), grad.new_zeros(grad.shape)


def max_pool_double_backward(grad, indices, dims):
    """torch's max_pool_double_backward: ``grad`` (the shape of a max pooling's input) read
    back at ``indices`` (each of its last ``dims`` dimensions flattened): contiguous in the
    indices' format, viewed, gathered, viewed back."""
    if indices.numel() == 0:
        return empty_like(indices, dtype=grad.dtype)
    size = (*indices.shape[:-dims], -1)
    layout = suggested_memory_format(indices._data.shape, indices.stride())
    grad = grad.contiguous(memory_format=channels_last if layout == "channels_last" else
                           contiguous_format)
    return grad.view(size).gather(-1, indices.view(size)).view(indices.shape)


# ====================================================================== adaptive_max_pool1d
def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool1d's values and, whatever return_indices says, where each max was
    (torch.adaptive_max_pool1d)"""
    return torch_adaptive_max_pool1d(input, output_size)


def _adaptive_max_pool1d(input, output_size, return_indices=False):
    return adaptive_max_pool1d_with_indices(input, output_size)[0]


adaptive_max_pool1d = boolean_dispatch(
    adaptive_max_pool1d_with_indices, _adaptive_max_pool1d, 2, "adaptive_max_pool1d", """
    adaptive_max_pool2d over the last dimension only; with return_indices, also where each
    max was""")


def _torch_adaptive_max_pool1d(input, output_size):
    """torch.adaptive_max_pool1d: ATen's checks, then adaptive_max_pool2d of
    input.unsqueeze(-2), values and indices squeezed"""
    _check_int64(output_size if isinstance(output_size, (tuple, list)) else (output_size,))
    given = _check_1d("adaptive_max_pool1d", input, {"output_size": output_size})
    _check_non_batch_sizes("adaptive_max_pool1d", list(input.shape))
    out, indices = torch_adaptive_max_pool2d(input.unsqueeze(-2), (1, given["output_size"]))
    return out.squeeze(-2), indices.squeeze(-2)


# (torch's messages name it so)
_torch_adaptive_max_pool1d.__name__ = _torch_adaptive_max_pool1d.__qualname__ = \
    "adaptive_max_pool1d"
torch_adaptive_max_pool1d = overloads("(Tensor input, tuple of ints[1] output_size)")(
    _torch_adaptive_max_pool1d)
