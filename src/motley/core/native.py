"""The games' compiled parts (Foolery's core, Fool!'s tensor writer: C extensions built with the package where a
compiler is found), each optional, with the Python code that does the same as its fallback: :func:`compiled`
imports one, or gives None where it is not built or ``MOTLEY_PURE_PYTHON=1`` leaves it out."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

__all__ = ["compiled"]


def compiled(module: str) -> ModuleType | None:
    """The compiled extension ``module`` (a game's optional C part, e.g. ``"motley.games.foolery._native"``), or
    None where it is not built (installed without a C compiler) or the environment variable ``MOTLEY_PURE_PYTHON``
    is ``1`` (the Python code it stands in for then runs: the same results)."""
    if os.environ.get("MOTLEY_PURE_PYTHON") == "1":
        return None
    try:
        return importlib.import_module(module)
    except ImportError:
        return None
