"""How fast is the engine? The goals of issue 15 side by side with torch, then the details.

    .venv/bin/python bench/run.py             # make bench: prints the tables, writes RESULTS.md
    .venv/bin/python bench/run.py --quick     # fewer rounds, no notebook validation

Every goal is a ratio engine / torch, measured in rounds: each round times the engine's
loop and torch's loop back to back (alternating which goes first), and the table gives the
median over the rounds with its spread (the lowest and highest round). So the ratios
compare like with like on a machine whose load changes while it runs:

* one thread everywhere: the variables below are pinned to 1 before numpy (or torch) loads
  its thread pool, and torch gets ``set_num_threads(1)``. On a busy 2-core machine
  OpenBLAS's own threads wait for each other: a 64x784 @ 784x256 float32 product then
  takes tens of milliseconds instead of about one.
* CPU time of the process (``time.process_time``), not wall time: on a machine shared with
  other jobs, wall time also counts the time the process waited for a core. With one
  thread everywhere, CPU time is what wall time would be on an idle machine.
* the 10^5-deep chain, the fan-in and ``import engine`` run in fresh processes
  (``--worker``): the engine's in a process that never imports torch (with torch's objects
  in the process, each of Python's full garbage collections, which the engine's graph of
  Python objects sets off, takes 2-3x longer), torch's in its own. The fan-in in one
  process with torch is a detail row.

Nothing here is asserted: timings vary between machines and runs, so they are measured
here, never in a unit test.
"""
from __future__ import annotations

import os

# Pinned before numpy is imported: its BLAS (and torch's OpenMP) read these once, when they load.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                  "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from bench import grade_class  # noqa: E402 (the course's grader, for issue 29's row)
from engine.fidelity import fused_axpy  # noqa: E402
from engine.fidelity.rounding import fma32  # noqa: E402
from engine.viz import draw_graph, layout_cost  # noqa: E402 (engine imports it anyway)

clock = time.process_time  # CPU seconds of this process (see the docstring)


def load_torch():
    """torch with one thread, or None when it is not installed."""
    try:
        import torch
    except ModuleNotFoundError:
        return None
    torch.set_num_threads(1)
    return torch


def median_time(fn, number, repeat):
    """Median CPU seconds per call of ``fn`` over ``repeat`` loops of ``number`` calls."""
    fn()  # warm up: first-call imports and caches are not what we measure
    return statistics.median(loop_time(fn, number) for _ in range(repeat))


def loop_time(fn, number):
    """CPU seconds per call of ``fn``, over one loop of ``number`` calls."""
    gc.collect()
    start = clock()
    for _ in range(number):
        fn()
    return (clock() - start) / number


def page_faults_per_call(fn, number):
    """Pages the kernel had to map for ``fn`` (a fresh big array costs one per 4 KiB)."""
    fn()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(number):
        fn()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / number


def fmt(seconds):
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


class Rounds:
    """Engine and torch timings of one workload, round by round: the ratio's median and spread."""

    def __init__(self):
        self.engine, self.torch = [], []

    def add(self, engine_value, torch_value):
        self.engine.append(engine_value)
        self.torch.append(torch_value)

    def ratios(self):
        return [e / t for e, t in zip(self.engine, self.torch)]

    def ratio(self):
        return statistics.median(self.ratios())

    def spread(self):
        ratios = self.ratios()
        return f"{min(ratios):.2f}-{max(ratios):.2f}"


def interleaved(workloads, rounds):
    """``{name: (engine_fn, torch_fn, calls)}`` timed in ``rounds`` rounds -> ``{name: Rounds}``."""
    results = {name: Rounds() for name in workloads}
    for engine_fn, torch_fn, _ in workloads.values():
        engine_fn(), torch_fn()  # warm up
    for round_nr in range(rounds):
        for name, (engine_fn, torch_fn, calls) in workloads.items():
            if round_nr % 2:  # alternate who goes first: a slow spell hits both alike
                torch_s = loop_time(torch_fn, calls)
                engine_s = loop_time(engine_fn, calls)
            else:
                engine_s = loop_time(engine_fn, calls)
                torch_s = loop_time(torch_fn, calls)
            results[name].add(engine_s, torch_s)
    return results


# ------------------------------------------------------------------ MLP training step
BATCH, IN, HIDDEN, OUT, LR = 64, 784, 256, 10, 0.1


def mlp_data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, IN), dtype=np.float32)
    y = rng.integers(0, OUT, BATCH)
    bound1, bound2 = 1 / np.sqrt(IN), 1 / np.sqrt(HIDDEN)
    params = [rng.uniform(-bound1, bound1, (HIDDEN, IN)).astype(np.float32),
              rng.uniform(-bound1, bound1, HIDDEN).astype(np.float32),
              rng.uniform(-bound2, bound2, (OUT, HIDDEN)).astype(np.float32),
              rng.uniform(-bound2, bound2, OUT).astype(np.float32)]
    return x, y, params


