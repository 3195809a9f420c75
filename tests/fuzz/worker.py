"""One long-lived process per library, fed programs over a pipe.

``Worker("torch")`` / ``Worker("engine")`` starts ``python -m fuzz.worker LIBRARY`` (with
``env`` added to its environment), which imports the library once (the engine as ``torch``)
and then answers one JSON line per program::

    request:  {"statements": [...]}
    answer:   {"status": "ok", "records": [...]}        (observe.run_program's records)

``Worker.run`` returns ``{"status": "hang"}`` when the answer takes longer than ``timeout``
seconds, ``{"status": "died", "detail": ...}`` when the process exits (a segfault, a
RecursionError in C...); the process is then started again for the next program.
"""
import importlib
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT = 120.0  # torch's first import on a busy machine


class Worker:
    def __init__(self, library, timeout=10.0, env=None):
        self.library, self.timeout, self.env = library, timeout, env or {}
        self.process = None
        self.buffer = b""

    def start(self):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
                   **self.env)
        for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(variable, "1")  # as the Makefile: one BLAS thread
        self.process = subprocess.Popen(
            [sys.executable, "-m", "fuzz.worker", self.library], cwd=ROOT, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.buffer = b""
        if self._read_line(STARTUP_TIMEOUT) != "ready":
            raise RuntimeError(f"the {self.library} worker did not start")

    def stop(self):
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def run(self, statements):
        if self.process is None:
            self.start()
        try:
            self.process.stdin.write((json.dumps({"statements": statements}) + "\n").encode())
            self.process.stdin.flush()
            line = self._read_line(self.timeout)
        except (BrokenPipeError, EOFError) as error:
            line = error
        if isinstance(line, str):
            return json.loads(line)
        self.stop()
        if line is None:
            return {"status": "hang"}
        return {"status": "died", "detail": str(line) or "the process exited"}

    def _read_line(self, timeout):
        """The next line, None after ``timeout`` seconds, or an EOFError at the end."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([self.process.stdout], [], [], remaining)
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 1 << 20)
                if not chunk:
                    return EOFError(f"exit status {self.process.wait()}")
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


# ---------------------------------------------------------------- the process itself
def reset(torch):
    """What one program may change for the next: grad mode, default dtype, print options."""
    torch.set_grad_enabled(True)
    torch.set_default_dtype(torch.float32)
    torch.set_printoptions(profile="default", sci_mode=None)
    torch.manual_seed(0)


def serve(library):
    # The answers go to the real stdout; anything else writing to fd 1 goes to stderr.
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    torch = importlib.import_module(library)
    if os.environ.get("FUZZ_ENGINE_MATH") and library == "torch":
        from .engine_math import patch
        patch(torch)  # the second reference (engine_math.py)
    from .observe import run_program

    answers.write("ready\n")
    answers.flush()
    # (torch seeds its generator from the system at start: the first program starts as the
    # others, from manual_seed(0), or its unseeded random numbers differ run to run)
    reset(torch)
    for request in sys.stdin:
        statements = json.loads(request)["statements"]
        try:
            answer = {"status": "ok", "records": run_program(torch, statements)}
        except BaseException as error:  # noqa: BLE001  (the fuzzer itself must go on)
            answer = {"status": "died", "detail": f"{type(error).__name__}: {error}"}
        reset(torch)
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    serve(sys.argv[1])
