/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a running graph's metrics, read from any thread and written out as
 * Prometheus text or JSON: per stage counters, state, queue depth and latency
 * histograms (the sinks' from their source too), per pool buffers and waits,
 * per device memory, and the frames in flight. The stages count on their own
 * threads (accelstagestats.c); this only reads. docs/metrics.md names every
 * series. G_MESSAGES_DEBUG=accel-metrics tells when a device's memory cannot
 * be read */
#define G_LOG_DOMAIN "accel-metrics"

#include "accelgraph-private.h"
#include "accelstage-private.h"

typedef struct
{
  AccelStage *stage;
  AccelStageKind role;
  const char *kind;
  const char *state;
  guint64 frames, dropped, restarts, skipped, retried, lost;
  guint64
      withheld; /* frames it withheld (ACCEL_FLOW_SKIP) or committed before */
  guint queue_now, queue_max;
  gint64 p50_ns, p99_ns;
  AccelHistogram latency;
  AccelHistogram e2e;
  gboolean is_sink;
} StageSnapshot;

typedef struct
{
  const char *stage;
  const char *port;
  guint64 in_use, allocated, capacity, waits;
} PoolSnapshot;

typedef struct
{
  AccelDevice *device;
  guint64 free_bytes, total_bytes;
  gboolean have_memory;
} DeviceSnapshot;

typedef struct
{
  const char *graph;
  AccelWorld *world; /* the world the process is a rank of, or NULL */
  GArray *stages;    /* StageSnapshot */
  GArray *pools;     /* PoolSnapshot */
  GArray *devices;   /* DeviceSnapshot */
  guint64 in_flight;
} Snapshot;

static const char *
kind_name (AccelStageKind kind)
{
  switch (kind)
    {
    case ACCEL_STAGE_SOURCE:
      return "source";
    case ACCEL_STAGE_SINK:
      return "sink";
    default:
      return "transform";
    }
}

static void
add_device (Snapshot *snap, AccelDevice *device)
{
  DeviceSnapshot d = { device, 0, 0, FALSE };
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < snap->devices->len; i++)
    if (g_array_index (snap->devices, DeviceSnapshot, i).device == device)
      return;
  /* the host's memory is not the graph's to watch */
  if (accel_device_get_index (device) >= 0)
    {
      d.have_memory = accel_device_get_memory_info (
          device, &d.free_bytes, &d.total_bytes, &error);
      if (!d.have_memory)
        g_debug ("device %s: no memory figures: %s",
            accel_device_get_name (device), error->message);
    }
  g_array_append_val (snap->devices, d);
}

/* who feeds whom, by index in the snapshot, built once a snapshot: the
 * stages feeding stage i are from[first[i]] .. from[first[i + 1] - 1] */
typedef struct
{
  guint *first;
  guint *from;
  guint *mark; /* per stage: 1 + the index of the last sink that reached it */
  guint *todo; /* the stages a sink's walk has still to visit */
} Upstream;

static void
upstream_init (Upstream *up, AccelGraph *graph, GPtrArray *stages)
{
  GArray *wiring = graph->wiring ? graph->wiring : graph->links;
  g_autoptr (GHashTable) index = g_hash_table_new (NULL, NULL);
  g_autofree guint *src = g_new (guint, wiring->len);
  g_autofree guint *dst = g_new (guint, wiring->len);
  guint n = 0;

  /* 1 + the index, as 0 is no stage of the snapshot */
  for (guint i = 0; i < stages->len; i++)
    g_hash_table_insert (index, stages->pdata[i], GUINT_TO_POINTER (i + 1));
  /* a link from or to a stage outside the snapshot leads nowhere */
  for (guint l = 0; l < wiring->len; l++)
    {
      const GraphLink *link = &g_array_index (wiring, GraphLink, l);
      guint s = GPOINTER_TO_UINT (g_hash_table_lookup (index, link->src));
      guint d = GPOINTER_TO_UINT (g_hash_table_lookup (index, link->dst));

      if (s && d)
        {
          src[n] = s - 1;
          dst[n++] = d - 1;
        }
    }
  up->first = g_new0 (guint, stages->len + 1);
  up->from = g_new (guint, n);
  up->mark = g_new0 (guint, stages->len);
  up->todo = g_new (guint, stages->len);
  /* each stage's count summed up to the end of its slots, then its feeders
   * filled in from there back to their start */
  for (guint l = 0; l < n; l++)
    up->first[dst[l]]++;
  for (guint i = 0; i < stages->len; i++)
    up->first[i + 1] += up->first[i];
  for (guint l = n; l-- > 0;)
    up->from[--up->first[dst[l]]] = src[l];
}

