"""The cyclic garbage collector of a server process (docs/scaling.md, "Where the slowest moves
waited").

A worker's heap is large and long-lived (Django, DRF, Channels, the URL resolvers, the compiled
rules, the cached positions), and Python's collector scans all of it on each collection of its
oldest generation, holding the interpreter lock: in the load benchmark those took 50–100 ms
each, about nine times in 30 s per worker, and every socket of the worker waited meanwhile (the
slowest moves came in bursts at those moments). So once the application is loaded, each worker

- freezes what it has allocated so far (``gc.freeze()``): the collector never scans it again;
  it is the code and configuration of the process, which live as long as it does;
- raises the threshold of the youngest generation from Python's 700 to ``GC_THRESHOLD``
  (default 10,000): full collections come about fourteen times less often. The older
  generations' thresholds stay Python's.

Nothing stops being collected: cycles made after start-up are found as before, only in fewer,
larger batches of young objects.
"""

from __future__ import annotations

import gc

from django.conf import settings


def tune_collector() -> None:
    """Freeze the start-up heap and set the youngest generation's threshold from settings."""
    gc.collect()
    if settings.GC_FREEZE:
        gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(settings.GC_THRESHOLD, older, oldest)
