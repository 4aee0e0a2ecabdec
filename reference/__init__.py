"""The language definitions: written for clarity and simplicity, not speed.

One module per formal definition, its docstring citing the seed and the
definition number. The shared core (:mod:`.events`, :mod:`.conditions`,
:mod:`.match`, :mod:`.durations`, :mod:`.budget`, :mod:`.errors`,
:mod:`.syntax`) serves the three pattern languages: :mod:`.ses` (seeds 000
and 001), :mod:`.operators` (seed 003) and :mod:`.sremo` (seed 004).

Conventions: ``e: Event``, ``s: Stream``, ``m: Match``, ``gamma`` a
substitution ``{variable: (events...)}``, ``tau`` the window.
"""
