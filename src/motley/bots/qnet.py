"""A Q(s, a) network in NumPy: its forward pass and weight format, what playing with a learned policy needs.

The ``network`` bot plays with this module alone, without PyTorch or training code; :mod:`motley.learn.dmc` trains
the network on the returns of self-play and writes it in this format. The network scores each legal action of a
decision (Deep Monte-Carlo, as DouZero does for Dou Dizhu): its input is the seat's observation tensor ``s``
(``state.observation_tensor(seat)``, ``D`` floats, docs/observation_tensors.md) beside the action's feature row
``a`` (``motley.core.features.action_feature_table(game)[action]``, ``F`` floats), and its output is one float, the
expected return of the seat after playing ``a``. It is a multi-layer perceptron with ReLU between layers::

    h1 = relu(s @ W1[:D] + a @ W1[D:] + b1);  h2 = relu(h1 @ W2 + b2);  ...;  q = h_k @ Wk + bk

With ``hint`` (the default of training), one more input follows the action's features: 1.0 for the action the
game's heuristic would play in that position, else 0.0. The network then learns where to depart from the
heuristic rather than the whole game from nothing; the ``network`` bot asks the heuristic (on the seat's
observation) for the hint at each decision.

The first layer is split: ``s @ W1[:D]`` is computed once per decision and ``a @ W1[D:]`` once per legal action
(:meth:`QNetwork.action_part`), so scoring ``L`` legal actions costs one ``D x H1`` product and ``L`` short rows.

Weights are stored as a NumPy ``.npz`` archive (an open format: arrays ``w0, b0, w1, b1, ...`` in float32, or
float16 to halve the file, and ``meta``, a JSON string: the game string, ``D``, ``F``, the layer sizes and how it
was trained). :func:`load` checks the shapes against the game before any decision is made.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from motley.core import Game, MotleyError
from motley.core.features import action_feature_table

__all__ = ["QNetwork", "load", "save"]

F32 = npt.NDArray[np.float32]


@dataclass
class QNetwork:
    """An MLP Q(s, a) over observation tensor and action features (module docstring).

    Attributes:
        weights: per layer ``(W, b)``: ``W`` float32 ``(inputs, outputs)``, ``b`` float32 ``(outputs,)``; the first
            layer's inputs are ``D + F`` (observation first), the last layer's outputs 1.
        obs_size: ``D``, the observation tensor size.
        hint: the last input is the heuristic's choice (module docstring).
        meta: JSON-able facts about the network (game, training); saved with it.
    """

    weights: list[tuple[F32, F32]]
    obs_size: int
    meta: dict[str, Any] = field(default_factory=dict)
    hint: bool = False

    @property
    def feature_size(self) -> int:
        """``F``: the action feature size."""
        return int(self.weights[0][0].shape[0]) - self.obs_size - int(self.hint)

    def action_part(self, table: F32, actions: npt.NDArray[np.int64]) -> F32:
        """``table[actions] @ W1[D:D+F]``: the first layer's share of each action, float32 ``(L, H1)``."""
        w1 = self.weights[0][0]
        out: F32 = table[actions] @ w1[self.obs_size:self.obs_size + table.shape[1]]
        return out

    def hints_for(self, actions: Sequence[int], choice: int) -> F32 | None:
        """The hint input of ``actions`` when the heuristic would play ``choice``: float32 ``(L,)``, 1.0 at
        ``choice``; None for a network without ``hint``."""
        if not self.hint:
            return None
        return np.array([a == choice for a in actions], dtype=np.float32)

    def q_values(self, obs: F32, actions: Sequence[int] | npt.NDArray[np.int64], table: F32,
                 hints: npt.NDArray[np.float32] | None = None) -> F32:
        """Q of each action of one decision.

        Args:
            obs: float32 ``(D,)``, the seat's observation tensor.
            actions: the action ids to score (``L`` of them).
            table: the game's action feature table ``(num actions, F)``.
            hints: float32 ``(L,)``, 1.0 for the heuristic's choice (networks with ``hint`` only).
        Returns:
            float32 ``(L,)``.
        """
        owner = np.zeros(len(actions), dtype=np.int64)
        return self.q_batch(obs[None, :], np.asarray(actions, dtype=np.int64), owner, table, hints)

    def q_batch(self, obs: F32, actions: npt.NDArray[np.int64], owner: npt.NDArray[np.int64], table: F32,
                hints: npt.NDArray[np.float32] | None = None) -> F32:
        """Q of the actions of several decisions at once.

        Args:
            obs: float32 ``(B, D)``, one observation tensor per decision.
            actions: int64 ``(L,)``, the action ids scored.
            owner: int64 ``(L,)``, the row of ``obs`` each action belongs to.
            table: the game's action feature table.
            hints: float32 ``(L,)``: 1.0 where the action is the heuristic's choice (required with ``hint``).
        Returns:
            float32 ``(L,)``.
        Raises:
            ValueError: a network with ``hint`` given no hints.
        """
        w1, b1 = self.weights[0]
        h = obs @ w1[:self.obs_size]
        x = h[owner] + self.action_part(table, actions) + b1
        if self.hint:
            if hints is None:
                raise ValueError("this network reads the heuristic's choice: give hints")
            x += hints[:, None] * w1[-1]
        for w, b in self.weights[1:]:
            np.maximum(x, 0.0, out=x)
            x = x @ w + b
        out: F32 = x[:, 0]
        return out


