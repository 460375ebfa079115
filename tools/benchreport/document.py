# SPDX-License-Identifier: GPL-2.0
"""docs/benchmarks.md: generated blocks between hand-written text.

A block is the lines between "<!-- begin bench-report NAME -->" and
"<!-- end bench-report NAME -->". A new report replaces what is inside
each block and keeps every other line of the document as it was, so the
explanation written around the tables survives every run. A block the
document lacks is added at its end; a document that does not exist yet is
made of the blocks alone."""
import os

from .records import ReportError

BLOCKS = ["header", "cover", "cost", "fifo", "scale", "hbm", "flent", "kernels", "cni", "memory",
          "rank", "targets", "reproducibility"]
BEGIN, END = "<!-- begin bench-report {} -->", "<!-- end bench-report {} -->"
TITLE = "# Benchmarks"


def marker(line):
    """("begin"|"end", NAME) of a block's marker line, or None."""
    words = line.strip().split()
    if len(words) == 5 and words[0] == "<!--" and words[2] == "bench-report" and words[4] == "-->":
        if words[1] in ("begin", "end"):
            return words[1], words[3]
    return None


def split(text, path):
    """The document as hand-written lines and block names, in order."""
    parts, inside = [], None
    for n, line in enumerate(text.split("\n"), 1):
        m = marker(line)
        if inside is not None:
            if m == ("end", inside):
                inside = None
            elif m:
                raise ReportError(f"{path}:{n}: {m[0]} {m[1]} inside block {inside}")
            continue
        if m is None:
            parts.append(line)
        elif m[0] == "end" or m[1] not in BLOCKS or ("block", m[1]) in parts:
            raise ReportError(f"{path}:{n}: unexpected marker '{line.strip()}' "
                              f"(blocks: {', '.join(BLOCKS)}, each once)")
        else:
            inside = m[1]
            parts.append(("block", inside))
    if inside is not None:
        raise ReportError(f"{path}: block {inside} has no end marker")
    return parts


def read(path):
    """The document's parts, to check it before anything is written."""
    if not os.path.exists(path):
        return [TITLE, "", ""]
    try:
        with open(path) as f:
            return split(f.read(), path)
    except (OSError, UnicodeDecodeError) as e:
        raise ReportError(f"{path}: {e}")


def write(path, parts, blocks):
    """The document read() gave, each block's lines from blocks {name: lines}."""
    parts = list(parts)
    have = {p[1] for p in parts if isinstance(p, tuple)}
    if parts[-1:] == [""]:
        parts.pop()
    parts += [("block", name) for name in BLOCKS if name not in have]
    lines = []
    for p in parts:
        if isinstance(p, tuple):
            lines += [BEGIN.format(p[1])] + blocks[p[1]] + [END.format(p[1])]
        else:
            lines.append(p)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)
