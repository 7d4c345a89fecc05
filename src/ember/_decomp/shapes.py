"""shapes decompositions (filled below)."""
