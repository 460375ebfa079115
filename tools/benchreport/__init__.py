# SPDX-License-Identifier: GPL-2.0
"""tools/bench-report's parts: records (what tools/bench wrote), stats (one
boot's figures), verdicts (the figures against targets.json), tables and
plots (the report's blocks), document (docs/benchmarks.md, whose hand-written
text stays)."""
