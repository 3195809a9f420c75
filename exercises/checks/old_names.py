"""Old module names, so that every exercise notebook a learner has still imports its checkers.

Two kinds of old name, both made here by an import hook (``install``, run when the
``exercises`` package is imported):

- **This edition's modules before they became one package.** Until the checkers moved into
  ``exercises/checks/``, a notebook imported ``from exercises.checks_04_copying import ...``.
  Such an import (in a learner's workspace, or a downloaded copy) gets the module of the new
  name, ``exercises.checks.copying``, itself: the same checkers, so a check judges its answer
  cell by the same checker name, and nothing is printed. ``MOVED_MODULES`` lists them.
- **The earlier edition's notebooks.** The second edition split lesson 2 in two
  (``02_shapes_indexing_broadcasting`` and ``03_views_copies_inplace``) and moved the lessons
  after it up one (``03_copying`` became ``04_copying``, ... and ``09_training_loop`` became
  ``11_training_loop``; 10 is kept for a lesson on debugging gradients). An old notebook's
  first cell, ``from exercises.checks_03_copying import check_03_snapshot, ...``, finds a
  module of the old name whose checkers are the new ones under their old names, and which
  first prints where the exercises are now. ``make workspace`` (course_tools/editions.py)
  also creates each new exercise notebook with the learner's answers from the old ones
  filled in (``RENAMED_CHECKERS`` says which old exercise is which new one).

This module is the one place that knows the old names: renaming a checker module, an
exercise notebook or a checker, add the old name here. Standard library only (the workspace
tool reads these tables without the course's environment, and ``exercises/__init__.py``
imports this module); a checker module is imported when its old name is.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

from exercises.checks.answer_cells import stale_answer
from exercises.checks.feedback import not_checked

PACKAGE = "exercises"
MODULE_PREFIX = f"{PACKAGE}.checks_"

# Each lesson's exercise notebook (its slug) -> the module of its checkers. A module's name
# has no lesson number, so a renumbering leaves it as it is.
CHECKER_MODULES = {
    "00_welcome": "exercises.checks.example",
    "01_creating_tensors": "exercises.checks.creating_tensors",
    "02_shapes_indexing_broadcasting": "exercises.checks.shapes_indexing_broadcasting",
    "03_views_copies_inplace": "exercises.checks.views_copies_inplace",
    "04_copying": "exercises.checks.copying",
    "05_graphs_and_leaves": "exercises.checks.graphs_and_leaves",
    "06_gradient_accumulation": "exercises.checks.gradient_accumulation",
    "07_turning_gradients_off": "exercises.checks.turning_gradients_off",
    "08_autograd_grad_and_checking": "exercises.checks.autograd_grad_and_checking",
    "09_inside_the_engine": "exercises.checks.inside_the_engine",
    "10_debugging_gradients": "exercises.checks.debugging_gradients",
    "11_training_loop": "exercises.checks.training_loop",
    "12_hooks_and_saved_tensors": "exercises.checks.hooks_and_saved_tensors",
    "13_forward_mode_and_torch_func": "exercises.checks.forward_mode_and_torch_func",
}

# This edition's module names up to commit 1ccfe20 -> their names now. Lesson 00 imported
# its example checker as exercises.checks_00_example.
# Lessons written after that commit (the advanced part) never had such a name.
ADDED_AFTER_1CCFE20 = ("12_hooks_and_saved_tensors", "13_forward_mode_and_torch_func")
MOVED_MODULES = {
    **{MODULE_PREFIX + ("00_example" if slug == "00_welcome" else slug): module
       for slug, module in CHECKER_MODULES.items() if slug not in ADDED_AFTER_1CCFE20},
    "exercises.answer_cells": "exercises.checks.answer_cells",
    "exercises.editions": "exercises.checks.old_names",
}

# An old exercise notebook's slug -> the new notebooks its exercises went to.
OLD_NOTEBOOKS = {
    "02_tensor_operations": ("02_shapes_indexing_broadcasting", "03_views_copies_inplace"),
    "03_copying": ("04_copying",),
    "04_graphs_and_leaves": ("05_graphs_and_leaves",),
    "05_gradient_accumulation": ("06_gradient_accumulation",),
    "06_turning_gradients_off": ("07_turning_gradients_off",),
    "07_autograd_grad_and_checking": ("08_autograd_grad_and_checking",),
    "08_inside_the_engine": ("09_inside_the_engine",),
    "09_training_loop": ("11_training_loop",),
}

# Every checker of the earlier edition -> its name now (the exercise is the same).
RENAMED_CHECKERS = {
    # 02_tensor_operations -> 02_shapes_indexing_broadcasting and 03_views_copies_inplace
    "check_02_broadcast_shapes": "check_02_broadcast_shapes",
    "check_02_shares_memory": "check_03_shares_memory",
    "check_02_indexing": "check_02_indexing",
    "check_02_layouts": "check_02_layouts",
    "check_02_columns": "check_03_columns",
    "check_02_center_rows": "check_02_center_rows",
    # 03_copying -> 04_copying
    "check_03_does_b_change": "check_04_does_b_change",
    "check_03_requires_grad_and_grad_fn": "check_04_requires_grad_and_grad_fn",
    "check_03_snapshot": "check_04_snapshot",
    "check_03_masked_copy": "check_04_masked_copy",
    "check_03_backup": "check_04_backup",
    "check_03_data_gradient": "check_04_data_gradient",
    # 04_graphs_and_leaves -> 05_graphs_and_leaves
    "check_04_leaves": "check_05_leaves",
    "check_04_node_names": "check_05_node_names",
    "check_04_surviving_grads": "check_05_surviving_grads",
    "check_04_gradient_by_hand": "check_05_gradient_by_hand",
    "check_04_build_graph": "check_05_build_graph",
    "check_04_find_leaves": "check_05_find_leaves",
    "check_04_fix_retain_grad": "check_05_fix_retain_grad",
    # 05_gradient_accumulation -> 06_gradient_accumulation
    "check_05_predict_grad": "check_06_predict_grad",
    "check_05_second_backward": "check_06_second_backward",
    "check_05_micro_batches": "check_06_micro_batches",
    "check_05_train_loop": "check_06_train_loop",
    "check_05_two_losses": "check_06_two_losses",
    "check_05_vjp": "check_06_vjp",
    # 06_turning_gradients_off -> 07_turning_gradients_off
    "check_06_predict_requires_grad": "check_07_predict_requires_grad",
    "check_06_evaluate": "check_07_evaluate",
    "check_06_freeze_first_layer": "check_07_freeze_first_layer",
    "check_06_fix_leaf_update": "check_07_fix_leaf_update",
    "check_06_fix_saved_tensor": "check_07_fix_saved_tensor",
    "check_06_predict_errors": "check_07_predict_errors",
    # 07_autograd_grad_and_checking -> 08_autograd_grad_and_checking
    "check_07_predict_grad": "check_08_predict_grad",
    "check_07_derivatives": "check_08_derivatives",
    "check_07_numerical_grad": "check_08_numerical_grad",
    "check_07_float32_eps": "check_08_float32_eps",
    "check_07_retain_graph": "check_08_retain_graph",
    # 08_inside_the_engine -> 09_inside_the_engine
    "check_08_next_functions": "check_09_next_functions",
    "check_08_backward_order": "check_09_backward_order",
    "check_08_topological_order": "check_09_topological_order",
    "check_08_cube": "check_09_cube",
    "check_08_sigmoid": "check_09_sigmoid",
    "check_08_multiply": "check_09_multiply",
    # 09_training_loop -> 11_training_loop
    "check_09_predict_sgd_step": "check_11_predict_sgd_step",
    "check_09_sgd_by_hand": "check_11_sgd_by_hand",
    "check_09_training_loop": "check_11_training_loop",
    "check_09_predict_without_graph": "check_11_predict_without_graph",
    "check_09_fixed_loop": "check_11_fixed_loop",
}

def new_notebook_of(checker_name: str, old_slug: str) -> str:
    """The slug of the new notebook that holds ``checker_name`` (a new name), among the
    notebooks ``old_slug``'s exercises went to."""
    number = checker_name.split("_")[1]
    return next(slug for slug in OLD_NOTEBOOKS[old_slug] if slug.startswith(number + "_"))


