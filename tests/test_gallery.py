"""The gallery's terminal Koi-Koi transcript: a player who reads the screen plays a sensible round, never an
illegal input (docs/make_gallery.py)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _gallery():
    spec = importlib.util.spec_from_file_location("make_gallery", ROOT / "docs" / "make_gallery.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_screen_player_plays_a_sensible_round() -> None:
    gallery = _gallery()
    transcript = gallery.koikoi_transcript()
    assert "Illegal input" not in transcript and "Game over." in transcript
    answers = re.findall(r"^(?:Play which card\?|Take which card\?|Your score rose: .*\?) (\S+)$", transcript, re.M)
    assert answers[0] == "h" and len(answers) > 3
    decisions = re.findall(r"^Your score rose: .*\? (\S+)$", transcript, re.M)
    assert decisions == ["s"] * len(decisions)  # STOP at once: the round ends on the first decision
    assert len(decisions) <= 1


def test_the_screen_player_reads_the_cards_it_is_shown() -> None:
    gallery = _gallery()
    screen = ["x", "  Field: Pine Crane (Jan bright), Plum Chaff 2 (Feb chaff)",
              "  Your hand: [1] Iris Chaff 1 (May chaff), [2] Plum Bush Warbler (Feb animal), [3] Pine Chaff 1 "
              "(Jan chaff)", "Play which card? h"]
    answer = gallery.screen_player(screen)
    assert answer("Play which card? ") == "3"  # the pine chaff takes the crane
    screen.append("  Field: Maple Deer (Oct animal)")
    screen.append("  Your hand: [1] Iris Chaff 1 (May chaff), [2] Plum Bush Warbler (Feb animal)")
    assert answer("Play which card? ") == "1"  # nothing captures: the least valuable card goes
    screen.append("  Take which: [1] Peony Chaff 1 (Jun chaff), [2] Peony Butterflies (Jun animal)")
    assert answer("Take which card? ") == "2"
    assert answer("Your score rose: s = STOP (score now) or k = KOI-KOI (play on)? ") == "s"
