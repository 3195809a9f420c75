"""Time to the first result: lesson 00 of the course's site against the floor, in one run.

    .venv/bin/python -m course_tools.site.first_result             # what `make first-result` runs
    .venv/bin/python -m course_tools.site.first_result --runs 3 --browsers chromium firefox
    .venv/bin/python -m course_tools.site.first_result --no-save   # measure, keep the file

The floor (issue 28) is a bare JupyterLite site with the Pyodide kernel and numpy only,
built from the same pins as the course's (``build/floor-site/``: `make floor-site`,
``course_tools/site/build.py --floor``): what any such site takes, so what the course adds
to it is what is left. Its one notebook is lesson 00's first two cells written in numpy.

Each run serves both sites on 127.0.0.1 and, in a fresh browser profile (a learner's first
visit: nothing cached), offline as course_tools/site/check.py is: opens the lesson, waits for
the kernel, runs its code cells in order until the first that shows something (lesson 00:
``import engine as torch``, then ``x = torch.tensor(...)``), and records the time from
opening the page to that output, with its parts (JupyterLab shows the notebook; the kernel is
ready; the cells ran). Then it opens the same lesson again in the same profile (a return
visit: the browser's cache holds the site's files). Course and floor alternate, the one
that goes first alternating too, so that a machine's changing load falls on both alike.

The medians go to ``bench/first_result.json`` (the last measurement): the site's first page
states the course's time from it (course_tools/site/build.py), README states both, and
tests/course/test_readme_numbers.py keeps README in step with the file.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from course_tools import browser_check
from course_tools.site import build, check, drivers

ROOT = check.ROOT
SITES = {"course": ROOT / "build" / "site", "floor": ROOT / "build" / "floor-site"}
NOTEBOOKS = {"course": "notebooks/00_welcome.ipynb", "floor": build.FLOOR_NOTEBOOK}
RESULTS = ROOT / "bench" / "first_result.json"
GOAL = 1.25  # the course within 1.25 times the floor (issue 28)
PHASES = ("shown", "kernel", "first_output")


def cells_to_first_output(notebook):
    """The indices of the code cells a learner runs until the first that shows something:
    for the course, up to its first cell with a committed output; for the floor (no outputs
    committed), all of them."""
    cells = notebook["cells"]
    code = [i for i, c in enumerate(cells)
            if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    for position, index in enumerate(code):
        if cells[index].get("outputs"):
            return code[:position + 1]
    return code


def notebook_json(name):
    if name == "floor":
        return build.floor_notebook()
    return json.loads((ROOT / NOTEBOOKS[name]).read_text())


def open_and_run(browser, name):
    """Open the site's lesson and run it to its first output: seconds from opening the page
    to each phase, or a "problem"."""
    page, started = browser.page, time.monotonic()
    times = {}
    cells = cells_to_first_output(notebook_json(name))
    try:
        page.goto(f"{browser.base}/lab/index.html?path={NOTEBOOKS[name]}")
        browser_check.wait_until(lambda: page.evaluate(check.NOTEBOOK_SHOWN), check.PAGE_LOAD,
                                 "the notebook to open", 0.05)
        times["shown"] = time.monotonic() - started
        browser_check.wait_until(lambda: page.evaluate(check.KERNEL_STATUS) == "idle",
                                 browser.kernel_start, "the Pyodide kernel to be idle", 0.05)
        times["kernel"] = time.monotonic() - started
        for index in cells:
            page.evaluate(check.RUN_CELL, index)

            def done(index=index):
                state = page.evaluate(check.CELL_STATE, index)
                return state if state["count"] is not None and state["state"] != "running" \
                    and page.evaluate(check.KERNEL_STATUS) == "idle" else None

            state = browser_check.wait_until(done, check.CELL, f"cell {index} to run", 0.05)
            errors = [o for o in state["outputs"] if o["output_type"] == "error"]
            if errors:
                return {"problem": f"cell {index}: {errors[0]['ename']}: {errors[0]['evalue']}"}
        if not state["outputs"]:
            return {"problem": f"cell {cells[-1]} showed nothing"}
        times["first_output"] = time.monotonic() - started
        times["output"] = check.text_of(state["outputs"][0]).strip()[:80]
    except Exception as error:  # a timeout is a finding
        return {"problem": f"{type(error).__name__}: {error}"}
    return times


def one_run(engine, name, tmp, playwright=None):
    """A fresh profile: the first visit, then a return visit (the same page opened again)."""
    with check.SiteServer(SITES[name], expose_app=engine != "chromium") as server:
        if engine == "chromium":
            browser = check.OfflineBrowser(playwright, Path(tmp) / f"chromium-{name}",
                                           server.base, SITES[name])
        else:
            browser = check.WebDriverBrowser(engine, Path(tmp) / f"{engine}-{name}",
                                             server.base)
        try:
            first = open_and_run(browser, name)
            again = open_and_run(browser, name) if "problem" not in first else {}
            if browser.blocked:
                first = {"problem": f"asked another host: {browser.blocked[:3]}"}
        finally:
            browser.close()
    return first, again


def median(values):
    return round(statistics.median(values), 1) if values else None


def summarise(samples):
    """Per site and visit: each phase's median and range over the runs that worked."""
    out = {}
    for key, runs in samples.items():
        good = [r for r in runs if "problem" not in r and r]
        out[key] = {"runs": len(good),
                    "problems": [r["problem"] for r in runs if "problem" in r]}
        for phase in PHASES:
            values = [r[phase] for r in good]
            out[key][phase] = median(values)
            out[key][phase + "_range"] = ([round(min(values), 1), round(max(values), 1)]
                                          if values else None)
    return out


