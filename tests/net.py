"""Network helpers of the tests."""

import socket


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port of ``host`` that nothing listens on (at the time of asking)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]
