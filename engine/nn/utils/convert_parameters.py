"""All of a model's parameters as one vector, and back."""
from ...core.tensor import Tensor
from ...ops.join import cat
from ..modules.module import typename


def parameters_to_vector(parameters):
    """One 1-d tensor of every parameter's values, one after the other (recorded: gradients
    flow back to the parameters)."""
    return cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec, parameters):
    """Give the parameters the values of ``vec``, in order (their ``.data`` now looks at it)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        count = param.numel()
        param.data = vec[pointer:pointer + count].view_as(param).data
        pointer += count
