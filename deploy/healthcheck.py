"""Exit 0 when ``GET <url>`` answers 200, else 1: the web container's health check.

Standard library only (the image has no curl). The request names the first usable host of
``ALLOWED_HOSTS`` as its ``Host``, so Django accepts it whatever the public name is; redirects
are not followed (``/healthz`` is exempt from the HTTPS redirect).

    python deploy/healthcheck.py http://127.0.0.1:8000/healthz
"""

from __future__ import annotations

import http.client
import os
import sys
import urllib.parse

TIMEOUT_SECONDS = 4.0


def host_header(allowed_hosts: str) -> str:
    """Return a ``Host`` that ``ALLOWED_HOSTS`` accepts (``localhost`` for ``*`` or none)."""
    for entry in allowed_hosts.split(","):
        name = entry.strip().lstrip(".")
        if name and name != "*":
            return name
    return "localhost"


def probe(url: str, allowed_hosts: str) -> tuple[bool, str]:
    """Request ``url``; return whether it answered 200, and what happened."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        return False, f"not an http:// URL: {url!r}"
    connection = http.client.HTTPConnection(
        parts.hostname, parts.port or 80, timeout=TIMEOUT_SECONDS
    )
    try:
        connection.request("GET", parts.path or "/", headers={"Host": host_header(allowed_hosts)})
        answer = connection.getresponse()
        body = answer.read(2000).decode("utf-8", "replace")
    except OSError as error:
        return False, f"{type(error).__name__}: {error}"
    finally:
        connection.close()
    return answer.status == 200, f"{answer.status} {body.strip()}"


def main(argv: list[str]) -> int:
    """Probe the URL given as the only argument."""
    if len(argv) != 2:
        print("usage: healthcheck.py http://HOST:PORT/PATH", file=sys.stderr)
        return 2
    healthy, report = probe(argv[1], os.environ.get("ALLOWED_HOSTS", ""))
    print(report)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
