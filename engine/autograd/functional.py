"""``torch.autograd.functional``: derivatives of a whole function, from autograd.

``vjp(f, x, v)`` is one backward pass: ``v^T J``, where J is the Jacobian of f at x.
``jacobian(f, x)`` builds J itself, one row per output element: row j is the
backward pass seeded with the j-th unit vector (a vjp with v = e_j).

Inputs and outputs are a tensor or a tuple of tensors; as in torch, the results
come back in the same form (a tensor for a tensor, a tuple for a tuple).
"""
from ..core.backward import grad as autograd_grad
from ..core.grad_mode import enable_grad
from ..core.tensor import Tensor
from ..ops.creation import ones_like, zeros_like
from ..ops.join import stack


def _as_tuple(value, argument, function_name):
    """``(value,)`` for a tensor, the tuple itself for a tuple; plus whether it was one."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for index, item in enumerate(values):
        if not isinstance(item, Tensor):
            if is_tuple:
                raise TypeError(f"The {argument} given to {function_name} must be either a "
                                f"Tensor or a tuple of Tensors but the value at index {index} "
                                f"has type {type(item)}.")
            raise TypeError(f"The {argument} given to {function_name} must be either a Tensor "
                            f"or a tuple of Tensors but the given {argument} has type "
                            f"{type(item)}.")
    return values, is_tuple


def _prepare(inputs, create_graph):
    """Fresh leaves to differentiate with respect to (views when the graph is kept)."""
    if create_graph:
        return tuple(t.view_as(t) if t.requires_grad else t.detach().requires_grad_()
                     for t in inputs)
    return tuple(t.detach().requires_grad_() for t in inputs)


def _gradients(outputs, inputs, seeds, create_graph, strict, output_index=None):
    """The gradients of ``outputs`` (seeded with ``seeds``) for every input, zeros if unused."""

    differentiable = [(o, s) for o, s in zip(outputs, seeds) if o.requires_grad]
    if differentiable:
        found = autograd_grad([o for o, _ in differentiable], inputs,
                               [s for _, s in differentiable], retain_graph=True,
                               create_graph=create_graph, allow_unused=True)
    else:
        found = (None,) * len(inputs)
    results = []
    for index, (tensor, grad) in enumerate(zip(inputs, found)):
        if grad is None:
            if strict:
                which = "The output" if output_index is None else f"Output {output_index}"
                raise RuntimeError(f"{which} of the user-provided function is independent of "
                                   f"input {index}. This is not allowed in strict mode.")
            grad = zeros_like(tensor)  # torch: an input the output ignores has zero derivative
        results.append(grad if create_graph else grad.detach())
    return tuple(results)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product, as one backward pass."""

    with enable_grad():
        inputs, inputs_is_tuple = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph)
        outputs = func(*inputs)
        outputs, outputs_is_tuple = _as_tuple(outputs, "outputs of the user-provided function",
                                              "vjp")
        if v is None:
            if len(outputs) != 1 or outputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function "
                                   "returns a single Tensor with a single element.")
            seeds = (ones_like(outputs[0]),)
        else:
            seeds, _ = _as_tuple(v, "v", "vjp")
            for seed, output in zip(seeds, outputs):
                if seed.shape != output.shape:
                    raise RuntimeError(f"v has invalid size: should be {output.shape} but got "
                                       f"{seed.shape}.")
        grads = _gradients(outputs, inputs, seeds, create_graph, strict)
    outputs = tuple(o if create_graph else o.detach() for o in outputs)
    return (outputs if outputs_is_tuple else outputs[0],
            grads if inputs_is_tuple else grads[0])


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """J[i][j] = d outputs[i] / d inputs[j], each of shape output.shape + input.shape.

    One backward pass per output element: row k of J is the vjp with the k-th unit
    vector. (``vectorize`` only changes how torch batches those passes, not the result.)
    """

    with enable_grad():
        inputs, inputs_is_tuple = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph)
        outputs = func(*inputs)
        outputs, outputs_is_tuple = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jacobian")
        jacobians = []  # [output][input]
        for i, output in enumerate(outputs):
            flat = output.reshape(-1)
            rows = []  # rows[k][j]: the gradient of output element k for input j
            for k in range(flat.numel()):
                seed = zeros_like(flat)
                seed[k] = 1
                rows.append(_gradients((flat,), inputs, (seed,), create_graph, strict,
                                       output_index=i))
            per_input = []
            for j, tensor in enumerate(inputs):
                if rows:
                    rows_j = stack([row[j] for row in rows])
                else:  # an empty output: an empty Jacobian
                    rows_j = zeros_like(tensor).reshape(0, *tensor.shape)
                per_input.append(rows_j.view(tuple(output.shape) + tuple(tensor.shape)))
            jacobians.append(tuple(per_input))
    if not outputs_is_tuple and not inputs_is_tuple:
        return jacobians[0][0]
    if not outputs_is_tuple:
        return jacobians[0]
    if not inputs_is_tuple:
        return tuple(per_input[0] for per_input in jacobians)
    return tuple(jacobians)
