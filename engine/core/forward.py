"""Forward-mode AD: tangents carried beside values (``torch.autograd.forward_ad``'s machinery).

Inside a dual level a tensor may carry a *tangent*, the direction its value moves in. Every
operation that records a node (``node.record``) asks ``propagate`` for its results' tangents
when an input has one. A view's is the same view of its input's tangent (a tangent is laid
out as its primal, and writing into a view writes into its base's tangent); any other op's
comes from its node's backward formula (tangents.py); ``jvp = None`` on a node class, or a
formula that is not differentiable in ``grad``: torch's error.

Levels: ``dual_level`` opens one, and only one, as torch's. ``torch.func.jvp`` inside
``jvp`` opens another inside it (torch's functorch levels), so a tensor holds one tangent
per level (``_fw``: {level's generation: tangent}). A level's tangents are computed with
only the levels outside it switched on: the tangent at the inner level carries its own
tangent at the outer one, a second derivative, which the outer ``jvp`` reads.
"""
import numpy as np

from ..fidelity import messages
from ..fidelity.layout import has_internal_overlap
from .grad_mode import enable_grad, mode, no_grad
from .tangents import derive, is_view_of, same_view


class DualState:
    """``levels``: the open levels' generations (unique numbers), outermost first;
    ``depth``: how many of them operations see now (a level's formulas see the ones outside
    it); ``active``: depth > 0 (record's one test); ``level``, ``generation``: the innermost
    level seen, its index (-1: none) and generation."""

    def __init__(self):
        self.levels, self.made = [], 0
        self.see(0)

    def see(self, depth):
        self.depth, self.active, self.level = depth, depth > 0, depth - 1
        self.generation = self.levels[depth - 1] if depth else None


state = DualState()


def enter_level(nested=False):
    """Open a level (``dual_level``'s; ``nested``: one more inside, ``torch.func.jvp``'s)."""
    if state.levels and not nested:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    state.made += 1
    state.levels.append(state.made)
    state.see(len(state.levels))
    return state.level


def exit_level(level):
    if level != state.level:
        raise RuntimeError(messages.FORWARD_EXIT_NOT_LAST)
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    state.levels.pop()
    state.see(len(state.levels))


def each_level(write):
    """Call ``write()`` once per open level, outermost first, seeing that level and the ones
    outside it (an in-place write updates the tangent at every level)."""
    depth = state.depth
    try:
        for seen in range(1, depth + 1):
            state.see(seen)
            write()
    finally:
        state.see(depth)


def has_tangent(tensor):
    """Whether ``tensor`` has a tangent at some level seen (an op then keeps what its
    formulas read)."""
    depth = state.depth
    if depth == 1:  # (one level, the usual case)
        return tangent_of(tensor) is not None
    try:
        for seen in range(depth, 0, -1):
            state.see(seen)
            if tangent_of(tensor) is not None:
                return True
        return False
    finally:
        state.see(depth)


def tangent_of(tensor):
    """The tangent of ``tensor`` at the innermost level seen, or None. A view with none of
    its own sees the same view of its base's tangent (made when the base got one by an
    in-place write)."""
    if state.level < 0:
        return None
    held = getattr(tensor, "_fw", None)
    if held is not None and state.generation in held:
        return held[state.generation]
    base = getattr(tensor, "_base", None)
    base_tangent = None if base is None else tangent_of(base)
    return None if base_tangent is None else set_tangent(
        tensor, same_view(base_tangent, base, tensor))


def set_tangent(tensor, tangent):
    """Give ``tensor`` its tangent (None: none, not even its base's), copied into
    ``tensor``'s own layout when it has another: as torch's, in zeros as large as its
    storage, at its offset and strides. A memory that repeats itself, an expanded tensor's,
    cannot take a copy: torch's copy refuses to write there (a tangent laid out as the
    expanded tensor already is needs no copy, and passes)."""
    layouts = tangent is not None and [(t.stride(), t.storage_offset(), t._storage_array().size)
                                       for t in (tangent, tensor)]
    if layouts and layouts[0] != layouts[1]:
        if has_internal_overlap(tensor._data.shape, tensor.stride()):
            raise RuntimeError(messages.INTERNAL_OVERLAP)
        with no_grad() if not tangent.requires_grad else enable_grad():
            room = tangent.new_zeros(tensor._storage_array().size).as_strided(
                tensor._data.shape, tensor.stride(), tensor.storage_offset())
            tangent = room.copy_(tangent)
    if tensor._fw is None:
        tensor._fw = {}
    tensor._fw[state.generation] = tangent
    return tangent


