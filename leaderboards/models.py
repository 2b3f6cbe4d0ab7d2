"""Database models of the leaderboards app (none yet)."""
