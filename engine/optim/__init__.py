"""``engine.optim``: optimizers, mirroring ``torch.optim``.

A training step is ``optimizer.zero_grad()``, ``loss.backward()``, ``optimizer.step()``;
``engine.optim.lr_scheduler`` changes the learning rate between steps (StepLR, OneCycleLR ...).
The updates follow torch's single-tensor (``foreach=False``) code, which is what torch
runs for CPU tensors by default, in the same order of operations.

Where the engine knowingly differs from PyTorch:

* ``foreach``, ``fused``, ``capturable`` and ``differentiable`` are accepted and shown
  (repr, state_dict), but the engine always runs the plain per-tensor loop. A tensor ``lr``
  works as in torch (the schedulers fill it in place); tensor ``betas`` are not supported.
* torch's float32 ``sqrt`` comes from MKL and is not correctly rounded, so the optimizers
  that divide by a square root (Adam, AdamW, RMSprop, Adagrad, NAdam, RAdam) agree to
  float32 rounding (about 1e-6 relative) rather than bit for bit; SGD and Adamax are exact.
* No step or state_dict hooks.
"""
from . import lr_scheduler  # noqa: F401
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "Optimizer", "RAdam", "RMSprop",
           "SGD"]
