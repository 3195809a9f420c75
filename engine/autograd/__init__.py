"""``engine.autograd``: the gradient machinery, mirroring ``torch.autograd``.

The graph and the backward pass live in ``engine/_autograd.py``; each operation's
gradient formula sits next to the operation itself (``engine/_ops.py``,
``engine/_views.py``). This package is the public face: ``backward``, ``grad``,
the grad modes, ``Function`` for your own operations and ``gradcheck``.
"""
from .._autograd import (backward, enable_grad, grad, inference_mode, is_grad_enabled,  # noqa: F401
                         no_grad, set_grad_enabled)
from . import functional, graph  # noqa: F401
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401
