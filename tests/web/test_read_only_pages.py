"""The read-only pages (build/site/read/, course_tools/site/read_only.py): every link between
lessons, exercises, worked answers and the notes beside them points at a page that exists;
the table of contents keeps inline code and links to the headings' real anchors.

The unit tests run always; the walk over the built site runs when `make site` has built it
(CI: `make site test-site`)."""
import json

import pytest

from course_tools.notebook_files import LANGUAGES, course_notebooks
from course_tools.site import read_only
from course_tools.site.check import SITE

# both editions: lesson 00 links to its other edition's
COURSE = set(course_notebooks(languages=LANGUAGES)) | {"notebooks/DIFFERENCES.md",
                                                       "notebooks/SOURCES.md"}


@pytest.mark.parametrize("source, text, expected", [
    ("notebooks/05_graphs_and_leaves.ipynb", "[Next](06_gradient_accumulation.ipynb)",
     "[Next](../06_gradient_accumulation/)"),
    ("notebooks/05_graphs_and_leaves.ipynb", "[do them](../exercises/05_graphs_and_leaves.ipynb)",
     "[do them](../exercises/05_graphs_and_leaves/)"),
    ("notebooks/05_graphs_and_leaves.ipynb", "[answers](../solutions/05_graphs_and_leaves.ipynb)",
     "[answers](../solutions/05_graphs_and_leaves/)"),
    ("notebooks/00_welcome.ipynb", "[differences](DIFFERENCES.md#printing)",
     "[differences](../DIFFERENCES/#printing)"),
    ("exercises/05_graphs_and_leaves.ipynb", "[lesson](../notebooks/05_graphs_and_leaves.ipynb)",
     "[lesson](../../05_graphs_and_leaves/)"),
    ("solutions/04_copying.ipynb", '<a href="../solutions/05_graphs_and_leaves.ipynb">5</a>',
     '<a href="../05_graphs_and_leaves/">5</a>'),
    ("notebooks/SOURCES.md", "[04](04_copying.ipynb) §1", "[04](../04_copying/) §1"),
    ("notebooks/04_copying.ipynb", "[docs](https://pytorch.org/docs/x.md) [top](#top)",
     "[docs](https://pytorch.org/docs/x.md) [top](#top)"),
])
def test_links_point_at_pages(source, text, expected):
    assert read_only.rewrite_links(text, source, COURSE.__contains__) == expected


def test_a_link_to_a_file_without_a_page_stops_the_build():
    with pytest.raises(read_only.ReadOnlyError, match="README.md, which has no read-only page"):
        read_only.rewrite_links("[x](../README.md)", "notebooks/00_welcome.ipynb",
                                COURSE.__contains__)
    with pytest.raises(read_only.ReadOnlyError, match="99_missing.ipynb"):
        read_only.rewrite_links("[x](99_missing.ipynb)", "notebooks/00_welcome.ipynb",
                                COURSE.__contains__)


def test_a_release_without_solutions_names_them_without_a_link():
    """A release's site has no solutions/: a lesson's link to its worked answers becomes the
    link's text (the build would stop on the link); other links stay links."""
    exists = {"exercises/04_copying.ipynb", "notebooks/DIFFERENCES.md"}.__contains__
    text = ("Practise in [ex](../exercises/04_copying.ipynb#top); answers in "
            "[`../solutions/04_copying.ipynb`](../solutions/04_copying.ipynb), "
            "see [web](https://example.org/a.ipynb) and [d](DIFFERENCES.md).")
    assert read_only.unlink_absent(text, "notebooks/04_copying.ipynb", exists) == (
        "Practise in [ex](../exercises/04_copying.ipynb#top); answers in "
        "`../solutions/04_copying.ipynb`, see [web](https://example.org/a.ipynb) and "
        "[d](DIFFERENCES.md).")
    without = {name for name in COURSE if not name.startswith("solutions/")}
    for relative in sorted(without):
        path = read_only.Path(__file__).resolve().parents[2] / relative
        if relative.endswith(".ipynb"):
            for cell in json.loads(path.read_text())["cells"]:
                if cell["cell_type"] == "markdown":
                    text = read_only.unlink_absent("".join(cell["source"]), relative,
                                                   without.__contains__)
                    read_only.rewrite_links(text, relative, without.__contains__)


def test_every_link_in_the_course_has_a_page():
    """What the build does to each markdown cell, without mkdocs: no course link is left
    without a page (the build would stop)."""
    for relative in sorted(COURSE):
        path = read_only.Path(__file__).resolve().parents[2] / relative
        if relative.endswith(".md"):
            read_only.rewrite_links(path.read_text(), relative, COURSE.__contains__)
            continue
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                read_only.rewrite_links("".join(cell["source"]), relative, COURSE.__contains__)


def test_runnable_copy_from_each_kind_of_page():
    assert read_only.runnable_link("notebooks/05_x.ipynb") == \
        "../../lab/index.html?path=notebooks/05_x.ipynb"
    assert read_only.runnable_link("exercises/05_x.ipynb") == \
        "../../../lab/index.html?path=exercises/05_x.ipynb"
    # the Chinese edition's pages (read/zh-CN/...) open in the Chinese site's JupyterLab
    assert read_only.runnable_link("notebooks/zh-CN/05_x.ipynb") == \
        "../../../zh-CN/lab/index.html?path=notebooks/zh-CN/05_x.ipynb"
    assert read_only.runnable_link("solutions/zh-CN/05_x.ipynb") == \
        "../../../../zh-CN/lab/index.html?path=solutions/zh-CN/05_x.ipynb"


