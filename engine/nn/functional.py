"""``engine.nn.functional``: the stateless layers and losses, as ``torch.nn.functional``.

``import engine.nn.functional as F`` is the import learners write. Where torch has a
node of its own for an operation (``SoftmaxBackward0``, ``MseLossBackward0``,
``NllLossBackward0`` ...), the forward pass computes without recording (``no_grad``)
and ``record`` attaches that node, whose backward sits right below it. The gradient
formulas are written with engine operations, so they can be differentiated again
(``create_graph=True``). The other functions are compositions of engine operations,
as they are in torch (``l1_loss`` is ``(input - target).abs().mean()``).

The larger families sit in files of their own, each importable from here as in torch:
``functional_linear.py`` (linear, bilinear), ``functional_conv.py`` (conv1d, conv2d, unfold, fold,
pad), ``functional_pool.py`` (max_pool1d/2d/3d and their _with_indices, avg_pool1d/2d/3d,
adaptive_avg_pool1d/2d, adaptive_max_pool1d/2d), ``functional_pool_more.py`` (lp_pool1d/2d,
max_unpool1d/2d),
``functional_norm.py`` (batch_norm, layer_norm, rms_norm; ``functional_norm_half.py``:
batch_norm's float16 kernels), ``functional_norm_more.py``
(group_norm, instance_norm, local_response_norm, pixel_shuffle, channel_shuffle),
``functional_activation.py`` (gelu,
leaky_relu, elu, softplus, silu), ``functional_activation_more.py`` (hardtanh, the shrinks,
prelu, glu, mish ...), ``functional_distance.py`` (normalize, cosine_similarity, pdist,
pairwise_distance), ``functional_loss_more.py`` (kl_div, the margin and embedding losses,
poisson/gaussian nll), ``functional_attention.py`` (scaled_dot_product_attention,
multi_head_attention_forward), ``functional_dropout.py`` (and rrelu) and
``functional_sparse.py``
(embedding), ``functional_upsample.py`` (interpolate, upsample).
"""
import math
import warnings

import numpy as np

from ..core.grad_mode import mode as grad_mode
from ..core.grad_mode import no_grad
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from ..fidelity import messages, signatures
from ..fidelity.messages import type_name
from ..fidelity.dtypes import bool as bool_dtype
from ..fidelity.dtypes import can_cast, promote_types, scalar_type_name
from ..ops import arithmetic, reduce, unary
from ..ops.creation import zeros_like
from ..ops.views import broadcast_tensors
from .functional_activation import elu, gelu, leaky_relu, silu, softplus
from .functional_activation_more import implicit_softmax_dim
from .functional_activation_more import (celu, celu_, glu, gumbel_softmax, hardshrink,
                                         hardsigmoid, hardswish, hardtanh, hardtanh_,
                                         logsigmoid, mish, prelu, relu6, selu, selu_, softmin,
                                         softshrink, softsign, tanhshrink, threshold,
                                         threshold_)
from .functional_distance import cosine_similarity, normalize, pairwise_distance, pdist
from .functional_attention import multi_head_attention_forward, scaled_dot_product_attention
from .functional_linear import bilinear, linear
from .functional_norm_more import (channel_shuffle, group_norm, instance_norm,
                                   local_response_norm,
                                   pixel_shuffle, pixel_unshuffle)
from .functional_loss_more import (checked_reduction, cosine_embedding_loss, gaussian_nll_loss,
                                   hinge_embedding_loss, kl_div, margin_ranking_loss,
                                   multi_margin_loss, multilabel_margin_loss,
                                   multilabel_soft_margin_loss, poisson_nll_loss,
                                   soft_margin_loss, triplet_margin_loss,
                                   triplet_margin_with_distance_loss)
from .functional_conv import conv1d, conv2d, fold, pad, unfold
from .functional_dropout import (alpha_dropout, dropout, dropout1d, dropout2d, dropout3d,
                                 feature_alpha_dropout, rrelu, rrelu_)
from .functional_norm import batch_norm, layer_norm, rms_norm
from .functional_pool import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_max_pool1d,
                              adaptive_max_pool1d_with_indices, adaptive_max_pool2d,
                              adaptive_max_pool2d_with_indices, avg_pool1d, avg_pool2d,
                              avg_pool3d, max_pool1d, max_pool1d_with_indices, max_pool2d,
                              max_pool2d_with_indices, max_pool3d, max_pool3d_with_indices)
from .functional_pool_more import lp_pool1d, lp_pool2d, max_unpool1d, max_unpool2d
from .functional_sparse import embedding, embedding_bag
from .functional_upsample import interpolate, upsample, upsample_bilinear, upsample_nearest
from ..ops.common import (laid_out_row_major, not_implemented_for, number_parameters,
                          wrap_elementwise)

