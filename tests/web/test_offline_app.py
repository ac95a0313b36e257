"""The installable app's server side: the manifest, its PNG icons, and /sw.js with its version and list."""

from __future__ import annotations

import json
import re
import shutil
import struct

from service.web import offline


def test_the_service_worker_names_its_version_and_every_file_it_keeps_is_served(client):
    with client.get("/sw.js") as answer:
        assert answer.status_code == 200
        assert answer.mimetype == "text/javascript"
        assert answer.headers["Cache-Control"] == "no-cache"
        script = answer.get_data(as_text=True)
    config = json.loads(re.search(r"^const CONFIG = (.*);$", script, re.MULTILINE).group(1))
    assert config["version"] == offline.static_version() and re.fullmatch(r"[0-9a-f]{12}", config["version"])
    assert "/static/engine/game.js" in config["files"] and "/v1/rules?lang=ja" in config["files"]
    assert "/help/faq?lang=ro" in config["files"] and "/static/sw.js" not in config["files"]
    for url in config["files"]:
        with client.get(url) as answer:
            assert answer.status_code == 200, url


def test_a_changed_file_changes_the_version(tmp_path, monkeypatch):
    copy = tmp_path / "static"
    shutil.copytree(offline.STATIC, copy)
    monkeypatch.setattr(offline, "STATIC", copy)
    before = offline.static_version.__wrapped__()
    (copy / "app.js").write_text((copy / "app.js").read_text() + "\n// a release\n")
    assert offline.static_version.__wrapped__() != before


def test_the_manifest_and_its_icons(client):
    manifest = client.get("/manifest.webmanifest")
    assert manifest.mimetype == "application/manifest+json"
    body = manifest.get_json(force=True)
    assert body["start_url"] == "/" and body["display"] == "standalone"
    for icon in body["icons"]:
        png = client.get(icon["src"]).data
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", png[16:24])
        assert f"{width}x{height}" == icon["sizes"]
    assert client.get("/icons/icon-64.png").status_code == 404
