"""How many judge requests may be in flight at once: an adaptive limit that backs off when 429s
persist and creeps back up (used by :class:`proctor.judge.client.JudgeClient`)."""

from __future__ import annotations

import asyncio
import math
from collections import deque


class AdaptiveLimit:
    """How many judge requests may be in flight: halved when the provider keeps answering 429
    (not below ``minimum``), grown by one after every ``recover_after`` successes (not above
    ``maximum``).

    A 429 is first the provider pacing one request: that request waits out its Retry-After (the
    client does that, holding no slot) and the limit stays. Halving every other request's
    concurrency on each one makes the limit collapse under a few per cent of scattered 429s
    (measured: +54 % with 5 % of the answers 429, the limit halved 11 times). So the limit backs
    off only when 429s persist across a window: the answers to requests admitted under the current
    limit are counted in consecutive windows of ``max(window, 2 x limit)`` answers (two rounds of
    the whole limit), and once ``throttle_share`` of a window are 429s the limit halves. Each
    admission carries a ticket (the limit's epoch); a halving starts a new epoch and a new window,
    so answers still coming back from before cannot count twice. One burst of 429s (at most one
    round of the limit) therefore halves it at most once, a few scattered ones never, and 429s
    that go on halve it once per window until they stop.

    Waiters are admitted first come, first served. Use it from one event loop.
    """

    def __init__(
        self,
        maximum: int,
        *,
        minimum: int = 1,
        recover_after: int = 10,
        window: int = 32,
        throttle_share: float = 0.2,
    ) -> None:
        if minimum < 1 or maximum < minimum:
            raise ValueError(f"need 1 <= minimum <= maximum, got minimum={minimum}, maximum={maximum}")
        if window < 1 or not 0 < throttle_share <= 1:
            raise ValueError(f"need window >= 1 and 0 < throttle_share <= 1, got {window}, {throttle_share}")
        self.maximum = maximum
        self.minimum = minimum
        self.recover_after = recover_after
        self.window = window
        self.throttle_share = throttle_share
        self.decreases = 0
        self.increases = 0
        self.lowest = maximum
        self._limit = maximum
        self._in_flight = 0
        self._epoch = 0
        self._successes = 0
        self._answers = 0  # of this epoch's requests, in the current window
        self._throttled = 0  # of which 429
        self._waiters: deque[asyncio.Future[None]] = deque()

    def __repr__(self) -> str:
        return f"AdaptiveLimit(limit={self._limit}, in_flight={self._in_flight}, maximum={self.maximum})"

    @property
    def limit(self) -> int:
        return self._limit

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def window_size(self) -> int:
        """Answers in the current window: two rounds of the limit, at least ``window``."""
        return max(self.window, 2 * self._limit)

    async def acquire(self) -> int:
        """Wait for a slot; returns the ticket to hand to :meth:`throttled` or :meth:`succeeded`."""
        if self._in_flight < self._limit and not self._waiters:
            self._in_flight += 1
            return self._epoch
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # the slot was handed over just as we were cancelled
            elif waiter in self._waiters:  # _admit may have dropped it already (it was done)
                self._waiters.remove(waiter)
            raise
        return self._epoch

    def release(self) -> None:
        self._in_flight -= 1
        self._admit()

    def throttled(self, ticket: int) -> bool:
        """A 429 on a request admitted with ``ticket``; True when this halved the limit."""
        if not self._count(ticket, throttled=True):
            return False
        if self._throttled < math.ceil(self.throttle_share * self.window_size):
            return False  # not (yet) persistent: the request waits its Retry-After, the limit stays
        self._successes = 0
        self._new_window(epoch=True)
        new = max(self.minimum, self._limit // 2)
        if new == self._limit:
            return False
        self._limit = new
        self.decreases += 1
        self.lowest = min(self.lowest, new)
        return True

    def succeeded(self, ticket: int) -> None:
        """An answer that was not a 429 (to a request admitted with ``ticket``)."""
        self._count(ticket, throttled=False)
        self._successes += 1
        if self._successes >= self.recover_after and self._limit < self.maximum:
            self._successes = 0
            self._limit += 1
            self.increases += 1
            self._admit()

    def _count(self, ticket: int, *, throttled: bool) -> bool:
        """Count an answer in the current window; False when it belongs to an earlier epoch."""
        if ticket != self._epoch:
            return False
        if self._answers >= self.window_size:
            self._new_window(epoch=False)  # the last window ended calm
        self._answers += 1
        self._throttled += throttled
        return True

    def _new_window(self, *, epoch: bool) -> None:
        self._answers = self._throttled = 0
        if epoch:
            self._epoch += 1

    def _admit(self) -> None:
        while self._waiters and self._in_flight < self._limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self._in_flight += 1
                waiter.set_result(None)
