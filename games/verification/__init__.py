"""Verification of finished games: the seals, a daily game's proof, the public re-verifier.

``figures`` and ``reverify`` import only the standard library and the engine (no Django), so the
re-verifier runs from a plain checkout; this package's ``__init__`` imports nothing for that
reason.
"""
