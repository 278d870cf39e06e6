"""Answers scripted in place of the network: the unit tests' httpx MockTransport."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

PAYMENT: dict[str, Any] = {
    "id": "7d3f6c1e-0f4b-4a51-9a43-1d2b3c4d5e6f",
    "status": "pending",
    "amount": 25.5,
    "storeId": "b8e2f1d0-5c4b-4a3e-9f2d-1c0b9a8e7d6f",
    "livemode": False,
    "createdAt": "2026-11-26T10:00:00.000Z",
    "webhookUrl": None,
    "observation": None,
    "email": "cliente@example.com",
    "qrCodeUrl": "https://api.example.com/pay/7d3f6c1e-0f4b-4a51-9a43-1d2b3c4d5e6f/qr.png",
    "qrCopyPaste": "00020101021226830014br.gov.bcb.pix",
    "isPublic": True,
    "refundedAmount": 0,
    "expiresAt": "2026-11-27T10:00:00.000Z",
}

Answer = Callable[[httpx.Request], httpx.Response]


def json_answer(status: int, body: Any) -> Answer:
    return lambda request: httpx.Response(status, json=body)


def network_error(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("connection refused", request=request)


def timeout(request: httpx.Request) -> httpx.Response:
    raise httpx.ReadTimeout("timed out", request=request)


class Script:
    """Answers requests in order and records them; running out of answers fails the test."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.seen: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if not self.answers:
            raise AssertionError(f"no answer scripted for {request.method} {request.url}")
        return self.answers.pop(0)(request)

    def bodies(self) -> list[Any]:
        return [json.loads(request.content) if request.content else None for request in self.seen]

    def keys(self) -> list[str | None]:
        return [request.headers.get("idempotency-key") for request in self.seen]


@pytest.fixture
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The retry waits, recorded instead of slept."""
    waits: list[float] = []

    async def async_sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("pix_payments.client.time.sleep", waits.append)
    monkeypatch.setattr("pix_payments.client.asyncio.sleep", async_sleep)
    return waits
