"""How fast is the engine? One run, side by side with numpy by hand and with torch.

    .venv/bin/python bench/run.py             # make bench: prints the table, writes RESULTS.md
    .venv/bin/python bench/run.py --quick     # fewer repeats, no notebook validation

Every timing is the median of several repeats, each repeat timing a loop of calls,
measured in this one process, so the ratios compare like with like:

* one thread everywhere: torch with ``set_num_threads(1)``, numpy's BLAS with
  ``OPENBLAS_NUM_THREADS=1`` (set below, before numpy loads it). On a busy 2-core machine
  OpenBLAS's own threads wait for each other: a 64x784 @ 784x256 float32 product then
  takes tens of milliseconds instead of about one.
* CPU time of this process (``time.process_time``), not wall time: on a machine shared
  with other jobs, wall time also counts the time this process waited for a core. With
  one thread everywhere, CPU time is what wall time would be on an idle machine. (The
  notebooks' validation runs in other processes: that row is wall time.)

Targets come from issue 7; a row that misses its target says so. Nothing here is asserted:
timings vary between machines and runs, so they are measured here, never in a unit test.
"""
from __future__ import annotations

import os

# Before numpy is imported: its BLAS reads these once, when it loads.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import gc  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.fidelity.rounding import fma32  # noqa: E402

try:
    import torch
    torch.set_num_threads(1)
except ModuleNotFoundError:
    torch = None

clock = time.process_time  # CPU seconds of this process (see the docstring)


def median_time(fn, number, repeat):
    """Median CPU seconds per call of ``fn`` over ``repeat`` loops of ``number`` calls."""
    fn()  # warm up: first-call imports and caches are not what we measure
    times = []
    for _ in range(repeat):
        gc.collect()
        start = clock()
        for _ in range(number):
            fn()
        times.append((clock() - start) / number)
    return statistics.median(times)


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
def chain(tm, depth):
    x = tm.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x
    for _ in range(depth):
        y = y * 1.0
    return x, y.sum()


def depth_row(tm, depth, collect=True):
    """(forward seconds, backward seconds, peak MiB of forward+backward).

    ``collect=False`` switches Python's cyclic garbage collector off for the forward pass:
    the graph is acyclic, so the collector frees nothing, but its full passes visit every
    node still alive, and a chain keeps all of them alive.
    """
    gc.collect()
    if not collect:
        gc.disable()
    try:
        start = clock()
        x, out = chain(tm, depth)
        forward = clock() - start
    finally:
        gc.enable()
    start = clock()
    out.backward()
    backward = clock() - start
    del x, out
    gc.collect()
    tracemalloc.start()
    x, out = chain(tm, depth)
    out.backward()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return forward, backward, peak


