// the live page: polls stats.json once a second and updates the table, the
// graph's nodes and the list of restarts and faults; no outside resources
"use strict";

const columns = ["name", "kind", "state", "frames", "rate", "p50", "p99",
  "queue", "restarts", "skipped", "lost", "dropped"];
const fills = { running: "#d8f0d8", done: "#e4e4e4", failed: "#f7c6c6",
  idle: "#ffffff" };
const rows = new Map();
const previous = new Map();
const generations = new Map();
let lastTime = 0;
let updates = 0;

function ms(ns) {
  return ns < 0 ? "" : (ns / 1e6).toFixed(3);
}

function rowFor(stage) {
  let tr = rows.get(stage.name);
  if (!tr) {
    tr = document.createElement("tr");
    tr.id = "stage-" + stage.name;
    for (const c of columns) {
      const td = document.createElement("td");
      td.className = c;
      tr.appendChild(td);
    }
    document.querySelector("#stages tbody").appendChild(tr);
    rows.set(stage.name, tr);
  }
  return tr;
}

function set(tr, column, text) {
  tr.querySelector("td." + column).textContent = text;
}

function event(text, fault) {
  const li = document.createElement("li");
  li.textContent = new Date().toLocaleTimeString() + " " + text;
  if (fault)
    li.className = "fault";
  document.getElementById("events").prepend(li);
}

// graphviz names each node's group by its title: the stage's name
function colourNode(name, state, text) {
  for (const g of document.querySelectorAll("#graph g.node")) {
    const title = g.querySelector("title");
    if (!title || title.textContent !== name)
      continue;
    const shape = g.querySelector("polygon, ellipse, path");
    if (shape)
      shape.setAttribute("fill", fills[state] || "#ffffff");
    g.setAttribute("data-state", state);
    let live = g.querySelector("title.live");
    if (!live) {
      live = document.createElementNS("http://www.w3.org/2000/svg", "title");
      live.classList.add("live");
      g.appendChild(live);
    }
    live.textContent = text;
  }
}

// rates from the server's clock: a page in the background is slowed down
function show(stats) {
  const now = stats.time_us;
  const dt = lastTime ? (now - lastTime) / 1e6 : 0;
  for (const st of stats.stages) {
    const tr = rowFor(st);
    const was = previous.get(st.name);
    set(tr, "name", st.name);
    set(tr, "kind", st.kind);
    set(tr, "state", st.state);
    tr.querySelector("td.state").className = "state " + st.state;
    set(tr, "frames", String(st.frames));
    // a counter that went down: a new worker counts from its resume point
    const anew = was && st.frames < was.frames;
    if (was && dt > 0 && !anew)
      set(tr, "rate", ((st.frames - was.frames) / dt).toFixed(1));
    set(tr, "p50", ms(st.latency_p50_ns));
    set(tr, "p99", ms(st.latency_p99_ns));
    set(tr, "queue", st.queue_depth + " / " + st.queue_depth_max);
    set(tr, "restarts", String(st.restarts));
    set(tr, "skipped", String(st.skipped));
    set(tr, "lost", String(st.lost));
    set(tr, "dropped", String(st.dropped));
    if (anew)
      event(st.name + ": counting anew from frame " + st.frames +
        " (a new worker)", true);
    if (was && !anew) {
      if (st.restarts > was.restarts)
        event(st.name + ": restarted (" + st.restarts + " in all)", true);
      if (st.skipped > was.skipped)
        event(st.name + ": " + (st.skipped - was.skipped) +
          " frame(s) skipped after a fault", true);
      if (st.lost > was.lost)
        event(st.name + ": " + (st.lost - was.lost) +
          " frame(s) lost past a restart", true);
      if (st.state !== was.state)
        event(st.name + ": " + was.state + " \u2192 " + st.state,
          st.state === "failed");
    }
    colourNode(st.name, st.state, st.state + ", " + st.frames + " frames");
    previous.set(st.name, st);
  }
  // a device's generation moves when its context was rebuilt
  for (const d of stats.devices || []) {
    const had = generations.get(d.name);
    if (had !== undefined && d.generation !== had)
      event(d.name + ": generation " + had + " \u2192 " + d.generation +
        " (its context was rebuilt)", true);
    generations.set(d.name, d.generation);
  }
  document.getElementById("in-flight").textContent =
    String(stats.frames_in_flight);
  document.getElementById("updates").textContent = String(++updates);
  lastTime = now;
}

async function update() {
  const status = document.getElementById("status");
  try {
    const reply = await fetch("stats.json", { cache: "no-store" });
    if (!reply.ok)
      throw new Error(reply.statusText);
    show(await reply.json());
    status.textContent = "live";
    status.className = "";
  } catch (e) {
    status.textContent = "not reachable: " + e.message;
    status.className = "down";
  }
}

update();
setInterval(update, 1000);
