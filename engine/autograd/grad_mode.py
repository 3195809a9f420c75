"""``torch.autograd.grad_mode``: the grad-mode switches (engine/core/grad_mode.py), and
``set_multithreading_enabled``, which the engine takes and has nothing to do with: its
backward pass always runs on the calling thread."""
import functools

from ..core.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: F401
from ..fidelity.messages import type_name


class set_multithreading_enabled:  # noqa: N801 - torch's name
    """``with set_multithreading_enabled(False):`` (or as a decorator): torch's backward may
    run on worker threads for other devices; the engine's runs on the calling thread anyway,
    so the mode is kept and nothing changes."""

    enabled = True  # (the mode now, as torch's _is_multithreading_enabled() reports it)

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError("set_multithreading_enabled(): argument 'enabled' (position 1) "
                            f"must be bool, not {type_name(mode)}")
        self.mode, self.previous = mode, set_multithreading_enabled.enabled
        set_multithreading_enabled.enabled = mode  # (torch applies it on construction)

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        set_multithreading_enabled.enabled = self.previous

    def __call__(self, function):
        set_multithreading_enabled.enabled = self.previous  # (a decorator: inside the call)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with self.clone():
                return function(*args, **kwargs)
        return wrapper

    def clone(self):
        return set_multithreading_enabled(self.mode)
