"""``scaled_dot_product_attention``: softmax(q k^T * scale + mask) v, as torch's "math"
backend composes it (the one torch runs on the CPU when a gradient is wanted): q and k each
scaled by sqrt(scale), the mask added in place, a softmax whose fully masked rows are 0
(_safe_softmax, with its own node), dropout, then the second product. Values are torch's
within the products' and the softmax's sums (matmul's tolerance)."""
import math
import warnings

import numpy as np

from ..core.grad_mode import no_grad
from ..core.node import Node, record
from ..core.tensor import wrap
from ..fidelity import dtypes, messages
from ..fidelity.dtypes import scalar_type_name
from ..ops import reduce
from ..ops.arithmetic import mul_scalar, where
from ..ops.common import wrap_elementwise
from ..ops.linalg import matmul
from ..ops.creation import zeros, zeros_like
from ..ops.join import cat
from .functional_conv import pad
from .functional_dropout import dropout
from .functional_linear import linear


def _dtype_words(tensor):
    """the dtype as torch's C++ message prints it (its caffe2 type name)"""
    return messages.CPP_TYPE_NAMES[str(tensor.dtype).split(".")[-1]]


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
    if _flash_eligible(query, key, value, dropout_p):
        out = _flash_attention(query, key, value, attn_mask, is_causal, scale)
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


def _flash_eligible(query, key, value, dropout_p):
    """whether torch's CPU dispatcher picks its flash-attention kernel: 4-d tensors of one
    head size, the same batch and heads, rows stored contiguously, no dropout"""
    tensors = (query, key, value)
    return (all(t.dim() == 4 and t.shape[-1] == query.shape[-1] and t.stride(-1) == 1 and
                t.shape[:2] == query.shape[:2] for t in tensors)
            and dropout_p == 0.0 and query.shape[-2] > 0 and key.shape[-2] > 0)


def _float_mask(attn_mask, query, key, is_causal):
    """the additive mask as a numpy array (0 where attended, -inf where not), or None"""
    if is_causal:
        allowed = np.tril(np.ones((query.shape[-2], key.shape[-2]), bool))
        return np.where(allowed, 0.0, -np.inf)
    if attn_mask is None:
        return None
    if attn_mask.dtype == dtypes.bool:
        return np.where(attn_mask._data, 0.0, -np.inf)
    return attn_mask._data.astype(np.float64)


def _flash_attention(query, key, value, attn_mask, is_causal, scale):
    """softmax(q k^T * scale + mask) v as one node (torch's fused CPU kernel, whose blocked
    softmax adds in another order: values within tolerance), in float64 rounded once"""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not "
                           "be set when is_causal=True")
    factor = scale if scale is not None else 1 / math.sqrt(query.shape[-1])
    mask = _float_mask(attn_mask, query, key, is_causal)
    q, k, v = (t._data.astype(np.float64) for t in (query, key, value))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        scores = np.matmul(q, np.swapaxes(k, -1, -2)) * factor
        if mask is not None:
            scores = scores + mask
        top = scores.max(axis=-1, keepdims=True)
        exps = np.exp(scores - top)
        total = exps.sum(axis=-1, keepdims=True)
        logsumexp = (np.log(total) + top)[..., 0]
        values = np.matmul(exps / total, v)
    dtype = query._data.dtype
    # (laid out as query is: torch's kernel writes into empty_like(query))
    wide = np.float64 if dtype == np.float64 else np.float32  # (float16: through float32)
    out = wrap_elementwise(values.astype(wide).astype(dtype), query._data)
    # (torch keeps logsumexp laid out (batch, length, heads), seen as (batch, heads, length))
    lse = wrap(np.ascontiguousarray(np.swapaxes(logsumexp.astype(wide), 1, 2)))
    lse = lse.transpose(1, 2)
    saved_mask = None
    if attn_mask is not None:
        saved_mask = wrap(mask.astype(dtype)) if attn_mask.dtype == dtypes.bool else attn_mask
    return record(ScaledDotProductFlashAttentionForCpuBackward0, out, (query, key, value),
                  saved=(query, key, value, out, lse, saved_mask), dropout_p=0.0,
                  is_causal=is_causal, scale=scale)


class ScaledDotProductFlashAttentionForCpuBackward0(Node):
    """out = P v, P = softmax(S), S = q k^T * scale + mask:  d/dv = P^T grad,
    d/dS = P * (dP - sum(dP * P)) with dP = grad v^T, d/dq = d/dS k * scale,
    d/dk = (d/dS)^T q * scale"""

    _saved_names = ("query", "key", "value", "output", "logsumexp", "attn_mask")
    dropout_p: float
    is_causal: bool
    scale: object

    def backward(self, grad):
        q, k, v, _, _, mask = self.saved_tensors
        factor = self.scale if self.scale is not None else 1 / math.sqrt(q.shape[-1])
        scores = q.matmul(k.transpose(-2, -1)) * factor
        if self.is_causal:
            scores = scores + wrap(_float_mask(None, q, k, True).astype(q._data.dtype))
        elif mask is not None:
            scores = scores + mask
        p = scores.softmax(-1)
        grad_p = grad.matmul(v.transpose(-2, -1))
        grad_scores = p * (grad_p - (grad_p * p).sum(-1, keepdim=True))
        grads = (grad_scores.matmul(k) * factor, grad_scores.transpose(-2, -1).matmul(q) * factor,
                 p.transpose(-2, -1).matmul(grad))
        # (torch's kernel writes each gradient laid out (batch, length, heads, features))
        return tuple(g.transpose(1, 2).contiguous().transpose(1, 2) for g in grads)


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


