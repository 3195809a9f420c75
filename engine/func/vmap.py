"""``torch.vmap`` / ``torch.func.vmap``: a function of one sample, run on a whole batch.

``vmap(f, in_dims, out_dims)(*args)`` moves each batched input's ``in_dim`` to the front
and calls f once with ``BatchedTensor``s (batched.py) that look like single samples; their
operations run once on the whole batch. The results' batch dimension goes to ``out_dims``
(a result that does not depend on the batch is broadcast to it, as torch's).

When f uses an operation without a batching rule (batched.py's docstring lists those with
one), the batched call stops (``NoBatchingRule``) and vmap calls f once per sample instead,
then stacks the results: the same numbers, a Python loop's speed. ``chunk_size`` runs the
batch in chunks. ``randomness``: "error" refuses a random draw inside f (as torch), "same"
draws once for the whole batch, "different" draws per sample (by the loop, sample after
sample). ``.item()`` on a batched tensor, and writing a batched value into a tensor that is
not batched (``captured.add_(x)``), raise torch's errors. A custom ``autograd.Function``
meets vmap's level (``VmapLevel``), which calls its own batching rule (function_vmap.py).
"""
import functools

from ..core.tensor import Tensor
from ..ops.join import cat, stack
from .batched import BatchedTensor, NoBatchingRule
from .function_vmap import VmapLevel
from .pytree import LEAF, broadcast_prefix, spec_repr, tree_flatten, tree_unflatten


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``vmap(f)(x)``: f applied to every slice of x along ``in_dims`` (0), stacked along
    ``out_dims`` (0). ``in_dims``: an int, or a tuple with one entry per argument (an int,
    None for an argument that is not batched, or a tree matching that argument)."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        if randomness not in ("error", "different", "same"):
            raise RuntimeError("Only allowed values for randomness are 'error', 'different', "
                               f"or 'same'. Got {randomness}")
        _check_out_dims(out_dims, func)
        flat_args, args_spec = tree_flatten(args)
        flat_in_dims = _flat_in_dims(func, in_dims, args, flat_args, args_spec)
        sizes = [a.size(d) for a, d in zip(flat_args, flat_in_dims) if d is not None]
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over")
        if any(size != sizes[0] for size in sizes):
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        run = functools.partial(_run, func, flat_in_dims, args_spec, kwargs, out_dims,
                                randomness)
        if chunk_size is None or chunk_size >= sizes[0]:
            return run(flat_args, sizes[0])
        pieces = []
        for start in range(0, sizes[0], chunk_size):
            length = min(chunk_size, sizes[0] - start)
            chunk = [a if d is None else a.narrow(d, start, length)
                     for a, d in zip(flat_args, flat_in_dims)]
            pieces.append(run(chunk, length))
        return _joined(pieces, func, out_dims)

    return wrapped


def _name(func):
    return getattr(func, "__name__", repr(func))


def _flat_in_dims(func, in_dims, args, flat_args, args_spec):
    """One in_dim per leaf of ``args``, checked as torch checks them."""
    where = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) "
                         f"tuple matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to "
                         "add inputs, or you are trying to vmap over a function with no "
                         "inputs. The latter is unsupported.")
    flat = broadcast_prefix(in_dims, args)
    if flat is None:
        raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. "
                         f"in_dims has structure {spec_repr(tree_flatten(in_dims)[1])} but "
                         f"inputs has structure {spec_repr(args_spec)}.")
    for i, (arg, dim) in enumerate(zip(flat_args, flat)):
        if dim is None:
            continue
        if not isinstance(dim, int):
            raise ValueError(f"{where}: Got in_dim={dim} for an input but in_dim must be either "
                             "an integer dimension or None.")
        if not isinstance(arg, (Tensor, BatchedTensor)):
            raise ValueError(f"{where}: Got in_dim={dim} for an input but the input is of type "
                             f"{type(arg)}. We cannot vmap over non-Tensor arguments, please "
                             "use None as the respective in_dim")
        if not -arg.dim() <= dim < arg.dim():
            raise ValueError(f"{where}: Got in_dim={dim} for some input, but that input is a "
                             f"Tensor of dimensionality {arg.dim()} so expected in_dim to "
                             f"satisfy -{arg.dim()} <= in_dim < {arg.dim()}.")
        flat[i] = dim % arg.dim()
    return flat