def mlp_step_numpy(x, y, params, rounded_once=False):
    """The same step written by hand: forward, cross-entropy, backward, SGD (in place).

    As a competent numpy programmer writes it: weights stored (out, in) like nn.Linear's
    and used transposed (a BLAS call reads the transpose without a copy), the softmax's
    gradient from the saved exponentials, no gradient for the input batch.

    ``p -= LR * g`` rounds twice; torch (and so the engine) rounds ``p - LR * g`` once.
    With ``rounded_once`` the update is the engine's single-rounding ``fma32`` instead,
    the rest unchanged: the gap that is left is the engine's own overhead.
    """
    w1, b1, w2, b2 = params
    rows = np.arange(BATCH)

    def step():
        h = x @ w1.T + b1
        r = np.maximum(h, 0)
        logits = r @ w2.T + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        total = exp.sum(axis=1, keepdims=True)
        loss = np.log(total[:, 0]).mean() - shifted[rows, y].mean()
        dlogits = exp / total
        dlogits[rows, y] -= 1
        dlogits /= BATCH
        dw2 = dlogits.T @ r
        db2 = dlogits.sum(axis=0)
        dh = (dlogits @ w2) * (h > 0)
        dw1 = dh.T @ x
        db1 = dh.sum(axis=0)
        for p, g in ((w1, dw1), (b1, db1), (w2, dw2), (b2, db2)):
            if rounded_once:
                p[...] = fma32(g, np.float32(-LR), p)
            else:
                p -= LR * g
        return loss
    return step


def mlp_phases(tm, x_np, y_np, params, steps, repeat):
    """Median CPU seconds of the step's three phases: forward and loss, backward
    (``zero_grad`` and ``backward``), and the optimizer's update."""
    step, model = mlp_step_module(tm, x_np, y_np, params)
    optimizer = tm.optim.SGD(model.parameters(), lr=LR)
    x, y = tm.tensor(x_np), tm.tensor(y_np)
    step()  # warm up
    phases = {"forward": [], "backward": [], "update": []}
    for _ in range(repeat):
        gc.collect()
        spent = dict.fromkeys(phases, 0.0)
        for _ in range(steps):
            start = clock()
            loss = tm.nn.functional.cross_entropy(model(x), y)
            forward_done = clock()
            optimizer.zero_grad()
            loss.backward()
            backward_done = clock()
            optimizer.step()
            spent["forward"] += forward_done - start
            spent["backward"] += backward_done - forward_done
            spent["update"] += clock() - backward_done
        for name in phases:
            phases[name].append(spent[name] / steps)
    return {name: statistics.median(times) for name, times in phases.items()}


def mlp_step_module(tm, x_np, y_np, params):
    """The step with ``nn.Linear``, ``F.cross_entropy`` and ``optim.SGD`` of torch or engine."""
    x, y = tm.tensor(x_np), tm.tensor(y_np)
    model = tm.nn.Sequential(tm.nn.Linear(IN, HIDDEN), tm.nn.ReLU(), tm.nn.Linear(HIDDEN, OUT))
    with tm.no_grad():
        for p, value in zip(model.parameters(), params):
            p.copy_(tm.tensor(value))
    optimizer = tm.optim.SGD(model.parameters(), lr=LR)

    def step():
        loss = tm.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss
    return step, model


