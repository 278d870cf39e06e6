"""The clients: `Client` (sync) and `AsyncClient` (asyncio), one store's bearer token each."""

from __future__ import annotations

import asyncio
import datetime
import time
from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel

from . import _calls as calls
from ._calls import ALL_PAGES_LIMIT, BalanceTransactionType, Call, EventType, PaymentStatus
from ._http import build_request, connection_error, read
from ._retry import RetryPolicy, is_retryable
from .errors import PixError
from .models import (
    BalanceTransaction,
    BalanceTransactionList,
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

T = TypeVar("T", bound=BaseModel)
DEFAULT_TIMEOUT = 30.0


def _headers(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}", "accept": "application/json"}


class Client:
    """A client of the Pix Public Payments API for one store::

        with Client(base_url="https://api.example.com", token=os.environ["PIX_TOKEN"]) as pix:
            payment = pix.payments.create(amount=25.50, email="cliente@example.com")

    `timeout` is per request, in seconds (a timeout is a PixConnectionError); `retry` is how creates
    and refunds are retried (`RetryPolicy(retries=0)` turns it off); `transport` is another httpx
    transport (a proxy's, a test's MockTransport)."""

    def __init__(
        self,
        *,
        base_url: str,
        token: str,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"), headers=_headers(token), timeout=timeout, transport=transport
        )
        self._retry = retry or RetryPolicy()
        self.payments = Payments(self)
        self.refunds = Refunds(self)
        self.events = Events(self)
        self.balance_transactions = BalanceTransactions(self)
        self.statements = Statements(self)
        self.sandbox = Sandbox(self)

    def _send(self, call: Call[T]) -> T:
        """One call; a create or a refund (it carries an Idempotency-Key) is retried with that same
        key on a network error, a timeout or a 5xx, so a retry never makes a second one."""
        request = build_request(
            self._http, call.method, call.path, query=call.query, body=call.body, idempotency_key=call.idempotency_key
        )
        delays = self._retry.delays() if call.idempotency_key is not None else iter(())
        while True:
            try:
                return call.model.model_validate(self._exchange(request))
            except PixError as error:
                delay = next(delays, None) if is_retryable(error) else None
                if delay is None:
                    raise
                time.sleep(delay)

    def _exchange(self, request: httpx.Request) -> Any:
        try:
            response = self._http.send(request)
        except httpx.RequestError as error:
            raise connection_error(request, error) from error
        return read(response)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


class Payments:
    def __init__(self, client: Client) -> None:
        self._client = client

    def create(
        self,
        *,
        amount: float,
        email: str | None = None,
        observation: str | None = None,
        webhook_url: str | None = None,
        expires_in: int | None = None,
        idempotency_key: str | None = None,
    ) -> Payment:
        """Creates a payment (5 to 3000 BRL). Sends an Idempotency-Key (a new UUID unless given: pass
        your order id to make it safe to repeat across restarts) and retries with it."""
        return self._client._send(
            calls.create_payment(
                amount=amount,
                email=email,
                observation=observation,
                webhook_url=webhook_url,
                expires_in=expires_in,
                idempotency_key=idempotency_key,
            )
        )

    def get(self, payment_id: str) -> Payment:
        return self._client._send(calls.get_payment(payment_id))

    def list(
        self, *, status: PaymentStatus | None = None, page: int | None = None, limit: int | None = None
    ) -> PaymentList:
        """One page (`items`, `page`, `limit`, `total`), newest first."""
        return self._client._send(calls.list_payments(status=status, page=page, limit=limit))

    def list_all(self, *, status: PaymentStatus | None = None, limit: int | None = None) -> Iterator[Payment]:
        """Every payment matching, asking for the next page only when the iteration reaches it."""
        page = 1
        while True:
            result = self.list(status=status, page=page, limit=limit or ALL_PAGES_LIMIT)
            yield from result.items
            if calls.is_last_page(page, len(result.items), result.limit, result.total):
                return
            page += 1

    def cancel(self, payment_id: str) -> Payment:
        """Cancels a pending payment: not_approved at once, its charge removed at the PSP. Not retried."""
        return self._client._send(calls.cancel_payment(payment_id))

    def defend_dispute(self, payment_id: str, text: str) -> Payment:
        """Answers the payment's open dispute (MED) with a defence of 1 to 1000 characters, sent to the
        PSP once; the same text again answers the payment as it is. Answers the payment, its dispute
        with the defence; a payment without an open dispute is a PixApiError 409."""
        return self._client._send(calls.defend_dispute(payment_id, text))


class Refunds:
    def __init__(self, client: Client) -> None:
        self._client = client

    def create(
        self,
        payment_id: str,
        *,
        amount: float | None = None,
        reason: str | None = None,
        idempotency_key: str | None = None,
    ) -> Refund:
        """Refunds all (no `amount`) or part of an approved payment; idempotent and retried as a
        create is, so a retry never refunds twice."""
        return self._client._send(
            calls.create_refund(payment_id, amount=amount, reason=reason, idempotency_key=idempotency_key)
        )

    def list(self, payment_id: str) -> RefundList:
        """The payment's refunds, newest first."""
        return self._client._send(calls.list_refunds(payment_id))

    def get(self, payment_id: str, refund_id: str) -> Refund:
        return self._client._send(calls.get_refund(payment_id, refund_id))


class Events:
    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self,
        *,
        type: EventType | None = None,
        payment_id: str | None = None,
        page: int | None = None,
        limit: int | None = None,
    ) -> EventList:
        """One page of the store's webhook events, newest first."""
        return self._client._send(calls.list_events(type=type, payment_id=payment_id, page=page, limit=limit))

    def list_all(
        self, *, type: EventType | None = None, payment_id: str | None = None, limit: int | None = None
    ) -> Iterator[Event]:
        page = 1
        while True:
            result = self.list(type=type, payment_id=payment_id, page=page, limit=limit or ALL_PAGES_LIMIT)
            yield from result.items
            if calls.is_last_page(page, len(result.items), result.limit, result.total):
                return
            page += 1

    def get(self, event_id: str) -> EventDetail:
        """One event with every delivery attempt."""
        return self._client._send(calls.get_event(event_id))

    def redeliver(self, event_id: str) -> EventRedelivery:
        """Delivers a delivered or dead event again with the same webhook-id (409 while it is being retried)."""
        return self._client._send(calls.redeliver_event(event_id))


