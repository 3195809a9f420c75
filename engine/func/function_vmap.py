"""A custom ``autograd.Function`` under ``vmap``: its own batching rule, as torch runs it
(torch/_functorch/autograd_function.py, ``custom_function_call_vmap``).

Each running vmap call is a ``VmapLevel`` (torch's vmap "interpreter": batch size,
randomness, level) on fidelity/transforms.py's stack, where ``Function.apply`` finds the
innermost one and hands it the call (engine/autograd/function.py). The level

* refuses a Function with no rule, with two (a ``vmap`` staticmethod and
  ``generate_vmap_rule = True``), or given Tensors as keyword arguments, in torch's words;
* unwraps the arguments batched at its level: the tensor torch's batched tensor holds, with
  the batch at ``in_dim`` (batched.py's ``bdim``, ``origin``). When none is, it hands the call
  to the level below, "lowered": the transforms running inside it are out of sight meanwhile;
* calls the Function's ``vmap(info, in_dims, *args)`` one level lower, checks that it returns
  ``(output, out_dims)`` fitting each other, and wraps each output back at its out_dim (an
  input the rule returns as it is comes back as the very tensor given: torch keeps identity);
* with ``generate_vmap_rule = True``, runs ``forward`` once on the batch, as a Function of the
  unwrapped tensors whose ``setup_context`` and ``backward`` see the batch too (``on_batch``,
  torch's ``vmapify_autograd_function``). An operation in it without a batching rule stops
  that, and vmap runs its per-sample loop (vmap.py).

Under a gradient transform running inside the vmap (``vmap(grad(f))``) the rule runs as such
a Function too, as torch's single-level function of the grad level: its setup_context and
backward see the batch. Under forward-mode AD (jvp, jacfwd) the rule runs plainly and a
generated rule falls back to the loop (each sample's ``jvp``).
"""
import contextlib
import functools
import operator
from typing import NamedTuple

from ..autograd.function import Function
from ..core import forward as forward_mode
from ..core.tensor import Tensor
from ..fidelity import messages
from ..fidelity import random as fidelity_random
from ..fidelity.size import wrap_dim
from ..fidelity.transforms import RUNNING as running_transforms
from ..ops.join import stack
from .batched import BatchedTensor, NoBatchingRule
from .pytree import broadcast_prefix, spec_repr, tree_flatten, tree_unflatten

RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                "use the 'same' or 'different' randomness flags on vmap or perform the "
                "randomness operation out of vmap")

levels = []  # the sizes of the vmap levels running now, innermost last (number: level)


class VmapInfo(NamedTuple):
    """What a Function's vmap rule learns of the vmap calling it (torch's VmapInfo)."""

    batch_size: int
    randomness: str


def _random_draw(randomness, batched):
    if randomness == "error":
        raise RuntimeError(RANDOM_ERROR)
    if randomness == "different" and batched:
        raise NoBatchingRule("a different draw per sample: the loop")


class VmapLevel:
    """One running vmap call, as what it runs meets it: its batch size, its randomness and its
    level (None for its per-sample loop, where nothing is batched)."""

    def __init__(self, size, randomness, batched=True):
        self.size, self.randomness = size, randomness
        self.level = len(levels) + 1 if batched else None
        self._marks = ()

    def __enter__(self):
        self._marks = (len(running_transforms), len(levels), len(fidelity_random.DRAW_CHECKS))
        running_transforms.append(self)
        if self.level is not None:
            levels.append(self.size)
        fidelity_random.DRAW_CHECKS.append(
            functools.partial(_random_draw, self.randomness, self.level is not None))
        return self

    def __exit__(self, *exc_info):
        fidelity_random.DRAW_CHECKS.pop()
        if self.level is not None:
            levels.pop()
        running_transforms.pop()
        return False

    @contextlib.contextmanager
    def lowered(self):
        """Only the transforms around this one running (torch's ``interpreter.lower()``):
        where a rule runs, so that what it calls meets the level below."""
        stacks = (running_transforms, levels, fidelity_random.DRAW_CHECKS)
        tails = [entries[mark:] for entries, mark in zip(stacks, self._marks)]
        for entries, mark in zip(stacks, self._marks):
            del entries[mark:]
        try:
            yield
        finally:
            for entries, mark, tail in zip(stacks, self._marks, tails):
                entries[mark:] = tail

    def running(self):
        return any(entry is self for entry in running_transforms)

    def grad_inside(self):
        """Whether a gradient transform runs inside this vmap (``vmap(grad(f))``)."""
        inside = running_transforms[next(i for i, e in enumerate(running_transforms)
                                         if e is self) + 1:]
        return any(not isinstance(entry, VmapLevel) for entry in inside)

    def custom_function(self, cls, args, kwargs):
        return custom_function_call(self, cls, args, kwargs)


