"""How creates and refunds retry (a unit test: the failures are the point, and a real gateway does
not fail on demand). Every try carries the same Idempotency-Key, so the API makes one payment."""

from __future__ import annotations

import re

import httpx
import pytest
from conftest import PAYMENT, Script, json_answer, network_error, timeout

from pix_payments import Client, PixApiError, PixConnectionError, RetryPolicy

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
REFUND = {
    "id": "5b0c9a8e-7d6f-4e5d-8c4b-3a2f1e0d9c8b",
    "paymentId": PAYMENT["id"],
    "livemode": False,
    "endToEndId": "E00000000202611261000abcdef012345",
    "amount": 10.0,
    "status": "pending",
    "reason": None,
    "origin": "merchant",
    "nature": None,
    "createdAt": "2026-11-26T10:00:00.000Z",
    "settledAt": None,
    "failureReason": None,
}


def client(script: Script) -> Client:
    return Client(base_url="http://api.test/", token="pxt_t", transport=httpx.MockTransport(script))


def test_retries_network_errors_timeouts_and_5xx_with_the_same_key(no_sleep: list[float]) -> None:
    script = Script(
        network_error,
        json_answer(503, {"statusCode": 503, "message": "Serviço temporariamente indisponível."}),
        timeout,
        json_answer(200, PAYMENT),
    )
    payment = client(script).payments.create(amount=25.5, email="cliente@example.com")
    assert payment.id == PAYMENT["id"]
    assert payment.store_id == PAYMENT["storeId"]
    assert len(script.seen) == 4
    assert str(script.seen[0].url) == "http://api.test/public-api/v1/payments"
    keys = script.keys()
    assert keys[0] is not None and UUID4.match(keys[0])
    assert set(keys) == {keys[0]}
    assert script.bodies() == [{"amount": 25.5, "email": "cliente@example.com"}] * 4
    # 250 ms doubling, ±20 %: three waits before the three retries.
    assert len(no_sleep) == 3
    for wait, base in zip(no_sleep, [0.25, 0.5, 1.0], strict=True):
        assert base * 0.8 <= wait <= base * 1.2


def test_never_retries_a_4xx_and_a_new_create_gets_a_new_key(no_sleep: list[float]) -> None:
    script = Script(
        json_answer(409, {"statusCode": 409, "message": "Idempotency-Key já utilizada com outro corpo de requisição."}),
        json_answer(400, {"statusCode": 400, "message": "email must be an email"}),
    )
    pix = client(script)
    with pytest.raises(PixApiError) as conflict:
        pix.payments.create(amount=10, idempotency_key="order-42")
    assert conflict.value.status_code == 409
    assert conflict.value.message == "Idempotency-Key já utilizada com outro corpo de requisição."
    with pytest.raises(PixApiError) as refused:
        pix.payments.create(amount=10, email="x")
    assert refused.value.status_code == 400
    first, second = script.keys()
    assert first == "order-42"
    assert second is not None and UUID4.match(second)
    assert no_sleep == []


def test_gives_up_after_three_retries_with_the_last_error(no_sleep: list[float]) -> None:
    script = Script(network_error, network_error, network_error, network_error)
    with pytest.raises(PixConnectionError):
        client(script).payments.create(amount=10)
    assert len(script.seen) == 4
    assert len(no_sleep) == 3


def test_refunds_retry_with_their_key_too(no_sleep: list[float]) -> None:
    script = Script(json_answer(500, {"statusCode": 500, "message": "Erro interno."}), json_answer(200, REFUND))
    refund = client(script).refunds.create(PAYMENT["id"], amount=10, idempotency_key="rf-1")
    assert refund.amount == 10
    assert script.keys() == ["rf-1", "rf-1"]
    assert script.bodies() == [{"amount": 10}, {"amount": 10}]
    assert str(script.seen[0].url) == f"http://api.test/public-api/v1/payments/{PAYMENT['id']}/refunds"


def test_does_not_retry_reads_or_cancel(no_sleep: list[float]) -> None:
    script = Script(
        json_answer(503, {"statusCode": 503, "message": "down"}),
        network_error,
    )
    pix = client(script)
    with pytest.raises(PixApiError) as down:
        pix.payments.get(PAYMENT["id"])
    assert (down.value.status_code, down.value.message) == (503, "down")
    with pytest.raises(PixConnectionError):
        pix.payments.cancel(PAYMENT["id"])
    assert len(script.seen) == 2
    assert script.keys() == [None, None]


def test_retries_can_be_turned_off(no_sleep: list[float]) -> None:
    script = Script(network_error)
    pix = Client(
        base_url="http://api.test", token="t", retry=RetryPolicy(retries=0), transport=httpx.MockTransport(script)
    )
    with pytest.raises(PixConnectionError):
        pix.payments.create(amount=10)
    assert len(script.seen) == 1


def test_the_waits_double_up_to_four_seconds_with_jitter() -> None:
    for _ in range(200):
        waits = list(RetryPolicy(retries=6).delays())
        for wait, base in zip(waits, [0.25, 0.5, 1.0, 2.0, 4.0, 4.0], strict=True):
            assert base * 0.8 <= wait <= base * 1.2
