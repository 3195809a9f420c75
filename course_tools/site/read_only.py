"""The read-only pages (build/site/read/): where each course file's page lives, its links
rewritten to those pages, and a table of contents that keeps inline code.

Standard library only: build.py runs mkdocs on what this prepares, and the tests check these
functions without mkdocs.

Pages (mkdocs's directory URLs, under read/): a lesson ``notebooks/05_x.ipynb`` at ``05_x/``,
``exercises/05_x.ipynb`` at ``exercises/05_x/``, ``solutions/05_x.ipynb`` at
``solutions/05_x/``, a note such as ``notebooks/DIFFERENCES.md`` at ``DIFFERENCES/``. The
Chinese edition's (``notebooks/zh-CN/05_x.ipynb``, ...) are the same under ``read/zh-CN/``
(``zh-CN/05_x/``, ``zh-CN/exercises/05_x/``), a site of their own whose pages link to the
English ones where the Chinese notebooks do (lesson 00 to its English twin, the notes).
"""
import functools
import html
import http.server
import posixpath
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

# a markdown link or an HTML href whose target is another course file (not a web address)
_LINK = re.compile(r"(\]\(|href=\")(?!https?:|mailto:|#)([^)\"\s]+?\.(?:ipynb|md))(#[^)\"\s]*)?"
                   r"(?=[)\"])")
_HEADING = re.compile(r"<h([2-6]) id=\"([^\"]+)\">(.*?)<a class=\"anchor-link\"", re.S)
_TOC_ENTRY = re.compile(r"(<a href=\"#)([^\"]*)(\" class=\"md-nav__link\">\s*"
                        r"<span class=\"md-ellipsis\">\s*)(.*?)(\s*</span>)", re.S)


class ReadOnlyError(Exception):
    """The read-only pages cannot be made as promised (a page's contents moved under us)."""


EDITIONS = ("zh-CN",)  # the translated editions' folders (course_tools/notebook_files.py)


def edition_of(course_path):
    """The translated edition a course file belongs to ("zh-CN"), or "" (the English one)."""
    parts = course_path.split("/")
    return parts[1] if len(parts) == 3 and parts[1] in EDITIONS else ""


def _in_edition(course_path):
    """(edition, the path as the English edition lays it out): notebooks/zh-CN/x -> notebooks/x."""
    edition = edition_of(course_path)
    if edition:
        folder, _, name = course_path.split("/")
        return edition, f"{folder}/{name}"
    return "", course_path


def page_of(course_path):
    """read/'s folder (with a trailing /) of a course file, or None if it has no page."""
    edition, path = _in_edition(course_path)
    folder, name = posixpath.split(path)
    stem, extension = posixpath.splitext(name)
    prefix = f"{edition}/" if edition else ""
    if folder == "notebooks":
        return f"{prefix}{stem}/"
    if folder in ("exercises", "solutions") and extension == ".ipynb":
        return f"{prefix}{folder}/{stem}/"
    return None


def source_of(course_path):
    """Where its edition's mkdocs docs/ folder holds the page's source (docs/05_x.ipynb, ...)."""
    folder, name = posixpath.split(_in_edition(course_path)[1])
    return name if folder == "notebooks" else f"{folder}/{name}"


def rewrite_links(text, course_path, has_page):
    """``text`` (a markdown cell of ``course_path``) with each link to another course file
    pointing at that file's read-only page, relative to this one's; ``has_page(path)`` says
    which course files have one. A link to a file without a page raises: it would be a 404."""
    here = page_of(course_path)

    def replace(match):
        prefix, target, fragment = match.group(1), match.group(2), match.group(3) or ""
        linked = posixpath.normpath(posixpath.join(posixpath.dirname(course_path), target))
        page = page_of(linked)
        if page is None or not has_page(linked):
            raise ReadOnlyError(f"{course_path} links to {target}, which has no read-only page")
        relative = posixpath.relpath(page, here)
        return f"{prefix}{relative}/{fragment}"

    return _LINK.sub(replace, text)


_MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")


def unlink_absent(text, course_path, exists):
    """``text`` (a markdown cell of ``course_path``) with each markdown link to a course file
    that ``exists(path)`` says is not there replaced by the link's own text: a release without
    solutions still names the worked answers' files (the teacher has them), but a link to one
    would be a 404 (and ``rewrite_links`` refuses it)."""
    def replace(match):
        label, target = match.group(1), match.group(2)
        if re.match(r"https?:|mailto:|#", target) or not target.split("#")[0].endswith(
                (".ipynb", ".md")):
            return match.group(0)
        linked = posixpath.normpath(posixpath.join(posixpath.dirname(course_path),
                                                   target.split("#")[0]))
        return match.group(0) if exists(linked) else label

    return _MARKDOWN_LINK.sub(replace, text)


def runnable_link(course_path):
    """From the page of ``course_path`` up to the site's root, then its copy in JupyterLite:
    the Chinese edition's in the Chinese site's JupyterLab (zh-CN/lab/)."""
    depth = page_of(course_path).count("/")
    edition = edition_of(course_path)
    app = f"{edition}/lab" if edition else "lab"
    return "../" * (depth + 1) + f"{app}/index.html?path={course_path}"


