"""The hanafuda pictures: 48 self-contained SVGs whose marks follow each card's kind, served by the web app, and
the Japanese names of cards, yaku and calls beside the English ones."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules.kernels import YAKU_BITS
from cfrlab.games.koikoi.rules.yaku import YAKU_NAMES_JA
from cfrlab.games.koikoi.ui.card_art import BLUE_RIBBON, PLANTS, RED_RIBBON, card_svg

NS = "{http://www.w3.org/2000/svg}"


def _groups(svg: ET.Element) -> dict[str, ET.Element]:
    return {g.get("class"): g for g in svg.iter(f"{NS}g")}


@pytest.mark.parametrize("card", range(48))
def test_each_card_is_drawn_with_its_month_plant_and_the_mark_of_its_kind(card: int) -> None:
    svg = ET.fromstring(card_svg(card))
    assert svg.tag == f"{NS}svg" and svg.get("viewBox") == "0 0 40 60" and svg.get("aria-label") == C.NAME_EN[card]
    assert not any("href" in key for node in svg.iter() for key in node.attrib)  # nothing loaded from elsewhere
    assert [t.text for t in svg.iter(f"{NS}text")] == [str(C.MONTH[card])]
    groups = _groups(svg)
    kind = C.KIND_NAMES[C.KIND[card]]
    assert set(groups) == {"plant", kind}
    assert PLANTS[C.MONTH[card] - 1][1] in ET.tostring(groups["plant"], encoding="unicode")
    suns = [c for c in svg.iter(f"{NS}circle") if c.get("class") == "sun"]
    assert len(suns) == (kind == "bright")
    mark = groups[kind]
    if kind == "ribbon":
        strip = mark.find(f"{NS}rect")
        assert strip.get("fill") == (BLUE_RIBBON if C.AOTAN >> card & 1 else RED_RIBBON)
        assert bool(mark.findall(f"{NS}path")) == bool(C.AKATAN >> card & 1)  # the poetry ribbons are written on
    elif kind in ("bright", "animal"):
        assert len(mark) > 0
    else:
        assert len(mark) == (card in (43, 45))  # the lightning and the coloured paulownia chaff stand apart


def test_cards_differ_except_the_plain_chaff_of_one_month() -> None:
    pictures: dict[str, list[int]] = {}
    for card in range(48):
        pictures.setdefault(card_svg(card).replace(f'aria-label="{C.NAME_EN[card]}"', ""), []).append(card)
    for same in pictures.values():
        assert len({C.MONTH[c] for c in same}) == 1 and all(C.KIND[c] == C.CHAFF for c in same) or len(same) == 1
    assert len(pictures) == 24 + 11 + 2  # 24 brights, animals, ribbons; one plain chaff per month but November; 2


def test_card_svg_refuses_ids_outside_the_deck() -> None:
    with pytest.raises(ValueError, match="card id must be in 0..47"):
        card_svg(48)


def test_every_yaku_and_card_has_its_japanese_name() -> None:
    assert set(YAKU_BITS) | {"Teshi", "Kuttsuki"} <= set(YAKU_NAMES_JA)
    assert YAKU_NAMES_JA["Inoshikacho"] == "猪鹿蝶" and C.NAME_JA[0] == "松に鶴"


def test_the_app_serves_the_pictures_and_the_view_gives_japanese_names() -> None:
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx2")
    from fastapi.testclient import TestClient

    from cfrlab.registry import load_game
    from cfrlab.web.app import build_opponent, create_app

    game = load_game("koikoi")
    client = TestClient(create_app(game, build_opponent(game, "greedy"), seed_source=lambda: 0))
    response = client.get("/api/cards/20.svg")
    assert response.status_code == 200 and response.headers["content-type"].startswith("image/svg+xml")
    assert response.text == card_svg(20)
    assert client.get("/api/cards/48.svg").status_code == 404
    snap = client.post("/api/sessions", json={"seat": 0}).json()
    assert all(card["name_ja"] == C.NAME_JA[card["id"]] for card in snap["view"]["hand"] + snap["view"]["field"])
    while not snap["finished"]:
        snap = client.post(f"/api/sessions/{snap['session']}/actions",
                           json={"action": snap["legal_actions"][0]["id"]}).json()
        for name, _, name_ja in snap["view"]["yaku"] + snap["view"]["opponent_yaku"]:
            assert name_ja == YAKU_NAMES_JA[name]
    poker = TestClient(create_app(load_game("kuhn")))
    assert poker.get("/api/cards/0.svg").status_code == 404  # a game without pictures
