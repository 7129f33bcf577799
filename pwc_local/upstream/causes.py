"""Why a request to the catalog failed, in one short phrase a person can act on.

httpx reports every failure to connect as `ConnectError` with the OS's own text; the
cause that tells a person what to fix (a name that does not resolve, a refused port,
a certificate that does not verify, a proxy in the way) sits further down the
exception chain (`httpx` -> `httpcore` -> `ssl` / `socket`). `classify` walks that
chain once and returns a `Cause`; it is the only place that does, and it is used by

* `pwc_local.upstream.http` when it turns an httpx exception into a typed catalog
  error (and logs the cause at warning level),
* `pwc_local.server.errors` for the tool error sentence, and
* `pwc_local.doctor` for the catalog check.

A cause's text never carries a query, a paper reference or a response body: only a
fixed phrase, the OS or OpenSSL reason (`self-signed certificate`, `Name or service
not known`) and, for a proxy, the proxy's address without its credentials.
"""

from __future__ import annotations

import errno
import os
import socket
import ssl
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

import httpx

Kind = Literal["dns", "refused", "tls", "proxy", "timeout", "network", "protocol"]
REASON_LIMIT = 120
_CHAIN_LIMIT = 20


@dataclass(frozen=True)
class Cause:
    """`kind` is a stable token for programs; `text` a short phrase for people."""

    kind: Kind
    text: str


def classify(exc: BaseException) -> Cause:
    """The most precise cause found in `exc` and the exceptions it was raised from."""
    return find_cause(exc) or Cause("network", f"network error ({type(exc).__name__})")


def find_cause(exc: BaseException) -> Cause | None:
    """Like `classify`, but `None` when the chain holds no transport failure at all
    (a typed catalog error raised on its own, as tests and fakes do)."""
    chain = list(_chain(exc))
    for item in chain:
        if isinstance(item, ssl.SSLCertVerificationError):
            reason = item.verify_message or item.reason or "the certificate was not accepted"
            return Cause("tls", f"TLS certificate verification failed: {_clean(str(reason))}")
    for item in chain:
        if isinstance(item, ssl.SSLError):
            reason = item.reason or item.strerror or type(item).__name__
            return Cause("tls", f"TLS handshake failed: {_clean(str(reason))}")
    for item in chain:
        if isinstance(item, httpx.ProxyError):
            return Cause("proxy", f"the proxy refused or failed the connection: {_short(item)}")
    for item in chain:
        if isinstance(item, socket.gaierror):
            return Cause("dns", f"the host name does not resolve (DNS: {_short(item)})")
        if isinstance(item, ConnectionRefusedError):
            return Cause("refused", "the connection was refused (nothing listens on that port)")
    for item in chain:
        if isinstance(item, httpx.TimeoutException | TimeoutError):
            phase = _timeout_phase(item)
            return Cause("timeout", f"no answer in time ({phase})")
        if isinstance(item, OSError) and item.errno in (errno.ETIMEDOUT,):
            return Cause("timeout", "no answer in time (connecting)")
    for item in chain:
        if isinstance(item, httpx.UnsupportedProtocol):
            return Cause("protocol", "the URL's scheme is not http or https")
        if isinstance(item, httpx.RemoteProtocolError | httpx.LocalProtocolError):
            return Cause("protocol", f"the server broke the HTTP protocol: {_short(item)}")
    for item in chain:
        if isinstance(item, OSError) and item.strerror:
            return Cause("network", f"network error: {_clean(item.strerror)}")
    for item in chain:
        if isinstance(item, httpx.TransportError):
            return Cause("network", f"network error ({type(item).__name__})")
    return None


def proxy_for(url: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The proxy httpx would use for `url` under the `*_PROXY` / `NO_PROXY` variables,
    shown without credentials; `None` when the request goes direct."""
    env = os.environ if environ is None else environ
    parts = urlsplit(url)
    host = parts.hostname or ""
    proxies = {
        key[: -len("_proxy")].lower(): value
        for key, value in env.items()
        if key.lower().endswith("_proxy") and value
    }
    no_proxy = proxies.pop("no", "")
    if host and no_proxy and _bypassed(host, no_proxy):
        return None
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    return redact(proxy) if proxy else None


def redact(url: str) -> str:
    """`url` without a `user:password@` part."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    netloc = parts.hostname or ""
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _bypassed(host: str, no_proxy: str) -> bool:
    """NO_PROXY matching as curl and httpx read it: `*`, or host names and domain
    suffixes (`example.com` and `.example.com` both cover `api.example.com`)."""
    host = host.lower().strip("[]")
    for entry in no_proxy.lower().split(","):
        entry = entry.strip().lstrip("*").lstrip(".")
        entry = entry.rsplit(":", 1)[0] if entry.count(":") == 1 else entry.strip("[]")
        if entry == "" and "*" in no_proxy:
            return True
        if entry and (host == entry or host.endswith("." + entry)):
            return True
    return False


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < _CHAIN_LIMIT:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _timeout_phase(exc: BaseException) -> str:
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        return "connecting"
    if isinstance(exc, httpx.ReadTimeout):
        return "waiting for the answer"
    if isinstance(exc, httpx.WriteTimeout):
        return "sending the request"
    return "the request's time limit passed"


def _short(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return _clean(exc.strerror)
    return _clean(str(exc)) or type(exc).__name__


def _clean(text: str) -> str:
    """One printable line, without OpenSSL's `(_ssl.c:1000)` source position."""
    text = "".join(char if char.isprintable() else " " for char in text)
    if "(_ssl.c:" in text:
        text = text[: text.index("(_ssl.c:")]
    return " ".join(text.split())[:REASON_LIMIT]
