"""Run Kleene's conformance suite against real CEP engines and write docs/peers.md.

Called by ``make peers`` (``scripts/peers.sh`` installs the engines first).
For each engine of :mod:`kleene.conformance.adapters.engines`:

1. ``kleene conform`` on the case files (the claimed fragment, ``AFTER MATCH
   SKIP TO NEXT ROW``; everything else is skipped with its reason);
2. the ``MATCH_RECOGNIZE``-semantics probe (:mod:`kleene.conformance.adapters.probe`)
   under both skip modes, each disagreement shrunk and classified with
   :data:`CLASSIFIED` (findings nobody has classified yet say so);
3. CEQL queries through CORE (:mod:`kleene.conformance.adapters.core_checks`), compared
   with Kleene's reading of CEQL and each difference classified (``--parts core``);
4. the ``MATCH_RECOGNIZE`` corpus natively (:mod:`kleene.conformance.adapters.mr_suite`):
   Kleene's file and DuckDB's through each engine's own ``MATCH_RECOGNIZE``, the
   compliance table (the page's last section, :data:`MR_HEADING`).

Usage: ``python scripts/peers.py [--engines flink,pmr] [--parts operator,core,mr]
[--out docs/peers.md]``; ``--parts mr`` reruns the corpus alone and keeps the rest of the
page as it is (saying, under the header, since when). On a loaded machine the corpus runs
in pieces, each in a process of its own and a ``--runs`` folder of its own: ``--mr-files``
(``kleene``, ``duckdb``, ``none`` or ``all``) and ``--drawn N`` say what a piece runs,
``--mr-engines`` (``kleene``, ``pmr``, ``flink``; Flink once per ``--modes``) which
columns; ``--combine FOLDER,...`` then writes the section from the pieces' runs without
running anything. The drawn recognitions (``--flink-share`` of them in Flink's dialect) are
drawn once and kept beside the folders, so every piece gets the same ones.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import hashlib
import json
import pickle
import re
import shlex
import sys
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from kleene.conformance.adapters import (
    core_checks,
    direct,
    engines,
    mr,
    mr_duckdb,
    mr_generated,
    mr_report,
    mr_suite,
)
from kleene.conformance.adapters.base import MRBackend
from kleene.conformance.adapters.native import Native
from kleene.conformance.adapters.probe import Finding, Tally, probe
from kleene.conformance.cases import load_case_files
from kleene.conformance.generated import conform
from kleene.conformance.runner import Report
from kleene.data.sql import ArrowRecognizer
from kleene.reference.match import Match

#: Triage of findings: (engine, skip mode, a text the finding's pattern or source
#: contains) → (class, explanation). Filled from real runs; see docs/peers.md.
CLASSIFIED: list[tuple[str, str, str, str, str]] = []

#: Triage of the direct checks: (engine, check title) → (class, explanation).
DIRECT: dict[tuple[str, str], tuple[str, str]] = {
    ("pmr", "not-equal written <> (SQL:2016)"): (
        "engine bug", "`<>` is SQL's not-equal and the package documents SQL:2016 "
        "MATCH_RECOGNIZE; its condition evaluator logs `Syntax error in condition ... "
        "invalid syntax` and the row never matches (no error reaches the caller). The adapter "
        "writes `!=`, which it accepts."),
    ("pmr", "PREV() and another variable in one DEFINE, B+ last"): (
        "engine bug", "each conjunct alone gives the greedy B+ over rows 1-2, and so does "
        "the same DEFINE when C follows B+; with B+ last, the iteration stops after row 1 "
        "(also with `>`, `<` and either order of the conjuncts). The adapter avoids PREV()."),
    ("pmr", "LAST(v.x, 1) and another variable in one DEFINE, B+ last"): (
        "engine bug", "`b.ts > a.ts OR ...` holds on both B rows, yet with B+ last the "
        "iteration stops after row 1 (with C after B+ it does not): a DEFINE that navigates "
        "within its own variable and reads another variable is evaluated wrongly once the "
        "greedy variable is the last of the pattern. The adapter emits such a DEFINE only on "
        "streams with ties in ts; the probe found no disagreement on the case files."),
    ("flink", "a greedy quantifier as the pattern's last element"): (
        "documented limitation", "Flink rejects it at planning (`Greedy quantifiers are not "
        "allowed as the last element of a Pattern yet`; FLINK-10587, open). The adapter "
        "declines such patterns for Flink."),
    ("flink", "PREV() and another variable in one DEFINE, B+ before C"): (
        "engine limitation", "Flink rejects PREV() here at planning (`Flink does not support "
        "physical offsets within partition`), a clear error, not a wrong answer; its "
        "documentation navigates with logical offsets (FIRST/LAST(v.x, n)), which the "
        "adapter uses."),
    ("flink", "PREV() and another variable in one DEFINE, B+ last"): (
        "engine limitation", "PREV() is rejected at planning (physical offsets), before the "
        "greedy last element would be (FLINK-10587)."),
    ("flink", "LAST(v.x, 1) and another variable in one DEFINE, B+ last"): (
        "documented limitation", "rejected for its greedy last element (FLINK-10587)."),
}


#: The heading of the page's last section, the corpus natively (``--parts mr`` replaces it).
MR_HEADING = "## The MATCH_RECOGNIZE corpus, natively"


def classify(engine: str, skip: str, pattern: str, source: str) -> tuple[str, str]:
    """The class and explanation of a finding of ``engine`` (under ``skip``, on ``pattern``
    from ``source``): ``unclassified`` when none is recorded."""
    for eng, skipped, needle, cls, why in CLASSIFIED:
        if eng == engine and skipped in (skip, "*") and (needle in pattern or needle in source):
            return cls, why
    return "unclassified", "not yet triaged"


def reclassify(text: str) -> str:
    """``text`` (a docs/peers.md) with every probe finding classified anew by
    :data:`CLASSIFIED` (after triage, without rerunning the engines)."""
    blocks = re.split(r"(?m)^(?=#### )", text)
    out = []
    for block in blocks:
        head = re.match(r"#### (\w+) finding (\d+): .*", block)
        if head:
            engine = head.group(1)
            source = re.search(r"(?m)^- from: (.*)$", block)
            pattern = re.search(r"(?m)^- Kleene pattern .*?: `(.*)`$", block)
            skip = re.search(r"(?m)^- `AFTER MATCH SKIP (.*?)`", block)
            cls, why = classify(engine, skip.group(1) if skip else "",
                                pattern.group(1) if pattern else "",
                                source.group(1) if source else "")
            first, _, rest = block.partition("\n")
            block = f"#### {engine} finding {head.group(2)}: {cls}\n" + re.sub(
                r"(?m)^- classification: .*$", f"- classification: **{cls}** — {why}"
                .replace("\\", "\\\\"), rest)
        out.append(block)
    return "".join(out)


def _matches(ms: Sequence[Match] | None) -> str:
    if ms is None:
        return "(no answer)"
    if not ms:
        return "(none)"
    return "; ".join(json.dumps(dict(m.bindings), separators=(",", ":")) for m in ms)


def finding_md(engine: str, k: int, f: Finding) -> list[str]:
    """A finding as markdown: the reproduction and its class."""
    cls, why = classify(engine, f.skip, f.request.pattern, f.source)
    out = [f"#### {engine} finding {k}: {cls}", "",
           f"- from: {f.source}",
           f"- Kleene pattern (operator language, policy `{f.request.policy}`, "
           f"time unit `{f.request.time_unit}`): `{' '.join(f.request.pattern.split())}`",
           f"- `AFTER MATCH SKIP {f.skip}`; events (position: row):", ""]
    out += [f"      {i}: {json.dumps(dict(r))}" for i, r in enumerate(f.request.events)]
    out += ["", "- expected (SQL:2016, derived from the reference): " + _matches(f.expected),
            "- got: " + _matches(f.got) + (f" — {f.error}" if f.error else ""),
            f"- classification: **{cls}** — {why}", "", "  the engine's query:", "",
            "  ```sql"] + ["  " + line for line in f.sql.splitlines()] + ["  ```", ""]
    return out


def direct_md(name: str, verdicts: list[tuple[direct.Check, str]]) -> list[str]:
    """The direct checks of one engine as markdown."""
    out = ["### Direct checks (hand-written queries, SQL:2016 answers by hand)", ""]
    for check, verdict in verdicts:
        cls, why = DIRECT.get((name, check.title), ("", ""))
        if verdict == "agrees":
            cls, why = "agrees", check.why
        out += [f"- **{check.title}**: {verdict}" + (f" — **{cls}**: {why}" if cls else
                                                     " — **unclassified**"), ""]
        if verdict != "agrees":
            out += ["  ```sql"] + ["  " + x for x in check.sql.splitlines()] + ["  ```",
                    f"  rows: {json.dumps(check.rows)}; expected: {json.dumps(check.expected)}"
                    f" ({check.why})", ""]
    return out


def engine_section(name: str, report: Report, tallies: dict[str, Tally],
                   version: str) -> list[str]:
    """The section of one engine."""
    results = report.results
    passed = [r for r in results if r.status == "pass"]
    failed = [r for r in results if r.status == "fail"]
    skipped = [r for r in results if r.status == "skip"]
    reasons: dict[str, int] = {}
    for r in skipped:
        reasons[r.reason] = reasons.get(r.reason, 0) + 1
    hand = all(not r.file.endswith("-generated.json") for r in results)
    out = [f"## {name}: {version}", "",
           "### `kleene conform` (claimed fragment, `AFTER MATCH SKIP TO NEXT ROW`"
           + (", hand-written case files only" if hand else "") + ")", "",
           f"{len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped "
           f"({len(results)} tests, {report.seconds:.0f} s).", ""]
    if passed:
        out += ["Passed: " + ", ".join(f"`{r.id}`" for r in passed), ""]
    for r in failed:
        out += ["```text", r.reproduction, "```", ""]
    out += ["Skips by reason:", ""]
    out += [f"- {n} × {why}" for why, n in sorted(reasons.items(), key=lambda x: -x[1])]
    out += ["", "### `MATCH_RECOGNIZE` probe (every translatable operator case, both "
            "contiguity policies)", ""]
    for skip, t in tallies.items():
        out += [f"- `AFTER MATCH SKIP {skip}`: {t.agreed} agree with the oracle, "
                f"{t.disagreed} disagree; not translatable: "
                + (", ".join(f"{n} × {why}" for why, n in t.untranslatable.items()) or "none")]
    out.append("")
    k = 0
    for t in tallies.values():
        for f in t.findings:
            k += 1
            out += finding_md(name, k, f)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run every engine and write the page."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engines", default="flink,pmr")
    ap.add_argument("--out", type=Path, default=Path("docs/peers.md"))
    ap.add_argument("--shrink", type=int, default=8, help="engine runs per shrink")
    ap.add_argument("--hand-only", default="",
                    help="engines run by kleene conform on the hand-written case files only "
                         "(Flink starts one job per query: about 15 s each on two cores)")
    ap.add_argument("--limit", default="flink=150,pmr=600",
                    help="probe runs per engine and skip mode (engine=N,...)")
    ap.add_argument("--reclassify", action="store_true",
                    help="only reclassify the findings already in --out (after triage)")
    ap.add_argument("--parts", default="operator,core,mr",
                    help="operator: the operator cases and the probe; core: CEQL queries "
                         "through CORE; mr: the MATCH_RECOGNIZE corpus natively (a part "
                         "not run keeps its section of --out)")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds an engine may take on one recognition of the corpus")
    ap.add_argument("--drawn", type=int, default=1000,
                    help="Hypothesis-drawn recognitions added to the MATCH_RECOGNIZE corpus")
    ap.add_argument("--modes", default="batch,streaming", help="Flink's modes for --parts mr")
    ap.add_argument("--mr-files", choices=tuple(MR_FILES), default="all",
                    help="--parts mr: the sqllogictest files every engine runs (kleene: "
                         "Kleene's file, duckdb: DuckDB's, none: the drawn recognitions "
                         "alone; a piece of a run on a loaded machine)")
    ap.add_argument("--mr-engines", default="",
                    help="--parts mr: the columns run (default: kleene and --engines)")
    ap.add_argument("--flink-share", type=float, default=0.6,
                    help="--parts mr: the share of the drawn recognitions drawn in Flink's "
                         "dialect (mr_generated.drawn)")
    ap.add_argument("--runs", type=Path, default=RUNS,
                    help="--parts mr: the folder each engine's run is kept in (one per piece)")
    ap.add_argument("--combine", default="",
                    help="--parts mr: run nothing; the section from the runs kept in these "
                         "folders (comma-separated: the pieces of one run), each engine's "
                         "verdicts joined")
    ap.add_argument("--mr-shrink", dest="shrink_mr", type=int, default=40,
                    help="drawn failures shrunk per engine (--parts mr)")
    ap.add_argument("--reuse", action="store_true",
                    help="--parts mr: read each engine's run kept in .peers/runs/ instead of "
                         "running it again")
    args = ap.parse_args(argv)
    if args.reclassify:
        args.out.write_text(reclassify(args.out.read_text("utf-8")), encoding="utf-8")
        return 0
    parts = set(args.parts.split(","))
    body = operator_part(args) if "operator" in parts else kept(args.out, MR_HEADING,
                                                                 core_checks.HEADING)
    if "core" in parts:
        print("peers: core: CEQL queries", file=sys.stderr, flush=True)
        body += core_checks.section()
    else:
        body += kept(args.out, MR_HEADING, start=core_checks.HEADING)
    if "mr" in parts:
        body += (combined([Path(d) for d in args.combine.split(",")]) if args.combine else
                 mr_part(args))
    else:
        body += kept(args.out, start=MR_HEADING)
    if "operator" not in parts:
        body = dated(body)
    args.out.write_text("\n".join(body) + "\n", encoding="utf-8")
    print(f"peers: wrote {args.out}", file=sys.stderr)
    return 0


#: What :func:`dated` says of the sections a run kept (``{date}``: the page's header's).
KEPT_NOTE = ("*Not rerun since {date}: the engine sections (`kleene conform` on the operator "
             "cases, the `MATCH_RECOGNIZE` probe, the direct checks). The CORE section is "
             "kept from its own last run (`--parts core`); the last section, the "
             "`MATCH_RECOGNIZE` corpus natively, says its own date and commands.*")


def dated(body: list[str]) -> list[str]:
    """``body`` with :data:`KEPT_NOTE` (once) after the header's line saying when the
    operator part was written (a run of other parts keeps that part as it was)."""
    note = KEPT_NOTE.split("{")[0]
    body = [line for k, line in enumerate(body) if not line.startswith(note)
            and not (line == "" and body[k + 1:k + 2] and body[k + 1].startswith(note))]
    for k, line in enumerate(body):
        m = re.search(r"on (\d{4}-\d{2}-\d{2})\.$", line)
        if line.startswith("*Written by `make peers`") and m:
            end = body.index("", k)
            return body[:end] + ["", KEPT_NOTE.format(date=m.group(1))] + body[end:]
    return body


def kept(page: Path, *ends: str, start: str | None = None) -> list[str]:
    """The lines of ``page`` before the first of the headings ``ends`` (the operator part,
    kept); with ``start``, from that heading on instead (a section kept, up to ``ends``)."""
    text = page.read_text("utf-8") if page.exists() else "\n".join(header())
    if start is not None:
        if start not in text:
            return []
        text = start + text.split(start, 1)[1]
    for end in ends:
        text = text.split(end)[0]
    return text.rstrip("\n").splitlines() + [""]


#: Where ``--parts mr`` keeps each engine's run (JSON), so a section can be written again.
RUNS = Path(".peers/runs")


def mr_engines(names: list[str], modes: list[str]) -> list[tuple[str, str, str]]:
    """The peers' runs: (column name, peer, mode), Flink once per mode."""
    out = []
    for name in names:
        for mode in (modes if name == "flink" else ["batch"]):
            out.append((f"{name} {mode}" if name == "flink" else name, name, mode))
    return out


