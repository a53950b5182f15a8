"""Checking a run's options before anything is sent or written: every number in its range, the base
URL an http(s) URL without credentials, a proxy from the environment one the runner can use,
`--extra-body` free of protocol fields.

One place for these rules, so the CLI, `quickstart` and library callers of `runner.run` refuse the
same inputs with the same one-line message (naming the flag), and a refused run leaves no file.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from mirror_hf.errors import MirrorValueError

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class OptionError(MirrorValueError):
    """An option outside its range (the message names the flag and the value)."""


def finite(name: str, value: object, *, low: float | None = None, high: float | None = None,
           low_open: bool = False, optional: bool = True) -> None:
    """`value` is a finite number in [low, high] (or (low, high] with `low_open`); None passes if optional."""
    if value is None:
        if optional:
            return
        raise OptionError(f"{name} is required")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise OptionError(f"{name} must be a finite number, got {value!r}")
    if low is not None and (value <= low if low_open else value < low):
        raise OptionError(f"{name} must be {'>' if low_open else '>='} {low:g}, got {value!r}")
    if high is not None and value > high:
        raise OptionError(f"{name} must be <= {high:g}, got {value!r}")


def integer(name: str, value: object, *, low: int | None = None, high: int = INT64_MAX, optional: bool = True) -> None:
    """`value` is an integer in [low, high] (int64 by default: parquet and providers store 64 bits)."""
    if value is None:
        if optional:
            return
        raise OptionError(f"{name} is required")
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(f"{name} must be an integer, got {value!r}")
    low = INT64_MIN if low is None else low
    if value < low:
        raise OptionError(f"{name} must be at least {low}, got {value}")
    if value > high:
        raise OptionError(f"{name} must be at most {high}, got {value}")


def check_base_url(url: str) -> tuple[str, dict[str, str]]:
    """The base URL split into what the client is given (scheme, host, port, path) and its query
    parameters (sent as default query, e.g. `api-version`; their values are treated as secrets).
    Credentials in the URL are refused: they would travel into error texts and records."""
    shown = _shape(url)
    try:
        parts = urlsplit(url)
        port = parts.port  # raises on a non-numeric port
    except ValueError:
        raise OptionError(f"--base-url {shown} is not a valid URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise OptionError(f"--base-url {shown} is not an http(s) URL with a host (e.g. http://localhost:8000/v1)")
    if parts.username is not None or parts.password is not None:
        raise OptionError(
            f"--base-url {shown} carries credentials (user:password@); pass the key through the environment "
            "variable named by --api-key-env instead (it is never written anywhere)"
        )
    if parts.fragment:
        raise OptionError(f"--base-url {shown} has a #fragment; remove it")
    if port is None and parts.netloc.rsplit("@", 1)[-1].endswith(":"):  # "host:" — a port left out, not port 80
        raise OptionError(f"--base-url {shown} has ':' but no port after it (e.g. http://localhost:8000/v1)")
    netloc = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc += f":{port}" if port else ""
    clean = f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"
    return clean, dict(parse_qsl(parts.query, keep_blank_values=True))


def _shape(url: str) -> str:
    """A URL as it may be shown in a message: no userinfo, no query values, at most 120 characters."""
    from mirror_hf.runner.secrets import redact

    return repr((redact(url) or "")[:120])


def check_extra_body(extra: object) -> dict[str, Any]:
    """`--extra-body` is a JSON object of provider fields that leaves the protocol's fields alone."""
    from mirror_hf.runner.request import PROTOCOL_FIELDS

    if not isinstance(extra, dict):
        raise OptionError(f"--extra-body must be a JSON object, got {type(extra).__name__}")
    clash = sorted(k for k in extra if k in PROTOCOL_FIELDS)
    if clash:
        raise OptionError(
            f"--extra-body may not set {', '.join(clash)}: the protocol sets these (use --temperature, --seed, "
            "--max-tokens for those); provider-specific fields only"
        )
    return extra


def env_proxy(url: str) -> str | None:
    """The proxy requests to `url` go through, from the environment (HTTPS_PROXY / HTTP_PROXY /
    ALL_PROXY, unless NO_PROXY names the host), as the openai SDK's httpx honoured them; looked up
    once per run (aiohttp's `trust_env` did it, and read ~/.netrc, in a thread on every request).
    Only an http(s) proxy can carry the requests: another scheme (socks5://...) is refused here,
    before anything is sent, naming the variable but not its value (it may hold credentials)."""
    from urllib.request import getproxies, proxy_bypass

    parts = urlsplit(url)
    proxies = getproxies()
    scheme = parts.scheme if proxies.get(parts.scheme) else "all"
    proxy = proxies.get(scheme)
    if not proxy or proxy_bypass(parts.hostname or ""):
        return None
    if urlsplit(proxy).scheme not in ("http", "https"):
        raise OptionError(
            f"the {scheme.upper()}_PROXY environment variable names a {urlsplit(proxy).scheme or 'schemeless'} proxy; "
            "the runner sends through http(s) proxies only: unset it, set an http proxy, or add the host to NO_PROXY"
        )
    return proxy
