"""The nn functions torch also offers at its top level: ``torch.dropout``, ``torch.layer_norm``,
``torch.batch_norm``, ``torch.conv2d``, ``torch.kl_div`` ... (and ``x.prelu``, ``x.hardshrink``).

They are the operators ``torch.nn.functional`` calls once its Python checks have passed, so
they take torch's C++ signatures: every argument positional and often required
(``torch.dropout(input, p, train)``, ``torch.batch_norm(input, weight, bias, running_mean,
running_var, training, momentum, eps, cudnn_enabled)``), a loss's reduction an int (0 none,
1 mean, 2 sum; torch's Python binding cannot read the C++ default ``Reduction::Mean`` and
takes 0, so a loss called without it is not reduced), no ``inplace=`` (the ``_`` variants
instead). Each one here parses its call as torch does (its TypeErrors) and runs the engine's
``F.`` function, skipping what only ``F.`` checks in Python (a single value per channel for
batch_norm, a positive margin for triplet_margin_loss ...).
"""
import functools

from ..core.tensor import Tensor
from ..fidelity.calls import method_copy
from ..fidelity.signatures import Signature, refuse
from ..ops.common import overloads, takes_out
from ..ops.views import broadcast_shapes
from . import functional as F
from .functional_dropout import dropout_steps, rrelu_drawing_from
from .functional_loss_more import margin_ranking_kernel, triplet_margin_kernel
from .functional_norm import batch_norm_kernel
from .functional_norm_more import group_norm_kernel, instance_norm_kernel
from .functional_pool import (torch_adaptive_max_pool1d, torch_max_pool1d,
                              torch_max_pool1d_with_indices)

__all__ = ["adaptive_avg_pool1d", "adaptive_max_pool1d", "alpha_dropout", "alpha_dropout_",
           "avg_pool1d", "batch_norm", "bilinear", "binary_cross_entropy_with_logits", "celu",
           "celu_", "channel_shuffle",
           "conv1d", "conv2d", "cosine_embedding_loss", "cosine_similarity", "dropout", "dropout_",
           "embedding", "feature_alpha_dropout", "feature_alpha_dropout_", "feature_dropout",
           "feature_dropout_", "group_norm", "hardshrink", "hinge_embedding_loss", "instance_norm",
           "kl_div", "layer_norm", "margin_ranking_loss", "max_pool1d", "max_pool1d_with_indices",
           "max_pool2d", "max_pool3d", "pairwise_distance", "pdist", "pixel_shuffle",
           "pixel_unshuffle", "poisson_nll_loss", "prelu", "rms_norm", "rrelu", "rrelu_", "selu",
           "selu_",
           "threshold", "threshold_", "triplet_margin_loss"]

# torch.nn.functional's own objects in torch too (F.conv2d is torch.conv2d ...)
conv1d, conv2d, bilinear = F.conv1d, F.conv2d, F.bilinear
avg_pool1d, adaptive_avg_pool1d = F.avg_pool1d, F.adaptive_avg_pool1d
max_pool1d = torch_max_pool1d  # (F.max_pool1d is Python that calls it or the next one)
max_pool1d_with_indices = torch_max_pool1d_with_indices
adaptive_max_pool1d = torch_adaptive_max_pool1d
cosine_similarity, pairwise_distance = F.cosine_similarity, F.pairwise_distance
pdist = F.pdist
prelu = F.prelu
pixel_shuffle, pixel_unshuffle = F.pixel_shuffle, F.pixel_unshuffle
channel_shuffle = F.channel_shuffle
celu_, selu_, threshold_ = F.celu_, F.selu_, F.threshold_

_REDUCTIONS = {1: "mean", 2: "sum"}  # (ATen reduces no further for any other int)


def _parsed(printed):
    """The function, its calls checked against torch's one overload ``printed`` (written as
    fidelity/signatures.py reads it): a call torch's parser refuses raises torch's TypeError."""
    signature = Signature(printed, False)
    floats = [p.name for p in signature.params if p.kind == "float"]

    def checked(function):
        name = function.__name__

        @functools.wraps(function)
        def parsed(*args, **kwargs):
            if signature.parse(name, args, kwargs, False) is not True:
                raise refuse(name, (printed,), False, args, kwargs)
            read = signature.read_ints(name, args, kwargs)  # (its ints as Python ints)
            if read is not None:
                args, kwargs = read
            if any(isinstance(value, Tensor) for value in (*args[1:], *kwargs.values())):
                args, kwargs = _floats_read(floats, signature, args, kwargs)
            return function(*args, **kwargs)

        return parsed

    return checked


