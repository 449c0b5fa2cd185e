"""Softmax and sampling over ragged legal-action segments (NumPy; PyTorch where it is installed).

The batch stepper (:mod:`motley.envs.vector`) hands out the legal actions of N slots as one flat list
``legal_actions`` (L,) with ``legal_offsets`` (N + 1,): slot ``i``'s are ``legal_actions[offsets[i]:offsets[i + 1]]``.
A policy that scores each legal action (from ``infos["action_features"]``, (L, F)) gives flat logits (L,);
these helpers turn them into per-slot distributions without a Python loop::

    from motley.envs.segments import segment_sample
    logits = score(infos["action_features"])                       # (L,)
    picks = segment_sample(logits, infos["legal_offsets"], rng)    # (N,) positions in the flat list
    obs, rewards, terminations, truncations, infos = envs.step(infos["legal_actions"][picks])

With Gymnasium's own vector environments over :class:`motley.envs.gymnasium.SingleSeatEnv`, the offsets
are ``np.concatenate([[0], np.cumsum(infos["num_legal"])])``. :func:`masked_softmax` is the dense form
over ``(N, A)`` logits and the action mask. The ``*_torch`` functions do the same on PyTorch tensors (they
import torch when called; typed ``Any`` so this module needs no torch to import or type-check).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["masked_softmax", "segment_log_softmax", "segment_log_softmax_torch", "segment_sample",
           "segment_softmax", "segment_softmax_torch"]

FloatArray = npt.NDArray[np.floating[Any]]


def _check(logits: FloatArray, offsets: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.int64]:
    """The segment lengths (N,), after checking the shapes.

    Raises:
        ValueError: for logits that are not 1-D, offsets that do not start at 0, end at ``len(logits)`` and
            never decrease.
    """
    if logits.ndim != 1:
        raise ValueError(f"logits must be flat, shape (L,); got shape {logits.shape}")
    if offsets.ndim != 1 or offsets.size < 1 or offsets[0] != 0 or offsets[-1] != logits.size:
        raise ValueError(f"offsets must run from 0 to len(logits) = {logits.size}, shape (N + 1,); "
                         f"got {offsets.tolist() if offsets.size <= 10 else offsets.shape}")
    counts: npt.NDArray[np.int64] = np.diff(offsets).astype(np.int64)
    if (counts < 0).any():
        raise ValueError("offsets must not decrease")
    return counts


def segment_log_softmax(logits: npt.ArrayLike, offsets: npt.ArrayLike) -> FloatArray:
    """Log-softmax of ``logits`` within each segment.

    Args:
        logits: (L,) float, one score per legal action, slots' segments in order.
        offsets: (N + 1,) int, segment ``i`` is ``offsets[i]:offsets[i + 1]`` (empty segments allowed).
    Returns:
        (L,) float64 (float32 for float32 logits): ``log p`` of each action within its segment.
    Raises:
        ValueError: for mismatched shapes (see :func:`segment_softmax`).
    """
    x = np.asarray(logits)
    x = x if np.issubdtype(x.dtype, np.floating) else x.astype(np.float64)
    starts = np.asarray(offsets, dtype=np.int64)
    counts = _check(x, starts)
    if x.size == 0:
        return x.copy()
    full = counts > 0
    nonempty = starts[:-1][full]
    ids = np.repeat(np.arange(counts.size), counts)
    top = np.zeros(counts.size, dtype=x.dtype)
    top[full] = np.maximum.reduceat(x, nonempty)
    top[~np.isfinite(top)] = 0.0  # a segment of -inf logits only: no shift (its log-probabilities stay nan)
    shifted = x - top[ids]
    total = np.ones(counts.size, dtype=x.dtype)
    total[full] = np.add.reduceat(np.exp(shifted), nonempty)
    result: FloatArray = shifted - np.log(total)[ids]
    return result


def segment_softmax(logits: npt.ArrayLike, offsets: npt.ArrayLike) -> FloatArray:
    """Softmax of ``logits`` within each segment: (L,), each non-empty segment sums to 1.

    Args and shapes as :func:`segment_log_softmax`.

    Raises:
        ValueError: for logits that are not 1-D, or offsets that do not run from 0 to ``len(logits)``
            without decreasing.
    """
    result: FloatArray = np.exp(segment_log_softmax(logits, offsets))
    return result


def segment_sample(logits: npt.ArrayLike, offsets: npt.ArrayLike,
                   rng: np.random.Generator | None = None) -> npt.NDArray[np.int64]:
    """One position per segment, drawn with the segment's softmax probabilities.

    Args:
        logits, offsets: as :func:`segment_log_softmax`; every segment must be non-empty.
        rng: the generator (default: a fresh ``np.random.default_rng()``).
    Returns:
        (N,) int64 positions in the flat list (``offsets[i] <= pos[i] < offsets[i + 1]``): the actions are
        ``legal_actions[pos]``.
    Raises:
        ValueError: as :func:`segment_softmax`, or for an empty segment.
    """
    probs = segment_softmax(logits, offsets).astype(np.float64)
    starts = np.asarray(offsets, dtype=np.int64)
    if (np.diff(starts) == 0).any():
        raise ValueError(f"segment {int(np.flatnonzero(np.diff(starts) == 0)[0])} is empty: nothing to sample")
    rng = np.random.default_rng() if rng is None else rng
    cumulative = np.cumsum(probs)
    before = np.concatenate([[0.0], cumulative])[starts[:-1]]
    targets = before + rng.random(starts.size - 1) * (cumulative[starts[1:] - 1] - before)
    positions = np.searchsorted(cumulative, targets, side="right")
    chosen: npt.NDArray[np.int64] = np.clip(positions, starts[:-1], starts[1:] - 1).astype(np.int64)
    return chosen


def masked_softmax(logits: npt.ArrayLike, mask: npt.ArrayLike) -> FloatArray:
    """Softmax over the last axis restricted to ``mask``: 0 where the mask is 0.

    Args:
        logits: (..., A) float, e.g. (N, A) scores of every action id.
        mask: (..., A) the action mask (int8 or bool, non-zero = legal), e.g. ``obs["action_mask"]``.
    Returns:
        (..., A) float: each row sums to 1 over its legal actions (a row with no legal action is all 0).
    Raises:
        ValueError: for shapes that differ.
    """
    x = np.asarray(logits)
    x = x if np.issubdtype(x.dtype, np.floating) else x.astype(np.float64)
    legal = np.asarray(mask) != 0
    if x.shape != legal.shape:
        raise ValueError(f"logits {x.shape} and mask {legal.shape} must have the same shape")
    masked = np.where(legal, x, -np.inf)
    top = masked.max(axis=-1, keepdims=True)
    e = np.where(legal, np.exp(masked - np.where(np.isfinite(top), top, 0.0)), 0.0)
    total = e.sum(axis=-1, keepdims=True)
    result: FloatArray = np.divide(e, total, out=np.zeros_like(e), where=total > 0).astype(x.dtype)
    return result


def segment_log_softmax_torch(logits: Any, offsets: Any) -> Any:
    """:func:`segment_log_softmax` on PyTorch tensors (differentiable; on the logits' device).

    Args:
        logits: float tensor (L,); offsets: int tensor or array (N + 1,), as :func:`segment_log_softmax`.
    Returns:
        float tensor (L,).
    Raises:
        ModuleNotFoundError: where torch is not installed.
    """
    import torch

    bounds = torch.as_tensor(offsets, dtype=torch.int64, device=logits.device)
    counts = bounds[1:] - bounds[:-1]
    ids = torch.repeat_interleave(torch.arange(counts.numel(), device=logits.device), counts)
    top = torch.full((counts.numel(),), -torch.inf, dtype=logits.dtype, device=logits.device)
    top = top.scatter_reduce(0, ids, logits.detach(), reduce="amax")
    shifted = logits - top[ids]
    total = torch.zeros(counts.numel(), dtype=logits.dtype, device=logits.device).index_add(0, ids, shifted.exp())
    return shifted - total.log()[ids]


def segment_softmax_torch(logits: Any, offsets: Any) -> Any:
    """:func:`segment_softmax` on PyTorch tensors: ``segment_log_softmax_torch(logits, offsets).exp()``."""
    return segment_log_softmax_torch(logits, offsets).exp()
