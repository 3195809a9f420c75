"""``torch.autograd.functional``: derivatives of a whole function, from autograd.

``vjp(f, x, v)`` is one backward pass: ``v^T J``, where J is the Jacobian of f at x.
``jacobian(f, x)`` builds J itself, one row per output element: row j is the
backward pass seeded with the j-th unit vector (a vjp with v = e_j).
``hessian(f, x)`` is the Jacobian of the gradient (a Jacobian of a Jacobian, kept
differentiable in between), ``vhp(f, x, v)`` is ``v^T H``: one more backward pass
through the gradient's graph.

``jvp`` (``J v``) and ``hvp`` (``H v``) are forward-mode products, but torch computes
them here with reverse mode only, by the "double backward trick": a backward pass is
linear in the gradient it is seeded with, so ``g(u) = u^T J`` is a function of a
dummy seed ``u``, and the backward of *that* (seeded with ``v``) is ``J v``. Its cost
is two backward passes; ``torch.func.jvp`` (forward mode) is the cheaper way.

Inputs and outputs are a tensor or a tuple of tensors; as in torch, the results
come back in the same form (a tensor for a tensor, a tuple for a tuple). The errors
(strict mode, wrong ``v``, non-tensor outputs) are torch's, raised in torch's order.
"""
from ..core.backward import grad as autograd_grad
from ..core.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from ..core.tensor import Tensor
from ..ops.creation import zeros, zeros_like
from . import forward_ad
from ..ops.join import cat, stack


# ---------------------------------------------------------------- shared steps
def _as_tuple(value, argument, function_name):
    """``(values, was_a_tuple)``: ``(value,)`` for a tensor, the tuple itself for a tuple."""
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


def _untuple(values, is_tuple):
    return values if is_tuple else values[0]


