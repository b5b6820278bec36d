"""What answers at a `sweep --scheduler` address, found out before Dask is asked to connect.

`distributed.Client` trusts whatever accepts its connection: against an HTTP server it waited past
120 s whatever its `timeout` (the server waits for a request, the client for a handshake), a server
that sent bytes that are not Dask's framing made it allocate "3.07 EiB" (MemoryError), an unknown
scheme failed only after 10 s, and each failed client spent another 20 s in its destructor at exit,
printing a traceback (issue 40). So `probe` speaks the first step of Dask's TCP protocol itself,
with a deadline on everything:

1. the address is parsed: `tcp://host:port` (a bare `host:port` is TCP; the port defaults to
   Dask's 8786); another scheme Dask knows (tls, ws, ucx, inproc) is left to Dask, under the same
   deadline (`connect`); an unknown scheme is refused at once;
2. a TCP connection is opened, and the scheduler's handshake is read: a Dask scheduler sends it as
   soon as it accepts a connection, as one length-prefixed message (an 8-byte length, a frame
   count, the frame lengths, then a msgpack map naming its Python and pickle protocol). Nothing within
   `PROBE_SECONDS`, a length over `HANDSHAKE_BYTES`, framing that does not add up, or a message that
   is not that map: not a Dask scheduler. Nothing from the server is unpickled.

Every refusal is `SchedulerUnreachable` with what was found (the CLI's exit 2, no traceback).

>>> probe("garbage://x")
Traceback (most recent call last):
...
checks.analyses.sweep_scheduler.SchedulerUnreachable: 'garbage://x' is not a Dask scheduler address: unknown scheme 'garbage' (valid: tcp, tls, ws, wss, ucx, inproc)
"""
from __future__ import annotations

import socket
import struct
import threading
import time

from checks.engines.pool import describe

PROBE_SECONDS = 5.0          # connecting and reading the handshake; `connect` gets the rest of the 10 s
CONNECT_SECONDS = 10.0       # the whole wait for a scheduler (docs/sweep.md: exit 2 within 10 s)
HANDSHAKE_BYTES = 64 << 10   # a handshake is about 60 bytes
DEFAULT_PORT = 8786
SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")


class SchedulerUnreachable(Exception):
    """No Dask scheduler answered at the given address (or Dask is not installed)."""


