"""The checkers' messages in both languages (issue 30): the catalogs are current, complete and
compiled; a check speaks Chinese in a Chinese notebook and English elsewhere; `make progress`
speaks the workspace's language.

The catalog tools are course_tools/messages.py; the language rules are exercises/checks/i18n.py.
"""
from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import engine
import nbformat
import pytest

from course_tools import messages, workspace
from exercises.checks import i18n
from exercises.checks.feedback import Feedback
from exercises.checks.i18n import CHINESE, ENGLISH, course_language, fill, language, speaking
from exercises.checks.toolkit import discover, expect_tensor

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ROOT / "exercises" / "checks"
CHINESE_TEXT = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def english(monkeypatch, tmp_path):
    monkeypatch.delenv("COURSE_LANGUAGE", raising=False)
    monkeypatch.delenv("COURSE_SITE_LANGUAGE", raising=False)
    monkeypatch.chdir(tmp_path)


# --- the catalogs ---------------------------------------------------------------------------

def test_the_template_is_current_and_every_message_is_translated():
    """Re-extraction gives the committed .pot; every message has a non-empty Chinese text
    with the same placeholders, no fuzzy or obsolete entry; the .mo is compiled from the .po."""
    assert messages.problems(ROOT) == []


def test_there_are_catalogs_and_messages():
    assert [messages.language_of(po) for po in messages.catalogs(ROOT)] == ["zh_CN"]
    entries = messages.extract(ROOT)
    assert len(entries) > 800
    assert any(entry.plural for entry in entries)


def test_the_mo_file_is_what_the_po_compiles_to_and_gettext_reads_it():
    (po,) = messages.catalogs(ROOT)
    assert messages.mo_path(po).read_bytes() == messages.compiled(po)
    with open(messages.mo_path(po), "rb") as handle:
        catalog = gettext.GNUTranslations(handle)
    _, entries = messages.read_po(po.read_text(encoding="utf-8"))
    for entry in entries:
        if entry.plural is None:
            assert catalog.gettext(entry.msgid) == entry.msgstr[0]
        else:
            for count in (1, 2, 5):
                assert catalog.ngettext(entry.msgid, entry.plural, count) == entry.msgstr[0]


def test_the_po_reader_and_writer_round_trip():
    (po,) = messages.catalogs(ROOT)
    text = po.read_text(encoding="utf-8")
    header, entries = messages.read_po(text)
    assert header["Language"] == "zh_CN" and header["Plural-Forms"].startswith("nplurals=1")
    assert messages.write_po(entries, "zh_CN") == text


def test_a_stale_template_an_untranslated_message_and_a_placeholder_mismatch_are_found(tmp_path):
    course = tmp_path / "course"
    (course / "exercises" / "checks").mkdir(parents=True)
    (course / "course_tools").mkdir()
    (course / "course_tools" / "workspace.py").write_text("")
    (course / "exercises" / "checks" / "one.py").write_text(
        'from exercises.checks.i18n import _, n_\n'
        'a = _("{what} is right", what=1)\n'
        'b = n_("{n} value", "{n} values", 2)\n')
    messages.do_extract(course)
    po = course / messages.LOCALE / "zh_CN" / "LC_MESSAGES" / "checks.po"
    po.parent.mkdir(parents=True)
    po.write_text("")
    messages.do_update(course)
    found = messages.problems(course)
    assert sum("not translated" in problem for problem in found) == 2
    header, entries = messages.read_po(po.read_text(encoding="utf-8"))
    entries[0].msgstr = ["{whom}是对的"]  # a placeholder renamed
    entries[1].msgstr = ["{n} 个值"]
    po.write_text(messages.write_po(entries, "zh_CN"), encoding="utf-8")
    messages.do_compile(course)
    assert messages.problems(course) == [
        "exercises/checks/locale/zh_CN/LC_MESSAGES/checks.po: placeholders ['whom'] in the "
        "translation of '{what} is right', not ['what']"]
    (course / "exercises" / "checks" / "one.py").write_text('from x import _\nc = _("new")\n')
    assert any("checks.pot is not current" in problem for problem in messages.problems(course))
    (course / "exercises" / "checks" / "two.py").write_text(
        'from x import _\nname = 1\nc = _(f"{name} is new")\n')
    with pytest.raises(ValueError, match="f-string"):
        messages.extract(course)