def _prepare(inputs, create_graph, need_graph=True):
    """Fresh tensors to differentiate with respect to, always new objects (so the function
    cannot reach them as captured globals): a view when the caller's graph is kept."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad
                 else t.detach().requires_grad_(need_graph) for t in inputs)


def _finish(tensors, create_graph):
    """What the caller gets: detached unless a graph was asked for."""
    return tensors if create_graph else tuple(t.detach() for t in tensors)


def _validate_v(v, other, other_is_tuple):
    if len(v) != len(other):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but "
                               f"got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for index, (seed, ref) in enumerate(zip(v, other)):
        if seed.shape != ref.shape:
            where = f"Entry {index} in " if other_is_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {ref.shape} but got "
                               f"{seed.shape}.")


def _v_or_default(v, refs, refs_is_tuple, name, what, create_graph):
    """``v`` as a tuple of detached tensors, checked against ``refs``; ``v=None`` is only
    allowed when there is one single-element reference (then the seed is a 1)."""
    if v is not None:
        v, _ = _as_tuple(v, "v", name)
        v = _prepare(v, create_graph, need_graph=False)
        _validate_v(v, refs, refs_is_tuple)
        return v
    if len(refs) != 1 or refs[0].numel() != 1:
        raise RuntimeError(f"The vector v can only be None if {what} a single Tensor with a "
                           "single element.")
    return None


_NOT_REQUIRING = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
               "outputs must be computed in a differentiable manner from the input when "
               "running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of "
                   "the user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is "
               "independent of the input. This is not allowed in strict mode. You should "
               "ensure that your function is thrice differentiable and that the hessian "
               "depends on the inputs.",
}


def _check_requires_grad(tensors, kind, strict):
    """Strict mode: every tensor on the way must carry a graph back to the inputs."""
    if not strict:
        return
    for i, tensor in enumerate(tensors):
        if tensor is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not tensor.requires_grad:
            raise RuntimeError(_NOT_REQUIRING[kind].format(i=i))


def _grad(outputs, inputs, seeds=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that have a graph (None where there is none)."""
    seeds = (None,) * len(outputs) if seeds is None else seeds
    pairs = [(o, s) for o, s in zip(outputs, seeds) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return autograd_grad([o for o, _ in pairs], inputs, [s for _, s in pairs],
                         retain_graph=retain_graph, create_graph=create_graph,
                         allow_unused=True)


# the words strict mode uses for a missing gradient, by the backward pass that missed it
_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward "
                         "mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """A missing gradient is zeros (the right derivative of something that does not
    depend on the input), or, in strict mode, an error naming the pass that missed it."""
    filled = []
    for i, found in enumerate(grads):
        if found is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            found = zeros_like(refs[i])
        elif strict and create_graph and not found.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        filled.append(found)
    return tuple(filled)


def _call(func, inputs, name, strict):
    outputs, is_tuple = _as_tuple(func(*inputs), "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict)
    return outputs, is_tuple


# ---------------------------------------------------------------- the products
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product, as one backward pass."""

    with enable_grad():
        inputs, inputs_is_tuple = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph)
        outputs, outputs_is_tuple = _call(func, inputs, "vjp", strict)
        v = _v_or_default(v, outputs, outputs_is_tuple, "vjp",
                          "the user-provided function returns", create_graph)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        found = _grad(outputs, inputs, v, create_graph)
        products = _fill_in_zeros(found, inputs, strict, create_graph, "back")
    return (_untuple(_finish(outputs, create_graph), outputs_is_tuple),
            _untuple(_finish(products, create_graph), inputs_is_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)`` by the double backward trick (two reverse passes)."""

    with enable_grad():
        inputs, inputs_is_tuple = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph)
        v = _v_or_default(v, inputs, inputs_is_tuple, "jvp",
                          "the input to the user-provided function is", create_graph)
        outputs, outputs_is_tuple = _call(func, inputs, "jvp", strict)
        # u^T J is linear in u: its value does not matter (zeros: no inf or nan), its graph does
        dummies = tuple(zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        found = _grad(grad_inputs, dummies, v, create_graph)
        products = _fill_in_zeros(found, outputs, strict, create_graph, "back_trick")
    return (_untuple(_finish(outputs, create_graph), outputs_is_tuple),
            _untuple(_finish(products, create_graph), outputs_is_tuple))


def _scalar_function_gradient(func, inputs, v, name, create_graph, strict):
    """vhp's and hvp's first half: checks, the output, and its gradient kept as a graph."""
    inputs, inputs_is_tuple = _as_tuple(inputs, "inputs", name)
    inputs = _prepare(inputs, create_graph)
    v = _v_or_default(v, inputs, inputs_is_tuple, name,
                      "the input to the user-provided function is", create_graph)
    outputs, outputs_is_tuple = _call(func, inputs, name, strict)
    if outputs_is_tuple:
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                           "contain a single element")
    gradient = _grad(outputs, inputs, create_graph=True)
    _check_requires_grad(gradient, "jacobian", strict)
    return inputs, inputs_is_tuple, v, outputs, gradient


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)`` for a scalar function: a backward pass through its gradient."""

    with enable_grad():
        inputs, inputs_is_tuple, v, outputs, gradient = _scalar_function_gradient(
            func, inputs, v, "vhp", create_graph, strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        found = _grad(gradient, inputs, v, create_graph)
        products = _fill_in_zeros(found, inputs, strict, create_graph, "double_back")
    return (_finish(outputs, create_graph)[0],
            _untuple(_finish(products, create_graph), inputs_is_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)``: the double backward trick applied to the gradient.

    (H is symmetric for a twice continuously differentiable function, so ``vhp`` gives
    the same numbers with one pass fewer; torch keeps both, and so does the engine.)
    """

    with enable_grad():
        inputs, inputs_is_tuple, v, outputs, gradient = _scalar_function_gradient(
            func, inputs, v, "hvp", create_graph, strict)
        dummies = tuple(zeros_like(t, requires_grad=True) for t in inputs)
        double_back = _grad(gradient, inputs, dummies, create_graph=True)
        _check_requires_grad(gradient, "hessian", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        found = _grad(double_back, dummies, v, create_graph)
        products = _fill_in_zeros(found, inputs, strict, create_graph, "double_back_trick")
    return (_finish(outputs, create_graph)[0],
            _untuple(_finish(products, create_graph), inputs_is_tuple))


# ---------------------------------------------------------------- whole matrices
_STRATEGY = ('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
             'function has more outputs than inputs, "forward-mode" tends to be more '
             'performant. Otherwise, prefer to use "reverse-mode".')


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """J[i][j] = d outputs[i] / d inputs[j], each of shape output.shape + input.shape.

    One backward pass per output element: row k of J is the vjp with the k-th unit
    vector. ``vectorize=True`` is how torch batches those passes (with vmap): same
    numbers, so the engine runs the same loop and keeps only torch's refusals.
    ``strategy="forward-mode"`` builds J column by column with forward mode, as torch's:
    one jvp (dual tensors, engine.autograd.forward_ad) per input element; torch runs them
    at once under vmap, the engine one after another.
    """
    return _jacobian(func, inputs, create_graph, strict, vectorize, strategy, False)


def _jacobian(func, inputs, create_graph, strict, vectorize, strategy, keep_graph):
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(_STRATEGY)
    if strategy == "forward-mode":
        _check_forward_mode(create_graph, strict)
    with enable_grad():
        given, inputs_is_tuple = _as_tuple(inputs, "inputs", "jacobian")
        if strategy == "forward-mode" and not vectorize:
            # (torch's message runs "is" and "only" together: kept as torch prints it)
            raise NotImplementedError("Computing Jacobian using forward-AD or "
                                      "forward-over-reverse Hessian isonly implemented for "
                                      "`vectorize=True`.")
        inputs = _prepare(given, create_graph)
        outputs, outputs_is_tuple = _call(func, inputs, "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either "
                               "set `strict=False` or `vectorize=False`.")
        if strategy == "forward-mode":
            columns = _forward_columns(func, inputs, outputs)
        else:
            jacobians = tuple(_jacobian_of(output, i, inputs, create_graph, strict)
                              for i, output in enumerate(outputs))
            jacobians = tuple(_finish(row, create_graph) for row in jacobians)
    if strategy == "forward-mode":
        keep_graph = keep_graph or any(t.requires_grad for t in given)
        with set_grad_enabled(keep_graph):
            jacobians = _forward_layout(columns, outputs, inputs, keep_graph)
    elif vectorize:
        # torch's forward mode runs on the inputs themselves: tangents of a function of
        # inputs that require grad are recorded (a graph the engine leaves as one detached leaf)
        with set_grad_enabled(create_graph):
            jacobians = _as_vectorized(jacobians, outputs, inputs)
    if not inputs_is_tuple:
        jacobians = tuple(row[0] for row in jacobians)
    return _untuple(jacobians, outputs_is_tuple)


def _check_forward_mode(create_graph, strict):
    if create_graph:
        raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                  '`strategy="forward-mode"` are not supported together (yet). '
                                  'Please either set `create_graph=False` or '
                                  '`strategy="reverse-mode"`.')
    if strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           '`strategy="forward-mode"` are not supported together (yet). '
                           'Please either set `strict=False` or `strategy="reverse-mode"`.')


def _jacobian_of(output, i, inputs, create_graph, strict):
    """The Jacobians of one output, one per input: a backward pass per output element."""
    flat = output.reshape(-1)
    rows = [[] for _ in inputs]
    for k in range(output.numel()):
        found = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
        for j, (row, grad) in enumerate(zip(rows, found)):
            if grad is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {j}. This is not allowed in "
                                       "strict mode.")
                grad = zeros_like(inputs[j])
            elif strict and create_graph and not grad.requires_grad:
                raise RuntimeError(f"The jacobian of the user-provided function is independent "
                                   f"of input {i}. This is not allowed in strict mode when "
                                   "create_graph=True.")
            row.append(grad)
    # (an output with no elements leaves a row empty: torch's stack refuses it, so does ours)
    return tuple(stack(row).view(tuple(output.shape) + tuple(t.shape))
                 for row, t in zip(rows, inputs))


def _as_vectorized(jacobians, outputs, inputs):
    """The same numbers in the layout torch's vectorized reverse mode leaves (its vmap
    computes all the rows at once as one tensor, then splits it): per input, one tensor of
    every output's rows, split by output."""
    columns = []
    for j, t in enumerate(inputs):
        rows = cat([jacobians[i][j].reshape(o.numel(), *t.shape)
                    for i, o in enumerate(outputs)])
        pieces = rows.split([o.numel() for o in outputs])
        columns.append([p.view(tuple(o.shape) + tuple(t.shape))
                        for p, o in zip(pieces, outputs)])
    return tuple(tuple(column[i] for column in columns) for i in range(len(outputs)))


def _forward_columns(func, inputs, outputs):
    """Per output, the columns of its Jacobian, batch first: ``(sum of the inputs' numels,
    *output.shape)``. Column k is the tangent of the outputs when the inputs' tangents are
    the k-th unit vector of all inputs laid end to end (one forward pass with dual tensors;
    an output that does not depend on the inputs gets zeros)."""
    numels = [t.numel() for t in inputs]
    columns = [[] for _ in outputs]
    for k in range(sum(numels)):
        with forward_ad.dual_level():
            duals, offset = [], 0
            for t, n in zip(inputs, numels):
                unit = zeros(n, dtype=t.dtype)
                if offset <= k < offset + n:
                    unit[k - offset] = 1
                duals.append(forward_ad.make_dual(t, unit.view(t.shape)))
                offset += n
            found, _ = _call(func, tuple(duals), "jacobian", False)
            for column, out in zip(columns, found):
                column.append(forward_ad.unpack_dual(out).tangent)
    # an output that never had a tangent: zeros, the same for every column (stride 0), as
    # torch's vmap leaves them
    return [zeros(o.shape, dtype=o.dtype).expand(sum(numels), *o.shape)
            if all(tangent is None for tangent in column) else
            stack([zeros_like(o) if tangent is None else tangent for tangent in column])
            for column, o in zip(columns, outputs)]


def _forward_layout(columns, outputs, inputs, keep_graph):
    """The columns as torch's vectorized forward mode lays them out: per output, split by
    input, the batch moved to the end and reshaped (a view where it can be).
    Forward-over-reverse (``keep_graph``) leaves torch's result attached to a graph."""
    laid_out = []
    for batch, o in zip(columns, outputs):
        # (torch's result is attached to a graph, as one detached leaf here; not for an
        # output that had no tangent at all: zeros)
        batch = batch.detach()
        if keep_graph and batch.stride(0) != 0:
            batch.requires_grad_()
        pieces = batch.split([t.numel() for t in inputs])
        laid_out.append([p.permute(*range(1, p.dim()), 0).reshape(tuple(o.shape) +
                                                                  tuple(t.shape))
                         for p, t in zip(pieces, inputs)])
    return laid_out  # (torch's forward-mode path hands back lists, not tuples)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """H[i][j] = d^2 func / d inputs[i] d inputs[j]: the Jacobian of the gradient.

    The inner Jacobian (the gradient) keeps its graph so the outer one can differentiate
    it. ``outer_jacobian_strategy="forward-mode"`` is forward-over-reverse, as torch's:
    the outer Jacobian's columns are tangents carried through the inner reverse pass.
    """
    inputs, inputs_is_tuple = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_output(*args):
        output = func(*args)
        outputs, is_tuple = _call(lambda *a: output, args, "hessian", strict)
        if is_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if output.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return output.squeeze()

    def gradient(*args):
        if outer_jacobian_strategy == "forward-mode":
            args = tuple(t.requires_grad_(True) for t in args)
        found = jacobian(scalar_output, args, create_graph=True)
        _check_requires_grad(found, "jacobian", strict)
        return found

    forward = outer_jacobian_strategy == "forward-mode"
    result = _jacobian(gradient, inputs, create_graph, strict, vectorize,
                       outer_jacobian_strategy, forward)
    if not inputs_is_tuple:  # H[i][j] for one input: the single block
        return result[0][0]
    return result