def _check_out_dims(out_dims, func):
    for dim in tree_flatten(out_dims)[0]:
        if dim is not None and not isinstance(dim, int):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must "
                             "be an int, None or a python collection of ints representing where "
                             "in the outputs the vmapped dimension should appear.")


LOOP = object()  # (what the batched call gives when an operation has no rule: None is a result)


def _run(func, flat_in_dims, args_spec, kwargs, out_dims, randomness, flat_args, size):
    """One batched call of f, or, if an operation has no rule, a call per sample."""
    with VmapLevel(size, randomness) as interpreter:
        batched = [a if d is None else BatchedTensor(a.movedim(d, 0), interpreter.level, d, a)
                   for a, d in zip(flat_args, flat_in_dims)]
        try:
            output = func(*tree_unflatten(batched, args_spec), **kwargs)
        except NoBatchingRule:
            output = LOOP
        except TypeError as error:  # an engine function given a BatchedTensor it cannot take
            if "BatchedTensor" not in str(error):
                raise
            output = LOOP
    if output is not LOOP:
        return _unwrapped(output, interpreter.level, size, out_dims, func)
    return _loop(func, flat_in_dims, args_spec, kwargs, out_dims, randomness, flat_args, size)


def _loop(func, flat_in_dims, args_spec, kwargs, out_dims, randomness, flat_args, size):
    """f once per sample, the results stacked along out_dims (batched.py's fallback)."""
    outputs = []
    with VmapLevel(size, randomness, batched=False):  # (still inside vmap: a custom Function)
        for i in range(size):
            sample = [a if d is None else a.select(d, i) for a, d in zip(flat_args, flat_in_dims)]
            outputs.append(func(*tree_unflatten(sample, args_spec), **kwargs))
    flat_outputs = [tree_flatten(o)[0] for o in outputs]
    spec = tree_flatten(outputs[0])[1]
    dims = _out_dims_per_leaf(out_dims, outputs[0], spec, func)
    joined = []
    for j, dim in enumerate(dims):
        column = [flat[j] for flat in flat_outputs]
        _check_output(column[0], dim, func, batched=False)
        joined.append(column[0] if dim is None else stack(column, dim))
    return tree_unflatten(joined, spec)


def _out_dims_per_leaf(out_dims, output, spec, func):
    if isinstance(output, (Tensor, BatchedTensor)):
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        found = None
    else:
        found = broadcast_prefix(out_dims, output)
    if found is None:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is "
                         "not compatible with the structure of `outputs`. out_dims has structure "
                         f"{spec_repr(tree_flatten(out_dims)[1])} but outputs has structure "
                         f"{spec_repr(spec)}.")
    return found


def _check_output(value, dim, func, batched):
    name = _name(func)
    if dim is None:
        if batched:
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when "
                             "out_dim is None")
        return
    if not isinstance(value, (Tensor, BatchedTensor)):
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                         f"{type(value)}. Did you mean to set out_dims= to None for output?")


def _unwrapped(output, level, size, out_dims, func):
    """The batched call's results with their batch dimension moved to out_dims."""
    flat, spec = tree_flatten(output)
    dims = _out_dims_per_leaf(out_dims, output, spec, func)
    results = []
    for value, dim in zip(flat, dims):
        mine = isinstance(value, BatchedTensor) and value.level == level
        _check_output(value, dim, func, batched=mine)
        if dim is None:
            results.append(value)
            continue
        if not mine:  # the same for every sample: broadcast along the batch (stride 0)
            value = value.unsqueeze(0).expand(size, *value.shape)
        elif value.origin is not None and value.bdim == dim % (value.dim() + 1):
            results.append(value.origin)  # (torch's: the tensor it wraps, the very one)
            continue
        else:
            value = value.value
        results.append(value.movedim(0, dim % value.dim()) if dim else value)
    return tree_unflatten(results, spec)


def _joined(pieces, func, out_dims):
    """The chunks' results put together along out_dims."""
    flat = [tree_flatten(p)[0] for p in pieces]
    spec = tree_flatten(pieces[0])[1]
    dims = [out_dims] if spec == LEAF else _out_dims_per_leaf(out_dims, pieces[0], spec, func)
    return tree_unflatten([column[0] if dim is None else cat(list(column), dim)
                           for column, dim in zip(zip(*flat), dims)], spec)
