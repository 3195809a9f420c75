"""``engine.utils``: ``torch.utils``, of which the engine has ``data`` (datasets and loaders),
``hooks`` (the handle that hooks' registration returns) and ``checkpoint``."""
from . import checkpoint, data, hooks  # noqa: F401
