#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""accel-run --http on an endless host pipeline.

  test-http.py metrics   /metrics passes promtool and holds the expected
                         series; /stats.json's frame counter moves; / draws
                         the graph; other paths are 404; requests with a
                         body are refused before it, and so are targets
                         libsoup would answer itself ("*", a path that does
                         not decode), their connections closed; heads over
                         64 KB are answered 431 (414); connections
                         kept alive leave no socket behind; idle ones are
                         closed after ACCEL_HTTP_IDLE_TIMEOUT
  test-http.py page      the live page in headless Chromium: the stage names
                         and a frame counter that moves between two loads;
                         a screenshot is kept and its path printed

With --fault (a build with fault injection) the stage "twice" fails its
frame 2000, which is skipped: the skip shows in /metrics and on the page.

Without promtool or chromium it skips (77), except under CI, which installs
them (.ci/run): there their absence fails the test.
"""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

SRCDIR = os.environ.get("G_TEST_SRCDIR", os.path.dirname(__file__))
BUILDDIR = os.environ.get("G_TEST_BUILDDIR", ".")
ACCEL_RUN = os.environ["ACCEL_RUN"]
STAGES = ("src", "twice", "out")
IDLE_TIMEOUT = 3  # s: ACCEL_HTTP_IDLE_TIMEOUT of the run
FAULT = "--fault" in sys.argv


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print("ok: " + msg)


def need(program):
    path = shutil.which(program)
    if path:
        return path
    if os.environ.get("CI"):
        fail(program + " is missing, and CI installs it")
    print("SKIP: " + program + " is not installed")
    sys.exit(77)


def start(idle_timeout=IDLE_TIMEOUT, said=None, path=None):
    """accel-run on the endless pipeline (or the file at path), port 0;
    returns (process, url). Lines on stderr before the readiness line go
    into the list said."""
    env = dict(os.environ)
    env["ACCEL_HTTP_IDLE_TIMEOUT"] = str(idle_timeout)
    if FAULT:
        env["ACCEL_FAULT"] = "twice:invalid-input:2000"
    proc = subprocess.Popen(
        [ACCEL_RUN, "--backend=host", "--quiet", "--http=0",
         path or os.path.join(SRCDIR, "endless.yaml")],
        stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            fail("accel-run ended before it served: status %s" % proc.wait())
        sys.stdout.write("accel-run: " + line)
        if said is not None:
            said.append(line)
        m = re.match(r"accel-run: serving (http://127\.0\.0\.1:(\d+)/)$",
                     line.strip())
        if m:
            check(int(m.group(2)) > 0, "the readiness line names a port")
            return proc, m.group(1)
    proc.kill()
    fail("no readiness line within 60 s")


def stop(proc):
    proc.send_signal(signal.SIGINT)
    try:
        rest = proc.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        fail("accel-run did not end within 60 s of SIGINT")
    sys.stdout.write(rest)
    if FAULT:
        # the injected fault skipped a frame: the run says so in its status
        check(proc.returncode == 3,
              "accel-run ends with status 3 on SIGINT after a skipped frame")
        check("stage 'twice' (core.scale) skipped 1 frame after faults" in rest,
              "accel-run names the stage that skipped a frame")
    else:
        check(proc.returncode == 0, "accel-run ends with status 0 on SIGINT")


def get(url):
    with urllib.request.urlopen(url, timeout=30) as reply:
        return reply.status, reply.headers.get("Content-Type", ""), \
            reply.read().decode()


def wait_running(url):
    """waits, up to 60 s, until every stage has counted frames and, with
    --fault, "twice" has skipped its frame 2000 (a fixed second was too
    short on a loaded machine to reach it)"""
    deadline = time.monotonic() + 60
    while True:
        stages = {s["name"]: s
                  for s in json.loads(get(url + "stats.json")[2])["stages"]}
        if (all(stages[name]["frames"] > 0 for name in STAGES)
                and (not FAULT or stages["twice"]["skipped"] >= 1)):
            return
        if time.monotonic() > deadline:
            fail("the stages did not run%s within 60 s: %s"
                 % (" past the fault" if FAULT else "", stages))
        time.sleep(0.1)


def sample(text, name, **labels):
    """the value of the series @name with @labels (a subset) in @text."""
    for line in text.splitlines():
        m = re.match(r"([a-z_:]+)\{(.*)\} (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        have = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
        if all(have.get(k) == v for k, v in labels.items()):
            return float(m.group(3))
    return None


def test_metrics(proc, url):
    promtool = need("promtool")
    wait_running(url)
    status, ctype, text = get(url + "metrics")
    check(status == 200 and ctype.startswith("text/plain; version=0.0.4"),
          "/metrics is Prometheus text (%s)" % ctype)
    lint = subprocess.run([promtool, "check", "metrics"], input=text,
                          capture_output=True, text=True)
    sys.stdout.write(lint.stdout + lint.stderr)
    check(lint.returncode == 0, "promtool check metrics passes")
    for stage in STAGES:
        n = sample(text, "accel_stage_frames_total", graph="endless",
                   stage=stage)
        check(n is not None and n > 0,
              "accel_stage_frames_total of %s counts frames: %s" % (stage, n))
        inf = sample(text, "accel_stage_latency_seconds_bucket",
                     stage=stage, le="+Inf")
        count = sample(text, "accel_stage_latency_seconds_count", stage=stage)
        check(inf is not None and inf == count and count > 0,
              "%s's latency histogram: +Inf bucket == count (%s)"
              % (stage, count))
        check(sample(text, "accel_stage_state", stage=stage,
                     state="running") == 1, "%s is running" % stage)
    if FAULT:
        for stage in STAGES:
            n = sample(text, "accel_stage_skipped_total", stage=stage)
            check(n == (1 if stage == "twice" else 0),
                  "%s's skipped frames: %s" % (stage, n))
    e2e = sample(text, "accel_sink_end_to_end_latency_seconds_count",
                 stage="out")
    check(e2e is not None and e2e > 0,
          "the sink has source-to-sink latencies: %s" % e2e)
    check(sample(text, "accel_sink_end_to_end_latency_seconds_count",
                 stage="src") is None,
          "only sinks have source-to-sink latency")
    cap = sample(text, "accel_pool_capacity_buffers", stage="src",
                 port="out")
    used = sample(text, "accel_pool_buffers_in_use", stage="src", port="out")
    check(cap is not None and cap > 0 and used is not None and used <= cap,
          "the source's pool: %s of %s buffers in use" % (used, cap))
    check(sample(text, "accel_graph_frames_in_flight", graph="endless")
          is not None, "frames in flight are reported")
    check(sample(text, "accel_device_generation", device="host") is not None,
          "the host device's generation is reported")
    check(sample(text, "accel_device_memory_free_bytes") is None,
          "no device memory series on the host backend")

    status, ctype, first = get(url + "stats.json")
    check(status == 200 and ctype == "application/json",
          "/stats.json is JSON")
    time.sleep(1.5)
    second = get(url + "stats.json")[2]
    a, b = json.loads(first), json.loads(second)
    check([s["name"] for s in a["stages"]] == list(STAGES),
          "/stats.json names the stages in order")
    fa = {s["name"]: s["frames"] for s in a["stages"]}
    fb = {s["name"]: s["frames"] for s in b["stages"]}
    for stage in STAGES:
        check(fb[stage] > fa[stage],
              "%s's frame counter moves: %d -> %d"
              % (stage, fa[stage], fb[stage]))
    check(b["time_us"] > a["time_us"], "time_us moves")
    # a scrape reads a stage's frames and its histogram together: they
    # agree (read apart, the sink's differed by a few frames)
    for scrape in (a, b):
        for s in scrape["stages"]:
            check(s["frames"] == s["latency"]["count"],
                  "%s's frames and latency count agree in one scrape: "
                  "%d, %d" % (s["name"], s["frames"], s["latency"]["count"]))

    status, ctype, page = get(url)
    check(status == 200 and ctype.startswith("text/html"), "/ is HTML")
    if shutil.which("dot"):
        check("<svg" in page and "<title>twice</title>" in page,
              "the page draws the graph as SVG (graphviz installed)")
    else:
        check("<pre>digraph" in page, "the page shows the DOT as text")
    check(get(url + "page.js")[0] == 200, "/page.js is served")
    check_refused_early(url)
    check_odd_targets(proc, url)
    check_long_heads(proc, url)
    check_connections_closed(proc, url)
    check_connection_flood(proc, url)
    check_range_ignored(url)
    check_idle_closed(url)
    check_idle_timeout_bounded()
    check_port_taken(url)
    check_ends_while_scraped()
    check_descriptors_kept()
    check_burst_built_once()
    check_name_not_utf8()
    check_dot_ends_with_run()
    try:
        get(url + "no-such-page")
        fail("/no-such-page is not 404")
    except urllib.error.HTTPError as e:
        check(e.code == 404, "/no-such-page is 404")


def raw_request(url, head):
    """the status line the server answers @head with, sent alone."""
    host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head.encode())
        try:
            reply = sock.makefile("rb").readline().decode()
        except socket.timeout:
            return "(no answer within 10 s)"
    return reply.strip()


def raw_exchange(url, head):
    """(the status line the server answers @head with, sent alone, and
    whether the server then closes the connection within 10 s)."""
    host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()
    reply = b""
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head.encode())
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    return reply.split(b"\r\n")[0].decode(), True
                reply += data
        except socket.timeout:
            return reply.split(b"\r\n")[0].decode(), False


def check_refused_early(url):
    """a request with a body is answered before its body is sent: the
    server never holds a body, whatever its size."""
    t0 = time.monotonic()
    line = raw_request(url, "POST /metrics HTTP/1.1\r\nHost: x\r\n"
                       "Content-Length: 4294967296\r\n\r\n")
    check(line.startswith("HTTP/1.1 405"),
          "a POST of 4 GiB is refused before its body: %s" % line)
    line = raw_request(url, "GET /metrics HTTP/1.1\r\nHost: x\r\n"
                       "Content-Length: 1000000\r\n\r\n")
    check(line.startswith("HTTP/1.1 413"),
          "a GET with a body is refused before it: %s" % line)
    # libsoup takes a length it cannot parse for -1: a body all the same
    for length in ("-1", "18446744073709551615", "99999999999999999999999"):
        line = raw_request(url, "GET /metrics HTTP/1.1\r\nHost: x\r\n"
                           "Content-Length: %s\r\n\r\n" % length)
        check(line.startswith("HTTP/1.1 413"),
              "a GET of length %s is refused before its body: %s"
              % (length, line))
    # any coding: libsoup took "identity" for none (200, the body read as
    # a next request); one it does not know it answers 501 itself
    for coding, status in (("chunked", 413), ("identity", 413),
                           ("gzip", 501)):
        line = raw_request(url, "GET /metrics HTTP/1.1\r\nHost: x\r\n"
                           "Transfer-Encoding: %s\r\n\r\n" % coding)
        check(line.startswith("HTTP/1.1 %d" % status),
              "a GET with Transfer-Encoding '%s' is refused before its body: "
              "%s" % (coding, line))
    check(time.monotonic() - t0 < 5, "all answered at once")
    line = raw_request(url, "GET /metrics HTTP/1.1\r\nHost: x\r\n"
                       "Content-Length: 0\r\n\r\n")
    check(line.startswith("HTTP/1.1 200"),
          "a GET of length 0 is answered: %s" % line)


def check_odd_targets(proc, url):
    """the targets libsoup answers itself when no handler sees them ("*",
    a path that does not decode, a URI not http) are answered before their
    body too, and their connections closed: libsoup read each body whole and
    kept the connection (before 3.3.0 until the descriptors ran out)."""
    t0 = time.monotonic()
    line = raw_request(url, "POST * HTTP/1.1\r\nHost: x\r\n"
                       "Content-Length: 100000000000\r\n\r\n")
    check(line.startswith("HTTP/1.1 405") and time.monotonic() - t0 < 5,
          "a POST * of 100 GB is refused before its body: %s" % line)
    for target, status in (("OPTIONS *", 405), ("GET *", 400),
                           ("HEAD *", 400), ("GET /metrics%00", 400),
                           ("GET ftp://x/metrics", 400)):
        line, closed = raw_exchange(url, target + " HTTP/1.1\r\nHost: x"
                                    "\r\n\r\n")
        check(line.startswith("HTTP/1.1 %d" % status) and closed,
              "%s is answered %d and its connection closed: %s%s"
              % (target, status, line, "" if closed else " (left open)"))
    before = sockets(proc.pid)
    for _ in range(50):
        raw_request(url, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
    after = sockets_settle(proc.pid, before + 5, 10)
    check(after <= before + 5,
          "50 OPTIONS * leave no socket open: %d sockets before, %d after"
          % (before, after))


def check_long_heads(proc, url):
    """a request whose head (request line and headers) is longer than 64 KB
    is answered 431, or 414 while on its request line, and its connection
    closed: libsoup reset the connection with no answer. The server goes on
    answering others, and keeps no socket of them."""
    big = "a" * 70000
    for head, status, what in (
            ("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n" % big,
             431, "a header of 70 KB"),
            ("GET /metrics HTTP/1.1\r\nHost: x\r\n%s\r\n" %
             "".join("X-%d: %s\r\n" % (i, "b" * 1000) for i in range(70)),
             431, "70 headers of 1 KB"),
            ("GET /%s HTTP/1.1\r\nHost: x\r\n\r\n" % big, 414,
             "a request line of 70 KB"),
            ("\r\nGET /%s HTTP/1.1\r\nHost: x\r\n\r\n" % big, 414,
             "a request line of 70 KB after an empty line")):
        line, closed = raw_exchange(url, head)
        check(line.startswith("HTTP/1.1 %d" % status) and closed,
              "%s is answered %d and its connection closed: %s%s"
              % (what, status, line or "(no answer)",
                 "" if closed else " (left open)"))
    line = raw_request(url, "GET /metrics HTTP/1.1\r\nHost: x\r\n"
                       "X-Big: %s\r\n\r\n" % ("a" * 60000))
    check(line.startswith("HTTP/1.1 200"),
          "a header of 60 KB is answered: %s" % line)
    before = sockets(proc.pid)
    for _ in range(20):
        raw_exchange(url, "GET /metrics HTTP/1.1\r\nX-Big: %s\r\n\r\n"
                     % big)
    after = sockets_settle(proc.pid, before + 5, 10)
    check(after <= before + 5,
          "20 heads of 70 KB leave no socket open: %d sockets before, %d "
          "after" % (before, after))
    check(get(url + "metrics")[0] == 200, "the server goes on answering")


def check_idle_closed(url):
    """a connection that sends nothing, or half a request line, is closed
    once idle for ACCEL_HTTP_IDLE_TIMEOUT: else idle ones would pile up
    toward the descriptor limit."""
    host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()
    sent = ("", "GET /metr")
    socks = [socket.create_connection((host, int(port)),
                                      timeout=IDLE_TIMEOUT + 5)
             for _ in sent]
    t0 = time.monotonic()
    for sock, head in zip(socks, sent):
        sock.sendall(head.encode())
    for sock, head in zip(socks, sent):
        try:
            closed = sock.recv(999) == b""
        except socket.timeout:
            closed = False
        waited = time.monotonic() - t0
        sock.close()
        check(closed and waited >= IDLE_TIMEOUT - 0.5,
              "a connection idle after %r is closed at its bound of %d s: "
              "%s after %.1f s" % (head, IDLE_TIMEOUT,
                                   "closed" if closed else "open", waited))


def check_idle_timeout_bounded():
    """an idle timeout past GSocket's 4294 s is refused with a warning and
    30 s kept: 4295 s was taken and wrapped to 0.03 s"""
    said = []
    proc, url = start(idle_timeout=4295, said=said)
    try:
        check(any("ACCEL_HTTP_IDLE_TIMEOUT must be seconds from 1 to 4294, "
                  "not '4295'" in line for line in said),
              "ACCEL_HTTP_IDLE_TIMEOUT=4295 is refused with a warning")
        parsed = urllib.parse.urlparse(url)
        with socket.create_connection((parsed.hostname, parsed.port),
                                      timeout=10) as sock:
            sock.sendall(b"GET /metr")
            time.sleep(1)
            sock.sendall(b"ics HTTP/1.1\r\nHost: x\r\n\r\n")
            line = sock.makefile("rb").readline().decode()
        check(line.startswith("HTTP/1.1 200"),
              "a request that pauses a second is answered: %r" % line)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)


def check_name_not_utf8():
    """a pipeline named after a file name that is not UTF-8 (Latin-1): the
    page is UTF-8, its title and graph give the byte as \\xNN, as
    /stats.json does (the title showed U+FFFD, the graph was not drawn, and
    its text made the page invalid UTF-8)"""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(os.fsencode(tmp), b"caf\xe9.yaml")
        with open(os.path.join(SRCDIR, "endless.yaml"), "rb") as src, \
                open(path, "wb") as dst:
            # named after its file
            dst.write(src.read().replace(b"pipeline: endless\n", b""))
        proc, url = start(path=path)
        try:
            page = get(url)[2]
            name = json.loads(get(url + "stats.json")[2])["graph"]
        finally:
            proc.kill()
            proc.communicate()
    check(name.endswith("caf\\xe9.yaml"),
          "/stats.json names the pipeline caf\\xe9.yaml: " + name)
    check(re.search(r"<title>accel: [^<]*caf\\xe9\.yaml</title>", page)
          is not None, "the page's title gives the byte as in /stats.json")
    if shutil.which("dot"):
        # graphviz refused the raw byte: the page fell back to the DOT text
        check("<svg" in page, "the page draws the graph of a name not UTF-8")


def check_dot_ends_with_run():
    """a run ended (Ctrl-C) while dot draws its page ends dot too: it kept
    drawing after accel-run had gone, for as long as it took"""
    with tempfile.TemporaryDirectory() as tmp:
        pidfile = os.path.join(tmp, "dot.pid")
        dot = os.path.join(tmp, "dot")
        with open(dot, "w") as f:
            f.write("#!/bin/sh\necho $$ > %s.part\nmv %s.part %s\n"
                    "exec sleep 60\n" % (pidfile, pidfile, pidfile))
        os.chmod(dot, 0o755)
        env = dict(os.environ)
        env["PATH"] = tmp + os.pathsep + env.get("PATH", "")
        proc = subprocess.Popen(
            [ACCEL_RUN, "--backend=host", "--quiet", "--http=0",
             os.path.join(SRCDIR, "endless.yaml")],
            stderr=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 30
        while not os.path.exists(pidfile) and time.monotonic() < deadline:
            time.sleep(0.05)
        check(os.path.exists(pidfile), "accel-run --http runs dot")
        with open(pidfile) as f:
            pid = int(f.read())
        proc.send_signal(signal.SIGINT)
        status = proc.wait(timeout=60)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and running(pid):
            time.sleep(0.05)
        gone = not running(pid)
        if not gone:
            os.kill(pid, signal.SIGKILL)
        check(gone, "dot ends with the run that Ctrl-C ended while dot drew "
              "(status %d)" % status)


def running(pid):
    """whether pid runs: a zombie that nothing reaps has ended"""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def sockets(pid):
    """the sockets open in process @pid and its children."""
    n = 0
    for task in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/children" % (pid, task)) as f:
            n += sum(sockets(int(child)) for child in f.read().split())
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            n += os.readlink("/proc/%d/fd/%s" % (pid, fd)).startswith("socket:")
        except FileNotFoundError:
            pass
    return n


def sockets_settle(pid, most, seconds):
    """the sockets open in @pid once at most @most, or after @seconds: the
    server closes its ends as it gets to them."""
    deadline = time.monotonic() + seconds
    while sockets(pid) > most and time.monotonic() < deadline:
        time.sleep(0.1)
    return sockets(pid)


def check_connections_closed(proc, url):
    """connections kept alive and closed by their client are closed by the
    server too (libsoup before 3.3.0 kept each open, until the descriptors
    ran out)."""
    host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()
    before = sockets(proc.pid)
    for _ in range(100):
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        conn.request("GET", "/metrics")  # HTTP/1.1: kept alive by default
        reply = conn.getresponse()
        reply.read()
        conn.close()
        if reply.status != 200:
            fail("a kept-alive request got %d" % reply.status)
    after = sockets_settle(proc.pid, before + 10, 30)
    check(after <= before + 10,
          "100 connections closed by their client leave no socket open: "
          "%d sockets before, %d after" % (before, after))


def check_connection_flood(proc, url):
    """idle connections past the server's bound (64) shut the oldest: the
    server holds a bounded number of descriptors and answers throughout.
    Before, about a thousand took every descriptor, and the listener
    stopped accepting for good."""
    host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()
    before = sockets(proc.pid)
    flood = []
    for _ in range(200):
        try:
            flood.append(socket.create_connection((host, int(port)),
                                                  timeout=10))
        except OSError:
            break
    during = sockets_settle(proc.pid, before + 70, 10)
    check(during <= before + 70,
          "200 idle connections hold at most 64 of the server's sockets: "
          "%d before, %d during" % (before, during))
    t0 = time.monotonic()
    check(get(url + "stats.json")[0] == 200 and time.monotonic() - t0 < 2,
          "the server answers at once while they stay open (the oldest is "
          "shut), not once they time out: %.1f s" % (time.monotonic() - t0))
    for sock in flood:
        sock.close()
    check(get(url + "stats.json")[0] == 200,
          "and once they are gone")


def check_descriptors_kept():
    """the server's connections have descriptors of their own: 64 idle
    ones at a limit that fits the graph (a sink that opens a file a frame
    under ulimit -n 48) leave the run going. Before, the graph's count of
    what it needs left them out, and the sink failed with "Too many open
    files", status 1."""
    import resource
    tmp = tempfile.mkdtemp(prefix="accel-http-fds-")
    path = os.path.join(tmp, "png.yaml")
    with open(path, "w") as f:
        f.write("pipeline: png\nstages:\n"
                "  - {name: src, kind: io.pattern-source, params: "
                "{width: 8, height: 8}}\n"
                "  - {name: out, kind: io.png-sink, params: {location: \"%s\"}}\n"
                "links: [src -> out]\n"
                % os.path.join(tmp, "f-%09d.png"))

    def limit():
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (48, hard))

    proc = subprocess.Popen(
        [ACCEL_RUN, "--backend=host", "--quiet", "--http=0", path],
        stderr=subprocess.PIPE, text=True, preexec_fn=limit)
    line = proc.stderr.readline()
    m = re.match(r"accel-run: serving http://127\.0\.0\.1:(\d+)/$",
                 line.strip())
    if not m:
        proc.kill()
        fail("no readiness line: %r, status %s" % (line, proc.wait()))
    idle = [socket.create_connection(("127.0.0.1", int(m.group(1))),
                                     timeout=10) for _ in range(64)]
    time.sleep(2)
    running = proc.poll() is None
    for sock in idle:
        sock.close()
    proc.send_signal(signal.SIGINT)
    try:
        rest = proc.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        rest = proc.communicate()[1]
    shutil.rmtree(tmp)
    check(running and proc.returncode == 0,
          "64 idle connections under ulimit -n 48 leave a sink that opens a "
          "file a frame running: status %s, %s"
          % (proc.returncode, rest.strip()[-300:]))


