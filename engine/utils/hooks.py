"""``torch.utils.hooks``: the handle that ``register_*_hook`` methods return.

A module keeps each kind of hook in a dict, in the order they run, keyed by the handle's
``id``; ``handle.remove()`` deletes that key again (from every dict the hook was put in).
"""
import itertools
import weakref

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """A handle which provides the capability to remove a hook."""

    next_id = itertools.count()  # one number for every handle ever made, as torch's

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle.next_id)
        extras = extra_dict if isinstance(extra_dict, list) else \
            [] if extra_dict is None else [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self):
        for reference in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = reference()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()
