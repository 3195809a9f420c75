"""In-place changes rewrite history.

``y.mul_(2)`` gives ``y`` a new node (``rebase_history``). An in-place change of a view
changes its base too: the base's new history is a ``CopySlices`` node, which runs the
op's node on the viewed region of the base's gradient. Views of that base recorded
before the change then become pieces of the new base (``regenerate_view_history``,
an ``AsStridedBackward0`` node), which ``Tensor.grad_fn`` checks each time it is read
(``update_view_grad_fn``): its memory's version changed since its node was set.

Some views cannot be changed in place while anything requires grad, because their history
could not be rewritten: a view made in no_grad or inference mode, one of the views an op
returns together (unbind, split), a view a custom Function returned (``_creation_meta``
says which; ``refuse_view_change`` raises torch's message).
"""
from ..fidelity import messages
from .backward import validated
from .grad_mode import mode
from .hooks import move_retained
from .node import Node, SavedTensor, connect, follow_base, gradient_edge
from .saved import default_hooks, repack
from .strided import AsStridedBackward0


def check_inplace(tensor, *inputs, differentiable=True):
    """Before ``tensor.op_(*inputs)``: torch refuses some in-place changes it cannot record
    (checked first, by autograd). A change of an inference tensor outside inference_mode is
    refused after the write (``check_inference_inplace``, called by each writer).
    ``differentiable=False``: copy_ into a tensor of a dtype without gradients, which torch's
    copy_ does not record, so it refuses nothing."""
    if default_hooks.write_watch is not None:  # (allow_mutation_on_saved_tensors: saved.py)
        default_hooks.write_watch(tensor)
    if differentiable and mode.recording and (tensor._requires_grad or any(
            getattr(value, "_requires_grad", False) for value in inputs)):
        if tensor._inference and not seen_by_autograd(tensor, inputs):
            return
        if tensor._base is not None:
            refuse_view_change(tensor, indirect=False)
            if tensor._requires_grad and tensor._base.grad_fn is None:
                raise RuntimeError(messages.VIEW_OF_LEAF_INPLACE)
        if tensor._requires_grad and tensor.grad_fn is None:
            raise RuntimeError(messages.LEAF_INPLACE)


def seen_by_autograd(tensor, inputs):
    """Whether torch's autograd checks an in-place op on an inference tensor (outside
    inference_mode). Inference tensors carry no autograd dispatch key: the op reaches autograd
    only through an operand that is an ordinary tensor (a number counts when torch wraps it into
    one: x.mul_(2), not x.pow_(2): ops/inplace.py passes only those). A view of an inference
    tensor is no view to autograd and does not require grad: nothing for autograd to refuse."""
    if tensor._base is not None:
        return False
    return any(not value._inference if hasattr(value, "_inference") else
               isinstance(value, (int, float, complex)) for value in inputs)


def check_inference_inplace(tensor):
    """An inference tensor cannot be changed outside inference_mode (even by an op autograd
    does not see, such as logical_not_). torch finds out when it counts the change (an
    inference tensor has no version counter): after the kernel wrote, so the values have
    changed when the error comes; callers check right after writing, before recording."""
    if tensor._inference and not tensor._own_versions and not mode.inference:
        raise RuntimeError(messages.INFERENCE_INPLACE)


def refuse_view_change(view, indirect):
    """A view made in no_grad mode, or as one of several outputs (unbind, split), or by a
    custom Function cannot be changed in place (``indirect``: through its base or another
    view): torch could not rewrite its history correctly."""
    if view._creation_meta is not None:
        node = view._grad_fn
        raise RuntimeError(messages.view_changed_inplace(
            view._creation_meta, node and node.name(), view._output_nr, indirect))


