"""PyTorch's rejection samplers (gamma, poisson, binomial) without a Python step per number.

NOTE [rejection samplers on PyTorch's stream]: PyTorch's CPU gamma, Dirichlet, poisson and
binomial kernels run a serial loop: each element draws as many 53-bit double uniforms (one
64-bit draw each) and scalar Box-Muller normals (two draws for a pair, the second one cached in
the generator) as its rejection loop needs, so where element i starts depends on every element
before it. ember gets the same numbers in bulk:
- draw a block of the stream ahead (`_Block`; the generator's state is kept, and once the
  numbers are known the generator is put back and moved on by exactly the draws PyTorch's loop
  used, with the cached normal it would leave);
- a state of the loop between elements is an offset in the block plus, for gamma, whether a
  normal is cached (it is then the second half of the pair drawn three draws back: a pair, the
  acceptance uniform, end of the element). For one parameter value the sampler's code, run in
  NumPy from EVERY state at once, gives each state's number and the state after it
  (random_rejection.py);
- the elements' states are then the path from the first state through that table: listed by
  pointer doubling when the parameters repeat with a short period (one value, or a parameter
  expanded over a sample shape), else by a walk over the tables of the distinct values, one
  list look-up per element. (Gamma's table takes the states whose first attempt surely
  accepts from shifted slices of the block; only the others run the whole loop.)
- decisions may use NumPy's log and normals (an ulp or two off glibc's) where they hold with
  room to spare; the rest, and every number on the path, use glibc's functions.
A path that runs past the block ends the pass; the next block continues from where it
stopped. Parameters with more than `_MAX_DISTINCT` distinct values and no short period, or
with so many phases that a pass over the block per phase passes `_BUDGET`, keep NumPy's
sampler seeded from the stream (numbers that follow the distribution but are not PyTorch's).

NOTE [exact rejection streams are opt-in]: evaluating the loop from every state of a block costs
far more than the numbers it keeps: 0.7 ms for one gamma number (NumPy's sampler: 0.03 ms) and
about 25x NumPy's time for 10^5 (thread time, shared machine). A Beta or Gamma policy sampled
every step would pay that, for numbers that differ from NumPy's only in being PyTorch's. So
the samplers take this path only while `ember.random.set_exact_rejection_sampling(True)` is
on (`EXACT`); by default `sample` answers None and the kernels use NumPy's sampler seeded from
the stream (one seed, the same numbers; the generator moves on by one draw).
"""
from __future__ import annotations

import math

import numpy as np

from ember._ops import random_transforms as rt

# Virtual slots before a block's first draw: slot 0 holds a normal cached before the block
# (as the second half of a pair "drawn" at slot 0, three draws before the block's start).
LEAD = 3
_MAX_PERIOD = 64
_MAX_DISTINCT = 64
# Phases times block states the samplers may evaluate (each phase runs its loop from every
# state of the block): past this, NumPy's sampler.
_BUDGET = 3e7
_STRIDE = 64
_PAD = 8
_LOW53 = np.uint64((1 << 53) - 1)
_TWO_PI = 2.0 * math.pi


class Block:
    """`count` 64-bit draws of the generator's stream ahead, as double uniforms at slots
    LEAD.. (padded with zeros past the end), and (normals=True) the Box-Muller pair a normal
    request would draw at every slot: cos and sin halves close to glibc's (NumPy's log1p is
    within an ulp or two of it; a sampler's comparisons allow for that), `exact` the same
    numbers bit for bit where needed."""

    def __init__(self, generator, count, normals):
        self.generator = generator
        self.saved = (generator._bits.state, generator._exhausted_index,
                      generator.next_double_normal)
        self.size = count + LEAD
        uniform = np.zeros(self.size + _PAD)
        uniform[LEAD:self.size] = rt.uniform_double(generator, count)
        self.uniform = uniform
        self.cached = generator.next_double_normal is not None
        if normals:
            u1, u2 = uniform[:-1], uniform[1:]
            radius = np.sqrt(-2.0 * np.log1p(-u2))
            theta = _TWO_PI * u1
            self.cos = np.append(radius * np.cos(theta), 0.0)
            self.sin = np.append(radius * np.sin(theta), 0.0)
            if self.cached:
                self.sin[0] = generator.next_double_normal

    def exact(self, pairs, halves):
        """glibc's normals: the cos (halves 0) or sin (1) half of the pairs at `pairs`."""
        unique, where = np.unique(pairs, return_inverse=True)
        u1, u2 = self.uniform[unique], self.uniform[unique + 1]
        radius = np.sqrt(-2.0 * rt.glibc(math.log1p, -u2))
        theta = _TWO_PI * u1
        values = np.where(halves == 0, (radius * np.cos(theta))[where],
                          (radius * np.sin(theta))[where])
        if self.cached:
            values[(pairs == 0) & (halves == 1)] = self.sin[0]
        return values

    def settle(self, slot, cached):
        """Put the generator where PyTorch's loop leaves it: `slot - LEAD` draws into the
        block, with the second normal of the pair at slot - 3 cached when `cached`."""
        generator = self.generator
        generator._bits.state, generator._exhausted_index, _ = self.saved
        if slot > LEAD:
            generator.random64(slot - LEAD)
        generator.next_double_normal = float(self.exact(np.array([slot - 3]), np.array([1]))[0]) \
            if cached else None


