"""pix-payments: a client for the Pix Public Payments API (payments, refunds, disputes, the Events
API, balance transactions and statements, the sandbox) and webhook verification. Its models are
generated from the API's OpenAPI document."""

from . import models, webhooks
from ._calls import BalanceTransactionType, EventType, PaymentStatus
from ._retry import RetryPolicy
from .client import AsyncClient, Client
from .errors import PixApiError, PixConnectionError, PixError, WebhookVerificationError
from .models import (
    BalanceTransaction,
    BalanceTransactionList,
    Dispute,
    Event,
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
from .webhooks import WebhookEvent

__version__ = "0.1.0"

__all__ = [
    "AsyncClient",
    "BalanceTransaction",
    "BalanceTransactionList",
    "BalanceTransactionType",
    "Client",
    "Dispute",
    "Event",
    "EventDetail",
    "EventList",
    "EventRedelivery",
    "EventType",
    "Payment",
    "PaymentList",
    "PaymentStatus",
    "PixApiError",
    "PixConnectionError",
    "PixError",
    "Refund",
    "RefundList",
    "RetryPolicy",
    "SandboxAnalysis",
    "SandboxMedReturn",
    "SandboxPayment",
    "SandboxRefundFailure",
    "Statement",
    "WebhookEvent",
    "WebhookVerificationError",
    "models",
    "webhooks",
]
