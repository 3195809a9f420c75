"""Hooks: your own functions that backward calls on the way (read after the spine).

torch has three kinds, and the engine keeps all three on the node they belong to:

* ``tensor.register_hook(fn)``: ``fn(grad)`` sees (and may replace) a tensor's gradient
  before the node that made the tensor runs (a leaf's hooks sit on its AccumulateGrad);
* ``node.register_prehook(fn)``: ``fn(grad_outputs)``, before the node's formula;
* ``node.register_hook(fn)``: ``fn(grad_inputs, grad_outputs)``, after it.

``tensor.retain_grad()`` is one more tensor hook, run after the others: it keeps the
gradient in the tensor's ``.grad``.

A node without hooks keeps ``_hooks = None`` and costs nothing; the first hook makes its
``NodeHooks``. The walk (``backward.py``) calls the three ``run_`` methods of a node that
has one.

Two more at the end: ``tensor.register_post_accumulate_grad_hook(fn)`` (``fn(tensor)`` once
backward has added into a leaf's ``.grad``: kept by the leaf, run by its AccumulateGrad), and
``graph_task``, which tells hooks which backward call is running (torch's graph task: what
``register_multi_grad_hook`` and ``queue_callback`` in ``autograd/graph.py`` ask about).
"""
import weakref

from ..fidelity import messages
from ..fidelity.floating import quietly
from ..fidelity.size import contiguous_format


class NodeHooks:
    """The hooks of one node and of the tensors it made, in the order backward runs them."""

    __slots__ = ("tensor_hooks", "retained", "pre_hooks", "post_hooks")

    def __init__(self):
        self.tensor_hooks = {}  # output_nr -> [hook(grad) -> grad or None]
        self.retained = {}      # output_nr -> weak reference to a tensor that called retain_grad()
        self.pre_hooks = []     # hook(grad_outputs) -> grad_outputs or None
        self.post_hooks = []    # hook(grad_inputs, grad_outputs) -> grad_inputs or None

    def run_tensor_hooks(self, grads):
        """Hooks registered with ``tensor.register_hook``, then ``retain_grad``'s capture."""
        for nr, hooks in self.tensor_hooks.items():
            for hook in list(hooks):
                # (an unused output of a node with several gets None, as in torch)
                grads[nr] = messages.hook_result(hook, grads[nr], hook(grads[nr]))
        for nr, reference in self.retained.items():
            tensor = reference()
            if tensor is not None and grads[nr] is not None:
                accumulate_into(tensor, grads[nr])
        return grads

    def run_pre_hooks(self, grads):
        """The node's pre-hooks; None when they dropped every gradient (then it does not run)."""
        for hook in self.pre_hooks:
            grads = messages.hook_results(hook, grads, hook(tuple(grads)))
        if self.pre_hooks and all(grad is None for grad in grads):
            return None
        return grads

    def run_post_hooks(self, input_grads, grads):
        """The node's hooks, after its formula: each may replace the gradients it returned."""
        for hook in self.post_hooks:
            if not input_grads:  # a leaf's AccumulateGrad sends nothing on: nothing to replace
                hook((), tuple(grads))
                continue
            input_grads = messages.hook_results(hook, input_grads,
                                                hook(tuple(input_grads), tuple(grads)))
        return input_grads


def hooks_of(node):
    """``node._hooks``, made with the node's first hook."""
    if node._hooks is None:
        node._hooks = NodeHooks()
    return node._hooks