#: ``--mr-files``: the corpus files each choice runs (of :func:`mr_suite.corpus_files`,
#: Kleene's file first).
MR_FILES = {"all": slice(None), "kleene": slice(0, 1), "duckdb": slice(1, None),
            "none": slice(0, 0)}


def _command(argv: Sequence[str]) -> str:
    """The command a run records, as a reader reruns it: ``--out`` left out (where this
    run wrote its page is no part of what it ran, and may be a machine's path)."""
    kept = [a for i, a in enumerate(argv)
            if a != "--out" and not (i and argv[i - 1] == "--out") and not a.startswith("--out=")]
    return " ".join(["python scripts/peers.py", *map(shlex.quote, kept)])


def mr_part(args: argparse.Namespace) -> list[str]:
    """The corpus (the files ``--mr-files`` selects and ``--drawn`` Hypothesis-drawn
    recognitions, ``--flink-share`` of them in Flink's dialect) through Kleene's engine and
    each peer natively (``--mr-engines``), as the page's section; each run kept in
    ``--runs`` (``--reuse``: a kept run is read back instead of run again). A peer's
    columns share one worker: Flink's two modes one JVM and mini-cluster, started and
    warmed once (about 150 s of CPU a start on two loaded cores: ``flink_worker.py``)."""
    names = (args.mr_engines or "kleene," + args.engines).split(",")
    files = mr_suite.corpus_files()[MR_FILES[args.mr_files]]
    items: list[mr_generated.Drawn] | None = None
    args.runs.mkdir(parents=True, exist_ok=True)
    runs = []
    plan = [(n, n, "batch") for n in names if n == "kleene"]
    plan += mr_engines([n for n in names if n not in ("kleene", "duckdb")],
                       args.modes.split(","))
    if "duckdb" in names or (not args.mr_engines and mr_duckdb.accepts()):
        plan.append(("duckdb", "duckdb", "batch"))
    workers: dict[str, MRBackend] = {}   # one worker a peer: Flink's modes share its JVM
    try:
        for column, peer, mode in plan:
            kept = args.runs / f"{column.replace(' ', '-')}.json"
            if args.reuse and kept.exists():
                runs.append(mr_suite.EngineRun.of_json(json.loads(kept.read_text("utf-8"))))
                continue
            if items is None:
                print(f"peers: drawing {args.drawn} recognitions ({args.flink_share:.0%} in "
                      "Flink's dialect)", file=sys.stderr, flush=True)
                items = drawn(args.drawn, args.flink_share, args.runs.parent)
            with mr_suite.Load() as load:
                if peer == "kleene":
                    recognizer: ArrowRecognizer = mr_suite.kleene_recognizer()
                elif peer == "duckdb":
                    recognizer = mr_duckdb.recognizer()
                else:
                    backend = workers.setdefault(peer, getattr(engines, peer)())
                    recognizer = Native(backend, peer, args.timeout, mode)
                run = mr_suite.run_engine(column, recognizer, files, items,
                                          shrink=args.shrink_mr if peer in workers else 0)
            run = dataclasses.replace(run, command=_command(sys.argv[1:]), load=load.span)
            kept.write_text(json.dumps(run.to_json()), encoding="utf-8")
            runs.append(run)
    finally:
        for backend in workers.values():
            backend.close()
    return mr_section(runs)


