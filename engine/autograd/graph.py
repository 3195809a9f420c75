"""``torch.autograd.graph``: the recorded graph's node type, and hooks on what it saves.

``saved_tensors_hooks(pack_hook, unpack_hook)`` changes how the nodes recorded inside it
keep their saved tensors: they keep ``pack_hook(tensor)``, and every read (backward,
``ctx.saved_tensors``, ``grad_fn._saved_self``) calls ``unpack_hook`` on it. The mechanism
is ``engine/core/saved.py``; this is torch's public face of it.
"""
import collections
import contextlib
import functools
import weakref

from ..core import saved
from ..core.capture import GradientEdge
from ..core.hooks import running_tasks
from ..core.grad_mode import no_grad
from ..core.node import AccumulateGrad, Node

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "allow_mutation_on_saved_tensors",
           "register_multi_grad_hook", "Node", "GradientEdge", "get_gradient_edge",
           "increment_version", "queue_callback"]


class saved_tensors_hooks:
    """Inside ``with saved_tensors_hooks(pack_hook, unpack_hook):``, a saved tensor is kept as
    ``pack_hook(tensor)`` and read back as ``unpack_hook(packed)``. Nested, the innermost pair
    is used."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        saved.push_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        saved.pop_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors kept on the CPU, moved back to their device for backward. The engine has
    only the CPU: the hooks keep the tensor itself, as torch's do for a CPU tensor."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            packed = tensor.new_empty(tensor.size())  # (pinning means nothing without CUDA)
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Inside it, using saved_tensors_hooks raises ``RuntimeError(error_message)`` (and
    entering it while some are in use does)."""
    previous = None
    try:
        previous = saved.set_disabled_message(error_message)
        yield
    finally:
        saved.set_disabled_message(previous)


# ====================================================== allow_mutation_on_saved_tensors
class AllowMutationOnSavedContext:
    """What ``allow_mutation_on_saved_tensors`` yields (torch's ``_AllowMutationOnSavedContext``,
    for debugging): each saved tensor's handle, the tensor as it was saved (``original``), or
    the copy made just before an in-place write changed it (``cloned``). Emptied at the end."""

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()    # handle -> copy of the values saved
        self.original = weakref.WeakKeyDictionary()  # handle -> the saved tensor itself
        self.tid_to_weakhandle = weakref.WeakValueDictionary()  # (id, data_ptr, version) -> handle
        self.sid_to_tid = collections.defaultdict(set)  # its memory -> those keys
        self.versions = weakref.WeakKeyDictionary()  # handle -> the version saved

    def clear(self):
        for table in (self.cloned, self.original, self.tid_to_weakhandle, self.sid_to_tid,
                      self.versions):
            table.clear()


AllowMutationOnSavedContext.__name__ = AllowMutationOnSavedContext.__qualname__ = \
    "_AllowMutationOnSavedContext"  # (torch's name, as type(ctx) shows it)


class Handle:
    """What a node keeps for a tensor saved in the block (the pack hook's result)."""


class MutationState:
    enabled = False  # a block is running (torch's module flag)


BACKWARD_OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                    "in which the graph was originally recorded.")  # (sic: torch's, no space)


def _memory_of(tensor):
    """The memory a tensor's values live in: a write into any view of it is seen. (torch
    keys on (data_ptr, version), so it misses a write through a view at another offset and
    backward reads the new values: DIFFERENCES.md.)"""
    return id(tensor._storage_array())


class _swap_with_cloned(saved_tensors_hooks):  # noqa: N801 (torch's name)
    """The block's saved-tensor hooks: pack keeps the tensor (one handle per tensor and
    version), unpack gives it back, or the copy made before it was changed."""

    def __init__(self, ctx):
        def pack_hook(tensor):
            tid = (id(tensor), tensor.data_ptr(), tensor._version)
            ctx.sid_to_tid[_memory_of(tensor)].add(tid)
            handle = ctx.tid_to_weakhandle.get(tid)
            if handle is None:  # (the same tensor at the same version: one handle)
                handle = ctx.tid_to_weakhandle[tid] = Handle()
                ctx.original[handle], ctx.versions[handle] = tensor, tensor._version
            return handle

        def unpack_hook(handle):
            if not MutationState.enabled:
                raise AssertionError(BACKWARD_OUTSIDE)
            if handle in ctx.cloned:
                return ctx.cloned[handle]
            if handle not in ctx.original:
                raise AssertionError(BACKWARD_OUTSIDE)
            tensor = ctx.original[handle]
            if tensor._version != ctx.versions[handle]:  # (a write the watch did not see:
                raise RuntimeError(  # an error rather than the new values)
                    "allow_mutation_on_saved_tensors: a tensor saved for backward was changed "
                    "in place in a way the engine did not see coming (no copy was made)")
            return tensor

        super().__init__(pack_hook, unpack_hook)


