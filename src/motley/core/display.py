"""A hook for drawing states (Jupyter's ``_repr_svg_``); the drawing layer registers itself here.

The core imports nothing of the project, so it cannot draw; ``motley.drawing`` sets :data:`svg_renderer`
when imported, and :meth:`motley.core.game.State._repr_svg_` calls it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: ``svg_renderer(state) -> SVG text``, set by ``motley.drawing``; ``None`` until then.
svg_renderer: Callable[[Any], str] | None = None
