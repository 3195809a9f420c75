"""``engine.nn``: layers with parameters, mirroring ``torch.nn``.

A model is a ``Module`` whose attributes are ``Parameter`` tensors and other modules;
``model.parameters()`` finds them all for the optimizer. ``engine.nn.functional``
holds the same computations as plain functions, ``engine.nn.init`` the ways to fill
a weight with its starting values, ``engine.nn.utils`` gradient clipping and the
parameters as one vector, ``engine.nn.torch_functions`` the operators torch also names at
its top level, with their C++ signatures (``torch.dropout(x, p, train)``, ``torch.layer_norm``).
"""
from . import functional, init, parameter, torch_functions, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["Buffer", "Parameter", "UninitializedParameter", "UninitializedBuffer", "functional",
           "init", "parameter", "utils",
           *_modules_all]
