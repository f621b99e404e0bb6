"""uvicorn with read deadlines: uvicorn closes an idle kept-alive connection but otherwise waits for ever on a
client that opens a connection and sends nothing, sends its headers a byte at a time, or declares a body and
never sends it. Here a request's headers must arrive within HEADER_TIMEOUT and its body within BODY_TIMEOUT;
the deadlines are timers on the connection, so a request that arrives whole costs nothing per request."""
from __future__ import annotations

import asyncio
from typing import Optional

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEADER_TIMEOUT = 10.0  # seconds from a connection's opening (or a request's first byte) to the end of its headers
BODY_TIMEOUT = 60.0  # seconds from the end of the headers to the end of the body: 12 MB over a 2 Mbit/s uplink
KEEP_ALIVE = 5  # seconds an idle connection stays open between requests (uvicorn's default, stated)
TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain\r\ncontent-length: 33\r\nconnection: close\r\n" \
            b"x-content-type-options: nosniff\r\n\r\nThe request came in too slowly.\r\n"


class DeadlineHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol that ends a connection whose request headers take over `header_timeout`, or
    whose body takes over `body_timeout` (with a 408 when no response has started)."""
    header_timeout = HEADER_TIMEOUT
    body_timeout = BODY_TIMEOUT
    _timer: Optional[asyncio.TimerHandle] = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._timer is None:  # a later request on a kept-alive connection (the first is armed above)
            self._arm(self.header_timeout)

    def on_headers_complete(self) -> None:
        self._arm(self.body_timeout)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(TIMED_OUT)
        self.transport.close()


def run(app, host: str, port: int) -> None:
    """Serve `app` until stopped, with the read deadlines and without uvicorn's Server header."""
    import uvicorn
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=3, http=DeadlineHttpTools,
                timeout_keep_alive=KEEP_ALIVE, server_header=False)
