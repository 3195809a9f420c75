"""``torch.linalg``: linear algebra (a namespace: the operations live in ``ops/linalg.py``)."""
from .ops.linalg import linalg_cross as cross  # noqa: F401
from .ops.linalg import linalg_svd as svd  # noqa: F401
from .ops.linalg import linalg_svdvals as svdvals  # noqa: F401
