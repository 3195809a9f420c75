"""The Chinese edition kept in step with the English one (issue 30; course_tools/translations.py).

Every translated notebook: the English notebook's cells (count, order, ids, types, tags,
metadata but ``translation``), code identical but for comments, a lesson's outputs identical,
each markdown cell's ``translation.en_sha256`` the fingerprint of the English cell's current
text (else the test prints the English diff to translate, found in git history), and no
"also seen" term of TERMINOLOGY.md in its prose unless quoting. The tests at the end prove
the stale check on a copy of the course in a temporary git repository, never on this one.
"""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from course_tools import translations
from course_tools.notebook_files import (LANGUAGES, course_notebooks, english_counterpart,
                                         language_of)
from course_tools.translations import (compare, fingerprint, refresh, stale_diff, status,
                                       terminology)

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = translations.translated_notebooks(ROOT)
LESSON = "notebooks/04_copying.ipynb"


# --- the repository's translations ----------------------------------------------------------

@pytest.mark.parametrize("name", TRANSLATED)
def test_a_translation_is_in_step_with_its_english_notebook(name):
    report = compare(name, ROOT)
    diffs = [f"stale cell {cell_id} (the English changed since it was translated):\n"
             + stale_diff(report, cell_id, recorded, ROOT)
             for cell_id, recorded, _now in report.stale]
    assert not report.problems, "\n".join(report.problems)
    assert not diffs, "\n\n".join(diffs)
    assert not report.untranslated, f"markdown cells still in English: {report.untranslated}"


@pytest.mark.parametrize("name", TRANSLATED)
def test_a_translation_has_its_english_notebook(name):
    assert (ROOT / english_counterpart(name)).is_file()
    assert language_of(name) == "zh-CN"


LINK = re.compile(r"\]\(([^)\s]+)\)|href=\"([^\"]+)\"")


def links(nb):
    """The relative link targets of a notebook's markdown (no web addresses, no anchors)."""
    found = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            for match in LINK.finditer("".join(cell["source"])):
                target = (match[1] or match[2]).split("#")[0]
                if target and "://" not in target and not target.startswith("mailto:"):
                    found.append(target)
    return found


@pytest.mark.parametrize("name", TRANSLATED)
def test_a_translations_links_stay_in_its_edition_and_lead_somewhere(name):
    """A Chinese notebook links to the Chinese lessons, exercises and solutions (one folder
    down: ../../exercises/zh-CN/...), to repository files one folder further up, and lesson 00
    to the English lesson 00 (../00_welcome.ipynb); a Chinese notebook not translated yet may be
    linked (its English notebook exists)."""
    path = ROOT / name
    nb = json.loads(path.read_text(encoding="utf-8"))
    for target in links(nb):
        resolved = (path.parent / target).resolve()
        relative = resolved.relative_to(ROOT).as_posix() if resolved.is_relative_to(ROOT) \
            else target
        if relative == "notebooks/00_welcome.ipynb" and name.endswith("/00_welcome.ipynb"):
            continue  # lesson 00 links to the other edition
        if resolved.suffix == ".ipynb":
            assert language_of(relative) == "zh-CN", f"{target}: a link to the English edition"
            assert resolved.is_file() or (ROOT / english_counterpart(relative)).is_file(), target
        else:
            assert resolved.exists(), f"{target}: no such file"


def test_the_editions_the_tools_know():
    assert LANGUAGES == ("en", "zh-CN")
    assert english_counterpart("exercises/zh-CN/04_copying.ipynb") == "exercises/04_copying.ipynb"
    assert language_of("notebooks/04_copying.ipynb") == "en"
    english = course_notebooks(ROOT)
    assert english and not [name for name in english if "zh-CN" in name]
    both = course_notebooks(ROOT, LANGUAGES)
    assert both[:len(english)] == english and set(both[len(english):]) == set(TRANSLATED)


def test_every_generated_chinese_exercise_notebook_has_its_translated_solution():
    for name in TRANSLATED:
        if name.startswith("exercises/"):
            assert (ROOT / name.replace("exercises/", "solutions/", 1)).is_file(), name


# --- the terminology table -------------------------------------------------------------------

def test_the_terminology_table_is_read():
    terms = {term.english: term for term in terminology(ROOT / "TERMINOLOGY.md")}
    assert len(terms) >= 35
    assert terms["gradient accumulation"].chosen == "梯度累加"
    assert terms["gradient accumulation"].also_seen == ["梯度累积"]
    assert terms["in-place operation"].also_seen == ["就地操作", "原位操作", "本地操作"]
    assert terms["tensor"].also_seen == []
    chosen = [t.chosen for t in terms.values()]
    # an "also seen" term is never part of a chosen one (it would be reported inside it)
    assert not [(a, c) for t in terms.values() for a in t.also_seen for c in chosen if a in c]


