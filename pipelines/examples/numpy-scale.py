#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""NumPy frames through an accel graph, from Python (PyGObject).

A graph declared in YAML: io.app-source -> core.scale -> io.app-sink, with a
core.checksum-sink on the same output. The script pushes NumPy frames,
pulls the results back as NumPy arrays, changes the scale while the graph
runs, and reads the stages' counters. It checks every frame against NumPy's
own in * scale + offset and against the checksum sink's SHA-256 of the
same frame, and exits 1 on any difference.

    python3 numpy-scale.py [--backend host|cuda] [--frames N]

Run it from a build tree with the typelib and libraries on the paths (see
docs/python.md): GI_TYPELIB_PATH=build LD_LIBRARY_PATH=build/engine:
build/pipelines ACCEL_PLUGIN_PATH=... With --backend cuda and no GPU, or
without NumPy or PyGObject, it exits 77 (skipped).
"""

import argparse
import hashlib
import os
import sys
import tempfile

try:
    import numpy as np
    import gi

    # PYTHONPATH's engine/python/gi alone (no PyGObject for this python)
    # is a namespace package without require_version
    if not hasattr(gi, "require_version"):
        raise ImportError(f"no PyGObject for {sys.executable}")
    gi.require_version("Accel", "1.0")
    from gi.repository import Accel, GLib, GObject  # noqa: E402
except (ImportError, ValueError) as e:
    # a machine that runs the tests without the modules the build found
    print(f"numpy-scale: {e}: skipped", file=sys.stderr)
    sys.exit(77)

HEIGHT, WIDTH = 48, 64
# values with few significant bits: in * scale + offset is exact in float32,
# so NumPy, the host's fmaf and the GPU's FMA give the same bits
SETTINGS = [(2.0, 0.5), (-1.5, 0.25)]

PIPELINE = """
pipeline: numpy-scale
stages:
  - {{name: frames, kind: io.app-source,
     params: {{shape: {h}x{w}, dtype: f32}}}}
  - {{name: scale, kind: core.scale,
     params: {{scale: {scale}, offset: {offset}}}}}
  - {{name: out, kind: io.app-sink}}
  - {{name: check, kind: core.checksum-sink, params: {{location: "{sums}"}}}}
links:
  - frames -> scale
  - scale -> out
  - scale -> check
"""


def make_frame(rng):
    """A float32 frame of multiples of 1/256 in [0, 16)."""
    return (rng.integers(0, 4096, size=(HEIGHT, WIDTH)) / 256.0).astype(
        np.float32
    )


def push(source, frame_type, frame):
    buffer = Accel.Buffer.new_from_bytes(frame_type, GLib.Bytes.new(frame.tobytes()))
    if not source.emit("push-buffer", buffer, None):
        raise RuntimeError("io.app-source refused a frame")


def pull(sink):
    """The next frame from io.app-sink as (sequence, NumPy array)."""
    buffer = sink.emit("pull-buffer", 10 * 1000 * 1000)
    if buffer is None:
        raise RuntimeError("no frame from io.app-sink within 10 s")
    data = buffer.dup_bytes().get_data()
    frame = np.frombuffer(data, dtype=np.float32).reshape(HEIGHT, WIDTH)
    return buffer.get_sequence(), frame


def run(n_frames, sums_path):
    rng = np.random.default_rng(19)
    scale, offset = SETTINGS[0]
    graph = Accel.Graph.new_from_yaml_string(
        PIPELINE.format(
            h=HEIGHT, w=WIDTH, scale=scale, offset=offset, sums=sums_path
        ),
        "numpy-scale.py",
    )
    source = graph.get_stage("frames")
    scaler = graph.get_stage("scale")
    sink = graph.get_stage("out")
    frame_type = Accel.Type.init_tensor(
        Accel.DType.F32, Accel.Memory.HOST, [HEIGHT, WIDTH]
    )
    graph.start()

    expected, results = [], []
    half = n_frames // 2
    for batch, (scale, offset) in enumerate(SETTINGS):
        if batch > 0:
            # every frame of the last batch has come out: the new value
            # reaches core.scale before any frame pushed from now on
            value = GObject.Value(GObject.TYPE_DOUBLE, scale)
            if not scaler.set_param_async("scale", value):
                raise RuntimeError("core.scale refused its new scale")
            scaler.set_param_async(
                "offset", GObject.Value(GObject.TYPE_DOUBLE, offset)
            )
        count = half if batch == 0 else n_frames - half
        in_flight = 0
        for _ in range(count):
            frame = make_frame(rng)
            expected.append(frame * np.float32(scale) + np.float32(offset))
            push(source, frame_type, frame)
            in_flight += 1
            # a few frames ahead: the graph works while Python makes more
            if in_flight == 3:
                results.append(pull(sink))
                in_flight -= 1
        while in_flight:
            results.append(pull(sink))
            in_flight -= 1

    source.emit("end-of-stream")
    graph.wait(10 * 1000 * 1000)
    if sink.emit("pull-buffer", 0) is not None:
        raise RuntimeError("io.app-sink had more frames than were pushed")

    for name in ("frames", "scale", "out", "check"):
        stage = graph.get_stage(name)
        p50, p99 = stage.get_latency()
        print(
            "%-6s processed %d dropped %d restarts %d latency p50 %.1f us p99 %.1f us"
            % (
                name,
                stage.get_n_processed(),
                stage.get_n_dropped(),
                stage.get_n_restarts(),
                p50 / 1000.0,
                p99 / 1000.0,
            )
        )
    if scaler.get_n_processed() != n_frames:
        raise RuntimeError(
            "core.scale processed %d frames, not %d"
            % (scaler.get_n_processed(), n_frames)
        )
    graph.stop()
    return expected, results


def check(expected, results, sums_path):
    digests = {}
    with open(sums_path) as sums:
        for line in sums:
            sequence, digest = line.split()
            digests[int(sequence)] = digest
    if len(results) != len(expected) or len(digests) != len(expected):
        print(
            "pushed %d frames, pulled %d, %d checksums"
            % (len(expected), len(results), len(digests))
        )
        return False
    ok = True
    for i, ((sequence, frame), want) in enumerate(zip(results, expected)):
        if not np.array_equal(frame, want):
            bad = np.argwhere(frame != want)[0]
            print(
                "frame %d: at %s %r, NumPy says %r"
                % (i, tuple(bad), frame[tuple(bad)], want[tuple(bad)])
            )
            ok = False
        digest = hashlib.sha256(frame.tobytes()).hexdigest()
        if digests.get(sequence) != digest:
            print("frame %d: core.checksum-sink saw other bytes" % i)
            ok = False
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("host", "cuda"), default=None)
    parser.add_argument("--frames", type=int, default=16)
    args = parser.parse_args()

    if args.backend == "cuda":
        if Accel.Device.get_n_cuda() == 0:
            print("no GPU: skipped")
            return 77
        Accel.backend_set_default(Accel.Backend.CUDA)
    elif args.backend == "host":
        Accel.backend_set_default(Accel.Backend.HOST)
    print("device:", Accel.Device.get_default().get_name())

    with tempfile.TemporaryDirectory() as tmp:
        sums_path = os.path.join(tmp, "checksums.txt")
        expected, results = run(args.frames, sums_path)
        if not check(expected, results, sums_path):
            return 1
    print("%d frames match NumPy and core.checksum-sink" % len(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