static void
upstream_clear (Upstream *up)
{
  g_free (up->first);
  g_free (up->from);
  g_free (up->mark);
  g_free (up->todo);
}

/* the frames the sink at @sink in @snap has still to finish: what the
 * sources upstream of it produced, less what it finished (or had committed
 * before) and what the stages between them skipped, dropped or withheld
 * (those never come). Graphs of independent branches are each held to
 * their own sources */
static guint64
sink_in_flight (Snapshot *snap, Upstream *up, guint sink)
{
  const StageSnapshot *mine
      = &g_array_index (snap->stages, StageSnapshot, sink);
  guint64 produced = 0, gone = 0;
  guint n_todo = 0;

  up->mark[sink] = sink + 1;
  up->todo[n_todo++] = sink;
  while (n_todo > 0)
    {
      guint i = up->todo[--n_todo];
      const StageSnapshot *st = &g_array_index (snap->stages, StageSnapshot, i);

      if (st->role == ACCEL_STAGE_SOURCE)
        produced = MAX (produced, st->frames);
      else if (i != sink)
        gone += st->skipped + st->dropped + st->withheld;
      for (guint f = up->first[i]; f < up->first[i + 1]; f++)
        if (up->mark[up->from[f]] != sink + 1)
          {
            up->mark[up->from[f]] = sink + 1;
            up->todo[n_todo++] = up->from[f];
          }
    }
  gone += mine->skipped + mine->dropped + mine->withheld + mine->frames;
  return produced > gone ? produced - gone : 0;
}

/* the order take_snapshot() reads the counters of each kind of stage in:
 * downstream first */
static guint
counter_pass (AccelStageKind kind)
{
  switch (kind)
    {
    case ACCEL_STAGE_SINK:
      return 0;
    case ACCEL_STAGE_SOURCE:
      return 2;
    default:
      return 1;
    }
}

static void
take_snapshot (AccelGraph *graph, Snapshot *snap)
{
  GPtrArray *stages = accel_graph_get_stages (graph);
  Upstream up;

  snap->graph = accel_graph_get_name (graph);
  snap->world = accel_world_get_default ();
  snap->stages = g_array_new (FALSE, TRUE, sizeof (StageSnapshot));
  snap->pools = g_array_new (FALSE, TRUE, sizeof (PoolSnapshot));
  snap->devices = g_array_new (FALSE, TRUE, sizeof (DeviceSnapshot));
  g_array_set_size (snap->stages, stages->len);

  /* the counters frames in flight come from are read first, together, and
   * sinks before sources: a sink read after its sources, or with the rest
   * of this work in between, could have finished more frames than they
   * were read to have produced, and the frames in flight read 0 */
  for (guint pass = 0; pass < 3; pass++)
    for (guint i = 0; i < stages->len; i++)
      {
        AccelStage *stage = stages->pdata[i];
        StageSnapshot *s = &g_array_index (snap->stages, StageSnapshot, i);

        if (counter_pass (accel_stage_get_stage_kind (stage)) != pass)
          continue;
        /* with its histograms, in one read: their counts are the frames' */
        s->is_sink = accel_stage_get_histograms (
            stage, &s->frames, &s->latency, &s->e2e);
        s->dropped = accel_stage_get_n_dropped (stage);
        s->skipped = accel_stage_get_n_skipped (stage);
        s->withheld = accel_stage_get_n_withheld (stage);
      }

  for (guint i = 0; i < stages->len; i++)
    {
      AccelStage *stage = stages->pdata[i];
      StageSnapshot *s = &g_array_index (snap->stages, StageSnapshot, i);

      s->stage = stage;
      s->role = accel_stage_get_stage_kind (stage);
      s->kind = kind_name (s->role);
      s->state = accel_stage_get_state_name (stage);
      s->restarts = accel_stage_get_n_restarts (stage);
      s->retried = accel_stage_get_n_retried (stage);
      s->lost = accel_stage_get_n_lost (stage);
      accel_stage_get_queue_depth (stage, &s->queue_now, &s->queue_max);
      accel_stage_get_latency (stage, &s->p50_ns, &s->p99_ns);

      for (guint o = 0; o < accel_stage_get_n_outputs (stage); o++)
        {
          g_autoptr (AccelPool) pool = accel_stage_dup_output_pool (stage, o);
          PoolSnapshot p;

          if (!pool)
            continue;
          p.stage = accel_stage_get_name (stage);
          p.port = accel_graph_port_name (stage, ACCEL_PORT_OUTPUT, o);
          p.in_use = accel_pool_get_n_outstanding (pool);
          p.allocated = accel_pool_get_n_allocated (pool);
          p.capacity = accel_pool_get_max_buffers (pool);
          p.waits = accel_pool_get_n_waits (pool);
          g_array_append_val (snap->pools, p);
        }
      add_device (snap, accel_stage_get_device (stage));
    }
  /* the sink furthest behind; one whose stream ended waits for nothing */
  snap->in_flight = 0;
  upstream_init (&up, graph, stages);
  for (guint i = 0; i < stages->len; i++)
    {
      const StageSnapshot *st = &g_array_index (snap->stages, StageSnapshot, i);
      guint64 behind;

      if (st->role != ACCEL_STAGE_SINK || g_str_equal (st->state, "done"))
        continue;
      /* MAX () evaluates its arguments twice, and a second walk would find
       * every stage marked */
      behind = sink_in_flight (snap, &up, i);
      snap->in_flight = MAX (snap->in_flight, behind);
    }
  upstream_clear (&up);
}

