"""`rulecheck explore --serve`: the explorer, a local web page to walk the model by hand (docs/explorer.md).

This binds the game: the proposal (or the setup of a `--from` scenario file), the proposals to compare
with (the embedded profiles, and `--compare FILE|PROFILE`), and replay of saved files. The explorer
itself (checks/formats/explorer_*.py) knows no game. The server runs until the process is interrupted
(Ctrl-C: the CLI exits 130, as for every command).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from checks.formats.explorer_api import Explorer
from checks.formats.explorer_requests import ApiError, Setup, walk
from checks.pipelines.check import searched
from checks.pipelines.common import GAME, Options, Run, UsageProblem

DEFAULT_PORT = 8765


@dataclass(frozen=True)
class ServeOptions:
    """What `explore --serve` was given besides the common options."""

    port: int = DEFAULT_PORT
    source: str | None = None     # --from: a scenario file to start from
    out: str | None = None        # where saved scenarios go (none: saving is refused)
    compare: str | None = None    # a further proposal (file or profile) to compare with


def start_of(setup: Setup, labels: list, expect: dict, source: str) -> tuple:
    """(path, tried action or None, note) to open a scenario with: its steps as far as they run; a
    `blocked_at` step becomes the action tried at the end, with its refusal explained."""
    blocked = expect.get("blocked_at")
    tried = labels[blocked - 1] if blocked else None
    path = labels[:blocked - 1] if blocked else labels
    try:
        walk(setup, path)
    except ApiError as err:
        n = err.step
        assert n is not None  # walk() names the step that does not run
        return path[:n - 1], None, f"{Path(source).name}: {err.message}; opened at step {n - 1}"
    return path, tried, f"opened at the end of {Path(source).name}" + (f", trying {tried}" if tried else "")


def explorer(opts: Options, serve: ServeOptions, turns: int | None) -> Explorer:
    """The explorer for these options (nothing listens yet)."""
    from checks.formats.proposal import resolve
    from checks.formats.scenario import load_scenario, replay_file
    if serve.source and opts.proposal:
        raise UsageProblem("--from takes the proposal from the scenario file's setup; drop --proposal")
    if serve.source:
        sc = load_scenario(GAME, serve.source)
        setup = Setup(sc.proposal.name, sc.proposal, sc.model)
        start, tried, note = start_of(setup, [s[0] for s in sc.steps], sc.expect, serve.source)
    else:
        prop = opts.resolve()
        prop = searched(prop, turns) if turns is not None else prop
        setup, start, tried, note = Setup(prop.name, prop, GAME.build(prop)), [], None, ""
    others = dict(GAME.profiles)
    if serve.compare:
        extra = resolve(GAME, serve.compare)
        others[extra.name] = extra

    def load(name: str) -> Setup:
        return Setup(name, others[name], GAME.build(others[name]))
    return Explorer(setup, out=Path(serve.out) if serve.out else None, start=start, tried=tried, note=note,
                    load=load, others=list(others), replay=lambda path: replay_file(GAME, path))


def serve(opts: Options, options: ServeOptions, turns: int | None = None, announce=None) -> Run:
    """Build the explorer, listen on 127.0.0.1, print the address, serve until interrupted."""
    from checks.formats.explorer_http import ExplorerServer
    from checks.formats.explorer_page import files
    app = explorer(opts, options, turns)
    try:
        server = ExplorerServer(app, files(app.a.name), options.port)
    except OSError as err:
        raise UsageProblem(f"--port {options.port}: cannot listen on 127.0.0.1:{options.port} "
                           f"({err.strerror or err}); choose another port, or --port 0 for any free one") from None
    say = announce or (lambda text: print(text, flush=True))
    say(f"rulecheck explore: proposal '{app.a.name}' at {server.url} (this machine only; Ctrl-C stops)")
    if options.out is None:
        print("rulecheck explore: no --out DIR given: scenarios cannot be saved", file=sys.stderr, flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
    return Run("rulecheck explore: stopped", 0)