class BalanceTransactions:
    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self,
        *,
        type: BalanceTransactionType | None = None,
        from_: str | datetime.date | None = None,
        to: str | datetime.date | None = None,
        page: int | None = None,
        limit: int | None = None,
    ) -> BalanceTransactionList:
        """One page of the store's movements of money (signed BRL), newest first. `from_` and `to`
        are days in America/Sao_Paulo, inclusive (AAAA-MM-DD, a date, or an aware datetime's day
        there); without them, the 31 days up to today."""
        return self._client._send(
            calls.list_balance_transactions(type=type, from_=from_, to=to, page=page, limit=limit)
        )

    def list_all(
        self,
        *,
        type: BalanceTransactionType | None = None,
        from_: str | datetime.date | None = None,
        to: str | datetime.date | None = None,
        limit: int | None = None,
    ) -> Iterator[BalanceTransaction]:
        page = 1
        while True:
            result = self.list(type=type, from_=from_, to=to, page=page, limit=limit or ALL_PAGES_LIMIT)
            yield from result.items
            if calls.is_last_page(page, len(result.items), result.limit, result.total):
                return
            page += 1


class Statements:
    def __init__(self, client: Client) -> None:
        self._client = client

    def retrieve(self, date: str | datetime.date) -> Statement:
        """The statement of a day in America/Sao_Paulo: AAAA-MM-DD, a date, or an aware datetime (a
        balance transaction's created_at, parsed), whose day there is asked for."""
        return self._client._send(calls.get_statement(date))


