"""Hostile strategy files for the hardening tests: edited metadata and masks, forged array headers."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.checkpoint import load_arrays

META = "__meta_json__"


def write_npz(path: Path, arrays: dict[str, np.ndarray], meta: Any) -> None:
    """An ``.npz`` as ``save_arrays`` writes it, but with any metadata (even a JSON list or null)."""
    payload = dict(arrays)
    payload[META] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(path, **payload)


def edited(source: Path, target: Path, meta_changes: dict[str, Any] | None = None, **arrays: np.ndarray) -> Path:
    """A copy of strategy file ``source`` with metadata entries and arrays replaced."""
    original, meta = load_arrays(source)
    write_npz(target, {**original, **arrays}, {**meta, **(meta_changes or {})})
    return target


def with_declared_shape(source: Path, target: Path, name: str, shape: tuple[int, ...]) -> Path:
    """A copy of ``source`` whose array ``name`` claims ``shape`` in its ``.npy`` header but keeps its bytes."""
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w") as out:
        for info in archive.infolist():
            data = archive.read(info)
            if info.filename == f"{name}.npy":
                array = np.lib.format.read_array(io.BytesIO(data))
                header = io.BytesIO()
                np.lib.format.write_array_header_1_0(
                    header, {"descr": np.lib.format.dtype_to_descr(array.dtype), "fortran_order": False,
                             "shape": shape})
                data = header.getvalue() + array.tobytes()
            out.writestr(info.filename, data)
    return target


def member_data_offsets(path: Path) -> list[int]:
    """File offsets of the first data byte of every member (where a flipped byte breaks its CRC)."""
    offsets = []
    raw = path.read_bytes()
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            start = info.header_offset
            name_len = int.from_bytes(raw[start + 26:start + 28], "little")
            extra_len = int.from_bytes(raw[start + 28:start + 30], "little")
            offsets.append(start + 30 + name_len + extra_len)
    return offsets