def _check(net: QNetwork, game: Game, source: str) -> None:
    obs_size = int(np.prod(game.observation_tensor_shape()))
    features = action_feature_table(game).shape[1]
    if net.obs_size != obs_size or net.feature_size != features:
        raise MotleyError(f"{source}: the network reads {net.obs_size} observation floats and {net.feature_size} "
                          f"action features; {game} has {obs_size} and {features}")


def save(net: QNetwork, path: str | Path, half: bool = True) -> None:
    """Write ``net`` to ``path`` (``.npz``; float16 weights when ``half``, read back as float32)."""
    arrays: dict[str, Any] = {}
    dtype = np.float16 if half else np.float32
    for i, (w, b) in enumerate(net.weights):
        arrays[f"w{i}"] = w.astype(dtype)
        arrays[f"b{i}"] = b.astype(dtype)
    meta = dict(net.meta, obs_size=net.obs_size, hint=net.hint, layers=[int(w.shape[1]) for w, _ in net.weights])
    arrays["meta"] = np.array(json.dumps(meta))
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    Path(path).write_bytes(buffer.getvalue())


def load(path: str | Path, game: Game | None = None) -> QNetwork:
    """Read a network written by :func:`save`.

    Raises:
        MotleyError: the file is missing or not such an archive, its layers do not chain, or (with ``game``)
            its sizes do not fit the game's observation tensor and action features.
    """
    try:
        with np.load(Path(path), allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            count = len([k for k in data.files if k.startswith("w")])
            weights = [(data[f"w{i}"].astype(np.float32), data[f"b{i}"].astype(np.float32)) for i in range(count)]
    except (OSError, KeyError, ValueError) as exc:
        raise MotleyError(f"{path}: not a motley network ({exc})") from None
    net = QNetwork(weights, int(meta.get("obs_size", 0)), meta, bool(meta.get("hint", False)))
    _check_layers(net, str(path))
    if game is not None:
        _check(net, game, str(path))
    return net


def _check_layers(net: QNetwork, source: str) -> None:
    if not net.weights:
        raise MotleyError(f"{source}: a network without layers")
    inputs = net.weights[0][0].shape[0]
    for i, (w, b) in enumerate(net.weights):
        if w.ndim != 2 or w.shape[0] != inputs or b.shape != (w.shape[1],):
            raise MotleyError(f"{source}: layer {i} has weights {w.shape} and bias {b.shape} after {inputs} inputs")
        inputs = w.shape[1]
    if inputs != 1:
        raise MotleyError(f"{source}: the last layer gives {inputs} values, not 1")
    if not 0 < net.obs_size < net.weights[0][0].shape[0] - int(net.hint):
        raise MotleyError(f"{source}: observation size {net.obs_size} does not fit {net.weights[0][0].shape[0]} inputs")
