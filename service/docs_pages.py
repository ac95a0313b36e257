"""The Examples and FAQ pages: ``docs/EXAMPLES.md`` at ``/examples``, ``docs/FAQ.md`` at ``/faq``.

The Markdown files are the source (tests execute the examples and the FAQ's code),
rendered here by a small renderer for the subset they use: headings, paragraphs,
fenced code blocks, inline code, bold, links, lists and tables. Every piece of text
is HTML-escaped, and links may only point to ``http(s)://``, ``/`` or ``#``.

>>> render_markdown("# Hi <b>\\n\\nA `x<y` and [FAQ](/faq).")
'<h1 id="hi-b">Hi &lt;b&gt;</h1>\\n<p>A <code>x&lt;y</code> and <a href="/faq">FAQ</a>.</p>'
>>> render_markdown("[x](javascript:alert(1))")
'<p>[x](javascript:alert(1))</p>'
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

from flask import Blueprint, Response, abort

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
    body = render_markdown(path.read_text(encoding="utf-8"))
    html = PAGE_TEMPLATE.format(title=escape(title), nav=_nav(name), body=body)
    return Response(html, mimetype="text/html")


def _nav(current: str) -> str:
    links = [("/", "Play"), ("/docs", "API docs"), ("/docs/api", "API guide"), ("/docs/rules", "Rules"),
             ("/examples", "Examples"), ("/faq", "FAQ")]
    items = []
    for href, text in links:
        mark = ' aria-current="page"' if href == f"/{current}" else ""
        items.append(f'<a href="{href}"{mark}>{text}</a>')
    return " · ".join(items)


# -- the Markdown subset ---------------------------------------------------------

_FENCE = re.compile(r"^```([\w+-]*)\s*$")
_HEADING = re.compile(r"^(#{1,4})\s+(.*)$")
_BULLET = re.compile(r"^[-*]\s+(.*)$")
_NUMBERED = re.compile(r"^\d+\.\s+(.*)$")
_TABLE_RULE = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$")
_INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*|\[([^\]]+)\]\(([^)\s]+)\)")
_SAFE_URL = re.compile(r"^(https?://|/|#)")


def slug(text: str) -> str:
    """The anchor of a heading: lower case, letters and digits joined by ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def inline(text: str) -> str:
    """Escape ``text`` and render inline code, bold and safe links."""
    out = []
    position = 0
    for match in _INLINE.finditer(text):
        code, bold, label, url = match.groups()
        if url is not None and not _SAFE_URL.match(url):
            continue
        out.append(escape(text[position:match.start()], quote=False))
        if code is not None:
            out.append(f"<code>{escape(code, quote=False)}</code>")
        elif bold is not None:
            out.append(f"<strong>{inline(bold)}</strong>")
        else:
            out.append(f'<a href="{escape(url)}">{inline(label)}</a>')
        position = match.end()
    out.append(escape(text[position:], quote=False))
    return "".join(out)


def _cells(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [cell.strip() for cell in line.split("|")]


def render_markdown(text: str) -> str:
    """Render the Markdown subset of the docs to HTML (escaped, no raw HTML)."""
    lines = text.splitlines()
    html: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            end = i + 1
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            code = escape("\n".join(lines[i + 1:end]), quote=False)
            lang = fence.group(1)
            attr = f' class="language-{escape(lang)}"' if lang else ""
            label = f'<span class="lang">{escape(lang)}</span>' if lang else ""
            html.append(f"<pre>{label}<code{attr}>{code}</code></pre>")
            i = end + 1
            continue
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            title = heading.group(2).strip()
            html.append(f'<h{level} id="{slug(title)}">{inline(title)}</h{level}>')
            i += 1
            continue
        if line.lstrip().startswith("|") and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1].strip()):
            head = "".join(f"<th>{inline(cell)}</th>" for cell in _cells(line))
            rows = []
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append("<tr>" + "".join(f"<td>{inline(cell)}</td>" for cell in _cells(lines[i])) + "</tr>")
                i += 1
            html.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
            continue
        for pattern, tag in ((_BULLET, "ul"), (_NUMBERED, "ol")):
            if pattern.match(line):
                items: list[str] = []
                while i < len(lines) and lines[i].strip():
                    item = pattern.match(lines[i])
                    if item:
                        items.append(item.group(1))
                    elif items and lines[i].startswith((" ", "\t")):
                        items[-1] += " " + lines[i].strip()  # continuation line
                    else:
                        break
                    i += 1
                html.append(f"<{tag}>" + "".join(f"<li>{inline(item)}</li>" for item in items) + f"</{tag}>")
                break
        else:
            paragraph = []
            while i < len(lines) and lines[i].strip() and not _starts_block(lines, i):
                paragraph.append(lines[i].strip())
                i += 1
            html.append(f"<p>{inline(' '.join(paragraph))}</p>")
        continue
    return "\n".join(html)


def _starts_block(lines: list[str], i: int) -> bool:
    line = lines[i]
    return bool(_FENCE.match(line) or _HEADING.match(line) or _BULLET.match(line) or _NUMBERED.match(line)
                or (line.lstrip().startswith("|") and i + 1 < len(lines)
                    and _TABLE_RULE.match(lines[i + 1].strip())))


PAGE_TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} — Solitaire Réfléchi</title>
<style>
  body {{ font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2a22;
         background: #f6f4ee; margin: 0; }}
  header, main, footer {{ max-width: 52rem; margin: 0 auto; padding: 0 1.25rem; }}
  header {{ padding-top: 1rem; }}
  nav a {{ color: #1f5f3a; font-weight: 600; }}
  nav a[aria-current] {{ color: #1d2a22; text-decoration: none; }}
  a {{ color: #1f5f3a; }}
  h1, h2, h3 {{ line-height: 1.25; color: #123822; }}
  h2 {{ margin-top: 2.2rem; padding-top: .6rem; border-top: 1px solid #d9d3c3; }}
  code {{ font: .9em/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
          background: #ebe6d8; padding: .05em .3em; border-radius: 3px; overflow-wrap: anywhere; }}
  pre {{ position: relative; background: #14261b; color: #e8f0ea; padding: .9rem 1rem;
         border-radius: 6px; overflow-x: auto; }}
  pre code {{ background: none; padding: 0; color: inherit; overflow-wrap: normal; }}
  pre .lang {{ position: absolute; top: .2rem; right: .5rem; font-size: .7rem; color: #9fb8a7; }}
  table {{ border-collapse: collapse; margin: 1rem 0; }}
  th, td {{ border: 1px solid #cfc8b6; padding: .3rem .6rem; text-align: left; vertical-align: top; }}
  th {{ background: #ebe6d8; }}
  footer {{ margin: 3rem auto 2rem; color: #5b6b60; font-size: .9rem; }}
</style>
</head>
<body>
<header><nav>{nav}</nav></header>
<main>
{body}
</main>
<footer><nav>{nav}</nav></footer>
</body>
</html>
"""
