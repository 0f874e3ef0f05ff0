/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* the world tests' helpers: accel-run (ACCEL_RUN) in a directory of the
 * test's own, with extra environment, its status, output and time */
#pragma once

#include "accel-test.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <unistd.h>

typedef struct
{
  int status; /* exit status, or -1 when killed */
  gchar *out, *err;
  double seconds;
} WorldRun;

static inline void
world_run_clear (WorldRun *r)
{
  g_free (r->out);
  g_free (r->err);
  memset (r, 0, sizeof *r);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (WorldRun, world_run_clear)

/* @r's stderr says @text; where it does not, the test's log shows what
 * it said instead */
static inline void
world_assert_says (const WorldRun *r, const char *text)
{
  if (!strstr (r->err, text))
    g_test_message ("stderr lacks \"%s\"; it was:\n%s", text, r->err);
  g_assert_nonnull (strstr (r->err, text));
}

/* @r's stderr does not say @text */
static inline void
world_assert_silent_on (const WorldRun *r, const char *text)
{
  if (strstr (r->err, text))
    g_test_message ("stderr says \"%s\":\n%s", text, r->err);
  g_assert_null (strstr (r->err, text));
}

/* the backend the runs ask for: the host's, unless a test says cuda */
static const char *world_backend = "--backend=host";

/* a TMPDIR of a run's own, inside @dir */
static inline gchar *
world_make_tmp (const char *dir)
{
  gchar *tmp = g_build_filename (dir, "tmp-XXXXXX", NULL);

  g_assert_nonnull (g_mkdtemp (tmp));
  return tmp;
}

static inline void
world_own_group (gpointer data)
{
  setpgid (0, 0);
}

/* starts accel-run in @dir, its TMPDIR @tmp, with @env ("NAME=VALUE",
 * NULL-terminated, may be NULL) added and the arguments after it; with
 * @own_group in a process group of its own, as a shell starts a job */
static inline GSubprocess *
world_spawn_in (const char *dir, const char *tmp, gboolean own_group,
    const char *const *env, const char *const *args)
{
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
      G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  GSubprocess *p;

  g_subprocess_launcher_set_cwd (launcher, dir);
  g_subprocess_launcher_setenv (launcher, "TMPDIR", tmp, TRUE);
  if (own_group)
    g_subprocess_launcher_set_child_setup (
        launcher, world_own_group, NULL, NULL);
  for (guint i = 0; env && env[i]; i++)
    {
      g_auto (GStrv) kv = g_strsplit (env[i], "=", 2);
      g_subprocess_launcher_setenv (launcher, kv[0], kv[1], TRUE);
    }
  g_ptr_array_add (argv, (gpointer)g_getenv ("ACCEL_RUN"));
  g_ptr_array_add (argv, (gpointer)world_backend);
  g_ptr_array_add (argv, (gpointer) "--quiet");
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer)args[i]);
  g_ptr_array_add (argv, NULL);
  p = g_subprocess_launcher_spawnv (
      launcher, (const char *const *)argv->pdata, &error);
  g_assert_no_error (error);
  return p;
}

/* the same, in a TMPDIR of its own */
static inline GSubprocess *
world_spawn (const char *dir, const char *const *env, const char *const *args)
{
  g_autofree gchar *tmp = world_make_tmp (dir);

  return world_spawn_in (dir, tmp, FALSE, env, args);
}

/* a run that takes longer is killed, and what it printed shown: no world
 * test waits forever */
#ifndef WORLD_RUN_LIMIT_S
#define WORLD_RUN_LIMIT_S 150
#endif

typedef struct
{
  GSubprocess *process;
  gboolean done, killed;
  gchar *out, *err;
  GError *error;
} WorldWait;

static inline void
world_communicated (GObject *p, GAsyncResult *res, gpointer data)
{
  WorldWait *w = data;

  g_subprocess_communicate_utf8_finish (
      G_SUBPROCESS (p), res, &w->out, &w->err, &w->error);
  w->done = TRUE;
}

static inline gboolean
world_kill (gpointer data)
{
  WorldWait *w = data;

  w->killed = TRUE;
  g_subprocess_force_exit (w->process);
  return G_SOURCE_REMOVE;
}