class Sandbox:
    """Sandbox deployments only: act as the customer and the PSP would."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def pay(
        self,
        payment_id: str,
        *,
        amount: float | None = None,
        late: bool | None = None,
        drop_callback: bool | None = None,
    ) -> SandboxPayment:
        """The customer pays (another `amount` sends the payment to review; `late=True` pays even a
        charge that can no longer be paid, a new Pix each time, which the platform returns;
        `drop_callback=True`: the PSP never calls back, and the payment changes when the platform
        reconciles with the PSP, within about a minute)."""
        return self._client._send(calls.sandbox_pay(payment_id, amount=amount, late=late, drop_callback=drop_callback))

    def review(self, payment_id: str) -> SandboxAnalysis:
        """The customer pays and the PSP holds the Pix for analysis."""
        return self._client._send(calls.sandbox_analysis(payment_id, "review"))

    def clear(self, payment_id: str) -> SandboxAnalysis:
        """The analysis clears the held Pix: approved."""
        return self._client._send(calls.sandbox_analysis(payment_id, "clear"))

    def reject(self, payment_id: str) -> SandboxAnalysis:
        """The analysis rejects it: refunded, not approved."""
        return self._client._send(calls.sandbox_analysis(payment_id, "reject"))

    def fail_next_refund(self, payment_id: str) -> SandboxRefundFailure:
        """The PSP settles the payment's next refund as not done (refund.failed, with its motivo)."""
        return self._client._send(calls.sandbox_fail_next_refund(payment_id))

    def med(
        self, payment_id: str, *, amount: float | None = None, nature: calls.MedNature | None = None
    ) -> SandboxMedReturn:
        """The PSP returns the payment's Pix on its own (MED): a refund of origin psp follows."""
        return self._client._send(calls.sandbox_med(payment_id, amount=amount, nature=nature))


class AsyncClient:
    """The same client for asyncio: every method is a coroutine, list_all an async iterator::

    async with AsyncClient(base_url=..., token=...) as pix:
        payment = await pix.payments.create(amount=25.50)
        async for p in pix.payments.list_all(status="approved"): ...
    """

    def __init__(
        self,
        *,
        base_url: str,
        token: str,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"), headers=_headers(token), timeout=timeout, transport=transport
        )
        self._retry = retry or RetryPolicy()
        self.payments = AsyncPayments(self)
        self.refunds = AsyncRefunds(self)
        self.events = AsyncEvents(self)
        self.balance_transactions = AsyncBalanceTransactions(self)
        self.statements = AsyncStatements(self)
        self.sandbox = AsyncSandbox(self)

    async def _send(self, call: Call[T]) -> T:
        """As Client._send: creates and refunds retried with their key, nothing else."""
        request = build_request(
            self._http, call.method, call.path, query=call.query, body=call.body, idempotency_key=call.idempotency_key
        )
        delays = self._retry.delays() if call.idempotency_key is not None else iter(())
        while True:
            try:
                return call.model.model_validate(await self._exchange(request))
            except PixError as error:
                delay = next(delays, None) if is_retryable(error) else None
                if delay is None:
                    raise
                await asyncio.sleep(delay)

    async def _exchange(self, request: httpx.Request) -> Any:
        try:
            response = await self._http.send(request)
        except httpx.RequestError as error:
            raise connection_error(request, error) from error
        return read(response)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()


class AsyncPayments:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def create(
        self,
        *,
        amount: float,
        email: str | None = None,
        observation: str | None = None,
        webhook_url: str | None = None,
        expires_in: int | None = None,
        idempotency_key: str | None = None,
    ) -> Payment:
        return await self._client._send(
            calls.create_payment(
                amount=amount,
                email=email,
                observation=observation,
                webhook_url=webhook_url,
                expires_in=expires_in,
                idempotency_key=idempotency_key,
            )
        )

    async def get(self, payment_id: str) -> Payment:
        return await self._client._send(calls.get_payment(payment_id))

    async def list(
        self, *, status: PaymentStatus | None = None, page: int | None = None, limit: int | None = None
    ) -> PaymentList:
        return await self._client._send(calls.list_payments(status=status, page=page, limit=limit))

    async def list_all(
        self, *, status: PaymentStatus | None = None, limit: int | None = None
    ) -> AsyncIterator[Payment]:
        page = 1
        while True:
            result = await self.list(status=status, page=page, limit=limit or ALL_PAGES_LIMIT)
            for item in result.items:
                yield item
            if calls.is_last_page(page, len(result.items), result.limit, result.total):
                return
            page += 1

    async def cancel(self, payment_id: str) -> Payment:
        return await self._client._send(calls.cancel_payment(payment_id))

    async def defend_dispute(self, payment_id: str, text: str) -> Payment:
        return await self._client._send(calls.defend_dispute(payment_id, text))


