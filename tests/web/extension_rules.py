"""The course's JupyterLab extension's rules (its ``courseWork`` object) run in node, outside a
browser: what tests/web/test_progress_rules.py and test_course_update_rules.py compare with the
Python side. ``NODE`` is None where node is not installed (the tests skip, saying so)."""
import json
import shutil
import subprocess

from course_tools.notebook_files import ROOT

STATIC = ROOT / "course_tools" / "labextension" / "static"
EXTENSION = next(STATIC.glob("remoteEntry.*.js"))
NODE = shutil.which("node")

RUN = """
globalThis.document = {currentScript: null, baseURI: "http://127.0.0.1/extensions/a/static/b.js"};
require("vm").runInThisContext(require("fs").readFileSync(process.argv[1], "utf8"));
const rules = _JUPYTERLAB["autograd-step-by-step"].courseWork;
let input = "";
process.stdin.on("data", d => input += d).on("end", () => {
  const calls = JSON.parse(input);
  process.stdout.write(JSON.stringify(calls.map(([name, args]) => rules[name](...args))));
});
"""


def run_rules(calls):
    """``[[rule name, [arguments]], ...]`` -> what each call of the extension's rule returned."""
    done = subprocess.run([NODE, "-e", RUN, str(EXTENSION)], input=json.dumps(calls),
                          capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)
