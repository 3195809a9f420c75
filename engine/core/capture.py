"""``autograd.grad`` and ``backward(inputs=...)``: the walk, for chosen inputs only (read after
the spine).

``torch.autograd.grad(y, [x])`` returns the gradient that reaches ``x`` and leaves every
``.grad`` alone; ``y.backward(inputs=[x])`` puts it into ``x.grad`` only. Both run the same
walk as ``backward()`` (``backward.run_backward``), with ``Capture.run_node`` as what running
a node means: it keeps the gradients that reach the inputs, and runs only the nodes on a
path to one of them, as torch does.

The two entry points, ``grad()`` and ``backward()``, are in ``backward.py``, which imports
this file (so this one does not import the walk: ``Capture`` is handed the walk's
``apply_formula``); here is what they do beyond the walk.
"""
from typing import NamedTuple

from ..fidelity import messages
from .hooks import accumulate_into
from .node import AccumulateGrad, edge_of, is_tensor


class GradientEdge(NamedTuple):
    """``torch.autograd.graph.GradientEdge``: where a tensor's gradient goes, a node and its
    output number; ``autograd.grad(y, inputs=edge)`` returns the gradient that reaches it."""

    node: object
    output_nr: int
    ownership_token: object = None


def input_edge(value):
    """The ``(node, output_nr)`` an input of autograd.grad names: a tensor's, or an edge."""
    if isinstance(value, GradientEdge):
        return (value.node, value.output_nr)
    return edge_of(value)


class Capture:
    """``run_node`` for ``autograd.grad``: keep the gradients that reach ``inputs``.

    ``apply_formula(node, grads)`` is the walk's own (``backward.apply_formula``): a node on
    the way runs as in ``backward()``. Only the nodes on a path to an input run
    (``needed``); the others, and the leaves' AccumulateGrad nodes, neither run nor are
    freed, as in torch.
    """

    def __init__(self, roots, inputs, apply_formula, tensor_hooks=None):
        self.apply_formula = apply_formula
        self.tensor_hooks = tensor_hooks or _tensor_hooks_run  # (a batch: cotangents.py's)
        self.positions = {}  # (node, output_nr) -> the positions in ``inputs`` it answers
        for position, tensor in enumerate(inputs):
            self.positions.setdefault(input_edge(tensor), []).append(position)
        self.targets = {node for node, _ in self.positions}
        self.needed = needed_nodes(roots, self.targets)
        self.results = [None] * len(inputs)

    def run_node(self, node, grads):
        if grads is None:
            return (None,) * len(node.next_functions)
        if node in self.targets:
            grads = self.tensor_hooks(node, grads)
            for nr, grad in enumerate(grads):
                for position in self.positions.get((node, nr), ()):
                    self.results[position] = grad
        if node not in self.needed or isinstance(node, AccumulateGrad):
            return (None,) * len(node.next_functions)
        if node not in self.targets:
            grads = self.tensor_hooks(node, grads)
        return self.apply_formula(node, grads)


def _tensor_hooks_run(node, grads):
    return grads if node._hooks is None else node._hooks.run_tensor_hooks(grads)


def needed_nodes(roots, targets):
    """The nodes from which a node in ``targets`` can be reached (post-order, explicit stack)."""
    needed, seen = set(), set()
    stack = [(node, False) for node in roots]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            if any(n is not None and (n in targets or n in needed)
                   for n, _ in node.next_functions):
                needed.add(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        stack.extend((n, False) for n, _ in node.next_functions
                     if n is not None and n not in seen)
    return needed


# ====================================================================== before and after the walk
def check_differentiable(inputs, accumulates=False):
    """Every input of ``autograd.grad`` must be a tensor that requires grad or an edge
    (checked after the outputs, one by one). ``backward(inputs=...)`` first makes each
    tensor retain its gradient (a tensor that does not require grad cannot)."""
    for tensor in inputs:
        if isinstance(tensor, GradientEdge):
            continue
        if not is_tensor(tensor):
            raise RuntimeError(messages.not_an_input(type(tensor).__name__))
        if accumulates:
            tensor.retain_grad()
        if not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")


def returned(found, inputs, allow_unused, materialize_grads):
    """``autograd.grad``'s result: an input no gradient reached is an error, None, or zeros."""
    for position, grad in enumerate(found):
        if grad is None and not (materialize_grads or allow_unused):
            raise RuntimeError(messages.unused_input(position))
    if materialize_grads:
        found = [_zeros_like(t) if g is None else g for t, g in zip(inputs, found)]
    return tuple(found)


def _zeros_like(tensor):
    zeros = tensor._empty_like()
    zeros._data[...] = 0
    return zeros


def store_into_grad(inputs, found):
    """``backward(inputs=...)``: each input's gradient into its ``.grad``, as backward() would."""
    for tensor, grad in zip(inputs, found):
        if grad is None or tensor._retains_grad:  # (retain_grad stored it already)
            continue
        if tensor.grad_fn is None:  # a leaf: as backward() without inputs stores it
            tensor._grad_accumulator().backward(grad)
        else:
            accumulate_into(tensor, grad)
