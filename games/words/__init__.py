"""Every sentence the service says about cards, piles and rules, in the players' languages."""
