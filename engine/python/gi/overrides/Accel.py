# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyGObject overrides for Accel: the calls that wait on a graph take
Ctrl-C.

Python runs its signal handlers only between calls into C, so a call that
waits (a graph's wait (), run (), step () or stop (), io.app-sink's
"pull-buffer", io.app-source's "push-buffer" into a full queue) held Ctrl-C
off until it returned: for good with a timeout of -1 on a graph that gave
nothing, or a push to a graph that took nothing. Here a graph's wait, run,
step and stop and a push go on a thread of their own and a pull in slices,
and
KeyboardInterrupt reaches the script at once. PyGObject finds this file as
gi/overrides/Accel.py on the Python path (docs/python.md)."""

import sys
import threading
import traceback
import weakref

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


def _on_own_thread(call, *args, started=None, interrupted=None):
    """call (*args) on a thread of its own, waited for where Ctrl-C
    reaches the script; on another thread than the main one, as it is.
    started (event) is told of the event set once the call returned,
    interrupted () of a Ctrl-C before the KeyboardInterrupt goes on to
    the script"""
    if not _on_main_thread():
        return call(*args)
    outcome = {}
    # set once the call returned: a Thread.join () that Ctrl-C interrupted
    # may take the thread for stopped, and the next join return at once
    returned = threading.Event()

    def run():
        try:
            outcome["value"] = call(*args)
        except Exception as e:  # handed to the caller
            outcome["error"] = e
        finally:
            returned.set()

    if started:
        started(returned)
    threading.Thread(target=run, name="accel-wait", daemon=True).start()
    # the wait takes KeyboardInterrupt; the call goes on in C until the
    # graph ends or is stopped (accel_graph_stop () ends a wait, run or
    # step at once)
    try:
        returned.wait()
    except KeyboardInterrupt:
        if interrupted:
            interrupted()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


class Graph(Accel.Graph):
    def start(self):
        # a start waits in the stages' start () (a FIFO's reader, a peer):
        # Ctrl-C stops it at once, where it was held until the start gave
        # up and came back as a RuntimeError
        return _on_own_thread(Accel.Graph.start, self,
                              interrupted=self.interrupt_start)

    def wait(self, timeout_us):
        return _on_own_thread(Accel.Graph.wait, self, timeout_us)

    def stop(self):
        # a stop waits for the frames at work (a long kernel, a stage
        # until its watchdog): Ctrl-C reaches the script meanwhile, where
        # it waited for them, and the stop goes on
        return _on_own_thread(Accel.Graph.stop, self)

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


# the push into each io.app-source that a Ctrl-C interrupted (the event
# its thread sets once it returned): it goes on in C, and the next push
# waits for it, so the frames keep the order pushed (the next one overtook
# it)
_pushing = weakref.WeakKeyDictionary()


def _push(source, *args):
    earlier = _pushing.pop(source, None)
    if earlier is not None:
        try:
            earlier.wait()  # takes Ctrl-C too
        except KeyboardInterrupt:
            _pushing[source] = earlier
            raise
    if not _may_wait(source):
        return Accel.Stage.emit(source, "push-buffer", *args)

    def keep(returned):
        # popped once it returns; past a Ctrl-C it stays, for the next push
        _pushing[source] = returned

    value = _on_own_thread(Accel.Stage.emit, source, "push-buffer", *args,
                           started=keep)
    _pushing.pop(source, None)
    return value


def _fail_on_exception(vfunc):
    """a stage's process () or render () written in Python: an exception
    fails the frame (ACCEL_FLOW_ERROR, which the stage's supervision
    answers), where PyGObject printed it and returned 0, ACCEL_FLOW_OK, and
    the frame went on unwritten as a success"""
    def call(self, *args):
        try:
            return vfunc(self, *args)
        except Exception:
            traceback.print_exc(file=sys.stderr)
            return Accel.Flow.ERROR
    call.__name__ = vfunc.__name__
    call.__doc__ = vfunc.__doc__
    return call


class Stage(Accel.Stage):
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in ("do_process", "do_render"):
            if name in cls.__dict__:
                setattr(cls, name, _fail_on_exception(cls.__dict__[name]))

    def emit(self, signal_name, *args):
        if (signal_name == "pull-buffer" and len(args) == 1
                and isinstance(args[0], int) and args[0] != 0
                and _on_main_thread()
                and self.get_kind_name() == "io.app-sink"):
            return _pull(self, args[0])
        if (signal_name == "push-buffer" and _on_main_thread()
                and self.get_kind_name() == "io.app-source"):
            # a push interrupted goes on: its frame is queued once there
            # is room, or refused once the graph stops (graph.stop ())
            return _push(self, *args)
        return super().emit(signal_name, *args)


Stage = override(Stage)
__all__.append("Stage")
