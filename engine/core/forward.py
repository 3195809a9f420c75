"""Forward-mode AD: tangents carried beside values (``torch.autograd.forward_ad``'s machinery).

Inside a dual level a tensor may carry a *tangent*, the direction its value moves in. Every
operation that records a node (``node.record``) asks ``propagate`` for its results' tangents
when an input has one: a Jacobian-vector product, derived from the node's backward formula as
torch derives most of its forward formulas (derivatives.yaml's ``auto_element_wise`` and
``auto_linear``), so an op still reads as forward + backward:

* a node class marked ``jvp = "element_wise"``: the backward formula applied to each input's
  tangent, summed (``grad * cos(x)`` gives ``t * cos(x)``);
* a view (its result shares its input's memory): the same view of the input's tangent, so a
  tangent is laid out as its primal, and writing into a view writes into its base's tangent;
* any other node: its backward formula *transposed*. Backward is linear in ``grad``
  (``backward(g) = J^T g``); one more backward through it, with the tangent as the incoming
  gradient, gives ``J t`` (the double-backward trick of autograd.functional.jvp, op by op);
* a node class with a method ``jvp(self, *tangents)`` (None for an input without one): its
  own forward formula, where torch's differs from the derived one (``where``'s zero signs);
* ``jvp = None``, or a formula that is not differentiable in ``grad``: torch's error.

Only one level at a time, as torch's. While a tangent is being computed no other tangent is:
the formulas read the primals only.
"""
import warnings

import numpy as np

from ..fidelity import messages
from .grad_mode import enable_grad, mode, no_grad


class DualState:
    """``active``: a dual level is open (record's one test); ``generation`` counts levels, so
    that a tangent set at a level already closed reads as none."""

    active = False
    level = -1
    generation = 0


state = DualState()
ANY_EDGE = object()  # the formula node's next_functions: "every input wants its gradient"


def enter_level():
    if state.level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    state.level, state.active, state.generation = 0, True, state.generation + 1
    return state.level


def exit_level(level):
    if level != state.level:
        raise RuntimeError(messages.FORWARD_EXIT_NOT_LAST)
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    state.level, state.active = -1, False


def tangent_of(tensor):
    """The tangent of ``tensor`` at the open level, or None. A view with none of its own sees
    the same view of its base's tangent (made when the base got one by an in-place write)."""
    held = getattr(tensor, "_fw", None)
    if held is not None and held[0] == state.generation and state.level >= 0:
        return held[1]
    base = getattr(tensor, "_base", None)
    if base is None or state.level < 0:
        return None
    base_tangent = tangent_of(base)
    return None if base_tangent is None else set_tangent(
        tensor, same_view(base_tangent, base, tensor))


def set_tangent(tensor, tangent):
    """Give ``tensor`` its tangent, copied into ``tensor``'s own layout when it has another:
    as torch's, in zeros as large as its storage, at its offset and strides (a memory that
    repeats itself, an expanded tensor's, gets a dense copy)."""
    layouts = [(t.stride(), t.storage_offset(), t._storage_array().size) for t in (tangent, tensor)]
    if tensor._data.size and layouts[0] != layouts[1]:
        with no_grad() if not tangent.requires_grad else enable_grad():
            if 0 in tensor.stride():
                room = tensor.detach().clone().to(tangent.dtype)
            else:
                room = tangent.new_zeros(tensor._storage_array().size).as_strided(
                    tensor._data.shape, tensor.stride(), tensor.storage_offset())
            tangent = room.copy_(tangent)
    tensor._fw = (state.generation, tangent)
    return tangent


def same_view(tangent, primal, view):
    """``view`` of ``primal``'s memory, taken of ``tangent`` (laid out as ``primal``)."""
    return tangent.as_strided(view._data.shape, view.stride(), tangent.storage_offset()
                              + view.storage_offset() - primal.storage_offset())