def mlp_steps_with_and_without_hooks(tm, x_np, y_np, params):
    """The MLP step twice, layer by layer: as it is, and with a tensor hook on every layer's
    output (each returning its gradient unchanged, so both steps compute the same numbers).
    Returns ``(plain, hooked, hook_calls)``: the difference is the cost of hooks alone."""
    step, model = mlp_step_module(tm, x_np, y_np, params)
    optimizer = tm.optim.SGD(model.parameters(), lr=LR)
    x, y = tm.tensor(x_np), tm.tensor(y_np)
    calls = []

    def unchanged(grad):
        calls.append(1)  # (counted, so the test can see every hook ran)
        return grad

    def run(hooked):
        def step():
            h = x
            for layer in model:
                h = layer(h)
                if hooked:
                    h.register_hook(unchanged)
            loss = tm.nn.functional.cross_entropy(h, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            return loss
        return step
    return run(False), run(True), calls


def hook_overhead(report, torch, rounds, calls=20):
    """Issue 26: the hooked step's time over the plain step's, the engine's over torch's."""
    engine_steps = mlp_steps_with_and_without_hooks(engine, *mlp_data())
    torch_steps = mlp_steps_with_and_without_hooks(torch, *mlp_data())
    for steps in (engine_steps, torch_steps):
        steps[0](), steps[1]()  # warm up
    overhead = Rounds()
    plain = {"engine": [], "torch": []}
    for round_nr in range(rounds):
        spent = {}
        order = [("engine", engine_steps), ("torch", torch_steps)]
        for library, (plain_step, hooked_step, _) in order[::-1] if round_nr % 2 else order:
            spent[library] = (loop_time(plain_step, calls), loop_time(hooked_step, calls))
        for library in plain:
            plain[library].append(spent[library][0])
        overhead.add(spent["engine"][1] / spent["engine"][0],
                     spent["torch"][1] / spent["torch"][0])
    ratio = overhead.ratio()
    report.goal("MLP step with a tensor hook on each layer's output (returning its gradient): "
                "time over the step without hooks",
                f"{statistics.median(overhead.engine):.3f}x of "
                f"{fmt(statistics.median(plain['engine']))}",
                f"{statistics.median(overhead.torch):.3f}x of "
                f"{fmt(statistics.median(plain['torch']))}",
                f"{ratio:.2f}x", overhead.spread(), "<= 1.2x", ratio <= 1.2)


def sgd_update_is_torchs(torch, steps=5):
    """Is the engine's SGD update torch's, bit for bit? ``steps`` updates of the MLP's four
    parameters from the same values and gradients (random, and ties and subnormals mixed in)."""
    rng = np.random.default_rng(1)
    for p_np in mlp_data()[2]:
        g_np = rng.standard_normal(p_np.shape).astype(np.float32)
        g_np.reshape(-1)[::7] = np.float32(2.0**-140)  # subnormal products
        mine, theirs = engine.tensor(p_np), torch.tensor(p_np)
        for _ in range(steps):
            mine.add_(engine.tensor(g_np), alpha=-LR)
            theirs.add_(torch.tensor(g_np), alpha=-LR)
            if not np.array_equal(mine.numpy().view(np.int32), theirs.numpy().view(np.int32)):
                return False
    return True


# ------------------------------------------------------------------ tiny tensors
def tiny_forward_backward(tm):
    a = tm.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = tm.tensor([4.0, 5.0, 6.0], requires_grad=True)

    def step():
        (a * b + a).sum().backward()
    return step


def tiny_add(tm):
    a = tm.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = tm.tensor([4.0, 5.0, 6.0], requires_grad=True)
    return lambda: a + b


# ------------------------------------------------------------------ depth and width
def save_load(tm):
    """torch.save + torch.load of a 10 MB state_dict (three Linear layers), in memory."""
    tm.manual_seed(0)
    model = tm.nn.Sequential(tm.nn.Linear(1024, 1024), tm.nn.ReLU(), tm.nn.Linear(1024, 1024),
                             tm.nn.ReLU(), tm.nn.Linear(1024, 512))
    state = model.state_dict()

    def run():
        buffer = io.BytesIO()
        tm.save(state, buffer)
        buffer.seek(0)
        return tm.load(buffer)
    return run


def lstm_step(tm):
    """An LSTM (2 layers, input 32, hidden 64) over a sequence of 32 steps, batch 16: forward
    and backward (issue 27)."""
    tm.manual_seed(0)
    layer = tm.nn.LSTM(32, 64, num_layers=2)
    x = tm.randn(32, 16, 32)

    def run():
        output, _ = layer(x)
        output.sum().backward()
    return run


def chain(tm, depth):
    x = tm.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x
    for _ in range(depth):
        y = y * 1.0001
    return x, y.sum()


def fan_in(tm, width=10_000):
    leaves = [tm.tensor([float(i)], requires_grad=True) for i in range(width)]

    def step():
        tm.stack([leaf * 2.0 for leaf in leaves]).sum().backward()
    return step


def _memory_status(field):
    """A line of /proc/self/status in bytes (Linux): VmRSS now, VmHWM the peak so far."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise OSError(field)


def _reset_peak_memory():
    """Start VmHWM afresh from now (Linux 4.0+); elsewhere the peak includes the imports."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _rss_and_peak():
    """(resident bytes now, peak resident bytes of this process image)."""
    try:
        return _memory_status("VmRSS"), _memory_status("VmHWM")
    except OSError:  # no /proc: ru_maxrss (KiB; bytes on macOS), which a child process inherits
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        peak *= 1 if sys.platform == "darwin" else 1024
        return peak, peak


def _library(name):
    """engine or torch (one thread), for a worker; the engine's process must not hold torch."""
    tm = importlib.import_module(name)
    if name == "torch":
        tm.set_num_threads(1)
    elif "torch" in sys.modules:
        raise RuntimeError("the engine's worker must run in a process without torch")
    return tm


def chain_worker(library, depth):
    """In a fresh process: the chain's forward and backward CPU seconds, the growth of the
    process's peak memory while it ran, and (engine) the objects the collector tracks per op."""
    tm = _library(library)
    x, out = chain(tm, 1_000)  # warm up
    out.backward()
    del x, out
    gc.collect()
    _reset_peak_memory()
    start_rss = _rss_and_peak()[0]
    start = clock()
    x, out = chain(tm, depth)
    forward = clock() - start
    start = clock()
    out.backward()
    backward = clock() - start
    result = {"forward": forward, "backward": backward, "seconds": forward + backward,
              "peak_mib": (_rss_and_peak()[1] - start_rss) / 2**20}
    del x, out
    start = clock()
    x, out = chain(tm, depth // 10)
    out.backward()
    result["backward_tenth"] = clock() - start  # (forward included: for the growth row)
    del x, out
    if library == "engine":
        result.update(tracked_objects_per_op(tm))
    print(json.dumps(result))


def fan_in_worker(library, steps):
    """In a fresh process: the median CPU seconds of a fan-in step (after one to warm up)."""
    step = fan_in(_library(library))
    print(json.dumps({"seconds": median_time(step, 1, steps)}))


def tracked_objects_per_op(tm, depth=10_000):
    """Objects Python's cyclic collector tracks per recorded op of a chain: those it keeps
    visiting (``kept``), and all those made (``made``: some are tuples of plain values, which
    the collector stops tracking once it has seen them: a tuple holding such a tuple, one
    collection later, hence two collections before counting). Per op: what a chain of
    2 * depth ops holds more than one of depth ops (the leaf and the sum are not ops of it)."""
    kept, made = [], []
    for ops in (depth, 2 * depth):
        gc.collect()
        before = len(gc.get_objects())
        x, out = chain(tm, ops)
        gc.collect()
        gc.collect()
        kept.append(len(gc.get_objects()) - before)
        del x, out
        gc.collect()
        gc.disable()
        try:
            count_before = gc.get_count()[0]
            x, out = chain(tm, ops)
            made.append(gc.get_count()[0] - count_before)
        finally:
            gc.enable()
        del x, out
    return {"objects_made": (made[1] - made[0]) / depth,
            "objects_kept": (kept[1] - kept[0]) / depth}


IMPORT_TIME = ("import time\nstart = time.process_time()\nimport {library}\n"
               "print('{{\"seconds\": %r}}' % (time.process_time() - start))")


def run_worker(kind, library, *args):
    """``bench/run.py --worker ...`` in a fresh process, its JSON answer as a dict.

    ``import`` runs alone in a bare interpreter, with Python's bytecode caches as an install
    has them (PYTHONDONTWRITEBYTECODE, if set, would make it compile every module each time).
    """
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, library,
               *map(str, args)]
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    if kind == "import":
        command = [sys.executable, "-c", IMPORT_TIME.format(library=library)]
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT,
                          env=environment)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _paired(runs):
    """The engine's and torch's seconds of fresh-process runs, as interleaved Rounds."""
    timed = Rounds()
    for mine, theirs in zip(runs["engine"], runs["torch"]):
        timed.add(mine["seconds"], theirs["seconds"])
    return timed


