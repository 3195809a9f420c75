"""``torch.autograd.forward_ad``: dual tensors, a value and its tangent, for forward-mode AD.

Inside ``with dual_level():``, ``make_dual(x, t)`` gives a tensor whose every result carries
the Jacobian-vector product along ``t``, read back with ``unpack_dual(y).tangent``. The
machinery is in engine/core/forward.py (how each operation finds its results' tangents);
this module is torch's API and its errors. One level at a time, as torch's (a second
``dual_level`` raises); ``torch.func.jvp`` inside ``jvp`` nests levels of its own.
"""
import functools
import warnings
from typing import NamedTuple

from ..core import forward
from ..core.node import Node, record
from ..core.tensor import Tensor, make_view
from ..fidelity import messages

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]


def enter_dual_level():
    """Open a forward-mode level, 0 (a second one raises torch's "Nested forward mode AD"
    error); returns its number."""
    return forward.enter_level()


def exit_dual_level(*, level=None):
    """Close the level: every tangent made inside it is gone."""
    forward.exit_level(forward.state.level if level is None else level)


def public_level():
    """torch's one level, 0 (-1: none open). A ``torch.func.jvp`` inside ``jvp`` works at a
    level of its own inside it (engine/core/forward.py), still level 0 to these functions:
    they read and make tangents at the innermost level, as torch's inside its transforms."""
    return min(forward.state.level, 0)


class FirstUse:
    """torch's first make_dual in a process loads its forward-mode decompositions, which
    warns (FutureWarning, from torch.jit.script): the engine says the same, once."""

    warned = False


JIT_SCRIPT_DEPRECATED = ("`torch.jit.script` is deprecated. Please switch to `torch.compile` "
                         "or `torch.export`.")


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` (same memory) that carries ``tangent``: as it is when laid out as
    ``tensor``, else a copy laid out so."""
    if not FirstUse.warned:
        FirstUse.warned = True
        warnings.warn(JIT_SCRIPT_DEPRECATED, FutureWarning, stacklevel=2)
    current = public_level()
    if level is None:
        level = current
    if level < 0:
        raise RuntimeError(messages.FORWARD_NO_LEVEL)
    for name, value in (("primal", tensor), ("tangent", tangent)):
        if not value.is_floating_point():
            raise ValueError(f"Expected {name} to be floating point or complex, but got: "
                             f"{value.dtype}")
    if level != 0:
        raise RuntimeError("Invalid level given to _make_dual")
    if current < 0:
        raise RuntimeError("Trying to access a forward AD level with an invalid index. This "
                           "index was either not created or is already deleted.")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}.")
    if forward.tangent_of(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    dual = tensor.view(tensor.shape)  # (a view: ViewBackward0 when tensor requires grad)
    forward.set_tangent(dual, tangent)
    return dual


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the primal (a view) and the tangent (or None)."""

    primal: Tensor
    tangent: Tensor | None


class Identity(Node):
    """The primal's node, torch's C++ ``Identity``: the gradient passes back unchanged."""

    def name(self):
        return "torch::autograd::Identity"

    def __repr__(self):
        return f"<CppFunction object at {hex(id(self))}>"  # (torch's Python shows a C++ node so)

    def backward(self, grad):
        return grad


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: a view of ``tensor`` without tangent, and its tangent as it is."""
    if level is None:
        level = public_level()
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Tensor):
        raise TypeError("_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                        f"{messages.type_name(tensor)}")
    tangent = forward.tangent_of(tensor)
    if tangent is not None and level != 0:  # (torch asks only then)
        raise RuntimeError("Invalid level given to _fw_primal")
    primal = make_view(tensor, tensor._data.shape, tensor.stride(), tensor.storage_offset())
    primal = record(Identity, primal, (tensor,))
    forward.set_tangent(primal, None)  # none at this level (not even its base's)
    return UnpackedDualTensor(primal, tangent)


class dual_level:  # noqa: N801 (torch's name)
    """``with dual_level():`` opens a level for the block, and closes it after; as a
    decorator (``@dual_level()``), for every call of the function."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc_info):
        exit_dual_level()
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def inside_a_level(*args, **kwargs):
            with dual_level():
                return function(*args, **kwargs)
        return inside_a_level