def propagate(node_class, results, inputs, saved, saved_output, values):
    """``record``'s call: give ``results`` their tangents when an input has one."""
    tangents = [tangent_of(value) for value in inputs]
    if not any(tangent is not None for tangent in tangents):
        return
    outputs = results if isinstance(results, tuple) else (results,)
    rule = getattr(node_class, "jvp", "transposed")
    if rule is None:
        raise NotImplementedError(messages.no_forward_ad(node_class))
    state.active = False  # the formulas read primals: no tangents of tangents
    try:
        viewed = all(is_view_of(out, value) for out in outputs for value, tangent
                     in zip(inputs, tangents) if tangent is not None and out is not None)
        if viewed:
            position = next(i for i, tangent in enumerate(tangents) if tangent is not None)
            found = [same_view(tangents[position], inputs[position], out) for out in outputs]
        else:
            node = formula_node(node_class, inputs, tangents, saved, saved_output, outputs, values)
            if callable(rule):  # the node's own forward formula: jvp(self, *tangents)
                found = [rule(node, *tangents)]
            else:
                found = (element_wise if rule == "element_wise" else transposed)(
                    node, node_class, tangents, outputs, inputs)
    finally:
        state.active = True
    for out, tangent in zip(outputs, found):
        if tangent is not None and out is not None and out._data.dtype.kind == "f":
            if not viewed and (tangent._base is not None or any(tangent is t for t in tangents)):
                tangent = tangent.clone()  # (an input's tangent, or a view of it: a copy)
            set_tangent(out, tangent)  # (in the dtype it came in: a float64 tangent stays)
    if saved_output and outputs[0]._fw is not None and outputs[0].grad_fn is not None:
        kept = outputs[0].grad_fn._saved[-1]  # the node's alias of its output: the same tangent
        if getattr(kept, "tensor", None) is not None:
            kept.tensor._fw = outputs[0]._fw


def is_view_of(out, value):
    return out._base is not None and hasattr(value, "_data") and \
        out._storage_array() is value._storage_array() and out._data.size > 0


def formula_node(node_class, inputs, tangents, saved, saved_output, outputs, values):
    """A node of ``node_class`` wired to nothing, holding what ``record``'s would hold."""
    node = node_class()
    node._saved = tuple(saved) + ((outputs[0],) if saved_output else ())
    node._input_meta = tuple((v._data.shape, v._data.dtype) if hasattr(v, "_data") else None
                             for v in inputs)
    node.next_functions = tuple((ANY_EDGE if t is not None else None, 0) for t in tangents)
    for name, value in values.items():
        setattr(node, name, value)
    return node


def element_wise(node, node_class, tangents, outputs, node_inputs):
    """torch's auto_element_wise: each input's term is the backward formula of its tangent."""
    (out,), total = outputs, None
    for position, tangent in enumerate(tangents):
        if tangent is None:
            continue
        if tangent._data.shape != out._data.shape:
            tangent = tangent.expand(out._data.shape)
        grads = node.backward(tangent)
        term = grads[position] if isinstance(grads, tuple) else grads
        if term is not None:
            total = term if total is None else total + term
    return [total]


def transposed(node, node_class, tangents, outputs, node_inputs):
    """``J t`` as the gradient of ``<backward(g), t>`` with respect to ``g``."""
    keep_graph = mode.grad_enabled and any(getattr(value, "_requires_grad", False)
                                           for value in (*tangents, *node_inputs))
    with enable_grad():
        seeds = [out.new_ones(out._data.shape).requires_grad_()  # (any seed: linear in it)
                 if out is not None and out._data.dtype.kind == "f" else None for out in outputs]
        grads = node.backward(*seeds[:node.num_outputs])
        grads = grads if isinstance(grads, tuple) else (grads,)
        total, constant = None, False
        for grad, tangent in zip(grads, tangents):
            if tangent is None or grad is None:
                continue
            if not grad.requires_grad:  # a zero gradient (a sample's), or a formula computed
                constant = constant or bool(grad._data.any())  # outside autograd: no way
                continue                                        # through (see below)
            term = (grad * tangent).sum()
            total = term if total is None else total + term
        if constant:  # a gradient that does not come from grad: no forward formula to derive
            raise NotImplementedError(messages.no_forward_ad(node_class))
        if total is None:  # every input's gradient is zero: so are the tangents
            return [None if seed is None else seed.new_zeros(seed.shape) for seed in seeds]
        caught = {}  # each seed's gradient as it arrives (.grad would hold a copy of it)
        for position, seed in enumerate(seeds):
            if seed is not None:
                seed.register_hook(lambda grad, position=position: caught.update({position: grad}))
        # (backward's create_graph warning is for .grad's cycle: these seeds' .grad is not
        # kept; the learner's own first backward(create_graph=True) still warns)
        with warnings.catch_warnings(), messages.create_graph_warning_kept():
            warnings.simplefilter("ignore")
            total.backward(inputs=[seed for seed in seeds if seed is not None],
                           create_graph=keep_graph)
    return [None if seed is None else caught.get(position, seed.detach())
            for position, seed in enumerate(seeds)]


def write_tangent(tensor, new, where=True):
    """An in-place write into ``tensor`` whose new value has tangent ``new`` (None: the value
    written has none): the tensor's tangent is written in place too (a view's lives in its
    base's tangent, which gets one of zeros first if it had none)."""
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
    np.copyto(old._data, 0 if new is None else np.broadcast_to(new._data, old._data.shape),
              casting="unsafe", where=where)
    old._bump_version()
