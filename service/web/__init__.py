"""The play page served at ``/``: static files only, talking to the public ``/v1`` API.

The pages rendered from Markdown (docs, help) are :mod:`.pages`.

>>> web_bp.name, web_bp.static_url_path
('web', '/static')
"""

from flask import Blueprint

web_bp = Blueprint("web", __name__, static_folder="static", static_url_path="/static")


@web_bp.get("/")
def index():
    """The play page (a single HTML file; the script and styles are under /static)."""
    return web_bp.send_static_file("index.html")
