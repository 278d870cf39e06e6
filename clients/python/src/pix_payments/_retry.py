"""How creates and refunds are retried, as the TypeScript SDK's retry.ts does it."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from .errors import PixApiError, PixConnectionError


@dataclass(frozen=True)
class RetryPolicy:
    """Tries after the first one, and the waits between them: the first one, doubling up to the
    longest, each with ±20 % jitter so that clients failed together do not retry together."""

    retries: int = 3
    base_delay: float = 0.25
    max_delay: float = 4.0

    def delays(self) -> Iterator[float]:
        """The wait before each retry, in seconds."""
        for attempt in range(self.retries):
            yield min(self.base_delay * 2**attempt, self.max_delay) * (0.8 + random.random() * 0.4)


def is_retryable(error: Exception) -> bool:
    """Worth another try: no answer at all, or the server failed (5xx). A 4xx would fail the same again."""
    return isinstance(error, PixConnectionError) or (isinstance(error, PixApiError) and error.status_code >= 500)
