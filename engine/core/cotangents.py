"""``autograd.grad(..., is_grads_batched=True)``: a batch of cotangents through one walk (read
after the spine).

Each ``grad_outputs`` tensor carries a batch of cotangents along its first dimension; the
result is, for each input, the batch of vector-Jacobian products. torch runs it as ``vmap``
over the backward pass: every formula runs once, on the whole batch (``torch.func.jacrev``
is made of it). Here the walk is ``backward()``'s own; only what running one node means
changes (``apply_batched``, handed to ``Capture`` as ``apply_formula`` is), and the gradients
it carries have the batch as their leading dimension:

* a node marked ``jvp = "element_wise"`` (its formula is the gradient times something of its
  inputs) runs its formula as it is: broadcasting carries the batch;
* a node with a ``batched_backward`` method runs it: its formula with the batch dimension
  counted (views, reductions, matrix products);
* any other node runs once per sample, its results written into one batch: slower, never
  wrong.

At the edge (``batch_validated``), a gradient is summed down to its input's shape with the
batch dimension kept (``batch_sum_to``), and cast to the input's dtype, as ``validated``
does without a batch. Nothing here runs unless ``is_grads_batched=True`` is given.
"""
from ..fidelity import dtypes, messages
from .grad_mode import mode
from .node import gradient_edge, is_tensor


def starting_cotangents(outputs, grad_outputs):
    """The batches of cotangents, after torch's checks (its ``_make_grads``, then vmap's)."""
    grads = []
    for index, (output, grad) in enumerate(zip(outputs, grad_outputs)):
        if grad is None:
            if output.requires_grad and output._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grad = output._empty_like() if output.requires_grad else None
            if grad is not None:
                grad._data[...] = 1
        elif not is_tensor(grad):
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(grad).__name__}")
        elif not grad._data.ndim:  # (torch reads the first sample: grad[0])
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        elif grad._data.shape[1:] != output._data.shape:
            if grad._data.shape[0] == 0:  # (torch reads the first sample's shape)
                raise IndexError("index 0 is out of bounds for dimension 0 with size 0")
            # torch's message drops the first dimension twice: its words, its numbers
            raise RuntimeError(messages.batched_grad_output_shape(
                index, grad.shape[2:], output.shape))
        elif grad._data.dtype != output._data.dtype:
            grad = grad.to(output.dtype)
        grads.append(grad)
    sizes = [g._data.shape[0] if g._data.ndim else None for g in grads if g is not None]
    if None in sizes:
        raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but "
                         "that input is a Tensor of dimensionality 0 so expected in_dim to "
                         "satisfy 0 <= in_dim < 0.")
    if len(set(sizes)) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    for index, output in enumerate(outputs):
        if gradient_edge(output)[0] is None:
            raise RuntimeError(messages.no_grad_fn(index))
    return grads


def apply_batched(node, grads, retain_graph):
    """``backward.apply_formula`` for gradients with a leading batch dimension."""
    hooks = node._hooks
    batch = next(g for g in grads if g is not None)._data.shape[0]
    if hooks is not None:
        grads = per_sample_hook(hooks.run_pre_hooks, batch, grads)
        if grads is None:
            return [None] * len(node.next_functions)
    rule = getattr(node, "batched_backward", None)
    if rule is not None:
        input_grads = rule(*grads)
    elif getattr(node, "jvp", None) == "element_wise":
        input_grads = node.backward(*grads)
    else:
        input_grads = per_sample(node, grads, batch)
    input_grads = batch_validated(node, input_grads, batch)
    if hooks is not None:
        input_grads = per_sample_hook(hooks.run_post_hooks, batch, input_grads, grads)
    if not retain_graph:
        node._release()
    return input_grads


def tensor_hooks_per_sample(node, grads):
    """The hooks on a node's tensors, one sample at a time (``Capture``'s ``tensor_hooks``)."""
    hooks = node._hooks
    if hooks is None:
        return grads
    if hooks.retained:  # retain_grad's .grad += under torch's vmap: its error
        raise RuntimeError("Batching rule not implemented for aten::is_nonzero. "
                           "We could not generate a fallback.")
    batch = next(g for g in grads if g is not None)._data.shape[0]
    return list(per_sample_hook(hooks.run_tensor_hooks, batch, grads))


def per_sample_hook(run_hooks, batch, *gradient_lists):
    """Hooks see one sample's gradients, as under torch's vmap (there: once, on a batched
    tensor; here: once per sample), their results written into one batch."""
    rows = []
    for i in range(batch):
        found = run_hooks(*([None if g is None else g[i] for g in grads]
                            for grads in gradient_lists))
        if found is None:  # pre-hooks that dropped every gradient
            return None
        rows.append(found)
    return stacked(rows, batch)


def per_sample(node, grads, batch):
    """The node's formula once per sample, each input's results written into one batch
    (with ``create_graph``, as recorded writes)."""
    rows = []
    for i in range(batch):
        found = node.backward(*(None if g is None else g[i] for g in grads))
        rows.append(found if isinstance(found, (tuple, list)) else (found,))
    return stacked(rows, batch)


def stacked(rows, batch):
    """Per-sample results (one tuple per sample) as one batch per position."""
    columns = []
    for column in zip(*rows):
        first = next((g for g in column if g is not None), None)
        if first is None:
            columns.append(None)
            continue
        out = first.new_zeros((batch,) + tuple(first._data.shape))
        for i, g in enumerate(column):
            if g is None:
                continue
            if mode.grad_enabled:  # create_graph: a recorded write
                out[i] = g
            else:  # (not counted as a change of the result: its version stays 0, as torch's)
                out._data[i] = g._data
        columns.append(out)
    return tuple(columns)


def batch_validated(node, grads, batch):
    """``backward.validated`` with a batch: each gradient summed to ``(batch, *shape)``."""
    if not isinstance(grads, tuple):
        grads = tuple(grads) if isinstance(grads, list) else (grads,)
    if len(grads) != len(node.next_functions):
        raise RuntimeError(messages.wrong_number_of_gradients(node, len(grads)))
    checked = []
    for index, (grad, meta) in enumerate(zip(grads, node._input_meta)):
        if grad is None or meta is None or node.next_functions[index][0] is None:
            checked.append(None)
            continue
        shape, np_dtype = meta
        full = (batch,) + tuple(shape)
        if grad._data.shape != full:
            if grad._data.ndim <= len(shape):  # the same for every sample (no batch dim)
                grad = grad.expand(full)
            else:
                grad = batch_sum_to(node, index, grad, full)
        if grad._data.dtype != np_dtype:
            grad = grad.to(dtypes.from_numpy_dtype[np_dtype])
        checked.append(grad)
    return checked


def batch_sum_to(node, index, grad, full):
    """``sum_to`` that keeps dimension 0, the batch: the dims after it that broadcasting
    added or stretched are summed."""
    have = grad._data.shape
    lead = len(have) - len(full)
    if have[0] not in (full[0], 1) or not all(
            n in (m, 1) for n, m in zip(full[1:], have[1 + lead:])):
        raise RuntimeError(messages.invalid_gradient_shape(node, index, grad[0], full[1:]))
    dims = tuple(range(1, 1 + lead)) + tuple(
        lead + d for d in range(1, len(full)) if full[d] == 1 and have[lead + d] != 1)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    if lead:
        grad = grad.view(grad._data.shape[:1] + full[1:])
    return grad if grad._data.shape == full else grad.expand(full)
