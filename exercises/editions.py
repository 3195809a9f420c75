"""Earlier editions of the course: which exercise notebooks and checkers were renamed.

The second edition split lesson 2 in two (``02_shapes_indexing_broadcasting`` and
``03_views_copies_inplace``) and moved the lessons after it up one (``03_copying`` became
``04_copying``, ... and ``09_training_loop`` became ``11_training_loop``; 10 is kept for a
lesson on debugging gradients). A learner's workspace made before holds exercise notebooks
under the old names, with their answers. Two things keep that work:

- ``make workspace`` (exercises/workspace.py) never changes or removes the old notebooks. It
  creates each new exercise notebook the workspace lacks with the learner's answers from the
  old ones filled in (``RENAMED_CHECKERS`` says which old exercise is which new one), and
  says which old notebook went where.
- An old notebook opened again still runs: its first cell,
  ``from exercises.checks_03_copying import check_03_snapshot, ...``, finds a module of the
  old name (made here, ``install``), whose checkers are the new ones under their old names,
  and which first prints where the exercises are now.

This module is the one place that knows the old names. Standard library only (workspace.py
runs without the course's environment); the checkers are imported when first called.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

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

PACKAGE = "exercises"
MODULE_PREFIX = f"{PACKAGE}.checks_"


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
    module_name = MODULE_PREFIX + new_notebook_of(new_name, old_slug)

    def check(answer):
        from exercises.answer_cells import stale_answer
        from exercises.checks import not_checked

        stale = stale_answer(old_name)
        if stale is not None:
            return not_checked(stale)
        return getattr(importlib.import_module(module_name), new_name)(answer)

    check.__name__ = check.__qualname__ = old_name
    check.__doc__ = f"{old_name} of an earlier edition: {new_name} in {module_name}."
    return check


class _OldModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``exercises.checks_<old slug>`` and makes it from the new checkers."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith(MODULE_PREFIX) and fullname[len(MODULE_PREFIX):] in OLD_NOTEBOOKS:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None  # the default module

    def exec_module(self, module):
        old_slug = module.__name__[len(MODULE_PREFIX):]
        module.__doc__ = f"The checkers of exercises/{old_slug}.ipynb, an earlier edition."
        for old_name in old_checkers(old_slug):
            setattr(module, old_name, _alias(old_name, RENAMED_CHECKERS[old_name], old_slug))
        print(notice(old_slug))


_FINDER = _OldModules()


def install() -> None:
    """Let old notebooks import the old module names (once; before other finders, so that
    another checkout's old file is never picked up instead)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
