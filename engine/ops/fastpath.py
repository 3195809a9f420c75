"""``x + y``, ``x - y``, ``x * y``, ``x / y`` on two float tensors, and ``x.sum(dims,
keepdim=...)`` / ``x.mean(...)``, without the general path's detours: the same result, the
same node, fewer Python calls.

Nothing to read for autograd: ``arithmetic.add`` & co are the operations, and this module
only runs them quicker in their most common case (both operands float32, or both float64,
tensors), where the general op comes down to ``ufunc(x, y)``, a result laid out as
``common.elementwise`` lays it out, and ``record``'s node. Anything else (numbers, mixed or
other dtypes, operands that do not broadcast, ``alpha=``) goes to the general op. The node
is ``record``'s: the same edges, input shapes and saved tensors, wired by the same
``core.node.connect``; tests/ops/test_fast_paths.py checks results, nodes and errors against
the general path.

Why: each Python call and each generic step (``record``'s loops over ``inputs``,
``outputs`` and ``**state``) costs about as much as numpy's own work on a small tensor, and
``x + y`` with grad took twice torch's time (issue 15).
"""
import inspect

import numpy as np

from ..fidelity.floating import silent_runner
from ..core.forward import state as dual
from ..core.grad_mode import mode
from ..core.node import SavedTensor, connect, gradient_edge, save_input, shared_meta
from ..core.saved import default_hooks, in_torchs_order
from ..core.tensor import Tensor, wrap
from .common import reading_histories_first, wrap_like_operands

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def binary(general, ufunc, node_class, saved=None, alpha=False):
    """``general(input, other)`` quicker for two float tensors of one dtype.

    ``saved(input, other)`` gives the node's saved values as ``general`` passes them to
    ``record`` (``saved=``); ``alpha``: the node declares ``alpha`` (1 here).
    """
    f32, f64 = _FLOATS

    def op(input, other):
        if not (isinstance(other, Tensor) and isinstance(input, Tensor)) or dual.active:
            return general(input, other)
        x, y = input._data, other._data
        dtype = x.dtype
        if y.dtype is not dtype or (dtype is not f32 and dtype is not f64):
            return general(input, other)
        try:
            result = silent_runner()(ufunc, x, y)  # (quietly(ufunc, x, y), one call fewer)
        except ValueError:  # no broadcasting: the general op raises torch's error
            if mode.recording:
                # torch's autograd reads the operands' nodes before its kernel checks shapes:
                # a view made in no_grad or inference mode whose memory changed in place
                # since raises that first (Tensor.grad_fn brings a view's node up to date)
                input.grad_fn, other.grad_fn  # noqa: B018
            return general(input, other)
        # (as common.elementwise lays the result out)
        if result.ndim > 1 and not (x.flags.c_contiguous and y.flags.c_contiguous):
            result = wrap_like_operands(result, (x, y))
        else:
            result = wrap(result)
        if mode.recording and (input._requires_grad or other._requires_grad):
            # record's node, built here (one call fewer): its edges, inputs' shapes, saved values
            meta = shared_meta(x.shape, x.dtype)
            node = connect(node_class(), (_edge(input), _edge(other)),
                           (meta, meta if y.shape == x.shape else shared_meta(y.shape, y.dtype)))
            if saved is not None and default_hooks.stack:  # (saved_tensors_hooks' order)
                node._saved = in_torchs_order(node_class._saved_names,
                                                   saved(input, other), save_input)
            elif saved is not None:
                node._saved = tuple([SavedTensor(kept, False) if kept is not None else None
                                     for kept in saved(input, other)])
            if alpha:
                node.alpha = 1
            result._grad_fn, result._requires_grad = node, True
        return result

    op.__name__ = op.__qualname__ = general.__name__
    op.__doc__ = general.__doc__
    return op


def _edge(value):
    """``gradient_edge(value)``, its two usual cases first."""
    if value._requires_grad and value._base is None:
        node = value._grad_fn
        return (node, value._output_nr) if node is not None else (value._grad_accumulator(), 0)
    return gradient_edge(value)


def reduction(general):
    """The method ``general`` (``Tensor.sum``, ``Tensor.mean``) quicker for the calls that
    need no parsing: ``x.sum()``, ``x.sum(dim)`` and ``x.sum(dim, keepdim)`` with ``dim`` an
    int or a tuple or list of ints and ``keepdim`` a bool, positional or ``keepdim=``
    (backward's ``sum_to`` calls ``grad.sum(dims, keepdim=True)`` for every broadcast input).
    The op itself runs, as after torch's parser; any other call goes through it."""
    # (below the parser, out= and numpy's names; a stale view's error first, as the op's)
    op_itself = reading_histories_first(inspect.unwrap(general))

    def op(self, *args, **kwargs):
        given = args + (kwargs["keepdim"],) if len(kwargs) == 1 and "keepdim" in kwargs and \
            len(args) == 1 else args if not kwargs else None
        if given is None or len(given) > 2 or (len(given) == 2 and given[1].__class__ is not bool):
            return general(self, *args, **kwargs)
        if given:
            dim = given[0]
            if dim.__class__ is not int and not (
                    dim.__class__ in (tuple, list) and all(d.__class__ is int for d in dim)):
                return general(self, *args, **kwargs)
        return op_itself(self, *given)

    op.__name__ = op.__qualname__ = general.__name__
    op.__doc__ = general.__doc__
    return op
