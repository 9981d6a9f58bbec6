"""The 48 hanafuda cards: ids, months, categories, names, and the bit masks used by scoring.

Rules (koikoi-rules.md sec. 2): 12 months of 4 cards. Each card is a bright (5), an animal (9, counting the
eight-plank bridge and the sake cup), a ribbon (10: 3 poetry "akatan", 3 blue "aotan", 4 plain red) or a
chaff (24). Face values play no role in Koi-Koi scoring.

Specification in cfrlab:
* Card id = 4 * (month - 1) + k, k ordering a month's cards bright, animal, ribbon, chaff (the numbering of
  guansanghai/KoiKoi-AI, so their records map without translation).
* A set of cards is a Python ``int`` with bit ``id`` set (48-bit mask); helpers convert to and from lists.
* ``deck_mask(months)`` builds the deck of a mini variant from a subset of months.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

NUM_CARDS = 48
FULL_DECK = (1 << NUM_CARDS) - 1

BRIGHT, ANIMAL, RIBBON, CHAFF = 0, 1, 2, 3
KIND_NAMES = ("bright", "animal", "ribbon", "chaff")

# (kind, English name, Japanese name) for each id, from the card table of sec. 2.2.
_TABLE: tuple[tuple[int, str, str], ...] = (
    (BRIGHT, "Pine Crane", "松に鶴"), (RIBBON, "Pine Poetry Ribbon", "松に赤短"),
    (CHAFF, "Pine Chaff 1", "松のカス"), (CHAFF, "Pine Chaff 2", "松のカス"),
    (ANIMAL, "Plum Bush Warbler", "梅に鶯"), (RIBBON, "Plum Poetry Ribbon", "梅に赤短"),
    (CHAFF, "Plum Chaff 1", "梅のカス"), (CHAFF, "Plum Chaff 2", "梅のカス"),
    (BRIGHT, "Cherry Curtain", "桜に幕"), (RIBBON, "Cherry Poetry Ribbon", "桜に赤短"),
    (CHAFF, "Cherry Chaff 1", "桜のカス"), (CHAFF, "Cherry Chaff 2", "桜のカス"),
    (ANIMAL, "Wisteria Cuckoo", "藤に不如帰"), (RIBBON, "Wisteria Ribbon", "藤に短冊"),
    (CHAFF, "Wisteria Chaff 1", "藤のカス"), (CHAFF, "Wisteria Chaff 2", "藤のカス"),
    (ANIMAL, "Iris Eight-plank Bridge", "菖蒲に八橋"), (RIBBON, "Iris Ribbon", "菖蒲に短冊"),
    (CHAFF, "Iris Chaff 1", "菖蒲のカス"), (CHAFF, "Iris Chaff 2", "菖蒲のカス"),
    (ANIMAL, "Peony Butterflies", "牡丹に蝶"), (RIBBON, "Peony Blue Ribbon", "牡丹に青短"),
    (CHAFF, "Peony Chaff 1", "牡丹のカス"), (CHAFF, "Peony Chaff 2", "牡丹のカス"),
    (ANIMAL, "Clover Boar", "萩に猪"), (RIBBON, "Clover Ribbon", "萩に短冊"),
    (CHAFF, "Clover Chaff 1", "萩のカス"), (CHAFF, "Clover Chaff 2", "萩のカス"),
    (BRIGHT, "Susuki Moon", "芒に月"), (ANIMAL, "Susuki Geese", "芒に雁"),
    (CHAFF, "Susuki Chaff 1", "芒のカス"), (CHAFF, "Susuki Chaff 2", "芒のカス"),
    (ANIMAL, "Chrysanthemum Sake Cup", "菊に盃"), (RIBBON, "Chrysanthemum Blue Ribbon", "菊に青短"),
    (CHAFF, "Chrysanthemum Chaff 1", "菊のカス"), (CHAFF, "Chrysanthemum Chaff 2", "菊のカス"),
    (ANIMAL, "Maple Deer", "紅葉に鹿"), (RIBBON, "Maple Blue Ribbon", "紅葉に青短"),
    (CHAFF, "Maple Chaff 1", "紅葉のカス"), (CHAFF, "Maple Chaff 2", "紅葉のカス"),
    (BRIGHT, "Willow Rain Man", "柳に小野道風"), (ANIMAL, "Willow Swallow", "柳に燕"),
    (RIBBON, "Willow Ribbon", "柳に短冊"), (CHAFF, "Willow Lightning", "柳のカス (雷)"),
    (BRIGHT, "Paulownia Phoenix", "桐に鳳凰"), (CHAFF, "Paulownia Chaff 1", "桐のカス (色違い)"),
    (CHAFF, "Paulownia Chaff 2", "桐のカス"), (CHAFF, "Paulownia Chaff 3", "桐のカス"),
)
assert len(_TABLE) == NUM_CARDS

KIND: tuple[int, ...] = tuple(k for k, _, _ in _TABLE)
CARD_VALUE: tuple[int, ...] = tuple((20, 10, 5, 1)[k] for k in KIND)
"""A card's worth to the greedy heuristic and the playouts: bright 20, animal 10, ribbon 5, chaff 1."""
NAME_EN: tuple[str, ...] = tuple(n for _, n, _ in _TABLE)
NAME_JA: tuple[str, ...] = tuple(n for _, _, n in _TABLE)
MONTH: tuple[int, ...] = tuple(i // 4 + 1 for i in range(NUM_CARDS))
"""Month 1..12 of each card id."""
MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
PLANTS_EN = ("pine", "plum", "cherry", "wisteria", "iris", "peony", "bush clover", "susuki", "chrysanthemum",
             "maple", "willow", "paulownia")
PLANTS_JA = ("松", "梅", "桜", "藤", "菖蒲", "牡丹", "萩", "芒", "菊", "紅葉", "柳", "桐")


def mask_of(ids: Iterable[int]) -> int:
    """The bit mask of a collection of card ids."""
    m = 0
    for c in ids:
        m |= 1 << c
    return m


_BYTE_TABLES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(8 * k + i for i in range(8) if b >> i & 1) for b in range(256)) for k in range(6)
)


