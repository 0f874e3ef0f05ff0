#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What Python reaches through the typelib, and how it owns it: the
registry's name lists are copied, not freed twice; the engine's internals
(commit logs, fences, placement) are left out of the bindings."""
import sys

import gi

gi.require_version("Accel", "1.0")
from gi.repository import Accel  # noqa: E402


def check(condition, what):
    if not condition:
        print(f"FAIL: {what}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {what}")


def main():
    registry = Accel.Registry.get_default()
    # both lists are (transfer container): twice each, as a double free of
    # their strings would show
    for _ in range(2):
        kinds = registry.list_kinds()
        check("core.scale" in kinds and kinds == sorted(kinds),
              "list_kinds () names core.scale, sorted")
        near = registry.suggest("core.scal")
        check(near and near[0] == "core.scale",
              "suggest ('core.scal') puts core.scale first")
    for name in ("commit_log_open", "fence_new", "placement_pick"):
        check(not hasattr(Accel, name), f"Accel.{name} is not bound")
    check(not hasattr(Accel.Stage, "get_commit_log"),
          "Accel.Stage.get_commit_log is not bound")
    for record, name in (("CommitLog", "open"), ("CommitLog", "close"),
                         ("Fence", "new"), ("Fence", "free")):
        check(not hasattr(getattr(Accel, record, None), name),
              f"Accel.{record}.{name} is not bound")


if __name__ == "__main__":
    main()
