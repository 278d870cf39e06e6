"""Every API call as data (method, path, query, body, the model of its answer), built once for both
clients: the sync and the async one differ only in how they send it."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import quote
from zoneinfo import ZoneInfo

from pydantic import BaseModel

from ._http import Query
from .models import (
    BalanceTransactionList,
    EventDetail,
    EventList,
    EventRedelivery,
    Payment,
    PaymentList,
    Refund,
    RefundList,
    SandboxAnalysis,
    SandboxMedReturn,
    SandboxPayment,
    SandboxRefundFailure,
    Statement,
)

T = TypeVar("T", bound=BaseModel)

PaymentStatus = Literal["pending", "approved", "review", "not_approved"]
"""The statuses the payments list filters on."""

MedNature = Literal["med_fraud", "med_operational"]
"""Why the PSP makes a MED return: a fraud claim upheld, or its own operational failure."""
EventType = Literal[
    "payment.created",
    "payment.status_changed",
    "refund.created",
    "refund.succeeded",
    "refund.failed",
    "payment.dispute_opened",
    "payment.dispute_reminder",
    "payment.dispute_closed",
]
"""The webhook events' types, the Events API's filter."""
BalanceTransactionType = Literal["pix_received", "refund", "med_return", "late_pix_received", "late_pix_returned"]
"""The kinds of movement of the store's money, the balance transactions' filter."""
STATEMENT_TIME_ZONE = ZoneInfo("America/Sao_Paulo")
"""Whose days the statements and the balance transactions' from and to are."""
ALL_PAGES_LIMIT = 100
"""The page size of list_all unless a limit is given, as the TypeScript SDK's listAll."""


@dataclass(frozen=True)
class Call(Generic[T]):
    method: Literal["GET", "POST"]
    path: str
    model: type[T]
    query: Query | None = None
    body: dict[str, Any] | None = None
    idempotency_key: str | None = None
    """Set on creates and refunds only: they are safe to repeat with it, so they alone are retried."""


def _seg(value: str) -> str:
    return quote(value, safe="")


def _present(**fields: Any) -> dict[str, Any]:
    """The body's fields that were given: an absent one is left to the API's default."""
    return {name: value for name, value in fields.items() if value is not None}


def _key(given: str | None) -> str:
    return given if given is not None else str(uuid.uuid4())


def create_payment(
    *,
    amount: float,
    email: str | None,
    observation: str | None,
    webhook_url: str | None,
    expires_in: int | None,
    idempotency_key: str | None,
) -> Call[Payment]:
    body = _present(amount=amount, email=email, observation=observation, webhookUrl=webhook_url, expiresIn=expires_in)
    return Call("POST", "/payments", Payment, body=body, idempotency_key=_key(idempotency_key))


def get_payment(payment_id: str) -> Call[Payment]:
    return Call("GET", f"/payments/{_seg(payment_id)}", Payment)


def list_payments(*, status: PaymentStatus | None, page: int | None, limit: int | None) -> Call[PaymentList]:
    return Call("GET", "/payments", PaymentList, query={"status": status, "page": page, "limit": limit})


def cancel_payment(payment_id: str) -> Call[Payment]:
    return Call("POST", f"/payments/{_seg(payment_id)}/cancel", Payment)


def create_refund(
    payment_id: str, *, amount: float | None, reason: str | None, idempotency_key: str | None
) -> Call[Refund]:
    path = f"/payments/{_seg(payment_id)}/refunds"
    return Call(
        "POST", path, Refund, body=_present(amount=amount, reason=reason), idempotency_key=_key(idempotency_key)
    )


def defend_dispute(payment_id: str, text: str) -> Call[Payment]:
    return Call("POST", f"/payments/{_seg(payment_id)}/dispute/defense", Payment, body={"text": text})


def list_refunds(payment_id: str) -> Call[RefundList]:
    return Call("GET", f"/payments/{_seg(payment_id)}/refunds", RefundList)


def get_refund(payment_id: str, refund_id: str) -> Call[Refund]:
    return Call("GET", f"/payments/{_seg(payment_id)}/refunds/{_seg(refund_id)}", Refund)


def list_events(
    *, type: EventType | None, payment_id: str | None, page: int | None, limit: int | None
) -> Call[EventList]:
    query = {"type": type, "paymentId": payment_id, "page": page, "limit": limit}
    return Call("GET", "/events", EventList, query=query)


def get_event(event_id: str) -> Call[EventDetail]:
    return Call("GET", f"/events/{_seg(event_id)}", EventDetail)


def redeliver_event(event_id: str) -> Call[EventRedelivery]:
    return Call("POST", f"/events/{_seg(event_id)}/redeliver", EventRedelivery)


def _day(value: str | date) -> str:
    """A day as the API takes it: AAAA-MM-DD as given, a date's, or the day an aware datetime falls
    on in America/Sao_Paulo (a naive one could be any zone's, so it is refused)."""
    if isinstance(value, datetime):
        if value.utcoffset() is None:
            raise ValueError("a datetime without a time zone cannot name a day in America/Sao_Paulo")
        return value.astimezone(STATEMENT_TIME_ZONE).date().isoformat()
    return value if isinstance(value, str) else value.isoformat()


def list_balance_transactions(
    *,
    type: BalanceTransactionType | None,
    from_: str | date | None,
    to: str | date | None,
    page: int | None,
    limit: int | None,
) -> Call[BalanceTransactionList]:
    query = {
        "type": type,
        "from": None if from_ is None else _day(from_),
        "to": None if to is None else _day(to),
        "page": page,
        "limit": limit,
    }
    return Call("GET", "/balance-transactions", BalanceTransactionList, query=query)


def get_statement(when: str | date) -> Call[Statement]:
    return Call("GET", f"/statements/{_seg(_day(when))}", Statement)


def sandbox_pay(
    payment_id: str, *, amount: float | None, late: bool | None, drop_callback: bool | None
) -> Call[SandboxPayment]:
    body = _present(amount=amount, late=late, dropCallback=drop_callback)
    return Call("POST", f"/sandbox/payments/{_seg(payment_id)}/pay", SandboxPayment, body=body or None)


def sandbox_analysis(payment_id: str, action: Literal["review", "clear", "reject"]) -> Call[SandboxAnalysis]:
    return Call("POST", f"/sandbox/payments/{_seg(payment_id)}/{action}", SandboxAnalysis)


def sandbox_fail_next_refund(payment_id: str) -> Call[SandboxRefundFailure]:
    return Call("POST", f"/sandbox/payments/{_seg(payment_id)}/fail-next-refund", SandboxRefundFailure)


def sandbox_med(payment_id: str, *, amount: float | None, nature: MedNature | None) -> Call[SandboxMedReturn]:
    body = _present(amount=amount, nature=nature)
    return Call("POST", f"/sandbox/payments/{_seg(payment_id)}/med", SandboxMedReturn, body=body or None)


def is_last_page(page: int, items: int, limit: int, total: int) -> bool:
    return items == 0 or page * limit >= total
