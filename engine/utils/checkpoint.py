"""``torch.utils.checkpoint``: trade compute for memory, as torch does it.

``checkpoint(fn, *args, use_reentrant=...)`` runs ``fn`` keeping none of the tensors its
operations would save for backward, and runs it again in backward to get them back. The
random number generator's state is saved first and restored for the second run
(``preserve_rng_state``), so dropout drops the same elements twice.

Two ways, as in torch:

* ``use_reentrant=True`` (torch 2.15's default when not given, with a warning): ``fn`` runs in
  ``no_grad`` mode inside a custom Function (``CheckpointFunction``, its node in the graph);
  its backward runs ``fn`` again with grad mode on and calls ``backward()`` on that new graph
  (a backward inside a backward: ``autograd.grad`` cannot go through it).
* ``use_reentrant=False``: ``fn`` runs normally under ``saved_tensors_hooks`` whose pack
  hook keeps an empty ``Holder`` instead of each saved tensor; the first unpack in a
  backward call runs ``fn`` again under hooks that fill the holders in the same order (it
  stops as soon as all are filled, ``early_stop``), and each unpack takes its tensor once.
"""
import contextlib
import functools
import uuid
import warnings
import weakref
from collections import defaultdict

from ..autograd.function import Function
from ..autograd.graph import current_graph_task_id, saved_tensors_hooks
from ..core.backward import backward as run_backward
from ..core.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..core.hooks import running_tasks
from ..core.node import Node, SavedTensor
from ..core.tensor import Tensor
from ..fidelity.random import get_rng_state, set_rng_state

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "noop_context_fn",
           "set_checkpoint_early_stop"]

_DEFAULT_DETERMINISM_MODE = "default"

_EXPLICIT_REENTRANT = (
    "the use_reentrant parameter should be passed explicitly. {} use_reentrant=False is "
    "recommended, but if you need to preserve the current default behavior, you can pass "
    "use_reentrant=True. Refer to docs for more details on the differences between the two "
    "variants.")

_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""


class CheckpointError(RuntimeError):
    """Raised when the second run of a checkpointed function does not match the first."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """Each tensor of the tuple ``inputs`` detached, keeping its requires_grad."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    detached = []
    for value in inputs:
        if isinstance(value, Tensor):
            requires_grad, value = value.requires_grad, value.detach()
            value.requires_grad = requires_grad
        detached.append(value)
    return tuple(detached)