static void
snapshot_clear (Snapshot *snap)
{
  g_array_unref (snap->stages);
  g_array_unref (snap->pools);
  g_array_unref (snap->devices);
}

/**
 * accel_utf8_escape_bytes:
 * @text: (nullable): a string, UTF-8 or not
 *
 * @text with each byte that is not UTF-8 written as the text `\xNN`, the
 * form the metrics, `accel_json_quote()` and the live page give names in:
 * a graph is named after its file's path, which need not be UTF-8. %NULL
 * gives "". MT safe.
 *
 * Returns: (transfer full): valid UTF-8.
 */
gchar *
accel_utf8_escape_bytes (const char *text)
{
  GString *s = g_string_new (NULL);
  const char *p = text ? text : "", *end;

  while (!g_utf8_validate (p, -1, &end))
    {
      g_string_append_len (s, p, end - p);
      g_string_append_printf (s, "\\x%02x", (guchar)*end);
      p = end + 1;
    }
  g_string_append (s, p);
  return g_string_free (s, FALSE);
}

/* appends @value (%NULL: empty, as in accel_graph_to_dot()) by
 * @append_run, which escapes it for Prometheus text or JSON (both UTF-8):
 * a byte that is not UTF-8 is kept as `\xNN`, its backslash escaped */
static void
append_utf8 (GString *s, const char *value,
    void (*append_run) (GString *s, const char *run, const char *end))
{
  g_autofree gchar *valid = accel_utf8_escape_bytes (value);

  append_run (s, valid, valid + strlen (valid));
}

/* Prometheus */

/* a label value: backslash, double quote and newline escaped */
static void
append_label_run (GString *s, const char *run, const char *end)
{
  for (const char *p = run; p < end; p++)
    {
      if (*p == '\\' || *p == '"')
        g_string_append_c (s, '\\');
      if (*p == '\n')
        g_string_append (s, "\\n");
      else
        g_string_append_c (s, *p);
    }
}

static void
append_label (GString *s, const char *value)
{
  append_utf8 (s, value, append_label_run);
}

