"""Convolution layers: ``Conv1d`` and ``Conv2d``, each a kernel per output channel, and their
lazy forms ``LazyConv1d``/``LazyConv2d`` (in_channels read from the first input)."""
import math

from ...ops.creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module


def _ntuple(value, n):
    """torch's _single / _pair: an iterable becomes a tuple, anything else n copies of itself."""
    try:
        return tuple(value)
    except TypeError:
        return (value,) * n


class _ConvNd(Module):
    """What Conv1d and Conv2d share: the checks, the parameters, their start and the repr."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.transposed, self.output_padding = dilation, transposed, output_padding
        self.groups, self.padding_mode = groups, padding_mode
        self._reversed_padding_repeated_twice = _reversed_padding(padding, kernel_size, dilation)
        self.weight = Parameter(empty((out_channels, in_channels // groups, *kernel_size),
                                      dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """torch's default start, as for Linear: uniform in +-1/sqrt(fan_in), where fan_in is
        in_channels / groups times the kernel's size."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init.fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def _conv_forward(self, conv, input, weight, bias):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


def _reversed_padding(padding, kernel_size, dilation):
    """The padding in F.pad's order (last dimension first, before and after each)."""
    if not isinstance(padding, str):
        return tuple(p for p in reversed(padding) for _ in range(2))
    reversed_padding = [0, 0] * len(kernel_size)
    if padding == "same":
        for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
            total_padding = d * (k - 1)
            left_pad = total_padding // 2
            reversed_padding[2 * i] = left_pad
            reversed_padding[2 * i + 1] = total_padding - left_pad
    return reversed_padding


class Conv1d(_ConvNd):
    """out[n, o] = bias[o] + sum over c, i of weight[o, c, i] * input[n, c, window]
    (input (N, in_channels, L) or (in_channels, L))."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 1),
                         _ntuple(stride, 1),
                         padding if isinstance(padding, str) else _ntuple(padding, 1),
                         _ntuple(dilation, 1), False, (0,), groups, bias, padding_mode,
                         device, dtype)

    def forward(self, input):
        return self._conv_forward(F.conv1d, input, self.weight, self.bias)


class Conv2d(_ConvNd):
    """out[n, o] = bias[o] + sum over c, i, j of weight[o, c, i, j] * input[n, c, window]
    (input (N, in_channels, H, W) or (in_channels, H, W))."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 2),
                         _ntuple(stride, 2),
                         padding if isinstance(padding, str) else _ntuple(padding, 2),
                         _ntuple(dilation, 2), False, (0, 0), groups, bias, padding_mode,
                         device, dtype)

    def forward(self, input):
        return self._conv_forward(F.conv2d, input, self.weight, self.bias)


class _LazyConvXdMixin(LazyModuleMixin):
    """A convolution whose in_channels is the channel size of its first input; until then
    ``in_channels`` is 0 and weight and bias are ``UninitializedParameter``."""

    num_spatial_dims = 0

    def _make_lazy(self, out_channels, bias, dtype):
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            batched = self.num_spatial_dims + 2
            if input.dim() not in (batched - 1, batched):
                raise RuntimeError(f"Expected {batched - 1}D (unbatched) or {batched}D (batched) "
                                   f"input to {self.__class__.__name__}, but got input of size: "
                                   f"{input.shape}")
            self.in_channels = input.shape[1] if input.dim() == batched else input.shape[0]
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            self.weight.materialize((self.out_channels, self.in_channels // self.groups,
                                     *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()  # Conv's start: the same random draws


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    """A Conv1d whose in_channels comes from its first input; after that call, a Conv1d."""

    cls_to_become = Conv1d
    num_spatial_dims = 1

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        # bias=False here: no tensor that would be thrown away at once
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device, dtype)
        self._make_lazy(out_channels, bias, dtype)


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    """A Conv2d whose in_channels comes from its first input; after that call, a Conv2d."""

    cls_to_become = Conv2d
    num_spatial_dims = 2

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device, dtype)
        self._make_lazy(out_channels, bias, dtype)
