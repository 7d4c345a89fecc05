"""norms decompositions (filled below)."""