def _also_seen_terms() -> list:
    """TERMINOLOGY.md's "Also seen" column: terms the Chinese edition does not use."""
    terms = []
    for line in (ROOT / "TERMINOLOGY.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 3 and cells[0] not in ("English", "---"):
            terms += [t.strip() for t in re.split(r"[,，、]", cells[2]) if t.strip()]
    return terms


def test_the_chinese_messages_use_the_terms_of_the_terminology_table():
    also_seen = _also_seen_terms()
    assert "梯度累积" in also_seen and "结点" in also_seen  # the table was read
    (po,) = messages.catalogs(ROOT)
    _, entries = messages.read_po(po.read_text(encoding="utf-8"))
    found = [(term, text) for entry in entries for text in entry.msgstr
             for term in also_seen if term in text]
    assert not found, found


# --- every message goes through the catalog ----------------------------------------------

# The functions whose text arguments a learner reads; a string written straight into one
# of these calls (a literal or an f-string) would stay English in a Chinese notebook.
SAYING = {"wrong", "correct", "not_done", "not_checked", "wrong_form", "expect_tensor",
          "expect_equal", "expect_error", "expect_shares_memory", "expect_items", "unpack",
          "all_of"}
TEXT_KEYWORDS = {"what", "hint", "success", "message"}


CODE = re.compile(r"[\w.\[\]()'\", *=]+")  # a name or expression: x, backup['weight'], f(a, b)


def _plain_strings(node):
    """String literals and f-strings in an expression, not inside a call of _ / n_ / N_
    (nor a dict's keys, nor a piece of code such as a variable's name)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in messages.KEYWORDS:
        return
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
        if text and not (CODE.fullmatch(text) and not re.search(r"[a-z]+ [a-z]+ ", text)):
            yield node
        return
    if isinstance(node, ast.JoinedStr):
        words = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
        if re.search(r"[a-z]+ [a-z]+", words):  # not code such as f"eye({n})"
            yield node
        return
    if isinstance(node, ast.Dict):
        for value in node.values:
            yield from _plain_strings(value)
        return
    for child in ast.iter_child_nodes(node):
        yield from _plain_strings(child)


@pytest.mark.parametrize("path", sorted(CHECKS.glob("*.py")), ids=lambda p: p.name)
def test_no_message_is_written_outside_the_catalog(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):  # a sentence assembled from pieces: "..." + x, x + "."
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and any(
                isinstance(side, ast.Constant) and isinstance(side.value, str)
                and (" " in side.value or side.value in {".", "!", "?", ":", ";"})
                for side in (node.left, node.right)):
            found.append(f"line {node.lineno}: {ast.unparse(node)[:70]}")
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        # any function's what=, hint=, hints=, success=, message= (the toolkit's and the
        # lessons' own helpers), and the message arguments of the toolkit's functions
        texts = [k.value for k in call.keywords if k.arg in TEXT_KEYWORDS | {"hints"}]
        name = call.func.id if isinstance(call.func, ast.Name) else None
        if name in {"wrong", "correct", "not_done", "not_checked"}:
            texts += call.args[:2] if name == "wrong" else call.args[:1]
        if name == "wrong_form":
            texts += [call.args[0], *call.args[2:]]
        for text in texts:
            for node in _plain_strings(text):
                found.append(f"line {node.lineno}: {ast.unparse(node)[:70]}")
    assert not found, f"{path.name}: messages not in the catalog:\n" + "\n".join(found)


# --- which language ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    ("zh-CN", CHINESE), ("zh_CN", CHINESE), ("zh_CN.UTF-8", CHINESE), ("zh", CHINESE),
    ("zh-Hans", CHINESE), ("en", ENGLISH), ("en_US.UTF-8", ENGLISH), ("C", ENGLISH),
    ("fr", ENGLISH), ("", None), (None, None), ("  ", None)])
def test_language_names(name, expected):
    assert i18n.normalise(name) == expected


def test_the_language_of_a_check(monkeypatch, tmp_path):
    monkeypatch.delenv("COURSE_LANGUAGE", raising=False)
    monkeypatch.chdir(tmp_path)
    assert language() == ENGLISH
    chinese = tmp_path / "exercises" / "zh-CN"
    chinese.mkdir(parents=True)
    monkeypatch.chdir(chinese)  # where Jupyter and nbval start a Chinese notebook's kernel
    assert language() == CHINESE
    monkeypatch.setenv("COURSE_LANGUAGE", "en")
    assert language() == ENGLISH
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COURSE_LANGUAGE", "zh-CN")
    assert language() == CHINESE
    with speaking("en"):
        assert language() == ENGLISH
    assert language() == CHINESE
    lookalike = tmp_path / "zh-CN-notes"
    lookalike.mkdir()
    monkeypatch.delenv("COURSE_LANGUAGE")
    monkeypatch.chdir(lookalike)
    assert language() == ENGLISH


def test_the_language_of_a_site_kernel_without_its_drive(monkeypatch, tmp_path):
    """The Chinese site's kernel (COURSE_SITE_LANGUAGE=zh-CN) speaks Chinese where no folder
    says otherwise: a Pyodide kernel without its drive stays in /home/pyodide."""
    monkeypatch.delenv("COURSE_LANGUAGE", raising=False)
    home = tmp_path / "home" / "pyodide"
    home.mkdir(parents=True)
    monkeypatch.chdir(home)
    monkeypatch.setenv(i18n.SITE_VARIABLE, "zh-CN")
    assert language() == CHINESE
    english = tmp_path / "drive" / "exercises"  # with its drive: an English notebook's folder
    english.mkdir(parents=True)
    monkeypatch.chdir(english)
    assert language() == ENGLISH
    chinese = english / "zh-CN"
    chinese.mkdir()
    monkeypatch.chdir(chinese)
    monkeypatch.setenv(i18n.SITE_VARIABLE, "en")
    assert language() == CHINESE  # the notebook's folder comes first
    monkeypatch.setenv("COURSE_LANGUAGE", "en")
    assert language() == ENGLISH  # and COURSE_LANGUAGE before it
    monkeypatch.delenv("COURSE_LANGUAGE")
    monkeypatch.delenv(i18n.SITE_VARIABLE)
    monkeypatch.chdir(home)
    assert language() == ENGLISH


def test_the_language_of_a_workspace(monkeypatch, tmp_path):
    for variable in ("COURSE_LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    assert course_language(tmp_path) == ENGLISH
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert course_language(tmp_path) == CHINESE
    (tmp_path / ".course-language").write_text("en\n")
    assert course_language(tmp_path) == ENGLISH  # the workspace's own choice
    (tmp_path / ".course-language").write_text("zh-CN\n")
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert course_language(tmp_path) == CHINESE
    monkeypatch.setenv("COURSE_LANGUAGE", "en")
    assert course_language(tmp_path) == ENGLISH


def test_spacing_between_chinese_and_latin_words():
    assert fill("{what}的形状是{shape}", {"what": "x", "shape": "(3,)"}) == "x 的形状是 (3,)"
    assert fill("{what}的形状是 {shape}", {"what": "你的答案", "shape": "(3,)"}) == \
        "你的答案的形状是 (3,)"
    assert fill("{what}（{name}）", {"what": "一个模型", "name": "Linear"}) == "一个模型（Linear）"
    assert fill("{what} is {value}.", {"what": "your answer", "value": 2}) == "your answer is 2."
    assert fill("{value!r} {n:>3}", {"value": "a", "n": 7}) == "'a'   7"


# --- the checkers in Chinese ---------------------------------------------------------------

SOME_CHECKERS = ["check_00_float_tensor", "check_00_grad_and_detach", "check_00_matmul_error",
                 "check_04_does_b_change"]


def _verdicts(name):
    check = discover()[name]
    answers = [check.right(engine), ..., *check.wrong(engine)]
    return [check(answer) for answer in answers]


@pytest.mark.parametrize("name", SOME_CHECKERS)
@pytest.mark.parametrize("how", ["variable", "folder"])
def test_a_check_speaks_chinese_in_a_chinese_notebook(name, how, monkeypatch, tmp_path):
    monkeypatch.delenv("COURSE_LANGUAGE", raising=False)
    monkeypatch.chdir(tmp_path)
    english = _verdicts(name)
    if how == "variable":
        monkeypatch.setenv("COURSE_LANGUAGE", "zh-CN")
    else:
        (tmp_path / "exercises" / "zh-CN").mkdir(parents=True)
        monkeypatch.chdir(tmp_path / "exercises" / "zh-CN")
    chinese = _verdicts(name)
    assert [f.status for f in chinese] == [f.status for f in english]
    labels = {"correct": "✅ 正确：", "not_done": "⏳ 尚未完成：", "wrong": "❌ 还不对："}
    for zh, en in zip(chinese, english):
        assert str(zh).startswith(labels[zh.status]), str(zh)
        assert CHINESE_TEXT.search(zh.message), zh.message
        assert not CHINESE_TEXT.search(str(en)), str(en)
        assert "<strong>" + labels[zh.status][2:] + "</strong>" in zh._repr_html_()


def test_a_kernel_started_in_a_chinese_notebooks_folder_speaks_chinese(tmp_path, monkeypatch):
    """As nbval, JupyterLab and `make execute` start it: in the notebook's folder."""
    from nbclient import NotebookClient

    monkeypatch.delenv("COURSE_LANGUAGE", raising=False)
    folder = tmp_path / "exercises" / "zh-CN"
    folder.mkdir(parents=True)
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("from exercises.checks.example import check_00_float_tensor"),
        nbformat.v4.new_code_cell("answer = ..."),
        nbformat.v4.new_code_cell("check_00_float_tensor(answer)")])
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(folder)}}).execute()
    assert nb.cells[2].outputs[0]["data"]["text/plain"] == (
        "⏳ 尚未完成：把 ... 换成你的答案，再重新运行这个单元格。")