@pytest.mark.parametrize("text, errors", [
    ("每次调用 `backward()`，梯度累积到 `.grad` 上。", 1),
    ("每次调用 `backward()`，梯度累加到 `.grad` 上。", 0),
    ("梯度累加（也叫梯度累积）是这一课的主题。", 0),
    ("梯度累加（也叫“梯度累积”）。", 0),
    ("原文写作“就地操作”，本课程写作原地操作。", 0),
    ("在其他资料里你会读到叶节点。", 0),
    ("代码 `# 梯度累积` 里的词不算。", 0),
    ("叶节点和运算图。", 2),
])
def test_an_also_seen_term_is_an_error_unless_quoting(text, errors):
    assert len(translations.also_seen_errors(text, terminology(ROOT / "TERMINOLOGY.md"))) \
        == errors


# --- a copy of the course in a temporary git repository ---------------------------------------

def _git(root, *args):
    subprocess.run(["git", "-c", "user.name=test", "-c", "user.email=test@example.com",
                    "-c", "commit.gpgsign=false", *args], cwd=root, check=True,
                   capture_output=True)


@pytest.fixture
def course(tmp_path):
    """English lesson 04 and its solutions, TERMINOLOGY.md, and lesson 04's Chinese
    translation started (`new`) with two markdown cells translated, committed in a new git
    repository."""
    root = tmp_path / "course"
    for name in (LESSON, "solutions/04_copying.ipynb", "TERMINOLOGY.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, root / name)
    path = translations.new("04_copying", root=root)
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            cell["source"] = "中文：" + "".join(cell["source"])  # "translated"
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "the course")
    return root


def _markdown(nb, index=1):
    return [cell for cell in nb["cells"] if cell["cell_type"] == "markdown"][index]


def _edit_english(root, change):
    path = root / LESSON
    nb = json.loads(path.read_text(encoding="utf-8"))
    change(nb)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")
    return nb


def test_a_started_translation_has_the_fingerprints_and_the_language(course):
    name = "notebooks/zh-CN/04_copying.ipynb"
    report = compare(name, course)
    assert report.problems == [] and report.stale == [] and report.untranslated == []
    nb = json.loads((course / name).read_text(encoding="utf-8"))
    english = json.loads((course / LESSON).read_text(encoding="utf-8"))
    assert nb["metadata"]["course"] == {"language": "zh-CN"}
    assert _markdown(nb)["metadata"]["translation"] == {
        "en_sha256": fingerprint(_markdown(english)["source"])}
    assert len(fingerprint("x")) == 16


def test_new_never_overwrites_and_status_lists_what_is_missing(course):
    with pytest.raises(FileExistsError):
        translations.new("notebooks/04_copying", root=course)
    with pytest.raises(ValueError, match="make exercises"):
        translations.new("exercises/04_copying", root=course)
    lines, problems = status(course)
    assert problems == 0
    assert "  solutions/zh-CN/04_copying.ipynb" in lines
    untouched = translations.new("solutions/04_copying", root=course)
    report = compare(untouched.relative_to(course).as_posix(), course)
    assert report.untranslated, "a started translation's English cells are untranslated"


def test_changing_one_english_cell_makes_its_translation_stale_with_the_english_diff(course):
    """The stale test proven: one English markdown cell changed (in the temporary copy)."""
    name = "notebooks/zh-CN/04_copying.ipynb"

    def reword(nb):
        cell = _markdown(nb, 2)
        cell["source"] = "".join(cell["source"]) + "\nA sentence added to the English lesson."
        return cell

    before = json.loads((course / LESSON).read_text(encoding="utf-8"))
    changed = _markdown(_edit_english(course, reword), 2)
    report = compare(name, course)
    assert [cell_id for cell_id, _, _ in report.stale] == [changed["id"]]
    cell_id, recorded, now = report.stale[0]
    assert recorded == fingerprint(_markdown(before, 2)["source"]) and now == fingerprint(
        changed["source"])
    diff = stale_diff(report, cell_id, recorded, course)
    assert "+A sentence added to the English lesson." in diff
    assert "(translated from)" in diff and "-" not in diff.split("\n")[2][:1]
    lines, problems = status(course, diffs=True)
    assert problems == 1
    assert any(f"stale cell {cell_id}" in line for line in lines)
    assert any("+A sentence added to the English lesson." in line for line in lines)
    # and committed: the fingerprint's text is found in an older commit
    _git(course, "commit", "-q", "-am", "reworded")
    assert "+A sentence added" in stale_diff(compare(name, course), cell_id, recorded, course)


