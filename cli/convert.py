"""``kleene convert``: read events once, validate them, write them as Parquet.

For data loaded many times: the Parquet file holds the validated, typed
columns (timestamps named ``ts``, types ``type``; the time unit, the text
columns and the sparse columns in the file's metadata), so reading it back
gives the same events with no parsing and no checks to redo beyond the
cheap ones (the loader of :mod:`kleene.data.loaders` reads it).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kleene.cli.common import Commands, add_event_options, load_stream, plural
from kleene.cli.results import check_output
from kleene.data.columnar import columns_of
from kleene.data.outputs import OutputError, replacing
from kleene.reference.errors import StreamError

NAME = "convert"
HELP = "validate events and write them as Parquet (for data loaded many times)"


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    """Declare ``kleene convert EVENTS -o FILE.parquet``."""
    parser = commands.add_parser(NAME, help=HELP, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_event_options(parser, positional=True)
    parser.add_argument("-o", "--output", required=True, metavar="FILE.parquet",
                        help="the Parquet file to write")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace FILE.parquet if it exists")
    return parser


def check_target(events: str, output: str, overwrite: bool) -> None:
    """Before any work: ``output`` ends in ``.parquet``, is not the input nor a link to
    it, does not exist unless ``overwrite``, and its folder exists (a typo must not
    replace data)."""
    if Path(output).suffix.lower() != ".parquet":
        raise OutputError(f"--output {output}: kleene convert writes Parquet; name the file "
                          "FILE.parquet")
    check_output(output, overwrite, [events])


def run(args: argparse.Namespace) -> int:
    """Load (with every check of ``kleene match``), then write the columns."""
    import pyarrow.parquet as pq

    check_target(args.events, args.output, args.overwrite)
    stream = load_stream(args)
    columns = stream.columns
    if columns is None:
        try:
            columns = columns_of(stream.events)
        except ValueError as err:
            raise StreamError(f"cannot write as columns: {err}", source=args.events) from None
    table = columns.table()
    meta = dict(table.schema.metadata or {})
    if stream.time_unit:
        meta[b"kleene.time_unit"] = stream.time_unit.encode()
    with replacing(args.output, option="--output") as temporary, open(temporary, "wb") as out:
        # a file, not a path: pyarrow removes a path it fails to write (/dev/full, say)
        pq.write_table(table.replace_schema_metadata(meta), out)
    print(f"{args.output}: {plural(len(stream), 'event')}")
    return 0
