"""What the clients send and how they read answers, against scripted answers (the live API is the
conformance scenario's, in tests/sdk/python.test.ts)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import get_args

import httpx
import pytest
from conftest import PAYMENT, Script, json_answer

from pix_payments import AsyncClient, BalanceTransactionType, Client, EventType, PixApiError
from pix_payments.models import BalanceTransaction, Event


def page(items: int, number: int, limit: int, total: int) -> dict[str, object]:
    payments = [{**PAYMENT, "id": f"00000000-0000-4000-8000-{number:06d}{i:06d}"} for i in range(items)]
    return {"items": payments, "page": number, "limit": limit, "total": total}


def test_sends_the_token_and_only_the_parameters_given() -> None:
    script = Script(json_answer(200, page(0, 1, 50, 0)), json_answer(200, page(0, 2, 5, 0)))
    pix = Client(base_url="https://api.example.com/", token="pxt_abc", transport=httpx.MockTransport(script))
    pix.payments.list()
    pix.payments.list(status="approved", page=2, limit=5)
    first, second = script.seen
    assert first.headers["authorization"] == "Bearer pxt_abc"
    assert str(first.url) == "https://api.example.com/public-api/v1/payments"
    assert dict(second.url.params) == {"status": "approved", "page": "2", "limit": "5"}


def test_create_sends_the_apis_field_names_and_no_absent_field() -> None:
    script = Script(json_answer(200, PAYMENT))
    pix = Client(base_url="http://api.test", token="t", transport=httpx.MockTransport(script))
    payment = pix.payments.create(amount=25.5, webhook_url="https://loja.example/hooks", expires_in=600)
    assert script.bodies() == [{"amount": 25.5, "webhookUrl": "https://loja.example/hooks", "expiresIn": 600}]
    assert script.seen[0].headers["content-type"] == "application/json"
    assert payment.is_public is True
    # A field the API leaves out (a payment's `dispute`, shown only when there is one) stays out.
    assert payment.model_dump(mode="json", by_alias=True, exclude_unset=True) == PAYMENT


def test_path_ids_are_escaped_and_sandbox_pay_sends_no_body_unless_asked() -> None:
    paid = {"paymentId": PAYMENT["id"], "txid": "t", "endToEndId": "E1", "amount": 25.5}
    script = Script(
        json_answer(404, {"statusCode": 404, "message": "Pagamento não encontrado."}),
        json_answer(200, paid),
        json_answer(200, paid),
    )
    pix = Client(base_url="http://api.test", token="t", transport=httpx.MockTransport(script))
    with pytest.raises(PixApiError):
        pix.payments.get("a/b?c")
    pix.sandbox.pay(PAYMENT["id"])
    pix.sandbox.pay(PAYMENT["id"], drop_callback=True)
    assert script.seen[0].url.raw_path == b"/public-api/v1/payments/a%2Fb%3Fc"
    assert script.seen[1].content == b""
    assert script.bodies()[-1] == {"dropCallback": True}


def test_list_all_asks_for_each_page_only_when_the_iteration_reaches_it() -> None:
    script = Script(
        json_answer(200, page(2, 1, 2, 5)), json_answer(200, page(2, 2, 2, 5)), json_answer(200, page(1, 3, 2, 5))
    )
    pix = Client(base_url="http://api.test", token="t", transport=httpx.MockTransport(script))
    payments = pix.payments.list_all(limit=2)
    first = next(payments)
    assert first.id.endswith("000001000000")
    assert len(script.seen) == 1
    assert len([first, *payments]) == 5
    assert [request.url.params["page"] for request in script.seen] == ["1", "2", "3"]


def test_an_error_carries_the_apis_status_and_message_or_the_text_without_json() -> None:
    script = Script(
        json_answer(
            400, {"statusCode": 400, "message": "Valor mínimo permitido para geração de pagamentos é R$ 5,00."}
        ),
        lambda request: httpx.Response(502, text="Bad Gateway"),
    )
    pix = Client(base_url="http://api.test", token="t", transport=httpx.MockTransport(script))
    with pytest.raises(PixApiError) as refused:
        pix.events.list(type="payment.created")
    assert refused.value.status_code == 400
    assert str(refused.value) == "Valor mínimo permitido para geração de pagamentos é R$ 5,00."
    with pytest.raises(PixApiError) as gateway:
        pix.events.get("evt_0")
    assert (gateway.value.status_code, gateway.value.message) == (502, "Bad Gateway")


async def test_the_async_client_sends_the_same_requests_and_retries_the_same(no_sleep: list[float]) -> None:
    script = Script(
        json_answer(503, {"statusCode": 503, "message": "down"}),
        json_answer(200, PAYMENT),
        json_answer(200, page(2, 1, 2, 3)),
        json_answer(200, page(1, 2, 2, 3)),
    )
    async with AsyncClient(base_url="http://api.test", token="t", transport=httpx.MockTransport(script)) as pix:
        payment = await pix.payments.create(amount=25.5, idempotency_key="order-1")
        listed = [p.id async for p in pix.payments.list_all(status="pending", limit=2)]
    assert payment.id == PAYMENT["id"]
    assert script.keys()[:2] == ["order-1", "order-1"]
    assert len(no_sleep) == 1
    assert len(listed) == 3
    assert [dict(request.url.params) for request in script.seen[2:]] == [
        {"status": "pending", "page": "1", "limit": "2"},
        {"status": "pending", "page": "2", "limit": "2"},
    ]


def movement(n: int) -> dict[str, object]:
    return {
        "id": f"{PAYMENT['id']}:pix_received:E{n}",
        "type": "pix_received",
        "amount": 25.5,
        "paymentId": PAYMENT["id"],
        "refundId": None,
        "endToEndId": f"E{n}",
        "origin": None,
        "nature": None,
        "connection": "test",
        "livemode": False,
        "createdAt": "2026-11-29T02:30:00.000Z",
    }


STATEMENT = {
    "date": "2026-11-28",
    "timeZone": "America/Sao_Paulo",
    "livemode": False,
    "received": 25.5,
    "refunded": 0,
    "returnedByMed": 12.5,
    "atRisk": 0,
    "net": 13,
    "counts": {"received": 1, "refunded": 0, "returnedByMed": 1, "atRisk": 0},
}


def test_defend_dispute_posts_the_text_and_answers_the_payment_with_its_dispute() -> None:
    dispute = {
        "status": "open",
        "reason": "Pix feito sob fraude",
        "kind": "golpe",
        "amountAtRisk": 25.5,
        "openedAt": "2026-11-26T10:00:00.000Z",
        "deadlineAt": "2026-12-03T10:00:00.000Z",
        "defense": {"text": "Entregue.", "sentAt": "2026-11-26T11:00:00.000Z"},
        "decision": None,
        "closedAt": None,
    }
    script = Script(
        json_answer(200, {**PAYMENT, "status": "approved", "dispute": dispute}),
        json_answer(409, {"statusCode": 409, "message": "Este pagamento não tem uma contestação aberta."}),
    )
    pix = Client(base_url="http://api.test", token="t", transport=httpx.MockTransport(script))
    payment = pix.payments.defend_dispute(PAYMENT["id"], "Entregue.")
    assert payment.dispute is not None and payment.dispute.defense is not None
    assert payment.dispute.defense.text == "Entregue."
    with pytest.raises(PixApiError) as refused:
        pix.payments.defend_dispute("a/b", "Entregue.")
    assert (refused.value.status_code, refused.value.message) == (409, "Este pagamento não tem uma contestação aberta.")
    assert [(r.method, r.url.raw_path) for r in script.seen] == [
        ("POST", f"/public-api/v1/payments/{PAYMENT['id']}/dispute/defense".encode()),
        ("POST", b"/public-api/v1/payments/a%2Fb/dispute/defense"),
    ]
    assert script.bodies() == [{"text": "Entregue."}, {"text": "Entregue."}]


def test_balance_transactions_send_from_and_to_as_sao_paulo_days_and_list_all_walks_the_pages() -> None:
    script = Script(
        json_answer(200, {"items": [], "page": 1, "limit": 50, "total": 0}),
        json_answer(200, {"items": [movement(1), movement(2)], "page": 1, "limit": 2, "total": 3}),
        json_answer(200, {"items": [movement(3)], "page": 2, "limit": 2, "total": 3}),
    )
    pix = Client(base_url="http://api.test", token="t", transport=httpx.MockTransport(script))
    pix.balance_transactions.list()
    assert str(script.seen[0].url) == "http://api.test/public-api/v1/balance-transactions"
    # 02:30 UTC is still the evening before in São Paulo (UTC-3).
    evening = datetime(2026, 11, 29, 2, 30, tzinfo=timezone.utc)
    moves = pix.balance_transactions.list_all(type="pix_received", from_=date(2026, 11, 1), to=evening, limit=2)
    assert next(moves).end_to_end_id == "E1"
    assert len(script.seen) == 2
    assert [m.amount for m in moves] == [25.5, 25.5]
    assert [dict(r.url.params) for r in script.seen[1:]] == [
        {"type": "pix_received", "from": "2026-11-01", "to": "2026-11-28", "page": str(n), "limit": "2"} for n in (1, 2)
    ]


def test_a_statement_is_asked_for_by_its_day_in_sao_paulo() -> None:
    script = Script(*[json_answer(200, STATEMENT)] * 4)
    pix = Client(base_url="http://api.test", token="t", transport=httpx.MockTransport(script))
    statement = pix.statements.retrieve("2026-11-28")
    assert (statement.returned_by_med, statement.counts.returned_by_med, statement.time_zone) == (
        12.5,
        1,
        "America/Sao_Paulo",
    )
    pix.statements.retrieve(date(2026, 11, 27))
    pix.statements.retrieve(datetime(2026, 11, 29, 2, 59, 59, tzinfo=timezone.utc))
    pix.statements.retrieve(datetime.fromisoformat("2026-11-29T03:00:00.000+00:00"))
    with pytest.raises(ValueError, match="without a time zone"):
        pix.statements.retrieve(datetime(2026, 11, 29, 12, 0))
    assert [r.url.path for r in script.seen] == [
        "/public-api/v1/statements/2026-11-28",
        "/public-api/v1/statements/2026-11-27",
        "/public-api/v1/statements/2026-11-28",
        "/public-api/v1/statements/2026-11-29",
    ]


async def test_the_async_client_has_the_same_money_calls() -> None:
    script = Script(
        json_answer(200, {**PAYMENT, "status": "approved"}),
        json_answer(200, {"items": [movement(1)], "page": 1, "limit": 100, "total": 1}),
        json_answer(200, STATEMENT),
    )
    async with AsyncClient(base_url="http://api.test", token="t", transport=httpx.MockTransport(script)) as pix:
        await pix.payments.defend_dispute(PAYMENT["id"], "Entregue.")
        moves = [m.type async for m in pix.balance_transactions.list_all(type="pix_received")]
        statement = await pix.statements.retrieve(datetime(2026, 11, 29, 2, 30, tzinfo=timezone.utc))
    assert moves == ["pix_received"]
    assert statement.date == "2026-11-28"
    assert [(r.method, r.url.path) for r in script.seen] == [
        ("POST", f"/public-api/v1/payments/{PAYMENT['id']}/dispute/defense"),
        ("GET", "/public-api/v1/balance-transactions"),
        ("GET", "/public-api/v1/statements/2026-11-28"),
    ]
    assert dict(script.seen[1].url.params) == {"type": "pix_received", "page": "1", "limit": "100"}


def test_the_filter_types_name_every_value_the_api_documents() -> None:
    # The filters are written by hand (the generated models inline their literals); checked against
    # the generated ones, a value the OpenAPI document adds fails here until the filter has it too.
    assert set(get_args(EventType)) == set(get_args(Event.model_fields["type"].annotation))
    assert set(get_args(BalanceTransactionType)) == set(get_args(BalanceTransaction.model_fields["type"].annotation))
