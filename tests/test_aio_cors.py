"""CORS on `acp_core.aio.asgi_app`, over a real socket (uvicorn on 127.0.0.1): off by default
(a page of another origin can read nothing: no `Access-Control-*` header, no preflight), and
on for exactly the origins the host names, preflight answered before `authorize`, answers and
SSE streams carrying the origin and exposing the `Acp-*` headers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from test_aio_http import JSON, SSE, WAIT, EchoAgent, _initialize, _uvicorn

from acp_core import errors
from acp_core.aio import asgi_app, bearer_token

pytestmark = pytest.mark.anyio
PAGE = "https://app.example"
OTHER = "https://evil.example"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _served(**options: Any) -> Iterator[str]:
    yield from _uvicorn(asgi_app(EchoAgent, **options))


@pytest.fixture
def closed_url() -> Iterator[str]:
    yield from _served()


@pytest.fixture
def open_url() -> Iterator[str]:
    yield from _served(cors_origins=(PAGE,), authorize=bearer_token("t0ken"))


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=WAIT) as client:
        yield client


def _cors(response: httpx.Response) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k.lower().startswith("access-control")}


_PREFLIGHT = {
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization",
}


async def test_cors_is_off_unless_the_host_turns_it_on(
    closed_url: str, client: httpx.AsyncClient
) -> None:
    preflight = await client.options(closed_url, headers={"Origin": PAGE, **_PREFLIGHT})
    assert preflight.status_code != 204
    assert _cors(preflight) == {}
    answer, connection = await _initialize(client, closed_url)
    assert answer.status_code == 200
    assert connection
    page = await client.post(
        closed_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "x"},
        headers={**JSON, "Origin": PAGE},
    )
    assert _cors(page) == {}


async def test_an_allowed_origin_gets_its_preflight_answers_and_streams(
    open_url: str, client: httpx.AsyncClient
) -> None:
    preflight = await client.options(open_url, headers={"Origin": PAGE, **_PREFLIGHT})
    assert preflight.status_code == 204  # before `authorize`: a preflight has no credentials
    cors = _cors(preflight)
    assert cors["access-control-allow-origin"] == PAGE
    assert "authorization" in cors["access-control-allow-headers"]
    assert "POST" in cors["access-control-allow-methods"]
    auth = {"Authorization": "Bearer t0ken", "Origin": PAGE}
    message = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": 2, "info": {"name": "page", "version": "1"}},
    }
    answer = await client.post(open_url, json=message, headers={**JSON, **auth})
    assert answer.status_code == 200
    assert _cors(answer)["access-control-allow-origin"] == PAGE
    assert "acp-connection-id" in _cors(answer)["access-control-expose-headers"]
    connection = answer.headers["acp-connection-id"]
    headers = {**SSE, **auth, "Acp-Connection-Id": connection}
    async with client.stream("GET", open_url, headers=headers) as stream:
        assert stream.status_code == 200
        assert _cors(stream)["access-control-allow-origin"] == PAGE


async def test_another_origin_and_a_missing_token_get_nothing(
    open_url: str, client: httpx.AsyncClient
) -> None:
    preflight = await client.options(open_url, headers={"Origin": OTHER, **_PREFLIGHT})
    assert preflight.status_code != 204
    assert _cors(preflight) == {}
    # An allowed page without the token is still refused by `authorize`.
    refused = await client.post(
        open_url,
        json={"jsonrpc": "2.0", "id": 0, "method": "initialize"},
        headers={**JSON, "Origin": PAGE},
    )
    assert refused.status_code == 401
    assert "acp-connection-id" not in refused.headers


def test_cors_origins_must_be_a_tuple_of_strings() -> None:
    with pytest.raises(errors.ArgumentError):
        asgi_app(EchoAgent, cors_origins=PAGE)  # type: ignore[arg-type]
