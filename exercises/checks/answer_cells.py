"""Which answer a check judges, and whether that answer's cell ran without an error.

A check cell such as ``check_04_snapshot((w, snapshot))`` must judge the answer the learner
sees in the cell above, never a value left over from an earlier run. So before a checker
looks at an answer, ``stale_answer(name)`` asks the kernel's log of cell runs:

- did the answer cell run at all in this kernel? If not: "run the answer cell above first";
- did its last run raise an error? Then: "the answer cell above raised an error: fix it";
- did another cell rebind one of the answer's names since? Then: "run the answer cell again".

The log comes from IPython's events: ``pre_run_cell`` says which cell starts (its source,
and its id when the front end sends one: JupyterLab does, nbclient and nbval do not) and
``post_run_cell`` whether it succeeded. Which names a cell bound is read from its source
(assignments, ``def``, ``import``, ``for`` ...) and from the namespace (a name whose object
changed).

Finding the answer cell: in the course's notebooks each answer cell has the id
``answer_NN_name`` and its check cell ``check_NN_name``, after the checker
``check_NN_name`` (``course_tools/generate.py`` keeps them so). When the front end sends ids,
the answer cell is found by its id. Otherwise (nbclient, nbval, another front end, an older
copy of a notebook) it is the latest cell that bound one of the names the check is given,
unless a check of another exercise judged those names after it ran (the value is then that
exercise's answer, not this one's).

An edit of the answer cell that was never run is invisible to the kernel. In JupyterLab the
course's extension (course_tools/labextension/) sends the answer cell's current text with each
check, and a check whose answer cell changed since it ran says so. (In the browser edition,
`make site`, the Pyodide kernel does not pass the request's metadata on to IPython: it is
read from the kernel instead.) Elsewhere the check judges
the answer cell as it last ran.

Outside IPython (plain Python, the tests) there is no log and every answer is judged.
"""
from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field

from exercises.checks.feedback import not_checked
from exercises.checks.i18n import N_, _

__all__ = ["CellLog", "checkers_called", "install", "names_in_check_call", "stale_answer"]

CHECKER_NAME = re.compile(r"check_\d\d_\w+")


def checkers_called(source: str) -> tuple:
    """The checkers a cell calls, in order (``check_04_snapshot((w, snapshot))`` gives
    ("check_04_snapshot",)); none for any other cell, an import of checkers included, or a
    cell that does not parse (it cannot have called one)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    return tuple(node.func.id for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                 and CHECKER_NAME.fullmatch(node.func.id))


@dataclass(eq=False)  # two runs of the same source are still two runs
class CellRun:
    """One run of one cell: its id (None when the front end sends none), its source,
    whether it finished without an error (None while it runs), and the names it bound."""

    cell_id: str | None
    source: str
    succeeded: bool | None = None
    error_name: str = ""
    bound: frozenset = field(default_factory=frozenset)
    judged: dict = field(default_factory=dict)  # checker -> the names it judged in this run
    answer_source_now: str | None = None  # a check cell's answer cell, as the front end has it
    checkers: tuple = ()  # the checkers the cell calls (a check cell calls one)

    def __post_init__(self):
        self.checkers = checkers_called(self.source)

    @property
    def is_check(self) -> bool:
        return bool(self.checkers)


# --- reading sources ---------------------------------------------------------------------

_ASSIGNED_NAME = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::[^=\n]*)?"
                            r"(?:[-+*/%&|^@]|//|\*\*|>>|<<)?=(?!=)", re.MULTILINE)
_DEFINED_NAME = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)", re.MULTILINE)


def names_bound_by(source: str) -> frozenset:
    """The top-level names a cell's source assigns, defines or imports. A source that does
    not parse (the cell raised a SyntaxError) is read line by line instead."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        names = set(_DEFINED_NAME.findall(source))
        for group in _ASSIGNED_NAME.findall(source):
            names.update(part.strip() for part in group.split(","))
        return frozenset(names)
    collector = _CellNames()
    collector.visit(tree)
    return frozenset(collector.names)


