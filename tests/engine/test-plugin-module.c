/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* a plugin module for the registry tests: one stage kind, testplugin.echo;
 * built with TEST_PLUGIN_FAILS, a plugin whose accel_plugin_register
 * fails after it registered its kind, testfailing.echo */
#include <gmodule.h>

#include <accel/accel.h>

#ifdef TEST_PLUGIN_FAILS
#define ECHO_KIND "testfailing.echo"
#define ECHO_TYPE_NAME "TestFailingEcho"
#else
#define ECHO_KIND "testplugin.echo"
#define ECHO_TYPE_NAME "TestEcho"
#endif

static AccelFlow
echo_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  return ACCEL_FLOW_OK;
}

static void
echo_class_init (gpointer klass, gpointer data)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType any;

  sc->process = echo_process;
  accel_stage_class_set_metadata (sc, ECHO_KIND, "Takes anything");
  accel_type_init_any (&any);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "in", &any, NULL);
}

/* by hand rather than G_DEFINE_TYPE: each build of this file has a type
 * name of its own */
static GType
echo_get_type (void)
{
  static gsize type;

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_type_register_static_simple (ACCEL_TYPE_STAGE,
            g_intern_static_string (ECHO_TYPE_NAME), sizeof (AccelStageClass),
            echo_class_init, sizeof (AccelStage), NULL, 0));
  return type;
}

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, echo_get_type ());
#ifdef TEST_PLUGIN_FAILS
  g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
      "the library it needs is missing");
  return FALSE;
#else
  return TRUE;
#endif
}
