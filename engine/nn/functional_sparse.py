"""``embedding``: rows of a weight table picked by integer indices (torch.nn.functional's
"sparse" family, as its file is named in torch).

Forward: ``out[..., :] = weight[indices[...], :]``, i.e. ``weight.index_select(0, indices)``
shaped as ``indices.shape + (embedding_dim,)``. Backward (``EmbeddingBackward0``): each
output row's gradient is added to the weight row it was read from, in the order of the
indices (the order torch adds them in, so float sums round the same); rows read at
``padding_idx`` get nothing.
"""
import numpy as np

from ..core.grad_mode import no_grad
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from ..fidelity.dtypes import legacy_type_name
from ..fidelity.messages import type_name
from ..ops.indexing import scatter_add

_INDEX_KINDS = (np.dtype(np.int64), np.dtype(np.int32))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """The rows of ``weight`` at ``input``'s indices (a lookup table: token ids -> vectors).

    ``padding_idx``: that row gets no gradient. ``max_norm``: rows read here whose
    ``norm_type``-norm exceeds it are first rescaled to it, in ``weight`` itself (in place,
    as torch does). ``scale_grad_by_freq``: each row's gradient is divided by how often it
    was read in this batch.
    """
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    return _embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _check_indices(indices, function, position=1):
    if not isinstance(indices, Tensor):
        raise TypeError(f"{function}(): argument 'indices' (position 2) must be Tensor, not "
                        f"{type_name(indices)}")
    if indices._data.dtype not in _INDEX_KINDS:
        raise RuntimeError(f"Expected tensor for argument #{position} 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{legacy_type_name(indices.dtype)} instead (while checking "
                           f"arguments for {function})")


def _embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
    """torch.embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)."""
    _check_indices(indices, "embedding")
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    where = indices._data.reshape(-1)
    rows = weight._data.shape[0]
    if ((where < 0) | (where >= rows)).any():  # (no counting from the end here)
        raise IndexError("index out of range in self")
    values = np.take(weight._data, where, axis=0).reshape(indices._data.shape
                                                          + weight._data.shape[1:])
    return record(EmbeddingBackward0, wrap(np.ascontiguousarray(values)), (weight,),
                  saved=(indices,), padding_idx=padding_idx,
                  scale_grad_by_freq=scale_grad_by_freq, sparse=sparse,
                  weight_sym_argsize_0=rows)


class EmbeddingBackward0(Node):
    """out = weight[indices]:  d/d weight[k] = the sum of grad's rows read from row k (none
    for k == padding_idx), each divided by k's count in indices with scale_grad_by_freq"""

    _saved_names = ("indices",)
    padding_idx: int
    scale_grad_by_freq: bool
    sparse: bool
    weight_sym_argsize_0: int

    def backward(self, grad):
        if self.sparse:
            raise NotImplementedError(
                "embedding(sparse=True): the engine has no sparse tensors, so it cannot make "
                "the sparse gradient torch gives; use sparse=False (notebooks/DIFFERENCES.md)")
        (indices,) = self.saved_tensors
        where = indices._data.reshape(-1)
        dim = grad._data.shape[-1]
        rows = grad.reshape(-1, dim)
        if self.padding_idx >= 0:  # rows read at padding_idx give nothing back
            keep = np.nonzero(where != self.padding_idx)[0]
            where = where[keep]
            rows = rows.index_select(0, wrap(keep))
        if self.scale_grad_by_freq:
            counts = np.bincount(where, minlength=self.weight_sym_argsize_0)
            # torch divides in double and scales each row by that factor in grad's dtype
            scale = (1.0 / counts[where]).astype(grad._data.dtype).reshape(-1, 1)
            rows = rows * wrap(scale)
        spread = wrap(np.ascontiguousarray(np.broadcast_to(where.reshape(-1, 1),
                                                           (where.size, dim))))
        zeros = wrap(np.zeros((self.weight_sym_argsize_0, dim), grad._data.dtype))
        return scatter_add(zeros, 0, spread, rows)


def embedding_renorm_(weight, indices, max_norm, norm_type):
    """Rescale, in place, each row of ``weight`` read by ``indices`` whose ``norm_type``-norm
    is above ``max_norm`` to norm ``max_norm`` (torch.embedding_renorm_: rows in sorted
    order, each once; the factor is max_norm / (norm + 1e-7))."""
    _check_indices(indices, "embedding_renorm_", position=2)
    with no_grad():
        for k in np.unique(indices._data.reshape(-1)):
            row = weight.select(0, int(k))
            norm = row.norm(norm_type).item()
            if norm > max_norm:
                row.mul_(max_norm / (norm + 1e-7))
    return weight
