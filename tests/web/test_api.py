"""The web API: full hands with correct returns, illegal actions, unknown sessions, isolation, limits, and the
rule that a response never carries the opponent's private cards before they are shown down (Koi-Koi's hands:
tests/games/koikoi/ui/test_web_koikoi.py)."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cfrlab.cli.main import main
from cfrlab.game import State
from cfrlab.games.kuhn import BET, PASS, card_name
from cfrlab.policy import PolicyFileError
from cfrlab.policy_tabulate import policy_from_mapping
from cfrlab.registry import load_game
from cfrlab.tree import compile_tree
from cfrlab.web.app import build_opponent, create_app
from cfrlab.web.views import UnsupportedGameError


class AlwaysBet:
    """Bets (or calls, or raises) whenever it can: a predictable opponent."""

    name = "always-bet"

    def act(self, state: State, rng: np.random.Generator) -> int:
        return max(state.legal_actions())


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def client_for(spec: str, opponent: Any = None, **kwargs: Any) -> TestClient:
    return TestClient(create_app(load_game(spec), opponent, **kwargs))


def start(client: TestClient, seat: int = 0, seed: int | None = 0) -> dict[str, Any]:
    """A new session; ``seed`` is set on the server's seed source (clients cannot choose it)."""
    if seed is not None:
        client.app.state.seed_source = lambda: seed
    response = client.post("/api/sessions", json={"seat": seat})
    assert response.status_code == 201, response.text
    return response.json()


def act(client: TestClient, snap: dict[str, Any], action: int) -> dict[str, Any]:
    response = client.post(f"/api/sessions/{snap['session']}/actions", json={"action": action})
    assert response.status_code == 200, response.text
    return response.json()


def server_state(client: TestClient, snap: dict[str, Any]) -> State:
    return client.app.state.store.get(snap["session"]).state


def strings(obj: Any) -> Iterator[str]:
    """Every string (keys and values) inside a JSON document."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield key
            yield from strings(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from strings(value)


def mentions(snap: dict[str, Any], token: str) -> bool:
    """Whether ``token`` appears as a whole word in any string of the response."""
    pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(token)}(?![A-Za-z0-9])")
    public = {k: v for k, v in snap.items() if k != "session"}  # a random id may hold "K-" by chance
    return any(pattern.search(s) for s in strings(public))


def opponent_private(client: TestClient, snap: dict[str, Any]) -> list[str]:
    """Names of the opponent's private card(s) and their infoset key, read on the server."""
    state: Any = server_state(client, snap)
    game = client.app.state.game
    opp = 1 - snap["seat"]
    if game.name == "kuhn":
        cards = state.cards
        names = [card_name(cards[opp], game.num_players + 1)] if opp < len(cards) else []
    else:
        names = [game.card_name(state.private[opp])] if opp < len(state.private) else []
    return names + ([state.information_state_key(opp)] if names else [])


# ------------------------------------------------------------------------------------------ full hands


@pytest.mark.parametrize("seed", range(6))
def test_kuhn_call_goes_to_showdown_with_correct_returns(seed: int) -> None:
    client = client_for("kuhn", AlwaysBet())
    snap = start(client, seat=0, seed=seed)
    assert snap["to_act"] == "you" and [a["label"] for a in snap["legal_actions"]] == ["Check", "Bet"]
    mine, theirs = server_state(client, snap).cards
    assert snap["view"]["your_cards"] == [{"name": card_name(mine, 3), "suit": None}]

    snap = act(client, snap, PASS)  # the opponent bets at once
    assert snap["log"][-2:] == [
        {"actor": "you", "text": "You check."},
        {"actor": "opponent", "text": "The opponent bets."},
    ]
    assert [a["label"] for a in snap["legal_actions"]] == ["Fold", "Call"]
    assert snap["view"]["pot"] == 3 and snap["view"]["opponent_stake"] == 2
    snap = act(client, snap, BET)  # call: showdown for 2 chips

    expected = 2.0 if mine > theirs else -2.0
    result = snap["result"]
    assert snap["finished"] and snap["legal_actions"] == [] and result["showdown"]
    assert result["returns"] == [expected, -expected] and result["your_return"] == expected
    assert result["opponent_cards"] == [{"name": card_name(theirs, 3), "suit": None}]
    assert result["text"].endswith("You win 2 chips." if expected > 0 else "You lose 2 chips.")
    assert snap["score"] == {"total": expected, "hands": 1, "wins": int(expected > 0), "losses": int(expected < 0),
                             "ties": 0,
                             "mean": expected, "low": None, "high": None}


