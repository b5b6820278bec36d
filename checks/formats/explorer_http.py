"""The explorer over HTTP: the standard library's threading HTTP server, on the loopback interface only.

NOTE(explorer-http): the server answers only requests meant for it. It binds 127.0.0.1 (never a
public interface); a request whose `Host` is not `127.0.0.1:PORT` or `localhost:PORT` is refused
(a web page that rebinds its own domain name to 127.0.0.1 reaches the socket, but not with our
Host), as is one whose `Origin` is another site or whose `Sec-Fetch-Site` says cross-site (another
page in the same browser may send requests, never with our Origin). A POST must say
`application/json` (a plain HTML form elsewhere cannot), give its length and stay under
`MAX_BODY`. Every answer is JSON with an `error` message for a refusal (4xx) and never a traceback;
a bug in the explorer answers 500 with the exception's name, and its traceback goes to the
server's log. The page (checks/formats/explorer_page.py) loads its script and stylesheet from this
server only, and its Content-Security-Policy forbids the page any other connection.

>>> server = ExplorerServer(None, {}, port=0)
>>> server.server_address[0], sorted(server.hosts)[0].startswith("127.0.0.1:")
('127.0.0.1', True)
>>> server.server_close()
"""
from __future__ import annotations

import json
import sys
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from checks.formats.explorer_requests import ApiError
from checks.interrupt import Interrupted

LOOPBACK = "127.0.0.1"
_REFUSED = object()  # a body refused and answered already
MAX_BODY = 2 * 1024 * 1024  # a path of 10,000 labels fits; nothing the page sends comes near it
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
COMMON = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
          "Cross-Origin-Resource-Policy": "same-origin", "X-Frame-Options": "DENY"}


class ExplorerServer(ThreadingHTTPServer):
    """The explorer `app` (checks/formats/explorer_api.py `Explorer`) and the page's `files`
    ({path: (content type, bytes)}) served on 127.0.0.1:`port` (0: any free port)."""

    daemon_threads = True

    def __init__(self, app, files: dict, port: int = 0, log=None):
        super().__init__((LOOPBACK, port), Handler)
        self.app, self.files, self.log = app, files, log
        self.hosts = {f"{LOOPBACK}:{self.server_port}", f"localhost:{self.server_port}"}
        self.origins = {f"http://{h}" for h in self.hosts}

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.server_port}/"

    def handle_error(self, request, client_address) -> None:
        """A request's failure is printed and the server goes on, but Ctrl-C is not a request's failure: the
        signal's Interrupted, raised in the main thread while it starts a request's thread (`Thread.start`
        waits on an Event), was printed as one and swallowed, and the server then ran on past Ctrl-C."""
        exc = sys.exc_info()[1]
        if isinstance(exc, Interrupted):
            self.shutdown_request(request)
            raise exc
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    server: ExplorerServer  # the server that made this handler (socketserver passes itself)
    server_version = "rulecheck-explorer"
    sys_version = ""
    timeout = 30  # a client that stops sending is dropped, not waited for

    def version_string(self) -> str:
        return self.server_version

    def log_message(self, fmt, *args):  # quiet unless the server was given a log
        if self.server.log is not None:
            self.server.log(f"{self.address_string()} {fmt % args}")

    # -- answers ----------------------------------------------------------------------------------

    def _send(self, status: int, body: bytes, ctype: str, extra: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (COMMON | (extra or {})).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, doc: dict) -> None:
        self._send(status, json.dumps(doc).encode("utf-8"), "application/json; charset=utf-8")

    def send_error(self, code, message=None, explain=None):
        """Every refusal, the server's own included (bad request line, unknown method), as JSON."""
        code = 405 if code == 501 else code  # an unknown method: not allowed here
        self.close_connection = True
        try:
            self._json(code, {"error": message or self.responses.get(code, ("error",))[0]})
        except OSError:
            pass  # the client has gone

    # -- who may ask ------------------------------------------------------------------------------

    def _refused(self) -> str:
        host = (self.headers.get("Host") or "").strip().lower()
        if host not in self.server.hosts:
            return (f"refused: the Host header {json.dumps(host[:100])} is not this explorer's address "
                    f"({self.server.url.rstrip('/')}); it answers only requests meant for it")
        origin = self.headers.get("Origin")
        if origin is not None and origin.strip().lower() not in self.server.origins:
            return f"refused: a request from another origin ({json.dumps(origin[:100])})"
        if (self.headers.get("Sec-Fetch-Site") or "").lower() == "cross-site":
            return "refused: a cross-site request"
        return ""

    def _route(self) -> str | None:
        why = self._refused()
        if why:
            self._json(403, {"error": why})
            return None
        return self.path.split("?", 1)[0].split("#", 1)[0]

    # -- methods ----------------------------------------------------------------------------------

    def do_GET(self):
        route = self._route()
        if route is None:
            return
        if route in self.server.files:
            ctype, body = self.server.files[route]
            self._send(200, body, ctype, {"Content-Security-Policy": CSP} if ctype.startswith("text/html") else None)
        elif route == "/api/meta":
            self._answer(route, {})
        else:
            self._json(404, {"error": f"nothing at {json.dumps(route[:200])}"})

    do_HEAD = do_GET

    def do_POST(self):
        route = self._route()
        if route is None:
            return
        body = self._body()
        if body is not _REFUSED:
            self._answer(route, body)

    def _not_allowed(self):
        if self._route() is not None:
            self._json(405, {"error": f"{self.command} is not allowed; the explorer answers GET and POST"})

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed

    def _body(self):
        """The request's JSON document (any JSON value, `null` included), or _REFUSED after refusing it."""
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            self.send_error(415, f"expected Content-Type: application/json; found {json.dumps(ctype[:80])}")
            return _REFUSED
        if self.headers.get("Transfer-Encoding"):
            self.send_error(411, "send the body with a Content-Length, not chunked")
            return _REFUSED
        try:
            n = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self.send_error(411, "a request body needs a Content-Length")
            return _REFUSED
        if n < 0 or n > MAX_BODY:
            self.send_error(413, f"the body is {n:,} bytes; at most {MAX_BODY:,} are read")
            return _REFUSED
        raw = self.rfile.read(n)
        try:
            return json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        except (UnicodeDecodeError, ValueError, RecursionError) as err:
            self.send_error(400, f"the body is not JSON: {str(err)[:200]}")
            return _REFUSED

    def _answer(self, route: str, body) -> None:
        app = self.server.app
        try:
            self._json(200, app.handle(route, body))
        except ApiError as err:
            self._json(err.status, {"error": err.message})
        except RecursionError:
            self._json(400, {"error": "the request is nested too deeply"})
        except Exception as err:  # noqa: BLE001 - a bug: never a traceback to the client
            print(f"rulecheck explore: internal error on {route}:\n{traceback.format_exc()}", file=sys.stderr)
            self._json(500, {"error": f"internal error: {type(err).__name__} (the traceback is in the "
                                      f"server's output)"})


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")
