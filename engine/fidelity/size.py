"""``torch.Size``, ``torch.device`` and ``torch.strided``: small value types a tensor reports."""
import re

import numpy as np

from . import calls, messages, signatures


class Size(tuple, messages.CTypeAttributeErrors):
    """A tensor's shape: a tuple of ints that prints as ``torch.Size([2, 3])``."""

    __slots__ = ()
    torch_type_name = "torch.Size"  # (as Python's own errors name it: s[0] = 1, s.foo)

    def __new__(cls, sizes=()):
        sizes = tuple(sizes)
        for i, n in enumerate(sizes):
            if n.__class__ is not int:
                try:  # 0-d integer tensors and numpy integers count as ints
                    if isinstance(n, float):
                        raise TypeError
                    sizes = sizes[:i] + (n.__index__(),) + sizes[i + 1:]
                except (TypeError, AttributeError):
                    raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                                    f"'{messages.type_name(n)}')") from None
        return tuple.__new__(cls, sizes)

    def __repr__(self):
        return f"torch.Size([{', '.join(str(n) for n in self)}])"

    __str__ = __repr__

    def __call__(self, *args, **kwargs):
        # x.shape is an attribute; old tutorials' x.shape() fails with torch's message
        raise TypeError("'torch.Size' object is not callable")

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    # Sizes combine into Sizes, as tuples combine into tuples.
    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, times):
        return Size(tuple.__mul__(self, times))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))

    def numel(self):
        """The number of elements a tensor of this shape holds."""
        count = 1
        for n in self:
            count *= n
        return count


_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")

_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")


_DEVICE_OVERLOADS = ("(torch.device device)", "(str type, int index = -1)")


class device:
    """Where a tensor lives. The engine has only ``cpu``; other names are accepted
    here (as in torch) and refused when a tensor is asked to move there."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002 - torch's parameter name
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, (int, np.integer)) and type.__class__ is not bool:
            type, index = "cuda", int(type)  # a bare number: GPU number n (torch's CUDA build)
        else:
            if isinstance(type, bytes):
                type = type.decode()
            elif not isinstance(type, str):
                raise signatures.refuse("device", _DEVICE_OVERLOADS, False, (type,) if index
                                        is None else (type, index), {}, True, True)
            match = _DEVICE_STRING.fullmatch(type)
            if match is None:
                raise RuntimeError(f"Invalid device string: '{type}'")
            type, number = match.groups()
            if number is not None:
                index = int(number)
        if type not in _DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start "
                               f"of device string: {type}")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type = type
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __call__(self, *args, **kwargs):
        raise TypeError("'torch.device' object is not callable")  # x.device is an attribute

    def __eq__(self, other):
        # like torch, a device never equals the string naming it
        if not isinstance(other, device):
            return NotImplemented
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = device("cpu")


def check_device(where):
    """Accept ``None``, ``'cpu'`` or ``device('cpu')``; refuse the rest as torch does on a
    machine without a GPU."""
    if where is None or where is CPU:
        return CPU
    where = device(where) if not isinstance(where, device) else where
    if where.type == "cpu":
        return CPU
    if where.type == "cuda":
        raise RuntimeError(messages.NO_NVIDIA_DRIVER)
    raise RuntimeError(f"PyTorch is not linked with support for {where.type} devices")


class _NamedConstant:
    """A constant that prints as ``torch.<name>`` and pickles as that module-level name."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return self.name


class layout(_NamedConstant):
    """How a tensor's elements are stored; only ``torch.strided`` (dense) exists here."""

    __slots__ = ()


strided = layout("strided")


class memory_format(_NamedConstant):
    """The order of a new tensor's elements in memory: ``torch.contiguous_format`` (row-major),
    ``torch.preserve_format`` (the input's order), ``torch.channels_last`` (4-d, the channels
    innermost: N, H, W, C) and ``torch.channels_last_3d`` (5-d)."""

    __slots__ = ()


contiguous_format = memory_format("contiguous_format")
legacy_contiguous_format = contiguous_format  # (torch's: the same object, by another name)
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


def check_memory_format(value, function, nullable=True):
    """``value`` when it is a memory format (or None, where ``nullable``: contiguous() and
    is_contiguous() refuse it), else torch's TypeError."""
    if (value is not None or not nullable) and not isinstance(value, memory_format):
        raise TypeError(f"{function}(): argument 'memory_format' must be torch.memory_format, "
                        f"not {messages.type_name(value)}")
    return value


# ---------------------------------------------------------------- dimension arguments
def wrap_dim(dim, ndim):
    """A dimension index made non-negative, with torch's IndexError when out of range.
    ``dim``: torch's ``int dim``, read as its parser reads one (a Python int, a numpy integer,
    a 0-d integer tensor), else its TypeError naming the argument."""
    if dim.__class__ is not int:
        dim = _int_dim(dim)
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if dim < low or dim > high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], "
                         f"but got {dim})")
    return dim + (ndim or 1) if dim < 0 else dim  # (0-d: -1 is dim 0, as torch's)


def _int_dim(dim):
    if signatures.is_int(dim):
        return dim.__index__()
    raise calls.argument_error(dim, "int")


def _listed_dim(dim):
    """A dim of a list of dims (or alone for one: ``int[1] dim``), as torch's parser reads it:
    an integer or bool tensor of one element too (a bool one is 1), a Python bool in a list."""
    if dim.__class__ is int:
        return dim
    read = signatures.list_element(dim)
    return _int_dim(dim) if read is None else read


def dims_tuple(dim, ndim):
    """``dim`` as a tuple of non-negative axes (None means every axis)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list)):
        axes = distinct_dims(dim, ndim)
        return axes if axes or ndim == 0 else tuple(range(ndim))
    return (wrap_dim(_listed_dim(dim) if signatures.is_symint(dim) else dim, ndim),)


def distinct_dims(dims, ndim):
    """``dims`` made non-negative, one after another as torch checks them: the first out of
    range, or the first named twice, is the error."""
    axes, seen = [], set()
    for d in dims:
        axis = wrap_dim(_listed_dim(d), ndim)
        position = axis if ndim else 0  # (a 0-d tensor's dims 0 and -1 are the same one)
        if position in seen:
            raise RuntimeError(f"dim {position} appears multiple times in the list of dims")
        axes.append(axis)
        seen.add(position)
    return tuple(axes)


def dim_index(dim, ndim):
    """``dim`` made non-negative for size(d) / stride(d), with torch's messages."""
    if ndim == 0:
        if dim.__class__ is not int:  # (torch's parser reads it first: its TypeError)
            dim = _int_dim(dim)
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, ndim)