def drawn(n: int, flink_share: float, folder: Path) -> list[mr_generated.Drawn]:
    """:func:`mr_generated.drawn`, kept in ``folder`` (pickled: the pieces of a run draw
    once; drawing is slow on a loaded machine), under a name saying the generators' code
    (changed code draws anew)."""
    here = Path(mr_generated.__file__)
    code = hashlib.sha256(b"".join(p.read_bytes() for p in (
        here, here.parents[1] / "recognize_strategies.py",
        here.parents[1] / "recognize_flink.py"))).hexdigest()[:12]
    kept = folder / f"drawn-{n}-{flink_share:g}-{code}.pickle"   # the generators' code
    if kept.exists():
        items: list[mr_generated.Drawn] = pickle.loads(kept.read_bytes())
        return items
    items = mr_generated.drawn(n, flink_share=flink_share)
    kept.write_bytes(pickle.dumps(items))
    return items


def combined(folders: list[Path]) -> list[str]:
    """The section from the runs kept in ``folders`` (the pieces of one run: each engine's
    verdicts of every piece joined, its seconds added)."""
    pieces: dict[str, list[mr_suite.EngineRun]] = {}
    for folder in folders:
        for path in sorted(folder.glob("*.json")):
            run = mr_suite.EngineRun.of_json(json.loads(path.read_text("utf-8")))
            pieces.setdefault(run.engine, []).append(run)
    order = ["kleene", "pmr", "flink batch", "flink streaming", "duckdb"]
    names = sorted(pieces, key=lambda n: (order.index(n) if n in order else len(order), n))
    return mr_section([mr_suite.EngineRun.joined(pieces[n]) for n in names])