# torch's Reduction enum, what the loss nodes save as _saved_reduction
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
_NONE, _MEAN, _SUM = 0, 1, 2


# ====================================================================== activations
def relu(input, inplace=False):
    """out = max(input, 0)"""
    if input.__class__ is not Tensor and hasattr(input, "__engine_vmap__"):  # vmap
        return input.__torch_function__(relu, (type(input),), (input,), {"inplace": inplace})
    return input.relu_() if inplace else unary.relu(input)


def relu_(input):
    """relu, written into input"""
    return relu(input, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    """leaky_relu, written into input"""
    return leaky_relu(input, negative_slope, inplace=True)


def elu_(input, alpha=1.0):
    """elu, written into input"""
    return elu(input, alpha, inplace=True)


def sigmoid(input):
    """out = 1 / (1 + exp(-input))"""
    if input.__class__ is not Tensor and hasattr(input, "__engine_vmap__"):  # vmap
        return input.__torch_function__(sigmoid, (type(input),), (input,), {})
    return unary.sigmoid(input)


def tanh(input):
    """out = tanh(input)"""
    if input.__class__ is not Tensor and hasattr(input, "__engine_vmap__"):  # vmap
        return input.__torch_function__(tanh, (type(input),), (input,), {})
    return unary.tanh(input)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """out = exp(input) / sum(exp(input)) along dim (engine.softmax; no dim: torch's old guess)"""
    if dim is None:
        dim = implicit_softmax_dim("softmax", input.dim(), _stacklevel)
    dim = signatures.checked_int("softmax", "dim", 1, dim)  # (torch's: input.softmax(dim))
    return reduce.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """out = log(softmax(input)) along dim (engine.log_softmax; no dim: torch's old guess)"""
    if dim is None:
        dim = implicit_softmax_dim("log_softmax", input.dim(), _stacklevel)
    dim = signatures.checked_int("log_softmax", "dim", 1, dim)  # (torch's: input.log_softmax)
    return reduce.log_softmax(input, dim, dtype=dtype)


@number_parameters("one_hot", {"num_classes": "int"})
def one_hot(tensor, num_classes=-1):
    """out[..., c] = 1 where tensor == c, else 0 (int64, one more dimension)"""
    if tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    values = tensor._data
    if values.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    else:
        if values.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = int(values.max()) + 1
        elif values.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    # row-major whatever the input's layout; torch fills zeros, then scatters the ones in
    # place: a result with elements has been written to twice (version 2)
    result = wrap(np.asarray(values[..., None] == np.arange(num_classes), np.int64, order="C"))
    if values.size:
        result._bump_version()
        result._bump_version()
    return result


# ====================================================================== losses
def reduction_to_apply(reduction, size_average=None, reduce=None):
    """The reduction to apply, from ``reduction`` or the deprecated size_average/reduce."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = ("mean" if size_average else "sum") if reduce else "none"
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      f"reduction='{reduction}' instead.", stacklevel=3)
    return checked_reduction(reduction)


def _reduce(loss, reduction):
    """The losses of every element, their mean or their sum."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _broadcast_target(input, target):
    """input and target broadcast to one shape, warning (as torch does) when they differ."""
    if target.shape == input.shape:
        return input, target
    warnings.warn(f"Using a target size ({target.size()}) that is different to the input size "
                  f"({input.size()}). This will likely lead to incorrect results due to "
                  "broadcasting. Please ensure they have the same size.", stacklevel=3)
    return broadcast_tensors(input, target)


def _difference(x, y):
    """x - y in their common dtype, as torch's loss kernels subtract (a bool or integer
    target is promoted with the input, where the engine's ``-`` refuses a bool)."""
    common = promote_types(x.dtype, y.dtype)
    return x.to(common) - y.to(common)


def _floating_kernel(name, *operands):
    """A loss kernel compiled for floating dtypes only, on the operands' common dtype."""
    common = operands[0].dtype
    for operand in operands[1:]:
        common = promote_types(common, operand.dtype)
    if not common.is_floating_point:
        raise not_implemented_for(name, common.numpy_dtype)


def _written_into(kept, *operands):
    """torch's in-place steps into a tensor of dtype ``kept``: each operand's promotion must
    be castable back (a float weight times a float16 loss stays float16)."""
    for operand in operands:
        wider = promote_types(kept, operand.dtype)
        if not can_cast(wider, kept):
            raise RuntimeError(f"result type {scalar_type_name[wider]} can't be cast to the "
                               f"desired output type {scalar_type_name[kept]}")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """loss = mean (or sum) of (input - target) ** 2"""
    if input.__class__ is not Tensor and hasattr(input, "__engine_vmap__"):  # vmap
        return input.__torch_function__(mse_loss, (type(input),), (input, target, size_average,
                                                                   reduce, reduction), {})
    input, target = _broadcast_target(input, target)
    reduction = reduction_to_apply(reduction, size_average, reduce)
    _floating_kernel("mse_cpu", input, target)
    with no_grad():
        loss = _reduce(_difference(input, target) ** 2, reduction)
    return record(MseLossBackward0, loss, (input, target), saved=(input, target),
                  reduction=_REDUCTIONS[reduction])


class MseLossBackward0(Node):
    """loss = mean of (x - y) ** 2:  d/dx = 2 / n * (x - y) * grad  (no / n for sum),
    d/dy = 2 / n * (y - x) * grad"""

    _saved_names = ("self", "target")
    reduction: int

    def backward(self, grad):
        x, y = self.saved_tensors
        scale = 2 / x.numel() if self.reduction == _MEAN else 2
        # d/dy is computed, not negated: where x == y, both are 0 * grad, of grad's sign
        needed = [node is not None for node, _ in self.next_functions]
        # (torch's kernel writes into a fresh row-major tensor)
        return (laid_out_row_major(scale * _difference(x, y) * grad) if needed[0] else None,
                laid_out_row_major(scale * _difference(y, x) * grad) if needed[1] else None)

    def jvp(self, tangent_input, tangent_target):
        """Forward mode, torch's formula: the reduction of 2 (x - y) t_x + 2 (y - x) t_y
        (mse_loss_backward of each tangent, unreduced: in the common dtype, given in the
        first operand's; a missing tangent is zeros)."""
        x, y = self.primals
        terms = [(2 * _difference(u, v) * (t if t is not None else zeros_like(u))).to(u.dtype)
                 for u, v, t in ((x, y, tangent_input), (y, x, tangent_target))]
        total = terms[0] + terms[1]
        return total.mean() if self.reduction == _MEAN else \
            total.sum() if self.reduction == _SUM else total


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """loss = mean (or sum) of |input - target|"""
    input, target = _broadcast_target(input, target)
    reduction = reduction_to_apply(reduction, size_average, reduce)
    return _reduce((input - target).abs(), reduction)



def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """loss = mean (or sum) of 0.5 d ** 2 where |d| < delta, else delta (|d| - 0.5 delta),
    with d = input - target: squared near the target, linear (slope delta) far from it"""
    if weight is not None:
        raise NotImplementedError("huber_loss's weight (torch 2.6+) is not in the engine")
    input, target = _broadcast_target(input, target)
    reduction = reduction_to_apply(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    # (torch's iterator: computed in the common dtype, written into a tensor of input's)
    _written_into(input.dtype, target)
    _floating_kernel("huber_cpu", input, target)
    common = promote_types(input.dtype, target.dtype).numpy_dtype
    d = np.abs(input._data.astype(common) - target._data.astype(common))
    with np.errstate(over="ignore"):  # where() computes both sides; the squares may overflow
        loss = wrap_elementwise(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
                                .astype(common).astype(input._data.dtype),
                                input._data, target._data)
    with no_grad():
        loss = _reduce(loss, reduction)
    return record(HuberLossBackward0, loss, (input, target), saved=(input, target),
                  reduction=_REDUCTIONS[reduction], delta=delta)


class HuberLossBackward0(Node):
    """d = x - y:  d/dx = clamp(d, -delta, delta) * grad (/ n for the mean), d/dy = -d/dx"""

    _saved_names = ("self", "target")
    reduction: int
    delta: float

    def backward(self, grad):
        x, y = self.saved_tensors
        if y.dtype is not x.dtype:  # (torch's backward kernel takes one dtype; its forward not)
            raise RuntimeError(f"Found dtype {scalar_type_name[y.dtype]} but expected "
                               f"{scalar_type_name[x.dtype]}")
        scale = 1 / x.numel() if self.reduction == _MEAN else 1
        # torch's kernel: -delta / +delta outside the band, d inside; the target's is negated
        # (torch's kernel writes into a fresh row-major tensor)
        # (the target's: the same formula with the two swapped, not negated: a zero's sign)
        needed = [node is not None for node, _ in self.next_functions]
        return tuple(laid_out_row_major(scale * (u - v).clamp(-self.delta, self.delta) * grad)
                     if need else None for need, (u, v) in zip(needed, ((x, y), (y, x))))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """loss = mean (or sum) of 0.5 d ** 2 / beta where |d| < beta, else |d| - 0.5 beta
    (d = input - target): Huber's loss divided by beta; beta = 0 is the L1 loss"""
    input, target = _broadcast_target(input, target)
    reduction = reduction_to_apply(reduction, size_average, reduce)
    if beta == 0.0:  # torch hands over to l1_loss (its nodes are abs and mean)
        return l1_loss(input, target, reduction=reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _floating_kernel("smooth_l1_cpu", input, target)
    common = promote_types(input.dtype, target.dtype).numpy_dtype  # (torch's iterator's)
    d = np.abs(input._data.astype(common, copy=False) - target._data.astype(common, copy=False))
    with np.errstate(over="ignore"):  # as in huber_loss
        loss = wrap_elementwise(np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta).astype(
            common), input._data, target._data)
    with no_grad():
        loss = _reduce(loss, reduction)
    return record(SmoothL1LossBackward0, loss, (input, target), saved=(input, target),
                  reduction=_REDUCTIONS[reduction], beta=beta)


class SmoothL1LossBackward0(Node):
    """d = x - y:  d/dx = clamp(d / beta, -1, 1) * grad (/ n for the mean), d/dy = -d/dx"""

    _saved_names = ("self", "target")
    reduction: int
    beta: float

    def backward(self, grad):
        x, y = self.saved_tensors
        scale = 1 / x.numel() if self.reduction == _MEAN else 1
        needed = [node is not None for node, _ in self.next_functions]

        def formula(u, v):  # (the target's: with the two swapped, not negated)
            d = _difference(u, v)
            # (torch's kernel writes into a fresh row-major tensor)
            return laid_out_row_major(scale * (d / self.beta).where(d.abs() < self.beta,
                                                                    d.sign()) * grad)
        return (formula(x, y) if needed[0] else None, formula(y, x) if needed[1] else None)

def _check_same_size(input, target, message):
    if target.shape != input.shape:
        raise ValueError(message.format(target=target.size(), input=input.size()))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """loss = -w (target log(input) + (1 - target) log(1 - input)), each log at least -100"""
    reduction = reduction_to_apply(reduction, size_average, reduce)
    _check_same_size(input, target, "Using a target size ({target}) that is different to the "
                     "input size ({input}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(input.shape)
    _check_no_requires_grad(weight, "weight", "binary_cross_entropy")
    if target.dtype is not input.dtype:  # (its iterator takes one dtype, the loss's: input's)
        raise RuntimeError(f"Found dtype {scalar_type_name[target.dtype]} but expected "
                           f"{scalar_type_name[input.dtype]}")
    _floating_kernel("binary_cross_entropy", input)
    x, y = input._data, target._data
    if not ((x >= 0) & (x <= 1)).all():
        raise RuntimeError("all elements of input should be between 0 and 1")
    if not ((y >= 0) & (y <= 1)).all():
        raise RuntimeError("all elements of target should be between 0 and 1")
    # torch clamps each log at -100, so that input 0 or 1 gives a large loss, not inf
    low = x.dtype.type(-100)
    with np.errstate(divide="ignore"):
        loss = wrap((y - 1) * np.maximum(np.log1p(-x), low) - y * np.maximum(np.log(x), low))
    if weight is not None:  # (torch multiplies the loss by it in place)
        _written_into(input.dtype, weight)
    with no_grad():
        loss = _reduce(loss if weight is None else (loss * weight).to(input.dtype), reduction)
    return record(BinaryCrossEntropyBackward0, loss, (input, target),
                  saved=(input, target, weight), reduction=_REDUCTIONS[reduction])


class BinaryCrossEntropyBackward0(Node):
    """loss = -w (y log x + (1 - y) log(1 - x)):  d/dx = w (x - y) / (x (1 - x)) * grad,
    d/dy = w log((1 - x) / x) * grad  (both / n for the mean)"""

    _saved_names = ("self", "target", "weight")
    reduction: int

    def backward(self, grad):
        x, y, weight = self.saved_tensors
        # x (1 - x) is kept away from 0 (torch's EPSILON) so that x = 0 or 1 stays finite
        grad_x = grad * (x - y) / ((1 - x) * x).clamp_min(1e-12)
        grad_y = -(x / (1 - x)).log() * grad  # -logit(x)
        return _weighted_mean(self, x, weight, grad_x, grad_y)


def _weighted_mean(node, x, weight, *grads):
    """Gradients times the loss's weight, and divided by the element count for the mean."""
    if weight is not None:
        grads = [g * weight for g in grads]
    if node.reduction == _MEAN:
        grads = [g / x.numel() for g in grads]
    return tuple(grads)


def _log_sigmoid(x):
    """log(sigmoid(x)) = min(x, 0) - log(1 + exp(-|x|)): exp never overflows"""
    return x.clamp_max(0) - (-x.abs()).exp().log1p()


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """loss = -w (p target log(sigmoid(input)) + (1 - target) log(1 - sigmoid(input))),
    computed from the logits (no sigmoid that could round to 0 or 1); p is pos_weight"""
    reduction = reduction_to_apply(reduction, size_average, reduce)
    _check_same_size(input, target, "Target size ({target}) must be the same as input size "
                     "({input})")
    _check_no_requires_grad(weight, "weight", "binary_cross_entropy_with_logits")
    _check_no_requires_grad(pos_weight, "pos_weight", "binary_cross_entropy_with_logits")
    if not input.is_floating_point():  # (torch's first step: log_sigmoid(input))
        raise not_implemented_for("log_sigmoid_cpu", input._data.dtype)
    with no_grad():
        log_sigmoid = _log_sigmoid(input)
        if pos_weight is not None:
            log_sigmoid = log_sigmoid * ((pos_weight - 1) * target + 1)
        # log(1 - sigmoid(x)) = log(sigmoid(x)) - x, so the loss is (1 - y) x - log(sigmoid(x)),
        # which torch computes in place in 1 - y: of target's dtype (a float16 target gives a
        # float16 loss; an integer one cannot take the float products)
        if target.dtype is bool_dtype:  # (C++'s 1 - target: two bool tensors)
            raise NotImplementedError(messages.SUB_TWO_BOOLS)
        loss = 1 - target
        kept = loss.dtype
        for operand in (input, log_sigmoid, weight):
            wider = None if operand is None else promote_types(kept, operand.dtype)
            if wider is not None and not can_cast(wider, kept):
                raise RuntimeError(f"result type {scalar_type_name[wider]} can't be cast to the "
                                   f"desired output type {scalar_type_name[kept]}")
        loss = (loss * input).to(kept)
        loss = (loss - log_sigmoid).to(kept)
        if weight is not None:
            loss = (loss * weight).to(kept)
        loss = _reduce(loss, reduction)
    return record(BinaryCrossEntropyWithLogitsBackward0, loss, (input, target),
                  saved=(input, target, weight, pos_weight), reduction=_REDUCTIONS[reduction])


class BinaryCrossEntropyWithLogitsBackward0(Node):
    """loss = (1 - y) x - log sigmoid(x):  d/dx = (sigmoid(x) - y) * grad,  d/dy = -x * grad
    (with pos_weight p: d/dx = ((p y + 1 - y) sigmoid(x) - p y) * grad)"""

    _saved_names = ("self", "target", "weight", "pos_weight")
    reduction: int

    def backward(self, grad):
        x, y, weight, pos_weight = self.saved_tensors
        if pos_weight is None:
            grad_x, grad_y = x.sigmoid() - y, -x
        else:
            py = pos_weight * y
            grad_x = (py + 1 - y) * x.sigmoid() - py
            grad_y = _log_sigmoid(-x) - _log_sigmoid(x) * pos_weight
        return _weighted_mean(self, x, weight, grad_x * grad, grad_y * grad)


def _check_target_shape(input, target):
    """torch's checks of class indices (N, d1, ...) against input (N, C, d1, ...)."""
    dims, shape = input._data.ndim, list(target._data.shape)
    if dims == 1 and len(shape) == 1 and shape != [1]:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                         f"{shape[0]}")
    if dims <= 2 and len(shape) > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    expected = [input._data.shape[0], *input._data.shape[2:]]
    if dims == 4 and len(shape) != 3:  # (torch's 2-d image kernel words it its own way)
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {len(shape)}")
    if dims == 4 and shape != expected:
        raise RuntimeError(f"size mismatch (got input: {list(input._data.shape)} , target: "
                           f"{shape}")
    if dims >= 3 and shape != expected:
        raise RuntimeError(f"Expected target size {expected}, got {shape}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """loss = -weight[t] * input[i, t] for each target class t (mean: / sum of those weights)"""
    reduction = reduction_to_apply(reduction, size_average, reduce)
    # (torch's F.nll_loss hands it on to torch's nll_loss_nd, whose SymInt it is)
    ignore_index = signatures.checked_int("nll_loss_nd", "ignore_index", 5, ignore_index, True)
    x, t = input._data, target._data
    if x.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    # (torch reads a 0-d target's batch size as 0, then its size(0) raises; fuzz 2031963)
    batch_size = t.shape[0] if t.ndim else 0
    if x.ndim != 1 and x.shape[0] != batch_size:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target "
                         f"batch_size ({batch_size}).")
    if x.ndim != 1 and not t.ndim:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if x.ndim == 3 or x.ndim > 4:
        # torch's nll_loss_nd: (N, C, d1, d2, ...) is viewed as an (N, C, 1, d) image
        _check_target_shape(input, target)
        n, c = x.shape[:2]
        images = input.contiguous().view(n, c, 1, -1)
        loss = nll_loss(images, target.contiguous().view(n, 1, -1), weight, None, ignore_index,
                        None, reduction)
        return loss.view(n, *x.shape[2:]) if reduction == "none" else loss
    kernel = "nll_loss2d_forward" if x.ndim == 4 else "nll_loss_forward"
    _check_no_requires_grad(weight, "weight", kernel)  # (before the kernel's own checks)
    _check_target_shape(input, target)
    if t.dtype not in (np.int64, np.uint8):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{scalar_type_name[target.dtype]}")
    class_dim = 0 if x.ndim == 1 else 1
    _check_loss_weight(input, weight, x.shape[class_dim])
    t = t.astype(np.int64, copy=False)
    if x.ndim == 1:
        t = t.reshape(())  # one sample: its target may also come as a 1-element vector
    n_classes = x.shape[class_dim]
    if weight is None and _every_target_counts(t, n_classes, ignore_index):
        # the usual case: the numbers of the general case below, where every weight is 1
        classes = t.reshape(t.shape[:class_dim] + (1,) + t.shape[class_dim:])
        w = np.ones(t.shape, x.dtype)
        losses = -_picked(x, classes, class_dim)
    else:
        classes, w, kept = _picked_classes(t, n_classes, ignore_index, weight, class_dim,
                                           x.dtype)
        with np.errstate(invalid="ignore", over="ignore"):  # (inf * 0 where ignored: silent)
            losses = np.where(kept, -_picked(x, classes, class_dim) * w, 0).astype(x.dtype)
    # the sum of the weights (torch's total_weight), which torch's quick per-sample kernels
    # (reduction none of 2-d and 4-d input) leave at 0
    total_weight = wrap(np.zeros((), x.dtype) if reduction == "none" and x.ndim != 1
                        else np.asarray(w.sum(dtype=x.dtype)))
    if reduction == "none":
        result = wrap(losses)
    elif reduction == "sum":
        with np.errstate(over="ignore"):  # (inf, as torch's)
            result = wrap(losses.sum(dtype=x.dtype))
    else:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            result = wrap(np.asarray(losses.sum(dtype=x.dtype) / total_weight._data))
    node = NllLoss2DBackward0 if x.ndim == 4 else NllLossBackward0
    return record(node, result, (input,), saved=(input, target, weight, total_weight),
                  reduction=_REDUCTIONS[reduction], ignore_index=ignore_index)


def _check_loss_weight(input, weight, n_classes):
    """nll_loss's checks past the shapes of input and target: a weight for every class (one
    dimension, but the image kernel counts only its elements), an input of a floating dtype
    (its kernels' dtypes), a weight of the input's dtype."""
    if weight is not None:
        w = weight._data
        if input.dim() == 4 and w.size != n_classes:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        if input.dim() != 4 and (w.ndim != 1 or w.size != n_classes):
            raise RuntimeError(f"weight tensor should be defined either for all {n_classes} "
                               f"classes or no classes but got weight tensor of shape: "
                               f"{list(w.shape)}")
    if input._data.dtype.kind != "f":
        raise not_implemented_for("nll_loss2d_forward_out_frame" if input.dim() == 4 else
                                  "nll_loss_out_frame", input._data.dtype)
    if weight is not None and weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name[input.dtype]} but found "
                           f"{scalar_type_name[weight.dtype]}")


def _every_target_counts(t, n_classes, ignore_index):
    """No target is ignored and every one is a class (then weight 1 each: nll_loss's quick way)."""
    return t.size > 0 and not 0 <= ignore_index < n_classes and 0 <= t.min() and \
        t.max() < n_classes


def _picked_classes(t, n_classes, ignore_index, weight, class_dim, np_dtype):
    """Where each loss picks from (class 0 for an ignored target), each one's weight (0 if
    ignored), and which are not ignored; an index out of range is torch's IndexError."""
    kept = t != ignore_index
    bad = t[kept & ((t < 0) | (t >= n_classes))]
    if bad.size:
        raise IndexError(f"Target {bad[0]} is out of bounds.")
    classes = np.expand_dims(np.where(kept, t, 0), class_dim)
    w = np.ones(n_classes, np_dtype) if weight is None else weight._data.reshape(-1)
    return classes, np.where(kept, w[classes.squeeze(class_dim)], 0).astype(np_dtype), kept


def _check_no_requires_grad(tensor, argument, function):
    """A loss's weight has no derivative: torch refuses one that requires grad (in grad mode)."""
    if tensor is not None and tensor.requires_grad and grad_mode.recording:
        raise RuntimeError(messages.not_differentiable(function, argument))


def _picked(x, classes, class_dim):
    """``x`` at each sample's class (``classes`` has a size-1 class dim): take_along_axis,
    written as plain indexing for a batch of scores (N, C), the usual case, which is quicker."""
    if x.ndim == 2 and class_dim == 1:
        return x[np.arange(x.shape[0]), classes[:, 0]]
    return np.take_along_axis(x, classes, class_dim).squeeze(class_dim)


class NllLossBackward0(Node):
    """loss = -w[t] x[i, t]:  d/dx = -w[t] * grad at the picked entries, 0 elsewhere"""

    _saved_names = ("self", "target", "weight", "total_weight")
    ignore_index: int
    reduction: int

    def backward(self, grad):
        return nll_loss_backward(grad, *self.saved_tensors, self.reduction, self.ignore_index,
                                 NllLossBackwardBackward0)


class NllLoss2DBackward0(NllLossBackward0):
    """nll_loss of (N, C, H, W) scores: the same formula"""

    def backward(self, grad):
        return nll_loss_backward(grad, *self.saved_tensors, self.reduction, self.ignore_index,
                                 NllLoss2DBackwardBackward0)


def nll_loss_backward(grad, input, target, weight, total_weight, reduction, ignore_index, node):
    """torch's kernel: zeros, and at each picked entry -w * grad (reduction none), or
    w * -(grad / total_weight) (mean), w * -grad (sum); an ignored target's row stays 0."""
    x = input._data
    if x.ndim == 1 and target._data.shape not in ((), x.shape):
        # (the forward pass took a 1-element target for one sample; the backward does not)
        raise RuntimeError(f"size mismatch (got input: {list(x.shape)}, target: "
                           f"{list(target._data.shape)})")
    class_dim = 0 if x.ndim == 1 else 1
    t = target._data.astype(np.int64, copy=False).reshape(target._data.shape if x.ndim > 1
                                                          else ())
    g = grad._data
    if x.ndim == 2 and weight is None and _every_target_counts(t, x.shape[1], ignore_index):
        # the usual batch of scores: every weight 1, nothing ignored (the numbers below)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            values = -x.dtype.type(1) * g if reduction == _NONE else \
                -(g / total_weight._data) if reduction == _MEAN else -g
        grad_input = np.zeros(x.shape, x.dtype)
        grad_input[np.arange(x.shape[0]), t] = values
        return record(node, wrap(grad_input), (grad, input), target=target, weight=weight,
                      reduction=reduction, ignore_index=ignore_index)
    classes, w, kept = _picked_classes(t, x.shape[class_dim], ignore_index, weight, class_dim,
                                       x.dtype)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if reduction == _NONE and x.ndim != 1:
            values = -w * g
        else:
            each = -(g / total_weight._data) if reduction == _MEAN else -g
            values = each if weight is None else w * each
    values = np.where(kept, values, 0).astype(x.dtype)  # (an ignored target's row stays +0)
    grad_input = np.zeros(x.shape, x.dtype)
    np.put_along_axis(grad_input, classes, np.expand_dims(values, class_dim), class_dim)
    return record(node, wrap(grad_input), (grad, input), target=target, weight=weight,
                  reduction=reduction, ignore_index=ignore_index)


class NllLossBackwardBackward0(Node):
    """out = nll_loss's gradient, linear in grad:  d/dgrad = nll_loss of the gradient again;
    the scores only chose where it goes:  d/dx = 0"""

    target: object
    weight: object
    reduction: int
    ignore_index: int

    def backward(self, grad):
        reduction = {_NONE: "none", _MEAN: "mean", _SUM: "sum"}[self.reduction]
        return (nll_loss(grad, self.target, self.weight, None, self.ignore_index, None, reduction),
                zeros_like(grad))


class NllLoss2DBackwardBackward0(NllLossBackwardBackward0):
    """nll_loss2d's gradient: the same formula"""


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """loss = nll_loss(log_softmax(input)): -log of the probability given to the target class"""
    if input.__class__ is not Tensor and hasattr(input, "__engine_vmap__"):  # vmap
        return input.__torch_function__(cross_entropy, (type(input),), (input, target, weight,
                                        size_average, ignore_index, reduce, reduction,
                                        label_smoothing))
    reduction = reduction_to_apply(reduction, size_average, reduce)
    # (torch's F.cross_entropy hands them on to torch's cross_entropy_loss, by position: its
    # parser checks their types in order, then reads them right to left)
    if not signatures.fits(ignore_index, "SymInt"):
        signatures.checked_int("cross_entropy_loss", "ignore_index", 5, ignore_index, True)
    if not signatures.fits(label_smoothing, "float"):
        raise TypeError(f"cross_entropy_loss(): argument 'label_smoothing' (position 6) must be "
                        f"float, not {type_name(label_smoothing)}")
    label_smoothing = float(label_smoothing)
    ignore_index = signatures.checked_int("cross_entropy_loss", "ignore_index", 5, ignore_index,
                                          True)
    class_dim = 0 if input.dim() == 1 else 1
    n_classes = input.shape[class_dim]
    if target.shape == input.shape:  # class probabilities, not class indices
        if not target.is_floating_point():
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {scalar_type_name[target.dtype]}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing,
                                            class_dim)
    if label_smoothing > 1.0:  # (a negative one smooths nothing, as torch's: only > 0 does)
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")  # (as C++ prints a double)
    log_probs = log_softmax(input, class_dim)
    nll = nll_loss(log_probs, target, weight, None, ignore_index, None, reduction)
    if label_smoothing <= 0.0:
        return nll
    # label smoothing: the target is (1 - s) on its class plus s / C on every class; torch's
    # steps, its numbers written in C++ (MulBackward1 ...)
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = weight.shape[0]
        smooth = -(log_probs * weight.view(shape)).sum(class_dim)
    else:
        smooth = -log_probs.sum(class_dim)
    ignored = target == ignore_index
    smooth.masked_fill_(ignored, 0.0)
    if reduction == "mean":
        if weight is not None:
            smooth = smooth.sum() / weight.gather(0, target[~ignored].flatten()).sum()
        else:
            smooth = smooth.sum() / (~ignored).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return arithmetic.add(arithmetic.mul_scalar(nll, 1 - label_smoothing),
                          arithmetic.mul_scalar(smooth, label_smoothing / n_classes))


def _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing, class_dim):
    """loss = -sum over classes of target * log_softmax(input) (mean: per sample)"""
    n_classes = input.shape[class_dim]
    log_probs = log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing:g}")
        target = arithmetic.add_scalar(arithmetic.mul_scalar(target, 1 - label_smoothing),
                                       label_smoothing / n_classes)
    products = log_probs * target
    if weight is not None:
        products = products * (weight.view(-1, *[1] * (input.dim() - 2)) if input.dim() > 1
                               else weight)
    if reduction == "none":
        return -products.sum(class_dim)
    if reduction == "sum":
        return -products.sum()
    if input.numel() == 0:
        return (-products.sum()).fill_(math.nan)
    # (a C++ division by the number of samples: DivBackward1)
    return arithmetic.div_scalar(-products.sum(), input.numel() // n_classes)


__all__ = ["linear", "bilinear", "relu", "relu_", "leaky_relu_", "elu_", "sigmoid", "tanh",
           "softmax", "log_softmax", "dropout", "one_hot",
           "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
           "rrelu", "rrelu_",
           "mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits",
           "nll_loss", "cross_entropy", "conv1d", "conv2d", "unfold", "fold", "pad",
           "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "lp_pool1d", "lp_pool2d", "max_unpool1d", "max_unpool2d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices",
           "batch_norm",
           "layer_norm", "rms_norm", "gelu", "leaky_relu", "elu", "softplus", "silu", "embedding",
           "embedding_bag", "hardtanh", "hardtanh_", "relu6", "hardswish", "hardsigmoid",
           "selu", "selu_", "celu", "celu_", "prelu", "glu", "logsigmoid", "mish", "softsign",
           "tanhshrink",
           "softshrink", "hardshrink", "threshold", "threshold_", "softmin", "normalize",
           "cosine_similarity", "pairwise_distance", "pdist", "kl_div", "margin_ranking_loss",
           "hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
           "cosine_embedding_loss", "poisson_nll_loss", "gaussian_nll_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss", "multi_margin_loss",
           "multilabel_margin_loss", "gumbel_softmax", "group_norm", "local_response_norm",
           "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "instance_norm",
           "scaled_dot_product_attention",
           "multi_head_attention_forward", "interpolate", "upsample", "upsample_nearest",
           "upsample_bilinear"]
