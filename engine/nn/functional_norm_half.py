"""batch_norm of float16 input, step by step as torch's CPU kernels compute it (measured on
torch 2.15 with AVX2).

torch computes a float16 batch_norm in float32 (its "opmath" type), in one of three loops
chosen by the layout of the input (aten/src/ATen/native/cpu/batch_norm_kernel.cpp and
Normalization.cpp):

- "planes": a row-major input with more than one pixel. Each channel's planes are read in
  AVX2 vectors of 16 float16, widened to two vectors of 8 float32: their sums go into 8
  lanes (element i of a plane into lane i % 8), the elements after the last full vector of
  each plane into one float32 sum, which then takes the lanes one after another. The
  squares of the deviations are rounded before they are added; the gradient's products
  are fused into their sums (acc + a * b rounded once).
- "rows": channels-last memory (NHWC), or a row-major input of one pixel ((N, C)): rows of
  channels added one after another in float32, the squares and products fused (torch on
  several threads splits the rows among them; the engine adds them as torch does on one).
- "strided": any other layout (a transposed or sliced input, or parameters that are not
  contiguous): TensorIterator's loops, the mean from torch.mean, the squares added in the
  order of the input's memory, the output and the gradient element by element.

The kernels ("planes" and "rows") keep the statistics and the running averages in float32
and round what they store to the parameters' dtype; their output is x * alpha + beta fused.
The TensorIterator loops compute in the parameters' type: with float16 parameters ("half"),
float16 arithmetic, each step rounded; with float32 ones (a float16 input with float32
weight, bias and running statistics: "mixed"), float32.
"""
import numpy as np

from ..core.grad_mode import no_grad
from ..core.tensor import empty_strided
from ..fidelity.dtypes import float32
from ..fidelity.layout import (contiguous_strides, format_strides, sorted_dims,
                               strides_are_contiguous, suggested_memory_format)
from ..fidelity.rounding import fma32
from ..fidelity.size import channels_last, channels_last_3d

F16, F32 = np.float16, np.float32
LANES = 8  # float32 in one AVX2 vector: half of a vector of 16 float16


# ====================================================================== layouts
def memory_path(tensor):
    """The loop torch's kernel reads ``tensor`` with: "planes", "rows" or "strided"."""
    shape, stride = tuple(tensor.shape), tensor.stride()
    if strides_are_contiguous(shape, stride):
        return "rows" if tensor.numel() == shape[0] * shape[1] else "planes"
    if is_channels_last(shape, stride):
        return "rows"
    return "strided"


def is_channels_last(shape, stride):
    """torch's is_contiguous(channels_last) of a 4-d tensor, or channels_last_3d of a 5-d one"""
    return (len(shape) == 4 and strides_are_contiguous(shape, stride, channels_last)) or (
        len(shape) == 5 and strides_are_contiguous(shape, stride, channels_last_3d))


def _dense(tensor):
    """torch's is_contiguous of batch_norm's checks: row-major or channels-last"""
    return memory_path(tensor) != "strided"


def _result_strides(tensor, kernel):
    """The strides of torch's empty_like(input) for the output or the input's gradient:
    row-major, channels-last when the input is, or (off the kernel) the format torch reads
    off the input's strides"""
    shape, stride = tuple(tensor.shape), tensor.stride()
    if kernel:
        dense_format = None if strides_are_contiguous(shape, stride) else (
            channels_last if len(shape) == 4 else channels_last_3d)
    else:
        dense_format = {"channels_last": channels_last, "channels_last_3d": channels_last_3d
                        }.get(suggested_memory_format(shape, stride))
    if dense_format is None:
        return contiguous_strides(shape)
    return format_strides(shape, stride, dense_format)


def _laid_out(values, strides):
    result = empty_strided(values.shape, strides, values.dtype)
    result._data[...] = values
    return result


def _channels_columns(data):
    """(N, C, ...) -> (positions, C) in the order of the positions' memory (rows)"""
    return np.moveaxis(data, 1, -1).reshape(-1, data.shape[1])


