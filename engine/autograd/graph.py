"""``torch.autograd.graph``: the node type of the recorded graph."""
from ..core.node import Node  # noqa: F401