def test_code_may_differ_only_in_its_comments_and_outputs_not_at_all(course):
    name = "notebooks/zh-CN/04_copying.ipynb"
    path = course / name
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [cell for cell in nb["cells"] if cell["cell_type"] == "code" and cell["outputs"]]
    code[0]["source"] = "".join(code[0]["source"]) + "  # 中文注释"
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")
    assert compare(name, course).problems == []
    code[1]["source"] = "".join(code[1]["source"]) + "\nx = 1"
    code[2]["outputs"] = []
    cells = {cell["id"]: cell for cell in nb["cells"]}
    cells[code[3]["id"]]["metadata"]["tags"] = ["engine-only"]
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")
    problems = compare(name, course).problems
    assert any(code[1]["id"] in p and "code differs" in p for p in problems), problems
    assert any(code[2]["id"] in p and "outputs differ" in p for p in problems), problems
    assert any(code[3]["id"] in p and "metadata" in p for p in problems), problems


def test_a_missing_or_moved_cell_is_reported(course):
    name = "notebooks/zh-CN/04_copying.ipynb"
    path = course / name
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["cells"][3], nb["cells"][4] = nb["cells"][4], nb["cells"][3]
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")
    assert "cells differ" in compare(name, course).problems[0]


def test_refresh_takes_code_and_outputs_from_english_and_keeps_every_translation(course):
    name = "notebooks/zh-CN/04_copying.ipynb"
    path = course / name
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [cell for cell in nb["cells"] if cell["cell_type"] == "code"]
    code[0]["source"] = "".join(code[0]["source"]) + "  # 中文注释"  # stays
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")

    def change(english):
        cells = english["cells"]
        english_code = [c for c in cells if c["cell_type"] == "code"]
        english_code[1]["source"] = "".join(english_code[1]["source"]) + "\nprint(1)"
        english_code[1]["outputs"] = [{"name": "stdout", "output_type": "stream",
                                       "text": ["1\n"]}]
        _markdown(english, 2)["source"] = "Reworded."
        cells.insert(5, {"cell_type": "markdown", "id": "a-new-cell", "metadata": {},
                         "source": ["A new paragraph of the English lesson."]})
        del cells[len(cells) - 1]  # the last cell goes
        return english

    english = _edit_english(course, change)
    _, notes = refresh("04_copying", root=course)
    after = json.loads(path.read_text(encoding="utf-8"))
    assert [c["id"] for c in after["cells"]] == [c["id"] for c in english["cells"]]
    by_id = {c["id"]: c for c in after["cells"]}
    assert "# 中文注释" in "".join(by_id[code[0]["id"]]["source"])
    assert by_id[code[1]["id"]]["outputs"][0]["text"] == ["1\n"]
    assert "".join(by_id[_markdown(english, 2)["id"]]["source"]).startswith("中文：")
    assert by_id["a-new-cell"]["source"] == ["A new paragraph of the English lesson."]
    report = compare(name, course)
    assert report.problems == []
    assert [s[0] for s in report.stale] == [_markdown(english, 2)["id"]]
    assert report.untranslated == ["a-new-cell"]
    assert any(note.startswith("stale cell") for note in notes)
    assert any(note.startswith("removed cell") for note in notes)


# --- the learner's and the author's documents --------------------------------------------------

def test_the_chinese_readme_maps_every_lesson_and_uses_the_chosen_terms():
    readme = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    from course_tools.length import lessons
    for slug in lessons():
        assert f"(notebooks/zh-CN/{slug}.ipynb)" in readme, slug
    for phrase in ("make lab-zh", "make progress", "make reset NB=exercises/zh-CN/",
                   "workspace/exercises/zh-CN/", "TERMINOLOGY.md", "(README.md)"):
        assert phrase in readme, phrase
    assert translations.also_seen_errors(readme, terminology(ROOT / "TERMINOLOGY.md")) == []
    assert "(README.zh-CN.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_authoring_says_how_to_change_a_lesson_in_both_languages():
    text = (ROOT / "notebooks" / "AUTHORING.md").read_text(encoding="utf-8")
    for phrase in ("en_sha256", "make translations-status", "DIFF=1",
                   "course_tools.translations refresh", "course_tools.translations new"):
        assert phrase in text, phrase
