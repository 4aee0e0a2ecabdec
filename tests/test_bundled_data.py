"""The data sets shipped in ``data/datasets/`` (issue 29, item 1): the files its provenance
note lists, byte for byte, installed as package data, and found inside the repository,
never beside it.

The expected sizes and checksums are those of ``data/datasets/SOURCE.md``, taken from the
files of github:ElAlev/cer-srt when they were copied (the stream: the one file of its
``stockstream/stocks.7z``, unpacked).
"""

from __future__ import annotations

import gzip
import hashlib
import re
import tomllib
from pathlib import Path

from kleene.data.bundled import DATASETS, bundled
from kleene.data.loaders import load_events

ROOT = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\| `([^`]+)` \| (\d+) \| `([0-9a-f]{64})` \|$", re.M)


def listed() -> dict[str, tuple[int, str]]:
    """``relative path -> (bytes, sha256)`` from SOURCE.md's table."""
    text = (DATASETS / "SOURCE.md").read_text(encoding="utf-8")
    return {name: (int(size), sha) for name, size, sha in ROW.findall(text)}


def shipped() -> set[str]:
    return {p.relative_to(DATASETS).as_posix() for p in DATASETS.rglob("*") if p.is_file()}


def test_every_shipped_file_is_the_one_the_provenance_note_lists() -> None:
    table = listed()
    assert shipped() == set(table) | {"SOURCE.md"}
    assert len(table) == 20      # the stream and Wayeb's 19 queries
    for name, (size, sha) in table.items():
        data = (DATASETS / name).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (size, sha), name


def test_the_stream_is_cer_srts_file_byte_for_byte() -> None:
    # stocks.7z of cer-srt holds one file, stocks.stream: 16,082,691 bytes, 224,473 lines
    with gzip.open(bundled("stocks.stream.gz")) as f:
        data = f.read()
    assert (len(data), data.count(b"\n")) == (16_082_691, 224_473)
    assert hashlib.sha256(data).hexdigest() == \
        "88152d27e154a6d1f155aef3d72537b1120f41ca46aa0b40698dc0ed14867246"


def test_the_stream_loads_as_seed_004_describes_it() -> None:
    # Sec. 5: "stock market data from a single day (224,473 input events)", BUY or SELL
    s = load_events(bundled("stocks.stream.gz"))
    assert len(s) == 224_473 and s.time_unit == "ms"
    assert (s[0].type, s[0].ts, s[0].attrs["name"]) == ("BUY", 25_263_126, "INTC")
    assert (s[-1].type, s[-1].ts, s[-1].attrs["name"]) == ("SELL", 71_996_994, "IPIX")


def test_wayebs_nineteen_queries_are_shipped() -> None:
    names = sorted(p.stem for p in bundled("wayeb-queries").glob("*.sre"))
    assert names == sorted([*(f"stock_reg{i}" for i in range(1, 5)),
                            *(f"stock_k{i}" for i in range(1, 5)),
                            *(f"stock_kn{i}" for i in range(1, 5)),
                            *(f"stock_other_reg{i}" for i in range(1, 8))])


def test_the_package_data_installs_every_file() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["kleene.data"]
    package = DATASETS.parent    # setuptools globs each pattern there ("*" stays in a folder)
    installed = {p.relative_to(DATASETS).as_posix()
                 for pattern in patterns for p in package.glob(pattern) if p.is_file()}
    assert installed == shipped()


def test_the_data_lies_inside_the_repository() -> None:
    assert DATASETS.is_relative_to(ROOT) and bundled("wayeb-queries").is_dir()


def test_no_code_or_doc_names_a_folder_beside_the_repository() -> None:
    # the data used to be read from a folder beside the clone, or from where an
    # environment variable said: neither is named any more
    banned = ("shared" + "/data", "../" + "shared", "KLEENE" + "_DATA")
    found = []
    for path in ROOT.rglob("*"):
        parts = path.relative_to(ROOT).parts
        if parts[0].startswith(".") or parts[0] in {"out", "build"} \
                or parts[0].endswith(".egg-info") or not path.is_file() \
                or path.suffix not in {".py", ".md", ".toml", ".sh", ""}:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{path.relative_to(ROOT)}: {b}" for b in banned if b in text]
    assert found == []
