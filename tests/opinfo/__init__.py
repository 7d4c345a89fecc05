"""An OpInfo-like table: each family file lists `OPINFOS`; test_ops.py runs every check on them."""
