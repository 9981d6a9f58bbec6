"""The shipped web font: it has a glyph for every character beyond ASCII the page can show (Koi-Koi's Japanese
names, as sessions send them), ``style.css`` declares it for exactly those characters, and the app serves it."""

from __future__ import annotations

import json

import pytest
from fontTools.ttLib import TTFont

from cfrlab.agents import RandomAgent
from cfrlab.games.koikoi.rules.cards import NAME_JA
from cfrlab.games.koikoi.rules.yaku import CALL_NAMES_JA, YAKU_NAMES_JA
from cfrlab.registry import load_game
from cfrlab.web.fonts import CSS_FILE, FAMILY, FONT_DIR, FONT_FILE, font_face, page_characters, unicode_range
from cfrlab.web.sessions import GameSession
from cfrlab.web.views import table_view


@pytest.fixture(scope="module")
def cmap() -> set[int]:
    font = TTFont(FONT_FILE)
    assert font.flavor == "woff"
    assert font["name"].getDebugName(1) == FAMILY  # renamed: a modified font keeps no reserved name
    return set(font.getBestCmap())


def test_page_characters_are_those_beyond_ascii() -> None:
    assert page_characters(["Pine 松に鶴", " \u3000ab", "松"]) == sorted("松に鶴")
    assert unicode_range("鶴に") == "U+306B, U+9DB4"
    chars = set(page_characters())
    for text in (*NAME_JA, *YAKU_NAMES_JA.values(), *CALL_NAMES_JA.values()):
        assert {ch for ch in text if ord(ch) > 0x7F and not ch.isspace()} <= chars, text


def test_the_font_has_every_character_the_page_can_show(cmap: set[int]) -> None:
    missing = [ch for ch in page_characters() if ord(ch) not in cmap]
    assert missing == [], f"regenerate the font: python -m cfrlab.web.fonts (missing {''.join(missing)})"


def test_the_characters_sessions_send_are_covered(cmap: set[int]) -> None:
    """Whole Koi-Koi rounds as the page receives them: every CJK character of every snapshot is in the font."""
    game = load_game("koikoi")
    session = GameSession("s", game, table_view(game), RandomAgent(), seat=0, seed=7)
    seen: set[str] = set()
    for hand in range(3):
        if hand:
            session.new_hand()
        for _ in range(200):
            seen |= set(json.dumps(session.snapshot(), ensure_ascii=False))
            if session.finished:
                break
            session.act(session.state.legal_actions()[0])
    cjk = {ch for ch in seen if ord(ch) >= 0x3000}
    assert len(cjk) > 10  # card and call names were shown
    assert [ch for ch in cjk if ord(ch) not in cmap] == []


def test_style_declares_the_font_for_its_characters() -> None:
    css = CSS_FILE.read_text(encoding="utf-8")
    assert font_face(page_characters()) in css, "regenerate the rule: python -m cfrlab.web.fonts"
    assert f'font: 15px/1.45 "{FAMILY}",' in css  # first in the page's font stack, for its characters only
    licence = (FONT_DIR / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence and "Noto Sans CJK JP" in licence


def test_the_app_serves_the_font() -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from cfrlab.web.app import create_app

    client = TestClient(create_app(load_game("kuhn"), RandomAgent()))
    response = client.get(f"/static/fonts/{FONT_FILE.name}")
    assert response.status_code == 200 and response.content == FONT_FILE.read_bytes()
    assert "font" in response.headers["content-type"]
