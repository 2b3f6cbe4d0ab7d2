"""Seeds, the deterministic word stream and the shuffle of docs/deals.md."""

from __future__ import annotations

import hashlib
import hmac
import re
import struct
from collections.abc import Iterator, MutableSequence
from typing import TypeVar

SEED_BYTES = 32
_HEX_SEED = re.compile(r"[0-9a-fA-F]{64}")
_WORDS = struct.Struct(">8I")
T = TypeVar("T")


def words(seed: bytes) -> Iterator[int]:
    """Yield the unsigned 32-bit words of ``SHA-256(seed ‖ uint64_be(i))`` for i = 0, 1, …."""
    block = 0
    while True:
        yield from _WORDS.unpack(hashlib.sha256(seed + block.to_bytes(8, "big")).digest())
        block += 1


class SeededRandom:
    """Draw uniform integers from the word stream of a seed."""

    def __init__(self, seed: bytes) -> None:
        self._words = words(seed)

    def below(self, n: int) -> int:
        """Return a uniform integer in [0, n) by rejection sampling."""
        if not 0 < n <= 2**32:
            raise ValueError(f"below() needs 0 < n <= 2**32, got {n}")
        limit = 2**32 - (2**32 % n)
        for word in self._words:
            if word < limit:
                return word % n
        raise AssertionError("the word stream is endless")  # pragma: no cover


def shuffle(items: MutableSequence[T], seed: bytes) -> MutableSequence[T]:
    """Shuffle ``items`` in place by Fisher–Yates driven by ``seed``, and return them."""
    rng = SeededRandom(seed)
    for i in range(len(items) - 1, 0, -1):
        j = rng.below(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def practice_seed(text: str) -> bytes:
    """Return the seed of a practice deal named by ``text``."""
    return hashlib.sha256(text.encode("utf-8")).digest()


def daily_seed(secret: bytes | str, slug: str, date_iso: str, attempt: int = 0) -> bytes:
    """Return the secret seed of a variant's daily deal (HMAC-SHA256 of ``slug|date|attempt``)."""
    key = secret.encode("utf-8") if isinstance(secret, str) else secret
    message = f"{slug}|{date_iso}|{attempt}".encode()
    return hmac.new(key, message, hashlib.sha256).digest()


def commitment(seed: bytes) -> str:
    """Return the public commitment to a seed: its SHA-256 as lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


def parse_seed(text: str) -> bytes:
    """Return the 32 bytes written as 64 hex digits; raise ``ValueError`` otherwise."""
    if not isinstance(text, str) or not _HEX_SEED.fullmatch(text):
        raise ValueError("a seed is 32 bytes written as 64 hexadecimal digits")
    return bytes.fromhex(text)
