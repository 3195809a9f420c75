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
from ..core.grad_mode import is_grad_enabled, no_grad
from ..core.node import Node, SavedTensor, record
from ..core.tensor import Tensor
from ..ops.creation import zeros_like


class FunctionCtx(Node):
    """The ``ctx`` of a custom Function: saves tensors for backward, then runs it."""

    _forward_cls = None
    _materialize_grads = True
    _non_differentiable = ()

    def save_for_backward(self, *tensors):
        """Keep these tensors (inputs or outputs of forward) for backward."""
        self._to_save = tensors

    def mark_non_differentiable(self, *outputs):
        """These outputs get no gradient (e.g. indices); they never require grad."""
        self._non_differentiable = outputs

    def mark_dirty(self, *tensors):
        """Tensors that forward changed in place (accepted for compatibility)."""
        self._dirty = tensors

    def set_materialize_grads(self, value):
        """With False, backward receives None instead of zeros for unused outputs."""
        self._materialize_grads = value

    def backward(self, *grad_outputs):
        if self._materialize_grads:
            grad_outputs = tuple(zeros_like(out) if g is None else g
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
                                 {"_forward_cls": cls, "__module__": cls.__module__})

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    def __call__(self, *args, **kwargs):  # Function()(x): the style before PyTorch 1.3
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please "
            "use new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args):
        """Run forward without recording, then record one node for the whole function."""
        ctx = cls._backward_cls()
        ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx._to_save = ()
        with no_grad():
            outputs = cls.forward(ctx, *args)
        single = not isinstance(outputs, tuple)
        results = (outputs,) if single else outputs
        # outputs that are inputs unchanged, or views, become new tensors of their own
        results = tuple(r.detach() if isinstance(r, Tensor) and (
            any(r is a for a in args) or r._base is not None) else r for r in results)
        tensor_inputs = tuple(a for a in args if isinstance(a, Tensor))
        if is_grad_enabled() and any(t.requires_grad for t in tensor_inputs):
            ctx._output_examples = results
            differentiable = tuple(None if any(r is n for n in ctx._non_differentiable) else r
                                   for r in results)
            ctx.num_outputs = len(results)
            _record_into(ctx, differentiable, tensor_inputs)
            ctx._saved = tuple(SavedTensor(t, any(t is r for r in results))
                               if isinstance(t, Tensor) else t for t in ctx._to_save)
        else:
            ctx._saved = tuple(SavedTensor(t, False) if isinstance(t, Tensor) else t
                               for t in ctx._to_save)
        return results[0] if single else results


def _record_into(ctx, outputs, inputs):
    """``record`` with a node made already (the ctx forward has filled)."""
    node_class = type(ctx)
    node = record(_Prepared(ctx, node_class), outputs, inputs)
    return node


class _Prepared:
    """Hands ``record`` an existing node instead of a class to instantiate."""

    def __init__(self, node, node_class):
        self.node, self.__name__ = node, node_class.__name__

    def __call__(self):
        return self.node


def once_differentiable(function):
    """Accepted for compatibility: backward runs with grad mode as the caller set it."""
    return function
