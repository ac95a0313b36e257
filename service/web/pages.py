"""Every page served from Markdown: the developers' docs and the players' help.

* Docs, in English, from the repository's ``docs/`` (tests execute the examples and
  the FAQ's code): ``/examples``, ``/faq``, ``/docs/rules``, ``/docs/api``, in
  ``templates/docs_page.html``.
* Help, in en, de, da, ro and ja (``?lang=``, else ``Accept-Language``), from
  ``web/help/{page}.{lang}.md``: ``/help/rules`` (with the scoring table),
  ``/help/examples`` and ``/help/faq``, in ``templates/help_page.html``. A help page
  has one line type of its own: ``@board CODE | SETUP | TRIED`` draws a position
  and what each tried action does on it (:mod:`.boards`).

Both render through :func:`.markdown.render_markdown`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from flask import Blueprint, Response, abort, render_template, request
from markupsafe import Markup

from .. import i18n
from .boards import board_html
from .markdown import render_markdown

pages_bp = Blueprint("pages", __name__)

# -- the docs --------------------------------------------------------------------------

DOCS_DIR = Path(__file__).resolve().parents[2] / "docs"

#: Served docs: URL path → (Markdown file, page title).
DOCS = {
    "examples": ("EXAMPLES.md", "Examples"),
    "faq": ("FAQ.md", "FAQ"),
    "docs/rules": ("RULES.md", "Rules"),
    "docs/api": ("API.md", "API guide"),
}

#: The docs' navigation: (href, text).
NAV = [("/", "Play"), ("/docs", "API docs"), ("/docs/api", "API guide"), ("/docs/rules", "Rules"),
       ("/examples", "Examples"), ("/faq", "FAQ")]


@pages_bp.get("/examples")
def docs_examples() -> Response:
    """Real requests and answers, each from a game code; tests replay every one."""
    return _docs_page("examples")


@pages_bp.get("/faq")
def docs_faq() -> Response:
    """Game codes, the deal algorithm with code to paste, scoring and undo questions."""
    return _docs_page("faq")


@pages_bp.get("/docs/rules")
def docs_rules() -> Response:
    """The rules the service enforces, its scoring and its refusal codes (docs/RULES.md)."""
    return _docs_page("docs/rules")


@pages_bp.get("/docs/api")
def docs_api() -> Response:
    """The HTTP conventions and the endpoints in prose (docs/API.md), beside the spec at /docs."""
    return _docs_page("docs/api")


def _docs_page(name: str) -> Response:
    filename, title = DOCS[name]
    path = DOCS_DIR / filename
    if not path.is_file():
        abort(404)
    body = Markup(render_markdown(path.read_text(encoding="utf-8")))  # escaped by the renderer
    html = render_template("docs_page.html", title=title, links=NAV, current=f"/{name}", body=body)
    return Response(html, mimetype="text/html")


# -- the players' help ----------------------------------------------------------------

HELP_DIR = Path(__file__).resolve().parent / "help"
HELP_PAGES = ("rules", "examples", "faq")

#: The help pages' chrome in each language: the pages' names and the language picker's label.
CHROME = {
    "en": {"play": "Play", "rules": "Rules", "examples": "Examples", "faq": "FAQ", "language": "Language"},
    "de": {"play": "Spielen", "rules": "Regeln", "examples": "Beispiele", "faq": "FAQ", "language": "Sprache"},
    "da": {"play": "Spil", "rules": "Regler", "examples": "Eksempler", "faq": "FAQ", "language": "Sprog"},
    "ro": {"play": "Joacă", "rules": "Reguli", "examples": "Exemple", "faq": "Întrebări", "language": "Limbă"},
    "ja": {"play": "プレイ", "rules": "ルール", "examples": "実例", "faq": "よくある質問", "language": "言語"},
}
#: In the order of i18n.LANGUAGES: the language picker lists them so.
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "da": "Dansk", "ro": "Română", "ja": "日本語"}
#: The play page's icon, a spade.
ICON = ("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'%3E"
        "%3Ctext y='.9em' font-size='90'%3E%E2%99%A0%3C/text%3E%3C/svg%3E")


def page_language() -> str:
    """``?lang=`` when it names one of the five languages, else the best match of ``Accept-Language``."""
    asked = request.args.get("lang", "")[:16].lower()
    if asked in i18n.LANGUAGES:
        return asked
    return i18n.negotiate(request.headers.get("Accept-Language"))


@pages_bp.get("/help/rules")
def help_rules() -> Response:
    """The rules for players, with the scoring table (``?lang=`` or Accept-Language)."""
    return _help_page("rules")


@pages_bp.get("/help/examples")
def help_examples() -> Response:
    """The rule sheets' two examples drawn as boards, in the player's language."""
    return _help_page("examples")


@pages_bp.get("/help/faq")
def help_faq() -> Response:
    """Players' questions: game codes, how many deals can be won, undo, hints, settings."""
    return _help_page("faq")


def _help_page(name: str) -> Response:
    lang = page_language()
    html = render_template("help_page.html", lang=lang, page=name, pages=HELP_PAGES, words=CHROME[lang],
                           languages=LANGUAGE_NAMES, icon=ICON, body=Markup(render_help(name, lang)))
    response = Response(html, mimetype="text/html")
    response.headers["Content-Language"] = lang
    response.vary.add("Accept-Language")
    return response


@cache
def render_help(name: str, lang: str) -> str:
    """The HTML body of help page ``name`` in ``lang`` (its Markdown with the boards drawn)."""
    path = HELP_DIR / f"{name}.{lang}.md"
    if name not in HELP_PAGES or lang not in i18n.LANGUAGES or not path.is_file():
        abort(404)
    out: list[str] = []
    chunk: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("@board "):
            out.append(render_markdown("\n".join(chunk)))
            chunk = []
            code, setup, tried = (part.split() for part in line[len("@board "):].split("|"))
            out.append(board_html(code[0], setup, tried, lang))
        else:
            chunk.append(line)
    out.append(render_markdown("\n".join(chunk)))
    return "\n".join(part for part in out if part)
