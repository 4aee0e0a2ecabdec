"""Where the project's large shared data lies: the stock stream and Wayeb's benchmark
queries, kept beside the repository (``shared/data``) rather than in it.

No code names a machine path: :func:`shared_data` finds a file under the folder
``$KLEENE_DATA`` names, else under ``shared/data`` beside the repository's folder,
wherever the repository was cloned.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The repository's folder (the ``kleene`` package is its root).
_REPOSITORY = Path(__file__).resolve().parents[1]


def shared_data(name: str) -> Path:
    """``name`` (a file or folder) under ``$KLEENE_DATA`` when it names a folder, else under
    ``shared/data`` beside the repository."""
    env = os.environ.get("KLEENE_DATA")
    folder = Path(env) if env and Path(env).is_dir() else _REPOSITORY.parent / "shared" / "data"
    return folder / name
