"""One HTTP exchange, the same for the sync and the async client: the request, and the answer read
as the API's JSON or raised as its error."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx

from .errors import PixApiError, PixConnectionError

V1 = "/public-api/v1"
Query = Mapping[str, str | int | None]


def build_request(
    http: httpx.Client | httpx.AsyncClient,
    method: str,
    path: str,
    *,
    query: Query | None = None,
    body: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> httpx.Request:
    headers = {} if idempotency_key is None else {"idempotency-key": idempotency_key}
    if body is not None:
        headers["content-type"] = "application/json"
    params = {name: value for name, value in (query or {}).items() if value is not None}
    return http.build_request(
        method,
        V1 + path,
        params=params,
        headers=headers,
        # Sent as the API expects it (Content-Type application/json); None sends no body at all.
        content=None if body is None else json.dumps(body, ensure_ascii=False).encode(),
    )


def connection_error(request: httpx.Request, error: httpx.HTTPError) -> PixConnectionError:
    return PixConnectionError(f"{request.method} {request.url.path}: {error!r}")


def read(response: httpx.Response) -> Any:
    """The JSON of a 2xx; a PixApiError with the API's status and message for anything else."""
    try:
        payload = response.json()
    except ValueError:
        payload = None
    if response.is_success:
        return payload
    message = payload.get("message") if isinstance(payload, dict) else None
    raise PixApiError(response.status_code, message if isinstance(message, str) else response.text)
