"""``engine.nn.functional``: stateless functions, mirroring ``torch.nn.functional``.

Placeholder. This will hold the functional forms used in the course, e.g.
``linear``, ``relu``, ``sigmoid``, ``mse_loss``; ``import engine.nn.functional as F``
is the import learners write.
"""