class AsyncRefunds:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def create(
        self,
        payment_id: str,
        *,
        amount: float | None = None,
        reason: str | None = None,
        idempotency_key: str | None = None,
    ) -> Refund:
        return await self._client._send(
            calls.create_refund(payment_id, amount=amount, reason=reason, idempotency_key=idempotency_key)
        )

    async def list(self, payment_id: str) -> RefundList:
        return await self._client._send(calls.list_refunds(payment_id))

    async def get(self, payment_id: str, refund_id: str) -> Refund:
        return await self._client._send(calls.get_refund(payment_id, refund_id))


class AsyncEvents:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def list(
        self,
        *,
        type: EventType | None = None,
        payment_id: str | None = None,
        page: int | None = None,
        limit: int | None = None,
    ) -> EventList:
        return await self._client._send(calls.list_events(type=type, payment_id=payment_id, page=page, limit=limit))

    async def list_all(
        self, *, type: EventType | None = None, payment_id: str | None = None, limit: int | None = None
    ) -> AsyncIterator[Event]:
        page = 1
        while True:
            result = await self.list(type=type, payment_id=payment_id, page=page, limit=limit or ALL_PAGES_LIMIT)
            for item in result.items:
                yield item
            if calls.is_last_page(page, len(result.items), result.limit, result.total):
                return
            page += 1

    async def get(self, event_id: str) -> EventDetail:
        return await self._client._send(calls.get_event(event_id))

    async def redeliver(self, event_id: str) -> EventRedelivery:
        return await self._client._send(calls.redeliver_event(event_id))


class AsyncBalanceTransactions:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def list(
        self,
        *,
        type: BalanceTransactionType | None = None,
        from_: str | datetime.date | None = None,
        to: str | datetime.date | None = None,
        page: int | None = None,
        limit: int | None = None,
    ) -> BalanceTransactionList:
        return await self._client._send(
            calls.list_balance_transactions(type=type, from_=from_, to=to, page=page, limit=limit)
        )

    async def list_all(
        self,
        *,
        type: BalanceTransactionType | None = None,
        from_: str | datetime.date | None = None,
        to: str | datetime.date | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[BalanceTransaction]:
        page = 1
        while True:
            result = await self.list(type=type, from_=from_, to=to, page=page, limit=limit or ALL_PAGES_LIMIT)
            for item in result.items:
                yield item
            if calls.is_last_page(page, len(result.items), result.limit, result.total):
                return
            page += 1


class AsyncStatements:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def retrieve(self, date: str | datetime.date) -> Statement:
        return await self._client._send(calls.get_statement(date))


class AsyncSandbox:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def pay(
        self,
        payment_id: str,
        *,
        amount: float | None = None,
        late: bool | None = None,
        drop_callback: bool | None = None,
    ) -> SandboxPayment:
        return await self._client._send(
            calls.sandbox_pay(payment_id, amount=amount, late=late, drop_callback=drop_callback)
        )

    async def review(self, payment_id: str) -> SandboxAnalysis:
        return await self._client._send(calls.sandbox_analysis(payment_id, "review"))

    async def clear(self, payment_id: str) -> SandboxAnalysis:
        return await self._client._send(calls.sandbox_analysis(payment_id, "clear"))

    async def reject(self, payment_id: str) -> SandboxAnalysis:
        return await self._client._send(calls.sandbox_analysis(payment_id, "reject"))

    async def fail_next_refund(self, payment_id: str) -> SandboxRefundFailure:
        return await self._client._send(calls.sandbox_fail_next_refund(payment_id))

    async def med(
        self, payment_id: str, *, amount: float | None = None, nature: calls.MedNature | None = None
    ) -> SandboxMedReturn:
        return await self._client._send(calls.sandbox_med(payment_id, amount=amount, nature=nature))
