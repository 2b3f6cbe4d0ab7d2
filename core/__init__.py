"""Infrastructure both apps share: the Redis client, rate limits, checks of untrusted text.

Nothing here imports ``games`` or ``leaderboards``.
"""
