"""losses decompositions (filled below)."""
