"""Constant padding layers: ``ConstantPad1d``, ``ConstantPad2d``, ``ZeroPad2d``, each
F.pad(mode='constant') with its amounts fixed."""
from .. import functional as F
from .module import Module


def _amounts(padding, count):
    """padding as a tuple of ``count`` amounts: one int repeated, or the given sequence"""
    if isinstance(padding, int):
        return (padding,) * count
    return tuple(padding)


class _ConstantPadNd(Module):
    def __init__(self, value):
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """pad = (left, right) of the last dimension (one int: both), filled with ``value``"""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _amounts(padding, 2)


class ConstantPad2d(_ConstantPadNd):
    """pad = (left, right, top, bottom) of the last two dimensions, filled with ``value``"""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _amounts(padding, 4)


class ZeroPad2d(ConstantPad2d):
    """ConstantPad2d with zeros"""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"