static void
append_help (GString *s, const char *name, const char *type, const char *help)
{
  g_string_append_printf (
      s, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{graph="..",rank="..",world_size="..", the rank's labels only in a
 * world: every rank serves its own graph, which is the same graph */
static void
append_series (GString *s, const char *name, const Snapshot *snap)
{
  g_string_append_printf (s, "%s{graph=\"", name);
  append_label (s, snap->graph);
  if (snap->world)
    g_string_append_printf (s, "\",rank=\"%u\",world_size=\"%u",
        accel_world_get_rank (snap->world), accel_world_get_size (snap->world));
}

/* name{graph="..",stage=".." */
static void
append_stage_series (
    GString *s, const char *name, const Snapshot *snap, AccelStage *stage)
{
  append_series (s, name, snap);
  g_string_append (s, "\",stage=\"");
  append_label (s, accel_stage_get_name (stage));
  g_string_append (s, "\"");
}

static void
append_seconds (GString *s, gint64 ns)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (s, g_ascii_formatd (buf, sizeof (buf), "%.9g", ns / 1e9));
}

typedef enum
{
  COUNTER_FRAMES,
  COUNTER_DROPPED,
  COUNTER_RESTARTS,
  COUNTER_SKIPPED,
  COUNTER_RETRIED,
  COUNTER_LOST,
  N_COUNTERS
} Counter;

static const struct
{
  const char *name;
  const char *help;
} counters[N_COUNTERS] = {
  { "accel_stage_frames_total", "Frames the stage processed." },
  { "accel_stage_dropped_total",
      "Input buffers dropped without a partner of their sequence, or "
      "queued or pushed after the stream ended." },
  { "accel_stage_restarts_total", "Restarts by the stage's supervisor." },
  { "accel_stage_skipped_total", "Frames skipped after a fault." },
  { "accel_stage_retried_total",
      "Frames run again after a fault (out of memory, or made again "
      "after a restart)." },
  { "accel_stage_lost_total",
      "Frames of a live source that a worker restart could not replay." },
};

static guint64
counter_value (const StageSnapshot *s, Counter c)
{
  switch (c)
    {
    case COUNTER_FRAMES:
      return s->frames;
    case COUNTER_DROPPED:
      return s->dropped;
    case COUNTER_RESTARTS:
      return s->restarts;
    case COUNTER_SKIPPED:
      return s->skipped;
    case COUNTER_RETRIED:
      return s->retried;
    default:
      return s->lost;
    }
}

static void
append_histogram (GString *s, const char *name, const Snapshot *snap,
    AccelStage *stage, const AccelHistogram *h)
{
  guint64 cumulative = 0;
  g_autofree gchar *bucket = g_strconcat (name, "_bucket", NULL);
  g_autofree gchar *sum = g_strconcat (name, "_sum", NULL);
  g_autofree gchar *count = g_strconcat (name, "_count", NULL);

  for (guint b = 0; b <= ACCEL_HISTOGRAM_BUCKETS; b++)
    {
      cumulative += h->counts[b];
      append_stage_series (s, bucket, snap, stage);
      g_string_append (s, ",le=\"");
      if (b < ACCEL_HISTOGRAM_BUCKETS)
        append_seconds (s, accel_histogram_bounds_ns[b]);
      else
        g_string_append (s, "+Inf");
      g_string_append_printf (s, "\"} %" G_GUINT64_FORMAT "\n", cumulative);
    }
  append_stage_series (s, sum, snap, stage);
  g_string_append (s, "} ");
  append_seconds (s, h->sum_ns);
  g_string_append_c (s, '\n');
  append_stage_series (s, count, snap, stage);
  g_string_append_printf (s, "} %" G_GUINT64_FORMAT "\n", h->count);
}

static const struct
{
  const char *name;
  const char *type;
  const char *help;
  gsize offset;
} pool_series[] = {
  { "accel_pool_buffers_in_use", "gauge", "Buffers of the pool handed out now.",
      G_STRUCT_OFFSET (PoolSnapshot, in_use) },
  { "accel_pool_buffers_allocated", "gauge", "Buffers the pool has allocated.",
      G_STRUCT_OFFSET (PoolSnapshot, allocated) },
  { "accel_pool_capacity_buffers", "gauge",
      "The most buffers the pool may allocate.",
      G_STRUCT_OFFSET (PoolSnapshot, capacity) },
  { "accel_pool_waits_total", "counter",
      "Acquires that found every buffer in use and waited.",
      G_STRUCT_OFFSET (PoolSnapshot, waits) },
};

static void
append_pool_series (GString *s, const char *name, const Snapshot *snap,
    const PoolSnapshot *p, guint64 value)
{
  append_series (s, name, snap);
  g_string_append (s, "\",stage=\"");
  append_label (s, p->stage);
  g_string_append (s, "\",port=\"");
  append_label (s, p->port);
  g_string_append_printf (s, "\"} %" G_GUINT64_FORMAT "\n", value);
}

static void
append_device_series (GString *s, const char *name, const Snapshot *snap,
    AccelDevice *device, guint64 value)
{
  append_series (s, name, snap);
  g_string_append (s, "\",device=\"");
  append_label (s, accel_device_get_name (device));
  g_string_append_printf (s, "\"} %" G_GUINT64_FORMAT "\n", value);
}

/**
 * accel_graph_metrics_to_prometheus:
 * @graph: a graph
 *
 * The graph's metrics in the Prometheus text exposition format (version
 * 0.0.4), every series labelled with `graph`, and with `rank` and
 * `world_size` in a process that is a rank of a world
 * (accel_world_get_default()); docs/metrics.md lists them.
 * Reading them takes each stage's statistics lock briefly and never waits
 * for a frame.
 *
 * Returns: (transfer full): the text. Called from the thread that builds the
 * graph, or from any thread between accel_graph_start() and
 * accel_graph_stop().
 */
gchar *
accel_graph_metrics_to_prometheus (AccelGraph *graph)
{
  static const char *const states[] = { "idle", "running", "done", "failed" };
  GString *s;
  Snapshot snap;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), NULL);
  take_snapshot (graph, &snap);
  s = g_string_new (NULL);

  for (Counter c = 0; c < N_COUNTERS; c++)
    {
      append_help (s, counters[c].name, "counter", counters[c].help);
      for (guint i = 0; i < snap.stages->len; i++)
        {
          StageSnapshot *st = &g_array_index (snap.stages, StageSnapshot, i);
          append_stage_series (s, counters[c].name, &snap, st->stage);
          g_string_append_printf (
              s, "} %" G_GUINT64_FORMAT "\n", counter_value (st, c));
        }
    }

  append_help (s, "accel_stage_state", "gauge",
      "1 for the stage's state: idle, running, done or failed.");
  for (guint i = 0; i < snap.stages->len; i++)
    {
      StageSnapshot *st = &g_array_index (snap.stages, StageSnapshot, i);
      for (guint k = 0; k < G_N_ELEMENTS (states); k++)
        {
          append_stage_series (s, "accel_stage_state", &snap, st->stage);
          g_string_append_printf (s, ",kind=\"%s\",state=\"%s\"} %d\n",
              st->kind, states[k], g_str_equal (st->state, states[k]));
        }
    }

  append_help (s, "accel_stage_queue_depth", "gauge",
      "Buffers queued on the stage's fullest input.");
  for (guint i = 0; i < snap.stages->len; i++)
    {
      StageSnapshot *st = &g_array_index (snap.stages, StageSnapshot, i);
      append_stage_series (s, "accel_stage_queue_depth", &snap, st->stage);
      g_string_append_printf (s, "} %u\n", st->queue_now);
    }
  append_help (s, "accel_stage_queue_depth_max", "gauge",
      "The most buffers ever queued on one of the stage's inputs.");
  for (guint i = 0; i < snap.stages->len; i++)
    {
      StageSnapshot *st = &g_array_index (snap.stages, StageSnapshot, i);
      append_stage_series (s, "accel_stage_queue_depth_max", &snap, st->stage);
      g_string_append_printf (s, "} %u\n", st->queue_max);
    }

  append_help (s, "accel_stage_latency_seconds", "histogram",
      "Host time per frame, from taking the inputs to the end of the "
      "stage's own work.");
  for (guint i = 0; i < snap.stages->len; i++)
    {
      StageSnapshot *st = &g_array_index (snap.stages, StageSnapshot, i);
      append_histogram (
          s, "accel_stage_latency_seconds", &snap, st->stage, &st->latency);
    }

  append_help (s, "accel_sink_end_to_end_latency_seconds", "histogram",
      "From the start of a frame at its source to its end at this sink, "
      "the first frames left out.");
  for (guint i = 0; i < snap.stages->len; i++)
    {
      StageSnapshot *st = &g_array_index (snap.stages, StageSnapshot, i);
      if (st->is_sink)
        append_histogram (s, "accel_sink_end_to_end_latency_seconds", &snap,
            st->stage, &st->e2e);
    }

  for (guint k = 0; k < G_N_ELEMENTS (pool_series); k++)
    {
      append_help (
          s, pool_series[k].name, pool_series[k].type, pool_series[k].help);
      for (guint i = 0; i < snap.pools->len; i++)
        {
          PoolSnapshot *p = &g_array_index (snap.pools, PoolSnapshot, i);
          append_pool_series (s, pool_series[k].name, &snap, p,
              G_STRUCT_MEMBER (guint64, p, pool_series[k].offset));
        }
    }

  append_help (s, "accel_device_generation", "gauge",
      "The device's generation: 1, plus one per worker restart.");
  for (guint i = 0; i < snap.devices->len; i++)
    {
      DeviceSnapshot *d = &g_array_index (snap.devices, DeviceSnapshot, i);
      append_device_series (s, "accel_device_generation", &snap, d->device,
          accel_device_get_generation (d->device));
    }
  /* used, then free: the GPU devices only */
  for (guint k = 0; k < 2; k++)
    {
      const char *name = k ? "accel_device_memory_free_bytes"
                           : "accel_device_memory_used_bytes";
      append_help (s, name, "gauge",
          k ? "Device memory free (GPU devices only)."
            : "Device memory in use (GPU devices only).");
      for (guint i = 0; i < snap.devices->len; i++)
        {
          DeviceSnapshot *d = &g_array_index (snap.devices, DeviceSnapshot, i);
          if (d->have_memory)
            append_device_series (s, name, &snap, d->device,
                k ? d->free_bytes : d->total_bytes - d->free_bytes);
        }
    }

  append_help (s, "accel_graph_frames_in_flight", "gauge",
      "Frames the sources produced that the slowest sink has not finished.");
  append_series (s, "accel_graph_frames_in_flight", &snap);
  g_string_append_printf (s, "\"} %" G_GUINT64_FORMAT "\n", snap.in_flight);

  snapshot_clear (&snap);
  return g_string_free (s, FALSE);
}

