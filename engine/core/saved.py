"""``node._saved_<name>``: what a node keeps, read back as torch shows it (read after the spine).

torch lets you look inside a node: ``(x * y).grad_fn._saved_self`` is ``x``, and a node's
other values are there too (``x.sum(1).grad_fn._saved_dim`` is 1). The engine's node keeps
its saved tensors in ``_saved``, in the order of its class's ``_saved_names`` (torch's
names), and the other values its backward reads as attributes its class declares
(``dim: int``); every node class has one ``_saved_<name>`` property for each
(``saved_attribute``, made by ``Node.__init_subclass__``).

A Python number saved for backward (the 2 of ``x * 2``) stays a number in the node, which
is cheaper; torch keeps it as a 0-d tensor, and shows it so: ``saved_value`` makes that
tensor when it is read, of the class the node's tensors have (``_tensor_type``).

Under ``torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook)`` a node keeps
``pack_hook(tensor)`` instead of the tensor, and each read of it (backward,
``ctx.saved_tensors``, ``_saved_self``) calls ``unpack_hook`` on that: the end of this file.
``node.SavedTensor`` is the one place that calls ``pack``, ``Node._unpack`` the one that
calls ``unpack``.
"""
import functools
import weakref

from ..fidelity import messages
from ..fidelity.scalars import number_as_tensor
from .grad_mode import set_grad_enabled


def saved_attribute(name):
    """The property ``node._saved_<name>``."""
    return property(lambda node: saved_value(node, name))


def saved_value(node, name):
    """``node._saved_<name>``: a saved tensor (checked as backward checks it), a saved number
    as a 0-d tensor, or a declared value."""
    names = type(node)._saved_names
    if name in names:
        if node._released:
            raise RuntimeError(messages.SECOND_BACKWARD)  # backward freed them
        saved = node._saved[names.index(name)]
        if isinstance(saved, (int, float)):
            return number_as_tensor(saved, node._tensor_type)
        return node._unpack(saved)
    if name in type(node)._state and name not in type(node)._internal:
        return getattr(node, name)
    raise AttributeError(f"'{node.name()}' object has no attribute '_saved_{name}'")


# ====================================================================== saved_tensors_hooks
class DefaultHooks:
    """``torch.autograd.graph.saved_tensors_hooks``' stack of ``(pack_hook, unpack_hook)``
    pairs (the innermost, last, is used) and ``disable_saved_tensors_hooks``' message."""

    __slots__ = ("stack", "disabled_message", "write_watch")

    def __init__(self):
        self.stack, self.disabled_message = [], None
        self.write_watch = None  # allow_mutation_on_saved_tensors': called before a write


default_hooks = DefaultHooks()  # node.SavedTensor tests `default_hooks.stack`: empty costs nothing


def push_hooks(pack_hook, unpack_hook):
    if default_hooks.disabled_message is not None:
        raise RuntimeError(default_hooks.disabled_message)
    default_hooks.stack.append((pack_hook, unpack_hook))


def pop_hooks():
    default_hooks.stack.pop()


def set_write_watch(watch):
    """``watch(tensor)`` is called before each in-place write into a tensor (None: no more),
    by history.check_inplace and ops.common.write_out: ``allow_mutation_on_saved_tensors``
    copies the saved tensors that the write would change."""
    default_hooks.write_watch = watch


def set_disabled_message(message):
    """``disable_saved_tensors_hooks``: refused (with the message) while hooks are in use;
    None enables them again. Returns the message it replaces."""
    previous = default_hooks.disabled_message
    if message is not None and default_hooks.stack:
        raise RuntimeError(message)
    default_hooks.disabled_message = message
    return previous


class Packed:
    """What a node keeps for a tensor saved under saved_tensors_hooks: ``pack_hook``'s result,
    the ``unpack_hook`` to call at each read, and the tensor's place in the graph (the
    tensor itself is not kept: freeing it is often the hooks' point)."""

    __slots__ = ("value", "unpack_hook", "grad_fn", "output_nr", "requires_grad", "accumulator",
                 "source")


