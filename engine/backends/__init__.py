"""``torch.backends``: switches for the libraries torch computes with on a GPU or a Mac.

None of them exists in the engine; the flags are here so that code which reads or sets
them (``torch.backends.cudnn.benchmark = True``) runs, with the values torch 2.15's Linux
wheel has on a machine without a GPU.
"""
from . import cudnn, mps  # noqa: F401
