/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* a plugin module for the registry tests: one stage kind, testplugin.echo */
#include <gmodule.h>

#include <accel/accel.h>

#define TEST_TYPE_ECHO (test_echo_get_type ())
G_DECLARE_FINAL_TYPE (TestEcho, test_echo, TEST, ECHO, AccelStage)

struct _TestEcho
{
  AccelStage parent;
};

G_DEFINE_FINAL_TYPE (TestEcho, test_echo, ACCEL_TYPE_STAGE)

static AccelFlow
test_echo_process (AccelStage *stage, AccelFrame *frame, GError **error)
{
  return ACCEL_FLOW_OK;
}

static void
test_echo_class_init (TestEchoClass *klass)
{
  AccelStageClass *sc = ACCEL_STAGE_CLASS (klass);
  AccelType any;

  sc->process = test_echo_process;
  accel_stage_class_set_metadata (sc, "testplugin.echo", "Takes anything");
  accel_type_init_any (&any);
  accel_stage_class_add_port (sc, ACCEL_PORT_INPUT, "in", &any, NULL);
}

static void
test_echo_init (TestEcho *self)
{
}

G_MODULE_EXPORT gboolean accel_plugin_register (
    AccelRegistry *registry, GError **error);

G_MODULE_EXPORT gboolean
accel_plugin_register (AccelRegistry *registry, GError **error)
{
  accel_registry_register (registry, TEST_TYPE_ECHO);
  return TRUE;
}