# ---------------------------------------------------------------- batched <-> unbatched
def is_tensor(value):
    return isinstance(value, (Tensor, BatchedTensor))


def unwrap(value, level):
    """``(tensor, in_dim)``: what torch's batched tensor at ``level`` holds, and where its
    batch is; anything else as it is, with None."""
    if level is None or not (isinstance(value, BatchedTensor) and value.level == level):
        return value, None
    if value.origin is not None:
        return value.origin, value.bdim
    return (value.value.movedim(0, value.bdim) if value.bdim else value.value), value.bdim


def unwrap_batched(tree, level):
    """``(tree of tensors, tree of in_dims)`` (torch's unwrap_batched)."""
    flat, spec = tree_flatten(tree)
    pairs = [unwrap(value, level) for value in flat]
    return (tree_unflatten([p[0] for p in pairs], spec),
            tree_unflatten([p[1] for p in pairs], spec))


def add_batch_dim(value, dim, level):
    """``value`` batched at ``level`` along its dimension ``dim`` (torch's _add_batch_dim)."""
    dim = value.dim() + dim if dim < 0 else dim  # (torch's own wrapper: a str fails here)
    if not hasattr(type(dim), "__index__"):
        raise TypeError(messages.add_batch_dim_arguments(repr(value), dim, level))
    dim = wrap_dim(operator.index(dim), value.dim())
    return BatchedTensor(value.movedim(dim, 0) if dim else value, level, dim, value)


def wrap_batched(tree, dims, level):
    """Each tensor of ``tree`` batched at ``level`` along its dim in ``dims`` (a prefix of the
    tree), None leaving it unbatched."""
    flat, spec = tree_flatten(tree)
    wrapped = [value if dim is None or not is_tensor(value) else add_batch_dim(value, dim, level)
               for value, dim in zip(flat, broadcast_prefix(dims, tree))]
    return tree_unflatten(wrapped, spec)


# ---------------------------------------------------------------- the call
def custom_function_call(interpreter, cls, args, kwargs):
    """``cls.apply(*args, **kwargs)`` under the vmap ``interpreter`` (the innermost running)."""
    if any(is_tensor(value) for value in tree_flatten(kwargs)[0]):
        raise NotImplementedError(messages.kwarg_tensors_under_vmap(kwargs))
    has_rule = cls.vmap is not Function.vmap
    if cls.generate_vmap_rule and has_rule:
        raise RuntimeError(messages.two_vmap_rules(cls.__name__))
    if not cls.generate_vmap_rule and not has_rule:
        raise RuntimeError(messages.no_vmap_support(cls.__name__))
    unwrapped, in_dims = unwrap_batched(args, interpreter.level)
    if all(dim is None for dim in tree_flatten(in_dims)[0]):
        with interpreter.lowered():  # (nothing batched here: the level below takes it)
            return cls.apply(*args, **kwargs)
    info = VmapInfo(interpreter.size, interpreter.randomness)
    if cls.generate_vmap_rule:  # (torch passes no keyword arguments on to forward)
        if forward_mode.state.depth:
            raise NoBatchingRule("a generated vmap rule under forward-mode AD: the loop")
        return _applied(interpreter, on_batch(cls, in_dims, info, interpreter), unwrapped)
    if interpreter.grad_inside() and not forward_mode.state.depth:
        rule = functools.partial(_rule, cls, info, in_dims, **kwargs)
        return _applied(interpreter, on_batch(cls, in_dims, info, interpreter, rule), unwrapped)
    with interpreter.lowered():
        output, out_dims = _rule(cls, info, in_dims, *unwrapped, **kwargs)
    return _wrap_keeping_identity(output, out_dims, unwrapped, args, interpreter.level)


