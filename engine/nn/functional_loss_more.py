"""More losses, as ``torch.nn.functional`` computes them: kl_div, margin_ranking_loss,
hinge_embedding_loss, soft_margin_loss, multilabel_soft_margin_loss, cosine_embedding_loss,
poisson_nll_loss, gaussian_nll_loss, triplet_margin_loss, triplet_margin_with_distance_loss,
multi_margin_loss and multilabel_margin_loss.

Most are compositions in torch (in its Python or its C++), and here the same compositions
of engine operations, so a loss's graph has torch's nodes in torch's order (a C++ ``x +
margin`` is AddBackward1, a Python one AddBackward0; ``add_scalar`` and friends tell them
apart). soft_margin_loss, multi_margin_loss and multilabel_margin_loss have nodes of their
own, as in torch.
Elementwise parts are torch's bits; the sums and means add in numpy's order.
"""
import math
import warnings

import numpy as np

from ..core.grad_mode import mode as grad_mode
from ..core.grad_mode import is_grad_enabled, no_grad
from ..core.node import Node, record
from ..core.tensor import wrap
from ..fidelity import messages
from ..fidelity.dtypes import can_cast, float32, promote_types, scalar_type_name
from ..fidelity.messages import type_name
from ..ops import arithmetic
from ..ops.arithmetic import NotImplementedBackward, add_scalar, where
from ..ops.creation import full_like, ones_like, zeros_like
from .functional_activation_more import logsigmoid
from .functional_distance import pairwise_distance

_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction, size_average, reduce, stacklevel=4):
    """torch's _Reduction: the deprecated size_average/reduce pair (with its warning) wins
    over ``reduction``; an unknown name is a ValueError."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = ("mean" if size_average else "sum") if reduce else "none"
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      f"reduction='{reduction}' instead.", stacklevel=stacklevel)
        return reduction
    return checked_reduction(reduction, stacklevel)


def checked_reduction(reduction, stacklevel=4):
    """torch's _Reduction.get_enum: "none", "mean", "sum", or the deprecated
    "elementwise_mean" (mean, with its warning); anything else its ValueError."""
    if isinstance(reduction, str) and reduction in _REDUCTION_ENUM:
        return reduction
    if isinstance(reduction, str) and reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=stacklevel)
        return "mean"
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _apply_reduction(loss, reduction):
    """ATen's apply_loss_reduction: mean(), sum() or the losses themselves"""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _scalar_minus(number, tensor):
    """C++'s ``number - tensor``: a tensor filled with number, minus tensor in place
    (SubBackward0, as torch records it)"""
    return full_like(tensor, number).sub_(tensor)


# ====================================================================== kl_div
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """loss = target * (log(target) - input) (log_target: exp(target) * (target - input)),
    0 where target is 0; 'batchmean' divides the sum by the batch size"""
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
        kernel_reduction = reduction
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        kernel_reduction = "sum" if reduction == "batchmean" else _reduction(reduction, None,
                                                                            None)
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")  # (after the warning)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = xlogy(target, target) - target * input
    reduced = _apply_reduction(loss, kernel_reduction)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def xlogy(input, other):
    """out = input * log(other), 0 where input is 0 (nan where other is nan)"""
    x, y = input._data, other._data
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(np.isnan(y), y, np.where(x == 0, x.dtype.type(0), x * np.log(y)))
    out = wrap(np.asarray(values.astype(np.result_type(x, y), copy=False)))
    return record(XlogyBackward0, out, (input, other), saved=(input, other))


class XlogyBackward0(Node):
    """out = x log(y):  d/dx = log(y) where x != 0 (else 0), d/dy = x / y"""

    _saved_names = ("self", "other")

    def backward(self, grad):
        x, y = self.saved_tensors
        return grad * xlogy((x != 0).to(y.dtype), y), grad * x / y


# ====================================================================== margin losses
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """loss = max(0, -target * (input1 - input2) + margin)"""
    reduction = _reduction(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()}, input2: {input2.size()}, "
                           f"target: {target.size()} ")
    return margin_ranking_kernel(input1, input2, target, margin, reduction)


