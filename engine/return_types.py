"""torch.return_types: the named tuples that max, sort, topk, aminmax, frexp, slogdet ... return.

Each op family files its classes as it makes them (ops/common.py ``filed_return_type``); this
module is their home, where pickle and ``copy`` find them, as torch's live in its module
torch.return_types."""
from .ops import linalg, pointwise, reduce, solve, statistics  # noqa: F401 - (they file them)
from .ops.common import return_types as _filed

globals().update({name: kind for name, kind in vars(_filed).items() if isinstance(kind, type)})
__all__ = sorted(name for name, kind in vars(_filed).items() if isinstance(kind, type))
