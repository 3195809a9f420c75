"""``engine.nn``: layers with parameters, mirroring ``torch.nn``.

Placeholder. This will hold ``Parameter``, ``Module`` (parameter registration,
``parameters()``, ``zero_grad()``, ``train()``/``eval()``), ``Linear`` (with
PyTorch's kaiming-uniform initialisation, so seeded weights match torch) and
the loss modules used in the course (``MSELoss`` and friends).
"""
