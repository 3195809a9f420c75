"""A custom ``autograd.Function`` under forward-mode AD: its own ``jvp`` gives the tangents.

torch runs a Function's ``forward`` on the primals only (the operations inside it compute no
tangents: a straight-through estimator's jvp is not the derivative of its forward), then
calls the Function's ``jvp(ctx, *input_tangents)`` once its outputs have their ``grad_fn``:
a tensor input without a tangent gets zeros, any other argument None; one tangent comes back
per output. These are torch's checks of what comes back (torch/csrc/autograd/
custom_function.cpp), in its words.
"""
import contextlib

from ..core import forward
from ..core.tensor import Tensor
from ..ops.creation import zeros_like

JVP_MISSING = ("You must implement the jvp function for custom autograd.Function to use it "
               "with forward mode AD.")
NOT_A_VIEW = ("A custom Function's forward is returning a view (or an input as-is) but the "
              "jvp is not returning a view.")
NOT_A_VIEW_OF_INPUT = ("A custom Function is returning a view but the jvp is not returning a "
                       "view of the given grad input.")
NOT_IN_PLACE = ("An inplace custom Function is not modifying the forward mode gradients "
                "inplace. If the forward is modifying an input inplace, then the jvp function "
                "must modify the corresponding gradient inplace.")
# (torch's own assertion, what a jvp returning None for a differentiable output meets)
NONE_FOR_DIFFERENTIABLE = (
    "(new_grad_base.is_floating_point() || new_grad_base.is_complex()) && "
    "(self_base.is_floating_point() || self_base.is_complex()) INTERNAL ASSERT FAILED at "
    "\"/__w/pytorch/pytorch/torch/csrc/autograd/autograd_meta.cpp\":156, please report a bug "
    "to PyTorch. Expected both tensor and its forward grad to be floating point or complex")

VIEW_LAID_OUT_OTHERWISE = (
    "!this_view_meta->has_fw_view() INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/torch/"
    "csrc/autograd/autograd_meta.cpp\":256, please report a bug to PyTorch. Expected the "
    "output of forward differentiable view operations to have the tangent have the same "
    "layout as primal")


@contextlib.contextmanager
def primals_only():
    """Operations inside see no tangent at any level (a Function's forward)."""
    depth = forward.state.depth
    forward.state.see(0)
    try:
        yield
    finally:
        forward.state.see(depth)


def give_tangents(function, ctx, args, outputs, dirty):
    """The outputs' tangents at every open level, from ``function.jvp``."""
    if forward.state.depth:
        forward.each_level(lambda: _at_level(function, ctx, args, outputs, dirty))


def _at_level(function, ctx, args, outputs, dirty):
    tangents = [forward.tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return
    given = [t for t in tangents if t is not None]
    tangents = [zeros_like(a) if t is None and isinstance(a, Tensor) else t
                for a, t in zip(args, tangents)]
    found = function.jvp(ctx, *tangents)
    found = found if isinstance(found, tuple) else (found,)
    if len(found) != len(outputs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(outputs)} but got {len(found)})")
    for position, (out, tangent) in enumerate(zip(outputs, found)):
        _check(position, out, tangent, ctx, given, dirty)
        if tangent is not None and not any(out is t for t in dirty):  # (in place: already)
            forward.set_tangent(out, tangent)


def _check(position, out, tangent, ctx, given, dirty):
    """torch's checks of one tangent the jvp returned, in its order."""
    if tangent is not None and not isinstance(tangent, Tensor):
        raise RuntimeError(f"expected Variable or None (got {type(tangent).__name__}) for "
                           f"grad output {position}.")
    differentiable = isinstance(out, Tensor) and out.is_floating_point() and not any(
        out is t for t in ctx._non_differentiable)
    if tangent is None:
        if differentiable:
            raise RuntimeError(NONE_FOR_DIFFERENTIABLE)
        return
    if not differentiable:
        raise RuntimeError(f"Function's jvp returned a gradient at position {position}, but  "
                           "the corresponding forward output is not a differentiable Tensor."
                           "You should return None at that position instead.")
    if any(out is t for t in dirty):
        if not any(tangent is t for t in given):
            raise RuntimeError(NOT_IN_PLACE)
    elif out._base is not None:
        if tangent._base is None:
            raise RuntimeError(NOT_A_VIEW)
        if not any(tangent._base is (t if t._base is None else t._base) for t in given):
            raise RuntimeError(NOT_A_VIEW_OF_INPUT)
        if (tangent.stride(), tangent.storage_offset()) != (out.stride(), out.storage_offset()):
            raise RuntimeError(VIEW_LAID_OUT_OTHERWISE)
    if tangent.shape != out.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(out.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}.")
