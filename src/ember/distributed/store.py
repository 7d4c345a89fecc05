"""Key-value stores as PyTorch's: `HashStore` (one process), `FileStore` (processes sharing a
file), `TCPStore` (a server in the master process, clients elsewhere) and `PrefixStore`.

ember's process groups do not need one (MPI's launcher does the rendezvous, NOTE [ranks come
from MPI]); they are here for programs that use a store themselves. Values are bytes (a str is
stored as its UTF-8 bytes); `get` and `wait` wait for a key until the store's timeout, then
raise DistStoreError. Nothing is pickled: the TCP protocol is JSON lines with base64 values.
"""
from __future__ import annotations

import base64
import datetime
import fcntl
import json
import socket
import socketserver
import threading
import time

from ember.distributed.work import DistStoreError

__all__ = ["FileStore", "HashStore", "PrefixStore", "Store", "TCPStore"]

_POLL_SECONDS = 0.01


def _as_bytes(value) -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    raise TypeError(f"store values are str or bytes, got {type(value).__name__}")


def _seconds(timeout) -> float:
    return timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else float(timeout)


class Store:
    """The operations; a subclass provides `_apply(op, key, *args)` over its table."""

    def __init__(self, timeout=datetime.timedelta(seconds=300)):
        self.timeout = timeout if isinstance(timeout, datetime.timedelta) else \
            datetime.timedelta(seconds=timeout)

    def set_timeout(self, timeout) -> None:
        self.timeout = timeout

    def set(self, key: str, value) -> None:
        self._apply("set", key, _as_bytes(value))

    def get(self, key: str) -> bytes:
        self.wait([key])
        return self._apply("get", key)

    def add(self, key: str, amount: int) -> int:
        return self._apply("add", key, int(amount))

    def compare_set(self, key: str, expected_value, desired_value) -> bytes:
        return self._apply("compare_set", key, _as_bytes(expected_value),
                           _as_bytes(desired_value))

    def check(self, keys) -> bool:
        return all(self._apply("has", k) for k in keys)

    def wait(self, keys, timeout=None) -> None:
        deadline = time.monotonic() + _seconds(self.timeout if timeout is None else timeout)
        while not self.check(keys):
            if time.monotonic() > deadline:
                limit = _seconds(self.timeout if timeout is None else timeout)
                raise DistStoreError(f"Timed out after {limit:g} seconds waiting for keys "
                                     f"{list(keys)} in the store")
            time.sleep(_POLL_SECONDS)

    def delete_key(self, key: str) -> bool:
        return self._apply("delete", key)

    def num_keys(self) -> int:
        return self._apply("count", "")


def _apply_to(table: dict, op: str, key: str, *args):
    """One operation on a dict of bytes: the part every store shares."""
    if op == "set":
        table[key] = args[0]
        return None
    if op == "get":
        return table[key]
    if op == "has":
        return key in table
    if op == "add":
        value = int(table.get(key, b"0")) + args[0]
        table[key] = str(value).encode()
        return value
    if op == "compare_set":
        expected, desired = args
        current = table.get(key)
        if (current is None and expected == b"") or current == expected:
            table[key] = desired
            return desired
        return expected if current is None else current
    if op == "delete":
        return table.pop(key, None) is not None
    if op == "count":
        return len(table)
    raise ValueError(f"unknown store operation {op}")


class HashStore(Store):
    """A store in this process's memory (threads share it)."""

    def __init__(self):
        super().__init__()
        self._table = {}
        self._lock = threading.Lock()

    def _apply(self, op, key, *args):
        with self._lock:
            return _apply_to(self._table, op, key, *args)


class FileStore(Store):
    """A store in a file that processes on one machine (or a shared file system) open."""

    def __init__(self, file_name: str, world_size: int = -1):
        super().__init__()
        self.path = file_name
        self.world_size = world_size
        with open(self.path, "a"):
            pass

    def _apply(self, op, key, *args):
        with open(self.path, "r+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            text = f.read()
            table = {k: base64.b64decode(v) for k, v in json.loads(text).items()} if text else {}
            result = _apply_to(table, op, key, *args)
            if op in ("set", "add", "compare_set", "delete"):
                f.seek(0)
                f.truncate()
                json.dump({k: base64.b64encode(v).decode() for k, v in table.items()}, f)
            return result


def _encode(value):
    return {"b": base64.b64encode(value).decode()} if isinstance(value, bytes) else value


def _decode(value):
    return base64.b64decode(value["b"]) if isinstance(value, dict) else value


class _Handler(socketserver.StreamRequestHandler):
    def handle(self):
        for line in self.rfile:
            request = json.loads(line)
            args = [_decode(a) for a in request["args"]]
            try:
                with self.server.lock:
                    reply = {"ok": _encode(_apply_to(self.server.table, request["op"],
                                                     request["key"], *args))}
            except KeyError:
                reply = {"error": f"key {request['key']!r} not found"}
            self.wfile.write((json.dumps(reply) + "\n").encode())


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class TCPStore(Store):
    """The master (`is_master=True`) serves the table on `host_name:port` (port 0: any free
    port, read back from `.port`); every process, the master too, talks to it over TCP."""

    def __init__(self, host_name: str, port: int, world_size=None, is_master: bool = False,
                 timeout=datetime.timedelta(seconds=300), wait_for_workers: bool = True,
                 multi_tenant: bool = False, master_listen_fd=None, use_libuv: bool = True):
        super().__init__(timeout)
        self.host = host_name
        self._server = None
        if is_master:
            self._server = _Server((host_name, port), _Handler)
            self._server.table = {}
            self._server.lock = threading.Lock()
            port = self._server.server_address[1]
            threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.port = port
        self.world_size = world_size
        self._socket = self._connect()
        self._reader = self._socket.makefile("rb")
        self._lock = threading.Lock()

    def _connect(self):
        deadline = time.monotonic() + _seconds(self.timeout)
        while True:
            try:
                return socket.create_connection((self.host, self.port), timeout=_seconds(
                    self.timeout))
            except OSError as error:
                if time.monotonic() > deadline:
                    raise DistStoreError(f"TCPStore: could not connect to {self.host}:"
                                         f"{self.port}: {error}") from None
                time.sleep(0.05)

    def _apply(self, op, key, *args):
        message = json.dumps({"op": op, "key": key, "args": [_encode(a) for a in args]})
        with self._lock:
            self._socket.sendall((message + "\n").encode())
            line = self._reader.readline()
        if not line:
            raise DistStoreError("TCPStore: the server closed the connection")
        reply = json.loads(line)
        if "error" in reply:
            raise DistStoreError(reply["error"])
        return _decode(reply["ok"])


class PrefixStore(Store):
    """`store` with every key prefixed by `prefix + "/"`."""

    def __init__(self, prefix: str, store: Store):
        super().__init__(store.timeout)
        self.prefix = prefix
        self.underlying_store = store

    def _apply(self, op, key, *args):
        if op == "count":
            return self.underlying_store._apply(op, key, *args)
        return self.underlying_store._apply(op, f"{self.prefix}/{key}", *args)
