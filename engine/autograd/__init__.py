"""``engine.autograd``: the gradient machinery, mirroring ``torch.autograd``.

The graph and the backward pass live in ``engine/core/``; each operation's gradient
formula sits next to the operation itself (``engine/ops/``). This package is the public
face: ``backward``, ``grad``, the grad modes, ``Function`` for your own operations,
``gradcheck``, anomaly detection (``detect_anomaly``), and ``graph``: hooks on saved tensors
(``saved_tensors_hooks``, ``save_on_cpu``), ``register_multi_grad_hook``, ``GradientEdge``,
``queue_callback``.
"""
from ..core.backward import backward, grad  # noqa: F401
from ..core.grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                              no_grad, set_grad_enabled)
from . import anomaly_mode, forward_ad, functional, grad_mode, graph  # noqa: F401
from .grad_mode import set_multithreading_enabled  # noqa: F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401
from .variable import Variable  # noqa: F401  (older tutorials' wrapper: now t.detach())