def parse(address: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of a scheduler address; port None for schemes other than tcp.

    >>> parse("tcp://10.0.0.5:8786"), parse("scheduler"), parse("[::1]:9000")
    (('tcp', '10.0.0.5', 8786), ('tcp', 'scheduler', 8786), ('tcp', '::1', 9000))
    """
    scheme, sep, loc = address.rpartition("://")
    scheme = scheme.lower() if sep else "tcp"
    if scheme not in SCHEMES:
        raise SchedulerUnreachable(f"{address!r} is not a Dask scheduler address: unknown scheme {scheme!r} "
                                   f"(valid: {', '.join(SCHEMES)})")
    if scheme != "tcp":
        return scheme, loc, None
    host, port = loc, str(DEFAULT_PORT)
    if loc.startswith("["):
        host, _, tail = loc[1:].partition("]")
        port = tail.removeprefix(":") or port
    elif loc.count(":") == 1:
        host, port = loc.split(":")
    if not host or "/" in host or not port.isdigit() or not 0 < int(port) < 65536:
        raise SchedulerUnreachable(f"{address!r} is not a Dask scheduler address: expected tcp://host:port")
    return scheme, host, int(port)


def probe(address: str, seconds: float = PROBE_SECONDS) -> None:
    """Return once a Dask scheduler's handshake came from `address` within `seconds` (other schemes than
    tcp: once the address parses); else raise SchedulerUnreachable saying what answered."""
    scheme, host, port = parse(address)
    if port is None:
        return
    deadline = time.monotonic() + seconds
    try:
        sock = socket.create_connection((host, port), timeout=seconds)
    except socket.gaierror as err:
        raise SchedulerUnreachable(f"no Dask scheduler at {address}: unknown host {host!r} ({err.strerror})") from None
    except (TimeoutError, socket.timeout):
        raise SchedulerUnreachable(f"no Dask scheduler answered at {address} within {seconds:g} s "
                                   f"(the connection was not accepted)") from None
    except OSError as err:
        raise SchedulerUnreachable(f"no Dask scheduler answered at {address} ({err.strerror or err})") from None
    with sock:
        _handshake(sock, address, deadline, seconds)


def _read(sock, n: int, deadline: float) -> bytes:
    """Exactly `n` bytes, fewer if the peer closed; TimeoutError at the deadline."""
    data = b""
    while len(data) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        try:
            chunk = sock.recv(min(n - len(data), 1 << 16))
        except socket.timeout:
            raise TimeoutError from None
        if not chunk:
            break
        data += chunk
    return data


def _handshake(sock, address: str, deadline: float, seconds: float) -> None:
    not_dask = f"something answers at {address} but it is not a Dask scheduler"
    try:
        head = _read(sock, 8, deadline)
        if len(head) < 8:
            raise SchedulerUnreachable(f"{not_dask}: it closed the connection without a Dask handshake")
        (total,) = struct.unpack("<Q", head)
        if not 16 <= total <= HANDSHAKE_BYTES:
            raise SchedulerUnreachable(f"{not_dask}: its first message does not have Dask's framing")
        body = _read(sock, total, deadline)
    except TimeoutError:
        raise SchedulerUnreachable(f"{not_dask} (no Dask handshake within {seconds:g} s; an HTTP server such as "
                                   f"the dashboard, whose port is 8787, waits for a request)") from None
    except OSError as err:
        raise SchedulerUnreachable(f"no Dask scheduler answered at {address} ({err.strerror or err})") from None
    if len(body) < total or not _is_handshake(body):
        raise SchedulerUnreachable(f"{not_dask}: its first message is not a Dask handshake")


def _is_handshake(body: bytes) -> bool:
    """Dask's frames: a count, the lengths, the frames; the handshake is one msgpack map with the peer's
    Python version and pickle protocol."""
    (n,) = struct.unpack_from("<Q", body)
    if not 1 <= n <= 16 or len(body) < 8 * (1 + n):
        return False
    lengths = struct.unpack_from(f"<{n}Q", body, 8)
    if 8 * (1 + n) + sum(lengths) != len(body):
        return False
    try:
        import msgpack
        msg = msgpack.unpackb(body[8 * (1 + n):8 * (1 + n) + lengths[0]], raw=False, strict_map_key=False,
                              use_list=True)
    except Exception:  # noqa: BLE001 - whatever the bytes were, they were not a handshake
        return False
    return isinstance(msg, dict) and "python" in msg and "pickle-protocol" in msg


def connect(address, seconds: float = CONNECT_SECONDS):
    """A `distributed.Client` on `address` (a scheduler address, probed first, or a cluster object),
    within `seconds` in all; SchedulerUnreachable otherwise."""
    try:
        from distributed import Client
    except ImportError:
        raise SchedulerUnreachable("Dask is not installed: pip install 'dune-rulecheck[sweep]'") from None
    t0 = time.monotonic()
    if isinstance(address, str):
        probe(address, min(PROBE_SECONDS, seconds))
    left = max(0.5, seconds - (time.monotonic() - t0))
    box: dict = {}

    def attempt():
        try:
            box["client"] = _quiet(Client)(address, timeout=f"{left:.1f}s", set_as_default=False)
        except BaseException as err:  # noqa: BLE001 - reported as the scheduler's failure, never raised raw
            box["error"] = err

    worker = threading.Thread(target=attempt, name="rulecheck-dask-connect", daemon=True)
    worker.start()
    worker.join(left + 1.0)
    if "client" in box:
        return box["client"]
    why = describe(box["error"]) if "error" in box else f"no connection within {seconds:g} s"
    raise SchedulerUnreachable(f"no Dask scheduler answered at {address} ({why})")


def _quiet(client_class):
    """`Client` whose destructor does nothing when it never connected: a failed client's destructor
    otherwise waits 20 s for a close that cannot happen and prints a traceback at exit."""
    class QuietClient(client_class):
        def __del__(self):
            if getattr(self, "status", None) == "running":
                super().__del__()
    return QuietClient
