"""Runs one submitted exercise notebook inside the sandbox and judges it with the course's own
checkers (``python runner.py COURSE_ROOT`` with the job as JSON on stdin).

The job lists the cells to run in order: the course's own cells (the imports and set-up the
exercise notebook has), the submission's answer cells in their places, and the course's own
check cells. What is printed does not count: each check's verdict comes from calling the
course's checker (imported here before any submitted code ran), and is written as one JSON
line to the results channel (the original standard output, kept apart from the submission's
prints, which go to standard error). A line is written as soon as its exercise is judged, so
whatever ends the process early keeps the verdicts already given.

Before each verdict the runner checks that nothing it relies on changed: the functions and
classes of the engine, the checkers, numpy and builtins (a patch, a reload or a redefinition
of any of them gets the exercise no credit, and every later exercise is left ungraded).

This file is run as a script in a fresh interpreter, standard library and the course only.
"""
from __future__ import annotations

import ast
import builtins
import ctypes
import io
import json
import os
import random
import re
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
import types

COURSE_ROOT = sys.argv[1] if __name__ == "__main__" and len(sys.argv) > 1 else None
if COURSE_ROOT:  # the course is imported from where the grader says, read-only in the sandbox
    sys.path.insert(0, COURSE_ROOT)

# The course's engine and checkers, imported before any submitted code runs.
import numpy  # noqa: E402  (after the course's root is on sys.path)

import engine  # noqa: E402
from exercises.checks.i18n import ENGLISH, LANGUAGES, VARIABLE, translate  # noqa: E402
from exercises.checks.toolkit import CHECKERS, Feedback, discover  # noqa: E402

# A verdict printed by an answer (to look like a check's), in either edition's words.
VERDICT_PRINTED = re.compile(r"(✅|⏳|❌)\s*(" + "|".join(sorted(
    {translate(word, chosen) for word in ("Correct", "Not done yet", "Not quite")
     for chosen in LANGUAGES})) + ")")
OUTPUT_KEPT = 2000  # characters of a cell's printed output kept for the feedback


class CellTimeout(BaseException):
    """A cell used more CPU time than the per-cell limit (BaseException: an answer's `except
    Exception` does not swallow it). CPU time, not wall-clock time: the verdict must not
    depend on how busy the machine is. A cell that waits (sleep) is stopped by the notebook's
    wall-clock limit, in the grader."""


def _alarm(signum, frame):
    raise CellTimeout()


def drop_privileges() -> None:
    """As root, become nobody: the process limit (RLIMIT_NPROC) binds only a user other than
    root, and nobody owns nothing it could write."""
    if os.getuid() == 0:
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)


