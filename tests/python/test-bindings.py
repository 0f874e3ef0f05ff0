#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What Python reaches through the typelib, and how it owns it: the
registry's name lists are copied, not freed twice; the engine's internals
(commit logs, fences, placement) are left out of the bindings; a refusal
that Python cannot be handed as an error is said on stderr."""
import os
import signal
import subprocess
import sys
import time

import gi

gi.require_version("Accel", "1.0")
from gi.repository import Accel, GLib  # noqa: E402


def check(condition, what):
    if not condition:
        print(f"FAIL: {what}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {what}")


PUSH_REFUSED = """
import gc, sys
import gi
gi.require_version("Accel", "1.0")
from gi.repository import Accel, GLib
graph = Accel.Graph.new_from_yaml_string(
    "pipeline: refusals\\n"
    "stages:\\n"
    "  - {name: frames, kind: io.app-source, params: {shape: 4x4, dtype: f32}}\\n"
    "  - {name: out, kind: io.app-sink}\\n"
    "links:\\n"
    "  - frames -> out\\n", "refusals")
source = graph.get_stage("frames")
graph.start()
wrong = Accel.Type.init_tensor(Accel.DType.F32, Accel.Memory.HOST, [2, 8])
buffer = Accel.Buffer.new_from_bytes(wrong, GLib.Bytes.new(bytes(64)))
print(source.emit("push-buffer", buffer, None), flush=True)
print("--", file=sys.stderr, flush=True)
del graph
gc.collect()
right = Accel.Type.init_tensor(Accel.DType.F32, Accel.Memory.HOST, [4, 4])
buffer = Accel.Buffer.new_from_bytes(right, GLib.Bytes.new(bytes(64)))
print(source.emit("push-buffer", buffer, None), flush=True)
"""


def check_push_refusals():
    """io.app-source's push-buffer takes a GError ** that Python passes as
    None: a refusal says why on stderr (it was a bare False, and a script
    could only guess: a wrong shape, its graph collected, ...)."""
    child = subprocess.run([sys.executable, "-c", PUSH_REFUSED],
                           capture_output=True, text=True, timeout=60)
    sys.stdout.write(child.stderr)
    check(child.returncode == 0 and child.stdout.split() == ["False"] * 2,
          "both pushes are refused: %r" % child.stdout)
    mismatch, gone = (child.stderr.split("--\n") + [""])[:2]
    check("stage 'frames' (io.app-source)" in mismatch
          and "tensor<f32>[2x8]@host" in mismatch
          and "tensor<f32>[4x4]" in mismatch,
          "a buffer of another type: stderr names the stage and both types")
    check("stage 'frames' (io.app-source)" in gone
          and "once its graph is finalized" in gone,
          "a push once its graph is collected: stderr says so")


BLOCKED = """
import sys, time
import gi
gi.require_version("Accel", "1.0")
from gi.repository import Accel, GLib
graph = Accel.Graph.new_from_yaml_string(
    "pipeline: blocked\\n"
    "stages:\\n"
    "  - {name: frames, kind: io.app-source, params: {shape: '4', dtype: f32,"
    " max-buffers: 1}}\\n"
    "  - {name: out, kind: io.app-sink, params: {max-buffers: 1}}\\n"
    "links:\\n"
    "  - frames -> out\\n", "blocked")
graph.set_stepped(sys.argv[1] == "step")
if sys.argv[1] != "run":
    graph.start()
t0 = time.monotonic()
print("waiting", flush=True)
try:
    if sys.argv[1] == "pull":
        print(graph.get_stage("out").emit("pull-buffer", -1))
    elif sys.argv[1] == "push":
        # no one pulls: the queues fill, and a push waits for room
        kind = Accel.Type.init_tensor(Accel.DType.F32, Accel.Memory.HOST, [4])
        frame = Accel.Buffer.new_from_bytes(kind, GLib.Bytes.new(bytes(16)))
        while graph.get_stage("frames").emit("push-buffer", frame, None):
            pass
    elif sys.argv[1] == "run":
        graph.run()
    elif sys.argv[1] == "step":
        graph.step(-1)
    else:
        graph.wait(-1)
    print("returned")