def keep_tangents(tensor, other):
    """``other`` (``tensor`` detached, say) with ``tensor``'s tangents at every level seen."""
    def keep():
        tangent = tangent_of(tensor)
        if tangent is not None:
            set_tangent(other, tangent)
    each_level(keep)
    return other


def propagate(node_class, results, inputs, saved, saved_output, values):
    """``record``'s call: give ``results`` their tangents when an input has one, level by
    level, outermost first (an inner level's formula may read the outputs' outer tangents)."""
    outputs = results if isinstance(results, tuple) else (results,)
    depth = state.depth
    try:
        for seen in range(1, depth + 1):
            if depth > 1:  # (one level, the usual case: already seen as it is)
                state.see(seen)
            tangents = [tangent_of(value) for value in inputs]
            if any(tangent is not None for tangent in tangents):
                propagate_at(node_class, outputs, inputs, tangents, saved, saved_output, values)
    finally:
        if depth > 1:
            state.see(depth)
    node = outputs[0].grad_fn if saved_output else None  # its aliases of its outputs: the
    for output, kept in zip(outputs, node._saved[-int(saved_output):] if node else ()):  # same
        if output._fw is not None and getattr(kept, "tensor", None) is not None:  # tangents
            kept.tensor._fw = output._fw


def propagate_at(node_class, outputs, inputs, tangents, saved, saved_output, values):
    """The results' tangents at the innermost level seen, from the inputs' ``tangents``."""
    rule = getattr(node_class, "jvp", "transposed")
    if rule is None:
        raise NotImplementedError(messages.no_forward_ad(node_class))
    depth = state.depth
    state.see(depth - 1)  # the formulas read primals: no tangents of tangents at this level
    try:
        viewed = all(is_view_of(out, value) for out in outputs for value, tangent
                     in zip(inputs, tangents) if tangent is not None and out is not None)
        if viewed:
            position = next(i for i, tangent in enumerate(tangents) if tangent is not None)
            found = [same_view(tangents[position], inputs[position], out) for out in outputs]
        else:
            found = derive(node_class, rule, inputs, tangents, saved, saved_output, outputs,
                           values, recorded=depth > 1)
    finally:
        state.see(depth)
    if depth > 1 and not (mode.grad_enabled and any(  # (recorded for the outer levels only)
            getattr(value, "_requires_grad", False) for value in (*tangents, *inputs))):
        found = [t if t is None or not t.requires_grad else keep_tangents(t, t.detach())
                 for t in found]
    for out, tangent in zip(outputs, found):
        if tangent is not None and out is not None and out._data.dtype.kind == "f":
            if not viewed and (tangent._base is not None or any(tangent is t for t in tangents)):
                tangent = tangent.clone()  # (an input's tangent, or a view of it: a copy)
            set_tangent(out, tangent)  # (in the dtype it came in: a float64 tangent stays)


def write_tangent(tensor, new, where=True):
    """An in-place write into ``tensor`` whose new value has tangent ``new`` (None: the value
    written has none): the tensor's tangent is written in place too (a view's lives in its
    base's tangent, which gets one of zeros first if it had none). Inside an outer level,
    as an operation (the tangent's own outer tangent is written too)."""
    old = tangent_of(tensor)
    if old is None and new is None:
        return
    if old is None:
        base = tensor._base
        if base is not None:
            if tangent_of(base) is None:
                set_tangent(base, base.detach().new_zeros(base._data.shape))
            old = tangent_of(tensor)
        else:
            old = set_tangent(tensor, tensor.detach().clone().zero_())
    if state.level > 0:
        write_seen_from_outside(old, new, where)
        return
    np.copyto(old._data, 0 if new is None else np.broadcast_to(new._data, old._data.shape),
              casting="unsafe", where=where)
    old._bump_version()


def write_seen_from_outside(old, new, where):
    depth = state.depth
    state.see(depth - 1)
    try:
        value = old.new_zeros(()) if new is None else new
        if where is not True:
            value = value.expand(old.shape).where(old.new_tensor(where, dtype=bool), old)
        old.copy_(value)
    finally:
        state.see(depth)
