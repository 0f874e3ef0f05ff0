#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""ACCEL_NVTX=1 shows the pipeline to a profiler.

accel-run runs a short pipeline with an NVTX tool loaded the way Nsight
Systems loads one (NVTX_INJECTION64_PATH, our nvtx-recorder module). With
ACCEL_NVTX=1 every stage's frames are ranges named by the stage with the
frame's sequence number as payload, every frame of every stage once, and
each thread's ranges nest (every push popped, never a pop too many).
Without the variable the tool sees no range.

With --cuda (the gpu suite; skipped without a GPU) the segment's graph
replays run no process(): a range "<segment> graph" per replay, with the
frame's sequence, stands for the stages it replays, and every frame of
every stage is either its own range or inside such a range.

usage: test-nvtx.py RECORDER [--no-segments] [--cuda]
"""
import collections
import os
import subprocess
import sys
import tempfile

ACCEL_RUN = os.environ["ACCEL_RUN"]
RECORDER = sys.argv[1]
BACKEND = "cuda" if "--cuda" in sys.argv else "host"
FRAMES = 40
STAGES = {"src", "work", "sums"}

PIPELINE = """
pipeline: nvtx
defaults: {{segments: {segments}}}
stages:
  - {{name: src, kind: core.test-source,
      params: {{shape: '256', num-buffers: {frames}}}}}
  - {{name: work, kind: core.scale, params: {{scale: 2.0}}}}
  - {{name: sums, kind: core.checksum-sink, params: {{location: sums.txt}}}}
links: [src -> work, work -> sums]
"""


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print("ok: " + msg)


def run(tmp, nvtx, segments, value="1"):
    """accel-run with the recorder loaded, ACCEL_NVTX=value where nvtx;
    returns the recorded lines"""
    log = os.path.join(tmp, "nvtx-%s.log" % (value if nvtx else "off"))
    env = dict(os.environ)
    env["NVTX_INJECTION64_PATH"] = RECORDER
    env["ACCEL_TEST_NVTX_LOG"] = log
    env.pop("ACCEL_NVTX", None)
    if nvtx:
        env["ACCEL_NVTX"] = value
    yaml = os.path.join(tmp, "nvtx.yaml")
    with open(yaml, "w") as f:
        f.write(PIPELINE.format(frames=FRAMES, segments=segments))
    p = subprocess.run([ACCEL_RUN, "--backend=" + BACKEND, "--quiet", yaml],
                       env=env, cwd=tmp, timeout=120,
                       capture_output=True, text=True)
    sys.stdout.write(p.stdout + p.stderr)
    if BACKEND == "cuda" and "no CUDA device is usable" in p.stderr:
        print("SKIP: no usable CUDA device")
        sys.exit(77)
    check(p.returncode == 0, "accel-run exits 0 (ACCEL_NVTX %s)"
          % (value if nvtx else "unset"))
    # "yes" or "true" turned nothing on, without a word
    if nvtx and value not in ("0", "1"):
        check("ACCEL_NVTX=%s is neither 1 (ranges on) nor 0" % value
              in p.stderr, "ACCEL_NVTX=%s is warned of" % value)
    if not os.path.exists(log):
        return []
    with open(log) as f:
        return f.read().splitlines()


def main():
    segments = "off" if "--no-segments" in sys.argv else "on"
    with tempfile.TemporaryDirectory() as tmp:
        lines = run(tmp, True, segments)
        check(len(lines) > 0, "the tool recorded ranges (%d lines)"
              % len(lines))

        ranges = collections.Counter()
        depth = collections.Counter()
        for line in lines:
            words = line.split()
            if words[0] == "push":
                tid, name, payload = words[1], " ".join(words[2:-1]), words[-1]
                ranges[(name, payload)] += 1
                depth[tid] += 1
            else:
                depth[words[1]] -= 1
                if depth[words[1]] < 0:
                    fail("thread %s pops a range it never pushed" % words[1])
        check(all(d == 0 for d in depth.values()),
              "every range pushed is popped, on %d threads" % len(depth))

        names = {name for name, _ in ranges}
        graphs = {n for n in names if n.endswith(" graph")}
        check(names - graphs == set(STAGES),
              "ranges are named by the stages: %s" % sorted(names))
        if BACKEND == "host":
            check(not graphs, "no graph ranges on the host backend")
            for stage in STAGES:
                counts = [ranges[(stage, str(f))] for f in range(FRAMES)]
                check(min(counts) >= 1 and min(counts) == max(counts),
                      "%s: every frame 0..%d a range, %d each, the sequence "
                      "as payload" % (stage, FRAMES - 1, counts[0]))
        else:
            replayed = {p for n, p in ranges if n in graphs}
            check(len(replayed) > FRAMES // 2,
                  "graph ranges for %d of %d frames" % (len(replayed), FRAMES))
            for stage in STAGES:
                own = {p for n, p in ranges if n == stage}
                missing = [f for f in range(FRAMES)
                           if str(f) not in own | replayed]
                check(not missing, "%s: every frame its range or a graph's"
                      % stage)
        frames = {(s, str(f)) for s in STAGES | graphs for f in range(FRAMES)}
        # and the source's call that finds the end of its stream
        frames.add(("src", str(FRAMES)))
        outside = sorted(r for r in ranges if r not in frames)
        check(not outside, "no range outside the frames: %s" % outside)

        check(run(tmp, False, segments) == [],
              "without ACCEL_NVTX=1 the tool sees no range")
        check(run(tmp, True, segments, "yes") == [],
              "with ACCEL_NVTX=yes the tool sees no range")


if __name__ == "__main__":
    main()
