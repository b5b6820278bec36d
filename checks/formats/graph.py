"""The explored state graph as a file: DOT (Graphviz) or GraphML (networkx).

>>> import networkx as nx
>>> g = nx.MultiDiGraph(); g.add_node(0, depth=0); g.add_node(1, depth=1); _ = g.add_edge(0, 1, key="tick")
>>> import tempfile, os; d = tempfile.mkdtemp(); write_graph(g, os.path.join(d, "g.dot"))
>>> open(os.path.join(d, "g.dot")).read().splitlines()[-2]
'  s0 -> s1 [label="tick"];'
"""
from __future__ import annotations

import json

import networkx as nx

from checks.formats.outputs import atomic_open


def write_graph(g, path: str) -> None:
    """Write `g` (the explorer's MultiDiGraph) as .graphml or as .dot, chosen by the file name; atomically
    (an interrupted write of a large graph leaves the old file, or none)."""
    if path.endswith(".graphml"):
        for _, _, d in g.edges(data=True):
            d["args"] = json.dumps(d["args"])
        with atomic_open(path, binary=True) as fh:
            nx.write_graphml(g, fh)
    else:
        _write_dot(g, path)


def _write_dot(g, path: str) -> None:
    with atomic_open(path) as fh:
        fh.write("digraph explored {\n")
        for n, d in g.nodes(data=True):
            fh.write(f'  s{n} [label="{n}\\nd={d["depth"]}"];\n')
        for u, v, k in g.edges(keys=True):
            fh.write(f'  s{u} -> s{v} [label="{k.replace(chr(34), chr(39))}"];\n')
        fh.write("}\n")
