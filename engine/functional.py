"""``torch.functional`` (``import torch.functional as F`` in older tutorials): torch's tensor
functions written in Python, the very objects ``torch.norm``, ``torch.split`` ... are.

The engine offers those of them it has; torch's others here (chain_matmul, istft, lu,
pca_lowrank, stft, svd_lowrank, unravel_index) it has not.
"""
from .ops.rearrange import (atleast_1d, atleast_2d, atleast_3d, block_diag, cartesian_prod, cdist,
                             einsum, meshgrid, tensordot)
from .ops.linalg import norm
from .ops.reduce import unique, unique_consecutive
from .ops.views import broadcast_shapes, broadcast_tensors, split

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
           "broadcast_tensors", "cartesian_prod", "cdist", "einsum", "meshgrid", "norm", "split",
           "tensordot", "unique", "unique_consecutive"]