@pytest.mark.parametrize("source, text, expected", [
    ("notebooks/zh-CN/00_welcome.ipynb", "[英文版](../00_welcome.ipynb)",
     "[英文版](../../00_welcome/)"),
    ("notebooks/00_welcome.ipynb", "[中文版](zh-CN/00_welcome.ipynb)",
     "[中文版](../zh-CN/00_welcome/)"),
    ("notebooks/zh-CN/05_graphs_and_leaves.ipynb", "[笔记](../DIFFERENCES.md#x)",
     "[笔记](../../DIFFERENCES/#x)"),
    ("exercises/zh-CN/05_graphs_and_leaves.ipynb",
     "[课程](../../notebooks/zh-CN/05_graphs_and_leaves.ipynb)",
     "[课程](../../05_graphs_and_leaves/)"),
])
def test_links_between_the_editions(source, text, expected):
    assert read_only.rewrite_links(text, source, COURSE.__contains__) == expected


_PAGE = """<a href="#5-graphs" class="md-skip">Skip</a>
<a href="#1-leaves-and" class="md-nav__link">
    <span class="md-ellipsis">
        1. Leaves and ,
    </span>
</a>
<a href="#two" class="md-nav__link"><span class="md-ellipsis">Two</span></a>
<h1 id="5-graphs-is_leaf">5. Graphs <code>is_leaf</code><a class="anchor-link" href="#">¶</a></h1>
<h2 id="1-leaves-and-is_leaf-grad_fn">1. Leaves and <code>is_leaf</code>, <code>grad_fn</code>\
<a class="anchor-link" href="#">¶</a></h2>
<h3 id="two">Two<a class="anchor-link" href="#two">¶</a></h3>
"""


def test_the_table_of_contents_names_headings_as_the_page_shows_them():
    page = read_only.headings_in_toc(_PAGE)
    assert '<a href="#1-leaves-and-is_leaf-grad_fn" class="md-nav__link">' in page
    assert "1. Leaves and <code>is_leaf</code>, <code>grad_fn</code>" in page
    assert '<a href="#two" class="md-nav__link">' in page
    assert '<a href="#5-graphs-is_leaf" class="md-skip">' in page


def test_a_heading_without_latin_letters_gets_an_anchor():
    """mkdocs-jupyter makes "完成" (done) the id "": its table-of-contents entry and its own
    link would lead to the top of the page."""
    page = read_only.headings_in_toc(
        '<a href="#" class="md-nav__link"><span class="md-ellipsis">完成</span></a>\n'
        '<a href="#" class="md-nav__link"><span class="md-ellipsis">小结</span></a>\n'
        '<h2 id="">完成<a class="anchor-link" href="#">¶</a></h2>\n'
        '<h2 id="">小结<a class="anchor-link" href="#">¶</a></h2>')
    assert '<a href="#section-1" class="md-nav__link"><span class="md-ellipsis">完成' in page
    assert '<a href="#section-2" class="md-nav__link"><span class="md-ellipsis">小结' in page
    assert '<h2 id="section-1">完成<a class="anchor-link" href="#section-1">' in page
    assert '<h2 id="section-2">小结<a class="anchor-link" href="#section-2">' in page
    # a title too: the theme's "skip to content" link leads to it (mkdocs made it #_1)
    page = read_only.headings_in_toc(
        '<a href="#_1" class="md-skip">跳转</a>\n'
        '<h1 id="">图集<a class="anchor-link" href="#">¶</a></h1>\n'
        '<a href="#draw_graph" class="md-nav__link">'
        '<span class="md-ellipsis">反向计算图：</span></a>\n'
        '<h2 id="draw_graph">反向计算图：<code>draw_graph</code><a class="anchor-link" href="#">')
    assert '<a href="#section-1" class="md-skip">' in page and '<h1 id="section-1">' in page


def test_a_table_of_contents_out_of_step_with_the_headings_stops_the_build():
    with pytest.raises(read_only.ReadOnlyError, match="is not heading"):
        read_only.headings_in_toc(_PAGE.replace("1. Leaves and ,", "1. Something else"))
    with pytest.raises(read_only.ReadOnlyError, match="3 table-of-contents entries"):
        read_only.headings_in_toc(_PAGE + '<a href="#x" class="md-nav__link">'
                                  '<span class="md-ellipsis">X</span>')


@pytest.mark.skipif(not (SITE / "read" / "index.html").exists(),
                    reason=f"the site is not built ({SITE}/read/ missing): run `make site`")
def test_every_link_of_every_read_only_page_works():
    """The built site served on 127.0.0.1: every href and src of every page under read/
    fetched (anchors looked up in their page; JupyterLite's ?path= among the site's files)."""
    broken, external, followed = read_only.broken_links(SITE)
    print(f"{followed} links followed, {len(broken)} broken; "
          f"links to other hosts (not followed): {sorted({link for _, link in external})}")
    assert not broken, broken[:20]
    pages = {p.parent.relative_to(SITE / "read").as_posix() + "/"
             for p in (SITE / "read").rglob("index.html")}
    assert {read_only.page_of(relative) for relative in COURSE} <= pages
    assert followed > 1000  # (the walk did walk)
