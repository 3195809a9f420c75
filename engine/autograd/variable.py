"""``torch.autograd.Variable``: what older tutorials wrap tensors in.

Before PyTorch 0.4 a tensor had to be wrapped in a Variable to take part in autograd; since
then every tensor can, and ``Variable(t, requires_grad=True)`` is kept for old code: it
returns ``t.detach()`` (the same memory, no history) with ``requires_grad`` set, a plain
Tensor, and every tensor counts as a Variable for ``isinstance``.
"""
import warnings

from ..core.tensor import Tensor
from ..fidelity.messages import type_name
from ..ops.creation import empty

_ARGUMENTS = ("data", "requires_grad", "volatile", "_grad_fn", "name")


class _Legacy(type):
    def __instancecheck__(cls, value):
        return isinstance(value, Tensor)


class Variable(metaclass=_Legacy):
    """``Variable(data, requires_grad=False)``: ``data.detach()``, requiring grad if asked."""

    def __new__(cls, *args, **kwargs):
        for name in kwargs:
            if name not in _ARGUMENTS:
                raise TypeError(f"'{name}' is an invalid keyword argument for this function")
        given = dict(zip(_ARGUMENTS, args), **kwargs)
        data = given.get("data")
        if data is None:
            data = empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type_name(data)}")
        if given.get("volatile"):
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", UserWarning, stacklevel=2)
        requires_grad = bool(given.get("requires_grad", False))
        if requires_grad and not data.is_floating_point():  # (not requires_grad_'s words)
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        return data.detach().requires_grad_(requires_grad)
