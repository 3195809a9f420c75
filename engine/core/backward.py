"""Running the graph backwards: ``backward()`` and ``autograd.grad()``.

``run_backward`` is the whole walk, in one loop: it counts, for every node reachable
from the roots, how many gradients it will receive; a node whose gradients have all
arrived is *ready*, and the ready node recorded last runs next (a leaf's AccumulateGrad
first of all, as in torch), called once with the sum of its gradients. Each node's
gradients are undone of broadcasting (``sum_to``) and cast to its inputs' dtypes in one
place, at the edge (``validated``), as PyTorch's engine does.

What running a node means is passed in: ``run_node`` stores gradients into ``.grad``
(``backward``), ``Capture.run_node`` keeps those of chosen inputs (``autograd.grad``,
``capture.py``), and ``engine.widgets.BackwardStepper`` wraps ``run_node`` to show each step.
"""
import collections.abc
import functools
import heapq
import itertools
import warnings

from ..fidelity import dtypes, messages
from . import capture, cotangents
from .grad_mode import mode, set_grad_enabled
from .hooks import graph_task
from .node import AccumulateGrad, edge_of, gradient_edge, is_tensor


# ====================================================================== the walk
def run_backward(roots, root_grads, run_node):
    """Send ``root_grads`` back from ``roots`` (``(node, output_nr)`` pairs) through the graph.

    ``run_node(node, grads)`` runs one node on the gradients of its outputs (``None``
    when none reached it) and returns one gradient (or ``None``) per ``next_functions`` entry.
    """
    dependencies = count_dependencies([node for node, _ in roots])
    buffers = {}  # node -> [gradient per output], summed as contributions arrive
    for (node, nr), grad in zip(roots, root_grads):
        add_to_buffer(buffers, node, nr, grad)
    ready = ReadyQueue()
    for node in dict.fromkeys(node for node, _ in roots):
        if dependencies.get(node, 0) == 0:  # (a root that another root feeds waits)
            ready.push(node)
    while ready:
        node = ready.pop()
        grads = buffers.pop(node, None)  # None: no gradient reached it (only unused outputs)
        input_grads = run_node(node, grads)
        for (next_node, nr), grad in zip(node.next_functions, input_grads):
            if next_node is None:
                continue  # this input needs no gradient
            if grad is not None:
                add_to_buffer(buffers, next_node, nr, grad)  # paths meet: gradients add up
            dependencies[next_node] -= 1
            if dependencies[next_node] == 0:
                ready.push(next_node)


def count_dependencies(roots):
    """For every node reachable from ``roots``: how many edges bring it a gradient.

    Found with an explicit stack (no recursion, so a graph 100,000 ops deep is fine).
    """
    dependencies = {}  # node -> number of edges into it (nodes hash by identity)
    seen, stack = set(), list(roots)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for next_node, _ in node.next_functions:
            if next_node is not None:
                dependencies[next_node] = dependencies.get(next_node, 0) + 1
                if next_node not in seen:
                    stack.append(next_node)
    return dependencies


def add_to_buffer(buffers, node, output_nr, grad):
    grads = buffers.get(node)
    if grads is None:
        grads = buffers[node] = [None] * node.num_outputs
    if grads[output_nr] is None:
        grads[output_nr] = grad
    else:
        grads[output_nr] = grads[output_nr] + grad  # several consumers: gradients add up


class ReadyQueue(list):
    """The nodes whose gradients have all arrived, in the order torch runs them.

    A leaf's AccumulateGrad comes first (torch stores a leaf's gradient as soon as it
    is complete), then the node recorded last: a node's consumers were all recorded
    after it, so this never runs a node before all its gradients arrived.

    It is a heap (a list) of ``(-sequence number, arrival, node)``: the highest number pops
    first (an AccumulateGrad's is infinity); equal numbers (leaves) in order of arrival.
    """

    def push(self, node):
        heapq.heappush(self, (-node._sequence_nr, next(_arrival), node))

    def pop(self):
        return heapq.heappop(self)[2]


_arrival = itertools.count()


# ====================================================================== running one node
def anomaly_checked(run_node):
    """``run_node``, with anomaly detection's checks while it is on (engine.autograd)."""
    return mode.anomaly.wrap(run_node) if mode.anomaly else run_node