def margin_ranking_kernel(input1, input2, target, margin, reduction):
    """ATen's margin_ranking_loss (torch.margin_ranking_loss: any shapes that broadcast)"""
    # (margin: torch's C++ double, so an integer loss becomes the default float)
    loss = add_scalar(-target * (input1 - input2), float(margin)).clamp_min_(0)
    return _apply_reduction(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """loss = input where target is 1, max(0, margin - input) where it is -1"""
    reduction = _reduction(reduction, size_average, reduce)
    zeros = zeros_like(input)
    below_margin = _scalar_minus(margin, input).clamp_min_(0)
    loss = where(target != 1, below_margin, zeros) + where(target != -1, input, zeros)
    return _apply_reduction(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """loss = log(1 + exp(-target * input))"""
    reduction = _reduction(reduction, size_average, reduce)
    if target.requires_grad and grad_mode.recording:
        raise RuntimeError(messages.not_differentiable("soft_margin_loss", "target"))
    with no_grad():
        # torch's kernel: -input written into a tensor of input's dtype, times target, exp,
        # log1p, each in place (a result of version 0 here: out of place after the first)
        negated = -input
        for wider in (promote_types(input.dtype, target.dtype),  # (mul_, then exp_)
                      promote_types(input.dtype, float32)):
            if not can_cast(wider, input.dtype):
                raise RuntimeError(f"result type {scalar_type_name[wider]} can't be cast to the "
                                   f"desired output type {scalar_type_name[input.dtype]}")
        loss = arithmetic.mul(negated, target).to(input.dtype).exp().log1p()
        loss = _apply_reduction(loss, reduction)
    # (torch's node has one input: target has no derivative, and refuses requires_grad)
    return record(SoftMarginLossBackward0, loss, (input,), saved=(input, target),
                  reduction=_REDUCTION_ENUM[reduction])


class SoftMarginLossBackward0(Node):
    """loss = log(1 + exp(-y x)):  d/dx = -y z / (1 + z) * grad (/ n for the mean),
    z = exp(-y x)"""

    _saved_names = ("self", "target")
    reduction: int

    def backward(self, grad):
        x, y = self.saved_tensors
        scale = 1 / x.numel() if self.reduction == _REDUCTION_ENUM["mean"] else 1.0
        z = (-y * x).exp()
        return arithmetic.mul_scalar(y * z, -scale) / (z + 1) * grad


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """loss = mean over classes of -(target log sigmoid(x) + (1 - target) log sigmoid(-x))"""
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


_EPSILON = float(np.float32(1e-12))  # ATen's EPSILON, a C++ float


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """loss = 1 - cos(input1, input2) where target is 1, max(0, cos - margin) where -1"""
    reduction = _reduction(reduction, size_average, reduce)
    dims = target.dim()
    if dims not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dims == 1 and input1.dim() != 2:
        raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if dims == 0 and input1.dim() != 1:
        raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    products = (input1 * input2).sum(dims)
    square1 = add_scalar((input1 * input1).sum(dims), _EPSILON)
    square2 = add_scalar((input2 * input2).sum(dims), _EPSILON)
    cos = products / (square1 * square2).sqrt_()
    zeros = zeros_like(cos)
    positive = _scalar_minus(1, cos)
    negative = _sub_scalar(cos, margin).clamp_min_(0)
    loss = where(target == 1, positive, zeros) + where(target == -1, negative, zeros)
    return _apply_reduction(loss, reduction)


def _sub_scalar(input, number):
    """C++'s ``tensor - number`` (sub with a Scalar): recorded as SubBackward1"""
    with no_grad():
        result = input - number
    return record(SubBackward1, result, (input,))


class SubBackward1(Node):
    """out = x - number:  d/dx = grad"""

    def backward(self, grad):
        return grad


# ====================================================================== likelihoods
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """loss = exp(input) - target * input (log_input=False: input - target log(input + eps));
    full: plus Stirling's target log(target) - target + log(2 pi target) / 2 where target > 1"""
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    if reduction != "none" and reduction != "mean" and reduction != "sum":  # (torch's test)
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        # (torch's C++ evaluates target * input first: its gradient's node runs after exp's,
        # whose gradient comes first into the sum, laid out as it is)
        product = target * input
        loss = input.exp() - product
    else:
        loss = input - target * add_scalar(input, eps).log()
    if full:
        # (right to left, as torch's C++ evaluates it)
        half_log = arithmetic.mul_scalar(arithmetic.mul_scalar(target, 2 * math.pi).log(), 0.5)
        stirling = target * target.log() - target + half_log
        loss += stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """loss = (log(var) + (input - target) ** 2 / var) / 2 (full: + log(2 pi) / 2), var at
    least eps"""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif (var < 0).any():
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim() and sum(
                b for a, b in zip(input.size(), var.size()) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTION_ENUM:
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, reduction)


# ====================================================================== embeddings
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """loss = max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm
    distance (swap: the nearer of d(anchor, negative) and d(positive, negative))"""
    reduction = _reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return triplet_margin_kernel(anchor, positive, negative, margin, p, eps, swap, reduction)


def triplet_margin_kernel(anchor, positive, negative, margin, p, eps, swap, reduction):
    """ATen's triplet_margin_loss (torch.triplet_margin_loss: any margin)"""
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {dims[0]}D, "
                           f"positive {dims[1]}D, and negative {dims[2]}D inputs")
    to_positive = pairwise_distance(anchor, positive, p, eps)
    to_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:
        to_negative = to_negative.minimum(pairwise_distance(positive, negative, p, eps))
    loss = (add_scalar(to_positive, margin) - to_negative).clamp_min(0)
    return _apply_reduction(loss, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """loss = max(0, margin + d(anchor, positive) - d(anchor, negative)), d the given distance
    function (None: pairwise_distance; swap: the nearer of d(anchor, negative) and
    d(positive, negative)); composed as torch composes it in Python"""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {a_dim}D, "
                           f"positive {p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_swap = distance_function(positive, negative)
        dist_neg = arithmetic.minimum(dist_neg, dist_swap)
    loss = arithmetic.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """loss = sum over classes c != y of max(0, margin - x[y] + x[c]) ** p (times weight[y]),
    divided by the number of classes"""
    reduction = _reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x = input._data
    samples, classes = _margin_shape(input, target, weight)
    scores = x.reshape(samples, classes)
    t = target._data.reshape(-1).astype(np.int64)
    if t.size and (t.min() < 0 or t.max() >= classes):
        raise RuntimeError("target out of range")
    rows = np.arange(samples)
    with np.errstate(invalid="ignore", over="ignore"):
        z = scores.dtype.type(margin) - scores[rows, t][:, None] + scores
        h = np.where(z > 0, z if p == 1 else z * z, scores.dtype.type(0))
        if weight is not None:
            h = h * weight._data[t][:, None]
        h[rows, t] = 0
        per_sample = (h.sum(axis=1, dtype=scores.dtype) / scores.dtype.type(classes))
    if reduction == "none":
        values = per_sample.reshape(target._data.shape)
    elif reduction == "sum":
        values = per_sample.sum(dtype=scores.dtype)
    else:
        values = per_sample.sum(dtype=scores.dtype) / scores.dtype.type(samples) if samples \
            else np.asarray(np.nan, scores.dtype)
    out = wrap(np.asarray(values, scores.dtype))
    return record(MultiMarginLossBackward0, out, (input,), saved=(input, target, weight),
                  p=p, margin=margin, reduction=_REDUCTION_ENUM[reduction])


def _margin_shape(input, target, weight):
    """(samples, classes) of multi_margin_loss's input, checked as torch checks it"""
    x = input._data
    if x.ndim > 2 or (x.ndim == 2 and x.shape[1] == 0) or (x.ndim <= 1 and x.size == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(x.shape)}")
    if x.dtype.kind != "f" or x.dtype == np.float16:
        raise NotImplementedError(f"\"multi_margin_loss_cpu_kernel\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")
    samples, classes = (1, x.shape[0] if x.ndim else 1) if x.ndim <= 1 else x.shape
    t = target._data
    if t.ndim > 1 or t.size != samples:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to "
                           "the number of input samples (batch size). Expected target size "
                           f"[{samples}], but got {list(t.shape)}. Input has shape "
                           f"{list(x.shape)}.")
    if t.dtype != np.int64:
        raise RuntimeError("expected scalar type Long but found "
                           f"{scalar_type_name[target.dtype]}")
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got "
                           f"{list(weight.shape)}")
    return samples, classes


