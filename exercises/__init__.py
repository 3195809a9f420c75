"""The course's exercises: the checkers learners call, and the notebook generator.

- ``exercises.checks``: the toolkit every checker is built from (``Feedback``,
  ``expect_tensor``, ``expect_equal``, ``expect_error``, ``expect_shares_memory``,
  the ``checker`` decorator and its registry).
- ``exercises.checks_NN_*``: one module of checkers per lesson, e.g.
  ``from exercises.checks_01_creating_tensors import check_01_dtype_inference``.
  ``exercises.checks_00_example`` shows the pattern and is used by the tests only.
- ``exercises.editions``: the names of an earlier edition; an old exercise notebook's
  ``from exercises.checks_03_copying import ...`` still works (with a note saying where the
  exercises are now), and ``make workspace`` carries its answers to the new notebooks.
- ``exercises.generate``: writes the exercise notebooks ``exercises/NN_*.ipynb`` from the
  solution notebooks ``solutions/NN_*.ipynb`` (``python -m exercises.generate``, or
  ``make exercises``; ``make check-exercises`` fails when they are out of sync).

Checkers never import torch: they look at answers through the attributes engine tensors
and PyTorch tensors share, so the same notebooks run on either (``make compare-torch``).
"""
from exercises import editions as _editions

_editions.install()
