"""The WebSocket adapter of the games app, beside ``games.api`` (REST).

``base`` holds what every socket shares (framing, refusals, close codes, fault handling),
``auth`` who is connecting, ``limits`` how often they may send, ``consumers`` the game socket and
``routing`` its routes. The daily socket's consumer belongs to ``leaderboards.consumers``.
"""