def test_kuhn_fold_keeps_the_opponent_card_hidden() -> None:
    client = client_for("kuhn", AlwaysBet())
    snap = start(client, seat=0, seed=1)
    hidden = opponent_private(client, snap)
    snap = act(client, act(client, snap, PASS), PASS)  # pass, opponent bets, fold
    assert snap["finished"] and snap["result"]["returns"] == [-1.0, 1.0]
    assert snap["result"]["text"] == "You fold. You lose 1 chip."
    assert "opponent_cards" not in snap["result"]
    assert not any(mentions(snap, token) for token in hidden)


def test_leduc_hands_in_both_seats_add_up_to_the_score() -> None:
    client = client_for("leduc")  # uniform random opponent
    rng = np.random.default_rng(7)
    snap = start(client, seat=0, seed=11)
    total = 0.0
    for hand in range(1, 9):
        while not snap["finished"]:
            legal = [a["id"] for a in snap["legal_actions"]]
            snap = act(client, snap, int(rng.choice(legal)))
        state = server_state(client, snap)
        assert snap["result"]["returns"] == state.returns()
        assert sum(snap["result"]["returns"]) == 0.0
        assert snap["result"]["your_return"] == state.returns()[snap["seat"]]
        total += snap["result"]["your_return"]
        assert snap["score"]["total"] == pytest.approx(total) and snap["score"]["hands"] == hand
        seat = hand % 2
        response = client.post(f"/api/sessions/{snap['session']}/hands", json={"seat": seat})
        assert response.status_code == 200, response.text
        snap = response.json()
        assert snap["hand"] == hand + 1 and snap["seat"] == seat and snap["result"] is None


# ---------------------------------------------------------------------------------------- hidden cards


@pytest.mark.parametrize("spec", ["kuhn", "leduc", "leduc(ranks=4,suits=3)"])
def test_responses_never_carry_the_opponent_cards_before_showdown(spec: str) -> None:
    client = client_for(spec)
    rng = np.random.default_rng(3)
    shown_down = 0
    for seed in range(12):
        snap = start(client, seat=seed % 2, seed=seed)
        hidden = opponent_private(client, snap)
        assert hidden, "the opponent has a card from the start"
        while True:
            if snap["finished"] and snap["result"]["showdown"]:
                # The same scan finds the card once it is shown: the check below is not vacuous.
                assert mentions(snap, hidden[0])
                shown_down += 1
                break
            assert not any(mentions(snap, token) for token in hidden), (seed, snap)
            if snap["finished"]:
                break
            snap = act(client, snap, int(rng.choice([a["id"] for a in snap["legal_actions"]])))
    assert shown_down > 0


# ------------------------------------------------------------------------------------ errors and state


def test_illegal_action_is_a_400_and_changes_nothing() -> None:
    client = client_for("kuhn", AlwaysBet())
    snap = start(client, seat=1, seed=2)
    url = f"/api/sessions/{snap['session']}"
    for bad in (2, -1, 99):
        response = client.post(f"{url}/actions", json={"action": bad})
        assert response.status_code == 400
        assert response.json()["detail"] == f"action {bad} is not legal now; legal actions: 0 (Fold), 1 (Call)"
        assert client.get(url).json() == snap
    assert client.post(f"{url}/actions", json={"action": "bet"}).status_code == 422
    assert client.get(url).json() == snap

    done = act(client, snap, PASS)  # fold to the bet
    response = client.post(f"{url}/actions", json={"action": PASS})
    assert response.status_code == 400 and "start a new hand" in response.json()["detail"]
    assert client.get(url).json() == done


