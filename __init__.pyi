"""The types of ``import kleene``'s names (``__init__.py`` imports them when first read)."""

from kleene.api import count_matches as count_matches
from kleene.api import draw as draw
from kleene.api import find_matches as find_matches
from kleene.api import first_matches as first_matches
from kleene.api import load_events as load_events
from kleene.api import match as match
from kleene.api import parse as parse
from kleene.api import trace as trace
from kleene.engines.tables import match_recognize as match_recognize

__version__: str
__all__: list[str]