class _CellNames(ast.NodeVisitor):
    """The names a cell binds in the notebook's namespace: not the local names of the
    functions, classes, lambdas and comprehensions it contains."""

    def __init__(self):
        self.names = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.names.add(node.id)

    def visit_FunctionDef(self, node):
        self.names.add(node.name)  # its body is a scope of its own

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node):
        pass

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_Lambda

    def visit_Import(self, node):
        for alias in node.names:
            self.names.add((alias.asname or alias.name).split(".")[0])

    visit_ImportFrom = visit_Import


def names_in_check_call(source: str, checker_name: str) -> frozenset:
    """The names a check cell passes to ``checker_name`` (``check_04_snapshot((w, snapshot))``
    gives w and snapshot), leaving out names the check cell binds itself."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset()
    used = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == checker_name):
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                used.update(n.id for n in ast.walk(argument)
                            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    return frozenset(used - names_bound_by(source))


# --- the log -----------------------------------------------------------------------------

_IPYTHON_NAMES = {"In", "Out", "get_ipython", "exit", "quit", "open"}


def _identities(namespace) -> dict:
    return {name: id(value) for name, value in namespace.items()
            if not name.startswith("_") and name not in _IPYTHON_NAMES}


def _pyodide_request_metadata() -> dict:
    """The metadata of the request that runs the cell, in the course's browser edition
    (Pyodide, `make site`): its kernel does not hand IPython the cell's id and metadata, but
    keeps the request it is answering. Elsewhere, or when it cannot be read: {}."""
    if sys.platform != "emscripten":
        return {}
    try:
        from IPython import get_ipython

        metadata = get_ipython().kernel._parent_header.get("metadata")
        return dict(metadata) if metadata else {}
    except Exception:  # noqa: BLE001 - another kernel: no metadata, the usual fallback
        return {}


class CellLog:
    """Every cell run in this kernel since the checkers were imported, oldest first."""

    def __init__(self, namespace=None):
        self.runs: list[CellRun] = []
        self.namespace = namespace if namespace is not None else {}
        self._before: dict = {}

    # IPython calls these two around every cell it runs (not around silent runs).
    def pre_run_cell(self, info) -> None:
        self._before = _identities(self.namespace)
        cell_id = getattr(info, "cell_id", None)
        # Sent by the course's JupyterLab extension (course_tools/labextension/) with a check.
        request = getattr(info, "cell_meta", None) or {}
        if cell_id is None and not request:
            request = _pyodide_request_metadata()
            cell_id = request.get("cellId") if isinstance(request.get("cellId"), str) else None
        run = CellRun(cell_id, info.raw_cell or "")
        if isinstance(request.get("answerCellSource"), str):
            run.answer_source_now = request["answerCellSource"]
        self.runs.append(run)

    def post_run_cell(self, result) -> None:
        if not self.runs or self.runs[-1].succeeded is not None:
            return  # the cell that installed the log: its start was not seen
        run = self.runs[-1]
        error = result.error_before_exec or result.error_in_exec
        run.succeeded = error is None
        run.error_name = type(error).__name__ if error is not None else ""
        now = _identities(self.namespace)
        changed = {name for name, identity in now.items() if self._before.get(name) != identity}
        changed |= self._before.keys() - now.keys()
        run.bound = frozenset(changed | names_bound_by(run.source))

    @property
    def running(self) -> CellRun | None:
        """The cell that runs now (the check cell, when a checker asks)."""
        if self.runs and self.runs[-1].succeeded is None:
            return self.runs[-1]
        return None

    def find_answer(self, checker_name: str, names: frozenset) -> CellRun | None:
        """The run of the answer cell a check of ``checker_name`` judges, or None."""
        check = self.running
        earlier = self.runs[:-1] if check is not None else self.runs
        answer_id = "answer_" + checker_name.removeprefix("check_")
        if check is not None and check.cell_id == checker_name:
            for run in reversed(earlier):  # the course's notebook, ids sent: find it by id
                if run.cell_id == answer_id:
                    return run
            return None
        for position in range(len(earlier) - 1, -1, -1):
            run = earlier[position]
            if run.is_check or not run.bound & names:
                continue
            for later in earlier[position + 1:]:
                for other, judged in later.judged.items():
                    if other != checker_name and judged & names:
                        return None  # another exercise's check judged these names since
            return run
        return None


_LOG: CellLog | None = None


def install(shell=None) -> CellLog | None:
    """Start the log in this IPython kernel (once); None outside IPython."""
    global _LOG
    if shell is None:
        ipython = sys.modules.get("IPython")  # not imported: not in IPython
        shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return None
    if _LOG is not None and _LOG.namespace is shell.user_ns:
        return _LOG
    _LOG = CellLog(shell.user_ns)
    shell.events.register("pre_run_cell", _LOG.pre_run_cell)
    shell.events.register("post_run_cell", _LOG.post_run_cell)
    _install_name_error_message(shell)
    return _LOG


# --- what a check says instead of judging ------------------------------------------------

# In English; stale_answer says them in the notebook's language (i18n.py).
RUN_FIRST = N_("run the answer cell above first, then run this check again.")
FIX_FIRST = N_("the answer cell above raised an error ({error}): fix it and run it without an "
               "error, then run this check again.")
RUN_AGAIN = N_("{name} was changed by another cell after the answer cell ran: run the answer "
               "cell above again, then this check.")
EDITED = N_("the answer cell above was changed after it last ran: run it, then run this check "
            "again.")
NOT_DEFINED = N_("{name} is not defined yet: run the answer cell above first, then run this "
                 "check again.")


def stale_answer(checker_name: str) -> str | None:
    """Why a check of ``checker_name`` cannot judge the answer now, or None when it can."""
    log = _LOG
    check = log.running if log is not None else None
    if check is None or checker_name not in check.checkers:
        return None  # not called from a check cell of a logged kernel: judge what is given
    names = names_in_check_call(check.source, checker_name)
    answer = log.find_answer(checker_name, names)
    if answer is None:
        if names or check.cell_id == checker_name:
            return _(RUN_FIRST)
        return None
    if (check.answer_source_now is not None
            and check.answer_source_now.strip() != answer.source.strip()):
        return _(EDITED)
    if not answer.succeeded:
        return _(FIX_FIRST, error=answer.error_name or _("an error"))
    position = next(i for i, run in enumerate(log.runs) if run is answer)
    for later in log.runs[position + 1:-1]:
        changed = later.bound & names & answer.bound
        if changed and not later.is_check:
            return _(RUN_AGAIN, name=sorted(changed)[0])
    check.judged[checker_name] = names
    return None


# --- a check cell whose answer is not defined yet ---------------------------------------

def _install_name_error_message(shell) -> None:
    """A check cell that names an answer not defined yet (after a kernel restart, say) shows
    a kind "run the answer cell first" box instead of a NameError traceback. Every other
    error goes to the handler that was there before, or to IPython's usual traceback."""
    previous_types = tuple(shell.custom_exceptions)
    previous_handler = shell.CustomTB if previous_types else None

    def handler(self, etype, value, tb, tb_offset=None):
        check = _LOG.running if _LOG is not None else None
        if issubclass(etype, NameError) and check is not None and check.is_check:
            from IPython.display import display  # here only: the workspace tool has no IPython

            name = getattr(value, "name", None) or _("an answer")
            display(not_checked(_(NOT_DEFINED, name=name)))
            return []
        if previous_handler is not None and issubclass(etype, previous_types):
            previous_handler(etype, value, tb, tb_offset)
            return []
        self.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
        return []

    shell.set_custom_exc(previous_types + (NameError,), handler)
