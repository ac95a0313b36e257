"""The play page served at ``/``: static files only, talking to the public ``/v1`` API.

The pages rendered from Markdown (docs, help) are :mod:`.pages`.

>>> web_bp.name, web_bp.static_url_path
('web', '/static')
"""

from pathlib import Path

from flask import Blueprint, abort, send_from_directory

web_bp = Blueprint("web", __name__, static_folder="static", static_url_path="/static")

#: The JavaScript rules engine's ES modules (the npm package solitaire-reflechi-engine's source).
ENGINE_DIR = Path(__file__).resolve().parents[2] / "clients" / "js" / "src"


@web_bp.get("/")
def index():
    """The play page (a single HTML file; the script and styles are under /static)."""
    return web_bp.send_static_file("index.html")


@web_bp.get("/static/engine/<filename>")
def engine_module(filename: str):
    """One ES module of the rules engine (clients/js/src): the page imports /static/engine/index.js."""
    if not filename.endswith(".js"):
        abort(404)
    # send_from_directory refuses any name that leaves the folder; cached like the other static files
    return send_from_directory(ENGINE_DIR, filename, mimetype="text/javascript")

