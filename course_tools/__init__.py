"""The course's tools: what a learner, an author or an instructor runs (see README.md).

Each module runs as ``python -m course_tools.<module>`` from the repository's root (the
Makefile's targets do). Layers: ``engine`` <- ``exercises`` <- ``course_tools``; nothing in
``engine`` or ``exercises`` imports from here (tests/test_layout.py).
"""