def check_burst_built_once():
    """a burst of scrapes of a graph of 300 stages is answered from few
    builds of its metrics, each kept while younger than it took to build:
    each request built its own, on the main loop, and 63 of them held a
    SIGTERM and every other client for seconds (2.5-7 s at 1000 stages)"""
    env = dict(os.environ, G_MESSAGES_DEBUG="accel-http")
    path, proc, url = start_chain(300, [], env)
    port = int(re.match(r"http://\S+:(\d+)/$", url).group(1))
    burst = [socket.create_connection(("127.0.0.1", port), timeout=30)
             for _ in range(63)]
    for sock in burst:
        sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    answered = 0
    for sock in burst:
        answered += sock.recv(16).startswith(b"HTTP/1.1 200")
        sock.close()
    proc.send_signal(signal.SIGINT)
    try:
        err = proc.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        err = proc.communicate()[1]
    os.unlink(path)
    builds = err.count("an answer built in")
    check(answered == 63 and 1 <= builds <= 16 and proc.returncode == 0,
          "63 scrapes at once answered from %d builds of the metrics "
          "(at most 16), %d answered, status %s"
          % (builds, answered, proc.returncode))


def check_range_ignored(url):
    """a Range is answered with the whole body: libsoup cut a small body
    into as many parts as asked, "bytes=0-,0-,..." made 12 KB 97 MB."""
    host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request("GET", "/metrics",
                 headers={"Range": "bytes=" + ",".join(["0-"] * 1000)})
    reply = conn.getresponse()
    body = reply.read()
    conn.close()
    check(reply.status == 200 and len(body) < 10 * 1024 * 1024,
          "a Range of 1000 parts gets the body once: %d, %d bytes"
          % (reply.status, len(body)))


