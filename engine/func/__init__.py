"""``engine.func``, imported as ``torch.func``: function transforms.

``grad``, ``grad_and_value``, ``vjp`` and ``jacrev`` turn a function into the function that
computes its derivatives (transforms.py: built on the engine's ordinary autograd, one
"level" per call, nesting as ``grad(grad(f))``); ``vmap`` runs a function of one sample on
a batch (vmap.py, with the batching rules in batched.py: what has no rule runs once per
sample); ``functional_call`` runs a module with other tensors in place of its parameters and
buffers (functional_call.py). ``vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)``
gives per-sample gradients.

``jvp`` is forward mode (dual tensors, engine.autograd.forward_ad); ``jacfwd`` computes a
Jacobian's columns with it, all at once under ``vmap``, and ``hessian`` is
``jacfwd(jacrev(f))``, as torch's.
"""
from .functional_call import functional_call, stack_module_state
from .transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from .vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "stack_module_state", "vjp", "vmap"]
