"""``engine.utils``: ``torch.utils``, of which the engine has ``data`` (datasets and loaders),
and ``hooks`` (the handle that hooks' registration returns)."""
from . import data, hooks  # noqa: F401