def check_backward_validity(inputs):
    if not any(value.requires_grad for value in inputs if isinstance(value, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


@contextlib.contextmanager
def _rng_state_restored(state, enabled):
    """Run with the generator's ``state`` (when ``enabled``), then put back what it had."""
    if not enabled:
        yield
        return
    current = get_rng_state()
    set_rng_state(state)
    try:
        yield
    finally:
        set_rng_state(current)


# ====================================================================== checkpoint()
def checkpoint(function=None, *args, use_reentrant=None, preserve_rng_state=True,
               context_fn=noop_context_fn, determinism_check=_DEFAULT_DETERMINISM_MODE,
               debug=False, early_stop=True, respect_saved_tensors_hooks=None, **kwargs):
    """``function(*args, **kwargs)``, keeping no intermediate tensors: backward runs it again.
    Without ``function`` (and arguments): a decorator with these settings."""
    settings = dict(use_reentrant=use_reentrant, preserve_rng_state=preserve_rng_state,
                    context_fn=context_fn, determinism_check=determinism_check, debug=debug,
                    early_stop=early_stop, respect_saved_tensors_hooks=respect_saved_tensors_hooks)
    if function is None and not args:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return functools.partial(_CheckpointedFunction, **settings)
    return _checkpoint_impl(function, args, kwargs, **settings)


class _CheckpointedFunction:
    """``checkpoint(use_reentrant=...)(fn)``: ``fn`` whose every call is checkpointed."""

    def __init__(self, function, **settings):
        functools.update_wrapper(self, function)
        self.function, self.settings = function, settings

    def __call__(self, *args, **kwargs):
        return _checkpoint_impl(self.function, args, kwargs, **self.settings)

    def __get__(self, instance, owner=None):
        bind = getattr(self.function, "__get__", None)
        if instance is None or bind is None:
            return self
        return type(self)(bind(instance, owner), **self.settings)


def _checkpoint_impl(function, args, kwargs, *, use_reentrant, preserve_rng_state, context_fn,
                     determinism_check, debug, early_stop, respect_saved_tensors_hooks):
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: " + _EXPLICIT_REENTRANT.format(
            "In a future release, calling checkpoint without use_reentrant will raise an "
            "exception."), stacklevel=3)
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False or \
                respect_saved_tensors_hooks is not None:
            raise ValueError("Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` "
                             "is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if determinism_check not in _METADATA:
        raise ValueError(f"determinism_check should be one of {list(_METADATA)}, but got "
                         f"{determinism_check}")
    forward_context, recompute_context = context_fn()
    if not is_grad_enabled():  # nothing will be saved: an ordinary call (as torch: no context)
        return function(*args, **kwargs)
    frame = _CheckpointFrame(function, args, kwargs, preserve_rng_state, recompute_context,
                             early_stop if _early_stop[0] is None else _early_stop[0],
                             _METADATA[determinism_check])
    with _checkpoint_hook(frame), forward_context:
        result = function(*args, **kwargs)
    frame.forward_completed = True
    return result


_early_stop = [None]  # set_checkpoint_early_stop's setting (None: each call's early_stop)


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Inside it, the second run stops (``enable``) or not once every tensor is recomputed."""
    previous, _early_stop[0] = _early_stop[0], enable
    try:
        yield
    finally:
        _early_stop[0] = previous


# ====================================================================== use_reentrant=True
class CheckpointFunction(Function):
    """``fn`` run without recording; its backward runs it again, recorded, and backward()
    through that graph gives the inputs' gradients."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function, ctx.preserve_rng_state = run_function, preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = get_rng_state()
        ctx.inputs = [None if isinstance(arg, Tensor) else arg for arg in args]
        ctx.tensor_indices = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        ctx.save_for_backward(*[arg for arg in args if isinstance(arg, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if running_tasks and running_tasks[-1].capture is not None:
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = list(ctx.inputs)
        for index, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[index] = tensor
        with _rng_state_restored(getattr(ctx, "fwd_cpu_state", None), ctx.preserve_rng_state):
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        outputs = (outputs,) if isinstance(outputs, Tensor) else outputs
        pairs = [(out, grad) for out, grad in zip(outputs, grads)
                 if isinstance(out, Tensor) and out.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        from_outputs, with_grads = zip(*pairs)
        run_backward(list(from_outputs), list(with_grads))  # (a walk inside the walk)
        return (None, None) + tuple(value.grad if isinstance(value, Tensor) else None
                                    for value in detached)


# ====================================================================== use_reentrant=False
def _metadata(tensor):
    return {"shape": tensor.shape, "dtype": tensor.dtype, "device": tensor.device}


_METADATA = {_DEFAULT_DETERMINISM_MODE: _metadata, "none": lambda tensor: None}


class _Holder:
    """What the forward's pack hook keeps for a saved tensor: per backward call (graph task
    id), the key of its recomputed tensor in the frame, None once unpacked."""

    def __init__(self):
        self.handles = {}


class _Handle:
    pass


class _StopRecomputation(Exception):  # noqa: N818 - (torch's _StopRecomputationError)
    pass


class _CheckpointFrame:
    """One checkpointed call: its inputs (kept, checked against in-place changes), the
    holders of what its operations saved, and what each backward call recomputed."""

    def __init__(self, function, args, kwargs, preserve_rng_state, recompute_context,
                 early_stop, metadata):
        self.function, self.kwargs = function, kwargs
        self.saved_args = [SavedTensor(arg, False) if isinstance(arg, Tensor) else arg
                           for arg in args]
        self.rng_state = get_rng_state() if preserve_rng_state else None
        self.recompute_context, self.early_stop, self.metadata = \
            recompute_context, early_stop, metadata
        self.weak_holders, self.metadatas = [], []
        self.recomputed = defaultdict(weakref.WeakKeyDictionary)  # task -> handle -> tensor
        self.recompute_count, self.is_recomputed = defaultdict(int), defaultdict(bool)
        self.forward_completed = self.ignore_saved_mismatch = False

    def recompute(self, task):
        """Run the function again, its saved tensors going into the holders (for ``task``)."""
        args = [Node()._unpack(arg) if isinstance(arg, SavedTensor) else arg
                for arg in self.saved_args]
        try:
            with _recomputation_hook(self, task), enable_grad(), \
                    _rng_state_restored(self.rng_state, self.rng_state is not None), \
                    self.recompute_context:
                self.function(*args, **self.kwargs)
        except _StopRecomputation:
            pass
        self.is_recomputed[task] = True
        self.check_recomputed(task)

    def check_recomputed(self, task):
        if self.ignore_saved_mismatch:
            return
        if len(self.weak_holders) != self.recompute_count[task]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\nNumber of tensors saved during forward: "
                f"{len(self.weak_holders)}\nNumber of tensors saved during recomputation: "
                f"{self.recompute_count[task]}.\n{_DEBUG_TIP}")
        different = ""
        for index, reference in enumerate(self.weak_holders):
            holder = reference()
            if holder is None:
                continue
            recomputed = self.metadata(self.recomputed[task][holder.handles[task]])
            if recomputed != self.metadatas[index]:
                different += (f"tensor at position {index}:\nsaved metadata: "
                              f"{self.metadatas[index]}\nrecomputed metadata: {recomputed}\n")
        if different:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{different}.\n{_DEBUG_TIP}")


def _checkpoint_hook(frame):
    """The forward's hooks: a saved tensor becomes an empty holder; its first unpack in a
    backward call recomputes them all."""
    def pack(tensor):
        holder = _Holder()
        frame.weak_holders.append(weakref.ref(holder))
        with no_grad():
            frame.metadatas.append(frame.metadata(tensor))
        return holder

    def unpack(holder):
        task = current_graph_task_id()
        if task == -1:  # read outside backward (grad_fn._saved_self): a run of its own
            task = int(uuid.uuid4())
        if not frame.is_recomputed[task]:
            frame.recompute(task)
        if holder.handles[task] is None:
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already "
                "unpacked once. If you are calling ctx.saved_tensors in backward, make sure to do "
                "so only once. Otherwise please open an issue with details on your use case.")
        tensor = frame.recomputed[task][holder.handles[task]]
        holder.handles[task] = None
        return tensor

    return saved_tensors_hooks(pack, unpack)


def _recomputation_hook(frame, task):
    """The second run's hooks: each saved tensor fills the next holder, in order."""
    def pack(tensor):
        tensor = tensor.detach() if tensor.requires_grad else tensor
        index = frame.recompute_count[task]
        frame.recompute_count[task] += 1
        if index >= len(frame.weak_holders):
            if not frame.forward_completed:  # (a backward inside the checkpointed function)
                frame.ignore_saved_mismatch = True
                return tensor
            raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during "
                                  f"recomputation than during the original forward pass.\n"
                                  f"{_DEBUG_TIP}")
        holder = frame.weak_holders[index]()
        if holder is not None:
            holder.handles[task] = _Handle()
            frame.recomputed[task][holder.handles[task]] = tensor
        if frame.early_stop and frame.recompute_count[task] == len(frame.weak_holders):
            raise _StopRecomputation
        return tensor

    return saved_tensors_hooks(pack, lambda tensor: tensor)


# ====================================================================== checkpoint_sequential()
def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a Sequential or a list) one after the other on ``input``, in
    ``segments`` pieces: every piece but the last is checkpointed."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: " + _EXPLICIT_REENTRANT
                      .format("In a future release, we will raise an exception if use_reentrant "
                              "is not passed."), stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run(start, end):
        def forward(value):
            for j in range(start, end + 1):
                value = functions[j](value)
            return value
        return forward

    if hasattr(functions, "children"):  # a Sequential (engine.nn imports engine.utils: no import)
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
