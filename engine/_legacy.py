"""PyTorch's old-style constructors: ``torch.Tensor(2, 3)``, ``torch.FloatTensor([1, 2])``.

Old tutorials (and the articles this course grew from) use them. Modern code
writes ``torch.tensor(data, dtype=...)`` or ``torch.empty(sizes, dtype=...)``.
"""
import numpy as np

from . import _dtype


def construct(dtype, args, device=None):
    """What ``torch.<Type>Tensor(*args)`` builds: from sizes (uninitialised) or from data."""
    from ._creation import empty, tensor
    from ._size import check_device
    from ._tensor import Tensor

    check_device(device)
    if not args:
        return empty(0, dtype=dtype)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].dtype is not dtype:
            raise TypeError(f"expected {dtype!r} (got {args[0].dtype!r})")
        return args[0]
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        return empty(*args, dtype=dtype)
    if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)):
        if isinstance(args[0], tuple) and type(args[0]).__name__ == "Size":
            return empty(*args[0], dtype=dtype)
        return tensor(args[0], dtype=dtype)
    if len(args) == 1 and isinstance(args[0], str):
        raise TypeError(f"new(): invalid data type '{type(args[0]).__name__}'")
    raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")


class LegacyTensorType:
    """``torch.FloatTensor`` and friends: call it to construct, or use it in isinstance."""

    def __init__(self, name, dtype):
        self.__name__ = name
        self.dtype = dtype

    def __call__(self, *args, device=None):
        return construct(self.dtype, args, device)

    def __instancecheck__(self, obj):
        return getattr(obj, "dtype", None) is self.dtype and hasattr(obj, "_data")

    def __repr__(self):
        return f"<class 'torch.{self.__name__}'>"


TYPES = {f"{name}Tensor": LegacyTensorType(f"{name}Tensor", dtype)
         for dtype, name in _dtype.scalar_type_name.items()}
