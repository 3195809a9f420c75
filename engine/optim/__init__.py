"""``engine.optim``: optimizers, mirroring ``torch.optim``.

A training step is ``optimizer.zero_grad()``, ``loss.backward()``, ``optimizer.step()``;
``engine.optim.lr_scheduler`` changes the learning rate between steps (StepLR, OneCycleLR ...).
The updates follow torch's single-tensor (``foreach=False``) code, which is what torch
runs for CPU tensors by default, in the same order of operations.

Where the engine knowingly differs from PyTorch:

* ``foreach``, ``fused``, ``capturable`` and ``differentiable`` are accepted and shown
  (repr, state_dict), but the engine always runs the plain per-tensor loop; a tensor
  ``lr`` or ``betas`` is not supported.
* Adam's ``addcmul_`` / ``addcdiv_`` and the ``sqrt`` and ``lerp`` kernels round
  differently from torch's in the last bit, so Adam's parameters agree to float32
  rounding (about 1e-6 relative) rather than bit for bit.
* No step or state_dict hooks.
"""
from . import lr_scheduler  # noqa: F401
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Adam", "AdamW", "Optimizer", "SGD"]