def mr_section(runs: list[mr_suite.EngineRun]) -> list[str]:
    """The page's section of ``runs`` (dated today)."""
    count = max(sum(v.where.startswith("generated #") for v in r.verdicts) for r in runs)
    return mr_report.section(runs, mr_suite.corpus_files(), count,
                             datetime.date.today().isoformat(), mr_duckdb.probe())


def operator_part(args: argparse.Namespace) -> list[str]:
    """The page up to the corpus: the header, then each engine's operator cases, probe
    and direct checks."""
    files = load_case_files()
    limits = {k: int(v) for k, v in (x.split("=") for x in args.limit.split(",") if x)}
    body: list[str] = []
    for name in args.engines.split(","):
        start = time.time()
        print(f"peers: {name}: kleene conform", file=sys.stderr, flush=True)
        backend = getattr(engines, name)()
        try:
            mine = ([f for f in files if not f.name.endswith("-generated.json")]
                    if name in args.hand_only.split(",") else files)
            report = conform(backend, mine, timeout=120)
            verdicts = [(c, direct.verdict(c, backend.raw(c.sql, direct.COLUMNS, c.rows)))
                        for c in direct.CHECKS]
        finally:
            backend.close()
        tallies = {}
        for skip in mr.SKIPS:
            print(f"peers: {name}: probe, AFTER MATCH SKIP {skip}", file=sys.stderr, flush=True)
            b = getattr(engines, name)(skip=skip, probe=True)
            try:
                tallies[skip] = probe(partial(b.run, timeout=120), skip, files,
                                      budget=args.shrink, limit=limits.get(name), ne=b.ne)
            finally:
                b.close()
        body += engine_section(name, report, tallies, backend.version)
        body += direct_md(name, verdicts)
        print(f"peers: {name}: {time.time() - start:.0f} s", file=sys.stderr, flush=True)
    return header() + body


def header() -> list[str]:
    """The page's introduction (what was run and how to read it)."""
    today = datetime.date.today().isoformat()
    return (Path(__file__).with_name("peers_intro.md").read_text("utf-8")
            .replace("{date}", today).splitlines() + [""])


if __name__ == "__main__":
    sys.exit(main())
