"""``linear``: out = input @ weight.T + bias, recorded as torch records it (addmm for a
batch of rows, one addmm over the flattened rows for more dimensions); ``bilinear``:
out = x1 W x2 + bias."""
import math

from ..core.forward import has_tangent
from ..core.grad_mode import no_grad
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from ..fidelity.messages import CPP_TYPE_NAMES, type_name
from ..ops import linalg
from ..ops.rearrange import einsum


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
    if input.dim() == 0 or weight.dim() == 0:  # (torch asks before anything else)
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.dim()}D and {weight.dim()}D")
    if bias is None:
        return linalg.matmul(input, weight.t())
    if input.dim() == 2:
        return linalg.addmm(bias, input, weight.t())
    fusable = (bias.dim() == 1 or bias.squeeze().dim() == 1) and bias.is_contiguous()
    if fusable and input.is_contiguous():
        # torch flattens the leading dimensions into rows, one addmm, then reshapes back
        # (an _unsafe_view: the rows are a fresh tensor nobody else sees)
        rows = input.reshape(math.prod(input.shape[:-1]), input.shape[-1])
        output = linalg.addmm(bias, rows, weight.t())
        return linalg.unsafe_view(output, (*input.shape[:-1], output.shape[1]))
    output = linalg.matmul(input, weight.t())
    if has_tangent(bias):  # (torch's composite compliance: out of place then)
        return output + bias
    return output.add_(bias)  # (in place, as torch's: a version more, its shape kept)


def bilinear(input1, input2, weight, bias=None):
    """out[..., o] = sum_jk input1[..., j] weight[o, j, k] input2[..., k] + bias[o] (torch's
    steps: rows flattened, _trilinear, reshaped back, bias added; its sums run through
    matrix products in another order: float32 values within the last bits)"""
    tensors = [("input1", input1), ("input2", input2), ("weight", weight)] + (
        [("bias", bias)] if bias is not None else [])
    for position, (name, value) in enumerate(tensors, start=1):
        if not isinstance(value, Tensor):
            raise TypeError(f"bilinear(): argument '{name}' (position {position}) must be "
                            f"Tensor, not {type_name(value)}")
    if len({value.dtype for _, value in tensors}) > 1:
        listed = ", ".join(f"{name}: {CPP_TYPE_NAMES[value._data.dtype.name]}"
                           for name, value in tensors)
        raise RuntimeError(f"All tensors must have the same dtype, got {listed}")
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and "
                           f"{input2.dim()}")
    for dim in range(input1.dim() - 1):
        if input1.shape[dim] != input2.shape[dim]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim "
                               f"{dim}: got {input1.shape[dim]} and {input2.shape[dim]}")
    for name, value, dim in (("input1", input1, 1), ("input2", input2, 2)):
        if value.shape[-1] != weight.shape[dim]:
            raise RuntimeError(f"bilinear(): {name} size does not match weight size: got "
                               f"{value.shape[-1]} but expected {weight.shape[dim]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")
    rows1 = input1.reshape(-1, input1.shape[-1])
    rows2 = input2.reshape(-1, input2.shape[-1])
    with no_grad():
        values = einsum("bj,ojk,bk->bo", rows1, weight, rows2)
    output = record(TrilinearBackward0, wrap(values._data), (rows1, weight, rows2),
                    saved=(rows1, weight, rows2))
    output = output.reshape(*input1.shape[:-1], weight.shape[0])
    return output if bias is None else output + bias


class TrilinearBackward0(Node):
    """out[b, o] = sum_jk x1[b, j] w[o, j, k] x2[b, k]:  each operand's gradient is the same
    sum with the gradient in its place (einsum, so it differentiates again)"""

    _saved_names = ("expand1", "expand2", "expand3")  # (torch's are its unsqueezed operands)

    def backward(self, grad):
        rows1, weight, rows2 = self.saved_tensors
        return (einsum("bo,ojk,bk->bj", grad, weight, rows2),
                einsum("bo,bj,bk->ojk", grad, rows1, rows2),
                einsum("bo,ojk,bj->bk", grad, weight, rows1))
