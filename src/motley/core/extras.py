"""Optional parts of motley and the ``pip`` extras that install them.

``pip install motley`` installs what playing and serving need (NumPy, Typer, Rich, FastAPI, Uvicorn,
SQLAlchemy, Alembic, OpenSkill). The rest is imported only by the feature that uses it, through :func:`require`,
so a missing library is reported as the extra to install rather than as a bare ``ModuleNotFoundError``:

* ``ray`` -- ``simulate/tournament/compare --backend ray`` (:mod:`motley.eval.backends`);
* ``report`` -- matplotlib, for ``simulate --report`` (:mod:`motley.eval.report`);
* ``rl`` -- PettingZoo, Gymnasium and OpenSpiel, for :mod:`motley.envs`;
* ``train`` -- the training stack (PyTorch, sb3-contrib);
* ``postgres`` -- psycopg 3, for ``serve --db postgresql://...`` (:mod:`motley.server.store.storage`);
* ``dev`` -- everything the tests, the linters and the browser tests need.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from motley.core.errors import MotleyError

__all__ = ["MissingExtraError", "require"]


class MissingExtraError(MotleyError):
    """An optional library is not installed.

    Attributes:
        module: the module that could not be imported (``"ray"``, ``"matplotlib.figure"``).
        extra: the ``pip`` extra that installs it (``"ray"``, ``"report"``).
    """

    def __init__(self, module: str, extra: str, feature: str) -> None:
        self.module = module
        self.extra = extra
        super().__init__(f"{feature} needs the '{extra}' extra (module {module!r} is not installed): "
                         f"pip install 'motley[{extra}]'")


def require(module: str, extra: str, feature: str | None = None) -> ModuleType:
    """Import ``module``, or explain which extra installs it.

    Args:
        module: dotted module name, e.g. ``"ray"`` or ``"matplotlib.figure"``.
        extra: the extra of ``pyproject.toml`` that installs it.
        feature: what needs it, in plain words (default: the module's top-level name).
    Returns:
        The imported module.
    Raises:
        MissingExtraError: (a :class:`MotleyError`) when the module or its package is not installed.
            An ``ImportError`` raised *inside* an installed package (a broken install, a missing
            dependency of its own) is not hidden: it propagates unchanged.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if not (module == missing or module.startswith(missing + ".")) or not missing:
            raise
        raise MissingExtraError(module, extra, feature or module.split(".")[0]) from None
