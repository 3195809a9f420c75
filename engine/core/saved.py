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
"""
from ..fidelity import messages
from ..fidelity.scalars import number_as_tensor


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
    if name in type(node)._state:
        return getattr(node, name)
    raise AttributeError(f"'{node.name()}' object has no attribute '_saved_{name}'")
