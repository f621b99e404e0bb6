"""The host names the server answers to (`--allowed-hosts`): a request whose `Host` is not one of them is refused,
so a page on another site that rebinds its own name to this machine's address (DNS rebinding) reaches nothing.

Default: the loopback names and the bind address, each with the served port, and the host of `--base-url`. An entry is `name` (any port) or
`name:port`; IPv6 addresses in brackets (`[::1]:7860`)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
DEFAULT_PORTS = (80, 443)  # a browser leaves these out of Host
_NAME = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$"
                   r"|^\[[0-9a-f:.]+\]$")


def split_host(value: str) -> tuple[str, Optional[int]]:
    """(name, port or None) of a Host value or an entry, lower-cased; ValueError for anything else."""
    value = value.strip().lower()
    name, port = value, None
    if value.startswith("["):
        end = value.find("]")
        name, rest = value[:end + 1], value[end + 1:]
        if end < 0 or rest and not rest.startswith(":"):
            raise ValueError(value)
        port = rest[1:] if rest else None
    elif ":" in value:
        name, port = value.rsplit(":", 1)
    if not _NAME.fullmatch(name) or port is not None and not (port.isdigit() and 0 < int(port) < 65536):
        raise ValueError(value)
    return name, int(port) if port is not None else None


def bracketed(host: str) -> str:
    """An address as it appears in a Host header (IPv6 in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


@dataclass(frozen=True)
class AllowedHosts:
    """(name, port) pairs; port None: that name on any port."""
    entries: frozenset

    @classmethod
    def parse(cls, values: Iterable[str]) -> "AllowedHosts":
        """From `--allowed-hosts` entries (comma-separated strings); ValueError naming the first bad entry."""
        out = set()
        for value in values:
            for part in value.split(","):
                if not part.strip():
                    continue
                try:
                    out.add(split_host(part))
                except ValueError:
                    raise ValueError(f"--allowed-hosts: {part.strip()!r} is not a host name or host:port") from None
        if not out:
            raise ValueError("--allowed-hosts: give at least one host name")
        return cls(frozenset(out))

    @classmethod
    def default(cls, bind: str, port: int, base_url: str = "") -> "AllowedHosts":
        """The loopback names and the bind address, each with `port`, and the host of the public `base_url`
        (`serve --base-url`) with its port, or any port when the URL gives none (a proxy's 80/443)."""
        entries = {(split_host(n)[0], port) for n in (*LOOPBACK_NAMES, bracketed(bind))}
        public = urlsplit(base_url)
        if public.hostname:
            entries.add((split_host(bracketed(public.hostname))[0], public.port))
        return cls(frozenset(entries))

    def allows(self, host: bytes) -> bool:
        """Whether a request's Host header value names this server."""
        try:
            name, port = split_host(host.decode("latin-1"))
        except ValueError:
            return False
        if (name, None) in self.entries or (name, port) in self.entries:
            return True
        return port is None and any((name, p) in self.entries for p in DEFAULT_PORTS)

    def describe(self) -> str:
        return ", ".join(sorted(n if p is None else f"{n}:{p}" for n, p in self.entries))
