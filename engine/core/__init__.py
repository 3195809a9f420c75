"""The core of autograd, the part to read: tensors, nodes, the backward walk, grad modes.

The spine, read in this order: ``grad_mode.py`` (is recording on?), ``node.py`` (what an
operation records), ``backward.py`` (the walk), ``tensor.py`` (the Tensor, which ties them
together). Read after the spine, torch's surface around it: ``hooks.py``, ``saved.py``
(``node._saved_<name>``), ``capture.py`` (``autograd.grad``), ``history.py`` (in-place
changes). See README.md.
"""
