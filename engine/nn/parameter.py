"""``Parameter``: a tensor that a ``Module`` registers as one of its learnable weights."""
from ..core.tensor import Tensor
from ..fidelity.printing import tensor_repr
from ..ops.creation import empty
from ..ops.views import detach


class Parameter(Tensor):
    """A leaf tensor (``requires_grad=True`` by default) that shares memory with ``data``.

    Assigning one to a module attribute (``self.weight = Parameter(...)``) registers it,
    so ``module.parameters()`` finds it. Results of operations on it are plain tensors.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        # the same memory and version counter as data, but no history: a leaf of its own
        result = detach(data)
        result.__class__ = cls
        if requires_grad and not result.is_floating_point():
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        result.requires_grad_(requires_grad)
        return result

    def __repr__(self):
        return "Parameter containing:\n" + tensor_repr(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Parameter(self.data.clone(), self.requires_grad)
        return memo[id(self)]

    def __reduce_ex__(self, protocol):
        # pickled as its data and flag; unpickling makes a Parameter again
        return (Parameter, (self.data, self.requires_grad))