def check_port_taken(url):
    """a second run on a port in use fails before its graph starts."""
    port = re.match(r"http://[^:/]+:(\d+)/", url).group(1)
    second = subprocess.run(
        [ACCEL_RUN, "--backend=host", "--http=" + port,
         os.path.join(SRCDIR, "endless.yaml")],
        capture_output=True, text=True, timeout=60)
    sys.stdout.write(second.stderr)
    check(second.returncode == 2, "a port in use fails the run with status 2")
    check("running 'endless'" not in second.stderr,
          "the graph of a run whose port is in use never starts")
    # a supervised run (a world, as every run on a GPU) passes its worker's
    # status 2 on
    world = subprocess.run(
        [ACCEL_RUN, "--backend=host", "--ranks=1", "--http=" + port,
         os.path.join(SRCDIR, "endless.yaml")],
        capture_output=True, text=True, timeout=120)
    sys.stdout.write(world.stderr)
    check(world.returncode == 2,
          "a supervised run on a port in use ends with status 2 too")
    # rank r serves PORT + r: rank 1's port is the one in use, and its
    # line says which rank could not serve
    ranks = subprocess.run(
        [ACCEL_RUN, "--backend=host", "--ranks=2",
         "--http=%d" % (int(port) - 1), os.path.join(SRCDIR, "endless.yaml")],
        capture_output=True, text=True, timeout=120)
    sys.stdout.write(ranks.stderr)
    check(ranks.returncode == 2,
          "a world whose rank 1 cannot serve ends with status 2")
    # (rank 0's port, the one below, may be taken by chance too)
    check(re.search(r"accel-run: rank [01]: --http: ", ranks.stderr),
          "the rank that cannot serve is named: %r" % ranks.stderr)