def _clone_before_write(ctx):
    """The watch called before each in-place write: copy every saved tensor of that memory
    not copied yet (torch's _CloneArgBeforeMutateMode)."""
    def watch(tensor):
        for tid in ctx.sid_to_tid.get(_memory_of(tensor), ()):
            handle = ctx.tid_to_weakhandle.get(tid)
            if handle is None or handle in ctx.cloned:  # (freed by backward, or copied)
                continue
            with no_grad():
                ctx.cloned[handle] = ctx.original[handle].clone()
            del ctx.original[handle]
    return watch


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Inside it, a tensor saved for backward may be changed in place: it is copied just
    before the change, and backward reads the copy. Run forward and backward in the same
    block; the block yields an ``_AllowMutationOnSavedContext`` (emptied at its end)."""
    ctx = AllowMutationOnSavedContext()
    with _swap_with_cloned(ctx):
        previous = saved.default_hooks.write_watch
        saved.set_write_watch(_clone_before_write(ctx))
        try:
            if MutationState.enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            MutationState.enabled = True
            yield ctx
        finally:
            ctx.clear()
            MutationState.enabled = False  # (as torch's: a nested attempt ends the outer too)
            saved.set_write_watch(previous)


# ====================================================================== edges and versions
def get_gradient_edge(tensor):
    """The ``GradientEdge`` where ``tensor``'s gradient goes: its grad_fn (and output
    number), or a leaf's AccumulateGrad; ``autograd.grad(y, edge)`` is ``autograd.grad(y, t)``."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    return GradientEdge(_node_of(tensor), tensor.output_nr)


def _node_of(tensor):
    """The node a tensor's gradient reaches first (an edge's node)."""
    if isinstance(tensor, GradientEdge):
        return tensor.node
    if tensor.requires_grad and tensor.grad_fn is None:
        return tensor._grad_accumulator()
    if tensor.grad_fn is None:
        raise AssertionError("Expected gradient function to be set")  # (torch's, as it is)
    return tensor.grad_fn


def increment_version(tensor):
    """Tell autograd that ``tensor`` (or each of several) was changed in place behind its back
    (an inference tensor has no version counter: left alone)."""
    tensors = (tensor,) if hasattr(tensor, "_data") else tensor
    try:
        tensors = list(tensors)
    except TypeError:
        raise RuntimeError("increment_version expect a Iterable[Tensor] as input") from None
    for each in tensors:
        if not each.is_inference():
            each._bump_version()


def queue_callback(callback):
    """Run ``callback()`` when the backward call now running has finished (call it from a hook
    or a Function's backward); not if that call raises."""
    if not running_tasks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    running_tasks[-1].callbacks.append(callback)


# ====================================================================== register_multi_grad_hook
def current_graph_task_id():
    """torch's ``torch._C._current_graph_task_id()``: -1 outside a backward call."""
    return running_tasks[-1].id if running_tasks else -1


def will_engine_execute_node(node):
    """Whether the running backward call will run ``node`` (torch's
    ``torch._C._will_engine_execute_node``)."""
    task = running_tasks[-1]
    if task.capture is None:  # backward(): every node reachable from the roots runs
        if task.reachable is None:
            task.reachable = _reachable(node for node, _ in task.roots)
        return node in task.reachable
    if node in task.capture.targets:
        if isinstance(node, AccumulateGrad) and not task.accumulates:
            raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                               "currently running autograd.grad(). This is currently not "
                               "supported.")
        return True
    return node in task.capture.needed


def _reachable(roots):
    seen, stack = set(), list(roots)
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(next_node for next_node, _ in node.next_functions)
    return seen


class _MultiHandle:
    """register_multi_grad_hook's handle: removes the hook from every tensor. (torch's is a
    torch.utils.hooks.RemovableHandle; engine.utils imports this package, not the reverse.)"""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """``fn`` runs once per backward call: with mode="all", with the gradients of all
    ``tensors`` (None for those this backward does not reach) once the last has arrived;
    with mode="any", with the first one that arrives."""
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    if mode == "any":
        ran = collections.defaultdict(bool)  # graph task id -> fn has run

        @functools.wraps(fn)
        def first_only(grad):
            task = current_graph_task_id()
            already, ran[task] = ran[task], True
            if not already:
                fn(grad)

        return _MultiHandle(tuple(t.register_hook(first_only) for t in tensors
                                  if t.requires_grad))
    nodes = [_node_of(t) for t in tensors]
    arrived, buffers, expected = {}, {}, [None]  # per graph task id: how many, the gradients

    def hook_for(position):
        def hook(grad):
            task = current_graph_task_id()
            count = arrived.get(task, 0)
            if count == 0:  # the first to arrive: how many will come in this backward call
                expected[0] = sum(map(will_engine_execute_node, nodes))
            buffer = buffers.setdefault(task, [None] * len(nodes))
            buffer[position], arrived[task] = grad, count + 1
            if count == expected[0] - 1:
                del arrived[task], buffers[task]
                fn(buffer)
        return hook

    return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))
