"""Dropout of whole channels (dropout1d/2d/3d), alpha dropout and rrelu (a leaky ReLU of
random slopes), as torch's steps.

torch builds each from tensor operations (aten/src/ATen/native/Dropout.cpp): a noise tensor
filled by ``bernoulli_(1 - p)``, scaled, multiplied in. Taking the same steps draws the same
random numbers, so the same seed drops the same channels as torch, bit for bit.
"""
import math

import numpy as np

from ..core.grad_mode import is_grad_enabled, no_grad
from ..core.node import Node, record
from ..core.tensor import wrap
from ..fidelity import messages, signatures
from ..fidelity import random as rng
from ..fidelity.dtypes import scalar_type_name
from ..ops.arithmetic import where
from ..ops.common import laid_out_as_kernel, number_parameters
from ..ops.creation import empty_like, zeros, zeros_like
from ..ops.inplace import write_inplace
from .functional_activation import leaky_relu

_SELU_ALPHA = 1.7580993408473766  # -SELU's saturation value: alpha * scale


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _operator_arguments(name, p, training, inplace):
    """p and training as torch's C++ dropout operators (``name``, or ``name_`` in place) take
    them from its Python functions: a float (a 0-d tensor that needs no grad, read as its
    value) and a bool, else the parser's TypeError."""
    name += "_" if inplace else ""
    if not signatures.fits(p, "float"):
        raise TypeError(f"{name}(): argument 'p' (position 2) must be float, not "
                        f"{messages.type_name(p)}")
    if not signatures.fits(training, "bool"):
        raise TypeError(f"{name}(): argument 'train' (position 3) must be bool, not "
                        f"{messages.type_name(training)}")
    return float(p)


