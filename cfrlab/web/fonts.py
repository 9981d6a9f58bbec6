"""The web font the page ships for the text a Latin font lacks (Koi-Koi's Japanese names), and the script that
makes it.

Servers, containers and a headless Chromium often have no CJK font, so the page's Japanese names came out as
empty boxes. ``static/fonts/cfrlab-ja.woff`` holds the glyphs of exactly the characters the page can show beyond
ASCII (every game family's ``TableView.texts()``), cut from Noto Sans CJK JP (SIL Open Font License 1.1,
``static/fonts/OFL.txt``) at weight 400 and renamed as the licence asks of a modified font; ``style.css``
declares it by ``@font-face`` with those characters' ``unicode-range``, so a page without them never loads it.

Regenerate it after changing such a text: ``python -m cfrlab.web.fonts`` (fetches the pinned font package with
``pip download``, then subsets and instances it with fontTools).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

FONT_DIR = Path(__file__).parent / "static" / "fonts"
FONT_FILE = FONT_DIR / "cfrlab-ja.woff"
CSS_FILE = FONT_DIR.parent / "style.css"
FAMILY = "cfrlab JA"
"""The subset's family name (the licence's reserved names are not reused for a modified font)."""
SOURCE_PACKAGE = "manimgx-fonts-cjk==2026.9.26.post1"
"""The PyPI package that carries Noto Sans CJK (``NotoSansCJK-VF.otf.ttc``, OFL 1.1)."""
SOURCE_FILE, SOURCE_FACE, WEIGHT = "NotoSansCJK-VF.otf.ttc", 0, 400
"""The collection in that package, its face 0 (Noto Sans CJK JP, variable) and the weight taken from it."""


def page_characters(texts: Iterable[str] | None = None) -> list[str]:
    """The characters beyond ASCII in ``texts`` (default: every registered family's ``TableView.texts()``),
    sorted by code point."""
    if texts is None:
        from cfrlab.registry import families, resolve

        texts = [t for f in families() if f.views.web is not None for t in resolve(f.views.web).texts()]
    return sorted({ch for text in texts for ch in text if ord(ch) > 0x7F and not ch.isspace()})


def unicode_range(chars: Iterable[str]) -> str:
    """The CSS ``unicode-range`` of ``chars``: ``U+30FB, U+4E03, ...``."""
    return ", ".join(f"U+{ord(ch):04X}" for ch in sorted(set(chars)))


def font_face(chars: Iterable[str]) -> str:
    """The ``@font-face`` rule of ``style.css`` for the subset of ``chars``."""
    return (f'@font-face {{\n  font-family: "{FAMILY}";\n  src: url("/static/fonts/{FONT_FILE.name}") format("woff");\n'
            f"  font-display: swap;\n  unicode-range: {unicode_range(chars)};\n}}")


def write_font_face(chars: Iterable[str], css: Path = CSS_FILE) -> None:
    """Put ``font_face(chars)`` in ``css`` in place of the rule there (the first ``@font-face``)."""
    text = css.read_text(encoding="utf-8")
    start = text.index("@font-face {")
    end = text.index("}", start) + 1
    css.write_text(text[:start] + font_face(chars) + text[end:], encoding="utf-8")


def build(source: Path, out: Path, chars: Iterable[str]) -> None:
    """Write the subset of face ``SOURCE_FACE`` of collection ``source`` covering ``chars`` to ``out`` (WOFF)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont
    from fontTools.varLib import instancer

    font = TTFont(source, fontNumber=SOURCE_FACE)
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # copyright, names, version, licence and its URL
    subsetter = subset.Subsetter(options)
    subsetter.populate(text="".join(chars))
    subsetter.subset(font)  # first: instancing the whole collection's face takes minutes, the subset a second
    font = instancer.instantiateVariableFont(font, {"wght": WEIGHT})  # a static CFF2 font, as browsers read it
    names = font["name"]
    for record in names.names:
        if record.nameID in (1, 4, 16):
            record.string = FAMILY
        elif record.nameID in (3, 6):
            record.string = FAMILY.replace(" ", "-")
    for record in [r for r in names.names if r.nameID in (16, 17, 21, 22, 25)]:
        names.removeNames(record.nameID)
    font.flavor = "woff"
    out.parent.mkdir(parents=True, exist_ok=True)
    font.save(out)


def main() -> None:
    """Fetch the pinned font package, build ``FONT_FILE`` for ``page_characters()`` and its rule in ``style.css``."""
    import zipfile

    chars = page_characters()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-d", tmp,
                        SOURCE_PACKAGE], check=True)
        [wheel] = Path(tmp).glob("*.whl")
        with zipfile.ZipFile(wheel) as archive:
            member = next(n for n in archive.namelist() if n.endswith(SOURCE_FILE))
            source = Path(archive.extract(member, tmp))
        build(source, FONT_FILE, chars)
    write_font_face(chars)
    print(f"{FONT_FILE}: {len(chars)} characters, {FONT_FILE.stat().st_size:,} bytes; unicode-range: "
          f"{unicode_range(chars)}")


if __name__ == "__main__":
    main()