/* JSON */

static void
append_json_run (GString *s, const char *run, const char *end)
{
  for (const char *p = run; p < end; p++)
    {
      guchar c = (guchar)*p;
      if (c == '"' || c == '\\')
        g_string_append_printf (s, "\\%c", c);
      else if (c < 0x20)
        g_string_append_printf (s, "\\u%04x", c);
      else
        g_string_append_c (s, (gchar)c);
    }
}

/* a JSON string; %NULL (a stage class without a kind name) as "" */
static void
append_json_string (GString *s, const char *value)
{
  g_string_append_c (s, '"');
  append_utf8 (s, value, append_json_run);
  g_string_append_c (s, '"');
}

/**
 * accel_json_quote:
 * @text: (nullable): a string, UTF-8 or not
 *
 * @text as a JSON string, double quotes included, escaped as
 * accel_graph_metrics_to_json() escapes names: `"`, `\` and control
 * characters by JSON's escapes, and each byte that is not UTF-8 as the text
 * `\xNN` (its backslash escaped), so the result is valid UTF-8 whatever
 * @text holds (a pipeline named after a Latin-1 file name). %NULL is
 * written as `""`. MT safe.
 *
 * Returns: (transfer full): the quoted string.
 */
gchar *
accel_json_quote (const char *text)
{
  GString *s = g_string_new (NULL);

  append_json_string (s, text);
  return g_string_free (s, FALSE);
}

