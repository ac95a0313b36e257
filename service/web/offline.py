"""The installable offline app: the web app manifest, its icons and the service worker.

``/sw.js`` is served from the root so that its scope is the whole site. Its first line is
written here: the cache's name, a hash of every file it caches (the page, its modules,
the engine's modules, the catalogs, the help pages' sources), and the list of URLs to
cache. A new version of any of them changes the script's bytes, so the browser installs
the new worker, which fills a new cache and deletes the old one: no stuck cache.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from pathlib import Path

from flask import Blueprint, Response, abort

from .. import i18n
from .icons import SIZES, icon_png

offline_bp = Blueprint("offline", __name__)

WEB = Path(__file__).resolve().parent
ROOT = WEB.parents[1]
STATIC = WEB / "static"
ENGINE = ROOT / "clients" / "js" / "src"
HELP_PAGES = ("rules", "examples", "faq")
#: Files whose bytes make the version (besides the static folder and the engine).
SOURCES = (*sorted((WEB / "help").glob("*.md")), ROOT / "service" / "templates" / "help_page.html",
           *sorted((ROOT / "service" / "i18n").glob("*.json")), WEB / "icons.py", WEB / "pages.py")
_CONFIG_LINE = re.compile(r"^const CONFIG = .*$", re.MULTILINE)


def cached_urls() -> list[str]:
    """Everything the service worker keeps for offline play, in the order it fetches them."""
    static = sorted(path.relative_to(STATIC).as_posix() for path in STATIC.rglob("*")
                    if path.is_file() and path.name != "sw.js")
    engine = sorted(path.name for path in ENGINE.glob("*.js"))
    return ["/", "/manifest.webmanifest", *(f"/icons/icon-{size}.png" for size in SIZES),
            *(f"/static/{name}" for name in static), *(f"/static/engine/{name}" for name in engine),
            *(f"/v1/rules?lang={lang}" for lang in i18n.LANGUAGES),
            *(f"/help/{page}?lang={lang}" for page in HELP_PAGES for lang in i18n.LANGUAGES)]


@cache
def static_version() -> str:
    """The first 12 hex digits of a hash of every file the offline app is made of."""
    digest = hashlib.sha256()
    files = [*((f"static/{p.relative_to(STATIC).as_posix()}", p) for p in sorted(STATIC.rglob("*"))),
             *((f"engine/{p.name}", p) for p in sorted(ENGINE.glob("*.js"))), *((p.name, p) for p in SOURCES)]
    for name, path in files:
        if path.is_file():
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


@offline_bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, its scope the whole site; its version line written per release."""
    config = {"version": static_version(), "files": cached_urls()}
    script = _CONFIG_LINE.sub(lambda _: f"const CONFIG = {json.dumps(config)};",
                              (STATIC / "sw.js").read_text(encoding="utf-8"), count=1)
    response = Response(script, mimetype="text/javascript")
    # the browser must see a new version at once: never served from a cache
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Service-Worker-Allowed"] = "/"
    return response


@offline_bp.get("/manifest.webmanifest")
def manifest() -> Response:
    """The web app manifest: name, colours, start URL and icons (installable on phones and desktops)."""
    body = {
        "name": "Solitaire Réfléchi", "short_name": "Solitaire", "id": "/", "start_url": "/", "scope": "/",
        "display": "standalone", "background_color": "#0f5a2c", "theme_color": "#0f5a2c",
        "description": "Klondike with every card face up: play offline, the server keeps the score.",
        "icons": [{"src": f"/icons/icon-{size}.png", "sizes": f"{size}x{size}", "type": "image/png",
                   "purpose": "any maskable"} for size in SIZES],
    }
    response = Response(json.dumps(body, ensure_ascii=False), mimetype="application/manifest+json")
    response.headers["Cache-Control"] = "public, max-age=300"
    return response


@offline_bp.get("/icons/icon-<int:size>.png")
def icon(size: int) -> Response:
    """One of the app's icons, drawn by :mod:`.icons`."""
    if size not in SIZES:
        abort(404)
    response = Response(icon_png(size), mimetype="image/png")
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response
