"""Where a submitted notebook runs: its own process, in bubblewrap when it is there.

With bubblewrap (Debian's ``bubblewrap``, ``bwrap``): no network and no other namespace shared
with the machine (``--unshare-all``), the notebook's own folder in a private ``/tmp`` (a
size-capped tmpfs) as the only place to write, the system's programs and the course's Python
read-only, and of the course only what a learner's kernel imports (``engine/``,
``exercises/``) and the lessons, read-only: never ``solutions/``, ``tests/``, the other
submissions or the grader's output. As root, the notebook runs as nobody, so that the process
limit holds.

Always, bubblewrap or not: limits on CPU time (per notebook, RLIMIT_CPU; per cell, a CPU-time
timer in the runner), memory (RLIMIT_AS), processes (RLIMIT_NPROC), the size of any file written
(RLIMIT_FSIZE: the notebook's printed output is such a file), and a wall-clock limit after
which the whole process tree is killed.

``Server``: one sandbox per worker whose runner imported the course once and forks a child
per notebook (``runner.serve``); ``run`` without a server starts a fresh interpreter.

Without bubblewrap the run goes on with those limits only, and ``warning()`` says what is
not contained: the notebook can read what the grader's user can read (the solutions, the
other submissions), write where that user can write, and use the network.
"""
from __future__ import annotations

import dataclasses
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from course_tools.notebook_files import ROOT

RUNNER = Path(__file__).resolve().parent / "runner.py"
# What a learner's kernel imports from the course, and the lessons: all read-only.
COURSE_VISIBLE = ("engine", "exercises", "notebooks")


@dataclasses.dataclass(frozen=True)
class Limits:
    cell_seconds: float = 30.0  # CPU time of one cell (its check is a cell too)
    cpu_seconds: int = 120  # CPU time of one notebook
    wall_seconds: float = 300.0  # wall-clock time of one notebook, start-up included
    memory: int = 3 * 2**30  # address space (RLIMIT_AS); the engine with numpy needs ~1 GB
    processes: int = 64  # RLIMIT_NPROC (processes and threads of the sandbox's user)
    output: int = 2 * 2**20  # bytes of printed output and of any file written
    tmp: int = 64 * 2**20  # bytes of the private /tmp

    def for_runner(self) -> dict:
        return {"cell_seconds": self.cell_seconds, "cpu": self.cpu_seconds,
                "wall": self.wall_seconds,
                "memory": self.memory, "processes": self.processes,
                "file_size": self.output}


def bwrap() -> str | None:
    return shutil.which("bwrap")