def _floats_read(floats, signature, args, kwargs):
    """A 0-d tensor given for a float (torch's parser takes one) read as its number."""
    def read(param_name, value):
        return value.item() if param_name in floats and isinstance(value, Tensor) else value

    args = [read(p.name, value) for p, value in zip(signature.params, args)]
    return args, {key: read(key, value) for key, value in kwargs.items()}


# ====================================================================== activations
@_parsed("(Tensor input, Number alpha = 1.0)")
def celu(input, alpha=1.0):
    """F.celu(input, alpha)"""
    return F.celu(input, alpha)


# (the method's errors count positions after self: ops.common.overloads tells them apart)
hardshrink = overloads("(Tensor input, Number lambd = 0.5, *, Tensor out = None)")(
    takes_out(F.hardshrink))


@_parsed("(Tensor input)")
def selu(input):
    """F.selu(input)"""
    return F.selu(input)


@_parsed("(Tensor input, Number threshold, Number value, *, Tensor out = None)")
@takes_out
def threshold(input, threshold, value):
    """F.threshold(input, threshold, value)"""
    return F.threshold(input, threshold, value)


_RRELU = ("(Tensor input, Number lower = 0.125, Number upper = 0.3333333333333333, "
          "bool training = False, torch.Generator? generator = None)")


