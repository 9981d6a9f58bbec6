"""The 48 hanafuda cards drawn as SVG, from a compact description: each month's plant and colours, and the bright,
animal or ribbon that sets a card's kind (koikoi-rules.md sec. 2; chaff show the plant alone).

Specification in cfrlab: ``card_svg(card)`` is a self-contained SVG (viewBox 40 x 60, no text but the month's
number, no external resource) that the web page shows with the card's name as a caption. A bright carries a red
sun ringed in gold, an animal its creature, a ribbon a red or blue tanzaku (the poetry ones written on); the
month's number sits in the top-left corner. Shapes are plain circles, ellipses and paths, legible at 60 px wide.
"""

from __future__ import annotations

from functools import cache

from cfrlab.games.koikoi.rules import cards as C

# Month -> (plant motif, main colour, second colour); koikoi-rules.md sec. 2.1 gives the plants.
PLANTS: tuple[tuple[str, str, str], ...] = (
    ("pine", "#2e6b3a", "#6b4423"),
    ("blossom", "#c8283c", "#4a2c1d"),       # plum
    ("blossom", "#f2a1bc", "#5a3a2a"),       # cherry
    ("hanging", "#8a63b8", "#3f6b2a"),       # wisteria
    ("iris", "#5b4bb7", "#3f7d3a"),
    ("peony", "#d2304a", "#3f7d3a"),
    ("clover", "#b03a6e", "#4f7d3a"),        # bush clover
    ("hill", "#2b2b2b", "#c8a84b"),          # susuki grass on a hill
    ("chrysanthemum", "#e0a81c", "#3f7d3a"),
    ("maple", "#d2461e", "#7a2e12"),
    ("willow", "#4b8b3b", "#2b2b2b"),
    ("paulownia", "#7a52b3", "#3f7d3a"),
)

# Card -> (creature or object, colour): what makes a bright or an animal (koikoi-rules.md sec. 2.2).
SUBJECTS: dict[int, tuple[str, str]] = {
    0: ("bird", "#f7f4ee"), 8: ("curtain", "#c8283c"), 28: ("moon", "#f4e9c8"), 40: ("umbrella", "#c8283c"),
    44: ("bird", "#e07b24"), 4: ("bird", "#6f8f2f"), 12: ("bird", "#4a4a6a"), 16: ("bridge", "#7a5230"),
    20: ("butterfly", "#d9a521"), 24: ("beast", "#5a3b24"), 29: ("bird", "#3b3b3b"), 32: ("cup", "#c8283c"),
    36: ("deer", "#b0682e"), 41: ("bird", "#20304a"),
}
RED_RIBBON, BLUE_RIBBON, INK = "#c0262d", "#2a4fa8", "#1d1d1d"


