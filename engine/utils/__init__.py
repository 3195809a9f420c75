"""``engine.utils``: ``torch.utils``, of which the engine has ``data`` (datasets and loaders)."""
from . import data  # noqa: F401
