// cfrlab play page: talks to /api, renders the player's view (never more: the server sends nothing else).
"use strict";

const STORE_KEY = "cfrlab-session";
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
let info = null;
let snap = null;
let busy = false;

const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function show(node, visible) {
  node.classList.toggle("hidden", !visible);
}

function amount(x, unit) {
  const n = Number(x);
  const text = Number.isInteger(n) ? String(n) : n.toFixed(2);
  return `${text} ${unit}${Math.abs(n) === 1 ? "" : "s"}`;
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  if (response.status === 204) return null;
  let data = null;
  try {
    data = await response.json();
  } catch (e) {
    data = null;
  }
  if (!response.ok) {
    let detail = data && data.detail ? data.detail : `${response.status} ${response.statusText}`;
    if (Array.isArray(detail)) detail = detail.map((d) => d.msg).join("; ");
    const error = new Error(detail);
    error.status = response.status;
    throw error;
  }
  return data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  show(box, Boolean(message));
}

function selectedSeat() {
  const checked = document.querySelector('input[name="seat"]:checked');
  return checked ? Number(checked.value) : 0;
}

// ------------------------------------------------------------------------------------------- opponent

function strengthText(strength) {
  if (strength.endsWith("ms")) {
    const ms = Number(strength.slice(0, -2));
    return ms >= 1000 ? `${ms / 1000} s a move` : `${ms} ms a move`;
  }
  return `${strength} s a move`;
}

function opponentRow() {
  return info.opponents.find((row) => row.kind === $("opponent-kind").value);
}

function selectedOpponent() {
  const row = opponentRow();
  return row.strengths.length ? `${row.kind}:${$("opponent-strength").value}` : row.kind;
}

// The strengths of the chosen agent (none for an agent without a budget), ``strength`` or its default selected.
function fillStrengths(strength) {
  const row = opponentRow();
  const select = $("opponent-strength");
  select.replaceChildren(...row.strengths.map((s) => {
    const option = el("option", null, strengthText(s));
    option.value = s;
    return option;
  }));
  select.value = row.strengths.includes(strength) ? strength : row.default;
  show($("strength-pick"), row.strengths.length > 0);
  $("opponent-about").textContent = row.about;
}

// The choice that plays as ``name`` (a session's opponent), if the menu has it.
function pickOpponent(name) {
  const row = info.opponents.find((r) => name === r.kind ||
    (name.startsWith(`${r.kind}:`) && r.strengths.includes(name.slice(r.kind.length + 1))));
  if (!row) return;
  $("opponent-kind").value = row.kind;
  fillStrengths(name.slice(row.kind.length + 1));
}

function setUpOpponents() {
  const kinds = $("opponent-kind");
  kinds.replaceChildren(...info.opponents.map((row) => {
    const option = el("option", null, row.kind);
    option.value = row.kind;
    option.title = row.about;
    return option;
  }));
  kinds.value = info.choice.kind;
  fillStrengths(info.choice.strength);
  const touched = () => {
    kinds.dataset.touched = "1";
    updateSeatNote();
  };
  kinds.addEventListener("change", () => {
    fillStrengths("");
    touched();
  });
  $("opponent-strength").addEventListener("change", touched);
}

// ---------------------------------------------------------------------------------------------- cards

function pokerCard(card) {
  const node = el("div", "card");
  if (!card) {
    node.classList.add("back");
    node.setAttribute("aria-label", "face-down card");
    return node;
  }
  const red = card.suit === "\u2665" || card.suit === "\u2666";
  if (red) node.classList.add("red");
  node.appendChild(el("span", "rank", card.suit ? card.rank : card.name));
  if (card.suit) node.appendChild(el("span", "suit", card.suit));
  node.title = card.name;
  return node;
}

// A card; ``action`` (a legal action with this card) makes it a button that plays it.
function hanafuda(card, action) {
  const node = el(action ? "button" : "div", `hana kind-${card.kind}`);
  if (action) {
    node.classList.add("legal");
    node.type = "button";
    node.setAttribute("aria-label", action.label);
    node.addEventListener("click", () => act(action.id));
  }
  const picture = el("img", "art");
  picture.src = `/api/cards/${card.id}.svg`;
  picture.alt = "";
  node.appendChild(picture);
  node.appendChild(el("span", "name", card.name));
  node.appendChild(el("span", "name-ja", card.name_ja));
  node.title = `${card.name} (${card.name_ja}), ${MONTHS[card.month - 1]}, ${card.kind}`;
  return node;
}