class MultiMarginLossBackward0(Node):
    """loss = sum_c max(0, margin - x[y] + x[c]) ** p / C:  d/dx[c] = g (p = 1) or 2 g z
    (p = 2) where z > 0 (times weight[y]), and d/dx[y] minus the sum of those;
    g = grad / C (/ N for the mean)"""

    _saved_names = ("self", "target", "weight")
    p: int
    margin: float
    reduction: int

    def backward(self, grad):
        x, target, weight = self.saved_tensors
        values = wrap(self.gradient(grad, x, target, weight))
        if not is_grad_enabled():
            return values
        # (as torch's: recorded under create_graph, but a backward through it raises; linked
        # to those of grad and x that require grad)
        return record(NotImplementedBackward, values, tuple(
            t for t in (grad, x) if t.requires_grad), op="multi_margin_loss_backward")

    def gradient(self, grad, x, target, weight):
        samples, classes = _margin_shape(x, target, weight)
        scores = x._data.reshape(samples, classes)
        t = target._data.reshape(-1).astype(np.int64)
        rows = np.arange(samples)
        dtype = scores.dtype.type
        g = dtype(1) / dtype(samples * classes if self.reduction == 1 else classes)
        with np.errstate(invalid="ignore", over="ignore"):
            z = dtype(self.margin) - scores[rows, t][:, None] + scores
            h = np.where(z > 0, g if self.p == 1 else dtype(2) * g * z, dtype(0))
            if weight is not None:
                h = h * weight._data[t][:, None]
            h[rows, t] = 0
            h[rows, t] = -h.sum(axis=1)
            g_out = grad._data.reshape(-1, 1) if self.reduction == 0 else grad._data
            values = (h * g_out).astype(scores.dtype)
        return values.reshape(x._data.shape)


