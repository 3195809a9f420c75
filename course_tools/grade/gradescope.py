"""The Gradescope autograder (``make gradescope``): a zip Gradescope's "Zip file upload" takes.

Gradescope unpacks it into ``/autograder/source/``, runs ``setup.sh`` once when it builds the
image, then ``run_autograder`` for each submission: the student's files are in
``/autograder/submission/``, and the result goes to ``/autograder/results/results.json``.
Here ``run_autograder`` puts the submitted exercise notebooks in a one-student class and runs
the course's grader on it (``python -m course_tools.grade grade``), whose
``<student>/results.json`` is already in Gradescope's format. Every submission has a container
of its own; bubblewrap usually cannot run inside it, so the grader warns and runs with its
limits only (which the container's isolation makes up for).

The zip holds the released course (no solutions, ``release.py``) plus the grader itself.
``AUTOGRADER`` (default ``/autograder``) and ``PYTHON`` let a test run ``run_autograder`` in a
simulated layout.
"""
from __future__ import annotations

import shutil
import stat
import tempfile
import zipfile
from pathlib import Path

from course_tools.grade import release
from course_tools.notebook_files import ROOT

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
set -euo pipefail
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv python3-pip \\
  bubblewrap >/dev/null
cd /autograder/source
python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e . nbformat
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission: grade /autograder/submission/*.ipynb with the
# course's own checkers, write /autograder/results/results.json.
set -uo pipefail
AUTOGRADER="${AUTOGRADER:-/autograder}"
SOURCE="$AUTOGRADER/source"
PYTHON="${PYTHON:-$SOURCE/.venv/bin/python}"
work="$(mktemp -d)"
mkdir -p "$work/class/submission" "$AUTOGRADER/results"
# the submission's folders kept: the grader picks the exercise notebook where a lesson of the
# same name came too (a whole workspace, a Download my work zip)
cp -R "$AUTOGRADER/submission/." "$work/class/submission/" 2>/dev/null
cd "$SOURCE"
if "$PYTHON" -m course_tools.grade grade "$work/class" --out "$work/out" --jobs 1 \\
    > "$work/log.txt" 2>&1 \\
    && [ -f "$work/out/submission/results.json" ]; then
  cp "$work/out/submission/results.json" "$AUTOGRADER/results/results.json"
else
  "$PYTHON" - "$work/log.txt" "$AUTOGRADER/results/results.json" <<'PY'
import json, sys
log = open(sys.argv[1], encoding="utf-8", errors="replace").read()[-4000:]
message = ("No exercise notebook (NN_name.ipynb) was found in the submission." if "is not a folder"
           not in log and "Traceback" not in log else "The grader failed:\\n" + log)
json.dump({"score": 0, "output": message, "tests": []}, open(sys.argv[2], "w"))
PY
fi
cat "$work/log.txt"
rm -rf "$work"
"""


def build(out: Path, root: Path = ROOT) -> Path:
    """Write ``out/gradescope-autograder.zip``; return its path."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    archive = out / "gradescope-autograder.zip"
    with tempfile.TemporaryDirectory() as scratch:
        folder, _ = release.release(Path(scratch), root)
        shutil.copytree(root / "course_tools" / "grade", folder / "course_tools" / "grade",
                        ignore=shutil.ignore_patterns("__pycache__"))
        (folder / "setup.sh").write_text(SETUP, encoding="utf-8")
        (folder / "run_autograder").write_text(RUN, encoding="utf-8")
        archive.unlink(missing_ok=True)
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    info = zipfile.ZipInfo(path.relative_to(folder).as_posix())
                    executable = path.name in ("setup.sh", "run_autograder")
                    info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
                    info.compress_type = zipfile.ZIP_DEFLATED
                    zipped.writestr(info, path.read_bytes())
    return archive