def bwrap_problem() -> str | None:
    """None when bubblewrap can make its sandbox here, as this user; else why not."""
    path = bwrap()
    if path is None:
        return ("bubblewrap (bwrap) is not installed (Debian/Ubuntu: sudo apt-get install "
                "bubblewrap)")
    try:
        tried = subprocess.run([path, "--ro-bind", "/", "/", "--unshare-all", "true"],
                               capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{path} could not be run ({error})"
    if tried.returncode == 0:
        return None
    said = tried.stderr.decode("utf-8", errors="replace").strip().splitlines()[-1:]
    if os.getuid() == 0:
        return f"{path} failed as root ({': '.join(said) or f'exit code {tried.returncode}'})"
    # Without root (and a bwrap that is not setuid root), bwrap makes a user namespace first.
    return (f"{path} cannot make its sandbox as this user (uid {os.getuid()}): "
            f"{''.join(said) or f'exit code {tried.returncode}'}. Without root, bubblewrap "
            "needs unprivileged user namespaces: Debian's kernel.unprivileged_userns_clone=1, "
            "user.max_user_namespaces above 0, on Ubuntu 23.10+ an AppArmor profile that "
            "allows bwrap (kernel.apparmor_restrict_unprivileged_userns), in a container a "
            "runtime that allows them; or grade as root (the notebooks then run as nobody)")


def bwrap_works() -> bool:
    return bwrap_problem() is None


def warning(problem: str | None = None) -> str:
    why = problem or "bubblewrap (bwrap) is not available"
    return (f"warning: {why}. So the submissions run without isolation: only the limits on "
            "CPU time, memory, processes and output hold. A notebook can read what you can "
            "read (the solutions, the other submissions), write where you can write, and use "
            "the network. Make bubblewrap work (Debian/Ubuntu: sudo apt-get install "
            "bubblewrap) and grade again.")


class SandboxError(RuntimeError):
    """The grader cannot start the course's Python where the notebooks would run: grading
    would give every notebook zero for the grader's own fault, so nothing is graded."""


def _python(root: Path = ROOT) -> tuple[str, list[str]]:
    """The interpreter to run (the course's venv, by its real path, so that the venv is found
    from it) and the folders it needs, to be bound read-only: its prefix and base prefix, and
    any other package folder on its path (``site-packages`` or ``dist-packages``, added by a
    ``.pth`` file: a teacher's environment that takes numpy from elsewhere), never the
    course's folder or one above it (that would show the solutions)."""
    prefix, base = Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()
    executable = prefix / "bin" / "python"
    if not executable.exists():
        executable = Path(sys.executable).resolve()
    folders = {str(prefix), str(base)}
    root = Path(root).resolve()
    for entry in sys.path:
        # bound where the path says (a .pth file may name it through a symlink), after
        # checking where it really is
        path, real = Path(os.path.abspath(entry or ".")), Path(entry or ".").resolve()
        if path.name in ("site-packages", "dist-packages") and path.is_dir() and not any(
                place == root or place in root.parents for place in (path, real)):
            folders.add(str(path))
    return str(executable), sorted(folders)


def command(root: Path = ROOT, *, isolate: bool, tmp: int = Limits.tmp,
            serve: bool = False) -> list[str]:
    python, folders = _python(root)
    inner = [python, "-B", "-s", str(RUNNER), str(root)] + (["--serve"] if serve else [])
    if not isolate:
        return inner
    # As root the runner becomes nobody (RLIMIT_NPROC never binds root), which a user namespace
    # would not allow (only root is mapped there): root needs none to unshare the rest.
    unshare = (["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try"] if os.getuid() == 0 else ["--unshare-all"])
    args = [bwrap(), *unshare, "--die-with-parent", "--new-session",
            "--ro-bind", "/usr", "/usr", "--dev", "/dev", "--proc", "/proc",
            "--size", str(tmp), "--tmpfs", "/tmp", "--chdir", "/tmp",
            "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"]
    for link in ("bin", "lib", "lib64", "sbin"):
        target = Path("/") / link
        if target.is_symlink():
            args += ["--symlink", os.readlink(target), str(target)]
        elif target.is_dir():
            args += ["--ro-bind", str(target), str(target)]
    binds = [*folders, *(str(root / name) for name in COURSE_VISIBLE), str(RUNNER)]
    # bwrap makes the folders leading to a bind readable by root only: nobody, who runs the
    # notebook, must be able to walk through them (a late import, a reload).
    parents = sorted({str(parent) for bind in binds for parent in Path(bind).parents
                      if str(parent) != "/"}, key=lambda p: p.count("/"))
    for parent in parents:
        args += ["--perms", "0755", "--dir", parent]
    for bind in binds:
        args += ["--ro-bind", bind, bind]
    return args + inner


@dataclasses.dataclass
class Outcome:
    results: list  # the runner's JSON lines (dicts)
    returncode: int | None  # None: killed at the wall-clock limit
    output_size: int  # bytes the notebook printed
    seconds: float
    tail: str = ""  # the end of what was printed (a fresh interpreter's only)

    @property
    def cpu(self) -> float:
        """The runner's CPU time (start-up included), as it reported it at the end."""
        return sum(line.get("cpu", 0.0) for line in self.results if line.get("done"))


def environment() -> dict:
    keep = {key: os.environ[key] for key in ("PATH", "LANG", "LC_ALL") if key in os.environ}
    return {**keep, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1",
            "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "MPLBACKEND": "Agg", "MPLCONFIGDIR": "/tmp", "HOME": "/tmp",
            "PYTHONIOENCODING": "utf-8"}


def runner_job(job: dict, limits: Limits, isolate: bool) -> dict:
    runner_limits = limits.for_runner()
    as_root = os.getuid() == 0
    if not as_root:  # the limit counts every process of this user: allow this many more
        runner_limits["processes"] += _tasks_of(os.getuid())
    elif not isolate:
        runner_limits["processes"] = None  # root is never held by it, and stays root here
    return {**job, "limits": runner_limits, "drop_privileges": isolate and as_root}


def run(job: dict, limits: Limits, *, isolate: bool, root: Path = ROOT,
        server: Server | None = None) -> Outcome:
    """Run one notebook's job (in ``server``'s forked child when given, else in a fresh
    interpreter); whatever the notebook does, return what the runner reported."""
    job = runner_job(job, limits, isolate)
    if server is not None:
        return server.run(job, limits)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="grade-") as scratch:
        scratch = Path(scratch)
        if not isolate:
            work = scratch / "work"
            work.mkdir()
            job["workdir"] = str(work)
        results_path, printed_path = scratch / "results.jsonl", scratch / "printed.txt"
        with open(results_path, "wb") as results, open(printed_path, "wb") as printed:
            process = subprocess.Popen(command(root, isolate=isolate, tmp=limits.tmp),
                                       stdin=subprocess.PIPE, stdout=results, stderr=printed,
                                       env=environment(), cwd=str(scratch),
                                       start_new_session=True)
            try:
                process.communicate(json.dumps(job).encode("utf-8"), timeout=limits.wall_seconds)
                returncode = process.returncode
                if isolate and 128 < returncode < 128 + 65:
                    # bubblewrap exits with 128 + N when its child dies of signal N: report it
                    # as the signal, as a child of the server reports it (the CPU limit's
                    # SIGXCPU read as 'exit code 152')
                    returncode = 128 - returncode
            except subprocess.TimeoutExpired:
                returncode = None
            finally:
                _kill_group(process)
        lines = []
        with open(results_path, "rb") as results:
            for raw in results.read(limits.output * 4).splitlines():
                try:
                    lines.append(json.loads(raw.decode("utf-8")))
                except ValueError:
                    break  # a line cut short by the end of the process
        with open(printed_path, "rb") as printed:
            printed.seek(max(0, printed_path.stat().st_size - 4000))
            tail = printed.read().decode("utf-8", errors="replace")
        return Outcome(lines, returncode, printed_path.stat().st_size,
                       time.monotonic() - start, tail)