def rebase_history(tensor, node, output_nr=0):
    """After ``tensor.op_()``: ``tensor`` now holds the op's result, whose node is ``node``
    (its output ``output_nr``: a custom Function's).

    The node may have saved ``tensor`` itself as an input; the in-place write is about to
    change those values, so the node keeps a copy of them instead (torch's original_self).
    When ``tensor`` is a view, its base changed too: the base's new history is a
    ``CopySlices`` node that runs ``node`` on the viewed region of the base's gradient.
    A tensor that retains its gradient retains the new values' (``move_retained``).
    """
    if node is None:
        return
    for saved in node._saved:
        if saved.__class__ is not SavedTensor or saved.is_output:
            continue
        if saved.tensor is tensor:
            # torch's original_self: a copy recorded (CloneBackward0) as repack's, so that a
            # gradient of the node's gradient still reaches what the tensor was computed from
            saved.tensor = tensor.clone()
            saved.version = 0
        elif saved.tensor is None and saved.packed.source() is tensor:  # saved_tensors_hooks
            saved.packed = repack(saved.packed, tensor)
    base = tensor._base
    if base is None:
        old = tensor._grad_fn, tensor._output_nr
        tensor.grad_fn, tensor._requires_grad, tensor._output_nr = node, True, output_nr
        if tensor._retains_grad:
            move_retained(tensor, *old)
        follow_base(tensor)
        return
    old = base._grad_fn, base._output_nr
    base.grad_fn = CopySlices(base, tensor, node)
    base._requires_grad, base._output_nr = True, 0
    follow_base(base)  # its other views now require grad too (torch's)
    if base._retains_grad:
        move_retained(base, *old)
    # the view is now a piece of the new base: its gradient goes through CopySlices
    regenerate_view_history(tensor)


def update_view_grad_fn(view):
    """Read by ``Tensor.grad_fn`` for a view: after an in-place change of its memory since
    its node was set (through the base or another view), the view is now a piece of its
    base, and gets a node that says so. torch too does it only when the view's grad_fn is
    read, and raises then (a view made in no_grad mode ...)."""
    if not view._inference and view._attr_version != view._version and \
            (view._grad_fn is not None or view._base._requires_grad):
        regenerate_view_history(view)


def regenerate_view_history(view):
    """Make ``view``'s node a piece of its base's current history (AsStridedBackward0)."""
    refuse_view_change(view, indirect=True)
    base = view._base
    node = connect(AsStridedBackward0(), (gradient_edge(base),),
                   ((base._data.shape, base._data.dtype),))
    node.geometry = view_geometry(base, view)
    old = view._grad_fn, view._output_nr
    view.grad_fn, view._requires_grad, view._output_nr = node, True, 0
    if view._retains_grad:
        move_retained(view, *old)


def view_geometry(base, view):
    """Where ``view`` sits in ``base``: (base shape, base strides, shape, strides, offset)."""
    return (base._data.shape, base.stride(), view._data.shape, view.stride(),
            view.storage_offset() - base.storage_offset())


def _region(tensor, geometry):
    """The view of ``tensor`` (laid out like the base) that ``geometry`` describes."""
    _, _, shape, stride, offset = geometry
    return tensor._strided_view(shape, stride, tensor.storage_offset() + offset)


class CopySlices(Node):
    """base after ``view.op_()``: the view's region of base was replaced by op(view).

    Backward: outside the region the gradient passes to the old base unchanged; inside,
    it goes through the op's own node ``fn``, whose gradient for the view's old values
    goes back into the region (and its gradients for the op's other inputs go on).
    """

    fn: Node
    geometry: tuple

    def name(self):
        return "torch::autograd::CopySlices"  # torch's C++ name for this node

    def __init__(self, base, view, fn):
        self.fn = fn
        self.geometry = view_geometry(base, view)
        # the old base's gradient edge, then the op's other inputs' edges
        connect(self, (gradient_edge(base),) + fn.next_functions[1:],
                ((base._data.shape, base._data.dtype),) + fn._input_meta[1:])

    def backward(self, grad):
        if self._released:
            raise RuntimeError(messages.SECOND_BACKWARD)
        if mode.grad_enabled:  # create_graph: the same, written with recorded operations
            return self.differentiable_backward(grad)
        grad_base = grad._empty_strided(self.geometry[0], self.geometry[1])  # the base's layout
        grad_base._data[...] = grad._data
        region = _region(grad_base, self.geometry)
        fn_grads = validated(self.fn, self.fn.backward(region.clone()))
        region._data[...] = 0 if fn_grads[0] is None else fn_grads[0]._data
        return (grad_base, *fn_grads[1:])

    def differentiable_backward(self, grad):
        """As torch's CopySlices: the gradient copied into the base's layout, the region
        replaced, in place, by what the op's node returns for it (each step recorded)."""
        grad_base = grad._empty_strided(self.geometry[0], self.geometry[1]).copy_(grad)
        _, _, shape, stride, offset = self.geometry
        region = grad_base.as_strided(shape, stride, grad_base.storage_offset() + offset)
        fn_grads = validated(self.fn, self.fn.backward(region.clone()))
        if fn_grads[0] is None:
            region.zero_()
        else:
            region.copy_(fn_grads[0])
        return (grad_base, *fn_grads[1:])

    def _release(self):  # torch drops fn: this node cannot run again (nothing saved or not)
        self.fn._release()
        self._released = True