def test_a_feedback_keeps_the_language_it_was_made_in(monkeypatch, english):
    made_in_english = expect_tensor([1.0], shape=(1,))
    monkeypatch.setenv("COURSE_LANGUAGE", "zh-CN")
    made_in_chinese = expect_tensor([1.0], shape=(1,))
    assert str(made_in_english) == "❌ Not quite: your answer is a list of 1 value, not a tensor."
    assert str(made_in_chinese) == "❌ 还不对：你的答案是一个含 1 个值的列表，不是张量。"
    assert str(Feedback("correct", "好。")) == "✅ 正确：好。"


# --- make progress in the workspace's language ------------------------------------------------

def _notebook(check_output):
    cells = [nbformat.v4.new_markdown_cell("## Exercise 1.1: Thing 1"),
             nbformat.v4.new_code_cell("answer = ...", id="answer_01_thing"),
             nbformat.v4.new_code_cell("check_01_thing(answer)", id="check_01_thing")]
    cells[1].metadata["tags"] = ["exercise"]
    if check_output:
        cells[1].source, cells[1].execution_count = "answer = 1", 1
        cells[2].execution_count = 2
        cells[2].outputs = [nbformat.v4.new_output(
            "execute_result", {"text/plain": check_output}, execution_count=2)]
    return nbformat.v4.new_notebook(cells=cells)