def _plain(fragment):
    """Text of an HTML fragment, tags removed (and inline code left out, as mkdocs's table of
    contents leaves it out), whitespace collapsed."""
    without_code = re.sub(r"<code>.*?</code>", "", fragment, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", without_code)).split())


_UNNAMED = re.compile(r"<h([1-6]) id=\"\">(.*?)<a class=\"anchor-link\" href=\"#\">", re.S)


def _name_unnamed_headings(page):
    """Headings whose id came out empty (mkdocs-jupyter makes it from the heading's Latin
    letters and digits: "完成" has none) named section-1, section-2, ... in the page's order,
    so that the table of contents and the heading's own link lead to it."""
    number = iter(range(1, 1000))

    def name(match):
        anchor = f"section-{next(number)}"
        return (f'<h{match.group(1)} id="{anchor}">{match.group(2)}'
                f'<a class="anchor-link" href="#{anchor}">')

    return _UNNAMED.sub(name, page)


def headings_in_toc(page):
    """The page with its tables of contents (mkdocs-jupyter writes two: the site's navigation
    and the page's own) naming each heading as the page shows it, inline code included, and
    linking to the heading's real anchor. mkdocs-jupyter builds its entries from the heading
    text without the code ("3. Leaves and computed tensors: , ,"), and their anchors from that
    text too (not the heading's own id)."""
    page = _name_unnamed_headings(page)
    headings = [(anchor, inner.strip()) for _, anchor, inner in _HEADING.findall(page)]
    entries = _TOC_ENTRY.findall(page)
    if not headings and not entries:
        return page
    if not headings or len(entries) % len(headings):
        raise ReadOnlyError(f"{len(entries)} table-of-contents entries for {len(headings)} "
                            "headings")
    for index, entry in enumerate(entries):
        anchor, inner = headings[index % len(headings)]
        if _plain(entry[3]) != _plain(inner):
            raise ReadOnlyError(f"table-of-contents entry {entry[3]!r} is not heading {inner!r}")
    position = iter(range(len(entries)))

    def replace(match):
        anchor, inner = headings[next(position) % len(headings)]
        return f"{match.group(1)}{anchor}{match.group(3)}{inner}{match.group(5)}"

    page = _TOC_ENTRY.sub(replace, page)
    # the theme's "skip to content" link aims at the title's anchor, also made without code
    title = re.search(r"<h1 id=\"([^\"]+)\">", page)
    if title:
        page = re.sub(r"(<a href=\"#)[^\"]*(\" class=\"md-skip\">)",
                      lambda m: f"{m.group(1)}{title.group(1)}{m.group(2)}", page)
    return page


# ---------------------------------------------------------------- every link, followed
class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.targets, self.anchors = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("id", "name"):
            if attrs.get(name):
                self.anchors.add(attrs[name])
        for name in ("href", "src"):
            if attrs.get(name) and tag in ("a", "link", "script", "img", "source", "iframe"):
                self.targets.append(attrs[name])


def broken_links(site, folder="read"):
    """Serve ``site`` on 127.0.0.1, open every page under ``site/folder`` and follow each of its
    links (pages, styles, scripts, pictures, anchors, and the ``?path=`` of a link into
    JupyterLite): (page, link, what went wrong) for each that does not work, and how many
    links were followed. Links to other hosts are not followed (returned separately)."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    root = f"http://127.0.0.1:{server.server_address[1]}/"
    fetched, anchors, broken, external, followed = {}, {}, [], [], 0

    def fetch(url):
        if url not in fetched:
            try:
                with urllib.request.urlopen(url, timeout=30) as response:
                    body = response.read()
                    fetched[url] = (response.status, body, response.headers.get_content_type())
            except urllib.error.HTTPError as error:
                fetched[url] = (error.code, b"", "")
        return fetched[url]

    try:
        for page in sorted((Path(site) / folder).rglob("*.html")):
            page_url = root + page.relative_to(site).as_posix()
            parser = _Links()
            parser.feed(fetch(page_url)[1].decode())
            for link in parser.targets:
                if link.startswith(("data:", "javascript:", "mailto:", "blob:")):
                    continue
                url, fragment = urllib.parse.urldefrag(urllib.parse.urljoin(page_url, link))
                if not url.startswith(root):
                    external.append((page.relative_to(site).as_posix(), link))
                    continue
                followed += 1
                status, body, kind = fetch(url)
                if status != 200:
                    broken.append((page.relative_to(site).as_posix(), link, f"HTTP {status}"))
                    continue
                if fragment and kind == "text/html":
                    if url not in anchors:
                        target = _Links()
                        target.feed(body.decode())
                        anchors[url] = target.anchors
                    if urllib.parse.unquote(fragment) not in anchors[url]:
                        broken.append((page.relative_to(site).as_posix(), link,
                                       f"no anchor #{fragment}"))
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
                for path in query.get("path", []):
                    if fetch(root + "files/" + urllib.parse.quote(path))[0] != 200:
                        broken.append((page.relative_to(site).as_posix(), link,
                                       f"{path} is not among the site's files"))
    finally:
        server.shutdown()
        server.server_close()
    return broken, external, followed


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # (a line per request would drown the test's output)
        pass
