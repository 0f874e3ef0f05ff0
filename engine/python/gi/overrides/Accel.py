# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyGObject overrides for Accel: the calls that wait on a graph take
Ctrl-C.

Python runs its signal handlers only between calls into C, so a call that
waits (a graph's wait (), run () or step (), io.app-sink's "pull-buffer",
io.app-source's "push-buffer" into a full queue) held Ctrl-C off until it
returned: for good with a timeout of -1 on a graph that gave nothing, or a
push to a graph that took nothing. Here a graph's wait, run and step and a
push go on a thread of their own and a pull in slices, and
KeyboardInterrupt reaches the script at once. PyGObject finds this file as
gi/overrides/Accel.py on the Python path (docs/python.md)."""

import threading

from gi.repository import GLib

from ..module import get_introspection_module
from ..overrides import override

Accel = get_introspection_module("Accel")

__all__ = []

# how long a pull waits between two looks for Ctrl-C, in µs
_SLICE_US = 100 * 1000


def _on_main_thread():
    # Python runs signal handlers on its main thread only
    return threading.current_thread() is threading.main_thread()


def _on_own_thread(call, *args):
    """call (*args) on a thread of its own, waited for where Ctrl-C
    reaches the script; on another thread than the main one, as it is"""
    if not _on_main_thread():
        return call(*args)
    outcome = {}

    def run():
        try:
            outcome["value"] = call(*args)
        except Exception as e:  # handed to the caller
            outcome["error"] = e

    waiter = threading.Thread(target=run, name="accel-wait", daemon=True)
    waiter.start()
    # a join takes KeyboardInterrupt; the call goes on in C until the graph
    # ends or is stopped (accel_graph_stop () ends a wait, run or step at
    # once)
    waiter.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


class Graph(Accel.Graph):
    def wait(self, timeout_us):
        return _on_own_thread(Accel.Graph.wait, self, timeout_us)

    def run(self):
        return _on_own_thread(Accel.Graph.run, self)

    def step(self, timeout_us):
        return _on_own_thread(Accel.Graph.step, self, timeout_us)


Graph = override(Graph)
__all__.append("Graph")


def _pull(sink, timeout_us):
    """io.app-sink's pull-buffer in slices: a buffer, or None once the
    stream is over or @timeout_us (-1: no end) has passed."""
    deadline = Accel.deadline_after(timeout_us)
    while True:
        now = GLib.get_monotonic_time()
        slice_us = _SLICE_US if deadline < 0 else \
            max(min(_SLICE_US, deadline - now), 0)
        buffer = Accel.Stage.emit(sink, "pull-buffer", slice_us)
        if buffer is not None:
            return buffer
        if sink.props.eos or sink.graph_has_failed() or sink.graph_is_gone():
            # what the end queued after that slice is still to be taken
            return Accel.Stage.emit(sink, "pull-buffer", 0)
        if deadline >= 0 and GLib.get_monotonic_time() >= deadline:
            return None


def _may_wait(source):
    """whether a push to io.app-source @source may wait for room: its queue
    is full (a push into a queue with room goes straight in, without a
    thread)"""
    limit = source.props.max_buffers
    return (source.props.block and limit > 0
            and source.props.current_level_buffers >= limit)


class Stage(Accel.Stage):
    def emit(self, signal_name, *args):
        if (signal_name == "pull-buffer" and len(args) == 1
                and isinstance(args[0], int) and args[0] != 0
                and _on_main_thread()
                and self.get_kind_name() == "io.app-sink"):
            return _pull(self, args[0])
        if (signal_name == "push-buffer" and _on_main_thread()
                and self.get_kind_name() == "io.app-source"
                and _may_wait(self)):
            # a push interrupted goes on: its frame is queued once there
            # is room, or refused once the graph stops (graph.stop ())
            return _on_own_thread(Accel.Stage.emit, self, signal_name,
                                  *args)
        return super().emit(signal_name, *args)


Stage = override(Stage)
__all__.append("Stage")
