"""The bootstrap draws of one computation: one master stream of case picks, from which each case set takes its draw.

Definitions (aggregate_metrics.md §18, "Draws"):

- U, the **universe**: the distinct case ids being resampled (every case with a
  scored run), sorted by code point; K = |U|, B = the number of resamples.
- The **master stream**: ``generator(seed, case_set_label(U))``. Its block t
  (t = 0, 1, 2, ...) is one call ``integers(0, K, size=(B, K), dtype=int32)``,
  drawn in that order; row b of the stream is row b of block 0, then row b of
  block 1, and so on: an endless sequence of picks, uniform over U.
- The **draw of a case set** S ⊆ U (|S| >= 1): replicate b keeps, in order, the
  picks of row b that fall in S, until it holds |S| of them; ``counts[b, c]`` is
  how often case c was kept. For S = U that is block 0 itself.

The picks kept are independent and uniform over S (rejection sampling), so every
set gets an exact case bootstrap: |S| cases drawn with replacement, each
replicate independent of the others. Every subject or pair resampling the same
set gets the same draw (it depends on S alone, not on who asks or in what order),
and sets that differ in a few cases share most of their picks (common random
numbers, which make the intervals of near-identical comparisons consistent).

Cost: block 0 and its counts are made once. A set that lacks d cases of U
differs from block 0 in about d picks per replicate: if block 0's row holds e
picks in the set beyond |S|, the draw drops the last e of them; if it holds e
too few, it adds the first e picks in the set from block 1 on.
:meth:`CaseDraws.replicate_sums` finds those picks for many sets at once, walking
back from the end of block 0 and forward through block 1 one position at a time
for every (set, replicate) that still needs picks, so its cost grows with the
number of differing picks, O(sets · B · d), not with the number of distinct sets.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from .bootstrap import generator
from .exact_products import FLOAT32_EXACT, exact_matmul

_KEEP_BLOCKS = 2   # blocks past 0 kept in memory; any other is regenerated from its start state


def case_set_label(case_ids: Iterable[str]) -> str:
    """``cases:`` + hex sha256 of the sorted, distinct case ids joined by newlines: the stream label of a case list."""
    listing = "\n".join(sorted(set(case_ids)))
    return "cases:" + hashlib.sha256(listing.encode("utf-8")).hexdigest()


class CaseDraws:
    """The draws of one computation: block 0 of the master stream, its counts, and any set's draw on demand.

    Every result depends on (seed, universe, resamples) and the arguments alone.
    Blocks past 0 are made only when a set needs them and regenerated from the
    saved generator state at their start, so their content never depends on
    which sets asked first; at most two of them are kept in memory.
    """

    def __init__(self, seed: int, universe: Iterable[str], resamples: int):
        self.universe: tuple[str, ...] = tuple(sorted(set(universe)))
        if not self.universe or resamples < 1:
            raise ValueError("need at least one case and one resample")
        self.k = len(self.universe)
        self.resamples = resamples
        self.index = {case_id: i for i, case_id in enumerate(self.universe)}
        self._rng = generator(seed, case_set_label(self.universe))
        self._starts = [self._rng.bit_generator.state]   # generator state at the start of block t
        self.block0 = self._next_block()
        offsets = (np.arange(resamples, dtype=np.int64) * self.k)[:, None]
        self.base = np.bincount((self.block0 + offsets).ravel(),
                                minlength=resamples * self.k).reshape(resamples, self.k)
        self._base_t = {np.float32: np.ascontiguousarray(self.base.T, dtype=np.float32)}
        self._recent: dict[int, np.ndarray] = {}   # the last blocks past 0 regenerated (a few, bounded)
        self._recent_t: dict[int, tuple[np.ndarray, np.ndarray]] = {}   # their transposes, by block
        self._block0_t: np.ndarray | None = None

    def member(self, case_ids: Iterable[str]) -> np.ndarray:
        """Boolean mask over U of the given case ids (each must be in U)."""
        mask = np.zeros(self.k, dtype=bool)
        mask[[self.index[c] for c in case_ids]] = True
        return mask

    def counts(self, member: np.ndarray) -> np.ndarray:
        """The draw of one case set (a non-empty mask over U): (B x |S|) int64 counts, columns in U's order."""
        full = self.base.copy()
        for sign, replicates, picks, kept in self._walk(member[None, :]):   # one set: entry = replicate, pick = case
            np.add.at(full, (replicates[kept], picks[kept]), sign)
        return full[:, member]

    def replicate_sums(self, values: Sequence[np.ndarray], members: np.ndarray | None = None) -> list[np.ndarray]:
        """For each (P x K) integer array of ``values``, the (P x B) sums Σ_c draw_p[b, c] · values[p, c], exact.

        draw_p is the draw of row p's case set ``members[p]`` (a (P x K) mask
        over U; default U for every row), and every values row must be zero
        outside its set. The results hold exact integers in float32 or float64:
        every replicate holds at most 2K picks even while picks are added and
        removed, so partial sums stay below max |values| · 2K, and float32 is
        used for an array when that is below 2**24 (:mod:`.exact_products`). The arrays of
        one precision are stacked into one product.
        """
        bounds = [int(np.abs(v).max(initial=0)) * 2 * self.k for v in values]
        outs: list[np.ndarray] = [np.empty(0)] * len(values)
        for dtype in (np.float32, np.float64):
            group = [i for i, bound in enumerate(bounds) if (bound < FLOAT32_EXACT) == (dtype is np.float32)]
            if not group:
                continue
            stacked = values[group[0]] if len(group) == 1 else np.vstack([values[i] for i in group])
            product = exact_matmul(stacked, self._base_t_as(dtype), bound=max(bounds[i] for i in group),
                                   keep_float32=True)
            rows = len(values[group[0]])
            for j, i in enumerate(group):
                outs[i] = product[j * rows:(j + 1) * rows]
        if members is None:
            return outs
        partial = np.flatnonzero(~members.all(axis=1))
        if not partial.size:
            return outs
        if any(np.any(v[partial][~members[partial]]) for v in values):
            raise ValueError("values must be zero outside each row's case set")
        part_values = [np.ascontiguousarray(v[partial]).ravel() for v in values]   # rows whose set is not U: correct them
        part_outs = [out[partial] for out in outs]
        for sign, entries, picks, _ in self._walk(members[partial]):
            for out, v in zip(part_outs, part_values):
                flat = out.ravel()                          # a view: out[partial] is a fresh C-order array
                total = flat.take(entries)                  # entries are distinct within a step
                (np.add if sign > 0 else np.subtract)(total, v.take(picks), out=total, casting="same_kind")
                flat[entries] = total
        for out, part in zip(outs, part_outs):
            out[partial] = part
        return outs

    def _base_t_as(self, dtype) -> np.ndarray:
        if dtype not in self._base_t:
            self._base_t[dtype] = np.ascontiguousarray(self.base.T, dtype=dtype)
        return self._base_t[dtype]

    def _walk(self, members: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """The picks in which the draws of the sets ``members`` (P x K) differ from block 0, one position at a time.

        Yields (sign, entry, pick, kept) arrays, with entry = p · B + b (set p,
        replicate b) and pick = p · K + c (case c, as a flat index into a (P x K)
        array): sign -1 while walking back from the end of block 0 (the kept
        picks one too many), +1 while walking forward from block 1 on (the kept
        picks missing); ``kept`` tells whether the pick is in its set (picks
        outside it are passed over and do not count).
        """
        sizes = members.sum(axis=1)
        if (sizes < 1).any():
            raise ValueError("a case set needs at least one case")
        k, b = self.k, self.resamples
        inside = np.ascontiguousarray(members).ravel()
        outside = exact_matmul((~members).astype(np.float32), self._base_t_as(np.float32), bound=k)
        excess = ((k - outside.astype(np.int64)) - sizes[:, None]).ravel()   # kept picks of block 0 beyond |S|
        index = np.int32 if members.shape[0] * max(b, k) < 2**31 else np.int64
        for sign, chosen in ((-1, excess > 0), (1, excess < 0)):
            entries = np.flatnonzero(chosen).astype(index)
            need = np.abs(excess[entries]).astype(index)
            rows, offsets = entries % b, (entries // b) * k           # replicate; start of the set's row
            step = 0
            columns: np.ndarray | None = None
            while entries.size:
                if sign < 0:                       # back from the end of block 0
                    column = self._columns(0)[k - 1 - step]
                else:                              # forward from the start of block 1, then 2, ...
                    if step % k == 0:
                        columns = self._columns(1 + step // k)
                    assert columns is not None  # set at step 0, the first step forward
                    column = columns[step % k]
                picks = offsets + column.take(rows)
                kept = inside.take(picks)
                yield sign, entries, picks, kept
                need -= kept
                more = need > 0
                if not more.all():
                    keep = np.flatnonzero(more)                  # (take is much faster than boolean masks here)
                    entries, need = entries.take(keep), need.take(keep)
                    rows, offsets = rows.take(keep), offsets.take(keep)
                step += 1

    def _columns(self, t: int) -> np.ndarray:
        """Block t transposed (K x B), so that one position of every replicate is a contiguous row."""
        if t == 0:
            if self._block0_t is None:
                self._block0_t = np.ascontiguousarray(self.block0.T)
            return self._block0_t
        block = self.block(t)
        cached = self._recent_t.get(t)
        if cached is None or cached[0] is not block:            # transposed once per regenerated block
            cached = self._recent_t[t] = (block, np.ascontiguousarray(block.T))
            for old in [u for u in self._recent_t if u not in self._recent]:
                del self._recent_t[old]
        return cached[1]

    def _next_block(self) -> np.ndarray:
        block = self._rng.integers(0, self.k, size=(self.resamples, self.k), dtype=np.int32)
        self._starts.append(self._rng.bit_generator.state)
        return block

    def block(self, t: int) -> np.ndarray:
        """Block t of the master stream, (B x K) int32."""
        if t == 0:
            return self.block0
        if t in self._recent:
            return self._recent[t]
        while len(self._starts) <= t:     # advance the main generator, keeping each block's start state
            self._next_block()
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = self._starts[t]
        block = rng.integers(0, self.k, size=(self.resamples, self.k), dtype=np.int32)
        if len(self._recent) >= _KEEP_BLOCKS:
            self._recent.pop(next(iter(self._recent)))
        self._recent[t] = block
        return block
