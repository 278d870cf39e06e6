"""The Python SDK's player of clients/conformance (its README is the format): every step of
scenario.json as one call of pix_payments, then every case of webhooks.json. It imports whichever
pix_payments is installed (the source tree on PYTHONPATH, or a built wheel), reads the PIX_*
environment variables, prints `ok <step>` per step and exits 1 at the first failure.

    python conformance_runner.py [--async]    # --async: the same scenario through AsyncClient
"""

from __future__ import annotations

import asyncio
import datetime
import inspect
import json
import os
import re
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pix_payments import AsyncClient, Client, PixApiError, WebhookVerificationError, webhooks

AnyClient = Client | AsyncClient
Params = dict[str, Any]


class StepFailed(Exception):
    pass


def snake(params: Params) -> Params:
    """The scenario's camelCase parameter names as this SDK's keyword arguments (webhookUrl -> webhook_url)."""
    return {re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower(): value for name, value in params.items()}


def without(params: Params, *names: str) -> Params:
    return {name: value for name, value in params.items() if name not in names}


def balance_query(params: Params) -> Params:
    """`from` is a Python keyword: the SDK names it from_."""
    return {"from_" if name == "from" else name: value for name, value in snake(params).items()}


def statement_day(params: Params) -> str | datetime.date:
    """`date` as given; `at`, an instant of the API's, as an aware datetime (README: Calls)."""
    if "at" in params:
        return datetime.datetime.fromisoformat(params["at"].replace("Z", "+00:00"))
    return str(params["date"])


CALLS: dict[str, Callable[[AnyClient, Params], Any]] = {
    "payments.create": lambda c, p: c.payments.create(**snake(p)),
    "payments.get": lambda c, p: c.payments.get(p["id"]),
    "payments.list": lambda c, p: c.payments.list(**snake(p)),
    "payments.listAll": lambda c, p: c.payments.list_all(**snake(p)),
    "payments.cancel": lambda c, p: c.payments.cancel(p["id"]),
    "payments.defendDispute": lambda c, p: c.payments.defend_dispute(p["id"], p["text"]),
    "refunds.create": lambda c, p: c.refunds.create(p["paymentId"], **snake(without(p, "paymentId"))),
    "refunds.list": lambda c, p: c.refunds.list(p["paymentId"]),
    "refunds.get": lambda c, p: c.refunds.get(p["paymentId"], p["refundId"]),
    "events.list": lambda c, p: c.events.list(**snake(p)),
    "events.listAll": lambda c, p: c.events.list_all(**snake(p)),
    "events.get": lambda c, p: c.events.get(p["id"]),
    "events.redeliver": lambda c, p: c.events.redeliver(p["id"]),
    "balanceTransactions.list": lambda c, p: c.balance_transactions.list(**balance_query(p)),
    "balanceTransactions.listAll": lambda c, p: c.balance_transactions.list_all(**balance_query(p)),
    "statements.retrieve": lambda c, p: c.statements.retrieve(statement_day(p)),
    "sandbox.pay": lambda c, p: c.sandbox.pay(p["paymentId"], **snake(without(p, "paymentId"))),
    "sandbox.review": lambda c, p: c.sandbox.review(p["paymentId"]),
    "sandbox.clear": lambda c, p: c.sandbox.clear(p["paymentId"]),
    "sandbox.reject": lambda c, p: c.sandbox.reject(p["paymentId"]),
    "sandbox.failNextRefund": lambda c, p: c.sandbox.fail_next_refund(p["paymentId"]),
    "sandbox.med": lambda c, p: c.sandbox.med(p["paymentId"], **snake(without(p, "paymentId"))),
}


