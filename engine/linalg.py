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
from .fidelity.dtypes import scalar_type_name
from .ops.linalg import matmul as _matmul
from .ops.reduce import sum as _sum
from .ops.structure import diagonal as _diagonal


def matmul(input, other, *, out=None):
    """``torch.linalg.matmul``: ``torch.matmul`` under linalg's name."""
    return _matmul(input, other, out=out)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``torch.linalg.diagonal``: ``torch.diagonal`` of the last two dimensions by default."""
    return _diagonal(A, offset, dim1, dim2)


def vecdot(x, y, *, dim=-1, out=None):
    """``torch.linalg.vecdot``: the dot products along ``dim`` (broadcast), ``(x * y).sum(dim)``
    as torch computes it (real tensors: no conjugate to take)."""
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {scalar_type_name[x.dtype]} and y of type "
                           f"{scalar_type_name[y.dtype]} instead")
    if not x.is_floating_point():
        raise NotImplementedError("linalg.vecdot: Expected a floating point or complex tensor "
                                  f"as input. Got {scalar_type_name[x.dtype]}")
    return _sum(x * y, dim, out=out)
