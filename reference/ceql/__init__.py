"""CEQL, the query language of CORE (Bucchi, Grez, Quintana, Riveros, Vansummeren,
"CORE: a COmplex event Recognition Engine", VLDB 2022), read as an input format: a
fragment of it translated into SREMO (seed 004), where CEL's semantics (Grez, Riveros,
Ugarte, Vansummeren, "A Formal Framework for Complex Event Recognition", TODS 2021,
cited as "CEL") and Kleene's coincide (docs/ceql.md).

Modules, one per definition:

- :mod:`.formula`    CEL formulas as written (atoms, ``;``, ``:``, ``+``, ``:+``, ``OR``,
  ``AS``, ``FILTER``) and their translation into SREMO;
- :mod:`.selection`  CEL's selection strategies, CORE's consumption policies and
  ``LIMIT``, each a function of the ``ALL`` set;
- :mod:`.parser`     the CEQL text of a query into the SREMO it denotes (in a
  :class:`~.selection.Selected` when it keeps part of it);
- :mod:`.registration` the language's registry entry.
"""