def run_node(node, grads, retain_graph):
    """One node's turn in ``backward()``: its hooks, its formula, its gradients fixed, what it
    saved freed."""
    if grads is None:
        return (None,) * len(node.next_functions)
    if node._hooks is not None:  # hooks on its tensors, and retain_grad's (hooks.py)
        grads = node._hooks.run_tensor_hooks(grads)
    return apply_formula(node, grads, retain_graph)


def apply_formula(node, grads, retain_graph):
    """The node's backward (a leaf's: into ``.grad``), its gradients fixed at the edge, then
    what it saved freed; the node's own hooks, if any, run before and after its backward."""
    hooks = node._hooks
    if hooks is not None:
        grads = hooks.run_pre_hooks(grads)
        if grads is None:  # the pre-hooks dropped every gradient: the node does not run
            return [None] * len(node.next_functions)
    if isinstance(node, AccumulateGrad):
        input_grads = node.backward(grads[0])  # () : a leaf's node sends nothing on
    else:
        input_grads = validated(node, node.backward(*grads))
    if hooks is not None:
        input_grads = hooks.run_post_hooks(input_grads, grads)
    if not retain_graph:
        node._release()
    return input_grads


# ====================================================================== at the edge
def sum_to(grad, shape):
    """Sum ``grad`` down to ``shape``: undo the broadcasting that stretched an input.

    Broadcasting copies an input along new leading dimensions and along dimensions of
    size 1, so its gradient is the sum over exactly those dimensions.
    """
    if not shape:  # (torch's sum_to sums even a 0-d grad: SumBackward0 under create_graph)
        return grad.sum()
    if grad._data.shape == shape:
        return grad
    # as torch's sum_to: one sum over the new leading dims and the stretched ones, kept, then
    # a view without the leading ones (under create_graph: SumBackward1, ViewBackward0)
    lead = grad._data.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + d for d, n in enumerate(shape)
                                      if n == 1 and grad._data.shape[lead + d] != 1)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad.view(shape) if lead else grad


def validated(node, grads):
    """The gradients a node returned, summed to each input's shape and cast to its dtype."""
    if not isinstance(grads, tuple):
        grads = (grads,)
    if len(grads) != len(node.next_functions):
        raise RuntimeError(messages.wrong_number_of_gradients(node, len(grads)))
    checked = []
    for index, (grad, meta) in enumerate(zip(grads, node._input_meta)):
        if grad is None or meta is None or node.next_functions[index][0] is None:
            checked.append(None)
            continue
        shape, np_dtype = meta
        if grad._data.shape != shape:
            if not _is_expandable_to(shape, grad._data.shape):
                raise RuntimeError(messages.invalid_gradient_shape(node, index, grad, shape))
            grad = sum_to(grad, shape)
        if grad._data.dtype != np_dtype:
            grad = grad.to(dtypes.from_numpy_dtype[np_dtype])
        checked.append(grad)
    return checked


def _is_expandable_to(shape, target):
    return len(shape) <= len(target) and all(n in (m, 1) for n, m in zip(shape[::-1],
                                                                           target[::-1]))


