"""Gradient clipping: keep one step of training from being too large.

``clip_grad_norm_`` scales all the gradients down together, so that their norm (all of them
seen as one long vector) is at most ``max_norm``; ``clip_grad_value_`` clamps every gradient
element into ``[-clip_value, clip_value]``. Both change ``.grad`` in place, after
``backward()`` and before ``optimizer.step()``.
"""
import functools
import types
import warnings

from ...core.grad_mode import no_grad
from ...core.tensor import Tensor
from ...ops.creation import tensor
from ...ops.join import stack
from ...ops.linalg import norm


def _no_grad(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with no_grad():
            return function(*args, **kwargs)
    return wrapper


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of all ``tensors`` together: the norm of their norms."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    total_norm = norm(stack([norm(t, norm_type) for t in tensors]), norm_type)
    if error_if_nonfinite and (total_norm.isnan() | total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """grad *= min(max_norm / (total_norm + 1e-6), 1), for every parameter's grad."""
    parameters = [parameters] if isinstance(parameters, Tensor) else parameters
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = clip_coef.clamp(max=1.0)  # only ever scaled down
    for grad in grads:
        grad.mul_(clip_coef_clamped)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the parameters' gradients so that their total norm is at most ``max_norm``;
    returns their total norm before clipping. (``foreach`` changes nothing here.)"""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The old name of clip_grad_norm_ (deprecated)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element into [-clip_value, clip_value], in place."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    for grad in [p.grad for p in parameters if p.grad is not None]:
        grad.clamp_(min=-clip_value, max=clip_value)
