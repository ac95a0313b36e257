"""The play page served at ``/``: static files only, talking to the public ``/v1`` API.

>>> web_bp.name, web_bp.static_url_path
('web', '/static')
"""

from flask import Blueprint

web_bp = Blueprint("web", __name__, static_folder="static", static_url_path="/static")


@web_bp.get("/")
def index():
    """The play page (a single HTML file; the script and styles are under /static)."""
    return web_bp.send_static_file("index.html")


from . import help as _help  # noqa: E402,F401  (its routes register on web_bp)