def add_hook(hooks, hook):
    """Append ``hook`` to the list ``hooks``; the handle removes it again."""
    hooks.append(hook)
    return RemovableHandle(hooks, hook)


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` unregisters the hook."""

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)

    def __enter__(self):  # ``with x.register_hook(fn):`` removes it at the end, as torch's
        return self

    def __exit__(self, *args):
        self.remove()


# ====================================================================== on tensors
def register_tensor_hook(tensor, hook):
    """``tensor.register_hook(hook)``: kept by the node that made ``tensor``."""
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor.grad_fn is not None:
        node, output_nr = tensor.grad_fn, tensor.output_nr
    else:  # a leaf's hooks live on its AccumulateGrad node: the leaf keeps that node from now on
        node, output_nr = tensor._grad_accumulator(), 0
        tensor._hooked_accumulator = node
    return add_hook(hooks_of(node).tensor_hooks.setdefault(output_nr, []), hook)


def retain_grad(tensor):
    """``tensor.retain_grad()``: its node puts the gradient into ``tensor.grad`` on the way."""
    if not tensor.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if tensor.grad_fn is None or tensor._retains_grad:
        return  # a leaf keeps its gradient anyway
    hooks_of(tensor.grad_fn).retained[tensor.output_nr] = weakref.ref(tensor)
    tensor._retains_grad = True


def move_retained(tensor, old_node, old_output_nr):
    """After an in-place change gave ``tensor`` a new node: its retain_grad() moves there (as
    torch's update_tensor_hooks_on_new_gradfn; the hooks registered before stay on the old
    node, which computes the gradient of the old values)."""
    retained = None if old_node is None or old_node._hooks is None else old_node._hooks.retained
    reference = retained and retained.pop(old_output_nr, None)
    if reference is not None and tensor._grad_fn is not None:
        hooks_of(tensor._grad_fn).retained[tensor._output_nr] = reference


def retained_tensors(node):
    """The live tensors made by ``node`` that called retain_grad(), by output number."""
    retained = [] if node._hooks is None else sorted(node._hooks.retained.items())
    return [tensor for tensor in (reference() for _, reference in retained)
            if tensor is not None]


def accumulate_into(tensor, grad):
    """As torch's retain_grad hook: a row-major copy of ``grad`` the first time (recorded,
    CloneBackward0, under create_graph), then ``tensor.grad + grad``, a new tensor."""
    if tensor._grad is None:
        tensor._grad = grad.clone(memory_format=contiguous_format)
    else:
        tensor._grad = quietly(tensor._grad.__add__, grad)  # (inf - inf is nan, silently)


# ====================================================================== after a leaf's .grad
def register_post_accumulate_hook(tensor, hook):
    """``tensor.register_post_accumulate_grad_hook(hook)``: ``hook(tensor)`` runs after
    backward has added into this leaf's ``.grad`` (kept by the tensor, run by AccumulateGrad)."""
    if tensor.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor._post_accumulate_hooks is None:
        tensor._post_accumulate_hooks = []
    return add_hook(tensor._post_accumulate_hooks, hook)


def run_post_accumulate_hooks(tensor):
    for hook in list(tensor._post_accumulate_hooks):
        returned = hook(tensor)
        if returned is None:
            continue
        if hasattr(returned, "_data"):
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        raise TypeError(f"expected Variable, but hook returned '{messages.type_name(returned)}'")


# ====================================================================== the running backward
class GraphTask:
    """One ``backward()`` or ``autograd.grad()`` call while it runs (torch's graph task):
    ``roots`` are its starting nodes; ``capture`` is autograd.grad's ``Capture`` (None for a
    plain backward), ``accumulates`` whether leaves' AccumulateGrad nodes run (backward).
    register_multi_grad_hook asks it which nodes will run (autograd/graph.py); ``callbacks``
    are queue_callback's, run when it has finished without an error."""

    __slots__ = ("id", "roots", "capture", "accumulates", "reachable", "callbacks")
    count = 0

    def __init__(self, roots, capture, accumulates):
        GraphTask.count += 1
        self.id, self.roots, self.capture = GraphTask.count, roots, capture
        self.accumulates, self.reachable, self.callbacks = accumulates, None, []


running_tasks = []  # the innermost (a backward called inside a hook) last


class graph_task:
    """``with graph_task(...)``: the backward call is running (``running_tasks[-1]``)."""

    def __init__(self, roots, capture=None, accumulates=True):
        self.task = GraphTask(roots, capture, accumulates)

    def __enter__(self):
        running_tasks.append(self.task)

    def __exit__(self, error_type, *args):
        try:
            callbacks = self.task.callbacks
            for callback in callbacks if error_type is None else ():  # (may queue more)
                callback()
        finally:
            running_tasks.remove(self.task)
