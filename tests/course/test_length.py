"""course_tools/length.py measures what the issue asks: a test that cannot tell a Deeper part
from the main path would let the main path grow unseen."""
import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from course_tools.length import (lessons, main_path_characters, main_path_code_cells,
                                 main_path_words, minutes, translation_table)


def lesson(*cells):
    return new_notebook(cells=[new_markdown_cell(c) if isinstance(c, str) else c for c in cells])


def test_deeper_parts_and_collapsed_boxes_are_optional():
    nb = lesson("# 1. Title\n\none two three",
                new_code_cell("x = 1"),
                "**Predict:** four five\n\n<details><summary>Answer</summary>six seven</details>",
                "## Deeper: eight nine", new_code_cell("y = 2"), "ten eleven",
                "## Summary\n\n- twelve", new_code_cell(""))
    # words as split() counts them: "## Summary" is two, a details box's tags stick to its words
    assert main_path_words(nb) == (6 + 3 + 4, 2 + 4 + 2)
    assert main_path_code_cells(nb) == (1, 1)


def test_a_title_inside_a_cell_counts_where_it_stands():
    """A Summary written in the same cell as the end of a Deeper part is on the main path."""
    nb = lesson("## 1. First\n\none", "## Deeper: two three\n\nfour\n\n## Summary\n\n- five six",
                new_code_cell("z = 3"))
    assert main_path_words(nb) == (4 + 5, 5)
    assert main_path_code_cells(nb) == (1, 0)


def test_minutes_use_the_issue_rates():
    assert minutes(150, 0) == 1 and minutes(0, 3) == 2
    assert isinstance(nbformat.v4.new_notebook(), nbformat.NotebookNode)


def test_the_chinese_edition_is_measured_in_characters_with_its_deeper_parts():
    nb = lesson("# 1. 创建张量\n\n张量是 `Tensor`。",
                "**预测：** 形状？\n\n<details><summary>答案</summary>两行</details>",
                "## 深入：步长", new_code_cell("x = 1"), "存储", "## 小结\n\n- 视图")
    # main: 创建张量 张量是 预测 形状 小结 视图; optional: 答案两行 (a box), 深入步长 存储 (Deeper)
    assert main_path_characters(nb) == (4 + 3 + 2 + 2 + 2 + 2, 4 + 4 + 2)
    assert main_path_code_cells(nb) == (0, 1)


def test_the_translation_table_lists_every_lesson():
    rows = translation_table(lessons()).splitlines()
    assert len(rows) == 2 + len(lessons()) and rows[2].startswith("| 00_welcome | ")
