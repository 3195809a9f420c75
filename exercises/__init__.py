"""The course's exercises: the notebooks learners fill in, and the checkers they import.

- ``exercises/NN_<lesson>.ipynb``: the exercise notebooks (generated from ``solutions/``).
- ``exercises.checks``: the one package those notebooks import, with what runs beside the
  checkers in the learner's kernel (see ``exercises/checks/__init__.py``), e.g.
  ``from exercises.checks.creating_tensors import check_01_dtype_inference``.

Importing the package installs the old module names (``exercises.checks.old_names``): a
notebook written for an earlier layout or edition, ``from exercises.checks_04_copying import
...``, still finds its checkers. Standard library only, as everything it imports: the
workspace tool (``python -m course_tools.workspace``) runs without the course's environment.
The tools that write, run and serve the notebooks are in ``course_tools/``.
"""
from exercises.checks import old_names as _old_names

_old_names.install()
