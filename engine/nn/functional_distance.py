"""Distances and similarities between vectors, as ``torch.nn.functional`` computes them:
``normalize``, ``cosine_similarity``, ``pairwise_distance`` (torch's compositions of engine
operations, so each graph has torch's nodes; their sums add in numpy's order, so float32
values can differ from torch's in the last bits) and ``pdist`` (its own node; each distance
summed column after column: p = 0 and inf are torch's bits, and p = 1 and 2 of a few
columns; torch's kernel adds many columns in vector lanes, and other p's powers and the
gradients' sums differ in the last bits)."""
import math

import numpy as np

from ..core.grad_mode import no_grad
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from ..fidelity import dtypes
from ..fidelity.dtypes import scalar_type_name
from ..fidelity.messages import type_name
from ..ops import reduce
from ..ops.arithmetic import add_scalar, where
from ..ops.creation import zeros_like
from ..ops.unary import isnan
from ..ops.views import broadcast_tensors
from ..ops.common import number_parameters


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """out = input / max(||input||_p along dim, eps)"""
    if out is not None:
        raise NotImplementedError("engine: F.normalize(out=...) is not implemented")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


def _check_tensors(name, x1, x2):
    for position, (argument, value) in enumerate([("x1", x1), ("x2", x2)], 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be "
                            f"Tensor, not {type_name(value)}")


@number_parameters("cosine_similarity", {"x1": "Tensor", "x2": "Tensor", "dim": "int",
                                         "eps": "float"})
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """out = sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along dim: the cosine of the
    angle between the vectors (each scaled to length 1 first, so it stays within [-1, 1])"""
    common = dtypes.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           f"{scalar_type_name[common]}")
    if not x1.is_floating_point():
        x1 = x1.to(common)
    if not x2.is_floating_point():
        x2 = x2.to(common)
    if x1.shape != x2.shape:
        x1, x2 = broadcast_tensors(x1, x2)
    norm1 = reduce.norm_over_dims(x1, 2, dim, True).clone()
    norm2 = reduce.norm_over_dims(x2, 2, dim, True).clone()
    with no_grad():
        norm1.clamp_min_(eps)
        norm2.clamp_min_(eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


@number_parameters("pairwise_distance", {"x1": "Tensor", "x2": "Tensor", "p": "float",
                                         "eps": "float", "keepdim": "bool"})
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """out = ||x1 - x2 + eps||_p over the last dimension"""
    _check_tensors("pairwise_distance", x1, x2)
    last = max(x1.dim(), x2.dim()) - 1
    difference = add_scalar(x1 - x2, eps)  # (C++'s + with a number: AddBackward1)
    with no_grad():
        result = reduce.norm_over_dims(difference, p, last, keepdim)
    return record(NormBackward1, result, (difference,), saved=(difference,), saved_output=True,
                  ord=p, p=p, dim=(last,) if last >= 0 else None, keepdim=keepdim)


class NormBackward1(reduce.LinalgVectorNormBackward0):
    """torch.norm(x, p, dim, keepdim), ATen's own norm: the same gradient as
    linalg.vector_norm's (its order shown as p, as torch names it)"""

    _internal = ("ord",)
    p: float


@number_parameters("pdist", {"p": "float"})
def pdist(input, p=2.0):
    """out = ||x_i - x_j||_p for every pair of rows i < j, in the order of the upper triangle
    (the condensed distance matrix)"""
    if not isinstance(input, Tensor):
        raise TypeError(f"pdist(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if input._data.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    rows, columns = input.shape
    if input._data.dtype == np.float16 and rows > 1 and columns:
        raise NotImplementedError("\"pdist\" not implemented for 'Half'")
    first, second = np.triu_indices(rows, 1)
    x = input._data
    with np.errstate(all="ignore"):
        distance = np.abs(x[first] - x[second])
        total = np.zeros(len(first), x.dtype)
        for column in range(columns):  # (torch's order: column after column)
            d = distance[:, column]
            if p == 0:
                total += np.minimum(np.ceil(d), 1)
            elif p == math.inf:
                total = np.maximum(total, d)  # (torch's vector max: a nan wins)
            elif p == 1:
                total += d
            elif p == 2:
                total += d * d
            else:
                total += d ** x.dtype.type(p)
        if p == 2:
            total = np.sqrt(total)
        elif p not in (0, 1, math.inf):
            total = total ** x.dtype.type(1.0 / p)
    return record(PdistBackward0, wrap(total), (input,), saved=(input,), saved_output=True, p=p)


class PdistBackward0(Node):
    """out_ij = ||x_i - x_j||_p:  d/dx_i = sum over the pairs with j of grad_ij d out_ij / d x_i
    (x_j the opposite); written with engine operations, so it differentiates again"""

    _saved_names = ("self", "result")
    p: float

    def backward(self, grad):
        input, result = self.saved_tensors
        first, second = np.triu_indices(input.shape[0], 1)
        first, second = wrap(first.astype(np.int64)), wrap(second.astype(np.int64))
        diff = input[first] - input[second]
        out = result.unsqueeze(-1)
        sign = where(isnan(diff), diff, diff.sign())  # (torch's sign keeps a nan)
        if self.p == 0:
            local = zeros_like(diff)
        elif self.p == 1:
            local = sign
        elif self.p == 2:
            local = where(out == 0, 0.0, diff / out)
        elif self.p == math.inf:
            # (torch's 1 - min(1, ceil(||d| - out|)): 1 where |d| is the max, nan with a nan)
            local = sign * (1 - (diff.abs() - out).abs().ceil().clamp(max=1))
        else:
            local = where(out == 0, 0.0, sign * diff.abs().pow(self.p - 1) / out.pow(self.p - 1))
            if self.p < 1:  # (torch's kernel: 0 where d is 0, whose power is inf)
                local = where(diff == 0, 0.0, local)
        weighted = grad.unsqueeze(-1) * local
        return zeros_like(input).index_add(0, first, weighted).index_add(0, second, -weighted)