def fan_in(tm, width=10_000):
    leaves = [tm.tensor([float(i)], requires_grad=True) for i in range(width)]

    def step():
        tm.stack([leaf * 2.0 for leaf in leaves]).sum().backward()
    return step


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
def machine():
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, no notebooks")
    parser.add_argument("--no-notebooks", action="store_true",
                        help="skip timing the validation of every notebook")
    parser.add_argument("--dot-timeout", type=float, default=30.0,
                        help="seconds to wait for Graphviz on one graph (default 30)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 7
    rows = []  # (what, engine, baseline name, baseline, ratio text, target, met)
    load_before = load_average()

    def note(what, value):
        rows.append((what, value, "-", "-", "-", "-", "-"))
        print(f"  {what}: {value}", flush=True)

    def compare(what, engine_s, base_name, base_s, target=None):
        ratio = engine_s / base_s if base_s else None
        met = None if ratio is None or target is None else ratio <= target
        rows.append((what, fmt(engine_s), base_name, fmt(base_s),
                     "-" if ratio is None else f"{ratio:.2f}x",
                     "-" if target is None else f"<= {target}x",
                     "-" if met is None else ("yes" if met else "NO")))
        print(f"  {what}: engine {fmt(engine_s)}, {base_name} {fmt(base_s)}"
              + ("" if ratio is None else f", ratio {ratio:.2f}"), flush=True)

    print(f"Machine: {machine()}\n{load_before}\n")
    print("MLP training step (batch 64, 784-256-10, ReLU, cross-entropy, SGD, float32)")
    n = 5 if args.quick else 20
    data = mlp_data()
    steps = {"engine": mlp_step_module(engine, *data)[0], "numpy": mlp_step_numpy(*mlp_data()),
             "numpy, update rounded once": mlp_step_numpy(*mlp_data(), rounded_once=True)}
    if torch is not None:
        steps["torch"] = mlp_step_module(torch, *mlp_data())[0]
    seconds = {name: median_time(step, n, repeat) for name, step in steps.items()}
    faults = ", ".join(f"{name} {page_faults_per_call(step, n):.0f}"
                       for name, step in steps.items() if name != "numpy, update rounded once")
    compare("MLP step vs numpy by hand", seconds["engine"], "numpy", seconds["numpy"], 1.3)
    if torch is not None:
        compare("MLP step vs torch", seconds["engine"], "torch", seconds["torch"], 1.5)
    compare("MLP step vs numpy by hand with torch's update (rounded once, as the engine's)",
            seconds["engine"], "numpy", seconds["numpy, update rounded once"])
    note("MLP step: page faults per step", faults)
    engine_phases = mlp_phases(engine, *mlp_data(), n, repeat)
    torch_phases = mlp_phases(torch, *mlp_data(), n, repeat) if torch is not None else {}
    for phase, engine_s in engine_phases.items():
        compare(f"MLP step, {phase} alone", engine_s, "torch" if torch_phases else "-",
                torch_phases.get(phase))
    if torch is not None:
        x, w = data[0], data[2][0]
        tx, tw = torch.from_numpy(x), torch.from_numpy(w)
        numpy_product = median_time(lambda: x @ w.T, n * 10, repeat)
        torch_product = median_time(lambda: tx @ tw.T, n * 10, repeat)
        rows.append(("for scale: one 64x784 @ 784x256 float32 product, numpy (not the engine)",
                     fmt(numpy_product), "torch", fmt(torch_product),
                     f"{numpy_product / torch_product:.2f}x", "-", "-"))
        print(f"  one 64x784 @ 784x256 product: numpy {fmt(numpy_product)}, "
              f"torch {fmt(torch_product)}", flush=True)

    print("Tiny tensors (3 elements)")
    n = 2_000 if args.quick else 20_000
    if torch is not None:
        compare("(a * b + a).sum().backward()",
                median_time(tiny_forward_backward(engine), n, repeat),
                "torch", median_time(tiny_forward_backward(torch), n, repeat), 1.0)
        compare("a + b, requires_grad", median_time(tiny_add(engine), n * 5, repeat), "torch",
                median_time(tiny_add(torch), n * 5, repeat), 2.0)

    print("Depth: a chain of y = y * 1.0, then .sum().backward()")
    depths = {}
    for depth in (1_000, 10_000, 100_000):
        forward, backward, peak = depth_row(engine, depth)
        depths[depth] = backward
        torch_backward = depth_row(torch, depth)[1] if torch is not None else None
        rows.append((f"chain of {depth:,} ops: backward (forward {fmt(forward)}, "
                     f"peak {peak:.0f} MiB)", fmt(backward),
                     "torch" if torch is not None else "-", fmt(torch_backward),
                     "-" if torch_backward is None else f"{backward / torch_backward:.1f}x",
                     "-", "-"))
        print(f"  {depth:>7,} ops: forward {fmt(forward)}, backward {fmt(backward)}, "
              f"peak {peak:.1f} MiB", flush=True)
    growth = depths[100_000] / depths[10_000]
    rows.append(("backward growth, 10^5 vs 10^4 ops", f"{growth:.1f}x", "linear", "10x",
                 f"{growth:.1f}x", "<= 12x", "yes" if growth <= 12 else "NO"))
    print(f"  backward growth 10^5 vs 10^4: {growth:.1f}x", flush=True)
    note("chain of 100,000 ops: forward with the garbage collector off",
         fmt(depth_row(engine, 100_000, collect=False)[0]))

    print("Width: 10^4 leaves fanning into one stack")
    n = 1 if args.quick else 3
    compare("fan-in of 10^4 nodes, forward + backward", median_time(fan_in(engine), n, repeat),
            "torch", median_time(fan_in(torch), n, repeat) if torch is not None else None)

    print("Drawing a 500-node graph")
    from engine.viz import draw_graph
    has_dot = shutil.which("dot") is not None
    for label, make in (("a leaf per op", graph_own_leaves),
                        ("one leaf shared by every other op", graph_shared_leaf)):
        big = make(500)
        note(f"draw_graph, 500 nodes ({label}): DOT text",
             fmt(median_time(lambda big=big: draw_graph(big).source, 1, repeat)))
        if has_dot:
            seconds = dot_seconds(draw_graph(big).source, args.dot_timeout)
            note(f"draw_graph, 500 nodes ({label}): SVG with dot (wall)",
                 f"over {args.dot_timeout:g} s (stopped)" if seconds is None else fmt(seconds))
    if not has_dot:
        print("  SVG with dot: skipped (Graphviz's dot is not installed)")

    if not (args.quick or args.no_notebooks):
        print("The course: strict nbval over every notebook (one pytest run)")
        start = time.perf_counter()
        folders = [f for f in ("notebooks", "solutions", "exercises")
                   if any((ROOT / f).glob("*.ipynb"))]
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
             "--nbval-current-env", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg",
             *folders], cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - start
        count = sum(len(list((ROOT / f).glob("[0-9]*.ipynb"))) for f in folders)
        summary = (result.stdout.strip().splitlines() or ["?"])[-1]
        note(f"validate {count} notebooks (nbval, wall time): {summary}", fmt(wall))

    table = ["| What | Engine | Baseline | Baseline time | Ratio | Target | Met |",
             "|---|---|---|---|---|---|---|"]
    table += ["| " + " | ".join(row) + " |" for row in rows]
    print("\n" + "\n".join(table))
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
        f"Machine: {machine()}.\n\n"
        f"Before the run: {load_before}; after: {load_after}.\n\n{busy}"
        "Medians of several repeats of CPU time in one process, one thread everywhere (see "
        "bench/README.md); ratios are engine / baseline.\n\n"
        + "\n".join(table) + "\n", encoding="utf-8")
    print(f"\nWritten to {args.out}")


if __name__ == "__main__":
    main()
