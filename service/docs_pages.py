"""The Examples and FAQ pages: ``docs/EXAMPLES.md`` at ``/examples``, ``docs/FAQ.md`` at ``/faq``.

The Markdown files are the source (tests execute the examples and the FAQ's code),
rendered by markdown-it-py (CommonMark and tables, headings anchored by
mdit-py-plugins) into ``templates/docs_page.html``. Raw HTML in the Markdown is
escaped, and links may only point to ``http(s)://``, ``/`` or ``#``.

>>> render_markdown("# Hi <b>\\n\\nA `x<y` and [FAQ](/faq).")
'<h1 id="hi-b">Hi &lt;b&gt;</h1>\\n<p>A <code>x&lt;y</code> and <a href="/faq">FAQ</a>.</p>\\n'
>>> render_markdown("[x](javascript:alert(1))")
'<p>[x](javascript:alert(1))</p>\\n'
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

from flask import Blueprint, Response, abort, render_template
from markdown_it import MarkdownIt
from markupsafe import Markup
from mdit_py_plugins.anchors import anchors_plugin

DOCS_DIR = Path(__file__).resolve().parent.parent / "docs"

#: Served pages: URL path → (Markdown file, page title).
PAGES = {
    "examples": ("EXAMPLES.md", "Examples"),
    "faq": ("FAQ.md", "FAQ"),
    "docs/rules": ("RULES.md", "Rules"),
    "docs/api": ("API.md", "API guide"),
}

docs_bp = Blueprint("docs_pages", __name__)


@docs_bp.get("/examples")
def examples() -> Response:
    """Real requests and answers, each from a game code; tests replay every one."""
    return _page("examples")


@docs_bp.get("/faq")
def faq() -> Response:
    """Game codes, the deal algorithm with code to paste, scoring and undo questions."""
    return _page("faq")


@docs_bp.get("/docs/rules")
def rules_page() -> Response:
    """The rules the service enforces, its scoring and its refusal codes (docs/RULES.md)."""
    return _page("docs/rules")


@docs_bp.get("/docs/api")
def api_page() -> Response:
    """The HTTP conventions and the endpoints in prose (docs/API.md), beside the spec at /docs."""
    return _page("docs/api")


def _page(name: str) -> Response:
    filename, title = PAGES[name]
    path = DOCS_DIR / filename
    if not path.is_file():
        abort(404)
    body = Markup(render_markdown(path.read_text(encoding="utf-8")))  # escaped by the renderer
    html = render_template("docs_page.html", title=title, links=NAV, current=f"/{name}", body=body)
    return Response(html, mimetype="text/html")


#: The pages' navigation: (href, text).
NAV = [("/", "Play"), ("/docs", "API docs"), ("/docs/api", "API guide"), ("/docs/rules", "Rules"),
       ("/examples", "Examples"), ("/faq", "FAQ")]


# -- Markdown ------------------------------------------------------------------------

_SAFE_URL = re.compile(r"^(https?://|/|#)")


def slug(text: str) -> str:
    """The anchor of a heading: lower case, letters and digits joined by ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _text(renderer, tokens, index, options, env) -> str:
    return escape(tokens[index].content, quote=False)


def _code_inline(renderer, tokens, index, options, env) -> str:
    return f"<code>{escape(tokens[index].content, quote=False)}</code>"


def _fence(renderer, tokens, index, options, env) -> str:
    """A code block, its language named in a corner (``pre .lang``) and as the code's class."""
    token = tokens[index]
    code = escape(token.content.removesuffix("\n"), quote=False)
    lang = escape(token.info.strip().split(" ")[0]) if token.info.strip() else ""
    if not lang:
        return f"<pre><code>{code}</code></pre>\n"
    return f'<pre><span class="lang">{lang}</span><code class="language-{lang}">{code}</code></pre>\n'


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.use(anchors_plugin, min_level=1, max_level=4, slug_func=slug)
    md.validateLink = lambda url: _SAFE_URL.match(url) is not None
    md.add_render_rule("text", _text)
    md.add_render_rule("code_inline", _code_inline)
    md.add_render_rule("fence", _fence)
    md.add_render_rule("code_block", _fence)
    return md


_MARKDOWN = _markdown()


def render_markdown(text: str) -> str:
    """Render the docs' Markdown to HTML (escaped, no raw HTML, safe links only)."""
    return _MARKDOWN.render(text)