function row(label, children, empty) {
  const wrap = el("div", "row");
  wrap.appendChild(el("span", "label", label));
  const cards = el("div", "cards");
  if (children.length === 0) cards.appendChild(el("span", "empty", empty || "none"));
  children.forEach((c) => cards.appendChild(c));
  wrap.appendChild(cards);
  return wrap;
}

function heading(text, extra) {
  const h = el("h3", null, text);
  if (extra) h.appendChild(el("span", "extra", extra));
  return h;
}

// ------------------------------------------------------------------------------------------ rendering

function renderPoker(s) {
  const v = s.view;
  const unit = s.unit;
  const opp = $("opponent-area");
  const pub = $("public-area");
  const you = $("your-area");
  opp.replaceChildren(heading("Opponent", s.opponent));
  const shown = s.result && s.result.opponent_cards ? s.result.opponent_cards : null;
  const oppCards = shown ? shown.map(pokerCard) : Array.from({ length: v.opponent_card_count }, () => pokerCard(null));
  opp.appendChild(row(shown ? "Shows" : "Cards", oppCards, "not dealt yet"));
  opp.appendChild(el("p", "stake", `In the pot: ${amount(v.opponent_stake, unit)}`));

  pub.replaceChildren();
  if (s.family !== "kuhn") {
    pub.appendChild(row("Board", v.public_cards.map(pokerCard), "dealt after round 1"));
  }
  const pot = el("p", "pot", `Pot: ${amount(v.pot, unit)}`);
  if (s.family !== "kuhn") pot.appendChild(el("span", "extra", `betting round ${v.round} of ${v.rounds || 2}`));
  pub.appendChild(pot);

  you.replaceChildren(heading("You", `seat ${s.seat}`));
  you.appendChild(row(v.your_cards.length > 1 ? "Your cards" : "Your card", v.your_cards.map(pokerCard), "not dealt yet"));
  you.appendChild(el("p", "stake", `In the pot: ${amount(v.your_stake, unit)}`));
}

// Any game without a view of its own: what the player knows (its information-state key), and the log.
function renderGeneric(s) {
  $("opponent-area").replaceChildren(heading("Opponent", s.opponent));
  $("public-area").replaceChildren(el("p", "stake", s.game));
  const you = $("your-area");
  you.replaceChildren(heading("You", `seat ${s.seat}`));
  you.appendChild(el("p", "stake", `What you know: ${s.view.information || "\u2013"}`));
}

function yakuText(list) {
  return list.length ? list.map((y) => `${y[0]}${y[2] ? " " + y[2] : ""} (${y[1]})`).join(", ") : "none yet";
}

function renderKoikoi(s) {
  const v = s.view;
  const legalCards = new Map(s.legal_actions.filter((a) => a.id < 48).map((a) => [a.id, a]));
  const opp = $("opponent-area");
  const pub = $("public-area");
  const you = $("your-area");

  opp.replaceChildren(heading("Opponent", `${s.opponent}${v.you_are_oya ? "" : " \u00b7 dealer (oya)"}`));
  const backs = Array.from({ length: v.opponent_hand_size }, () => el("div", "hana back"));
  opp.appendChild(row("Hand", backs, "empty"));
  opp.appendChild(row("Captured", v.opponent_pile.map((c) => hanafuda(c)), "nothing yet"));
  opp.appendChild(el("p", "stake",
    `Score ${v.opponent_score} \u00b7 yaku: ${yakuText(v.opponent_yaku)} \u00b7 ` +
    `koi-koi calls: ${v.opponent_koikoi_calls}`));

  pub.replaceChildren();
  const roundText = v.rounds > 1 ? `round ${v.round} of ${v.rounds} \u00b7 ` : "";
  pub.appendChild(heading("Field", `${roundText}${v.deck_size} cards left to draw`));
  pub.appendChild(row("Field", v.field.map((c) => hanafuda(c, legalCards.get(c.id))), "empty"));
  if (v.pending) pub.appendChild(row("Waiting", [hanafuda(v.pending)], ""));

  you.replaceChildren(heading("You", `seat ${s.seat}${v.you_are_oya ? " \u00b7 dealer (oya)" : ""}`));
  you.appendChild(row("Hand", v.hand.map((c) => hanafuda(c, legalCards.get(c.id))), "empty"));
  you.appendChild(row("Captured", v.pile.map((c) => hanafuda(c)), "nothing yet"));
  you.appendChild(el("p", "stake",
    `Score ${v.score} \u00b7 yaku: ${yakuText(v.yaku)} \u00b7 koi-koi calls: ${v.koikoi_calls}`));
}