def test_unknown_session_is_a_404() -> None:
    client = client_for("kuhn")
    for method, path, body in (
        ("GET", "/api/sessions/nope", None),
        ("POST", "/api/sessions/nope/actions", {"action": 0}),
        ("POST", "/api/sessions/nope/hands", {}),
        ("DELETE", "/api/sessions/nope", None),
    ):
        response = client.request(method, path, json=body)
        assert response.status_code == 404, (method, path)
        assert "no game session 'nope'" in response.json()["detail"]


def test_new_hand_only_once_the_hand_is_over_and_bad_seats_are_refused() -> None:
    client = client_for("kuhn", AlwaysBet())
    snap = start(client, seat=0, seed=4)
    url = f"/api/sessions/{snap['session']}"
    response = client.post(f"{url}/hands", json={})
    assert response.status_code == 409 and "still being played" in response.json()["detail"]
    assert client.get(url).json() == snap
    assert client.post("/api/sessions", json={"seat": 2}).status_code == 400
    act(client, act(client, snap, PASS), PASS)
    response = client.post(f"{url}/hands", json={"seat": 5})
    assert response.status_code == 400 and "seat must be 0 or 1" in response.json()["detail"]
    assert client.post(f"{url}/hands", json={"seat": 1}).json()["seat"] == 1
    assert client.delete(url).status_code == 204
    assert client.get(url).status_code == 404


def test_sessions_are_isolated() -> None:
    client = client_for("leduc", AlwaysBet())
    a, b = start(client, seat=0, seed=9), start(client, seat=0, seed=9)
    assert a["session"] != b["session"] and a["view"] == b["view"]  # same seed, same deal
    act(client, a, 1)
    assert client.get(f"/api/sessions/{b['session']}").json() == b
    other = start(client, seat=1, seed=10)
    assert client.get(f"/api/sessions/{b['session']}").json() == b
    assert server_state(client, a) is not server_state(client, other)


def test_session_limit_and_expiry() -> None:
    clock = Clock()
    client = client_for("kuhn", max_sessions=2, ttl_seconds=60, clock=clock)
    first, second = start(client), start(client)
    third = start(client)  # a full store makes room: the least recently used session goes
    assert client.get(f"/api/sessions/{first['session']}").status_code == 404
    assert "made room for newer ones" in client.get(f"/api/sessions/{first['session']}").json()["detail"]
    client.delete(f"/api/sessions/{third['session']}")
    first = second
    clock.now += 30
    assert client.get(f"/api/sessions/{first['session']}").status_code == 200  # touched: idle time restarts
    clock.now += 45
    assert client.get(f"/api/sessions/{first['session']}").status_code == 200
    assert len(client.app.state.store) == 1
    start(client)
    clock.now += 61
    assert client.get(f"/api/sessions/{first['session']}").status_code == 404
    assert len(client.app.state.store) == 0


def test_page_and_assets_are_served_without_external_resources() -> None:
    client = client_for("kuhn")
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for asset in ("app.js", "style.css"):
        response = client.get(f"/static/{asset}")
        assert response.status_code == 200
        assert not re.search(r"https?://", response.text), f"{asset} must not load anything from the network"
    info = client.get("/api/info").json()
    opponents = info.pop("opponents")
    assert info == {"game": "kuhn", "title": "Kuhn poker", "family": "kuhn", "unit": "chip", "opponent": "random",
                    "choice": {"kind": "random", "strength": ""},
                    "seats": ["Seat 0: acts first", "Seat 1: acts second"], "hands": None,
                    "words": ["hand", "hands"]}
    assert [(row["kind"], row["strengths"]) for row in opponents] == [("random", []), ("oos", ["0.1", "0.5", "1"])]


