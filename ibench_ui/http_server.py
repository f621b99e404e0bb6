"""uvicorn with a deadline for a request's headers: uvicorn closes an idle kept-alive connection but waits for
ever on one that opens and sends nothing, or its headers a byte at a time. The body's deadline is
ibench_ui.http_policy's (it runs where the body is read)."""
from __future__ import annotations

import asyncio
from typing import Optional

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEADER_TIMEOUT = 10.0  # seconds from a connection's first byte (or its opening) to the end of a request's headers
KEEP_ALIVE = 5  # seconds an idle connection stays open between requests (uvicorn's default, stated)


class DeadlineHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol that closes a connection whose request headers take over `header_timeout`."""
    header_timeout = HEADER_TIMEOUT
    _header_timer: Optional[asyncio.TimerHandle] = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._header_timer is None:  # a later request on a kept-alive connection (the first is armed above)
            self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout, self._expired)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _expired(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()


def run(app, host: str, port: int) -> None:
    """Serve `app` until stopped, with the header deadline and without uvicorn's Server header."""
    import uvicorn
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=3, http=DeadlineHttpTools,
                timeout_keep_alive=KEEP_ALIVE, server_header=False)