def _plant(motif: str, main: str, second: str) -> str:
    """The month's plant, drawn over the lower part of the card."""
    if motif == "pine":
        return (f'<path d="M19 58 L21 34 L23 58 Z" fill="{second}"/>'
                + "".join(f'<ellipse cx="{x}" cy="{y}" rx="9" ry="4.5" fill="{main}"/>'
                          for x, y in ((12, 40), (28, 37), (20, 30), (14, 50), (29, 49))))
    if motif == "blossom":
        flowers = "".join(_flower(x, y, 3.2, main) for x, y in ((10, 44), (22, 38), (31, 47), (15, 54)))
        return f'<path d="M2 58 Q14 44 36 36" stroke="{second}" stroke-width="2.2" fill="none"/>{flowers}'
    if motif == "hanging":
        chains = "".join(f'<circle cx="{x + (i % 2)}" cy="{y0 + 3.6 * i}" r="2.1" fill="{main}"/>'
                         for x, y0, n in ((9, 6, 7), (18, 10, 6), (27, 6, 8), (34, 12, 5)) for i in range(n))
        return f'<path d="M2 5 Q20 9 38 4" stroke="{second}" stroke-width="2" fill="none"/>{chains}'
    if motif == "iris":
        blades = "".join(f'<path d="M{x} 58 L{x + 2} {y} L{x + 3.5} 58 Z" fill="{second}"/>'
                         for x, y in ((6, 30), (12, 36), (24, 28), (31, 34)))
        heads = "".join(f'<ellipse cx="{x}" cy="{y}" rx="2.4" ry="4.2" fill="{main}"/>'
                        f'<ellipse cx="{x - 3}" cy="{y + 2}" rx="3.5" ry="1.8" fill="{main}"/>'
                        f'<ellipse cx="{x + 3}" cy="{y + 2}" rx="3.5" ry="1.8" fill="{main}"/>'
                        for x, y in ((9, 28), (27, 26)))
        return blades + heads
    if motif == "peony":
        leaves = "".join(f'<ellipse cx="{x}" cy="{y}" rx="7" ry="3" fill="{second}" transform="rotate({a} {x} {y})"/>'
                         for x, y, a in ((10, 52, -25), (30, 52, 25), (20, 56, 0)))
        return leaves + "".join(f'<circle cx="20" cy="44" r="{r}" fill="{c}"/>'
                                for r, c in ((10, main), (7, "#e9667a"), (4, main), (1.6, "#f2d05a")))
    if motif == "clover":
        arcs = "".join(f'<path d="M{x} 58 Q{x + 10} {y} {x + 18} {y - 6}" stroke="{second}" stroke-width="1.3" '
                       f'fill="none"/>' for x, y in ((2, 38), (10, 44), (18, 40)))
        dots = "".join(f'<circle cx="{x}" cy="{y}" r="1.7" fill="{main}"/>'
                       for x, y in ((9, 44), (13, 40), (17, 37), (18, 48), (22, 44), (27, 40), (25, 50), (30, 46),
                                    (34, 36), (12, 52)))
        return arcs + dots
    if motif == "hill":
        grass = "".join(f'<path d="M{x} 58 Q{x + 2} {y + 8} {x + 5} {y}" stroke="{second}" stroke-width="1.2" '
                        f'fill="none"/>' for x, y in ((4, 34), (12, 30), (20, 33), (28, 29)))
        return f'<path d="M2 58 L2 44 Q20 28 38 42 L38 58 Z" fill="{main}"/>{grass}'
    if motif == "chrysanthemum":
        petals = "".join(f'<ellipse cx="20" cy="39" rx="2" ry="7" fill="{main}" transform="rotate({a} 20 46)"/>'
                         for a in range(0, 360, 30))
        return (f'<path d="M20 53 L20 58" stroke="{second}" stroke-width="2"/>{petals}'
                f'<circle cx="20" cy="46" r="3.2" fill="#b5651d"/>')
    if motif == "maple":
        return f'<path d="M4 58 Q16 42 36 34" stroke="{second}" stroke-width="1.8" fill="none"/>' + "".join(
            _leaf(x, y, main) for x, y in ((9, 47), (20, 40), (31, 34), (24, 52), (33, 46)))
    if motif == "willow":
        return "".join(f'<path d="M{x} 2 Q{x + 6} 24 {x - 2} {y}" stroke="{main}" stroke-width="1.6" fill="none"/>'
                       for x, y in ((6, 40), (13, 50), (20, 44), (27, 54), (34, 46)))
    if motif == "paulownia":
        leaves = "".join(f'<path d="M{x} {y} q-9 -4 -8 -12 q8 0 8 12 q1 -12 9 -12 q1 8 -9 12 z" fill="{second}"/>'
                         for x, y in ((12, 58), (28, 58)))
        spikes = "".join(f'<circle cx="{x}" cy="{y - 3.5 * i}" r="2" fill="{main}"/>'
                         for x, y in ((12, 44), (20, 40), (28, 44)) for i in range(4))
        return leaves + spikes
    raise ValueError(f"unknown plant motif {motif!r}")


def _flower(x: float, y: float, r: float, colour: str) -> str:
    petals = "".join(f'<circle cx="{x + r * dx:.1f}" cy="{y + r * dy:.1f}" r="{r * 0.7:.1f}" fill="{colour}"/>'
                     for dx, dy in ((0, -1), (0.95, -0.31), (0.59, 0.81), (-0.59, 0.81), (-0.95, -0.31)))
    return petals + f'<circle cx="{x}" cy="{y}" r="{r * 0.45:.1f}" fill="#f2d05a"/>'


def _leaf(x: float, y: float, colour: str) -> str:
    points = " ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in (
        (0, -5), (1.5, -2), (4.5, -3), (3, 0), (4.5, 2.5), (1, 1.5), (0, 4), (-1, 1.5), (-4.5, 2.5), (-3, 0),
        (-4.5, -3), (-1.5, -2)))
    return f'<polygon points="{points}" fill="{colour}"/>'


