"""How fast does the grader go? 100 submissions of one exercise notebook (lesson 4's worked
answers), graded with 2 workers, each notebook in its own sandbox (bubblewrap where it works).

    .venv/bin/python bench/grade_class.py [--students 100] [--jobs 2]

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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder, out = Path(scratch) / "submissions", Path(scratch) / "out"
        for number in range(args.students):
            (folder / f"student{number:03d}").mkdir(parents=True)
            shutil.copy(ROOT / "solutions" / NOTEBOOK, folder / f"student{number:03d}" / NOTEBOOK)
        isolated = sandbox.bwrap_works()
        start = time.monotonic()
        grades = grade.grade_class(folder, out, jobs=args.jobs, isolate=isolated, progress=None)
        seconds = time.monotonic() - start
    # CPU time of the sandboxes, as their runners report it (what an idle machine's cores would
    # spend): the wall time on a shared machine also counts the time they waited for a core.
    cpu = sum(nb.cpu for g in grades for nb in g.notebooks.values())
    full = sum(1 for g in grades if all(v.points for nb in g.notebooks.values()
                                        for v in nb.verdicts))
    print(f"grading: {args.students} submissions of {NOTEBOOK}, {args.jobs} workers, "
          f"{'bubblewrap' if isolated else 'no sandbox'}: {seconds:.1f} s "
          f"({seconds / args.students:.2f} s per notebook; goal 120 s); {full} with full marks; "
          f"CPU time {cpu / args.students:.2f} s per notebook, so about "
          f"{cpu / args.jobs:.0f} s for all on {args.jobs} idle cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