def _rule(cls, info, in_dims, *args, **kwargs):
    """The Function's vmap rule called, and what it returns checked as torch checks it."""
    result = cls.vmap(info, in_dims, *args, **kwargs)
    if not isinstance(result, tuple):
        kind = "<class 'torch.Tensor'>" if is_tensor(result) else str(type(result))
        raise RuntimeError(messages.VMAP_RULE_RETURNS + f"Got a {kind} instead")
    if len(result) != 2:
        raise RuntimeError(messages.VMAP_RULE_RETURNS + f"Got {len(result)} returns instead")
    output, out_dims = result
    if broadcast_prefix(out_dims, output) is None:
        raise RuntimeError(messages.vmap_rule_out_dims(
            out_dims, spec_repr(tree_flatten(out_dims)[1]), spec_repr(tree_flatten(output)[1])))
    return output, out_dims


def _wrap_keeping_identity(output, out_dims, unwrapped, args, level):
    """The rule's outputs batched at their out_dims; an input it returned as it is becomes
    the argument it came from (torch's wrap_outputs_maintaining_identity)."""
    given = {id(u): a for u, a in zip(tree_flatten(unwrapped)[0], tree_flatten(args)[0])}
    flat, spec = tree_flatten(output)
    wrapped = []
    for value, dim in zip(flat, broadcast_prefix(out_dims, output)):
        if is_tensor(value) and id(value) in given:
            value = given[id(value)]
        elif is_tensor(value) and dim is not None:
            value = add_batch_dim(value, dim, level)
        wrapped.append(value)
    return tree_unflatten(wrapped, spec)


def _applied(interpreter, function, unwrapped):
    """``function`` (on_batch's) applied one level lower, its outputs batched again."""
    with interpreter.lowered():
        outputs = function.apply(*unwrapped)
    return wrap_batched(outputs, function.state["out_dims"], interpreter.level)


# ---------------------------------------------------------------- a Function on the batch
def on_batch(cls, in_dims, info, interpreter, rule=None):
    """A Function of the unwrapped tensors that is ``cls`` run on the whole batch (torch's
    vmapify_autograd_function): its forward is ``rule`` (the vmap staticmethod), else
    ``cls.forward`` once on the batch; ``cls``'s setup_context and backward see the batch,
    so that autograd records one node, whose backward runs once for the whole batch."""
    state = {}

    def forward(*operands):
        if rule is None:
            outputs, out_dims = batched_call(cls.forward, in_dims, info)(*operands)
        else:
            outputs, out_dims = rule(*operands)
        state["out_dims"] = out_dims
        state["grad_dims"] = broadcast_prefix(out_dims, outputs if isinstance(outputs, tuple)
                                              else (outputs,))
        return outputs

    def setup_context(ctx, inputs, outputs):
        def on_the_batch(inputs, outputs):
            saving = CtxCustomSave(ctx, len(levels))
            cls.setup_context(saving, inputs, outputs)
            state["saved_dims"] = saving.saved_dims
            state["shapes"] = tuple(i.shape if is_tensor(i) else None for i in inputs)
        batched_call(on_the_batch, (in_dims, state["out_dims"]), info)(inputs, outputs)

    def backward(ctx, *grads):
        dims = tuple(None if g is None else d for g, d in zip(grads, state["grad_dims"]))

        def without_ctx(saved, grads):
            return cls.backward(CtxWithSavedTensors(ctx, saved), *grads)
        found, found_dims = _batched_or_looped(without_ctx, (state["saved_dims"], dims), info,
                                               interpreter)(ctx.saved_tensors, grads)
        return _reduced(found, found_dims, in_dims, info.batch_size, state["shapes"])

    name = f"{cls.__name__}Generated" if rule is not None else f"Vmapped{cls.__name__}"
    function = type(name, (Function,), {
        "forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
        "backward": staticmethod(backward), "generate_vmap_rule": True})
    function.state = state
    return function


def batched_call(func, in_dims, info, interpreter=None):
    """``func`` run once on its arguments batched at ``in_dims``, at ``interpreter``'s level
    if it is running, else at a level of its own (torch's restore_vmap): ``(outputs,
    out_dims)`` unbatched again."""
    def call(*args):
        live = interpreter is not None and interpreter.running()
        level = interpreter if live else VmapLevel(info.batch_size, info.randomness)
        with contextlib.nullcontext() if live else level:
            outputs = func(*wrap_batched(args, in_dims, level.level))
            return unwrap_batched(outputs, level.level)
    return call


