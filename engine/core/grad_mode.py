"""Grad modes: whether operations are recorded right now.

``mode.recording`` is the one switch every operation reads before recording a node;
``no_grad()``, ``enable_grad()`` and ``set_grad_enabled(flag)`` change it for a block
(or, as decorators, for every call of a function). ``inference_mode()`` is ``no_grad``
that also marks the tensors made inside, so that autograd refuses them later.
"""
import functools
import inspect


class _Mode:
    """``grad_enabled``: is grad mode on. ``inference``: are we inside ``inference_mode``.
    ``recording``: both together, what every operation reads (inside inference_mode even
    enable_grad() records nothing); ``set`` changes the three at once. ``anomaly``:
    detect_anomaly's checks while it is on, else None."""

    grad_enabled = True
    inference = False
    recording = True
    anomaly = None

    def set(self, grad_enabled, inference=None):
        self.inference = self.inference if inference is None else inference
        self.grad_enabled, self.recording = grad_enabled, grad_enabled and not self.inference


mode = _Mode()


def is_grad_enabled():
    """True unless inside ``no_grad()`` (or ``set_grad_enabled(False)``)."""
    return mode.grad_enabled


def is_inference_mode_enabled():
    return mode.inference


class _GradModeContext:
    """A context manager that is also a decorator, like torch's grad-mode classes."""

    grad_enabled = True

    def __new__(cls, *args, **kwargs):
        # torch accepts the bare decorator too: ``@no_grad`` as well as ``@no_grad()``
        if cls in (no_grad, enable_grad) and len(args) == 1 and callable(args[0]):
            return cls()(args[0])
        return super().__new__(cls)

    def __enter__(self):
        self._previous = mode.grad_enabled
        mode.set(self.grad_enabled)

    def __exit__(self, *exc_info):
        mode.set(self._previous)
        return False

    def __call__(self, function):
        """As a decorator: every call of ``function`` runs inside a fresh copy of this mode."""
        clone = self.clone
        if inspect.isgeneratorfunction(function):
            return functools.wraps(function)(_generator_in_mode(function, clone))

        @functools.wraps(function)
        def decorated(*args, **kwargs):
            with clone():
                return function(*args, **kwargs)

        return decorated

    def clone(self):
        return type(self)()


def _generator_in_mode(function, clone):
    """A generator function whose every step (not only its creation) runs in the mode."""
    def decorated(*args, **kwargs):
        with clone():
            generator = function(*args, **kwargs)
        sent = None
        while True:
            try:
                with clone():
                    value = generator.send(sent)
            except StopIteration as stop:
                return stop.value
            sent = yield value

    return decorated


class no_grad(_GradModeContext):  # noqa: N801 - torch's name
    """Inside ``with no_grad():`` operations are not recorded: results never require grad."""

    grad_enabled = False


class enable_grad(_GradModeContext):  # noqa: N801
    """Switch recording back on inside a ``no_grad`` block."""

    grad_enabled = True


class set_grad_enabled(_GradModeContext):  # noqa: N801
    """``set_grad_enabled(False)`` switches recording off at once; as ``with``, for a block."""

    def __init__(self, grad_enabled):
        self.grad_enabled = bool(grad_enabled)
        self._previous = mode.grad_enabled
        mode.set(self.grad_enabled)  # torch applies it on construction too

    def __enter__(self):
        pass

    def __call__(self, function):
        mode.set(self._previous)  # as a decorator it only applies inside the call
        return super().__call__(function)

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.grad_enabled})"

    def clone(self):
        return set_grad_enabled(self.grad_enabled)


class inference_mode(_GradModeContext):  # noqa: N801
    """Like ``no_grad``, and tensors made inside are marked ``is_inference()``."""

    def __init__(self, mode=True):
        self.grad_enabled = not mode
        self._inference = mode

    def __enter__(self):
        self._previous = mode.grad_enabled
        self._previous_inference = mode.inference
        mode.set(self.grad_enabled, self._inference)
        self._entered = True

    def __exit__(self, *exc_info):
        mode.set(self._previous, self._previous_inference)
        self._entered = False
        return False

    def __del__(self):
        # torch's is a C++ guard: entered and dropped without __exit__, it ends with the object
        if getattr(self, "_entered", False):
            mode.set(self._previous, self._previous_inference)

    def clone(self):
        return inference_mode(self._inference)
