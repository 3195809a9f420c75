"""``engine.optim``: optimisers, mirroring ``torch.optim``.

Placeholder. This will hold ``Optimizer`` (``step()``, and ``zero_grad()``,
which sets ``.grad`` to ``None`` as torch does by default) and ``SGD``.
"""