def _batched_or_looped(func, in_dims, info, interpreter):
    """batched_call, or, when an operation has no batching rule, ``func`` once per sample
    (a backward runs where no vmap is there to loop)."""
    def call(*args):
        try:
            return batched_call(func, in_dims, info, interpreter)(*args)
        except NoBatchingRule:
            pass
        except TypeError as error:  # (an engine function given a BatchedTensor it cannot take)
            if "BatchedTensor" not in str(error):
                raise
        return _looped(func, in_dims, info.batch_size, args)
    return call


def _looped(func, in_dims, size, args):
    """``(outputs, out_dims)`` of ``func`` called once per sample, stacked (out_dims 0)."""
    flat, spec = tree_flatten(args)
    dims = broadcast_prefix(in_dims, args)
    results = []
    for i in range(size):
        sample = [v if d is None or v is None else v.select(d, i) for v, d in zip(flat, dims)]
        results.append(tree_flatten(func(*tree_unflatten(sample, spec))))
    out_spec = results[0][1]
    columns = [list(column) for column in zip(*(leaves for leaves, _ in results))]
    outputs = [stack(c) if is_tensor(c[0]) else c[0] for c in columns]
    return (tree_unflatten(outputs, out_spec),
            tree_unflatten([0 if is_tensor(c[0]) else None for c in columns], out_spec))


def _reduced(grads, grad_dims, in_dims, size, shapes):
    """Each input's gradient, found batched along ``grad_dims``, laid out as the input is
    (torch's reductify): summed over the batch for an unbatched input, expanded along it for a
    batched input whose gradient is the same for every sample, summed to its shape."""
    if not isinstance(grads, tuple):
        grads, grad_dims = (grads,), (grad_dims,)
    in_dims = in_dims if isinstance(in_dims, tuple) else (in_dims,)
    return tuple(_reduced_one(g, g_dim, dim, size, shape)
                 for g, g_dim, dim, shape in zip(grads, grad_dims, in_dims, shapes))


def _reduced_one(grad, grad_dim, dim, size, shape):
    if grad is None or grad_dim is None and dim is None:
        return grad
    if dim is None:
        return grad.sum(grad_dim)
    if grad_dim is None:
        grad = grad.unsqueeze(dim)
        grad = grad.expand(*grad.shape[:dim], size, *grad.shape[dim + 1:])
        grad_dim = dim
    grad = grad.movedim(grad_dim, 0)  # (torch's vmap of sum_to_size: each sample summed to
    extra = grad.dim() - 1 - len(shape)  # the input's shape, its leading dims first)
    if extra > 0:
        grad = grad.sum(tuple(range(1, extra + 1)))
    ones = tuple(i + 1 for i, n in enumerate(shape) if n == 1 and grad.shape[i + 1] != 1)
    if ones:
        grad = grad.sum(ones, keepdim=True)
    return grad.movedim(0, dim)


class WrappedCtx:
    """A Function's ctx seen through: attributes read and written on it (torch's
    WrappedCtx)."""

    def __init__(self, ctx):
        object.__setattr__(self, "_inner", ctx)

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def __setattr__(self, name, value):
        setattr(self._inner, name, value)


class CtxCustomSave(WrappedCtx):
    """setup_context's ctx on the batch: what it saves is kept unbatched, with its in_dims
    (torch's CtxCustomSave)."""

    def __init__(self, ctx, level):
        super().__init__(ctx)
        object.__setattr__(self, "_level", level)
        object.__setattr__(self, "saved_dims", ())

    def save_for_backward(self, *tensors):
        unwrapped, dims = unwrap_batched(tensors, self._level)
        self._inner.save_for_backward(*unwrapped)
        object.__setattr__(self, "saved_dims", dims)


class CtxWithSavedTensors(WrappedCtx):
    """backward's ctx on the batch: the saved tensors batched again (torch's
    CtxWithSavedTensors)."""

    def __init__(self, ctx, saved):
        super().__init__(ctx)
        object.__setattr__(self, "_saved_on_batch", saved)

    @property
    def saved_tensors(self):
        return self._saved_on_batch