@pytest.mark.parametrize("verdict, state", [
    ("✅ 正确：做得好。", "done"),
    ("❌ 还不对：你的答案不对。", "not quite"),
    ("⚠️ 尚未检查：上方的答案单元格运行时出错（NameError）：请先改正", "not quite"),
    ("⚠️ 尚未检查：请先运行上方的答案单元格", "answered, not checked")])
def test_progress_reads_a_chinese_notebooks_verdicts(tmp_path, verdict, state):
    course, space = tmp_path / "course" / "exercises", tmp_path / "space" / "exercises"
    course.mkdir(parents=True)
    space.mkdir(parents=True)
    nbformat.write(_notebook(None), course / "01_t.ipynb")
    nbformat.write(_notebook(verdict), space / "01_t.ipynb")
    states = workspace.exercise_states(space / "01_t.ipynb", course / "01_t.ipynb")
    assert [s for _, _, s in states] == [state]


def test_what_progress_looks_for_is_in_every_languages_verdicts():
    from exercises.checks.answer_cells import FIX_FIRST
    from exercises.checks.feedback import label

    for chosen in i18n.LANGUAGES:
        assert i18n.translate(workspace.RAISED, chosen) in i18n.translate(FIX_FIRST, chosen)
    # the extension's "My work" page (course_tools/labextension) looks for the same words
    extension = next((ROOT / "course_tools" / "labextension" / "static").glob("*.js"))
    script = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)),
                    extension.read_text(encoding="utf-8"))
    for chosen in i18n.LANGUAGES:
        for words in (label("correct", chosen), label("wrong", chosen),
                      i18n.translate(workspace.RAISED, chosen)):
            assert f'"{words}"' in script, words


def test_make_progress_speaks_the_workspaces_language(tmp_path, monkeypatch, capsys):
    for variable in ("COURSE_LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    space = tmp_path / "workspace"
    space.mkdir()
    workspace.main(["--workspace", str(space), "--root", str(ROOT), "progress"])
    english = capsys.readouterr().out
    assert "Total: 0 done" in english and not CHINESE_TEXT.search(english)
    (space / ".course-language").write_text("zh-CN\n")
    workspace.main(["--workspace", str(space), "--root", str(ROOT), "progress"])
    chinese = capsys.readouterr().out
    assert "合计：" in chinese and "还不在你的工作区里" in chinese
    assert language() == ENGLISH  # only that command spoke Chinese