def pack(tensor, hooks=None, shown=None):
    """Call the innermost pack hook (or ``hooks``' own) on ``tensor`` (or on ``shown``, an alias
    of it), in no_grad mode as torch does."""
    pack_hook, unpack_hook = hooks or default_hooks.stack[-1]
    packed, version = Packed(), tensor._version
    with set_grad_enabled(False):
        packed.value = pack_hook(tensor if shown is None else shown)
    if tensor._version != version:
        raise RuntimeError(messages.PACK_HOOK_INPLACE)
    packed.unpack_hook, packed.grad_fn = unpack_hook, tensor.grad_fn
    packed.output_nr, packed.requires_grad = tensor._output_nr, tensor._requires_grad
    packed.accumulator = tensor._accumulator  # a leaf's (weak): its gradient still reaches it
    packed.source = weakref.ref(tensor)  # (for repack)
    return packed


def in_torchs_order(names, values, function):
    """``function(value)`` for each saved value of an op, called in the order of their torch
    names (torch's generated code saves and unpacks an op's inputs sorted by name: ``other``
    before ``self``, then its outputs; its pack and unpack hooks, and its check for in-place
    changes, see them in that order), the results kept in the node's order."""
    kept = list(values)
    for i in _torchs_order(tuple(names), tuple([getattr(v, "is_output", False) for v in values])):
        kept[i] = function(values[i])
    return tuple(kept)


@functools.cache  # (a node class's order: found once, read every backward)
def _torchs_order(names, outputs):
    """Inputs first, by name; then the outputs (saved after the op ran: a SavedTensor that is
    an output, or one torch names result, result1 ...)."""
    named = [names[i] if i < len(names) else "" for i in range(len(outputs))]
    return tuple(sorted(range(len(outputs)), key=lambda i: (
        outputs[i] or named[i].startswith("result"), named[i])))


def repack(packed, tensor):
    """An in-place op is about to overwrite ``tensor``, which its node packed as an input:
    pack a copy of its values instead, as torch packs the copy it makes (``original_self``).
    The pack hook is called twice here, once in torch."""
    copy = tensor.clone()  # (recorded, CloneBackward0, as torch's copy; the values before)
    renewed = pack(copy)
    renewed.grad_fn, renewed.output_nr = packed.grad_fn, packed.output_nr
    renewed.requires_grad, renewed.accumulator = packed.requires_grad, packed.accumulator
    return renewed


def unpack(packed, node, is_output):
    """``unpack_hook``'s tensor, put back in the graph where the saved tensor was (not checked
    against in-place changes: torch cannot see through the hooks either)."""
    result = packed.unpack_hook(packed.value)
    if not hasattr(result, "_data"):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {messages.type_name(result)}")
    alias = result.detach()
    grad_fn = node if is_output else packed.grad_fn
    if grad_fn is not None:
        alias.grad_fn, alias._output_nr = grad_fn, packed.output_nr
        alias._requires_grad = True
    else:
        alias._requires_grad, alias._accumulator = packed.requires_grad, packed.accumulator
    return alias


# ====================================================================== hooks on one saved tensor
def raw_saved_attribute(name):
    """The property ``node._raw_saved_<name>``."""
    return property(lambda node: RawSavedTensor(node, type(node)._saved_names.index(name), name))


class RawSavedTensor:
    """``node._raw_saved_<name>`` (torch's ``torch._C._autograd.SavedTensor``): one saved
    tensor, for ``register_hooks(pack_hook, unpack_hook)`` on it alone."""

    def __init__(self, node, index, name):
        self.node, self.index, self.name = node, index, name

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack the saved tensor now with ``pack_hook``; each read calls ``unpack_hook``."""
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError(messages.register_hooks_arguments(self, pack_hook, unpack_hook))
        node = self.node
        if node._released:
            raise RuntimeError(messages.REGISTER_HOOKS_FREED)
        saved = node._saved[self.index]
        if not hasattr(saved, "is_output"):  # (a number: the engine keeps it as it is)
            raise RuntimeError(messages.REGISTER_HOOKS_NUMBER)
        if saved.tensor is None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at a "
                               "time.")
        # (torch's pack hook sees the saved tensor detached here)
        tensor = saved.tensor._as_output_of(node, saved.output_nr) if saved.is_output \
            else saved.tensor
        saved.packed = pack(tensor, (pack_hook, unpack_hook), tensor.detach())
        saved.tensor = None

    def unpack(self):
        return saved_value(self.node, self.name)

    def __repr__(self):
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"  # (torch's name)