def as_json(value: Any) -> Any:
    """A result as the API's JSON (camelCase names), as the scenario compares it."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, list):
        return [as_json(item) for item in value]
    return value


def mismatch(expected: Any, actual: Any, at: str = "$") -> str | None:
    """Why `actual` does not match `expected` (README: Matching), or None when it does."""
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{at}: expected an array, got {json.dumps(actual)}"
        if len(actual) != len(expected):
            return f"{at}: expected {len(expected)} items, got {len(actual)}"
        for i, item in enumerate(expected):
            why = mismatch(item, actual[i], f"{at}.{i}")
            if why:
                return why
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{at}: expected an object, got {json.dumps(actual)}"
        for key, value in expected.items():
            if key not in actual:
                return f"{at}.{key}: absent"
            why = mismatch(value, actual[key], f"{at}.{key}")
            if why:
                return why
        return None
    # bool is an int in Python: a number matches only a number, a boolean only a boolean.
    same_kind = isinstance(expected, bool) == isinstance(actual, bool)
    if same_kind and isinstance(expected, int | float) and isinstance(actual, int | float):
        return None if expected == actual else f"{at}: expected {json.dumps(expected)}, got {json.dumps(actual)}"
    if same_kind and type(expected) is type(actual) and expected == actual:
        return None
    return f"{at}: expected {json.dumps(expected)}, got {json.dumps(actual)}"


MISSING = object()
REFERENCE = re.compile(r"^\$[A-Za-z_]\w*(\.[\w-]+)*$")


def resolve(value: Any, saved: dict[str, Any]) -> Any:
    """Replaces every `$name.path` and `$env.NAME` string in `value` (README: References)."""
    if isinstance(value, list):
        return [resolve(item, saved) for item in value]
    if isinstance(value, dict):
        return {key: resolve(item, saved) for key, item in value.items()}
    if not isinstance(value, str) or not REFERENCE.match(value):
        return value
    name, *path = value[1:].split(".")
    if name == "env":
        found: Any = os.environ.get(path.pop(0), MISSING) if path else MISSING
    elif name in saved:
        found = saved[name]
    else:
        raise StepFailed(f"{value}: nothing saved as {name}")
    for step in path:
        if isinstance(found, list) and step.isdigit() and int(step) < len(found):
            found = found[int(step)]
        elif isinstance(found, dict):
            found = found.get(step, MISSING)
        else:
            found = MISSING
    if found is MISSING:
        raise StepFailed(f"{value}: refers to nothing")
    return found


async def invoke(client: AnyClient, call: str, params: Params) -> Any:
    """One SDK call, awaited when it is a coroutine and drained when it is an iterator."""
    if call not in CALLS:
        raise StepFailed(f"unknown call {call}")
    result = CALLS[call](client, params)
    if inspect.isawaitable(result):
        result = await result
    if isinstance(result, AsyncIterator):
        result = [item async for item in result]
    elif isinstance(result, Iterator):
        result = list(result)
    return as_json(result)


class Player:
    def __init__(self, use_async: bool) -> None:
        self.use_async = use_async
        self.base_url = os.environ["PIX_BASE_URL"]
        self.clients: dict[str, AnyClient] = {}
        self.saved: dict[str, Any] = {}

    def client(self, token: str) -> AnyClient:
        if token not in self.clients:
            kind = AsyncClient if self.use_async else Client
            self.clients[token] = kind(base_url=self.base_url, token=token)
        return self.clients[token]

    async def close(self) -> None:
        for client in self.clients.values():
            if isinstance(client, AsyncClient):
                await client.aclose()
            else:
                client.close()

    async def step(self, step: dict[str, Any]) -> None:
        client = self.client(step.get("token", os.environ["PIX_TOKEN"]))
        params = resolve(step["params"], self.saved)
        if "error" in step:
            try:
                result = await invoke(client, step["call"], params)
            except PixApiError as error:
                why = mismatch(step["error"], {"status": error.status_code, "message": error.message})
                if why:
                    raise StepFailed(f"error {why}") from error
                return
            raise StepFailed(f"expected {step['error']['status']}, got {json.dumps(result)}")
        expected = resolve(step.get("expect"), self.saved)
        poll = step.get("poll")
        deadline = asyncio.get_running_loop().time() + (poll["timeoutMs"] / 1000 if poll else 0)
        result = await invoke(client, step["call"], params)
        why = mismatch(expected, result)
        while why and poll and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(poll["intervalMs"] / 1000)
            result = await invoke(client, step["call"], params)
            why = mismatch(expected, result)
        if why:
            raise StepFailed(why + (f" (after {poll['timeoutMs']} ms)" if poll else ""))
        if "save" in step:
            self.saved[step["save"]] = result


def check_webhook(case: dict[str, Any], secret: str) -> None:
    try:
        event = webhooks.verify(case["body"].encode(), case["headers"], secret, now=case["now"])
    except WebhookVerificationError:
        if case.get("error"):
            return
        raise
    if case.get("error"):
        raise StepFailed(f"verified, but should have been refused: {event!r}")
    why = mismatch(case["expect"], as_json(event))
    if why:
        raise StepFailed(why)


async def main(use_async: bool) -> int:
    folder = Path(os.environ["PIX_CONFORMANCE_DIR"])
    scenario = json.loads((folder / "scenario.json").read_text(encoding="utf-8"))
    hooks = json.loads((folder / "webhooks.json").read_text(encoding="utf-8"))
    player = Player(use_async)
    checks: list[tuple[str, Callable[[], Any]]] = [
        *((step["name"], lambda step=step: player.step(step)) for step in scenario["steps"]),
        *(
            (f"webhook: {case['name']}", lambda case=case: check_webhook(case, hooks["secret"]))
            for case in hooks["cases"]
        ),
    ]
    try:
        for name, check in checks:
            try:
                outcome = check()
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception as error:
                print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)
                return 1
            print(f"ok {name}", flush=True)
    finally:
        await player.close()
    print(f"{len(checks)} passed ({'AsyncClient' if use_async else 'Client'})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main("--async" in sys.argv[1:])))