def dropout_steps(input, p, training, inplace, feature, alpha):
    """torch's _dropout_impl: noise per element (per channel for ``feature``: shape (N, C, 1,
    ...)), kept with probability 1 - p and scaled so the expected value is unchanged; alpha
    dropout sets dropped values to SELU's saturation and rescales to keep mean and variance."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(zeros((), dtype=input.dtype)) if inplace else \
            input * zeros((), dtype=input.dtype)
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        noise = input.new_empty(tuple(input.shape[:2]) + (1,) * (input.dim() - 2))
    else:
        noise = empty_like(input)
    noise.bernoulli_(1 - p)
    if not alpha:
        noise.div_(1 - p)
        return input.mul_(noise) if inplace else input * noise
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    shift = noise.add(-1).mul_(_SELU_ALPHA * a).add_(_SELU_ALPHA * a * p)
    noise.mul_(a)
    return (input.mul_(noise) if inplace else input * noise).add_(shift)


def _unbatched(function, input, batched, inplace):
    """``function`` on ``input`` with a batch dimension of one added (and removed after)
    when it has none, in place when ``inplace``, as torch's dropout1d and dropout3d."""
    if batched:
        return function(input)
    input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = function(input)
    return result.squeeze_(0) if inplace else result.squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels (input[n, c, :]) with probability p, scale the rest by 1 / (1 - p)."""
    _check_p(p)
    ndim = input.dim()
    if ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    p = _operator_arguments("feature_dropout", p, training, inplace)
    return _unbatched(lambda x: dropout_steps(x, p, training, inplace, True, False), input,
                      ndim == 3, inplace)


def _deprecated_dims(name, ndim, spatial, expected):
    messages.warn_from_learner(
        f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in "
        "an error in a future release. To retain the behavior and silence this warning, please "
        f"use dropout instead. Note that {name} exists to provide channel-wise dropout on "
        f"inputs with {spatial} spatial dimensions, a channel dimension, and an optional batch "
        f"dimension (i.e. {expected} inputs).")


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels (input[n, c, :, :]) with probability p, scale the rest by
    1 / (1 - p). A 3-d input is read as (N, C, L), as torch still does (with a warning)."""
    _check_p(p)
    ndim = input.dim()
    if ndim not in (3, 4):
        _deprecated_dims("dropout2d", ndim, 2, "3D or 4D")
    if ndim == 3:
        messages.warn_from_learner(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.")
    p = _operator_arguments("feature_dropout", p, training, inplace)
    return dropout_steps(input, p, training, inplace, True, False)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels (input[n, c, :, :, :]) with probability p, scale the rest by
    1 / (1 - p)."""
    _check_p(p)
    ndim = input.dim()
    if ndim not in (4, 5):
        _deprecated_dims("dropout3d", ndim, 3, "4D or 5D")
    p = _operator_arguments("feature_dropout", p, training, inplace)
    return _unbatched(lambda x: dropout_steps(x, p, training, inplace, True, False), input,
                      ndim == 5, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped elements take SELU's saturation value, and an
    affine map keeps the mean and variance (off unless ``training``, as in torch)."""
    _check_p(p)
    p = _operator_arguments("alpha_dropout", p, training, inplace)
    return dropout_steps(input, p, training, inplace, False, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (input[n, c, ...])."""
    _check_p(p)
    p = _operator_arguments("feature_alpha_dropout", p, training, inplace)
    return dropout_steps(input, p, training, inplace, True, True)


def dropout(input, p=0.5, training=True, inplace=False):
    """out = input * mask / (1 - p), each mask element 0 with probability p (training only)"""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    p = _operator_arguments("dropout", p, training, inplace)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        noise = zeros((), dtype=input.dtype)
    else:
        # torch's steps, so the same seed drops the same elements: bernoulli_ with the
        # probability of keeping, then scale the kept ones so the expected sum is unchanged
        noise = empty_like(input)
        noise.bernoulli_(1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


# ====================================================================== rrelu
@number_parameters("rrelu", {"lower": "Number", "upper": "Number"}, always_positional=True)
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: out = x where x > 0, else a * x with a uniform in [lower, upper)
    drawn for each such element when training (torch's generator, element by element), and
    (lower + upper) / 2 otherwise"""
    return _rrelu(input, lower, upper, training, inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """rrelu, written into input"""
    return _rrelu(input, lower, upper, training, True, generator)


def rrelu_drawing_from(input, lower, upper, training, generator):
    """torch.rrelu(..., generator=g): rrelu drawing its slopes from ``generator``"""
    return _rrelu(input, lower, upper, training, False, generator)


def _rrelu(input, lower, upper, training, inplace, generator=None):
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    x = input._data
    with no_grad():
        if training:
            if x.dtype not in (np.float32, np.float64):
                raise NotImplementedError("\"rrelu_with_noise_out_cpu\" not implemented for "
                                          f"'{scalar_type_name[input.dtype]}'")
            flat = np.ascontiguousarray(x).reshape(-1)
            negative = flat <= 0
            noise = np.ones(flat.shape, x.dtype)
            # one double per element <= 0, in order: u (lower - upper) + lower rounded twice
            # (torch's uniform_real_distribution; no fused multiply-add, unlike uniform_'s)
            # (the bounds first rounded to the input's dtype, as torch's opmath_t)
            low, high = float(x.dtype.type(lower)), float(x.dtype.type(upper))
            u = rng.uniform(int(negative.sum()), np.float64, generator=generator)
            noise[negative] = u * (high - low) + low
            noise = noise.reshape(x.shape)
            out = wrap(np.asarray(np.where(negative.reshape(x.shape), x * noise, x), order="C"))
        else:
            noise = np.empty(x.shape, x.dtype)  # (torch leaves it unwritten)
            # (row-major, as torch's rrelu writes it)
            out = leaky_relu(input, (lower + upper) / 2).contiguous()
    state = {"lower": lower, "upper": upper, "training": training}
    if inplace:
        return write_inplace(input, record(RreluWithNoiseBackward1, out, (input,),
                                           saved=(wrap(noise),), saved_output=True, **state))
    return record(RreluWithNoiseBackward0, out, (input,), saved=(input, wrap(noise)), **state)


def _rrelu_backward(grad, x, noise, node):
    """torch's rrelu_with_noise_backward: grad * noise when training, else leaky_relu's
    gradient with the middle slope; under create_graph recorded as torch records it, one
    node linked to grad and x (d/dx = 0)."""
    if not is_grad_enabled():
        return _rrelu_gradient(grad, x, noise, node)
    with no_grad():
        out = _rrelu_gradient(grad, x, noise, node)
    return record(RreluWithNoiseBackwardBackward0, out, (grad, x), saved=(x, noise),
                  lower=node.lower, upper=node.upper, training=node.training)


def _rrelu_gradient(grad, x, noise, node):
    if node.training:
        return grad * noise
    # (leaky_relu_backward's kernel: x first)
    return laid_out_as_kernel(where(x > 0, grad, grad * ((node.lower + node.upper) / 2)), x, grad)


class RreluWithNoiseBackward0(Node):
    """out = x * noise (noise 1 above 0):  d/dx = grad * noise"""

    _saved_names = ("self", "noise")
    lower: float
    upper: float
    training: bool

    def backward(self, grad):
        x, noise = self.saved_tensors
        return _rrelu_backward(grad, x, noise, self)


class RreluWithNoiseBackwardBackward0(RreluWithNoiseBackward0):
    """out = rrelu's gradient (recorded under create_graph):  d/dgrad = the same slopes,
    d/dx = 0"""

    def backward(self, grad):
        x, noise = self.saved_tensors
        return _rrelu_backward(grad, x, noise, self), zeros_like(grad)


class RreluWithNoiseBackward1(RreluWithNoiseBackward0):
    """rrelu_ (in place): the same gradient, the sign read from the result"""

    _saved_names = ("noise", "result")

    def backward(self, grad):
        noise, result = self.saved_tensors
        return _rrelu_backward(grad, result, noise, self)
