"""``linear``: out = input @ weight.T + bias, recorded as torch records it (addmm for a
batch of rows, one addmm over the flattened rows for more dimensions)."""
import math

from ..core.tensor import Tensor
from ..fidelity.messages import type_name
from ..ops import linalg


def linear(input, weight, bias=None):
    """out = input @ weight.T + bias"""
    # a list passed as input (model([1., 2.])) gets torch's message, not an AttributeError
    for position, (name, value) in enumerate([("input", input), ("weight", weight),
                                              ("bias", bias)], start=1):
        if not isinstance(value, Tensor) and not (name == "bias" and value is None):
            if hasattr(value, "__engine_vmap__"):  # vmap's BatchedTensor (engine/func)
                return value.__torch_function__(linear, (type(value),), (input, weight, bias))
            raise TypeError(f"linear(): argument '{name}' (position {position}) must be "
                            f"Tensor, not {type_name(value)}")
    if bias is None:
        return linalg.matmul(input, weight.t())
    if input.dim() == 2:
        return linalg.addmm(bias, input, weight.t())
    if input.is_contiguous() and bias.dim() == 1:
        # torch flattens the leading dimensions into rows, one addmm, then reshapes back
        # (an _unsafe_view: the rows are a fresh tensor nobody else sees)
        rows = input.reshape(math.prod(input.shape[:-1]), input.shape[-1])
        output = linalg.addmm(bias, rows, weight.t())
        return linalg.unsafe_view(output, (*input.shape[:-1], output.shape[1]))
    return linalg.matmul(input, weight.t()) + bias