def measure(engines, runs, log=lambda text: print(text, flush=True)):
    """``runs`` alternated rounds of course and floor in each engine; the summary."""
    results = {}
    for engine in engines:
        samples = {f"{name}/{visit}": [] for name in SITES for visit in ("first", "again")}
        with tempfile.TemporaryDirectory(prefix="first-result-") as tmp:
            playwright = None
            if engine == "chromium":
                from playwright.sync_api import sync_playwright
                playwright = sync_playwright().start()
            try:
                for run in range(runs):
                    order = ("course", "floor") if run % 2 == 0 else ("floor", "course")
                    for name in order:
                        first, again = one_run(engine, name, Path(tmp) / str(run), playwright)
                        samples[f"{name}/first"].append(first)
                        samples[f"{name}/again"].append(again)
                        log(f"{engine} run {run + 1}/{runs} {name}: first visit "
                            f"{describe(first)}; again {describe(again)}")
            finally:
                if playwright is not None:
                    playwright.stop()
        summary = summarise(samples)
        course, floor = summary["course/first"], summary["floor/first"]
        if course["first_output"] and floor["first_output"]:
            summary["ratio"] = round(course["first_output"] / floor["first_output"], 2)
        results[engine] = summary
    return results


def describe(times):
    if not times:
        return "-"
    if "problem" in times:
        return f"PROBLEM {times['problem']}"
    return (f"shown {times['shown']:.1f} s, kernel {times['kernel']:.1f} s, first output "
            f"{times['first_output']:.1f} s ({times['output']!r})")


def load_average():
    try:
        return [round(x, 1) for x in os.getloadavg()]
    except OSError:
        return None


def table(results):
    lines = ["| browser | site | visit | notebook shown | kernel ready | first output (range) |",
             "|---|---|---|---|---|---|"]
    for engine, summary in results.items():
        for key, row in summary.items():
            if key == "ratio":
                continue
            site, visit = key.split("/")
            lines.append(f"| {engine} | {site} | {visit} | {row['shown']} s | {row['kernel']} s | "
                         f"{row['first_output']} s ({row['first_output_range']}) |")
        if "ratio" in summary:
            lines.append(f"| {engine} | course / floor | first | | | **{summary['ratio']}x** |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="rounds per browser (default 5)")
    parser.add_argument("--browsers", nargs="+", choices=check.ENGINES, default=["chromium"])
    parser.add_argument("--no-save", action="store_true",
                        help=f"print only; leave {RESULTS.relative_to(ROOT)} as it is")
    args = parser.parse_args(argv)
    for name, site in SITES.items():
        if not (site / "jupyter-lite.json").exists():
            how = "make site" if name == "course" else "make floor-site"
            print(f"first_result: {site.relative_to(ROOT)} is not built (`{how}`)")
            return 1
    engines = []
    for engine in args.browsers:
        reason = drivers.missing(engine) if engine != "chromium" else (
            None if Path(check.CHROMIUM).exists() else f"no Chromium at {check.CHROMIUM}")
        if reason:
            print(f"first_result: skipping {engine}: {reason}")
        else:
            engines.append(engine)
    if not engines:
        return 1
    load_before = load_average()
    started = time.monotonic()
    results = measure(engines, args.runs)
    record = {
        "what": "seconds from opening lesson 00 to its first output: the course's site "
                "(build/site) and the floor (build/floor-site: JupyterLite, the Pyodide "
                "kernel and numpy only, the same pins); medians over the runs",
        "command": "python -m course_tools.site.first_result " + " ".join(argv or sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "load_average": {"before": load_before, "after": load_average()},
        "minutes": round((time.monotonic() - started) / 60, 1),
        "runs": args.runs, "goal": GOAL, "results": results,
        "versions": site_versions(),
    }
    print(table(results))
    print(f"load average before {load_before}, after {load_average()}; "
          f"{record['minutes']} min")
    if not args.no_save:
        RESULTS.write_text(json.dumps(record, indent=1) + "\n")
        print(f"written to {RESULTS.relative_to(ROOT)}")
    return 0 if all("ratio" in r for r in results.values()) else 1


def site_versions():
    """What the sites were built from (course_tools/site/site.env and requirements.txt)."""
    env = build.read_env(build.WEB / "site.env")
    pins = dict(line.split("==") for line in (build.WEB / "requirements.txt").read_text()
                .splitlines() if "==" in line and not line.startswith("#"))
    return {"jupyterlite-core": pins.get("jupyterlite-core"),
            "jupyterlite-pyodide-kernel": pins.get("jupyterlite-pyodide-kernel"),
            "pyodide": env.get("PYODIDE_VERSION")}


if __name__ == "__main__":
    sys.exit(main())