__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


# ====================================================================== multi-head attention
def baddbmm(input, batch1, batch2):
    """out = input + batch1 @ batch2, batch by batch (beta = alpha = 1)"""
    with no_grad():
        values = input._data + np.matmul(batch1._data, batch2._data)
    return record(BaddbmmBackward0, wrap(np.ascontiguousarray(values)),
                  (input, batch1, batch2), saved=(batch1, batch2),
                  self_sym_sizes=tuple(input.shape))


class BaddbmmBackward0(Node):
    """out = x + a @ b:  d/dx = grad (summed to x's shape), d/da = grad @ b^T,
    d/db = a^T @ grad"""

    _saved_names = ("batch1", "batch2")
    self_sym_sizes: tuple

    def backward(self, grad):
        a, b = self.saved_tensors
        grad_input = grad
        if tuple(grad.shape) != self.self_sym_sizes:
            grad_input = _summed_to(grad, self.self_sym_sizes)
        return grad_input, grad.bmm(b.transpose(1, 2)), a.transpose(1, 2).bmm(grad)


def _summed_to(grad, shape):
    """grad summed over the dimensions broadcasting stretched to reach its shape"""
    extra = grad.dim() - len(shape)
    if extra:
        grad = grad.sum(tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(stretched, keepdim=True) if stretched else grad


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """a bool mask as a float one (-inf where True); another dtype than the other mask's:
    torch's deprecation warning"""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != dtypes.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                      "Use same type for both instead.", stacklevel=3)
    if not is_float:
        mask = zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """whether the input is batched, with torch's AssertionErrors for the wrong dimensions"""
    if query.dim() not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    batched = query.dim() == 3
    words = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"For {words} `query`, expected `key` and `value` to be "
                             f"{query.dim()}-D but found {key.dim()}-D and {value.dim()}-D "
                             "tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != query.dim() - 1:
        raise AssertionError(f"For {words} `query`, expected `key_padding_mask` to be `None` "
                             f"or {query.dim() - 1}-D but found {key_padding_mask.dim()}-D "
                             "tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {words} `query`, expected `attn_mask` to be `None`, 2-D "
                                 f"or 3-D but found {attn_mask.dim()}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")
    return batched


def _packed_projection(query, key, value, weight, bias):
    """q, k, v from one (3E, E) weight: one linear for self-attention, two for
    encoder-decoder attention (key is value), three otherwise (torch's _in_projection_packed)"""
    embed = query.size(-1)
    if key is value:
        if query is key:
            projected = linear(query, weight, bias).unflatten(-1, (3, embed)).unsqueeze(0)
            projected = projected.transpose(0, -2).squeeze(-2).contiguous()
            return projected[0], projected[1], projected[2]
        weight_q, weight_kv = weight.split([embed, embed * 2])
        bias_q, bias_kv = (None, None) if bias is None else bias.split([embed, embed * 2])
        projected = linear(key, weight_kv, bias_kv).unflatten(-1, (2, embed)).unsqueeze(0)
        projected = projected.transpose(0, -2).squeeze(-2).contiguous()
        return linear(query, weight_q, bias_q), projected[0], projected[1]
    weights = weight.chunk(3)
    biases = (None,) * 3 if bias is None else bias.chunk(3)
    return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """torch.nn.functional.multi_head_attention_forward, (L, N, E) layout"""
    if static_k is not None or static_v is not None:
        raise NotImplementedError("engine: multi_head_attention_forward's static_k/static_v "
                                  "are not implemented")
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    target_length, batch, embed_dim = query.shape
    source_length = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       None if attn_mask is None else attn_mask.dtype,
                                       "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
        biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = (linear(x, w, b) for x, w, b in zip(
            (query, key, value), (q_proj_weight, k_proj_weight, v_proj_weight), biases))
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape "
                                 f"{value.shape}")
        q, k, v = _packed_projection(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (target_length, source_length):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(target_length, source_length)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (batch * num_heads, target_length, source_length):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(batch * num_heads, target_length, source_length)}.")
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.repeat(1, batch, 1)])
        v = cat([v, bias_v.repeat(1, batch, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    q = q.view(target_length, batch * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], batch * num_heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], batch * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        shape = (batch * num_heads, 1, head_dim)
        k = cat([k, zeros(shape, dtype=k.dtype)], dim=1)
        v = cat([v, zeros(shape, dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    source_length = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != batch:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {batch}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != source_length:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {source_length}, but "
                                 f"got {key_padding_mask.shape[1]}")
        key_padding_mask = key_padding_mask.view(batch, 1, 1, source_length).expand(
            -1, num_heads, -1, -1).reshape(batch * num_heads, 1, source_length)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        scaled_q = q * math.sqrt(1.0 / float(q.shape[2]))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = baddbmm(attn_mask, scaled_q, k.transpose(-2, -1))
        else:
            weights = scaled_q.bmm(k.transpose(-2, -1))
        weights = reduce.softmax(weights, -1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = weights.bmm(v).transpose(0, 1).reshape(target_length * batch, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(target_length, batch, out.size(1))
        weights = weights.view(batch, num_heads, target_length, source_length)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        attn_mask = attn_mask.unsqueeze(0) if attn_mask.size(0) == 1 and \
            attn_mask.dim() == 3 else attn_mask.view(batch, num_heads, -1, source_length)
    q = q.view(batch, num_heads, target_length, head_dim)
    k = k.view(batch, num_heads, source_length, head_dim)
    v = v.view(batch, num_heads, source_length, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(batch * target_length, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(target_length, batch, out.size(1))
    return (out if batched else out.squeeze(1)), None
