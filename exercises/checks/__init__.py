"""The checkers the exercise notebooks import, and what runs beside them in the learner's kernel.

- ``toolkit``: what every checker is built from (``Feedback``, ``expect_tensor``,
  ``expect_equal``, ``expect_error``, ``expect_shares_memory``, the ``checker`` decorator
  and its registry, ``discover()``);
- one module of checkers per lesson, named without its number (a renumbering leaves it as
  it is): ``creating_tensors``, ``shapes_indexing_broadcasting``, ..., ``training_loop``;
  ``example`` is lesson 00's and shows the pattern;
- ``feedback``: the ``Feedback`` a check shows (standard library only);
- ``answer_cells``: the kernel's log of cell runs, so a check judges only an answer cell
  that ran without an error (standard library only);
- ``old_names``: the module names of earlier layouts and editions, installed as an import
  hook by ``exercises/__init__.py`` (standard library only);
- ``i18n``: the language a check speaks (English, or Chinese in a notebook of the Chinese
  edition) and its words from the gettext catalog in ``locale/`` (standard library only;
  ``make messages`` keeps the catalog in step with the code).

Checkers never import torch or the engine: they look at answers through the attributes
engine tensors and PyTorch tensors share, so the same notebooks run on either
(``make compare-torch``). This file imports nothing: ``exercises/__init__.py`` imports
``old_names`` through it, also where only the standard library is there.
"""