def old_checkers(old_slug: str) -> list[str]:
    """The checkers an old exercise notebook called (old names), in order."""
    number = old_slug[:2]
    return [name for name in RENAMED_CHECKERS if name.split("_")[1] == number]


def notice(old_slug: str) -> str:
    """What an old notebook says when it imports its checkers."""
    places = " and ".join(f"exercises/{slug}.ipynb" for slug in OLD_NOTEBOOKS[old_slug])
    return (f"Note: this notebook, exercises/{old_slug}.ipynb, is from an earlier edition of the "
            f"course. Its exercises are now in {places}: `make workspace` creates "
            f"{'them' if len(OLD_NOTEBOOKS[old_slug]) > 1 else 'it'} with the answers you "
            f"wrote here. This notebook is kept as you left it, and its checks still work.")


def _alias(old_name: str, new_name: str, old_slug: str):
    """The checker ``new_name`` under its old name: an old notebook's check cell calls
    ``old_name``, so that is the name the check judges its answer cell by."""
    module_name = CHECKER_MODULES[new_notebook_of(new_name, old_slug)]

    def check(answer):
        stale = stale_answer(old_name)
        if stale is not None:
            return not_checked(stale)
        return getattr(importlib.import_module(module_name), new_name)(answer)

    check.__name__ = check.__qualname__ = old_name
    check.__doc__ = f"{old_name} of an earlier edition: {new_name} in {module_name}."
    return check


class _OldModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds a module of an old name: one of ``MOVED_MODULES``, or
    ``exercises.checks_<old slug>`` of the earlier edition, made from the new checkers."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED_MODULES or (fullname.startswith(MODULE_PREFIX)
                                         and fullname[len(MODULE_PREFIX):] in OLD_NOTEBOOKS):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None  # the default module

    def exec_module(self, module):
        if module.__name__ in MOVED_MODULES:
            # The import system hands out what sys.modules holds once this returns: the
            # module of the new name itself, not a copy (its checkers, its registry).
            sys.modules[module.__name__] = importlib.import_module(MOVED_MODULES[module.__name__])
            return
        old_slug = module.__name__[len(MODULE_PREFIX):]
        module.__doc__ = f"The checkers of exercises/{old_slug}.ipynb, an earlier edition."
        for old_name in old_checkers(old_slug):
            setattr(module, old_name, _alias(old_name, RENAMED_CHECKERS[old_name], old_slug))
        print(notice(old_slug))


_FINDER = _OldModules()


def install() -> None:
    """Let notebooks import the old module names (once; before other finders, so that
    another checkout's old file is never picked up instead)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
