"""Foolery's fast paths against the plain computation they replace: the deal's shuffle, the per-rank counts,
the trump-set tables and their bounded caches."""

from __future__ import annotations

import itertools
import random

from motley.games.foolery import cards as fyc
from motley.games.foolery import moves as fym


def test_shuffled_pack_draws_what_random_shuffle_draws() -> None:
    """Same order as ``rng.shuffle(list(range(78)))``, and the generator left in the same state (later deals
    of a match come from it)."""
    for seed in range(200):
        ours, theirs = random.Random(seed), random.Random(seed)
        pack = list(range(fyc.NUM_CARDS))
        theirs.shuffle(pack)
        assert fyc.shuffled_pack(ours) == pack
        assert ours.getstate() == theirs.getstate()


def test_shuffle_as_random_moves_any_items_as_random_shuffle_does() -> None:
    """The deal shuffles the cards' bits: the same order as the shuffled card ids, the same numbers drawn."""
    for seed in range(100):
        ours, theirs = random.Random(seed), random.Random(seed)
        pack = list(range(fyc.NUM_CARDS))
        theirs.shuffle(pack)
        assert fyc.shuffle_as_random(list(fyc.BIT), ours) == [fyc.BIT[c] for c in pack]
        assert ours.getstate() == theirs.getstate()


def test_rank_counts_count_each_rank() -> None:
    rng = random.Random(7)
    for _ in range(500):
        hand = fyc.mask_of(rng.sample(range(fyc.NUM_CARDS), rng.randrange(1, 30)))
        counts = fym.rank_counts(hand)
        for r in range(14):
            held = sum(1 for c in fyc.cards_of(hand) if c < 56 and c >> 2 == r)
            assert (counts >> 4 * r) & 15 == held
            for k in range(1, 5):
                assert bool(fym.ranks_with(counts, k) >> (4 * r + 2) & 1) == (held >= k)


def test_trump_sets_are_every_set_of_that_size() -> None:
    rng = random.Random(3)
    for _ in range(300):
        trumps = fyc.mask_of(rng.sample(range(56, 77), rng.randrange(0, 12)))
        for k in (1, 2, 3):
            expect = sorted(a for a in range(fym.TRUMP_BASE, fym.FIVE_BASE)
                            if fym.A_SIZE[a] == k and fym.A_MASK[a] & trumps == fym.A_MASK[a])
            assert fym.trump_sets(trumps, k) == expect


def test_trump_set_caches_stay_bounded() -> None:
    """A hand holds one of 2**21 trump sets: the caches start over past their limit instead of growing."""
    rng = random.Random(5)
    for _ in range(fym._CACHE_LIMIT + 100):
        trumps = rng.getrandbits(21) << 56
        fym.trump_sets(trumps, 2)
    assert 0 < len(fym._TRUMP_CACHE[2]) <= fym._CACHE_LIMIT


def test_straight_and_flush_tables_name_every_such_hand() -> None:
    """The straights read from the two suit tables, and the flushes from the 7-rank subset tables, are exactly
    the 5-card sets of that shape (by the action table), with the J-C-Q-K-A set where the option puts it."""
    rng = random.Random(11)
    for _ in range(400):
        start = rng.randrange(11)
        chunk = rng.getrandbits(20)
        ranks = [(start + i) % 14 if start < 10 else (10, 11, 12, 13, 0)[i] for i in range(5)]
        cards = [4 * r + s for i, r in enumerate(ranks) for s in range(4) if chunk >> (4 * i + s) & 1]
        expect = sorted(fym.MASK_TO_ACTION[fyc.mask_of(c)] for c in itertools.combinations(cards, 5)
                        if len({x >> 2 for x in c}) == 5)
        assert fym._straights(start, chunk) == expect
        suit = rng.randrange(4)
        held = rng.sample(range(14), rng.randrange(5, 12))
        bits = fyc.mask_of([4 * r + suit for r in held])
        for ace_high in (False, True):
            runs = {frozenset(range(s, s + 5)) for s in range(10)}
            if ace_high:
                runs.add(frozenset((10, 11, 12, 13, 0)))
            flushes = sorted(fym.MASK_TO_ACTION[fyc.mask_of(c)] for c in itertools.combinations(fyc.cards_of(bits), 5)
                             if frozenset(x >> 2 for x in c) not in runs)
            assert sorted(fym._flushes(bits, ace_high)) == flushes
