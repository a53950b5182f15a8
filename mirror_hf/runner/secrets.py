"""Keeping secrets out of everything the runner writes or prints.

`redact` is applied to every error text before it reaches a record, a log line or a message: it
blanks the known secrets (the API key, the base URL's query values) and, in any URL it finds, the
user:password part and every query value, whatever the library that produced the text quoted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"
# scheme://rest-of-url (up to whitespace or a quote); linear: one pass, no nested quantifiers
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{0,15}://[^\s'\"<>]*")
_USERINFO = re.compile(r"^([^:/?#]*://)[^/?#@]*@")
_QUERY_VALUE = re.compile(r"([?&;][^=&;#]*=)[^&;#]*")


def _clean_url(match: re.Match) -> str:
    url = _USERINFO.sub(lambda m: m[1] + MASK + "@", match[0], count=1)
    return _QUERY_VALUE.sub(lambda m: m[1] + MASK, url)


def redact(text: str | None, secrets: Iterable[str] = ()) -> str | None:
    """`text` with every known secret and every URL credential or query value replaced by `***`."""
    if not text:
        return text
    for secret in sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return _URL.sub(_clean_url, text)