def become_subreaper() -> None:
    """Orphans of the notebook's processes come back to this process (prctl's
    PR_SET_CHILD_SUBREAPER), so that ``end_children`` finds every one of them."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _children() -> list[int]:
    me, found = os.getpid(), []
    for stat in os.listdir("/proc"):
        if not stat.isdigit():
            continue
        try:
            with open(f"/proc/{stat}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            found.append(int(stat))
    return found


def end_children() -> None:
    """Stop, then kill, every process a cell left behind (a fork bomb's included): stopped
    first, so that none forks again while the others are killed."""
    for _round in range(50):
        children = _children()
        if not children:
            return
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in children:
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
        for pid in children:
            try:
                os.waitpid(pid, 0)  # killed: reaped at once (a zombie still counts as a process)
            except OSError:
                pass


def set_limits(limits: dict) -> None:
    for name, value in (("RLIMIT_AS", limits.get("memory")), ("RLIMIT_CPU", limits.get("cpu")),
                        ("RLIMIT_NPROC", limits.get("processes")),
                        ("RLIMIT_FSIZE", limits.get("file_size"))):
        if value:
            which = getattr(resource, name)
            hard = value + 2 if name == "RLIMIT_CPU" else value  # SIGXCPU first, then SIGKILL
            resource.setrlimit(which, (value, hard))


def watched_modules() -> list[types.ModuleType]:
    prefixes = ("engine", "exercises", "numpy")
    return [module for name, module in list(sys.modules.items())
            if isinstance(module, types.ModuleType)
            and (name == "builtins" or name.split(".")[0] in prefixes)]


def snapshot(known: dict | None = None) -> dict:
    """(module, name[, attribute]) -> identity of every function and class of the watched
    modules, their classes' methods and their functions' code; ``known`` is extended (new
    modules imported by the course's own cells) and never overwritten."""
    seen = {} if known is None else known
    for module in watched_modules():
        mname = module.__name__
        for name, value in list(vars(module).items()):
            if not (callable(value) or isinstance(value, type)):
                continue
            seen.setdefault((mname, name), id(value))
            code = getattr(value, "__code__", None)
            if code is not None:
                seen.setdefault((mname, name, "__code__"), id(code))
            wrapped = getattr(value, "__wrapped__", None)  # the checkers are wrapped
            if getattr(wrapped, "__code__", None) is not None:
                seen.setdefault((mname, name, "__wrapped__"), id(wrapped.__code__))
            if isinstance(value, type) and getattr(value, "__module__", "") == mname:
                for attribute, member in list(vars(value).items()):
                    if callable(member) or isinstance(member, (property, staticmethod,
                                                               classmethod)):
                        seen.setdefault((mname, name, attribute), id(member))
    return seen


def changed(known: dict) -> list[str]:
    now = snapshot()
    if known.items() <= now.items():  # nothing changed (the usual case: a C-level comparison)
        return []
    return sorted(".".join(key) for key, identity in known.items()
                  if key in now and now[key] != identity
                  or key not in now and key[0] in sys.modules)


def run_cell(source: str, namespace: dict, cell_seconds: float):
    """Run a cell as IPython would (its last expression's value returned); returns
    (value, error text or None, printed text)."""
    printed = io.StringIO()
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = printed
    value, error = None, None
    signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, cell_seconds)
    try:
        tree = ast.parse(source)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, "<cell>", "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
    except CellTimeout:
        error = f"the cell ran longer than {cell_seconds:g} s of CPU time and was stopped"
    except MemoryError:
        error = "the cell ran out of memory (MemoryError)"
    except SystemExit:
        error = "the cell called exit()"
    except BaseException as exc:  # noqa: BLE001 - any error of the answer is its verdict
        frames = traceback.extract_tb(exc.__traceback__)
        line = next((f.lineno for f in reversed(frames) if f.filename == "<cell>"), None)
        where = f" (line {line})" if line else ""
        error = f"{type(exc).__name__}{where}: {exc}"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        sys.stdout, sys.stderr = stdout, stderr
        end_children()
    return value, error, printed.getvalue()


def main() -> int:
    discover()
    if "--serve" in sys.argv[2:]:
        return serve()
    return run_job(json.loads(sys.stdin.read()))


def run_job(job: dict) -> int:
    """Run one notebook's job in this process (a fresh interpreter, or a child forked from the
    server before any answer ran in it)."""
    # The results channel is the original standard output; what the notebook prints goes to
    # standard error (a file the grader reads only up to a size).
    results = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    # The notebook's own folder, the only place it may write (in the sandbox, /tmp itself is
    # root's): home, temporary files and matplotlib's cache go there.
    workdir = job.get("workdir") or tempfile.mkdtemp(prefix="job-")
    if job.get("drop_privileges") and os.getuid() == 0:
        os.chown(workdir, 65534, 65534)
    os.chdir(workdir)
    for variable in ("HOME", "TMPDIR", "MPLCONFIGDIR"):
        os.environ[variable] = workdir
    # The verdicts in the student's edition's language (i18n reads it at each message; the
    # folder the notebook runs in is a temporary one, which names no edition).
    os.environ[VARIABLE] = job.get("language") if job.get("language") in LANGUAGES else ENGLISH
    tempfile.tempdir = workdir

    def report(**entry):
        results.write(json.dumps(entry, ensure_ascii=False) + "\n")
        results.flush()

    checkers = dict(CHECKERS)
    feedback_class = Feedback
    if job.get("drop_privileges"):
        drop_privileges()
    become_subreaper()
    set_limits(job.get("limits", {}))
    random.seed(0)
    numpy.random.seed(0)
    engine.manual_seed(0)
    known = snapshot()
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    cell_seconds = float(job.get("limits", {}).get("cell_seconds") or 30)
    broken = None  # what changed the course's code, once something did
    pending = {}  # exercise -> the answer cell's (error, printed text)
    for cell in job["cells"]:
        kind, exercise = cell["kind"], cell.get("exercise")
        if broken is not None:
            if kind == "check":
                report(exercise=exercise, checker=cell["checker"], status="ungraded",
                       message=f"not graded: {broken}", flags=[])
            continue
        if kind == "check":
            name = cell["checker"]
            error, printed = pending.pop(exercise, (None, ""))
            flags = []
            if VERDICT_PRINTED.search(printed):
                flags.append("printed a verdict itself")
            for checker_name in checkers_in(cell["source"]):  # the course's, whatever was bound
                if namespace.get(checker_name) is not checkers.get(checker_name):
                    if checker_name in namespace:
                        flags.append(f"redefined {checker_name}")
                    namespace[checker_name] = checkers.get(checker_name)
            altered = changed(known)  # by an answer, or a course cell calling an answer
            if altered:
                broken = (f"the course's code was changed by the answers "
                          f"({', '.join(altered[:3])}{', ...' if len(altered) > 3 else ''})")
                report(exercise=exercise, checker=name, status="tampered",
                       message=f"no credit: {broken}", flags=flags + ["patched the course"])
                continue
            if cell.get("missing"):
                report(exercise=exercise, checker=name, status="missing",
                       message="no answer cell for this exercise in the notebook", flags=flags)
                continue
            if error is not None:
                report(exercise=exercise, checker=name, status="error",
                       message=f"the answer cell raised an error: {error}", flags=flags,
                       output=printed[:OUTPUT_KEPT])
                continue
            value, check_error, _ = run_cell(cell["source"], namespace, cell_seconds)
            altered = changed(known)  # by an answer's function the checker called
            if altered:
                broken = (f"the course's code was changed by the answers "
                          f"({', '.join(altered[:3])}{', ...' if len(altered) > 3 else ''})")
                report(exercise=exercise, checker=name, status="tampered",
                       message=f"no credit: {broken}", flags=flags + ["patched the course"])
                continue
            if check_error is not None or type(value) is not feedback_class:
                report(exercise=exercise, checker=name, status="error",
                       message=f"the check could not judge the answer: {check_error or value!r}",
                       flags=flags)
                continue
            report(exercise=exercise, checker=name, status=value.status,
                   message=str(value), flags=flags, output=printed[:OUTPUT_KEPT])
        else:
            _value, error, printed = run_cell(cell["source"], namespace, cell_seconds)
            if kind == "answer":
                pending[exercise] = (error, printed)
            if kind == "course":
                snapshot(known)  # the course's own cells may import more of the course
    usage = resource.getrusage(resource.RUSAGE_SELF)
    report(done=True, cpu=usage.ru_utime + usage.ru_stime)
    return 0


def serve() -> int:
    """Grade job after job, each in a child forked from this process, which imported the
    engine and the checkers once (``sandbox.Server``; the import is most of a notebook's CPU
    time). No answer ever runs here: each child starts from the state right after the import,
    in a fresh working folder (removed after it), with its own limits, and whatever it leaves
    running is killed before the next job. Requests and replies are JSON lines:
    ``{"id": n, "job": {...}}`` in; ``{"id": n, "line": "<the child's result line>"}`` and
    finally ``{"id": n, "end": true, "returncode": ..., "printed": bytes}`` out."""
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    become_subreaper()  # a child's orphans come back here, to be killed after its job
    private = tempfile.mkdtemp(prefix=".server-")  # the printed output: not the child's to read
    for request_line in sys.stdin:
        request = json.loads(request_line)
        number, job = request["id"], request["job"]
        limits = job.get("limits", {})
        workdir = tempfile.mkdtemp(prefix="job-")
        if job.get("drop_privileges") and os.getuid() == 0:
            os.chown(workdir, 65534, 65534)
        job["workdir"] = workdir
        printed_path = os.path.join(private, f"printed-{number}")
        printed = os.open(printed_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: results to the pipe, prints to the file, nothing else open
            code = 1
            try:
                os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
                os.dup2(write_end, 1)
                os.dup2(printed, 2)
                os.closerange(3, 1 << 16)
                code = run_job(job)
            finally:
                os._exit(code)
        os.close(write_end)
        os.close(printed)
        returncode, kept = _watch(pid, read_end, number, replies, limits)
        end_children()
        os.close(read_end)
        shutil.rmtree(workdir, ignore_errors=True)
        size = os.path.getsize(printed_path)
        os.unlink(printed_path)
        replies.write(json.dumps({"id": number, "end": True, "returncode": returncode,
                                  "printed": size}) + "\n")
    return 0


def _watch(pid: int, read_end: int, number: int, replies, limits: dict):
    """Pass the child's result lines on until it ends or its wall-clock time is up; its
    return code (None: killed at the wall-clock limit; -N: killed by signal N)."""
    deadline = time.monotonic() + float(limits.get("wall") or 300)
    cap = 4 * int(limits.get("file_size") or 2**21)
    buffer, kept, status = b"", 0, None
    while True:
        if status is None:
            done, raw_status = os.waitpid(pid, os.WNOHANG)
            if done:
                status = raw_status
                end_children()  # what it left holding the pipe open
        remaining = deadline - time.monotonic()
        if status is None and remaining <= 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            end_children()
            status = "timeout"
        ready, _, _ = select.select([read_end], [], [], 0 if status else min(remaining, 0.5))
        if not ready:
            if status is not None:
                break
            continue
        chunk = os.read(read_end, 65536)
        if not chunk:
            if status is None:
                _, status = os.waitpid(pid, 0)
            break
        if kept < cap:
            kept += len(chunk)
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                replies.write(json.dumps({"id": number,
                                          "line": line.decode("utf-8", "replace")}) + "\n")
    if status == "timeout":
        return None, kept
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status), kept
    return os.WEXITSTATUS(status), kept


CHECKER_CALL = re.compile(r"\bcheck_\d\d_\w+")


def checkers_in(source: str) -> list[str]:
    return sorted(set(CHECKER_CALL.findall(source)))


if __name__ == "__main__":
    sys.exit(main())