def start_chain(stages, options, env=None):
    """accel-run --http=0 with @options on a chain of @stages stages (a
    test source, core.scale stages, a null sink) in a file of its own;
    returns (the file, process, url), once it serves"""
    lines = ["pipeline: chain", "stages:",
             "  - {name: src, kind: core.test-source, params: {shape: \"16\"}}"]
    lines += ["  - {name: s%d, kind: core.scale, params: {scale: 1}}" % i
              for i in range(stages - 2)]
    lines += ["  - {name: out, kind: core.null-sink}", "links:",
              "  - src -> " + " -> ".join("s%d" % i for i in range(stages - 2))
              + " -> out"]
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    proc = subprocess.Popen(
        [ACCEL_RUN, "--backend=host", "--quiet", "--http=0"] + options
        + [f.name], stderr=subprocess.PIPE, text=True, env=env)
    while True:
        line = proc.stderr.readline()
        if not line:
            fail("accel-run ended before it served: status %s" % proc.wait())
        m = re.match(r"accel-run: serving (http://\S+/)$", line.strip())
        if m:
            return f.name, proc, m.group(1)


def check_ends_while_scraped():
    """a run ends when its graph does, however busy its server: the end
    was taken on the main loop after every ready request, and four
    scrapers kept a finished run of 100 stages going for good."""
    import threading
    path, proc, url = start_chain(100, ["--frames=3000"])
    done = threading.Event()

    def scrape():
        while not done.is_set():
            try:
                get(url + "metrics")
            except (OSError, urllib.error.URLError, http.client.HTTPException):
                pass

    scrapers = [threading.Thread(target=scrape) for _ in range(4)]
    for t in scrapers:
        t.start()
    t0 = time.monotonic()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    done.set()
    for t in scrapers:
        t.join()
    os.unlink(path)
    check(proc.returncode == 0,
          "a run of 3000 frames scraped by four clients ends with status 0 "
          "within 60 s: status %s after %.1f s"
          % (proc.returncode, time.monotonic() - t0))


