"""The games, one package each (``games/<name>/``). Importing this registers them all, in this order (the
order the lobby, ``motley games`` and the README list them in; the lobby's first game is its default).

Each package registers its :class:`~motley.core.spec.GameSpec` and cites its rules' ids: ``FE-R1``.. in
``fools_errand``, ``FL-R1``.. in ``fool``, ``FY-R1``.. in ``foolery``. A new game is one package and one
line here.
"""
# isort: skip_file

from motley.games import fools_errand as fools_errand
from motley.games import fool as fool
from motley.games import foolery as foolery
