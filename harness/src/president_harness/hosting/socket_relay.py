"""A jail's only way out: `SocketRelay`, a Unix socket whose connections are relayed to the server's gRPC target.

The host gives each jail its own socket (`relay_to`); inside a jail whose runtime cannot dial a Unix socket
(`Sandbox.loopback`) the same relay listens on the jail's loopback instead, towards that socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import TracebackType

CONNECT_S = 10.0
"""How long the relay waits for the server to take a connection."""


class SocketRelay:
    """A jail's only way out: a Unix socket (given to the jail's user alone) whose connections are relayed to
    the server's gRPC `target` (``unix:PATH`` or ``HOST:PORT``), at most `max_connections` at once.  Inside a jail
    (`Sandbox.loopback`) the same relay listens on a `port` of the jail's own loopback instead, towards the jail's
    socket."""

    def __init__(self, target: str, path: Path, uid: int, max_connections: int = 16, *,
                 port: int | None = None) -> None:
        self.path = path
        self.uid = uid
        self.port = port
        self.max_connections = max_connections
        self._connect = _connector(target)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"relay-{uid}", daemon=True)
        self._connections: set[asyncio.Task[None]] = set()
        self._pumps: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None

    def __enter__(self) -> SocketRelay:
        if self.port is not None:
            self._server = self._loop.run_until_complete(asyncio.start_server(self._relay, "127.0.0.1", self.port))
        else:
            self._server = self._loop.run_until_complete(asyncio.start_unix_server(self._relay, path=str(self.path)))
            os.chmod(self.path, 0o600)
            if os.geteuid() == 0:
                os.chown(self.path, self.uid, self.uid)
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 trace: TracebackType | None) -> None:
        asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
        if self.port is None:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()

    async def _close(self) -> None:
        """Stop listening and end every relayed connection (each connection's task then ends by itself)."""
        assert self._server is not None
        self._server.close()
        for pump in self._pumps:
            pump.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if len(self._connections) >= self.max_connections:
            writer.close()
            return
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            far_reader, far_writer = await asyncio.wait_for(self._connect(), CONNECT_S)
        except (OSError, TimeoutError):
            writer.close()
            self._connections.discard(task)
            return
        pumps = {asyncio.create_task(_pump(reader, far_writer)), asyncio.create_task(_pump(far_reader, writer))}
        self._pumps |= pumps
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for pump in pumps:
            pump.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)
        self._pumps -= pumps
        far_writer.close()
        writer.close()
        self._connections.discard(task)


def _connector(target: str) -> Callable[[], Awaitable[tuple[asyncio.StreamReader, asyncio.StreamWriter]]]:
    if target.startswith("unix:"):
        path = target.removeprefix("unix:")
        path = "/" + path.lstrip("/") if path.startswith("//") else path
        return lambda: asyncio.open_unix_connection(path)
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"{target!r}: give the server as unix:PATH or HOST:PORT")
    return lambda: asyncio.open_connection(host.strip("[]"), int(port))


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()


@contextlib.contextmanager
def relay_to(target: str, uid: int) -> Iterator[Path]:
    """A relay's socket in a private folder for one jail, removed at the end."""
    with tempfile.TemporaryDirectory(prefix="president-relay-") as folder, \
            SocketRelay(target, Path(folder) / "president.sock", uid) as relay:
        yield relay.path
