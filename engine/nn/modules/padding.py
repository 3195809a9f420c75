"""Padding layers, each F.pad with its mode and amounts fixed: ``ConstantPad1d/2d/3d`` and
``ZeroPad1d/2d/3d`` (mode='constant'), ``ReflectionPad1d/2d/3d``, ``ReplicationPad1d/2d/3d``,
``CircularPad1d/2d/3d``."""
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


class ConstantPad3d(_ConstantPadNd):
    """pad = (left, right, top, bottom, front, back) of the last three dimensions, filled with
    ``value``"""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _amounts(padding, 6)


class ZeroPad1d(ConstantPad1d):
    """ConstantPad1d with zeros"""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """ConstantPad2d with zeros"""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """ConstantPad3d with zeros"""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class _ModePadNd(Module):
    mode = "reflect"
    count = 2

    def __init__(self, padding):
        super().__init__()
        self.padding = _amounts(padding, self.count)

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


def _mode_pad(name, mode, dims):
    kind = {"reflect": "the edge mirrored (not repeated)", "replicate": "the edge repeated",
            "circular": "the other side wrapped around"}[mode]
    return type(name, (_ModePadNd,), {
        "mode": mode, "count": 2 * dims, "__module__": __name__,
        "__doc__": f"The last {dims} dimension(s) padded with {kind}: F.pad(mode='{mode}')"})


ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (
    _mode_pad(f"ReflectionPad{n}d", "reflect", n) for n in (1, 2, 3))
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (
    _mode_pad(f"ReplicationPad{n}d", "replicate", n) for n in (1, 2, 3))
CircularPad1d, CircularPad2d, CircularPad3d = (
    _mode_pad(f"CircularPad{n}d", "circular", n) for n in (1, 2, 3))
