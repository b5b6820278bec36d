"""What the explorer's tests share: an explorer over the default profile served on a free loopback port
in a thread of the test process, raw HTTP requests to it (any method, header and body), and the text
of an HTML fragment as a browser's textContent gives it."""
from __future__ import annotations

import http.client
import json
import re
import threading
from html.parser import HTMLParser
from pathlib import Path

from checks.formats.explorer_api import Explorer
from checks.formats.explorer_http import ExplorerServer
from checks.formats.explorer_page import files
from checks.formats.explorer_requests import Setup
from checks.formats.scenario import replay_file
from model.moritani import GAME

WITNESS = "witness-eome-refused"


def setup(name: str = "default") -> Setup:
    p = GAME.profiles[name]
    return Setup(name, p, GAME.build(p))


def app(a: Setup, out: Path | None, extra: dict | None = None) -> Explorer:
    """The explorer over `a`, saving under `out`, comparing with the embedded profiles and the `extra`
    proposals ({name: proposal}, as `--compare FILE` adds one)."""
    extra = extra or {}

    def load(name):
        return Setup(name, extra[name], GAME.build(extra[name])) if name in extra else setup(name)
    return Explorer(a, out=out, load=load, others=list(GAME.profiles) + list(extra),
                    replay=lambda f: replay_file(GAME, f))


class Served:
    """An explorer listening on 127.0.0.1 in a daemon thread; `stop()` closes it."""

    def __init__(self, explorer: Explorer):
        self.server = ExplorerServer(explorer, files(explorer.a.name), 0)
        self.port = self.server.server_port
        self.url = self.server.url
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def request(self, method: str, route: str, body=None, headers: dict | None = None, raw: bytes | None = None):
        """(status, parsed JSON or None, raw answer bytes). `headers` replace the defaults: Host and, for a
        JSON body, Content-Type."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        h = {"Host": f"127.0.0.1:{self.port}"}
        if data is not None:
            h |= {"Content-Type": "application/json", "Content-Length": str(len(data))}
        h |= headers or {}
        conn.putrequest(method, route, skip_host=True, skip_accept_encoding=True)
        for k, v in h.items():
            if v is not None:
                conn.putheader(k, v)
        conn.endheaders()
        if data:
            conn.send(data)
        r = conn.getresponse()
        out = r.read()
        conn.close()
        try:
            doc = json.loads(out)
        except ValueError:
            doc = None
        return r.status, doc, out

    def post(self, route: str, body, **kw):
        return self.request("POST", route, body, **kw)

    def view(self, path: list, observer: str = "designer") -> dict:
        status, doc, raw = self.post("/api/view", {"path": path, "observer": observer})
        assert status == 200, raw
        return doc


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list = []

    def handle_data(self, data):
        self.out.append(data)


def text_of(fragment: str) -> str:
    """The text of an HTML fragment, whitespace runs as one space (what textContent shows, normalised)."""
    p = _Text()
    p.feed(fragment)
    return normal("".join(p.out))


def normal(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


VOID = {"input", "br", "meta", "img", "hr", "link", "wbr", "col", "source"}


class Node:
    """An element of a parsed fragment: tag, attributes, children (nodes and strings)."""

    def __init__(self, tag: str, attrs: dict):
        self.tag, self.attrs, self.children = tag, attrs, []

    @property
    def classes(self) -> set:
        return set((self.attrs.get("class") or "").split())

    @property
    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text for c in self.children)

    def all(self, pred) -> list:
        out = []
        for c in self.children:
            if isinstance(c, Node):
                if pred(c):
                    out.append(c)
                out += c.all(pred)
        return out

    def having(self, cls: str) -> list:
        return self.all(lambda n: cls in n.classes)


class _Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        n = Node(tag, dict(attrs))
        self.stack[-1].children.append(n)
        if tag not in VOID:
            self.stack.append(n)

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def tree(fragment: str) -> Node:
    p = _Tree()
    p.feed(fragment)
    return p.root


ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium(pytest):
    """(playwright, browser context) on Debian's Chromium, as tests/test_html.py launches it; skips,
    saying why, when it cannot be launched."""
    import shutil
    import tempfile
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (python -m pip install -e '.[test]')")
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("no Chromium on this machine (apt-get install chromium; .ci/run does)")
    profile = tempfile.mkdtemp(prefix="rulecheck-chromium-")
    pw = sync_playwright().start()
    try:
        ctx = pw.chromium.launch_persistent_context(profile, executable_path=exe, headless=True, args=ARGS,
                                                    viewport={"width": 1300, "height": 1000})
    except Exception as err:  # noqa: BLE001 - any launch failure means: no browser here
        pw.stop()
        pytest.skip(f"Chromium at {exe} cannot be launched: {str(err).splitlines()[0]}")
    return pw, ctx, profile
