"""Forward-mode AD's formulas: an op's Jacobian-vector product derived from its backward.

``forward.propagate`` (the levels, and which tangents exist) asks this file for the tangents
of an op's results, as torch derives most of its forward formulas (derivatives.yaml's
``auto_element_wise`` and ``auto_linear``), so an op still reads as forward + backward:

* a node class marked ``jvp = "element_wise"``: the backward formula applied to each input's
  tangent, summed (``grad * cos(x)`` gives ``t * cos(x)``);
* any other node: its backward formula *transposed*. Backward is linear in ``grad``
  (``backward(g) = J^T g``); one more backward through it, with the tangent as the incoming
  gradient, gives ``J t`` (the double-backward trick of autograd.functional.jvp, op by op);
* a node class with a method ``jvp(self, *tangents)`` (None for an input without one): its
  own forward formula, where torch's differs from the derived one (``where``'s zero signs,
  softmax's, div's); it reads the inputs as ``self.primals``, the results as ``self.results``.

The formulas run as ordinary operations, seeing only the levels outside the one whose
tangent they compute: inside nested ``torch.func.jvp`` calls a tangent carries its own
tangent at the outer level (a second derivative) as any other result does.
"""
import contextlib
import warnings

import numpy as np

from ..fidelity import messages
from ..fidelity.dtypes import result_type
from .grad_mode import enable_grad, mode

ANY_EDGE = object()  # the formula node's next_functions: "every input wants its gradient"

# the sets of leaves made inside each running torch.func.jvp call, outermost first (kept by
# engine/func/transforms.py; some of torch's formulas take another order of operations under
# it, where its tensors are functorch's wrappers)
JVP_CALLS = []


def functorch_wraps():
    """Whether torch's tensors would be functorch's wrappers here (inside torch.func.jvp):
    some of torch's formulas then take another order (its TensorSubclassLike path)."""
    return bool(JVP_CALLS)


# ---------------------------------------------------------------- torch's zero tangents
# In torch's forward formulas a missing tangent is a zero tensor, which add, sub and mul
# skip (0 - b is -b, keeping the sign of a zero); ``zero`` is a tensor of the dtype and
# shape torch's zero tensor has (the result's): b comes out promoted and broadcast to them.
def tangent_sum(a, b, zero=None):
    """a + b, where None is a tangent of zeros."""
    return _zero_plus(b, zero) if a is None else a if b is None else a + b


def tangent_difference(a, b, zero=None):
    """a - b, where None is a tangent of zeros."""
    return -_zero_plus(b, zero) if a is None else a if b is None else a - b


def scaled_tangent(tangent, value):
    """torch's maybe_multiply: tangent * value, the tangent itself when value is 1 (None, a
    tangent of zeros, stays None)."""
    return tangent if tangent is None or value == 1 else tangent * value


def _zero_plus(b, zero):
    if b is None or zero is None or not hasattr(zero, "_data"):
        return b
    shape = np.broadcast_shapes(zero._data.shape, b._data.shape)
    return (b if shape == b._data.shape else b.expand(shape)).to(result_type(zero, b))


def derive(node_class, rule, inputs, tangents, saved, saved_output, outputs, values,
           recorded):
    """The tangents of ``outputs`` (one per output, None where there is none). ``recorded``:
    a level outside reads the formulas' own tangents, so every formula runs as recorded
    operations (with grad on: some formulas take a shortcut past ``record`` without it)."""
    node = formula_node(node_class, inputs, tangents, saved, saved_output, outputs, values)
    if not callable(rule) and rule != "element_wise":
        return transposed(node, node_class, tangents, outputs, inputs, recorded)
    with enable_grad() if recorded else contextlib.nullcontext():
        if callable(rule):  # the node's own forward formula: jvp(self, *tangents)
            return [rule(node, *tangents)]
        return element_wise(node, node_class, tangents, outputs, inputs)


def same_view(tangent, primal, view):
    """``view`` of ``primal``'s memory, taken of ``tangent`` (laid out as ``primal``)."""
    return tangent.as_strided(view._data.shape, view.stride(), tangent.storage_offset()
                              + view.storage_offset() - primal.storage_offset())


def is_view_of(out, value):
    """Whether ``out`` is a view of ``value``'s memory (its tangent is then the same view)."""
    return out._base is not None and hasattr(value, "_data") and \
        out._storage_array() is value._storage_array() and out._data.size > 0


def formula_node(node_class, inputs, tangents, saved, saved_output, outputs, values):
    """A node of ``node_class`` wired to nothing, holding what ``record``'s would hold."""
    node = node_class()
    node._saved = tuple(saved) + tuple(outputs[:int(saved_output)])
    # (for a forward formula that reads what the backward does not: an input, the result)
    node.primals, node.results = inputs, outputs
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


def transposed(node, node_class, tangents, outputs, node_inputs, recorded=False):
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
                           create_graph=keep_graph or recorded)
    return [None if seed is None else caught.get(position, seed.detach())
            for position, seed in enumerate(seeds)]