static void
append_json_histogram (GString *s, const AccelHistogram *h)
{
  g_string_append (s, "{\"le_seconds\": [");
  for (guint b = 0; b < ACCEL_HISTOGRAM_BUCKETS; b++)
    {
      if (b)
        g_string_append (s, ", ");
      append_seconds (s, accel_histogram_bounds_ns[b]);
    }
  g_string_append (s, "], \"counts\": [");
  for (guint b = 0; b <= ACCEL_HISTOGRAM_BUCKETS; b++)
    g_string_append_printf (
        s, "%s%" G_GUINT64_FORMAT, b ? ", " : "", h->counts[b]);
  g_string_append_printf (s, "], \"count\": %" G_GUINT64_FORMAT ", ", h->count);
  g_string_append (s, "\"sum_seconds\": ");
  append_seconds (s, h->sum_ns);
  g_string_append (s, "}");
}

/**
 * accel_graph_metrics_to_json:
 * @graph: a graph
 *
 * The same metrics as accel_graph_metrics_to_prometheus() as one JSON
 * object: `graph`, `time_us` (monotonic), `frames_in_flight`, and arrays
 * `stages` (name, kind, state, counters, queue depth, latency p50/p99 and
 * histograms), `pools` and `devices`; docs/metrics.md shows one.
 *
 * Returns: (transfer full): the JSON text. Called from the thread that
 * builds the graph, or from any thread between accel_graph_start() and
 * accel_graph_stop().
 */