def chromium(browser, profile, *args):
    cmd = [browser, "--headless", "--disable-gpu", "--no-sandbox",
           "--no-first-run", "--user-data-dir=" + profile,
           "--virtual-time-budget=3000"] + list(args)
    # without the sanitizer runtime the asan setup preloads for accel-run:
    # Chromium, not built with it, hangs with it loaded
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                          env=env)
    if proc.returncode != 0:
        sys.stdout.write(proc.stderr)
        fail("chromium exited with %d" % proc.returncode)
    return proc.stdout


def frames_in_dom(dom, stage):
    m = re.search(r'<tr id="stage-%s">(.*?)</tr>' % stage, dom, re.S)
    if not m:
        return None
    cell = re.search(r'<td class="frames">(\d+)</td>', m.group(1))
    return int(cell.group(1)) if cell else None


def test_page(proc, url):
    browser = need("chromium")
    wait_running(url)
    with tempfile.TemporaryDirectory() as profile:
        first = chromium(browser, profile, "--dump-dom", url)
        time.sleep(1.0)
        second = chromium(browser, profile, "--dump-dom", url)
        shot = os.path.abspath(os.path.join(BUILDDIR, "http-page.png"))
        if os.path.exists(shot):
            os.unlink(shot)
        chromium(browser, profile, "--window-size=1200,900",
                 "--screenshot=" + shot, url)
    check(os.path.getsize(shot) > 1000, "screenshot: " + shot)
    check(re.search(r'id="updates">[1-9]', second) is not None,
          "the page updated from /stats.json")
    check(re.search(r'id="status"[^>]*>live<', second) is not None,
          "the page says it is live")
    for stage in STAGES:
        a, b = frames_in_dom(first, stage), frames_in_dom(second, stage)
        check(a is not None and b is not None,
              "the page has a row for %s with its frames (%s)" % (stage, b))
        check(b > a, "%s's frame counter moves on the page: %d -> %d"
              % (stage, a, b))
        check(re.search(r'<td class="name">%s</td>' % stage, second)
              is not None, "the page names %s" % stage)
        check(re.search(r'<td class="state running">running</td>', second)
              is not None, "a stage shows as running")
        check(re.search(r'<tr id="stage-%s">.*?<td class="lost">0</td>'
                        % stage, second, re.S) is not None,
              "the page shows %s's lost frames" % stage)
    if FAULT:
        m = re.search(r'<tr id="stage-twice">.*?<td class="skipped">(\d+)<',
                      second, re.S)
        check(m is not None and m.group(1) == "1",
              "the page shows twice's skipped frame")
    if shutil.which("dot"):
        check('data-state="running"' in second,
              "the graph's nodes are coloured by state")


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "metrics"
    if mode not in ("metrics", "page"):
        fail("usage: test-http.py metrics|page [--fault]")
    if mode == "page":
        need("chromium")
    else:
        need("promtool")
    proc, url = start()
    try:
        (test_page if mode == "page" else test_metrics)(proc, url)
    except SystemExit:
        proc.kill()
        raise
    except Exception:
        proc.kill()
        raise
    stop(proc)


if __name__ == "__main__":
    main()
