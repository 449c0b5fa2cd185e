"""The games' optional compiled parts are found by one function (:func:`motley.core.native.compiled`): the module
where it is built, None where it is not or ``MOTLEY_PURE_PYTHON=1`` leaves it out."""

from __future__ import annotations

import importlib.util

import pytest

from motley.core.native import compiled

BUILT = [name for name in ("motley.games.foolery._native", "motley.games.fool._native")
         if importlib.util.find_spec(name) is not None]


def test_a_part_not_built_is_none() -> None:
    assert compiled("motley.games.fools_errand._native") is None


@pytest.mark.skipif(not BUILT, reason="no compiled part is built here")
def test_a_built_part_is_its_module_unless_pure_python_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in BUILT:
        module = compiled(name)
        assert module is not None and module.__name__ == name
    monkeypatch.setenv("MOTLEY_PURE_PYTHON", "1")
    assert all(compiled(name) is None for name in BUILT)
    monkeypatch.setenv("MOTLEY_PURE_PYTHON", "0")
    assert all(compiled(name) is not None for name in BUILT)
