"""The data plane: event files and columns read, typed and checked, tuned for speed.

The definitions an engine computes over (events, streams, matches, conditions,
durations) live in :mod:`kleene.reference`, written for clarity; this package
holds what turns event files into them fast: :mod:`.filebytes` (the bytes of a
file, gunzipped by magic bytes, perhaps read ahead on a thread), :mod:`.loaders`
(one function per format), :mod:`.batches` (a file larger than memory, batch by
batch), :mod:`.stock` (stock-tick lines as columns), :mod:`.textvalues` (one rule
typing text cells), :mod:`.timestamps` (timestamp columns checked and
converted), :mod:`.columnar` (a stream held as checked Arrow columns),
:mod:`.threads` (column work on several cores), :mod:`.source` (what an
engine may read of its input) and :mod:`.bundled` (the data sets shipped in
``datasets/``: the stock stream and Wayeb's queries).

docs/architecture.md, "Layers": ``reference -> data -> engines``; nothing here
imports an engine.
"""
