"""Distances and similarities between vectors, as ``torch.nn.functional`` computes them:
``normalize``, ``cosine_similarity``, ``pairwise_distance``. Each is torch's composition of
engine operations (so each graph has torch's nodes); their sums add in numpy's order, so
float32 values can differ from torch's in the last bits."""
from ..core.grad_mode import no_grad
from ..core.node import record
from ..core.tensor import Tensor
from ..fidelity import dtypes
from ..fidelity.dtypes import scalar_type_name
from ..fidelity.messages import type_name
from ..ops import reduce
from ..ops.arithmetic import add_scalar
from ..ops.views import broadcast_tensors


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


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """out = sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along dim: the cosine of the
    angle between the vectors (each scaled to length 1 first, so it stays within [-1, 1])"""
    _check_tensors("cosine_similarity", x1, x2)
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


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """out = ||x1 - x2 + eps||_p over the last dimension"""
    _check_tensors("pairwise_distance", x1, x2)
    last = max(x1.dim(), x2.dim()) - 1
    difference = add_scalar(x1 - x2, eps)  # (C++'s + with a number: AddBackward1)
    with no_grad():
        result = reduce.norm_over_dims(difference, p, last, keepdim)
    return record(NormBackward1, result, (difference,), saved=(difference,), saved_output=True,
                  ord=p, dim=(last,) if last >= 0 else None, keepdim=keepdim)


class NormBackward1(reduce.LinalgVectorNormBackward0):
    """torch.norm(x, p, dim, keepdim), ATen's own norm: the same gradient as
    linalg.vector_norm's"""
