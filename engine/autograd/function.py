"""``autograd.Function``: write your own operation with its own backward.

Subclass it with two static methods, as in PyTorch::

    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return 2 * x * grad_output

    y = Square.apply(x)      # y.grad_fn is a <SquareBackward object ...>

``ctx`` is the node that backward will run (``y.grad_fn``): what forward saves on
it is what backward reads.
"""
import functools

from ..fidelity import messages
from ..core.grad_mode import is_grad_enabled, no_grad
from ..core.history import rebase_history, refuse_view_change
from ..core.node import Node, SavedTensor, connect, gradient_edge, record
from ..core.tensor import Tensor
from ..ops.creation import zeros_like
from ..ops.views import alias
from ..core.tangents import JVP_CALLS
from ..fidelity import function_calls
from ..fidelity.transforms import RUNNING as running_transforms
from .function_forward import JVP_MISSING, give_tangents, primals_only


class FunctionCtx(Node):
    """The ``ctx`` of a custom Function: saves tensors for backward, then runs it."""

    _forward_cls = None
    _materialize_grads = True
    _non_differentiable = ()

    def __repr__(self):
        # torch makes a custom Function's node a class of its module torch.autograd.function
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def save_for_backward(self, *tensors):
        """Keep these tensors (inputs or outputs of forward) for backward."""
        self._to_save = tensors

    def mark_non_differentiable(self, *outputs):
        """These outputs get no gradient (e.g. indices); they never require grad."""
        self._non_differentiable = outputs

    def mark_dirty(self, *tensors):
        """Inputs that forward changed in place (and returned): their history now ends with
        this function's node, as after any in-place operation."""
        self._dirty = tensors

    def set_materialize_grads(self, value):
        """With False, backward receives None instead of zeros for unused outputs."""
        self._materialize_grads = value

    def backward(self, *grad_outputs):
        if self._materialize_grads:
            # (a non-tensor output's stays None)
            grad_outputs = tuple(zeros_like(out) if g is None and isinstance(out, Tensor) else g
                                 for g, out in zip(grad_outputs, self._output_examples))
        grads = self._forward_cls.backward(self, *grad_outputs)
        if not isinstance(grads, tuple):
            grads = (grads,)
        # forward's non-tensor arguments get no edge: their gradients must be None
        if len(grads) != len(self._arg_is_tensor):
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {len(self._arg_is_tensor)}, got "
                               f"{len(grads)})")
        for position, (g, is_tensor) in enumerate(zip(grads, self._arg_is_tensor), 1):
            if g is not None and not is_tensor:
                raise RuntimeError(f"function {self.name()} returned a gradient different than "
                                   f"None at position {position}, but the corresponding "
                                   "forward input was not a Variable")
        return tuple(g for g, is_tensor in zip(grads, self._arg_is_tensor) if is_tensor)


class Function:
    """Base class for custom operations: define ``forward`` and ``backward``, call ``apply``."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # torch names a custom function's node "<Name>Backward": a node class per Function
        cls._backward_cls = type(cls.__name__ + "Backward", (FunctionCtx,),
                                 {"_forward_cls": cls, "__module__": getattr(
                                     cls, "__module__", None)})  # (type() in exec: none)

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """The outputs' tangents from the inputs' (forward-mode AD): function_forward.py."""
        raise NotImplementedError(JVP_MISSING)

    generate_vmap_rule = False  # True: vmap runs forward on the whole batch

    @staticmethod
    def vmap(info, in_dims, *args):
        """A batching rule of your own for vmap (or set ``generate_vmap_rule = True``):
        ``(output, out_dims)`` from the inputs with their batch at ``in_dims`` (None: not
        batched), ``info.batch_size`` and ``info.randomness`` (engine/func/function_vmap.py)."""
        raise NotImplementedError("To use autograd.Function with vmap, you must either "
                                  "override the vmap staticmethod or set "
                                  "generate_vmap_rule=True.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """torch 2's style: ``forward(*args)`` without ctx, then this saves what backward
        needs."""
        raise NotImplementedError("setup_context is not implemented.")

    def __call__(self, *args, **kwargs):  # Function()(x): the style before PyTorch 1.3
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please "
            "use new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward without recording, then record one node for the whole function."""
        new_style = cls.setup_context is not Function.setup_context
        if new_style:  # (torch binds them to forward's parameters, defaults included)
            args, kwargs = function_calls.bound(cls.forward, args, kwargs)
        if running_transforms or JVP_CALLS:
            transform = _transform_taking(cls, kwargs)
            if transform is not None:
                return transform(cls, args, kwargs)
        args = function_calls.positional(cls.forward, args, kwargs, 0 if new_style else 1)
        return cls._record(args)

    @classmethod
    def _record(cls, args):
        ctx = cls._backward_cls()
        ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx._to_save, ctx._dirty = (), ()
        tensor_inputs = tuple(a for a in args if isinstance(a, Tensor))
        recording = is_grad_enabled() and any(t.requires_grad for t in tensor_inputs)
        if recording:  # the inputs' edges before forward, which may change them in place
            connect(ctx, tuple(gradient_edge(t) for t in tensor_inputs),
                    tuple((t._data.shape, t._data.dtype) for t in tensor_inputs))
        with no_grad(), primals_only():
            if cls.setup_context is Function.setup_context:
                outputs = cls.forward(ctx, *args)
            else:  # (torch 2's style: forward without ctx, then setup_context)
                outputs = cls.forward(*args)
                cls.setup_context(ctx, args, outputs)
        single = not isinstance(outputs, tuple)
        results = _wrap_outputs(ctx, (outputs,) if single else outputs, tensor_inputs, recording)
        give_tangents(cls, ctx, args, results, ctx._dirty)
        ctx._output_examples, ctx.num_outputs = results, len(results)
        # torch saves only for a graph it records: unrecorded, an inference tensor may be
        # "saved" (and nothing is kept)
        ctx._saved = tuple(SavedTensor(t, any(t is r for r in results))
                           if isinstance(t, Tensor) else t
                           for t in ctx._to_save) if recording else ()
        return results[0] if single else results


