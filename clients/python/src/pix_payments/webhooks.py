"""Webhook verification, Standard Webhooks' way: an HMAC-SHA256 of `{id}.{timestamp}.{body}` with the
store's secret, and a timestamp within 5 minutes of now."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Protocol

from pydantic import Field, TypeAdapter, ValidationError

from .errors import WebhookVerificationError
from .models import (
    DisputeClosedWebhook,
    DisputeOpenedWebhook,
    DisputeReminderWebhook,
    PaymentCreatedWebhook,
    PaymentStatusChangedWebhook,
    RefundCreatedWebhook,
    RefundFailedWebhook,
    RefundSucceededWebhook,
)

WebhookEvent = (
    PaymentCreatedWebhook
    | PaymentStatusChangedWebhook
    | RefundCreatedWebhook
    | RefundSucceededWebhook
    | RefundFailedWebhook
    | DisputeOpenedWebhook
    | DisputeReminderWebhook
    | DisputeClosedWebhook
)
"""Any webhook body, told apart by `event`: a payment's, a refund's or a dispute's."""

_EVENT: TypeAdapter[WebhookEvent] = TypeAdapter(Annotated[WebhookEvent, Field(discriminator="event")])
TOLERANCE_SECONDS = 5 * 60
_PREFIX = "whsec_"


class Headers(Protocol):
    """Request headers as a framework hands them: a dict, or Django's, Flask's, Starlette's headers."""

    def items(self) -> Iterable[tuple[str, str]]: ...


def _header(headers: Headers, name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return ""


def verify(
    body: bytes | str,
    headers: Headers,
    secret: str,
    *,
    now: datetime | float | None = None,
) -> WebhookEvent:
    """Verifies a webhook as it arrived: the raw body (bytes, before any JSON parsing), its headers
    (a dict or a framework's headers; names in any case) and the store's secret (`whsec_…`). Returns the event, typed by
    its `event`; raises WebhookVerificationError when no signature matches, the timestamp is more than
    5 minutes from `now` (the real clock unless given: a datetime or Unix seconds), or the body is
    not an event of this API. Deduplicate on the `webhook-id` header: an event may arrive twice."""
    raw = body.encode() if isinstance(body, str) else body
    webhook_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not webhook_id or not timestamp or not signatures:
        raise WebhookVerificationError("webhook not verified: missing required headers")
    try:
        sent = int(timestamp)
    except ValueError:
        raise WebhookVerificationError("webhook not verified: invalid webhook-timestamp") from None
    clock = time.time() if now is None else now.timestamp() if isinstance(now, datetime) else now
    if int(clock) - sent > TOLERANCE_SECONDS:
        raise WebhookVerificationError("webhook not verified: message timestamp too old")
    if sent > int(clock) + TOLERANCE_SECONDS:
        raise WebhookVerificationError("webhook not verified: message timestamp too new")
    key = base64.b64decode(secret.removeprefix(_PREFIX))
    digest = hmac.new(key, f"{webhook_id}.{sent}.".encode() + raw, hashlib.sha256).digest()
    expected = "v1," + base64.b64encode(digest).decode()
    # Several space-separated signatures while a secret is rotated; any one will do.
    if not any(hmac.compare_digest(candidate.encode(), expected.encode()) for candidate in signatures.split(" ")):
        raise WebhookVerificationError("webhook not verified: no matching signature found")
    try:
        return _EVENT.validate_python(json.loads(raw))
    except (ValueError, ValidationError) as error:
        raise WebhookVerificationError(f"webhook not verified: not an event of this API ({error})") from error
