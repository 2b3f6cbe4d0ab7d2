"""Daily Patience leaderboards: verified results ranked per daily deal."""