def cards_of(mask: int) -> list[int]:
    """The card ids in ``mask``, ascending (six byte-table lookups)."""
    t = _BYTE_TABLES
    return list(t[0][mask & 255] + t[1][mask >> 8 & 255] + t[2][mask >> 16 & 255] + t[3][mask >> 24 & 255]
                + t[4][mask >> 32 & 255] + t[5][mask >> 40 & 255])


MONTH_MASK: tuple[int, ...] = tuple(0xF << (4 * m) for m in range(12))
"""MONTH_MASK[m - 1]: the four cards of month m."""
CARD_MONTH_MASK: tuple[int, ...] = tuple(MONTH_MASK[i // 4] for i in range(NUM_CARDS))
"""The four cards sharing card id's month (the cards it can capture)."""

# Card sets of sec. 2.2.
BRIGHTS = mask_of([0, 8, 28, 40, 44])
NON_RAIN_BRIGHTS = mask_of([0, 8, 28, 44])
RAIN_MAN, CURTAIN, MOON, SAKE_CUP = 40, 8, 28, 32
LIGHTNING, YELLOW_PAULOWNIA = 43, 45
ANIMALS = mask_of([4, 12, 16, 20, 24, 29, 32, 36, 41])
INOSHIKACHO = mask_of([20, 24, 36])
RIBBONS = mask_of([1, 5, 9, 13, 17, 21, 25, 33, 37, 42])
AKATAN = mask_of([1, 5, 9])
AOTAN = mask_of([21, 33, 37])
PLAIN_RIBBONS = mask_of([13, 17, 25, 42])
CHAFF_CARDS = mask_of([2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31, 34, 35, 38, 39, 43, 45, 46, 47])
HANAMI = mask_of([CURTAIN, SAKE_CUP])
TSUKIMI = mask_of([MOON, SAKE_CUP])
NOVEMBER = MONTH_MASK[10]
DECEMBER = MONTH_MASK[11]

assert BRIGHTS.bit_count() == 5 and ANIMALS.bit_count() == 9 and RIBBONS.bit_count() == 10
assert CHAFF_CARDS.bit_count() == 24 and (BRIGHTS | ANIMALS | RIBBONS | CHAFF_CARDS) == FULL_DECK


def deck_mask(months: Sequence[int]) -> int:
    """The deck made of the given months (1..12), e.g. ``deck_mask([8, 9])`` for a mini variant."""
    m = 0
    for month in months:
        if not 1 <= int(month) <= 12:
            raise ValueError(f"months must be in 1..12, got {month!r}")
        m |= MONTH_MASK[int(month) - 1]
    return m


def card_name(card: int, lang: str = "en") -> str:
    """English (``"Pine Crane"``) or Japanese (``"松に鶴"``) name of a card id."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id must be in 0..47, got {card!r}")
    return NAME_JA[card] if lang == "ja" else NAME_EN[card]


def card_label(card: int) -> str:
    """Name with month and category, for terminals: ``"Pine Crane (Jan, bright)"``."""
    return f"{NAME_EN[card]} ({MONTH_NAMES[MONTH[card] - 1]}, {KIND_NAMES[KIND[card]]})"