@_parsed(_RRELU)
def rrelu(input, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    """F.rrelu, its slopes drawn from ``generator`` when given"""
    return rrelu_drawing_from(input, lower, upper, training, generator)


@_parsed(_RRELU)
def rrelu_(input, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    """F.rrelu_"""
    return F.rrelu_(input, lower, upper, training, generator)


# ====================================================================== dropout
def _dropout(name, feature, alpha, inplace):
    """torch.<name>(input, p, train): ATen's dropout, whose range check of p is a
    RuntimeError (F.dropout's, in Python, a ValueError) and comes before anything else."""
    def dropout_function(input, p, train):
        if not 0 <= p <= 1:
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
        return dropout_steps(input, p, train, inplace, feature, alpha)

    dropout_function.__name__ = dropout_function.__qualname__ = name
    dropout_function.__doc__ = f"torch.{name}(input, p, train)"
    return _parsed("(Tensor input, float p, bool train)")(dropout_function)


dropout = _dropout("dropout", False, False, False)
dropout_ = _dropout("dropout_", False, False, True)
feature_dropout = _dropout("feature_dropout", True, False, False)
feature_dropout_ = _dropout("feature_dropout_", True, False, True)
alpha_dropout = _dropout("alpha_dropout", False, True, False)
alpha_dropout_ = _dropout("alpha_dropout_", False, True, True)
feature_alpha_dropout = _dropout("feature_alpha_dropout", True, True, False)
feature_alpha_dropout_ = _dropout("feature_alpha_dropout_", True, True, True)


# ====================================================================== normalisation
@_parsed("(Tensor input, tuple of SymInts normalized_shape, Tensor? weight = None, "
         "Tensor? bias = None, float eps = 1e-05, bool cudnn_enable = True)")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """F.layer_norm (cudnn_enable changes nothing on the CPU)"""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


@_parsed("(Tensor input, tuple of SymInts normalized_shape, Tensor? weight = None, "
         "float? eps = None)")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """F.rms_norm"""
    return F.rms_norm(input, normalized_shape, weight, eps)


@_parsed("(Tensor input, int num_groups, Tensor? weight = None, Tensor? bias = None, "
         "float eps = 1e-05, bool cudnn_enabled = True)")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """F.group_norm without its Python check of one value per group"""
    return group_norm_kernel(input, num_groups, weight, bias, eps)


@_parsed("(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
         "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled)")
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """F.batch_norm (its arguments in ATen's order) without its Python checks of one value
    per channel and of eps"""
    return batch_norm_kernel(input, running_mean, running_var, weight, bias, training, momentum,
                             eps)


@_parsed("(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
         "Tensor? running_var, bool use_input_stats, float momentum, float eps, "
         "bool cudnn_enabled)")
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """F.instance_norm (its arguments in ATen's order) without its Python check of one
    position per channel"""
    return instance_norm_kernel(input, running_mean, running_var, weight, bias,
                                use_input_stats, momentum, eps)


# ====================================================================== lookup, pooling
@_parsed("(Tensor weight, Tensor indices, SymInt padding_idx = -1, "
         "bool scale_grad_by_freq = False, bool sparse = False)")
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """F.embedding(indices, weight, ...): a negative padding_idx is none (ATen's rows are
    counted from 0 only)"""
    return F.embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


_MAX_POOL = ("(Tensor input, tuple of ints[1] kernel_size, tuple of ints[1] stride = (), "
             "tuple of ints[1] padding = 0, tuple of ints[1] dilation = 1, "
             "bool ceil_mode = False)")


@_parsed(_MAX_POOL)
def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """F.max_pool2d (an empty stride is the kernel's)"""
    return F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


@_parsed(_MAX_POOL)
def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """F.max_pool3d (an empty stride is the kernel's)"""
    return F.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


# ====================================================================== losses
@_parsed("(Tensor input, Tensor target, int reduction = 1, *, bool log_target = False)")
def kl_div(input, target, reduction=0, log_target=False):
    """F.kl_div's kernel: 1 is the mean of every element, without F's warning"""
    return _reduced(F.kl_div(input, target, reduction="none", log_target=log_target),
                    reduction)


def _reduced(loss, reduction):
    """ATen's apply_loss_reduction"""
    return loss.mean() if reduction == 1 else loss.sum() if reduction == 2 else loss


@_parsed("(Tensor input, Tensor target, Tensor? weight = None, Tensor? pos_weight = None, "
         "int reduction = 1)")
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """F.binary_cross_entropy_with_logits; an input that broadcasts to target's shape is
    taken (ATen's first step writes into a tensor of target's shape: no other shape). Its
    gradient is then summed back to its shape, where torch's backward refuses it."""
    if input.shape != target.shape:
        shape = broadcast_shapes(input.shape, target.shape)
        if shape != target.shape:
            raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the "
                               f"broadcast shape {list(shape)}")
        input = input.expand(shape)
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_REDUCTIONS.get(reduction, "none"),
                                              pos_weight=pos_weight)


@_parsed("(Tensor input, Tensor target, float margin = 1.0, int reduction = 1)")
def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """F.hinge_embedding_loss"""
    return _reduced(F.hinge_embedding_loss(input, target, margin, reduction="none"), reduction)


@_parsed("(Tensor input1, Tensor input2, Tensor target, float margin = 0.0, int reduction = 1)")
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """F.margin_ranking_loss without its Python check of the dimensions (they broadcast)"""
    return margin_ranking_kernel(input1, input2, target, margin,
                                 _REDUCTIONS.get(reduction, "none"))


@_parsed("(Tensor input1, Tensor input2, Tensor target, float margin = 0.0, int reduction = 1)")
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """F.cosine_embedding_loss"""
    return _reduced(F.cosine_embedding_loss(input1, input2, target, margin, reduction="none"),
                    reduction)


@_parsed("(Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction)")
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """F.poisson_nll_loss"""
    return _reduced(F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                                       reduction="none"), reduction)


@_parsed("(Tensor anchor, Tensor positive, Tensor negative, float margin = 1.0, float p = 2.0, "
         "float eps = 1e-06, bool swap = False, int reduction = 1)")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False,
                        reduction=0):
    """F.triplet_margin_loss without its Python check of a positive margin"""
    return triplet_margin_kernel(anchor, positive, negative, margin, p, eps, swap,
                                 _REDUCTIONS.get(reduction, "none"))


# x.prelu(weight), x.hardshrink(lambd): the methods torch has among these
Tensor.prelu = method_copy(F.prelu)
Tensor.hardshrink = method_copy(hardshrink.without_out)
