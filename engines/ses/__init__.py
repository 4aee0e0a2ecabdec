"""The SES engines of seed 000: the SES automaton (Sec. 4) and the brute force (Sec. 5.2).

Modules:

- :mod:`.automaton`   Def. 3 and the construction of Sec. 4.2 (an immutable value);
- :mod:`.run`         execution, Algorithms 1 and 2 (corrected and faithful), the
  event filter of Sec. 4.5, and the engine ``ses-automaton``;
- :mod:`.bruteforce`  Sec. 5.2: one automaton per ordering of each set, run in parallel.

Importing this package registers the engines (see :mod:`kleene.engines.protocol`).
"""

from kleene.engines.ses import bruteforce as _bruteforce  # noqa: F401
from kleene.engines.ses import run as _run  # noqa: F401  (registers the engines)
