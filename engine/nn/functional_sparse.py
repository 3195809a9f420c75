"""``embedding``: rows of a weight table picked by integer indices, and ``embedding_bag``:
their sum, mean or max per bag (torch.nn.functional's "sparse" family, as its file is named
in torch).

Forward: ``out[..., :] = weight[indices[...], :]``, i.e. ``weight.index_select(0, indices)``
shaped as ``indices.shape + (embedding_dim,)``. Backward (``EmbeddingBackward0``): each
output row's gradient is added to the weight row it was read from, in the order of the
indices (the order torch adds them in, so float sums round the same); rows read at
``padding_idx`` get nothing.
"""
import warnings

import numpy as np

from ..core.grad_mode import no_grad
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from ..fidelity.dtypes import cpp_type_name, promote_types
from ..fidelity import messages, signatures
from ..fidelity.messages import type_name
from ..ops.indexing import scatter_add
from ..ops.common import histories_read_first

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
                           f"{cpp_type_name(indices.dtype)} instead (while checking "
                           f"arguments for {function})")


def _embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
    """torch.embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): its parser's
    checks in its order (F.embedding hands padding_idx on to it, whose SymInt it is), then
    the kernel's."""
    if not isinstance(weight, Tensor):
        raise TypeError(f"embedding(): argument 'weight' (position 1) must be Tensor, not "
                        f"{type_name(weight)}")
    if not isinstance(indices, Tensor):
        raise TypeError(f"embedding(): argument 'indices' (position 2) must be Tensor, not "
                        f"{type_name(indices)}")
    padding_idx = signatures.checked_int("embedding", "padding_idx", 3, padding_idx, symint=True)
    for position, (name, value) in enumerate((("scale_grad_by_freq", scale_grad_by_freq),
                                              ("sparse", sparse)), 4):
        if value is not True and value is not False:
            raise TypeError(f"embedding(): argument '{name}' (position {position}) must be "
                            f"bool, not {type_name(value)}")
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
            raise NotImplementedError(messages.no_sparse_gradient("embedding"))
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
    for position, (name, value) in enumerate((("max_norm", max_norm),
                                              ("norm_type", norm_type)), 3):
        if not signatures.fits(value, "float"):  # (torch's parser, before the kernel's checks)
            raise TypeError(f"embedding_renorm_(): argument '{name}' (position {position}) must "
                            f"be float, not {type_name(value)}")
    max_norm, norm_type = float(max_norm), float(norm_type)
    _check_indices(indices, "embedding_renorm_", position=2)
    with no_grad():
        for k in np.unique(indices._data.reshape(-1)):
            row = weight.select(0, int(k))
            norm = row.norm(norm_type).item()
            if norm > max_norm:
                row.mul_(max_norm / (norm + 1e-7))
    return weight


# ====================================================================== embedding_bag
_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}
_NO_PADDING = 2 ** 64 - 1  # torch saves "no padding_idx" as -1 read as an unsigned 64-bit int


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """One vector per bag of indices: the sum, mean or (per column) max of ``weight``'s rows
    at the bag's indices, without making the (indices x embedding_dim) tensor in between.

    Bags: each row of a 2-D ``input``, or, for a 1-D ``input``, the runs that start at
    ``offsets`` (``include_last_offset``: offsets also holds the end of the last bag).
    ``per_sample_weights`` (mode='sum' only) multiplies each row before the sum. Indices equal
    to ``padding_idx`` are left out of their bag (a mean counts only the others); an empty bag
    gives zeros. ``max_norm`` rescales the rows read in ``weight`` itself, as ``embedding``.
    """
    if weight._data.dtype == np.int64 and input.is_floating_point():  # the old order
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is "
                             "a mini-batch of fixed length sequences. However, found offsets of "
                             f"type {_torch_type_str(offsets)}")
        offsets = wrap(np.arange(0, input.numel(), input.size(1), dtype=input._data.dtype))
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    return _embedding_bag(weight, input, offsets, scale_grad_by_freq, _BAG_MODES[mode], sparse,
                          per_sample_weights, include_last_offset, padding_idx)


def _torch_type_str(value):
    return "<class 'torch.Tensor'>" if isinstance(value, Tensor) else str(type(value))


def _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                   per_sample_weights, include_last_offset, padding_idx):
    """torch.embedding_bag's checks and forward: the bags' sums, means or maxima."""
    if isinstance(indices, Tensor) and isinstance(offsets, Tensor) and \
            indices.dtype != offsets.dtype:
        # torch brings the two to their common type before it checks either (bool offsets
        # become long, float ones make the indices float and are refused as such)
        common = promote_types(indices.dtype, offsets.dtype)
        indices, offsets = indices.to(common), offsets.to(common)
    _check_indices(indices, "embedding_bag")
    _check_indices(offsets, "embedding_bag")  # (torch names the offsets 'indices' too)
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have the same type as tensor for "
            "argument #1 'per_sample_weights'; but type "
            f"{cpp_type_name(weight.dtype)} does not equal "
            f"{cpp_type_name(per_sample_weights.dtype)} (while checking arguments for "
            "embedding_bag)")
    rows = weight._data.shape[0]
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{rows} "
                               f"through {rows - 1}, but got {padding_idx}")
        padding_idx %= rows
    where = indices._data.astype(np.int64)
    starts = offsets._data.astype(np.int64)
    if starts.size and starts[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {starts[0]}\n"
                           # (torch formats offsets[0] as a C++ 0-d tensor)
                           f"[ {cpp_type_name(offsets.dtype)}{{}} ]")
    if starts.size and starts[-1] > where.size:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {where.size} "
                           f"but got offsets[-1] of {starts[-1]}")
    bad = np.nonzero((where < 0) | (where >= rows))[0]
    if bad.size:
        raise RuntimeError(f"Index {bad[0]} of input takes value {where[bad[0]]} which is not in "
                           f"the valid range [0, {rows})")
    bags = starts.size - 1 if include_last_offset else starts.size
    ends = np.append(starts[1:], where.size)[:bags]
    if (ends < starts[:bags]).any() or (include_last_offset and bags and ends[-1] != where.size):
        # torch gives values here that follow from its kernels' layout, not from the bags
        raise NotImplementedError(
            "engine: embedding_bag's offsets must not decrease (and, with include_last_offset, "
            "end at the input's length): torch gives unspecified values otherwise "
            "(notebooks/DIFFERENCES.md)")
    padding_idx = _NO_PADDING if padding_idx is None else padding_idx
    weights = None if per_sample_weights is None else per_sample_weights._data
    values = _bag_values(weight._data, where, starts, bags, padding_idx, mode, weights)
    return record(EmbeddingBagBackward0, wrap(values[0]), (weight, per_sample_weights),
                  saved=(indices, offsets, weight, per_sample_weights),
                  mode=mode, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq,
                  sparse=sparse, weight_sym_argsize_0=rows)


