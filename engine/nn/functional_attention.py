"""``scaled_dot_product_attention``: softmax(q k^T * scale + mask) v, as torch's "math"
backend composes it (the one torch runs on the CPU when a gradient is wanted): q and k each
scaled by sqrt(scale), the mask added in place, a softmax whose fully masked rows are 0
(_safe_softmax, with its own node), dropout, then the second product. Values are torch's
within the products' and the softmax's sums (matmul's tolerance)."""
import math

import numpy as np

from ..core.grad_mode import no_grad
from ..core.node import Node, record
from ..core.tensor import wrap
from ..fidelity import dtypes
from ..fidelity.dtypes import scalar_type_name
from ..ops import reduce
from ..ops.arithmetic import mul_scalar, where
from ..ops.linalg import matmul
from .functional_dropout import dropout


_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                   "int64": "long int", "int32": "int", "int16": "short int",
                   "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _dtype_words(tensor):
    """the dtype as torch's C++ message prints it (its caffe2 type name)"""
    return _CPP_TYPE_NAMES[str(tensor.dtype).split(".")[-1]]


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """out = softmax(query @ key^T * scale + attn_mask) @ value (scale: 1 / sqrt(E) by
    default; is_causal: each position attends to itself and the ones before it)"""
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError("Expected query, key, and value to all be  at least 2 dimensional, "
                           f"but got query.dim: {query.dim()} key.dim: {key.dim()} and "
                           f"value.dim: {value.dim()} instead.")
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {_dtype_words(query)} key.dtype: {_dtype_words(key)} "
                           f"and value.dtype: {_dtype_words(value)} instead.")
    if not query.is_floating_point():
        raise RuntimeError(f"expected scalar type Float but found "
                           f"{scalar_type_name[query.dtype]}")
    if enable_gqa and query.dim() >= 3 and query.shape[-3] != key.shape[-3]:
        raise NotImplementedError("engine: scaled_dot_product_attention(enable_gqa=True) with "
                                  "fewer key/value heads than query heads is not implemented")
    batched = query.dim() == key.dim() == value.dim() == 3
    if batched:  # (torch's CPU path works on 4-d tensors: one more dimension, squeezed after)
        query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
    if 0 in (query.numel(), key.numel(), value.numel()):
        # torch's answer for no elements: zeros, linked to every input by a sum times 0
        shape = (*query.shape[:-1], value.shape[-1])
        with no_grad():
            empty = wrap(np.zeros(shape, query._data.dtype))
        out = empty + mul_scalar(query.sum() + key.sum() + value.sum(), 0)
        return out.squeeze(0) if batched else out
    negative = scale is not None and scale < 0
    factor = math.sqrt(abs(scale) if negative else
                       scale if scale is not None else 1 / math.sqrt(query.shape[-1]))
    scaled_query = mul_scalar(query, 0.0 - factor if negative else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not "
                               "be set when is_causal=True")
        # (torch's ones(L, S).tril(), made with numpy: no gradient goes through it)
        attn_mask = wrap(np.tril(np.ones((query.shape[-2], key.shape[-2]), bool)))
    if attn_mask is not None and attn_mask.dtype == dtypes.bool:
        attn_mask = where(attn_mask.logical_not(), -math.inf, 0.0).to(query.dtype)
    attn = matmul(scaled_query, mul_scalar(key.transpose(-2, -1), factor))
    if attn_mask is not None:
        attn.add_(attn_mask)
    attn = safe_softmax(attn, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    out = matmul(attn, value)
    return out.squeeze(0) if batched else out


def safe_softmax(input, dim):
    """softmax, with 0 (not nan) for a row whose every score is -inf"""
    with no_grad():
        out = reduce.softmax(input, dim)
        fully_masked = np.all(input._data == -np.inf, axis=dim, keepdims=True)
        if fully_masked.any():
            out = wrap(np.where(fully_masked, out._data.dtype.type(0), out._data))
    return record(SafeSoftmaxBackward0, out, (input,), saved_output=True, dim=dim)


class SafeSoftmaxBackward0(Node):
    """out = softmax(x) (0 in fully masked rows):  d/dx = y * (grad - sum(grad * y))"""

    _saved_names = ("result",)
    dim: int

    def backward(self, grad):
        (y,) = self.saved_tensors
        return y * (grad - (grad * y).sum(self.dim, keepdim=True))


__all__ = ["scaled_dot_product_attention"]
