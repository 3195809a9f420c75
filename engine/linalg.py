"""``torch.linalg``: linear algebra (a namespace: the operations live in ``ops/linalg.py``)."""
from .ops.linalg import linalg_cross as cross  # noqa: F401
from .ops.linalg import linalg_svd as svd  # noqa: F401
from .ops.linalg import linalg_svdvals as svdvals  # noqa: F401
from .ops.linalg import linalg_matrix_norm as matrix_norm  # noqa: F401
from .ops.linalg import linalg_norm as norm  # noqa: F401
from .ops.linalg import linalg_vector_norm as vector_norm  # noqa: F401
from .ops.solve import LinAlgError  # noqa: F401
from .ops.solve import linalg_det as det  # noqa: F401
from .ops.solve import linalg_inv as inv  # noqa: F401
from .ops.solve import linalg_inv_ex as inv_ex  # noqa: F401
from .ops.solve import linalg_matrix_power as matrix_power  # noqa: F401
from .ops.solve import linalg_slogdet as slogdet  # noqa: F401
from .ops.solve import linalg_solve as solve  # noqa: F401
from .ops.solve import linalg_solve_ex as solve_ex  # noqa: F401