# ------------------------------------------------------------------------------- opponents and the CLI


def _always_bet_file(path: Path) -> Path:
    game = load_game("kuhn")
    tree = compile_tree(game)
    table = {key: {PASS: 0.0, BET: 1.0} for key in tree.infoset_keys}
    policy_from_mapping(tree, table).save(path, game, solver="test", iterations=7)
    return path


def test_strategy_file_opponent_plays_the_file(tmp_path: Path) -> None:
    path = _always_bet_file(tmp_path / "bet.npz")
    game = load_game("kuhn")
    agent = build_opponent(game, None, path)
    assert agent.name == "bet.npz (test, 7 iterations)"
    client = TestClient(create_app(game, agent))
    for seed in range(4):
        snap = act(client, start(client, seat=0, seed=seed), PASS)
        assert snap["log"][-1]["text"] == "The opponent bets."


def test_bad_opponents_fail_with_a_clear_message(tmp_path: Path) -> None:
    kuhn, leduc = load_game("kuhn"), load_game("leduc")
    path = _always_bet_file(tmp_path / "kuhn.npz")
    with pytest.raises(PolicyFileError, match="not for 'leduc'"):
        build_opponent(leduc, "policy", path)
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(path.read_bytes()[:200])
    with pytest.raises(PolicyFileError):
        build_opponent(kuhn, "policy", corrupt)
    with pytest.raises(ValueError, match="needs --strategy"):
        build_opponent(kuhn, "policy")
    with pytest.raises(ValueError, match="greedy opponent plays Koi-Koi only"):
        build_opponent(kuhn, "greedy")
    with pytest.raises(ValueError, match="unknown opponent"):
        build_opponent(kuhn, "smart")
    with pytest.raises(UnsupportedGameError, match="2-player"):
        create_app(load_game("kuhn(players=3)"))


@pytest.mark.parametrize("case", ["wrong game", "corrupt", "missing", "unsupported"])
def test_serve_rejects_bad_input_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    path = _always_bet_file(tmp_path / "kuhn.npz")
    if case == "corrupt":
        path.write_bytes(b"not a strategy")
    game = {"wrong game": "leduc", "unsupported": "kuhn(players=3)"}.get(case, "kuhn")
    strategy = str(tmp_path / "missing.npz") if case == "missing" else str(path)
    code = main(["serve", game, "--strategy", strategy, "--port", "1"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_binds_to_localhost_by_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The socket is bound before the URL is shown; uvicorn serves it with the request deadline protocol."""
    import uvicorn

    calls: list[tuple[Any, Any]] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: calls.append((self.config, sockets)))
    # uvicorn.Config configures logging through dictConfig, which closes every handler, pytest's own among them
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda self: None)
    path = _always_bet_file(tmp_path / "kuhn.npz")
    port = free_port()
    assert main(["serve", "kuhn", "--strategy", str(path), "--port", str(port)]) == 0
    ((config, (sock,)),) = calls
    assert sock.getsockname() == ("127.0.0.1", port) and config.http.__name__ == "RequestDeadline"
    assert config.app.state.agent.name == "kuhn.npz (test, 7 iterations)"
    assert f"open http://127.0.0.1:{port}/ in a browser" in capsys.readouterr().err
    assert main(["serve", "kuhn", "--strategy", str(path), "--port", str(port)]) == 2  # busy: one line, no URL
    out, err = capsys.readouterr()
    assert err.startswith(f"error: cannot listen on 127.0.0.1:{port}") and "open http" not in out + err
    sock.close()
    assert main(["serve", "leduc", "--host", "0.0.0.0", "--port", str(free_port())]) == 0
    assert calls[-1][1][0].getsockname()[0] == "0.0.0.0" and "there is no login" in capsys.readouterr().err
    calls[-1][1][0].close()