def _bags(where, starts, bags, padding_idx):
    """Each position's bag (bag b runs from starts[b] to the next start or the end) and
    whether it counts (not padding_idx)."""
    ends = np.append(starts[1:], where.size)[:bags]
    bag_of = np.repeat(np.arange(bags), ends - starts[:bags])
    kept = where[:bag_of.size] != padding_idx
    return bag_of[kept], np.nonzero(kept)[0]


def _bag_values(table, where, starts, bags, padding_idx, mode, weights):
    """The forward in numpy: (output, the kept positions' bags, the kept positions, each
    bag's count of them, for max the row chosen per bag and column)."""
    bag_of, kept = _bags(where, starts, bags, padding_idx)
    dim = table.shape[1]
    out = np.zeros((bags, dim), table.dtype)
    counts = np.bincount(bag_of, minlength=bags)
    chosen = None
    if mode == 2:  # max: per column, the first kept row holding the bag's largest value
        chosen = np.full((bags, dim), -1, np.int64)
        for bag in np.nonzero(counts)[0]:
            members = where[kept[bag_of == bag]]
            chosen[bag] = members[np.argmax(table[members], axis=0)]
            out[bag] = table[chosen[bag], np.arange(dim)]
    else:
        rows = table[where[kept]]
        if weights is not None:
            rows = rows * weights.reshape(-1)[kept].reshape(-1, 1)
        np.add.at(out, bag_of, rows)  # in the indices' order, as torch adds
        if mode == 1:
            out /= np.maximum(counts, 1).astype(table.dtype).reshape(-1, 1)
    return out, bag_of, kept, counts, chosen


class EmbeddingBagBackward0(Node):
    """out[b] = sum (or mean, or per-column max) of weight[i] * psw[i] over bag b's indices:
    d/d weight[k] = the sum of grad[b] (* psw[i], / the bag's count for the mean, / k's count
    with scale_grad_by_freq) over the positions i reading row k; for max, grad[b, d] goes to
    the row chosen in column d. d/d psw[i] = grad[b] . weight[index i]. Padding positions:
    nothing either way."""

    _saved_names = ("indices", "offsets", "weight", "per_sample_weights")
    mode: int
    padding_idx: int
    scale_grad_by_freq: bool
    sparse: bool
    weight_sym_argsize_0: int

    def backward(self, grad):
        if self.sparse:
            raise NotImplementedError(messages.no_sparse_gradient("embedding_bag"))
        indices, offsets, weight, weights = self.saved_tensors
        where, g = indices._data.reshape(-1).astype(np.int64), grad._data
        # the bags again, from the saved tensors (grad has one row per bag)
        _, bag_of, kept, counts, chosen = _bag_values(
            weight._data, where, offsets._data.astype(np.int64), g.shape[0], self.padding_idx,
            self.mode, None)
        grad_weight = np.zeros(weight._data.shape, g.dtype)
        if self.mode == 2:
            filled = chosen >= 0
            columns = np.broadcast_to(np.arange(g.shape[1]), g.shape)
            np.add.at(grad_weight, (chosen[filled], columns[filled]), g[filled])
        else:
            position_grads = g[bag_of]
            if weights is not None:
                position_grads = position_grads * weights._data.reshape(-1)[kept].reshape(-1, 1)
            if self.mode == 1:
                position_grads = position_grads / counts[bag_of].astype(g.dtype)[:, None]
            if self.scale_grad_by_freq:
                freq = np.bincount(where[kept], minlength=grad_weight.shape[0])
                position_grads = position_grads / freq[where[kept]].astype(g.dtype)[:, None]
            np.add.at(grad_weight, where[kept], position_grads)
        grad_weights = None
        if weights is not None and self.next_functions[1][0] is not None:
            dots = np.zeros(where.size, g.dtype)
            dots[kept] = (g[bag_of] * weight._data[where[kept]]).sum(axis=1)
            grad_weights = record(EmbeddingBagBackwardBackward0,
                                  wrap(dots.reshape(weights._data.shape)), (grad,))
        # the gradients are made in numpy: with create_graph they carry torch's node, which
        # has no derivative of its own (torch: "the derivative ... is not implemented")
        return record(EmbeddingBagBackwardBackward0, wrap(grad_weight), (grad,)), grad_weights


class EmbeddingBagBackwardBackward0(Node):
    """torch records this node on embedding_bag's gradients but has no derivative for it."""

    def backward(self, grad):
        raise NotImplementedError("the derivative for '_embedding_bag_backward' is not "
                                  "implemented.")


# (torch's embedding op reads the nodes before its checks)
histories_read_first(globals(), ["embedding"])
