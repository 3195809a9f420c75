"""Gradient checking: compare autograd's gradients with finite differences.

For a function f and each input element x_i, the central difference

    (f(x + eps e_i) - f(x - eps e_i)) / (2 eps)

approximates column i of the Jacobian; autograd gives the same Jacobian row by row
(one backward per output element). They must agree within ``atol + rtol * |numerical|``.
Use float64 inputs: in float32 the rounding error of the difference swamps the result.
"""
import numpy as np

from ..core.backward import grad as autograd_grad
from ..core.tensor import Tensor, wrap
from . import forward_ad


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the two Jacobians differ."""


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def _differentiable_inputs(inputs):
    return [(i, t) for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _outputs(function, inputs):
    # grad mode stays on: gradgradcheck's function itself runs a backward
    return [o for o in _as_tuple(function(*inputs)) if isinstance(o, Tensor)]


def numerical_jacobian(function, inputs, eps=1e-6):
    """[input][output] Jacobians (numel_in x numel_out) by central differences."""
    jacobians = []
    for _, tensor in _differentiable_inputs(inputs):
        columns = []
        for index in range(tensor._data.size):
            position = np.unravel_index(index, tensor._data.shape)
            original = tensor._data[position].copy()
            tensor._data[position] = original + eps
            # in the outputs' dtype, as torch: a float32 check shows float32's rounding
            plus = [o._data.reshape(-1).copy() for o in _outputs(function, inputs)]
            tensor._data[position] = original - eps
            minus = [o._data.reshape(-1).copy() for o in _outputs(function, inputs)]
            tensor._data[position] = original
            columns.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
        per_output = []
        for out_index in range(len(columns[0]) if columns else 0):
            per_output.append(np.stack([c[out_index] for c in columns]) if columns else None)
        jacobians.append(per_output)
    return jacobians


def analytical_jacobian(function, inputs):
    """[input][output] Jacobians from autograd: one backward per output element."""
    differentiable = _differentiable_inputs(inputs)
    outputs = [o for o in _as_tuple(function(*inputs)) if isinstance(o, Tensor)]
    jacobians = [[np.zeros((t._data.size, o._data.size), t._data.dtype) for o in outputs]
                 for _, t in differentiable]  # in each input's dtype, as torch
    for out_index, output in enumerate(outputs):
        if not output.requires_grad:
            continue
        for element in range(output._data.size):
            seed = np.zeros(output._data.shape, output._data.dtype)
            seed.reshape(-1)[element] = 1
            grads = autograd_grad(output, [t for _, t in differentiable], wrap(seed),
                                   retain_graph=True, allow_unused=True)
            for in_index, grad in enumerate(grads):
                if grad is not None:
                    jacobians[in_index][out_index][:, element] = grad._data.reshape(-1)
    return jacobians


def forward_jacobian(function, inputs):
    """[input][output] Jacobians by forward mode: one run with a unit tangent per input
    element (``check_forward_ad``)."""
    jacobians = []
    for position, tensor in _differentiable_inputs(inputs):
        rows = []
        for element in range(tensor._data.size):
            unit = np.zeros(tensor._data.shape, tensor._data.dtype)
            unit.reshape(-1)[element] = 1
            with forward_ad.dual_level():
                dual = forward_ad.make_dual(tensor, wrap(unit))
                outputs = _outputs(function, inputs[:position] + (dual,) + inputs[position + 1:])
                tangents = [forward_ad.unpack_dual(o).tangent for o in outputs]
            rows.append([np.zeros(o._data.size, o._data.dtype) if t is None else
                         t._data.reshape(-1) for o, t in zip(outputs, tangents)])
        jacobians.append([np.stack([row[out] for row in rows]) if rows else None
                          for out in range(len(rows[0]) if rows else 0)])
    return jacobians


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """True when autograd's Jacobian (backward mode; forward mode with ``check_forward_ad``)
    matches the central-difference one for every input. (The options after ``rtol`` that
    check more than the Jacobians' values are accepted and not run.)"""
    assert check_forward_ad or check_backward_ad, \
        "Expected at least one of check_forward_ad or check_backward_ad to be True"
    inputs = _as_tuple(inputs)
    for _, tensor in _differentiable_inputs(inputs):
        if tensor._data.dtype != np.float64:
            import warnings
            warnings.warn(f"Input #{inputs.index(tensor)} requires gradient and is not a double "
                          "precision floating point or complex. This check will likely fail if "
                          "all the inputs are not of double precision floating point or "
                          "complex. ", UserWarning, stacklevel=2)
    numerical = numerical_jacobian(func, inputs, eps)
    modes = [("", analytical_jacobian)] if check_backward_ad else []
    modes += [(" computed with forward mode", forward_jacobian)] if check_forward_ad else []
    for mode, jacobian in modes:
        analytical = jacobian(func, inputs)
        # output by output, then input by input: torch reports the first mismatch so
        for out_index in range(len(numerical[0]) if numerical else 0):
            for in_index, (num_rows, ana_rows) in enumerate(zip(numerical, analytical)):
                num, ana = num_rows[out_index], ana_rows[out_index]
                if num is None or np.allclose(ana, num, rtol=rtol, atol=atol, equal_nan=True):
                    continue
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian{mode} mismatch for output {out_index} with respect to input "
                    f"{in_index},\nnumerical:{wrap(num)}\nanalytical:{wrap(ana)}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the gradient itself: second derivatives against finite differences."""
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _outputs(func, inputs)
        generator = np.random.default_rng(0)
        grad_outputs = tuple(wrap(generator.standard_normal(o._data.shape)
                                  .astype(o._data.dtype)).requires_grad_() for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    count = len(inputs)

    def first_derivative(*all_inputs):
        primal, seeds = all_inputs[:count], all_inputs[count:]
        outputs = [o for o in _as_tuple(func(*primal)) if isinstance(o, Tensor)]
        wanted = [t for _, t in _differentiable_inputs(primal)]
        grads = autograd_grad(outputs, wanted, seeds, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev)
