"""The Markdown of every page the service serves (docs and help), rendered to safe HTML.

markdown-it-py renders CommonMark and tables, mdit-py-plugins anchors the headings.
Raw HTML in the Markdown is escaped, and links may only point to ``http(s)://``, ``/``
or ``#``: a page cannot carry a script, whoever wrote its text.

>>> render_markdown("# Hi <b>\\n\\nA `x<y` and [FAQ](/faq).")
'<h1 id="hi-b">Hi &lt;b&gt;</h1>\\n<p>A <code>x&lt;y</code> and <a href="/faq">FAQ</a>.</p>\\n'
>>> render_markdown("[x](javascript:alert(1))")
'<p>[x](javascript:alert(1))</p>\\n'
"""

from __future__ import annotations

import re
from html import escape

from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

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
    """Render the pages' Markdown to HTML (escaped, no raw HTML, safe links only)."""
    return _MARKDOWN.render(text)
