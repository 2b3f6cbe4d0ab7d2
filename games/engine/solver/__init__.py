"""A full-information solver for any rules document: ``solve(state)``.

``passes`` runs the search and says how (its docstring lists the techniques); ``search`` holds
the passes, ``position`` the mutable position they search, ``tables`` the variant's rules laid
out as lookup tables.
"""

from .passes import DEFAULT_NODES, DEFAULT_SECONDS, SolveResult, solve

__all__ = ["DEFAULT_NODES", "DEFAULT_SECONDS", "SolveResult", "solve"]
