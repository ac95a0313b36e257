"""/examples and /faq: readable HTML rendered from docs/*.md, linked to each other and home."""

from __future__ import annotations

import re

import pytest

from service.web.markdown import render_markdown


def tight(html: str) -> str:
    """The HTML without the whitespace between tags (the renderer's line breaks are not content)."""
    return re.sub(r">\s+<", "><", html)


@pytest.mark.parametrize(("path", "title", "other"), [("/examples", "Examples", "/faq"),
                                                       ("/faq", "FAQ", "/examples")])
def test_page_is_html_with_title_and_links(client, path, title, other):
    response = client.get(path)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert f"<title>{title} — Solitaire Réfléchi</title>" in html
    assert f"<h1 id=\"{title.lower()}\">{title}</h1>" in html
    for href in ("/", "/docs", other):
        assert f'href="{href}"' in html
    assert "max-width" in html and "<pre>" in html and "<table>" in html  # code and an index/table
    # every in-page anchor the docs link to exists on the target page
    for target, anchor in re.findall(r'href="(/examples|/faq)#([\w-]+)"', html):
        assert f'id="{anchor}"' in client.get(target).get_data(as_text=True), (target, anchor)


def test_examples_page_shows_every_example(client):
    html = client.get("/examples").get_data(as_text=True)
    assert '<h2 id="group-not-ordered-in-the-very-first-deal">' in html
    assert '<code class="language-http">POST /v1/games/{id}/moves' in html
    assert '"code": "GROUP_NOT_ORDERED"' in html


def test_faq_page_shows_both_snippets(client):
    html = client.get("/faq").get_data(as_text=True)
    assert '<code class="language-python">def deal(deal_number):' in html
    assert '<code class="language-javascript">function deal(dealNumber) {' in html


def test_markdown_subset_is_escaped_and_safe():
    html = tight(render_markdown(
        "## A <script>\n\n"
        "Text with **bold** and `<b>` and [ok](/faq#x) and [bad](javascript:alert(1)).\n\n"
        "- one\n- two `x`\n\n"
        "1. first\n2. second\n\n"
        "| a | b |\n|---|---|\n| `<i>` | [l](https://example.org) |\n\n"
        "```json\n{\"a\": \"<&>\"}\n```\n"
    ))
    assert '<h2 id="a-script">A &lt;script&gt;</h2>' in html
    assert "<strong>bold</strong>" in html and "<code>&lt;b&gt;</code>" in html
    assert '<a href="/faq#x">ok</a>' in html
    assert "javascript:" not in html.replace("[bad](javascript:alert(1))", "")
    assert "<ul><li>one</li><li>two <code>x</code></li></ul>" in html
    assert "<ol><li>first</li><li>second</li></ol>" in html
    assert '<td><code>&lt;i&gt;</code></td><td><a href="https://example.org">l</a></td>' in html
    assert '<code class="language-json">{"a": "&lt;&amp;&gt;"}</code>' in html
    assert "<script>" not in html
