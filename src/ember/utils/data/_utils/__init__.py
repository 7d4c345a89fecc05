"""The DataLoader's internals: collation (collate.py), fetchers (fetch.py), the worker process
loop (worker.py) and shared-memory transfer of batches (shared.py)."""