// The match score (in the score panel: one score), the STOP / KOI-KOI decision with the value of stopping, and
// the last round's summary.
function renderMatch(s) {
  const v = s.view;
  const match = v.rounds > 1;
  show($("match-score"), match);
  show($("match-detail"), match);
  show($("score-line"), !match);
  if (match) {
    $("match-score").textContent = `You ${v.totals[0]} \u2013 ${v.totals[1]} opponent`;
    const where = s.finished ? `all ${v.rounds} rounds played`
      : `round ${v.round} of ${v.rounds} \u00b7 ${v.you_are_oya ? "you are the dealer (oya)" : "the opponent is the dealer (oya)"}`;
    $("match-detail").textContent = where;
  }
  const decision = $("decision");
  if (v.stop_value) {
    const steps = v.stop_value.steps.map((st) => `${st[0]} ${st[1]}`).join(" \u2192 ");
    decision.textContent = `STOP now scores ${v.stop_value.points} point${v.stop_value.points === 1 ? "" : "s"} ` +
      `(${yakuText(v.yaku)}; ${steps}). ${v.stop_value.koikoi_risk}`;
  }
  show(decision, Boolean(v.stop_value));
  const summary = $("round-summary");
  if (v.last_round && match) {
    summary.textContent = `Round ${v.last_round.round}: ${v.last_round.text}`;
  }
  show(summary, Boolean(v.last_round && match));
}

function koikoiPrompt(s) {
  const phase = s.view.phase;
  if (phase === "PLAY") return "Your turn: play a card from your hand (click it or its button).";
  if (phase === "PLAY_CAPTURE" || phase === "DRAW_CAPTURE") {
    return "Two field cards match: choose the one to take (click it or its button).";
  }
  if (phase === "DECIDE") return "You scored: STOP to win now, or KOI-KOI to play on for more.";
  return "Your turn.";
}

function count(n, words) {
  return `${n} ${n === 1 ? words[0] : words[1]}`;
}

