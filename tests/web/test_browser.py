"""End to end in a real headless Chromium: load the page, pick a seat, click actions until the hand ends, read
the result, deal again. The server is uvicorn on a free 127.0.0.1 port, stopped at the end of the test."""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("playwright")

import uvicorn
from playwright.sync_api import Browser, Page, expect, sync_playwright

from cfrlab.registry import load_game
from cfrlab.web.app import build_opponent, create_app

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]

pytestmark = pytest.mark.skipif(
    not os.path.exists(CHROMIUM),
    reason=f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium, or `make setup`)",
)


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Run ``app`` with uvicorn on a free 127.0.0.1 port in a thread; always stop it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def open_page(browser: Browser, url: str) -> tuple[Page, list[str]]:
    """The page at ``url``, and the list its script errors and console errors are collected in."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(url)
    return page, errors


def play_out(page: Page) -> None:
    """Click the first action button until the result shows (the opponent moves on the server)."""
    for _ in range(200):
        if page.locator("#result").is_visible():
            return
        button = page.locator("#actions button").first
        button.wait_for(state="visible", timeout=10_000)
        button.click()
        page.wait_for_function("() => !document.body.classList.contains('busy')", timeout=10_000)
    raise AssertionError("the hand did not end after 200 clicks")


RESULT = {
    "leduc": r"^(Showdown: your \w[\w\u2660-\u2667]? against the opponent's \w[\w\u2660-\u2667]? on a board of "
             r"\w[\w\u2660-\u2667]?\. |The opponent folds\. |You fold\. )"
             r"(You win \d+ chips?\.|You lose \d+ chips?\.|Nobody wins anything: a tie\.)$",
    "koikoi": r"(You win \d+ points?\.|You lose \d+ points?\.|Nobody wins anything: a tie\.)$",
}


@pytest.mark.parametrize(("spec", "one", "many"), [("leduc", "hand", "hands"), ("koikoi", "round", "rounds")])
def test_play_hands_in_the_browser(browser: Browser, spec: str, one: str, many: str, tmp_path: Path) -> None:
    game = load_game(spec)
    app = create_app(game, build_opponent(game, "greedy" if spec == "koikoi" else None))
    store = app.state.store
    with serving(app) as url:
        page, errors = open_page(browser, url)
        expect(page.locator("#subtitle")).to_contain_text(f"against {app.state.agent.name}")
        page.locator('input[name="seat"][value="1"]').check()
        page.locator("#start").click()
        expect(page.locator("#board")).to_be_visible()

        play_out(page)
        (session,) = store._sessions.values()
        result_text = page.locator("#result").inner_text().strip()
        assert re.search(RESULT[spec], result_text), result_text
        assert result_text == session.table.outcome(session.state, session.seat)["text"]
        assert session.seat == 1 and session.score.hands == 1
        total = session.score.total
        expected_total = ("+" if total > 0 else "") + f"{total:g}"
        expect(page.locator("#score-total")).to_have_text(expected_total)
        expect(page.locator("#score-detail")).to_contain_text(f"1 {one}:")
        expect(page.locator("#status")).to_have_text(f"{one.capitalize()} 1 is over.")
        expect(page.locator("#new-hand")).to_have_text(f"New {one}")
        page.screenshot(path=str(os.environ.get("CFRLAB_SCREENSHOT_DIR", tmp_path)) + f"/{spec}-end.png",
                        full_page=True)

        page.locator("#new-hand").click()
        expect(page.locator("#status")).not_to_contain_text(f"{one.capitalize()} 1 is over")
        if not session.state.is_terminal():  # a Koi-Koi deal can end at once (hand yaku)
            expect(page.locator("#result")).to_be_hidden()
            page.screenshot(path=str(os.environ.get("CFRLAB_SCREENSHOT_DIR", tmp_path)) + f"/{spec}-play.png",
                            full_page=True)
        play_out(page)
        expect(page.locator("#score-detail")).to_contain_text(f"2 {many}:")
        assert session.score.hands == 2 and session.hand == 2

        page.reload()  # the page resumes its session from sessionStorage
        expect(page.locator("#score-detail")).to_contain_text(f"2 {many}:")
        page.close()
        assert errors == []


SPLIT_WORDS = """() => {
  const split = [];
  for (const node of document.querySelectorAll(".hana .name")) {
    const text = node.firstChild;
    if (!text) continue;
    let at = 0;
    for (const word of text.textContent.split(" ")) {
      const range = document.createRange();
      range.setStart(text, at);
      range.setEnd(text, at + word.length);
      const lines = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
      if (lines.size > 1) split.push(word);
      at += word.length + 1;
    }
  }
  return split;
}"""
"""The words of card names that the page breaks over two lines (none may be)."""

LOG_NUMBERS_FIT = """() => {
  const log = document.getElementById("log");
  const item = log.querySelector("li:last-child");
  const font = getComputedStyle(item).font;
  const context = document.createElement("canvas").getContext("2d");
  context.font = font;
  const marker = context.measureText(`${log.children.length}. `).width;
  return {marker, room: parseFloat(getComputedStyle(log).paddingLeft), items: log.children.length};
}"""
"""The width of the log's last number and the room the list leaves for it."""