# ====================================================================== multilabel_margin_loss
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """loss = sum over the targets j and the other classes i of max(0, 1 - (x[y[j]] - x[i])),
    divided by the number of classes; y lists a sample's targets, up to its first -1"""
    reduction = _reduction(reduction, size_average, reduce)
    for position, (name, value) in enumerate((("input", input), ("target", target)), 1):
        if not hasattr(value, "_data"):  # (torch's parser, reading its C++ operator's call)
            raise TypeError(f"multilabel_margin_loss(): argument '{name}' (position {position}) "
                            f"must be Tensor, not {type_name(value)}")
    samples, classes = _multilabel_shape(input, target)
    values, is_target = _multilabel_forward(input, target, samples, classes, reduction)
    return record(MultilabelMarginLossBackward0, wrap(values), (input,),
                  saved=(input, target, wrap(is_target)), reduction=_REDUCTION_ENUM[reduction])


def _multilabel_shape(input, target):
    """(samples, classes) of multilabel_margin_loss's input, checked as torch checks it"""
    x, t = input._data, target._data
    if not (x.ndim == 2 and x.shape[1] != 0 or x.ndim == 1 and x.shape[0] != 0 or x.ndim == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(x.shape)}")
    samples, classes = (1, x.shape[0] if x.ndim else 1) if x.ndim <= 1 else x.shape
    if (t.ndim > 1 or t.size != classes) if x.ndim <= 1 else t.shape != (samples, classes):
        raise RuntimeError(f"inconsistent target size: {list(t.shape)} for input of size: "
                           f"{list(x.shape)}")
    return samples, classes


def _multilabel_targets(input, target, samples, classes):
    """The targets as rows (samples, classes) of int64, which of them count (those before a
    row's first -1) and is_target (1 where a class is one of its row's targets), after
    torch's checks of the targets' range and of the dtypes, in its order"""
    x = input._data
    t = target._data.reshape(samples, classes)
    if t.size and (_as_int64(t.min()) < -1 or _as_int64(t.max()) >= classes):
        raise RuntimeError("argument #2 'target' is out of range")
    if x.dtype.kind != "f" or x.dtype == np.float16:
        raise NotImplementedError("\"multilabel_margin_loss_forward_out_frame\" not "
                                  f"implemented for '{scalar_type_name[input.dtype]}'")
    if t.dtype != np.int64:
        raise RuntimeError("expected scalar type Long but found "
                           f"{scalar_type_name[target.dtype]}")
    counted = np.cumprod(t >= 0, axis=1).astype(bool)
    is_target = np.zeros((samples, classes), x.dtype)
    rows = np.broadcast_to(np.arange(samples)[:, None], t.shape)
    is_target[rows[counted], t[counted]] = 1
    return np.where(counted, t, 0), counted, is_target


def _as_int64(value):
    """A number as torch's item<int64_t>() reads it: truncated, or its error for a float
    beyond int64's range (nan and inf too)"""
    if isinstance(value, np.floating) and not -2.0 ** 63 <= value <= 2.0 ** 63:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return int(value)


