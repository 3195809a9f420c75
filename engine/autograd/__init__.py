"""``engine.autograd``: the gradient machinery, mirroring ``torch.autograd``.

Placeholder. This will hold ``grad`` (``torch.autograd.grad``, including
``create_graph=True`` for higher-order gradients), ``backward``, the
``Function`` base class for custom operations and ``gradcheck``.
"""