def test_koikoi_match_of_12_rounds_in_the_browser(browser: Browser, tmp_path: Path) -> None:
    game = load_game("koikoi", rounds=12)
    app = create_app(game, build_opponent(game, "greedy"), seed_source=lambda: 0)
    store = app.state.store
    with serving(app) as url:
        page, errors = open_page(browser, url)
        page.locator("#start").click()
        expect(page.locator("#match-score")).to_be_visible()
        expect(page.locator("#match-detail")).to_contain_text("round 1 of 12")
        (session,) = store._sessions.values()
        decisions = 0
        for _ in range(800):  # click the first action (STOP at a decision) until the match ends
            if page.locator("#result").is_visible():
                break
            # one score during the match: the match score, never a second one that says nothing was won
            totals = session.state.es.totals
            expect(page.locator("#match-score")).to_have_text(f"You {totals[0]} \u2013 {totals[1]} opponent")
            expect(page.locator("#score-line")).to_be_hidden()
            expect(page.locator("#score-detail")).to_be_hidden()
            assert page.evaluate(SPLIT_WORDS) == []
            if page.locator("#decision").is_visible():
                points = session.table.view(session.state, session.seat)["stop_value"]["points"]
                expect(page.locator("#decision")).to_contain_text(f"STOP now scores {points} point")
                expect(page.locator("#actions button").first).to_have_text(f"STOP 勝負: score {points} now")
                decisions += 1
                if decisions == 1:
                    shots = str(os.environ.get("CFRLAB_SCREENSHOT_DIR", tmp_path))
                    page.screenshot(path=shots + "/koikoi-decision.png", full_page=True)
            button = page.locator("#actions button").first
            button.wait_for(state="visible", timeout=10_000)
            button.click()
            page.wait_for_function("() => !document.body.classList.contains('busy')", timeout=10_000)
        else:
            raise AssertionError("the match did not end after 800 clicks")
        totals = session.state.es.totals
        assert session.state.is_terminal() and session.state.es.round == 11
        expect(page.locator("#match-score")).to_have_text(f"You {totals[0]} \u2013 {totals[1]} opponent")
        expect(page.locator("#match-detail")).to_have_text("all 12 rounds played")
        expect(page.locator("#round-summary")).to_contain_text("Round 12: ")
        # the page speaks of rounds and matches
        expect(page.locator("#status")).to_have_text("Match 1 is over.")
        expect(page.locator("#new-hand")).to_have_text("New match")
        expect(page.locator("#log-title")).to_have_text("This match")
        outcome = "won" if session.score.wins else "lost" if session.score.losses else "tied"
        expect(page.locator("#score-detail")).to_contain_text("1 match: ")
        expect(page.locator("#score-detail")).to_contain_text(f"1 {outcome}")
        text = page.locator("body").inner_text()
        for wrong in ("Hand 1 is over", "1 hand:", "New hand", "hands finished", "This hand"):
            assert wrong not in text
        # the match's end does not repeat the last round's line
        summary = page.locator("#round-summary").inner_text().removeprefix("Round 12: ").strip()
        result = page.locator("#result").inner_text()
        assert result.startswith(f"The match is over: you {totals[0]}, the opponent {totals[1]}.")
        assert summary not in result
        log = page.locator("#log li").all_inner_texts()
        assert sum(1 for line in log if re.match(r"Round \d+ over\.", line)) == 12
        assert any(line.endswith(f"Match score: you {totals[0]}, the opponent {totals[1]}.") for line in log)
        # every card drawn: the last click's cards may still be loading, so wait for them (a broken one times out)
        drawn = ("() => { const imgs = Array.from(document.querySelectorAll('.hana img.art'));"
                 " return imgs.length > 0 && imgs.every((img) => img.complete && img.naturalWidth > 0); }")
        page.wait_for_function(drawn, timeout=10_000)
        fit = page.evaluate(LOG_NUMBERS_FIT)
        assert fit["items"] >= 100 and fit["marker"] <= fit["room"], fit  # three-digit numbers are not clipped
        assert page.evaluate(SPLIT_WORDS) == []
        net = totals[0] - totals[1]
        assert session.state.returns()[0] == net  # the page's match score is the engine's
        assert decisions > 0
        page.screenshot(path=str(os.environ.get("CFRLAB_SCREENSHOT_DIR", tmp_path)) + "/koikoi-match-end.png",
                        full_page=True)
        page.locator("#new-hand").click()
        expect(page.locator("#match-detail")).to_contain_text("round 1 of 12")
        expect(page.locator("#score-detail")).to_contain_text("1 match: ")  # the finished match, apart
        page.close()
        assert errors == []