except KeyboardInterrupt:
    print("interrupted after %.1f s" % (time.monotonic() - t0))
graph.stop()
"""


START_BLOCKED = """
import os, sys, tempfile, time
import gi
gi.require_version("Accel", "1.0")
from gi.repository import Accel
fifo = os.path.join(tempfile.mkdtemp(), "out.fifo")
os.mkfifo(fifo)
graph = Accel.Graph.new_from_yaml_string(
    "pipeline: blocked\\n"
    "stages:\\n"
    "  - {name: src, kind: core.test-source, params: {shape: '4'}}\\n"
    "  - {name: out, kind: io.raw-file-sink,"
    " params: {location: %s, start-timeout: 60000}}\\n"
    "links: [src -> out]\\n" % fifo, "blocked")
t0 = time.monotonic()
print("waiting", flush=True)
try:
    graph.start()
    print("returned")
except KeyboardInterrupt:
    print("interrupted after %.1f s" % (time.monotonic() - t0))
graph.stop()
os.unlink(fifo)
"""

PUSH_ORDER = """
import os, signal, threading
import gi
gi.require_version("Accel", "1.0")
from gi.repository import Accel, GLib
graph = Accel.Graph.new_from_yaml_string(
    "pipeline: order\\n"
    "stages:\\n"
    "  - {name: frames, kind: io.app-source, params: {shape: '4', dtype: u8,"
    " max-buffers: 1}}\\n"
    "  - {name: out, kind: io.app-sink}\\n"
    "links: [frames -> out]\\n", "order")
source, sink = graph.get_stage("frames"), graph.get_stage("out")
kind = Accel.Type.init_tensor(Accel.DType.U8, Accel.Memory.HOST, [4])
def frame(i):
    return Accel.Buffer.new_from_bytes(kind, GLib.Bytes.new(bytes([i] * 4)))
graph.start()
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
n = 0
try:
    while True:
        source.emit("push-buffer", frame(n), None)
        n += 1
except KeyboardInterrupt:
    n += 1  # that frame is queued once there is room
got = []
def pull():
    while (b := sink.emit("pull-buffer", 5000000)) is not None:
        got.append(b.dup_bytes().get_data()[0])
        del b
puller = threading.Thread(target=pull)
puller.start()
for i in range(n, n + 5):
    source.emit("push-buffer", frame(i), None)
source.emit("end-of-stream")
puller.join()
graph.stop()
print(got == list(range(n + 5)), got)
"""


def check_push_order():
    """a push that Ctrl-C interrupted goes on in C and queues its frame
    once there is room: the next push waits for it, so the frames keep the
    order pushed (the next one overtook it, a run in four)"""
    for _ in range(3):
        child = subprocess.run([sys.executable, "-c", PUSH_ORDER],
                               capture_output=True, text=True, timeout=60)
        check(child.returncode == 0 and child.stdout.startswith("True"),
              "frames pushed after an interrupted push come in order: "
              f"{child.stdout.strip()} {child.stderr.strip()}")


STOP_BLOCKED = """
import os, sys, threading, time
import gi
gi.require_version("Accel", "1.0")
from gi.repository import Accel
at_work = threading.Event()


class Slow(Accel.Stage):
    __gtype_name__ = "TestSlowStage"

    def do_process(self, frame):
        at_work.set()
        time.sleep(60)
        return Accel.Flow.OK


any_type = Accel.Type.init_any()
Accel.StageClass.set_metadata(Slow, "test.slow", "slow")
Accel.StageClass.add_port(Slow, Accel.PortDirection.INPUT, "in",
                          any_type, "in")
Accel.StageClass.add_port(Slow, Accel.PortDirection.OUTPUT, "out",
                          any_type, "out")
Accel.Registry.get_default().register(Slow.__gtype__)
graph = Accel.Graph.new_from_yaml_string(
    "pipeline: slow\\n"
    "stages:\\n"
    "  - {name: src, kind: core.test-source, params: {shape: '4'}}\\n"
    "  - {name: k, kind: test.slow}\\n"
    "  - {name: out, kind: core.null-sink}\\n"
    "links: [src -> k -> out]\\n", "slow")
graph.start()
at_work.wait()
t0 = time.monotonic()
print("waiting", flush=True)
try:
    graph.stop()
    print("returned")