def _period(params):
    """The shortest period (<= _MAX_PERIOD, dividing the length) with which the rows of
    `params` repeat, or None."""
    count = params.shape[0]
    for period in range(1, min(_MAX_PERIOD, count) + 1):
        if count % period == 0 and (params[period:] == params[:-period]).all():
            return period
    return None


def _orbit(jump, start, count):
    """start, jump[start], jump[jump[start]], ...: `count` nodes. Tables of 2, 4, ... up to
    _STRIDE steps (pointer doubling) give every _STRIDE-th node by a short walk; the tables,
    coarsest first, then fill in the nodes between."""
    levels = [jump]
    while 2 ** len(levels) <= min(_STRIDE, count):
        jump = jump[jump]
        levels.append(jump)
    stride = 2 ** (len(levels) - 1)
    coarse = levels[-1]
    starts = np.empty(-(-count // stride), jump.dtype)
    node = start
    for index in range(starts.size):
        starts[index] = node
        node = coarse[node]
    path = starts[:, None]
    for level in reversed(levels[:-1]):
        path = np.stack([path, level[path]], axis=-1).reshape(starts.size, -1)
    return path.reshape(-1)[:count]


def _path(tables, phases, start, count, sink):
    """The start node of each of `count` elements whose phase (index into `tables`, a list of
    next-node arrays) is phases[i]; `phases` repeats with period len(phases) or is given in
    full."""
    period = len(phases)
    if period < count:                       # periodic: double over whole periods
        composite = tables[phases[0]]
        for phase in phases[1:]:
            composite = tables[phase][composite]
        cycle_starts = _orbit(composite, start, -(-count // period))
        nodes = np.empty((cycle_starts.size, period), composite.dtype)
        nodes[:, 0] = cycle_starts
        for at in range(1, period):
            nodes[:, at] = tables[phases[at - 1]][nodes[:, at - 1]]
        return nodes.reshape(-1)[:count]
    lists = [table.tolist() for table in tables]
    nodes = [sink] * count
    node = start
    for index, phase in enumerate(phases.tolist()):
        nodes[index] = node
        node = lists[phase][node]
        if node == sink:
            break
    return np.array(nodes, tables[0].dtype)


EXACT = [False]     # NOTE [exact rejection streams are opt-in]


def sample(generator, params, sampler, out_dtype):
    if not EXACT[0]:
        return None
    # (infinite or NaN parameters run the loops as PyTorch's do, without NumPy's warnings)
    with np.errstate(all="ignore"):
        return _sample(generator, params, sampler, out_dtype)


def _sample(generator, params, sampler, out_dtype):
    """PyTorch's numbers for the rows of `params` (one row of parameters per element), or
    None where the parameters are too varied (NOTE [rejection samplers on PyTorch's stream]).
    `sampler` gives `normals` (whether it draws normals: then a state is a slot and whether a
    normal is cached), draws_per_element(distinct rows), table(block, row) -> (following
    slot, following cached, stays in the block, record) for every state and values(block,
    row, states, record) -> the numbers of elements starting at those states."""
    count = params.shape[0]
    if count == 0:
        return np.empty(0, out_dtype)
    # (rows compared by their bits, so that a NaN parameter repeats like any other)
    keys = np.ascontiguousarray(params, np.float64).view(np.int64)
    period = _period(keys)
    distinct, phases = np.unique(keys if period is None else keys[:period], axis=0,
                                 return_inverse=True)
    distinct = distinct.view(np.float64)
    per_element = sampler.draws_per_element(distinct)
    phase_count = period if period is not None else distinct.shape[0]
    if distinct.shape[0] > _MAX_DISTINCT or phase_count * count * per_element > _BUDGET:
        return None
    phases = phases.reshape(-1)
    if period is not None:
        phases = np.tile(phases, count // period)
    states = 2 if sampler.normals else 1
    out = np.empty(count, out_dtype)
    done = 0
    factor = 1.1
    while done < count:
        left = count - done
        expected = left * per_element
        block = Block(generator, int(factor * expected + 8 * math.sqrt(expected) + 64),
                      sampler.normals)
        start = LEAD * states + int(block.cached and states == 2)
        sink = block.size * states
        tables, records = [], []
        for row in distinct:
            slot, cached, inside, record = sampler.table(block, row)
            following = slot * states + cached if states == 2 else slot.copy()
            following[~inside | (slot >= block.size)] = sink
            tables.append(np.append(following, sink).astype(np.int32 if sink < 2 ** 31
                                                            else np.int64))
            records.append(record)
        element_phases = phases[done:]
        walked = element_phases[:period] if period is not None and period < left else \
            element_phases
        nodes = _path(tables, walked, start, left, sink)
        following = np.empty(left, np.int64)
        for index, table in enumerate(tables):
            mine = element_phases == index
            following[mine] = table[nodes[mine]]
        finished = np.flatnonzero(following == sink)
        produced = int(finished[0]) if finished.size else left
        for index, (row, record) in enumerate(zip(distinct, records)):
            mine = np.flatnonzero(element_phases[:produced] == index)
            out[done + mine] = sampler.values(block, row, nodes[mine], record)
        last = int(following[produced - 1]) if produced else start
        block.settle(last // states, bool(last % states))
        done += produced
        factor = 1.25 if produced else factor * 2
    return out