def _iteration_order(shape, *strides):
    """The positions of one channel in the order TensorIterator visits them (the channel
    dimension squashed to one element): the dims sorted innermost first by the operands'
    strides (the first operand's first; a stride 0 decides nothing; of equal strides the
    smaller dim inside), as its reorder_dimensions."""
    shape = list(shape)
    shape[1] = 1

    def should_swap(d0, d1):
        for stride in strides:
            s0, s1 = stride[d0], stride[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    return sorted_dims(len(shape), should_swap)


def _visited(data, order):
    """(positions, C): ``data``'s elements of each channel in TensorIterator's ``order``"""
    outer_first = [d for d in reversed(order) if d != 1] + [1]
    return np.transpose(data, outer_first).reshape(-1, data.shape[1])


# ====================================================================== sums
def _from_zero(rows):
    """0 + rows[0] + rows[1] + ... in float32, one addition after another"""
    total = np.zeros(rows.shape[1:], F32)
    if not len(rows):
        return total
    return np.add.accumulate(np.concatenate([total[None], rows]), axis=0, dtype=F32)[-1]


def _lanes_added(lanes):
    """torch's vec_reduce_all(op, vector, size): lane 0 + lane 1 + ... + lane 7, in order"""
    total = lanes[..., 0]
    for i in range(1, LANES):
        total = total + lanes[..., i]
    return total


def _planes(data):
    """(lanes, tail) of the "planes" loop, in float32: lanes (steps, C, 8), what each vector
    step adds into the 8 lanes of each channel; tail (steps, C), the elements after the last
    full vector of 16 of each plane"""
    n, c = data.shape[:2]
    planes = data.reshape(n, c, -1).astype(F32)
    full = planes.shape[2] - planes.shape[2] % 16
    lanes = planes[:, :, :full].reshape(n, c, -1, LANES).transpose(0, 2, 1, 3)
    tail = planes[:, :, full:].transpose(0, 2, 1)
    return lanes.reshape(-1, c, LANES), tail.reshape(-1, c)


def _planes_sum(lanes, tail):
    """the tail's sum, then the lanes' sums (the "planes" loop's order)"""
    return _from_zero(tail) + _lanes_added(_from_zero(lanes))


# ====================================================================== forward
def half_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """torch's batch_norm_cpu of a float16 input: (output, save_mean, save_invstd) as
    arrays (the output laid out as torch's), the running statistics updated in place"""
    params = (weight, bias, running_mean, running_var)
    mixed = is_mixed(input, params)
    param_dtype = F32 if mixed else F16
    kernel = _dense(input) and all(
        t is None or t.is_contiguous() for t in params)
    x = input._data
    with np.errstate(all="ignore"):  # (inf and nan: torch is silent)
        if training:
            save_mean, save_invstd = _batch_statistics(input, running_mean, running_var,
                                                       momentum, eps, param_dtype)
        else:
            save_mean = save_invstd = np.zeros(0, param_dtype)
        if kernel:
            out = _kernel_output(x, weight, bias, running_mean, running_var, save_mean,
                                 save_invstd, training, eps, param_dtype)
        else:
            out = _strided_output(x, weight, bias, running_mean, running_var, save_mean,
                                  save_invstd, training, eps, param_dtype)
    return _laid_out(out, _result_strides(input, kernel)), save_mean, save_invstd


def is_mixed(input, parameters):
    """torch's is_mixed_type: the first parameter given has another dtype than the input"""
    given = [t for t in parameters if t is not None]
    return bool(given) and given[0].dtype != input.dtype


def _batch_statistics(input, running_mean, running_var, momentum, eps, param_dtype):
    """The batch's mean and 1 / sqrt(var + eps) (torch's save_mean and save_invstd, in the
    parameters' dtype); the running statistics updated in place."""
    x, path = input._data, memory_path(input)
    count = x.size // x.shape[1]
    if path == "strided":
        return _strided_statistics(input, running_mean, running_var, momentum, eps,
                                   param_dtype)
    if path == "planes":
        lanes, tail = _planes(x)
        mean = _planes_sum(lanes, tail) / F32(count)
        squares = [(part - mean[..., None]) ** 2 for part in (lanes.T, tail.T)]
        var_sum = _planes_sum(squares[0].T, squares[1].T)
    else:
        rows = _channels_columns(x).astype(F32)
        mean = _from_zero(rows) / F32(count)
        var_sum = _fused_dot(rows - mean, rows - mean)
    invstd = _kernel_update(mean, var_sum, count, running_mean, running_var, momentum, eps)
    return mean.astype(param_dtype), invstd.astype(param_dtype)


def _invstd(var, eps):
    """torch's InvStd: 1 / sqrt(var + eps) (in float64, var a float32), 0 where var and eps
    are 0"""
    var = var.astype(F32)
    invstd = (1 / np.sqrt(var.astype(np.float64) + eps)).astype(F32)
    return invstd if eps else np.where(var == 0, F32(0), invstd)


def _kernel_update(mean, var_sum, count, running_mean, running_var, momentum, eps):
    """Normalization.cpp's loop after the statistics kernel, in float32 (with float16
    running statistics too, rounded once): the running averages, with the unbiased variance
    (divided by count - 1), and 1 / sqrt(var_sum / count + eps)"""
    momentum = F32(momentum)
    if running_mean is not None:  # (written by the kernel, as in torch: no new version)
        running_mean._data[...] = momentum * mean + (1 - momentum) * running_mean._data.astype(
            F32)
    if running_var is not None:
        unbiased = var_sum / F32(count - 1)
        running_var._data[...] = momentum * unbiased + (1 - momentum) * running_var._data.astype(
            F32)
    return _invstd(var_sum / F32(count), eps)


def _strided_statistics(input, running_mean, running_var, momentum, eps, dtype):
    """Normalization.cpp's loop for other layouts: the mean is torch.mean's (float32 if
    mixed); the squares of the deviations from it added in float32, in the order of the
    input's memory; the running averages in float64, rounded to the parameters' dtype (to
    float16 through float32, as C++ converts a double to Half)"""
    x = input._data
    count = x.size // x.shape[1]
    dims = [0, *range(2, x.ndim)]
    with no_grad():
        mean = input.detach().mean(dims, dtype=None if dtype == F16 else float32)._data
    mean = np.asarray(mean, dtype)
    values = _visited(x, _iteration_order(x.shape, input.stride())).astype(F32)
    var_sum = _from_zero((values - mean.astype(F32)) ** 2)
    invstd = _invstd(var_sum / F32(count), eps).astype(dtype)
    wide = np.float64(momentum)
    if running_mean is not None:
        updated = wide * mean.astype(np.float64) + (1 - wide) * running_mean._data
        running_mean._data[...] = updated.astype(F32)
    if running_var is not None:
        unbiased = (var_sum / F32(count - 1)).astype(np.float64)
        running_var._data[...] = (wide * unbiased + (1 - wide) * running_var._data).astype(F32)
    return mean, invstd


def _per_channel(values, ndim):
    """a per-channel vector shaped to broadcast along dimension 1 of an ndim-d input"""
    return np.asarray(values).reshape([1, -1] + [1] * (ndim - 2))


def _kernel_output(x, weight, bias, running_mean, running_var, save_mean, save_invstd,
                   training, eps, dtype):
    """out = x * alpha + beta fused, in float32, rounded to float16 (torch's kernel: alpha =
    invstd * weight, beta = bias - mean * alpha fused, per channel)"""
    if training:
        mean, invstd = save_mean.astype(F32), save_invstd.astype(F32)
    else:
        mean = running_mean._data.astype(F32)
        invstd = F32(1) / np.sqrt(running_var._data.astype(F32) + F32(eps))
    alpha = invstd if weight is None else invstd * weight._data.astype(F32)
    bias = F32(0) if bias is None else bias._data
    if dtype == F32:
        beta = fma32(-mean, alpha, bias)
    else:  # (float16 parameters: torch's compiled loop rounds mean * alpha first)
        beta = bias.astype(F32) - mean * alpha
    out = fma32(x.astype(F32), _per_channel(alpha, x.ndim), _per_channel(beta, x.ndim))
    return out.astype(F16)


def _strided_output(x, weight, bias, running_mean, running_var, save_mean, save_invstd,
                    training, eps, dtype):
    """TensorIterator's ((x - mean) * invstd) * weight + bias, element by element in the
    parameters' arithmetic (float16: each step rounded; float32 then rounded once), the
    evaluation's invstd by tensor operations: 1 / sqrt(running_var + eps)"""
    if training:
        mean, invstd = save_mean, save_invstd
    else:
        mean = running_mean._data
        invstd = dtype(1) / np.sqrt(running_var._data + dtype(eps))  # (eps in their dtype)
    weight = dtype(1) if weight is None else weight._data
    bias = dtype(0) if bias is None else bias._data
    values = x if dtype == F16 else x.astype(F32)
    mean, invstd, weight, bias = (_per_channel(v, x.ndim) for v in (mean, invstd, weight, bias))
    return (((values - mean) * invstd) * weight + bias).astype(F16)


# ====================================================================== backward
def half_batch_norm_backward(grad, input, weight, running_mean, running_var, save_mean,
                             save_invstd, training, eps):
    """torch's batch_norm_backward_cpu of a float16 input: (grad_input, grad_weight,
    grad_bias), the first a tensor laid out as torch's, the others arrays of the
    parameters' dtype"""
    mixed = is_mixed(input, (weight, running_mean, running_var, save_mean, save_invstd))
    dtype = F32 if mixed else F16
    kernel = _dense(input) and _dense(grad) and suggested_memory_format(
        tuple(input.shape), input.stride()) == suggested_memory_format(tuple(grad.shape),
                                                                        grad.stride())
    x, g = input._data, grad._data
    weight = None if weight is None else weight._data
    if training:
        mean, invstd = save_mean._data, save_invstd._data
    else:
        mean = running_mean._data
        invstd = 1 / np.sqrt(running_var._data.astype(np.float64) + eps)
    with np.errstate(all="ignore"):
        if kernel:
            grads = _kernel_backward(x, g, weight, mean, invstd.astype(F32), training,
                                     memory_path(input), dtype)
        else:
            grads = _strided_backward(input, grad, weight, mean, invstd.astype(F32).astype(
                dtype), training, dtype)
    return (_laid_out(grads[0], _result_strides(input, kernel)),) + grads[1:]


def _kernel_backward(x, g, weight, mean, invstd, training, path, dtype):
    """batch_norm_cpu_backward's kernels: the sum of the gradient and its dot product with
    x - mean per channel in float32 (in the forward's order: "planes" or "rows"), then
    dx = (dy - sum / n - (x - mean) * dot * invstd^2 / n) * invstd * weight"""
    count = x.size // x.shape[1]
    mean32 = mean.astype(F32)
    if path == "planes":
        (lanes_x, tail_x), (lanes_g, tail_g) = _planes(x), _planes(g)
        total = _planes_sum(lanes_g, tail_g)
        dot = _fused_dot(tail_x - mean32, tail_g) + _lanes_added(
            _fused_dot(lanes_x - mean32[:, None], lanes_g))
    else:
        rows_x, rows_g = _channels_columns(x).astype(F32), _channels_columns(g).astype(F32)
        total = _from_zero(rows_g)
        dot = _fused_dot(rows_x - mean32, rows_g)
    w = F32(1) if weight is None else weight.astype(F32)
    dy = g.astype(F32)
    if training:
        k = _per_channel(dot * invstd * invstd / F32(count), x.ndim)
        centred = x.astype(F32) - _per_channel(mean32, x.ndim)
        dy = dy - _per_channel(total / F32(count), x.ndim)
        dy = fma32(-centred, k, dy)
    grad_input = (dy * _per_channel(invstd, x.ndim) * _per_channel(w, x.ndim)).astype(F16)
    return grad_input, (dot * invstd).astype(dtype), total.astype(dtype)


def _fused_dot(a, b):
    """0 + a[0] * b[0] + a[1] * b[1] + ... in float32, each step fused (acc + a * b rounded
    once)"""
    total = np.zeros(a.shape[1:], F32)
    for row_a, row_b in zip(a, b):
        total = fma32(row_a, row_b, total)
    return total


def _strided_backward(input, grad, weight, mean, invstd, training, dtype):
    """batch_norm_backward_cpu_template for other layouts: the gradient's sum by torch.sum
    in float32, the dot product of x - mean with it in float32 in TensorIterator's order,
    each product in the parameters' arithmetic; k = dot * invstd^2 / n in float16; the
    gradient element by element (float16 arithmetic, and float32 for the steps that meet a
    float32 parameter)"""
    x, g = input._data, grad._data
    count = x.size // x.shape[1]
    dims = [0, *range(2, x.ndim)]
    with no_grad():
        total = np.asarray(grad.detach().sum(dims, dtype=float32)._data)
    mean = mean.astype(dtype)
    order = _iteration_order(x.shape, input.stride(), grad.stride())
    xs, gs = _visited(x, order), _visited(g, order)
    products = ((xs - mean) * gs) if dtype == F16 else (xs.astype(F32) - mean) * gs.astype(F32)
    dot = _from_zero(np.asarray(products).astype(F32))
    w = dtype(1) if weight is None else weight.astype(dtype)
    shaped = [_per_channel(v, x.ndim) for v in (mean, invstd, w)]
    if training:
        k = (((dot.astype(F16) * invstd) * invstd) / dtype(count)).astype(F16)
        centred = (x - shaped[0]) if dtype == F16 else x.astype(F32) - shaped[0]
        grad_input = (centred * _per_channel(k, x.ndim)).astype(F16)
        grad_mean = _per_channel((total / F32(count)).astype(F16), x.ndim)
        grad_input = ((g - grad_mean) - grad_input) * shaped[1] * shaped[2]
    else:
        grad_input = g * shaped[1] * shaped[2] if dtype == F16 else \
            g.astype(F32) * shaped[1] * shaped[2]
    return (grad_input.astype(F16), (dot * invstd.astype(F32)).astype(dtype),
            total.astype(dtype))