except KeyboardInterrupt:
    print("interrupted after %.1f s" % (time.monotonic() - t0), flush=True)
# the stop goes on, for the frame at work: leave without it
os._exit(0)
"""


def check_interrupted(what, script=BLOCKED):
    """Ctrl-C (SIGINT) reaches a script blocked in a pull, a push into a
    full queue, a graph's wait, run or step, or a start waiting for a
    FIFO's reader, as KeyboardInterrupt: Python runs its handler only once
    a call into C returns, which a pull, wait or step of -1, a push no one
    made room for or a run on an idle graph never did (Ctrl-C was held off
    for good; a start's for its start-timeout, then came as a
    RuntimeError)."""
    child = subprocess.Popen([sys.executable, "-c", script, what],
                             stdout=subprocess.PIPE, text=True)
    check(child.stdout.readline() == "waiting\n", "the script waits")
    time.sleep(1)
    child.send_signal(signal.SIGINT)
    try:
        out = child.communicate(timeout=30)[0]
    except subprocess.TimeoutExpired:
        child.kill()
        out = child.communicate()[0] + "(still waiting 30 s after SIGINT)"
    check(child.returncode == 0 and out.startswith("interrupted"),
          "SIGINT interrupts a %s: %s" % (what, out.strip()))


class _Raises(Accel.Stage):
    __gtype_name__ = "TestRaisesStage"

    def do_process(self, frame):
        raise RuntimeError("raised in process")


def check_python_stage_fails():
    """a stage written in Python whose process () raises fails its frame:
    PyGObject returned 0 for it, ACCEL_FLOW_OK, and the frame went on
    unwritten as a success"""
    any_type = Accel.Type.init_any()
    Accel.StageClass.set_metadata(_Raises, "test.raises", "raises")
    Accel.StageClass.add_port(_Raises, Accel.PortDirection.INPUT, "in",
                              any_type, "in")
    Accel.StageClass.add_port(_Raises, Accel.PortDirection.OUTPUT, "out",
                              any_type, "out")
    Accel.Registry.get_default().register(_Raises.__gtype__)
    graph = Accel.Graph.new_from_yaml_string(
        "pipeline: raises\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source,\n"
        "     params: {shape: '4', num-buffers: 3}}\n"
        "  - {name: k, kind: test.raises}\n"
        "  - {name: sink, kind: core.checksum-sink}\n"
        "links: [src -> k, k -> sink]\n", "raises")
    try:
        graph.run()
        failed = None
    except GLib.Error as e:
        failed = e.message
    check(failed is not None and "stage 'k'" in failed,
          f"a Python stage that raises fails the run: {failed}")
    check(graph.get_stage("sink").props.n_received == 0,
          "and its frame reaches no sink")


def check_checksum_sink():
    """core.checksum-sink's results read as Python values: its sequences a
    list (they were a GArray Python could not read)"""
    graph = Accel.Graph.new_from_yaml_string(
        "pipeline: sums\n"
        "stages:\n"
        "  - {name: src, kind: core.test-source,\n"
        "     params: {shape: '4', num-buffers: 5}}\n"
        "  - {name: sink, kind: core.checksum-sink}\n"
        "links: [src -> sink]\n", "sums")
    graph.run()
    sink = graph.get_stage("sink")
    sequences = sink.props.sequences.unpack()
    check(sequences == [0, 1, 2, 3, 4],
          f"checksum-sink's sequences read as a list: {sequences}")
    check(len(sink.props.checksums) == 5 and sink.props.n_received == 5,
          "and its checksums as strings, one a buffer")


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
    check(Accel.PARAM_FIXED == 1 << 8,
          f"Accel.PARAM_FIXED is 256, GLib's first user flag: "
          f"{Accel.PARAM_FIXED}")
    check_python_stage_fails()
    check_push_refusals()
    check_checksum_sink()
    check_interrupted("pull")
    check_interrupted("push")
    check_interrupted("wait")
    check_interrupted("run")
    check_interrupted("step")
    check_interrupted("start", START_BLOCKED)
    check_interrupted("stop", STOP_BLOCKED)
    check_push_order()


if __name__ == "__main__":
    main()
