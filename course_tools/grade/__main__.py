"""python -m course_tools.grade release OUT [--solutions] | grade SUBMISSIONS [--out OUT] |
gradescope OUT"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from course_tools.grade import grade, gradescope, release, sandbox


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_tools.grade")
    commands = parser.add_subparsers(dest="command", required=True)
    rel = commands.add_parser("release", help="the course without solutions, folder and zip")
    rel.add_argument("out", type=Path)
    rel.add_argument("--solutions", action="store_true", help="include solutions/")
    rel.add_argument("--site", action="store_true",
                     help="build the browser edition of the release too, into OUT/site/ "
                     "(needs make site's tools, .site-venv)")
    gsc = commands.add_parser("gradescope", help="the Gradescope autograder zip")
    gsc.add_argument("out", type=Path)
    gra = commands.add_parser("grade", help="grade SUBMISSIONS/<student>/NN_*.ipynb")
    gra.add_argument("submissions", type=Path)
    gra.add_argument("--out", type=Path, default=Path("build/grades"))
    gra.add_argument("--jobs", type=int, default=2, help="notebooks graded at once (2)")
    gra.add_argument("--notebooks", nargs="*", help="grade these course notebooks (default: "
                     "those handed in)")
    gra.add_argument("--cell-seconds", type=float, default=sandbox.Limits.cell_seconds)
    gra.add_argument("--cpu-seconds", type=int, default=sandbox.Limits.cpu_seconds)
    gra.add_argument("--fresh", action="store_true",
                     help="a new Python for each notebook (default: a child forked from a "
                     "per-worker process that imported the course once)")
    gra.add_argument("--no-sandbox", action="store_true",
                     help="run without bubblewrap even where it works (limits only)")
    args = parser.parse_args(argv)
    if args.command == "release":
        folder, archive = release.release(args.out, solutions=args.solutions)
        what = " (with solutions)" if args.solutions else " (no solutions)"
        print(f"wrote {folder}/ and {archive}{what}", flush=True)
        if args.site:
            start = time.monotonic()
            site = release.site(folder, args.out / "site")
            print(f"wrote {site}/, the browser edition of the release{what}, in "
                  f"{time.monotonic() - start:.0f} s")
        return 0
    if args.command == "gradescope":
        print(f"wrote {gradescope.build(args.out)} (upload it as the autograder's zip file)")
        return 0
    if not args.submissions.is_dir():
        print(f"make grade: {args.submissions} is not a folder", file=sys.stderr)
        return 2
    limits = sandbox.Limits(cell_seconds=args.cell_seconds, cpu_seconds=args.cpu_seconds)
    start = time.monotonic()
    try:
        grades = grade.grade_class(args.submissions, args.out, limits=limits, jobs=args.jobs,
                                   notebooks=args.notebooks,
                                   isolate=False if args.no_sandbox else None, fresh=args.fresh)
    except sandbox.SandboxError as error:
        print(f"make grade: error: {error}", file=sys.stderr)
        return 2
    courses = {n: grade.course_notebook(n) for g in grades[:1] for n in g.notebooks}
    print(grade.summary(grades, courses))
    seconds = time.monotonic() - start
    count = sum(len(g.notebooks) for g in grades)
    print(f"wrote {args.out}/grades.csv and {args.out}/<student>/results.json, feedback.html "
          f"({seconds:.1f} s, {seconds / max(count, 1):.2f} s per notebook)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