function capitalized(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// The running score over finished hands (matches, rounds: the view names them); in a match it follows the match
// score, so it counts only the finished matches.
function renderScore(s, of) {
  const score = s.score;
  const words = s.words;
  const total = Number.isInteger(score.total) ? String(score.total) : score.total.toFixed(2);
  $("score-total").textContent = (score.total > 0 ? "+" : "") + total;
  $("score-total").className = score.total > 0 ? "win" : score.total < 0 ? "loss" : "";
  $("score-unit").textContent = Math.abs(score.total) === 1 ? s.unit : `${s.unit}s`;
  const inMatch = s.family === "koikoi" && s.view.rounds > 1;
  let detail = score.hands
    ? `${score.hands}${of} ${score.hands === 1 ? words[0] : words[1]}: ${score.wins} won, ${score.losses} lost, ${score.ties} tied`
    : `No ${words[1]} finished yet.`;
  if (inMatch && score.hands) detail += ` (${(score.total > 0 ? "+" : "") + total} ${$("score-unit").textContent} in all)`;
  if (inMatch && !score.hands) detail = "";
  if (score.low !== null && score.low !== undefined) {
    const sign = (x) => (x > 0 ? "+" : "") + x.toFixed(2);
    detail += `. Per ${words[0]} ${sign(score.mean)} ${s.unit}s, 95 % interval ${sign(score.low)} to ${sign(score.high)}`;
  }
  $("score-detail").textContent = detail;
  show($("score-detail"), Boolean(detail));
}

function render(s) {
  snap = s;
  const words = s.words;
  show($("intro"), false);
  show($("board"), true);
  if (s.family === "koikoi") {
    renderKoikoi(s);
    renderMatch(s);
  } else if (s.family === "generic") {
    renderGeneric(s);
  } else {
    renderPoker(s);
  }

  const actions = $("actions");
  actions.replaceChildren();
  s.legal_actions.forEach((a) => {
    const b = el("button", "action", a.label);
    b.dataset.action = a.id;
    b.addEventListener("click", () => act(a.id));
    actions.appendChild(b);
  });
  show(actions, s.legal_actions.length > 0);

  const status = $("status");
  const of = s.hands ? ` of ${s.hands}` : "";
  if (s.session_over) status.textContent = `The session of ${count(s.hands, words)} is over.`;
  else if (s.finished) status.textContent = `${capitalized(words[0])} ${s.hand}${of} is over.`;
  else if (s.to_act === "you") status.textContent = s.family === "koikoi" ? koikoiPrompt(s) : "Your turn.";
  else status.textContent = "Waiting for the opponent\u2026";

  const result = $("result");
  result.className = "";
  if (s.result) {
    result.textContent = s.result.text;
    result.classList.add(s.result.kind);
  }
  show(result, Boolean(s.result));
  show($("new-hand"), s.finished);
  $("new-hand").textContent = s.session_over ? "New session" : `New ${words[0]}`;
  $("log-title").textContent = `This ${words[0]}`;

  const log = $("log");
  log.replaceChildren(...s.log.map((e) => el("li", `actor-${e.actor}`, e.text)));
  log.scrollTop = log.scrollHeight;

  renderScore(s, of);
  $("subtitle").textContent = `Play ${info.title} against ${s.opponent}`;
  if (!$("opponent-kind").dataset.touched) pickOpponent(s.opponent);
  const radio = document.querySelector(`input[name="seat"][value="${s.seat}"]`);
  if (radio && !radio.dataset.touched) radio.checked = true;
  updateSeatNote();
}

function updateSeatNote() {
  const note = $("seat-note");
  if (!snap) note.textContent = "";
  else if (selectedSeat() !== snap.seat) note.textContent = `You move to seat ${selectedSeat()} at the next ${snap.words[0]}.`;
  else note.textContent = "";
  $("opponent-note").textContent = snap && opponentChanged()
    ? `You meet ${selectedOpponent()} in a new session at the next ${snap.words[0]}; its score starts from zero.` : "";
}

function opponentChanged() {
  return Boolean(snap) && selectedOpponent() !== snap.opponent;
}

// ---------------------------------------------------------------------------------------------- calls

async function run(task) {
  if (busy) return;
  busy = true;
  document.body.classList.add("busy");
  try {
    showError("");
    await task();
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
    document.body.classList.remove("busy");
  }
}

function start() {
  return run(async () => {
    const s = await api("POST", "/api/sessions", { seat: selectedSeat(), opponent: selectedOpponent() });
    sessionStorage.setItem(STORE_KEY, s.session);
    render(s);
  });
}

function act(action) {
  return run(async () => {
    try {
      render(await api("POST", `/api/sessions/${snap.session}/actions`, { action }));
    } catch (e) {
      if (e.status === 404) await restart(e.message);
      else throw e;
    }
  });
}

function newHand() {
  return run(async () => {
    try {
      render(await api("POST", `/api/sessions/${snap.session}/hands`, { seat: selectedSeat() }));
    } catch (e) {
      if (e.status === 404) await restart(e.message);
      else throw e;
    }
  });
}

async function restart(reason) {
  sessionStorage.removeItem(STORE_KEY);
  const s = await api("POST", "/api/sessions", { seat: selectedSeat(), opponent: selectedOpponent() });
  sessionStorage.setItem(STORE_KEY, s.session);
  render(s);
  showError(`${reason} A new session was started; the score starts again from zero.`);
}

async function init() {
  try {
    info = await api("GET", "/api/info");
  } catch (e) {
    showError(`Cannot reach the cfrlab server: ${e.message}`);
    return;
  }
  $("subtitle").textContent = `Play ${info.title} against ${info.opponent}`;
  $("subtitle").title = info.game;
  document.title = `cfrlab: ${info.title}`;
  const seats = $("seats");
  info.seats.forEach((label, i) => {
    const wrap = el("label", "seat");
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "seat";
    input.value = String(i);
    input.checked = i === 0;
    input.addEventListener("change", () => {
      document.querySelectorAll('input[name="seat"]').forEach((r) => { r.dataset.touched = "1"; });
      updateSeatNote();
    });
    wrap.appendChild(input);
    wrap.appendChild(document.createTextNode(` ${label}`));
    seats.appendChild(wrap);
  });
  $("start").addEventListener("click", start);
  setUpOpponents();
  $("new-hand").addEventListener("click", () => (snap && (snap.session_over || opponentChanged()) ? start() : newHand()));
  $("start").disabled = false;
  const saved = sessionStorage.getItem(STORE_KEY);
  if (saved) {
    try {
      render(await api("GET", `/api/sessions/${saved}`));
    } catch (e) {
      sessionStorage.removeItem(STORE_KEY);
    }
  }
}

init();
