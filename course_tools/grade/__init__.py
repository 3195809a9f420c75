"""Release, collect and grade the exercises for a class (see TEACHING.md).

- ``release.py``: what a teacher hands out (``make release OUT=...``): the course without its
  solutions, as a folder and a zip, the exercise notebooks with nbgrader's metadata;
- ``grade.py``: grade every student's notebooks (``make grade SUBMISSIONS=... OUT=...``):
  ``grades.csv``, each student's ``results.json`` (Gradescope's format) and ``feedback.html``;
- ``sandbox.py``: where each notebook runs (bubblewrap, limits);
- ``runner.py``: what runs inside the sandbox: the answers, then the course's own checkers.

Command line: ``python -m course_tools.grade release|grade ...`` (``__main__.py``).
"""
