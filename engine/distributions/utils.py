"""Helpers the distributions share: parameters broadcast together, probabilities <-> logits,
and ``lazy_property`` (probs computed from logits, or the other way, on first use)."""
import functools

from ..fidelity.dtypes import finfo, get_default_dtype
from ..core.grad_mode import enable_grad
from ..core.tensor import Tensor
from ..ops.creation import tensor
from ..ops.views import broadcast_tensors
from ..nn.functional import softmax

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs",
           "probs_to_logits"]

PYTHON_NUMBERS = (int, float, bool)  # torch.types._Number


def broadcast_all(*values):
    """Tensors and numbers broadcast to one shape; a number becomes a tensor of the first
    tensor's dtype (or of the default dtype, when all are numbers)."""
    if not all(isinstance(v, (Tensor, *PYTHON_NUMBERS)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                         "objects implementing __torch_function__.")
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), get_default_dtype())
    return broadcast_tensors(*(v if isinstance(v, Tensor) else tensor(v, dtype=dtype)
                               for v in values))


def logits_to_probs(logits, is_binary=False):
    """sigmoid(logits) for one event's log-odds; softmax over the last dimension otherwise."""
    if is_binary:
        return logits.sigmoid()
    return softmax(logits, dim=-1)


def clamp_probs(probs):
    """probs kept inside (0, 1): clamped to [eps, 1 - eps] of their dtype."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """log(p) - log(1 - p) for one event; log(p) for a vector of probabilities."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ps_clamped.log() - (-ps_clamped).log1p()
    return ps_clamped.log()


class lazy_property:
    """A value computed on first access (with gradients recorded) and then stored on the
    instance, which hides this descriptor from then on."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