def _subject(shape: str, colour: str) -> str:
    """A bright's or an animal's creature or object, in the upper middle of the card."""
    if shape == "bird":
        return (f'<path d="M7 24 Q13 14 20 22 Q27 14 33 24 Q26 21 20 27 Q14 21 7 24 Z" fill="{colour}" '
                f'stroke="{INK}" stroke-width="0.8"/><circle cx="20" cy="23" r="2" fill="{INK}"/>')
    if shape == "butterfly":
        return "".join(f'<ellipse cx="{20 + dx}" cy="{y}" rx="{rx}" ry="{ry}" fill="{colour}" stroke="{INK}" '
                       f'stroke-width="0.7"/>' for dx, y, rx, ry in ((-5, 18, 5, 4), (5, 18, 5, 4), (-4, 25, 3.5, 3),
                                                                     (4, 25, 3.5, 3))) \
            + f'<path d="M20 15 L20 28" stroke="{INK}" stroke-width="1.2"/>'
    if shape in ("beast", "deer"):
        legs = "".join(f'<path d="M{x} 26 L{x} 32" stroke="{INK}" stroke-width="1.4"/>' for x in (13, 17, 23, 27))
        horns = ('<path d="M29 13 L27 6 M29 13 L32 7 M28 9 L25 8 M31 9 L34 9" stroke="#7a5230" stroke-width="1"/>'
                 if shape == "deer" else "")
        return (f'{legs}<ellipse cx="20" cy="22" rx="10" ry="6" fill="{colour}" stroke="{INK}" stroke-width="0.8"/>'
                f'<circle cx="30" cy="16" r="3.6" fill="{colour}" stroke="{INK}" stroke-width="0.8"/>{horns}')
    if shape == "bridge":
        return "".join(f'<rect x="{x}" y="{y}" width="14" height="3.2" fill="{colour}" stroke="{INK}" '
                       f'stroke-width="0.6" transform="rotate(-20 {x} {y})"/>'
                       for x, y in ((5, 24), (14, 20), (23, 16)))
    if shape == "cup":
        return (f'<ellipse cx="20" cy="20" rx="10" ry="4" fill="{colour}" stroke="#e8b923" stroke-width="1.2"/>'
                f'<path d="M11 20 Q20 32 29 20" fill="{colour}" stroke="{INK}" stroke-width="0.6"/>'
                f'<rect x="16" y="27" width="8" height="2.5" fill="{INK}"/>')
    if shape == "moon":
        return (f'<rect x="2" y="2" width="36" height="30" fill="#c8283c"/>'
                f'<circle cx="20" cy="18" r="10" fill="{colour}" stroke="#c9a227" stroke-width="1"/>')
    if shape == "curtain":
        crests = "".join(f'<circle cx="{x}" cy="16" r="2.6" fill="#f7f4ee"/>' for x in (10, 20, 30))
        return (f'<path d="M4 8 L36 8 L36 22 Q28 26 20 22 Q12 26 4 22 Z" fill="{colour}" stroke="{INK}" '
                f'stroke-width="0.7"/>{crests}')
    if shape == "umbrella":
        return (f'<path d="M8 22 Q20 6 32 22 Z" fill="{colour}" stroke="{INK}" stroke-width="0.7"/>'
                f'<path d="M20 22 L20 34" stroke="{INK}" stroke-width="1.2"/>'
                f'<circle cx="24" cy="28" r="2.6" fill="#f2d2b0" stroke="{INK}" stroke-width="0.5"/>'
                f'<rect x="22" y="30.5" width="5" height="8" fill="#2b4a7a"/>')
    raise ValueError(f"unknown subject {shape!r}")


def _ribbon(card: int) -> str:
    """A tanzaku across the card: blue for aotan, red otherwise; the poetry ribbons (akatan) written on."""
    blue = C.AOTAN >> card & 1
    poetry = C.AKATAN >> card & 1
    strip = (f'<rect x="16" y="6" width="8" height="32" fill="{BLUE_RIBBON if blue else RED_RIBBON}" '
             f'stroke="{INK}" stroke-width="0.6" transform="rotate(-10 20 22)"/>')
    writing = "".join(f'<path d="M19 {y} l2 0.6" stroke="{INK}" stroke-width="1.1" transform="rotate(-10 20 22)"/>'
                      for y in (11, 16, 21, 26, 31)) if poetry else ""
    return f'<g class="ribbon">{strip}{writing}</g>'


def _chaff_mark(card: int) -> str:
    if card == 43:  # the willow's lightning
        return f'<path d="M8 6 L30 8 L18 14 L32 18 L12 26 L20 20 L8 16 L20 12 Z" fill="#c8283c" stroke="{INK}"/>'
    if card == 45:  # the paulownia chaff with the coloured bottom
        return '<rect x="2" y="50" width="36" height="8" fill="#e8c547"/>'
    return ""


@cache
def card_svg(card: int) -> str:
    """The picture of ``card`` (0-47) as a standalone SVG document."""
    if not 0 <= card < C.NUM_CARDS:
        raise ValueError(f"card id must be in 0..47, got {card!r}")
    month, kind = C.MONTH[card], C.KIND_NAMES[C.KIND[card]]
    motif, main, second = PLANTS[month - 1]
    if kind == "ribbon":
        mark = _ribbon(card)
    elif kind == "chaff":
        mark = f'<g class="chaff">{_chaff_mark(card)}</g>'
    else:
        mark = f'<g class="{kind}">{_subject(*SUBJECTS[card])}</g>'
    if kind == "bright":  # the sun that marks a bright (hikari)
        mark += ('<circle class="sun" cx="31" cy="9" r="5" fill="#d8342c" stroke="#e8b923" stroke-width="1.6"/>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 60" width="40" height="60" role="img" '
            f'aria-label="{C.NAME_EN[card]}">'
            f'<rect x="0.5" y="0.5" width="39" height="59" rx="3" fill="#fbf3e0" stroke="#3a2a1e"/>'
            f'<g class="plant">{_plant(motif, main, second)}</g>{mark}'
            f'<rect x="1.5" y="1.5" width="{10 if month > 9 else 7}" height="9" rx="2" fill="#fbf3e0"/>'
            f'<text x="3" y="9" font-family="sans-serif" font-size="7" font-weight="700" fill="{INK}">{month}</text>'
            f"</svg>")
