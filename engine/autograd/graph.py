"""``torch.autograd.graph``: the node type of the recorded graph."""
from .._autograd import Node  # noqa: F401
