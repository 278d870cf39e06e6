"""Webhook verification: the shared fixtures (clients/conformance/webhooks.json, also played by the
conformance runner) at their fixed clock, and the real clock by default."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from pix_payments import WebhookVerificationError, webhooks
from pix_payments.models import DisputeReminderWebhook, PaymentCreatedWebhook, RefundSucceededWebhook

FIXTURES: dict[str, Any] = json.loads(
    (Path(__file__).parents[2] / "conformance" / "webhooks.json").read_text(encoding="utf-8")
)
CASES = {case["name"]: case for case in FIXTURES["cases"]}
SECRET: str = FIXTURES["secret"]


@pytest.mark.parametrize("name", [name for name, case in CASES.items() if case.get("error")])
def test_refuses(name: str) -> None:
    case = CASES[name]
    with pytest.raises(WebhookVerificationError):
        webhooks.verify(case["body"].encode(), case["headers"], SECRET, now=case["now"])


def test_returns_the_event_typed_by_its_event() -> None:
    created = CASES["a valid payment.created"]
    event = webhooks.verify(created["body"].encode(), created["headers"], SECRET, now=created["now"])
    assert isinstance(event, PaymentCreatedWebhook)
    assert event.observation == "Pedido nº 42 — café"
    assert event.model_dump(mode="json", by_alias=True) == created["expect"]
    refund = CASES["a valid refund.succeeded"]
    at = datetime.fromtimestamp(refund["now"], tz=timezone.utc)
    event = webhooks.verify(refund["body"], {k.upper(): v for k, v in refund["headers"].items()}, SECRET, now=at)
    assert isinstance(event, RefundSucceededWebhook)
    assert event.amount == 10.5
    reminder = CASES["a valid payment.dispute_reminder"]
    event = webhooks.verify(reminder["body"], reminder["headers"], SECRET, now=reminder["now"])
    assert isinstance(event, DisputeReminderWebhook)
    assert (event.hours_left, event.amount_at_risk, event.defense) == (24, 25.5, None)
    assert event.model_dump(mode="json", by_alias=True) == reminder["expect"]


def test_the_real_clock_by_default() -> None:
    created = CASES["a valid payment.created"]
    # The fixture was signed long ago: without `now` it is too old.
    with pytest.raises(WebhookVerificationError, match="too old"):
        webhooks.verify(created["body"].encode(), created["headers"], SECRET)
    # Signed now, it verifies without `now`.
    sent = str(int(time.time()))
    key = base64.b64decode(SECRET.removeprefix("whsec_"))
    signed = f"evt_1.{sent}.".encode() + created["body"].encode()
    signature = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    headers = {"webhook-id": "evt_1", "webhook-timestamp": sent, "webhook-signature": signature}
    assert webhooks.verify(created["body"].encode(), headers, SECRET).event == "payment.created"
