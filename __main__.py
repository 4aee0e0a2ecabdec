"""``python -m kleene``: the command-line interface."""

from kleene.cli import main

raise SystemExit(main())