static inline void
world_wait (GSubprocess *p, WorldRun *r, gint64 t0)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  gint64 left_ms
      = (t0 + WORLD_RUN_LIMIT_S * G_USEC_PER_SEC - g_get_monotonic_time ())
        / 1000;
  GSource *timer = g_timeout_source_new ((guint)MAX (left_ms, 1));
  WorldWait w = { p };

  g_main_context_push_thread_default (context);
  g_source_set_callback (timer, world_kill, &w, NULL);
  g_source_attach (timer, context);
  g_subprocess_communicate_utf8_async (p, NULL, NULL, world_communicated, &w);
  while (!w.done)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (timer);
  g_source_unref (timer);
  g_main_context_pop_thread_default (context);
  g_assert_no_error (w.error);

  r->out = w.out;
  r->err = w.err;
  r->status = !w.killed && g_subprocess_get_if_exited (p)
                  ? g_subprocess_get_exit_status (p)
                  : -1;
  r->seconds = (g_get_monotonic_time () - t0) / 1e6;
  if (w.killed)
    g_test_message (
        "accel-run did not end within %d s: killed", WORLD_RUN_LIMIT_S);
  if (g_test_verbose () || r->status != 0)
    g_test_message (
        "status %d after %.1f s; stderr:\n%s", r->status, r->seconds, r->err);
}

/* whether accel-run left temporary state in @tmp (other libraries' files
 * are theirs) */
static inline void
world_assert_tmp_clean (const char *tmp)
{
  g_autoptr (GDir) left = g_dir_open (tmp, 0, NULL);
  const char *name;

  while (left && (name = g_dir_read_name (left)))
    if (g_str_has_prefix (name, "accel-"))
      {
        g_test_message ("accel-run left %s in its TMPDIR", name);
        g_assert_not_reached ();
      }
}

/* runs accel-run to its end; one that ended by itself, failed or not,
 * has removed the temporary state it made */
static inline void
world_run (WorldRun *r, const char *dir, const char *const *env,
    const char *const *args)
{
  gint64 t0 = g_get_monotonic_time ();
  g_autofree gchar *tmp = world_make_tmp (dir);
  g_autoptr (GSubprocess) p = world_spawn_in (dir, tmp, FALSE, env, args);

  world_wait (p, r, t0);
  if (r->status >= 0)
    world_assert_tmp_clean (tmp);
}

/* binds a loopback socket to @port (0: any free one); the port it got, 0
 * where @port is taken */
static inline guint16
world_bind_port (guint16 port)
{
  g_autoptr (GSocket) s = g_socket_new (
      G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr (GInetAddress) lo
      = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr (GSocketAddress) sa = g_inet_socket_address_new (lo, port);
  g_autoptr (GSocketAddress) bound = NULL;

  if (!g_socket_bind (s, sa, TRUE, NULL))
    return 0;
  bound = g_socket_get_local_address (s, NULL);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

/* @n consecutive ports that nothing listens on now, below the kernel's
 * ephemeral ports (32768 on). There, a rank that dials one before its
 * coordinator listens (or with none) cannot be given that very port as
 * its own and reach itself (TCP's simultaneous open), and the outgoing
 * connections of tests running beside this one cannot take the second
 * before it is bound, as they could the neighbour of a port the kernel
 * chose */
static inline guint16
world_free_ports (guint n)
{
  for (int tries = 0; tries < 1000; tries++)
    {
      guint16 port = (guint16)g_random_int_range (20000, 32000);
      guint bound = 0;

      while (bound < n && world_bind_port ((guint16)(port + bound)))
        bound++;
      if (bound == n)
        return port;
    }
  g_assert_not_reached ();
  return 0;
}

static inline gchar *
world_read (const char *dir, const char *name, gsize *len)
{
  g_autofree gchar *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;
  gchar *data = NULL;

  g_file_get_contents (path, &data, len, &error);
  g_assert_no_error (error);
  return data;
}

static inline void
world_write (const char *dir, const char *name, const void *data, gsize len)
{
  g_autofree gchar *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;

  g_file_set_contents (path, data, (gssize)len, &error);
  g_assert_no_error (error);
}