# ====================================================================== public entry points
def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate into the leaves' ``.grad`` the gradient of ``tensors`` (sum of all)."""
    if grad_variables is not None:  # the old name of grad_tensors, still accepted
        warnings.warn(messages.GRAD_VARIABLES_DEPRECATED, FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError(messages.GRAD_TENSORS_AND_VARIABLES)
        grad_tensors = grad_variables
    chosen = None if inputs is None else inputs_given(inputs, "backward")
    outputs = as_tuple(tensors)
    grads = starting_gradients(outputs, as_tuple(grad_tensors) or (None,) * len(outputs))
    retain_graph = create_graph if retain_graph is None else retain_graph
    if create_graph:
        messages.warn_create_graph_cycle_once()
    if chosen is None:
        roots = [edge_of(t) for t in outputs]
        with set_grad_enabled(create_graph), graph_task(roots):  # (graph_task: hooks.py)
            run_backward(roots, grads, anomaly_checked(
                functools.partial(run_node, retain_graph=retain_graph)))
        return
    # only into these tensors' .grad: the walk of autograd.grad, then stored (capture.py)
    capture.check_differentiable(chosen, accumulates=True)
    found = walk_to_inputs(outputs, grads, chosen, retain_graph, create_graph, accumulates=True)
    with set_grad_enabled(create_graph):
        capture.store_into_grad(chosen, found)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` untouched)."""
    if materialize_grads and allow_unused is False:
        raise ValueError(messages.MATERIALIZE_GRADS_NOT_ALLOW_UNUSED)
    # (None is no sequence here: torch's tuple(None) raises its TypeError; fuzz 2000181)
    outputs, chosen = as_sequence(outputs), inputs_given(inputs, "grad")
    if not only_inputs:
        warnings.warn(messages.ONLY_INPUTS_DEPRECATED, FutureWarning, stacklevel=2)
    retain_graph = create_graph if retain_graph is None else retain_graph
    grad_outputs = as_tuple(grad_outputs) or (None,) * len(outputs)
    grads = cotangents.starting_cotangents(outputs, grad_outputs) if is_grads_batched else \
        starting_gradients(outputs, grad_outputs)
    capture.check_differentiable(chosen)  # (after the outputs, as torch checks them)
    found = walk_to_inputs(outputs, grads, chosen, retain_graph, create_graph,
                           batched=is_grads_batched)
    found = capture.returned(found, chosen, allow_unused, materialize_grads)
    return dict(zip(inputs, found)) if type(inputs) is dict else found  # (named_parameters)


def walk_to_inputs(outputs, grads, inputs, retain_graph, create_graph, accumulates=False,
                   batched=False):
    """The walk from ``outputs``, keeping the gradients that reach ``inputs`` (capture.py);
    ``batched``: a batch of cotangents, each node run by ``cotangents.apply_batched``."""
    roots = [edge_of(t) for t in outputs]
    apply = cotangents.apply_batched if batched else apply_formula
    keep = capture.Capture([node for node, _ in roots], inputs,
                           functools.partial(apply, retain_graph=retain_graph),
                           cotangents.tensor_hooks_per_sample if batched else None)
    with set_grad_enabled(create_graph), graph_task(roots, keep, accumulates):
        run_backward(roots, grads, anomaly_checked(keep.run_node))
    return keep.results


def starting_gradients(outputs, grad_outputs):
    """The gradients backward starts from: ones for scalar outputs, else the ones given."""
    grads = []
    for index, (output, grad) in enumerate(zip(outputs, grad_outputs)):
        if grad is None:
            # (torch makes these first, then checks the graph: a non-scalar output that
            # requires grad without a node, a view made in no_grad mode, is refused as such)
            grads.append(implicit_gradient(output) if output.requires_grad else None)
            continue
        if not is_tensor(grad):
            raise TypeError("gradients can be either Tensors or None, but got "
                            f"{type(grad).__name__}")
        if grad._data.shape != output._data.shape:
            raise RuntimeError(messages.grad_output_shape(index, grad.shape, output.shape))
        # a gradient of another dtype (float64, int, bool) is cast to the output's, as in torch
        grads.append(grad if grad._data.dtype == output._data.dtype else grad.to(output.dtype))
    for index, output in enumerate(outputs):
        if gradient_edge(output)[0] is None:
            raise RuntimeError(messages.no_grad_fn(index))
    return grads


def implicit_gradient(output):
    """``dy/dy = 1`` for a scalar output ``y``, laid out like ``y``."""
    if output._data.size != 1:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    if output._data.dtype.kind != "f":
        raise RuntimeError(messages.implicit_grad_dtype(output.dtype))
    ones = output._empty_like()
    ones._data[...] = 1
    return ones


def as_tuple(value):
    return None if value is None else as_sequence(value)


def inputs_given(inputs, caller):
    """The tensors (or edges) ``inputs`` names: one, a sequence, or a dict's values (its
    keys name the gradients autograd.grad returns); never none."""
    if type(inputs) is dict:
        chosen = tuple(inputs.values())
    elif isinstance(inputs, collections.abc.Mapping):
        raise TypeError(messages.inputs_not_a_dict(caller, type(inputs).__name__))
    else:
        chosen = as_sequence(inputs)
    if not chosen:
        raise RuntimeError(messages.inputs_empty(caller))
    return chosen


def as_sequence(value):
    return (value,) if is_tensor(value) or isinstance(value, capture.GradientEdge) \
        else tuple(value)
