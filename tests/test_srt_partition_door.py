"""``kleene match`` gives ``srt``'s runs per part of ``e PARTITION BY a`` the stream's
columns (issue 33, item 6's last clause): Wayeb's other_reg6 (``{partitionBy:volume}``)
on the stock stream is cut into parts over the columns, not stepped event by event, and
its matches are those of the same engine over the events one by one."""

from __future__ import annotations

import json

from kleene.cli import main
from kleene.cli.common import readable
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.registry import engine
from kleene.engines.srt import partition
from kleene.reference.match import Match
from kleene.reference.query import Query

QUERY = bundled("wayeb-queries") / "stock_other_reg6.sre"
EVENTS = bundled("stocks.stream.gz")


def test_the_cli_cuts_the_parts_over_columns(capsys, monkeypatch):
    cut: list[bool] = []

    def split(c, by):
        found = original(c, by)
        cut.append(found is not None)
        return found

    original = partition.split
    monkeypatch.setattr(partition, "split", split)
    assert main(["match", "-q", "--pattern", str(QUERY), "--events", str(EVENTS),
                 "--window", "1000"]) == 0
    printed = {Match.of(json.loads(line)) for line in capsys.readouterr().out.splitlines()}
    assert cut == [True]
    stream = load_events(str(EVENTS))
    query = Query.parse(QUERY.read_text(), language="wayeb", window=1000) \
        .with_time_unit(stream.time_unit)
    one_by_one = set(engine("srt").compile(query).run(list(stream)))
    assert printed == readable(one_by_one)
    assert len(printed) == 20   # kleene match before the columns (commit 97b0e6f)
