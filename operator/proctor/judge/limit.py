"""How many judge requests may be in flight at once: an adaptive limit that backs off under
sustained 429s and creeps back up (used by :class:`proctor.judge.client.JudgeClient`)."""

from __future__ import annotations

import asyncio
from collections import deque


class AdaptiveLimit:
    """How many judge requests may be in flight: halves when the provider keeps answering 429 (not
    below ``minimum``) and grows by one after every ``recover_after`` successes (not above ``maximum``).

    Only sustained throttling halves it: at least ``throttle_share`` of the last ``window`` answers
    were 429s. A sporadic 429 (a provider shedding the odd request) is retried after its
    Retry-After without shrinking the limit: halving on every one makes the limit collapse under a
    few percent of random 429s (measured: 14x slower at 5 %). A burst of 429s from requests
    admitted under the same limit halves it once: each admission gets a ticket (the limit's epoch),
    and only a 429 on a ticket of the current epoch may halve it and start a new epoch. Waiters are
    admitted first come, first served. Use it from one event loop.
    """

    def __init__(
        self,
        maximum: int,
        *,
        minimum: int = 1,
        recover_after: int = 10,
        window: int = 20,
        throttle_share: float = 0.2,
    ) -> None:
        if minimum < 1 or maximum < minimum:
            raise ValueError(f"need 1 <= minimum <= maximum, got minimum={minimum}, maximum={maximum}")
        self.maximum = maximum
        self.minimum = minimum
        self.recover_after = recover_after
        self.decreases = 0
        self.increases = 0
        self.lowest = maximum
        self._limit = maximum
        self._in_flight = 0
        self._epoch = 0
        self._successes = 0
        self._recent: deque[bool] = deque(maxlen=window)
        self.throttle_share = throttle_share
        self._waiters: deque[asyncio.Future[None]] = deque()

    def __repr__(self) -> str:
        return f"AdaptiveLimit(limit={self._limit}, in_flight={self._in_flight}, maximum={self.maximum})"

    @property
    def limit(self) -> int:
        return self._limit

    @property
    def in_flight(self) -> int:
        return self._in_flight

    async def acquire(self) -> int:
        """Wait for a slot; returns the ticket to hand to :meth:`throttled`."""
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
            else:
                self._waiters.remove(waiter)
            raise
        return self._epoch

    def release(self) -> None:
        self._in_flight -= 1
        self._admit()

    def throttled(self, ticket: int) -> bool:
        """A 429 on a request admitted with ``ticket``; True when this halved the limit."""
        self._recent.append(True)
        if ticket != self._epoch:
            return False
        if sum(self._recent) < self.throttle_share * len(self._recent):
            return False  # sporadic: the request waits its Retry-After, the limit stays
        self._successes = 0
        self._epoch += 1
        new = max(self.minimum, self._limit // 2)
        changed = new != self._limit
        if changed:
            self._limit = new
            self.decreases += 1
            self.lowest = min(self.lowest, new)
        return changed

    def succeeded(self) -> None:
        self._recent.append(False)
        self._successes += 1
        if self._successes >= self.recover_after and self._limit < self.maximum:
            self._successes = 0
            self._limit += 1
            self.increases += 1
            self._admit()

    def _admit(self) -> None:
        while self._waiters and self._in_flight < self._limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self._in_flight += 1
                waiter.set_result(None)