gchar *
accel_graph_metrics_to_json (AccelGraph *graph)
{
  GString *s;
  Snapshot snap;

  g_return_val_if_fail (ACCEL_IS_GRAPH (graph), NULL);
  take_snapshot (graph, &snap);
  s = g_string_new ("{\"graph\": ");
  append_json_string (s, snap.graph);
  if (snap.world)
    g_string_append_printf (s, ", \"rank\": %u, \"world_size\": %u",
        accel_world_get_rank (snap.world), accel_world_get_size (snap.world));
  g_string_append_printf (s,
      ", \"time_us\": %" G_GINT64_FORMAT
      ", \"frames_in_flight\": %" G_GUINT64_FORMAT ",\n \"stages\": [",
      g_get_monotonic_time (), snap.in_flight);
  for (guint i = 0; i < snap.stages->len; i++)
    {
      StageSnapshot *st = &g_array_index (snap.stages, StageSnapshot, i);

      g_string_append (s, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
      append_json_string (s, accel_stage_get_name (st->stage));
      g_string_append (s, ", \"kind\": ");
      append_json_string (s, accel_stage_get_kind_name (st->stage));
      g_string_append_printf (s,
          ", \"role\": \"%s\", \"state\": \"%s\", \"frames\": "
          "%" G_GUINT64_FORMAT ", \"dropped\": %" G_GUINT64_FORMAT
          ", \"restarts\": %" G_GUINT64_FORMAT
          ", \"skipped\": %" G_GUINT64_FORMAT
          ", \"retried\": %" G_GUINT64_FORMAT ", \"lost\": %" G_GUINT64_FORMAT
          ", \"queue_depth\": %u, \"queue_depth_max\": %u"
          ", \"latency_p50_ns\": %" G_GINT64_FORMAT
          ", \"latency_p99_ns\": %" G_GINT64_FORMAT ", \"latency\": ",
          st->kind, st->state, st->frames, st->dropped, st->restarts,
          st->skipped, st->retried, st->lost, st->queue_now, st->queue_max,
          st->p50_ns, st->p99_ns);
      append_json_histogram (s, &st->latency);
      if (st->is_sink)
        {
          g_string_append (s, ", \"end_to_end\": ");
          append_json_histogram (s, &st->e2e);
        }
      g_string_append (s, "}");
    }
  g_string_append (s, "],\n \"pools\": [");
  for (guint i = 0; i < snap.pools->len; i++)
    {
      PoolSnapshot *p = &g_array_index (snap.pools, PoolSnapshot, i);

      g_string_append (s, i ? ",\n  {\"stage\": " : "\n  {\"stage\": ");
      append_json_string (s, p->stage);
      g_string_append (s, ", \"port\": ");
      append_json_string (s, p->port);
      g_string_append_printf (s,
          ", \"in_use\": %" G_GUINT64_FORMAT
          ", \"allocated\": %" G_GUINT64_FORMAT
          ", \"capacity\": %" G_GUINT64_FORMAT ", \"waits\": %" G_GUINT64_FORMAT
          "}",
          p->in_use, p->allocated, p->capacity, p->waits);
    }
  g_string_append (s, "],\n \"devices\": [");
  for (guint i = 0; i < snap.devices->len; i++)
    {
      DeviceSnapshot *d = &g_array_index (snap.devices, DeviceSnapshot, i);

      g_string_append (s, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
      append_json_string (s, accel_device_get_name (d->device));
      g_string_append_printf (s, ", \"generation\": %u",
          (guint)accel_device_get_generation (d->device));
      if (d->have_memory)
        g_string_append_printf (s,
            ", \"memory_free_bytes\": %" G_GUINT64_FORMAT
            ", \"memory_total_bytes\": %" G_GUINT64_FORMAT,
            d->free_bytes, d->total_bytes);
      g_string_append (s, "}");
    }
  g_string_append (s, "]}\n");
  snapshot_clear (&snap);
  return g_string_free (s, FALSE);
}