def in_fresh_processes(rounds, *args):
    """``{"engine": [answers], "torch": [answers]}``, the workers alternating."""
    answers = {"engine": [], "torch": []}
    for round_nr in range(rounds):
        order = ("torch", "engine") if round_nr % 2 else ("engine", "torch")
        for library in order:
            answers[library].append(run_worker(*args[:1], library, *args[1:]))
    return answers


# ------------------------------------------------------------------ pictures
def graph_own_leaves(nodes):
    """About ``nodes`` boxes: a chain of products, each with a leaf of its own (a network)."""
    leaves = [engine.tensor([1.0, 2.0], requires_grad=True) for _ in range(nodes // 2)]
    y = leaves[0]
    for leaf in leaves[1:]:
        y = y * leaf
    return y


def graph_shared_leaf(nodes):
    """``nodes`` boxes: one leaf added in by every other op of a chain (long edges)."""
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = x
    for i in range(nodes - 1):
        y = y * 1.5 if i % 2 else y + x
    return y


def graph_product_loop(nodes):
    """``nodes`` boxes: ``y = y * x`` in a loop, one leaf in every product (issue 28: dot
    takes minutes on it)."""
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = x
    for _ in range(nodes - 2):
        y = y * x
    return y


def dot_seconds(source, timeout):
    """Wall seconds for ``dot -Tsvg`` to lay out ``source``; None if it took over ``timeout``."""
    start = time.perf_counter()
    try:
        subprocess.run(["dot", "-Tsvg"], input=source, text=True, capture_output=True,
                       timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    return time.perf_counter() - start


# ------------------------------------------------------------------ the machine
def machine(torch):
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    parts = [f"{cpu}, {os.cpu_count()} logical CPUs", f"{platform.system()} {platform.release()}",
             f"Python {platform.python_version()}",
             f"numpy {np.__version__} ({_blas_name()}, "
             f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')})"]
    if torch is not None:
        parts.append(f"torch {torch.__version__} (1 thread)")
    return "; ".join(parts)


def _blas_name():
    try:
        return np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]
    except Exception:  # older numpy: no dicts mode
        return "BLAS unknown"


def load_average():
    try:
        one, five, fifteen = os.getloadavg()
        return f"load average {one:.1f}, {five:.1f}, {fifteen:.1f} (1, 5, 15 min)"
    except OSError:
        return "load average unknown"


# ------------------------------------------------------------------ the run
class Report:
    """The two tables: the goals (with targets) and the details (for reading)."""

    def __init__(self):
        self.goals, self.details = [], []

    def goal(self, what, engine_text, torch_text, ratio, spread, target, met):
        self.goals.append((what, engine_text, torch_text, ratio, spread, target,
                           "-" if met is None else ("yes" if met else "NO")))
        print(f"  {what}: engine {engine_text}, torch {torch_text}, ratio {ratio} "
              f"(rounds {spread}), target {target}: "
              f"{'-' if met is None else ('met' if met else 'NOT met')}", flush=True)

    def timed_goal(self, what, rounds, target):
        ratio = rounds.ratio()
        self.goal(what, fmt(statistics.median(rounds.engine)),
                  fmt(statistics.median(rounds.torch)), f"{ratio:.2f}x", rounds.spread(),
                  f"<= {target}x", ratio <= target)

    def detail(self, what, engine_text, baseline="-", ratio="-"):
        self.details.append((what, engine_text, baseline, ratio))
        print(f"  {what}: {engine_text}" + ("" if baseline == "-" else f" ({baseline})")
              + ("" if ratio == "-" else f", ratio {ratio}"), flush=True)

    def markdown(self):
        lines = ["| Goal | Engine | Torch | Ratio (median) | Spread (rounds) | Target | Met |",
                 "|---|---|---|---|---|---|---|"]
        lines += ["| " + " | ".join(row) + " |" for row in self.goals]
        lines += ["", "| Detail | Engine | Baseline | Ratio |", "|---|---|---|---|"]
        lines += ["| " + " | ".join(row) + " |" for row in self.details]
        return "\n".join(lines)


# ------------------------------------------------------------------ torch.func (issue 26)
def per_sample_grads(tm, samples=64):
    """vmap(grad(loss)) of a small MLP (8 -> 16 -> 1, tanh, squared error) over 64 samples,
    written with tensor methods (the engine runs it batched: engine/func/batched.py)."""
    rng = np.random.default_rng(0)
    params = {name: tm.from_numpy(rng.standard_normal(shape).astype(np.float32))
              for name, shape in (("w1", (16, 8)), ("b1", (16,)), ("w2", (1, 16)), ("b2", (1,)))}
    x = tm.from_numpy(rng.standard_normal((samples, 8)).astype(np.float32))
    y = tm.from_numpy(rng.standard_normal((samples, 1)).astype(np.float32))

    def loss(p, xi, yi):
        h = (xi @ p["w1"].T + p["b1"]).tanh()
        return ((h @ p["w2"].T + p["b2"] - yi) ** 2).mean()

    per_sample = tm.func.vmap(tm.func.grad(loss), in_dims=(None, 0, 0))
    return lambda: per_sample(params, x, y)


def jacobian_100(tm):
    """jacrev of x -> tanh(W x + b), 100 -> 100."""
    rng = np.random.default_rng(0)
    w = tm.from_numpy(rng.standard_normal((100, 100)).astype(np.float32))
    b = tm.from_numpy(rng.standard_normal(100).astype(np.float32))
    x = tm.from_numpy(rng.standard_normal(100).astype(np.float32))
    jacobian = tm.func.jacrev(lambda a: (w @ a + b).tanh())
    return lambda: jacobian(x)


def transform_goals(report, torch, rounds):
    """Issue 26's torch.func rows, engine / torch."""
    workloads = {
        "per-sample gradients, vmap(grad(loss)) of an 8-16-1 MLP over 64 samples":
            (per_sample_grads(engine), per_sample_grads(torch), 20),
        "torch.func.jacrev of tanh(W x + b), 100 -> 100":
            (jacobian_100(engine), jacobian_100(torch), 5),
    }
    for name, timed in interleaved(workloads, rounds).items():
        report.timed_goal(name, timed, 2)


# ------------------------------------------------------------------ norm statistics
NORM_ROWS = {  # name -> (function of the library, input shape, calls per round)
    "F.layer_norm forward, 32 rows of 128 (float32)": ("layer_norm", (32, 128), 50),
    "F.layer_norm forward, 700 rows of 512 (float32: a transformer's batch)":
        ("layer_norm", (700, 512), 5),
    "F.group_norm forward, (8, 32, 16, 16), 4 groups (float32)": ("group_norm", (8, 32, 16, 16),
                                                                 10),
}


def norm_forward(tm, function, shape):
    """A norm's forward alone: its statistics are torch's RowwiseMoments replayed in the
    engine (engine/fidelity/moments.py), a loop of numpy calls on a few vectors."""
    x = tm.from_numpy(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    if function == "layer_norm":
        return lambda: tm.nn.functional.layer_norm(x, shape[-1:])
    return lambda: tm.nn.functional.group_norm(x, 4)


def norm_statistics(report, torch, rounds):
    """Details: layer_norm and group_norm forward, engine / torch (no target)."""
    workloads = {name: (norm_forward(engine, function, shape), norm_forward(torch, function, shape),
                        calls)
                 for name, (function, shape, calls) in NORM_ROWS.items()}
    for name, timed in interleaved(workloads, rounds).items():
        report.detail(name, fmt(statistics.median(timed.engine)),
                      f"torch {fmt(statistics.median(timed.torch))}",
                      f"{timed.ratio():.1f}x ({timed.spread()})")


def grading_goal(report, students=100, jobs=2):
    """Issue 29's goal: a class graded on this machine. Not a ratio (torch has no grader): the
    wall time of the whole run, and each submission's CPU time (bench/grade_class.py)."""
    m = grade_class.measure(students, jobs)
    sandboxed = "bubblewrap" if m["isolated"] else "no sandbox"
    report.goal(f"grading: {students} submissions of lesson 4's exercise notebook, {jobs} "
                f"workers, {sandboxed}, {m['full_marks']} with full marks (wall time; CPU time "
                "per submission)",
                f"{m['seconds']:.0f} s ({m['cpu_per_notebook']:.2f} s CPU each)", "-", "-", "-",
                "<= 120 s", m["seconds"] <= 120)


# issue 27's two rows, which --only can run alone (name -> (workload, calls, target))
ISSUE_27_ROWS = {
    "save_load": ("torch.save + torch.load of a 10 MB state_dict (io.BytesIO)", save_load, 5,
                  1.5),
    "lstm": ("LSTM 2 layers, hidden 64, sequence 32, batch 16: forward + backward", lstm_step,
             5, 3),
}


def goals(report, torch, rounds):
    """Issue 15's goals, each a ratio engine / torch over interleaved rounds."""
    print("Goals (issue 15): engine / torch, median of "
          f"{rounds} interleaved rounds (spread: lowest-highest round)")
    data = mlp_data()
    workloads = {
        "MLP step (64x784 -> 256 -> 10, ReLU, cross-entropy, SGD)":
            (mlp_step_module(engine, *data)[0], mlp_step_module(torch, *mlp_data())[0], 20),
        "(a * b + a).sum().backward(), 3 elements":
            (tiny_forward_backward(engine), tiny_forward_backward(torch), 2_000),
        "a + b, a and b require grad": (tiny_add(engine), tiny_add(torch), 10_000),
    }
    targets = dict(zip(workloads, (1.3, 1.5, 1.5)))
    for name, make, calls, target in ISSUE_27_ROWS.values():
        workloads[name] = (make(engine), make(torch), calls)
        targets[name] = target
    for name, timed in interleaved(workloads, rounds).items():
        report.timed_goal(name, timed, targets[name])
    same = sgd_update_is_torchs(torch)
    report.goal("MLP step's SGD update bit for bit torch's (`p.add_(g, alpha=-lr)`)",
                fused_axpy.path(), "-",
                "-", "-", "identical", same)

    fan_ins = in_fresh_processes(max(3, rounds // 2), "fanin", 3)
    report.timed_goal("fan-in: 10^4 leaves doubled, stacked, summed, backward (fresh "
                      "processes, the engine's without torch)", _paired(fan_ins), 1.5)
    chains = in_fresh_processes(max(3, rounds // 2), "chain", 100_000)
    timed = _paired(chains)
    report.timed_goal("chain y = y * 1.0001, 10^5 deep, forward + backward "
                      "(fresh processes, the engine's without torch)", timed, 1.2)
    made = statistics.median(answer["objects_made"] for answer in chains["engine"])
    kept = statistics.median(answer["objects_kept"] for answer in chains["engine"])
    report.goal("objects Python's collector tracks per recorded op of the chain "
                "(kept; made in all)", f"{kept:.2f} ({made:.2f})", "0", "-", "-", "<= 3",
                kept <= 3)
    memory = Rounds()
    for mine, theirs in zip(chains["engine"], chains["torch"]):
        memory.add(mine["peak_mib"], theirs["peak_mib"])
    report.goal("peak memory (RSS growth) of the 10^5 chain, forward + backward",
                f"{statistics.median(memory.engine):.1f} MiB",
                f"{statistics.median(memory.torch):.1f} MiB", f"{memory.ratio():.2f}x",
                memory.spread(), "<= 1x", memory.ratio() <= 1)
    for library in ("engine", "torch"):
        run_worker("import", library)  # writes the bytecode caches where they are missing
    imports = in_fresh_processes(max(3, rounds // 2), "import")
    engine_import = statistics.median(answer["seconds"] for answer in imports["engine"])
    torch_import = statistics.median(answer["seconds"] for answer in imports["torch"])
    report.goal("`import engine` (CPU time, fresh process, numpy included, bytecode cached)",
                fmt(engine_import),
                fmt(torch_import), "-", f"{min(a['seconds'] for a in imports['engine']):.3f}-"
                f"{max(a['seconds'] for a in imports['engine']):.3f} s", "<= 0.25 s",
                engine_import <= 0.25)
    return chains


def details(report, torch, rounds, chains, args):
    """What the goals are made of, and the rows of earlier issues (no targets)."""
    print("Details")
    n = 5 if args.quick else 20
    steps = {"engine": mlp_step_module(engine, *mlp_data())[0],
             "numpy": mlp_step_numpy(*mlp_data()),
             "numpy, update rounded once": mlp_step_numpy(*mlp_data(), rounded_once=True)}
    seconds = {name: median_time(step, n, rounds) for name, step in steps.items()}
    report.detail("MLP step vs numpy by hand", fmt(seconds["engine"]),
                  f"numpy {fmt(seconds['numpy'])}", f"{seconds['engine'] / seconds['numpy']:.2f}x")
    report.detail("MLP step vs numpy by hand with torch's update (rounded once)",
                  fmt(seconds["engine"]), f"numpy {fmt(seconds['numpy, update rounded once'])}",
                  f"{seconds['engine'] / seconds['numpy, update rounded once']:.2f}x")
    faults = page_faults_per_call(steps["engine"], n)
    report.detail("MLP step: page faults per step", f"{faults:.0f}")
    engine_phases = mlp_phases(engine, *mlp_data(), n, rounds)
    torch_phases = mlp_phases(torch, *mlp_data(), n, rounds)
    for phase, engine_s in engine_phases.items():
        report.detail(f"MLP step, {phase} alone", fmt(engine_s),
                      f"torch {fmt(torch_phases[phase])}", f"{engine_s / torch_phases[phase]:.2f}x")
    norm_statistics(report, torch, rounds)
    in_process = interleaved({"fan-in": (fan_in(engine), fan_in(torch), 1)}, rounds)["fan-in"]
    report.detail("fan-in in one process with torch imported (torch's objects make each of the "
                  "collector's full passes over the engine's graph longer)",
                  fmt(statistics.median(in_process.engine)),
                  f"torch {fmt(statistics.median(in_process.torch))}",
                  f"{in_process.ratio():.2f}x ({in_process.spread()})")
    x, w = mlp_data()[0], mlp_data()[2][0]
    tx, tw = torch.from_numpy(x), torch.from_numpy(w)
    numpy_product = median_time(lambda: x @ w.T, n * 10, rounds)
    torch_product = median_time(lambda: tx @ tw.T, n * 10, rounds)
    report.detail("for scale: one 64x784 @ 784x256 float32 product in numpy (not the engine)",
                  fmt(numpy_product), f"torch {fmt(torch_product)}",
                  f"{numpy_product / torch_product:.2f}x")
    for library in ("engine", "torch"):
        answers = chains[library]
        forward = statistics.median(a["forward"] for a in answers)
        backward = statistics.median(a["backward"] for a in answers)
        report.detail(f"chain of 10^5 ops in {library}: forward, backward",
                      f"{fmt(forward)}, {fmt(backward)}")
    growth = statistics.median(a["seconds"] / a["backward_tenth"] for a in chains["engine"])
    report.detail("chain: 10^5 ops vs 10^4 ops, forward + backward (linear: 10x)",
                  f"{growth:.1f}x")

    has_dot = shutil.which("dot") is not None
    for label, make in (("a leaf per op", graph_own_leaves),
                        ("one leaf shared by every other op", graph_shared_leaf),
                        ("y = y * x in a loop", graph_product_loop)):
        big = make(500)
        report.detail(f"draw_graph, 500 nodes ({label}): DOT text",
                      fmt(median_time(lambda big=big: draw_graph(big).source, 1, rounds)))
        if has_dot:
            seconds = dot_seconds(draw_graph(big).source, args.dot_timeout)
            report.detail(f"draw_graph, 500 nodes ({label}): SVG with dot (wall)",
                          f"over {args.dot_timeout:g} s (stopped)" if seconds is None
                          else fmt(seconds))
            # what a notebook shows: dot's SVG, or past MAX_LAYOUT_COST a one-box summary
            picture = draw_graph(big)
            start = time.perf_counter()
            picture._repr_mimebundle_()
            shown = "one-box summary" if picture.too_big() else "full picture"
            report.detail(f"draw_graph, 500 nodes ({label}): what a notebook shows, {shown} "
                          f"(wall; layout cost {layout_cost(picture.nodes, picture.edges):,})",
                          fmt(time.perf_counter() - start))
    if not (args.quick or args.no_notebooks):
        start = time.perf_counter()
        folders = [f for f in ("notebooks", "solutions", "exercises")
                   if any((ROOT / f).glob("*.ipynb"))]
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
             "--nbval-current-env", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg",
             *folders], cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - start
        # pytest finds the Chinese edition's notebooks (notebooks/zh-CN/, ...) in the folders too
        count = sum(len(list((ROOT / where).glob("[0-9]*.ipynb")))
                    for f in folders for where in (f, f"{f}/zh-CN"))
        summary = (result.stdout.strip().splitlines() or ["?"])[-1]
        report.detail(f"validate {count} notebooks (nbval, wall time): {summary}", fmt(wall))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, no notebooks")
    parser.add_argument("--no-notebooks", action="store_true",
                        help="skip timing the validation of every notebook")
    parser.add_argument("--rounds", type=int, help="rounds per goal (default 9, 3 with --quick)")
    parser.add_argument("--dot-timeout", type=float, default=30.0,
                        help="seconds to wait for Graphviz on one graph (default 30)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--only", choices=["grading", "norms", *ISSUE_27_ROWS],
                        help="run one row alone and print it (RESULTS.md is not written)")
    args = parser.parse_args(argv)
    if args.only == "grading":
        report = Report()
        print(f"{load_average()}\nGoal (issue 29): grading a class")
        grading_goal(report)
        print("\n" + report.markdown().split("\n\n")[0])
        return
    if args.only == "norms":
        torch = load_torch()
        if torch is None:
            sys.exit("bench/run.py compares the engine with torch: install torch first")
        report = Report()
        print(f"{load_average()}\nDetails: norm statistics")
        norm_statistics(report, torch, args.rounds or (3 if args.quick else 9))
        print("\n" + report.markdown().split("\n\n")[1] + f"\n{load_average()}")
        return
    if args.only in ISSUE_27_ROWS:
        torch = load_torch()
        if torch is None:
            sys.exit("bench/run.py compares the engine with torch: install torch first")
        rounds = args.rounds or (3 if args.quick else 9)
        name, make, calls, target = ISSUE_27_ROWS[args.only]
        report = Report()
        print(f"{load_average()}\nGoal (issue 27), {rounds} interleaved rounds")
        timed = interleaved({name: (make(engine), make(torch), calls)}, rounds)[name]
        report.timed_goal(name, timed, target)
        print("\n" + report.markdown().split("\n\n")[0] + f"\n{load_average()}")
        return
    if args.worker:
        kind, library, *rest = args.worker
        worker = {"chain": chain_worker, "fanin": fan_in_worker}[kind]
        return worker(library, int(rest[0]))
    torch = load_torch()
    if torch is None:
        sys.exit("bench/run.py compares the engine with torch: install torch first")
    rounds = args.rounds or (3 if args.quick else 9)
    load_before = load_average()
    print(f"Machine: {machine(torch)}\n{load_before}\n")
    report = Report()
    chains = goals(report, torch, rounds)
    transform_goals(report, torch, rounds)
    hook_overhead(report, torch, rounds)
    grading_goal(report)
    details(report, torch, rounds, chains, args)
    met = sum(row[-1] == "yes" for row in report.goals)
    summary = f"{met} of {len(report.goals)} goals met."
    print("\n" + report.markdown() + "\n\n" + summary)
    load_after = load_average()
    busy = ""
    if os.getloadavg()[0] > (os.cpu_count() or 1):
        busy = ("The machine was busy (more runnable jobs than cores): CPU time leaves out the "
                "waiting, but other jobs still share the caches and memory, so absolute times "
                "are likely higher than on an idle machine. The ratios, measured back to back, "
                "are the numbers to read.\n\n")
    args.out.write_text(
        "# Benchmark results\n\n"
        f"Written by `make bench` (`bench/run.py`) on {time.strftime('%Y-%m-%d %H:%M %Z')}"
        f"{' with --quick' if args.quick else ''}.\n\n"
        f"Machine: {machine(torch)}.\n\n"
        f"Before the run: {load_before}; after: {load_after}.\n\n{busy}"
        f"CPU time, one thread everywhere (see bench/README.md). Goals: ratios engine / torch, "
        f"the median of {rounds} interleaved rounds and the lowest and highest round. "
        f"{summary}\n\n" + report.markdown() + "\n", encoding="utf-8")
    print(f"\nWritten to {args.out}")


if __name__ == "__main__":
    main()