def _multilabel_hinges(scores, targets, counted, is_target):
    """For each sample, target j and class i: whether 1 - x[y[j]] + x[i] (in the input's
    dtype, as torch's kernel rounds it) counts, and its value"""
    one = scores.dtype.type(1)
    z = (one - np.take_along_axis(scores, targets, axis=1))[:, :, None] + scores[:, None, :]
    return counted[:, :, None] & (is_target[:, None, :] == 0) & (z > 0), z


def _multilabel_forward(input, target, samples, classes, reduction):
    """torch's CPU kernel: each sample's hinges added one after another in float64 (its
    accumulator type), the sum rounded to the input's dtype; then, reduced, those added in
    float64 and divided there; unreduced, each divided by the classes in the input's dtype."""
    x = input._data
    scalar = reduction != "none" or target.dim() <= 1
    is_target = np.zeros(target._data.shape, x.dtype)
    if x.size == 0:  # (torch returns its uninitialised result; here 0, the mean nan)
        if not scalar:
            return np.zeros(0, x.dtype), is_target
        return np.asarray(np.nan if reduction == "mean" and x.dtype.kind == "f" else 0,
                          x.dtype), is_target
    targets, counted, rows_is_target = _multilabel_targets(input, target, samples, classes)
    scores = np.ascontiguousarray(x).reshape(samples, classes)
    sums = np.empty(samples, x.dtype)
    step = max(1, 2 ** 22 // (classes * classes))  # (samples at a time: bounded memory)
    with np.errstate(invalid="ignore", over="ignore"):
        for start in range(0, samples, step):
            part = slice(start, start + step)
            keep, z = _multilabel_hinges(scores[part], targets[part], counted[part],
                                         rows_is_target[part])
            terms = np.where(keep, z, 0).astype(np.float64).reshape(len(z), -1)
            sums[part] = np.cumsum(terms, axis=1)[:, -1]
        if not scalar:
            return sums / x.dtype.type(classes), rows_is_target
        total = np.cumsum(sums.astype(np.float64))[-1] / classes
        if reduction == "mean":
            total /= samples
    return np.asarray(total, x.dtype), rows_is_target.reshape(target._data.shape)


class MultilabelMarginLossBackward0(Node):
    """loss = sum over targets j and other classes i of max(0, 1 - x[y[j]] + x[i]) / C:
    d/dx[i] = g for each target j whose hinge at i is positive, d/dx[y[j]] = -g for each class
    i whose hinge is; g = grad / C (/ N for the mean), added one at a time as torch's kernel
    adds them"""

    _saved_names = ("self", "target", "is_target")
    reduction: int
    jvp = None  # (forward mode: torch has no formula, messages.no_forward_ad)
    forward_name = "multilabel_margin_loss_forward"

    def backward(self, grad):
        x, target, _ = self.saved_tensors
        values = wrap(self.gradient(grad, x, target))
        if not is_grad_enabled():
            return values
        # (as torch's: recorded under create_graph, but a backward through it raises)
        return record(NotImplementedBackward, values, tuple(
            t for t in (grad, x) if t.requires_grad), op="multilabel_margin_loss_backward")

    def gradient(self, grad, x, target):
        samples, classes = _multilabel_shape(x, target)
        data = x._data
        if data.size == 0:
            return np.zeros(data.shape, data.dtype)
        targets, counted, is_target = _multilabel_targets(x, target, samples, classes)
        scores = np.ascontiguousarray(data).reshape(samples, classes)
        dtype = data.dtype.type
        g = dtype(1.0 / (samples * classes) if self.reduction == 1 else 1.0 / classes)
        with np.errstate(invalid="ignore", over="ignore"):
            keep, _ = _multilabel_hinges(scores, targets, counted, is_target)
            raised = keep.sum(axis=1)               # (sample, class): how many times + g
            lowered = np.zeros((samples, classes), np.int64)  # (the targets' - g)
            rows = np.broadcast_to(np.arange(samples)[:, None], targets.shape)
            np.add.at(lowered, (rows[counted], targets[counted]), keep.sum(axis=2)[counted])
            # g added k times, one addition after another: the k-th partial sum
            added = np.concatenate([[dtype(0)], np.cumsum(np.full(max(
                int(raised.max()), int(lowered.max()), 1), g, data.dtype))])
            values = np.where(lowered > 0, -added[lowered], added[raised])
            scale = grad._data.reshape(-1, 1) if grad._data.ndim == 1 else grad._data
            values = (values * scale).astype(data.dtype)
        return np.ascontiguousarray(values.reshape(data.shape))
