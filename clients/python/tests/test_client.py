"""What the clients send and how they read answers, against scripted answers (the live API is the
conformance scenario's, in tests/sdk/python.test.ts)."""

from __future__ import annotations

import httpx
import pytest
from conftest import PAYMENT, Script, json_answer

from pix_payments import AsyncClient, Client, PixApiError


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
