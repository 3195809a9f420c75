"""How fast does the grader go? 100 submissions of one exercise notebook (lesson 4's worked
answers), graded with 2 workers, each notebook in its own sandbox (bubblewrap where it works).

    .venv/bin/python bench/grade_class.py [--students 100] [--jobs 2]
    .venv/bin/python bench/run.py --only grading     # the same, as bench/run.py's row

Issue 29's goal: at most 2 minutes for 100 on a 2-core machine. Prints the wall time, the
time per notebook, and whether it ran isolated. Not asserted anywhere (timings vary).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from course_tools.grade import grade, sandbox

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = "04_copying.ipynb"


def measure(students: int = 100, jobs: int = 2) -> dict:
    """Grade ``students`` copies of lesson 4's worked answers with ``jobs`` workers: the wall
    time, the sandboxes' CPU time per notebook (as their runners report it: what an idle
    machine's cores would spend; the wall time on a shared machine also counts the time they
    waited for a core), whether bubblewrap isolated them, and how many got full marks."""
    with tempfile.TemporaryDirectory() as scratch:
        folder, out = Path(scratch) / "submissions", Path(scratch) / "out"
        for number in range(students):
            (folder / f"student{number:03d}").mkdir(parents=True)
            shutil.copy(ROOT / "solutions" / NOTEBOOK, folder / f"student{number:03d}" / NOTEBOOK)
        isolated = sandbox.bwrap_works()
        start = time.monotonic()
        grades = grade.grade_class(folder, out, jobs=jobs, isolate=isolated, progress=None)
        seconds = time.monotonic() - start
    cpu = sum(nb.cpu for g in grades for nb in g.notebooks.values())
    full = sum(1 for g in grades if all(v.points for nb in g.notebooks.values()
                                        for v in nb.verdicts))
    return {"students": students, "jobs": jobs, "seconds": seconds, "isolated": isolated,
            "cpu_per_notebook": cpu / students, "full_marks": full}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    m = measure(args.students, args.jobs)
    print(f"grading: {m['students']} submissions of {NOTEBOOK}, {m['jobs']} workers, "
          f"{'bubblewrap' if m['isolated'] else 'no sandbox'}: {m['seconds']:.1f} s "
          f"({m['seconds'] / m['students']:.2f} s per notebook; goal 120 s); "
          f"{m['full_marks']} with full marks; CPU time {m['cpu_per_notebook']:.2f} s per "
          f"notebook, so about {m['cpu_per_notebook'] * m['students'] / m['jobs']:.0f} s for "
          f"all on {m['jobs']} idle cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
