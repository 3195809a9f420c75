"""``engine.testing``: ``torch.testing``, what tests and tutorials use to compare results.

``assert_close`` (comparison.py) says whether two results are close, and if not, where and by
how much, in PyTorch's words; ``make_tensor`` (creation.py) makes random test tensors with
torch's values for a seed. ``assert_allclose`` is torch's deprecated predecessor of
``assert_close``. torch's ``FileCheck`` (TorchScript's graph checker) is absent.
"""
from .comparison import assert_allclose, assert_close
from .creation import make_tensor
