"""Vampires vs Werewolves ("Twilight"): rules, players, client session and referee."""