GLYPHS = """async (chars) => {
  await document.fonts.ready;
  const faces = Array.from(document.fonts).filter((f) => f.family.replace(/"/g, "") === "cfrlab JA");
  const family = getComputedStyle(document.querySelector(".hana .name-ja")).fontFamily;
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 48;
  const context = canvas.getContext("2d", { willReadFrequently: true });
  const pictures = new Set();
  for (const ch of chars) {
    context.clearRect(0, 0, 48, 48);
    context.font = `40px ${family}`;
    context.textBaseline = "top";
    context.fillText(ch, 4, 4);
    const alpha = context.getImageData(0, 0, 48, 48).data.filter((_, i) => i % 4 === 3);
    pictures.add(alpha.join(","));
  }
  return { faces: faces.map((f) => f.status), family, distinct: pictures.size };
}"""
"""The page's web font as the page loaded it, and how many different pictures the page's font stack draws for the
given characters (a machine without their glyphs draws the same empty box for each)."""


def test_koikoi_japanese_names_render_in_the_browser(browser: Browser) -> None:
    from cfrlab.web.fonts import page_characters

    game = load_game("koikoi")
    app = create_app(game, build_opponent(game, "greedy"), seed_source=lambda: 0)
    chars = page_characters()
    with serving(app) as url:
        page, errors = open_page(browser, url)
        page.locator("#start").click()
        page.locator(".hana .name-ja").first.wait_for(state="visible", timeout=10_000)
        found = page.evaluate(GLYPHS, chars)
        page.close()
    assert found["faces"] == ["loaded"], found  # the names on the page made it load
    assert found["family"].startswith('"cfrlab JA"'), found
    assert found["distinct"] == len(chars), found  # a picture of its own for every character: no empty boxes
    assert errors == []


def test_pick_the_opponent_and_its_strength_in_the_browser(browser: Browser) -> None:
    game = load_game("koikoi")
    app = create_app(game, build_opponent(game, "greedy"), seed_source=lambda: 0)
    store = app.state.store
    with serving(app) as url:
        page, errors = open_page(browser, url)
        expect(page.locator("#opponent-kind")).to_have_value("greedy")  # the server's opponent first
        expect(page.locator("#strength-pick")).to_be_hidden()  # greedy takes no budget
        kinds = page.locator("#opponent-kind option").all_inner_texts()
        assert kinds == [row["kind"] for row in app.state.menu.entries]
        page.locator("#opponent-kind").select_option("search")
        expect(page.locator("#strength-pick")).to_be_visible()
        expect(page.locator("#opponent-strength")).to_have_value("500ms")
        assert page.locator("#opponent-strength option").all_inner_texts() == [
            "20 ms a move", "100 ms a move", "500 ms a move", "1 s a move"]
        page.locator("#opponent-strength").select_option("20ms")
        expect(page.locator("#opponent-about")).to_contain_text("determinized Monte Carlo search")
        page.locator("#start").click()
        expect(page.locator("#subtitle")).to_contain_text("against search:20ms")
        (session,) = store._sessions.values()
        assert session.agent.name == "search:20ms" and session.agent is not app.state.agent
        page.locator("#opponent-kind").select_option("random")
        expect(page.locator("#opponent-note")).to_contain_text("You meet random in a new session")
        play_out(page)
        page.locator("#new-hand").click()  # a new session against the new pick
        expect(page.locator("#subtitle")).to_contain_text("against random")
        expect(page.locator("#opponent-note")).to_have_text("")
        assert {s.agent.name for s in store._sessions.values()} >= {"random"}
        page.close()
        assert errors == []