def _transform_taking(cls, kwargs):
    """Inside a torch.func transform torch requires ``setup_context``, and hands the call to
    the innermost transform (its custom_function_call): a vmap takes it (its level's
    ``custom_function``: the Function's vmap rule, engine/func/function_vmap.py); gradient
    transforms are autograd itself here, so the Function is recorded as usual, except that
    torch's refuse keyword arguments."""
    if cls.setup_context is Function.setup_context:
        raise RuntimeError(messages.FUNCTION_NEEDS_SETUP_CONTEXT)
    for transform in reversed(running_transforms):
        taking = getattr(transform, "custom_function", None)
        if taking is not None:
            return taking
        if kwargs:
            break
    if kwargs:
        raise TypeError("custom_function_call_grad() got an unexpected keyword argument "
                        f"'{next(iter(kwargs))}'")
    return None


def _wrap_outputs(ctx, outputs, inputs, recording):
    """forward's outputs as apply returns them (torch's _wrap_outputs): the node becomes
    their grad_fn; an input marked dirty is rebased onto it; an input returned as it is
    comes back as a view of it."""
    for tensor in ctx._dirty:
        tensor._bump_version()  # marking it dirty counts as an in-place change
    if not all(any(t is output for output in outputs) for t in ctx._dirty):
        raise RuntimeError(messages.DIRTY_NOT_RETURNED)  # (torch's first check)
    results = []
    differentiable_outputs = [isinstance(output, Tensor) and recording and
                              output._data.dtype.kind == "f" and
                              not any(output is t for t in ctx._non_differentiable)
                              for output in outputs]
    for output_nr, output in enumerate(outputs):
        if isinstance(output, Tensor):
            is_input = any(output is t for t in inputs)
            differentiable = differentiable_outputs[output_nr]
            is_dirty = any(output is t for t in ctx._dirty)
            if is_dirty and differentiable:
                _check_dirty(output, several_outputs=len(outputs) > 1)
            output = _wrap_output(ctx, output, output_nr, is_input, is_dirty, differentiable)
            if output._base is not None and not is_dirty:
                # torch forbids changing a view a custom Function returned in place
                # (several: more than one differentiable output, as torch counts them)
                several = differentiable and sum(differentiable_outputs) > 1
                output._creation_meta = "multi_output" if several else "custom_function"
        results.append(output)
    return tuple(results)


def _check_dirty(tensor, several_outputs):
    """torch's checks of an input forward changed in place and returns, in torch's order;
    a gradient it retained is dropped before the checks of a view (retain_grad starts over,
    even when they refuse)."""
    # (the node as stored, not brought up to date: torch asks is_leaf() first)
    if tensor._grad_fn is None and tensor.requires_grad:
        raise RuntimeError(messages.LEAF_DIRTY)
    if tensor._base is not None and several_outputs:
        raise RuntimeError(messages.DIRTY_VIEW_OF_SEVERAL_OUTPUTS)
    tensor._grad = None
    if tensor._base is not None:
        refuse_view_change(tensor, indirect=False)
        if tensor._requires_grad and tensor._base.grad_fn is None:
            raise RuntimeError(messages.VIEW_OF_LEAF_INPLACE)


def _wrap_output(ctx, output, output_nr, is_input, is_dirty, differentiable):
    if not differentiable:
        if not output.requires_grad:
            return _view_of(output) if is_input and not is_dirty else output
        if is_input:
            return output.detach()
        return output if output._base is not None else output.detach_()
    if is_dirty:  # (_check_dirty has checked it): its history now ends with this node
        rebase_history(output, ctx, output_nr)
        return output
    if is_input:
        output = _view_of(output)
    output.grad_fn, output._requires_grad, output._output_nr = ctx, True, output_nr
    return output


def _view_of(tensor):
    """torch returns an input that forward returned unchanged as a view of it."""
    with no_grad():
        return alias(tensor)


def once_differentiable(function):
    """Decorates a Function's backward that cannot itself be differentiated.

    backward then runs without recording. Under ``create_graph=True``, if a gradient it
    receives requires grad, its results are given an ``Error`` node (as torch does), so
    that differentiating them again raises instead of silently giving 0; otherwise they
    come back without a graph, like any result computed without recording.
    """
    @functools.wraps(function)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = function(ctx, *args)
        if not is_grad_enabled() or not any(isinstance(a, Tensor) and a.requires_grad
                                            for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        # torch's DelayedError takes leaves made from the results, and returns them again
        leaves = [None if out is None else out.detach().requires_grad_()
                  for out in ((outputs,) if single else outputs)]
        results = tuple(None if leaf is None else leaf.detach() for leaf in leaves)
        record(Error, results, leaves, message=messages.DIFFERENTIATED_TWICE,
               num_outputs=len(results))  # one per result: each can receive a gradient
        return results

    return wrapper


class Error(Node):
    """The node of a result that must not be differentiated: running it raises ``message``."""

    message: str
    num_outputs: int

    def name(self):
        return "torch::autograd::Error"  # torch's C++ name for this node

    def backward(self, *grads):
        raise RuntimeError(self.message)
