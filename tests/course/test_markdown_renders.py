"""Every markdown cell renders as its author meant: no `*` or `**` left on the page.

CommonMark closes `**bold**` only on a right-flanking run: `**预测：**下面` (punctuation
inside, a letter outside) shows its asterisks, in JupyterLab as in mistune. Chinese text meets
this all the time (full-width punctuation beside Chinese characters), English text rarely; the
fix is a space outside the delimiters (`**预测：** 下面`). Asterisks inside code and math are
the author's and are left alone.
"""
import re
from pathlib import Path

import mistune
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(p for folder in ("notebooks", "solutions", "exercises")
                   for p in (ROOT / folder).rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)
RENDER = mistune.create_markdown(plugins=["table", "strikethrough"])
CODE = re.compile(r"<code[^>]*>.*?</code>", re.S)
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)
STRAY = re.compile(r"(?<![\\*])\*{1,3}(?!\*)")


def stray_asterisks(source):
    html = CODE.sub("", RENDER(MATH.sub("", source)))
    return [html[max(m.start() - 25, 0):m.end() + 25] for m in STRAY.finditer(html)]


def test_the_rule_it_enforces():
    assert stray_asterisks("**预测：**下面的单元格") != []
    assert stray_asterisks("**预测：** 下面的单元格") == []
    assert stray_asterisks("以*（最小误差）*的形式") != []
    assert stray_asterisks("**Predict:** what does it print?") == []
    assert stray_asterisks("`a * b` and $a * b$ and\n\n```python\nx * y\n```") == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_asterisk_is_left_on_the_page(path):
    notebook = nbformat.read(path, as_version=4)
    problems = [f"cell {cell.get('id')}: ...{snippet}..." for cell in notebook.cells
                if cell.cell_type == "markdown" for snippet in stray_asterisks(cell.source)]
    assert not problems, "\n".join(problems)
