"""``torch.autograd.graph``: the recorded graph's node type, and hooks on what it saves.

``saved_tensors_hooks(pack_hook, unpack_hook)`` changes how the nodes recorded inside it
keep their saved tensors: they keep ``pack_hook(tensor)``, and every read (backward,
``ctx.saved_tensors``, ``grad_fn._saved_self``) calls ``unpack_hook`` on it. The mechanism
is ``engine/core/saved.py``; this is torch's public face of it.
"""
import contextlib

from ..core import saved
from ..core.node import Node  # noqa: F401

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "Node"]


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