def preflight(root: Path = ROOT, *, isolate: bool, limits: Limits) -> str | None:
    """None when a notebook's process starts as the notebooks' will (the same sandbox, user
    and limits) and imports numpy, the engine and the checkers; else why not: the last lines
    it printed (an import error, bubblewrap's own message)."""
    outcome = run({"cells": []}, limits, isolate=isolate, root=root)
    if any(line.get("done") for line in outcome.results):
        return None
    said = "\n".join(outcome.tail.strip().splitlines()[-6:])
    return f"exit code {outcome.returncode}" + (f": {said}" if said else "")


class Server:
    """One sandbox whose runner imported the engine and the checkers once and forks a child
    per notebook (``runner.serve``): the same sandbox and limits for each notebook, without
    paying the import each time. One per worker thread; started on first use, and started
    again if it ever stops answering."""

    def __init__(self, root: Path = ROOT, *, isolate: bool, limits: Limits):
        self.root, self.isolate, self.limits = root, isolate, limits
        self.process: subprocess.Popen | None = None
        self.count = 0
        self.buffer = b""

    def _line(self, deadline: float) -> bytes:
        """The server's next reply line (its own buffer: select sees only the pipe)."""
        while b"\n" not in self.buffer:
            ready, _, _ = select.select([self.process.stdout], [], [],
                                        max(0.0, deadline - time.monotonic()))
            chunk = os.read(self.process.stdout.fileno(), 65536) if ready else b""
            if not chunk:
                raise OSError("the grading server stopped answering")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def _start(self) -> subprocess.Popen:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen(
                command(self.root, isolate=self.isolate, tmp=self.limits.tmp, serve=True),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                env=environment(), start_new_session=True)
        return self.process

    def run(self, job: dict, limits: Limits) -> Outcome:
        start = time.monotonic()
        process = self._start()
        self.count += 1
        number = self.count
        lines, returncode, printed = [], None, 0
        try:
            process.stdin.write((json.dumps({"id": number, "job": job}) + "\n").encode("utf-8"))
            process.stdin.flush()
            # the server enforces the notebook's wall-clock limit; this is its backstop
            deadline = start + limits.wall_seconds + 60
            while True:
                reply = json.loads(self._line(deadline))
                if reply.get("id") != number:
                    continue
                if reply.get("end"):
                    returncode, printed = reply.get("returncode"), reply.get("printed", 0)
                    break
                try:
                    lines.append(json.loads(reply["line"]))
                except ValueError:
                    pass  # a line cut short by the end of the child
        except (OSError, ValueError):
            self.close()
        return Outcome(lines, returncode, printed, time.monotonic() - start)

    def close(self) -> None:
        if self.process is not None:
            _kill_group(self.process)
            self.process = None
            self.buffer = b""


def _tasks_of(uid: int) -> int:
    """How many processes and threads ``uid`` runs now (what RLIMIT_NPROC counts)."""
    count = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        if fields.get("Uid", "").split()[:1] == [str(uid)]:
            count += int(fields.get("Threads", "1").strip() or 1)
    return count


def _kill_group(process: subprocess.Popen) -> None:
    """Kill the notebook's process and everything it started (its own session)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
