/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a stage class's metadata: its kind name and description, its
 * ports, whether it is live or blocks its thread; kept per GType so
 * subclasses inherit and extend it */
#define G_LOG_DOMAIN "accel-stage"

#include "accelstage-private.h"

#include <string.h>

G_STATIC_ASSERT (ACCEL_PARAM_FIXED == 1 << G_PARAM_USER_SHIFT);

static GQuark
class_info_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (!quark))
    quark = g_quark_from_static_string ("accel-stage-class-info");
  return quark;
}

AccelStageClassInfo *
accel_stage_class_info_lookup (GType type)
{
  for (; type && type != ACCEL_TYPE_STAGE; type = g_type_parent (type))
    {
      AccelStageClassInfo *info = g_type_get_qdata (type, class_info_quark ());
      if (info)
        return info;
    }
  return NULL;
}

static AccelStageClassInfo *
class_info_ensure (GType type)
{
  AccelStageClassInfo *info = g_type_get_qdata (type, class_info_quark ());
  AccelStageClassInfo *parent;

  if (info)
    return info;
  info = g_new0 (AccelStageClassInfo, 1);
  parent = accel_stage_class_info_lookup (g_type_parent (type));
  for (int d = 0; d < 2; d++)
    {
      info->ports[d] = g_ptr_array_new ();
      if (!parent)
        continue;
      for (guint i = 0; i < parent->ports[d]->len; i++)
        {
          AccelPortTemplate *p = parent->ports[d]->pdata[i];
          AccelPortTemplate *copy = g_memdup2 (p, sizeof (*p));
          copy->name = g_strdup (p->name);
          copy->description = g_strdup (p->description);
          g_ptr_array_add (info->ports[d], copy);
        }
    }
  if (parent)
    {
      info->kind_name = g_strdup (parent->kind_name);
      info->description = g_strdup (parent->description);
      info->live = parent->live;
      info->blocking = parent->blocking;
      info->start_waits = parent->start_waits;
      info->needs_application = parent->needs_application;
      info->remote_source = parent->remote_source;
      info->meet = parent->meet;
    }
  g_type_set_qdata (type, class_info_quark (), info);
  return info;
}

/**
 * accel_stage_class_set_metadata:
 * @klass: a stage class
 * @kind_name: the registry name, "plugin.kind", e.g. "core.scale"
 * @description: one line saying what the stage does
 *
 * Called from class_init.
 */
void
accel_stage_class_set_metadata (
    AccelStageClass *klass, const char *kind_name, const char *description)
{
  AccelStageClassInfo *info = class_info_ensure (G_TYPE_FROM_CLASS (klass));

  g_free (info->kind_name);
  g_free (info->description);
  info->kind_name = g_strdup (kind_name);
  info->description = g_strdup (description);
}

/**
 * accel_stage_class_set_live:
 * @klass: a source's class
 * @live: %TRUE when the source cannot produce a frame again (a camera, an
 *   application pushing buffers), as a live GStreamer source
 *
 * Called from class_init. After a worker restart a live source cannot replay
 * the frames that the sinks had not committed: the graph counts them as
 * lost (accel_stage_get_n_lost()) and says so in its notes, where a
 * replayable source produces them again.
 */
void
accel_stage_class_set_live (AccelStageClass *klass, gboolean live)
{
  class_info_ensure (G_TYPE_FROM_CLASS (klass))->live = live;
}

/**
 * accel_stage_class_set_blocking:
 * @klass: a stage class
 * @blocking: %TRUE when process() may wait on the host (for a file, a
 *   socket, an application, another framework)
 *
 * Called from class_init. A stage that blocks keeps a thread of its own;
 * the others may share one with their neighbours in a segment (see
 * docs/scheduling.md). Stages with a render() part and stages on the host
 * backend keep a thread of their own without saying so.
 */
void
accel_stage_class_set_blocking (AccelStageClass *klass, gboolean blocking)
{
  class_info_ensure (G_TYPE_FROM_CLASS (klass))->blocking = blocking;
}

/**
 * accel_stage_class_set_start_waits:
 * @klass: a stage class
 * @start_waits: %TRUE when start() waits for other processes (the other
 *   ranks of a world)
 *
 * Called from class_init. The graph starts its other stages one by one in
 * its order, then such stages all at once, each on its thread, so that
 * two processes whose graphs start them in different orders (a pair and a
 * collective, a round trip) do not each wait for the other's next.
 */
void
accel_stage_class_set_start_waits (AccelStageClass *klass, gboolean start_waits)
{
  class_info_ensure (G_TYPE_FROM_CLASS (klass))->start_waits = start_waits;
}

/**
 * accel_stage_class_set_needs_application:
 * @klass: a stage class
 * @needs: %TRUE when the stage's frames come from, or go to, the program
 *   that runs the graph (action signals such as "push-buffer")
 *
 * Called from class_init. A program that has no part to play there, such
 * as `accel-run`, refuses such a stage rather than wait for good.
 */
void
accel_stage_class_set_needs_application (AccelStageClass *klass, gboolean needs)
{
  class_info_ensure (G_TYPE_FROM_CLASS (klass))->needs_application = needs;
}

/**
 * accel_stage_needs_application:
 * @stage: a stage
 *
 * Returns: whether @stage's frames come from, or go to, the program that
 *   runs the graph (accel_stage_class_set_needs_application()). MT safe.
 */
gboolean
accel_stage_needs_application (AccelStage *stage)
{
  AccelStageClassInfo *info;

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);
  info = accel_stage_class_info_lookup (G_OBJECT_TYPE (stage));
  return info && info->needs_application;
}

/**
 * accel_stage_class_set_remote_source:
 * @klass: a source's class
 * @remote: %TRUE when its frames are another graph's, which ends its
 *   stream (nccl.recv)
 *
 * Called from class_init. The graph's frame limit
 * (accel_graph_set_frame_limit()) stops the sources that make frames; such
 * a source ends where the other graph's stream ends, as its sender sends
 * the end after the frames the limit left it (ended at the limit, it
 * closed on the sender's end of stream, which failed).
 */
void
accel_stage_class_set_remote_source (AccelStageClass *klass, gboolean remote)
{
  class_info_ensure (G_TYPE_FROM_CLASS (klass))->remote_source = remote;
}

/**
 * accel_stage_class_set_meet_func: (skip)
 * @klass: a stage class
 * @func: whom a stage of the class meets on other ranks of its world
 *
 * Called from class_init by a stage that runs together with stages on
 * other ranks (a collective, a send and its receive). A loader that knows
 * every rank's stages (the YAML loader, whose file is every rank's) asks
 * each of them through accel_stage_meet () and refuses the file where a
 * member of a meeting is missing, doubled or runs it otherwise, rather
 * than have the ranks wait for each other until the world's timeout.
 */
void
accel_stage_class_set_meet_func (AccelStageClass *klass, AccelMeetFunc func)
{
  class_info_ensure (G_TYPE_FROM_CLASS (klass))->meet = func;
}

/**
 * accel_stage_class_has_meet_func:
 * @klass: a stage class
 *
 * Returns: whether a stage of @klass meets stages on other ranks
 * (accel_stage_class_set_meet_func ()). MT safe.
 */
gboolean
accel_stage_class_has_meet_func (AccelStageClass *klass)
{
  AccelStageClassInfo *info;

  g_return_val_if_fail (ACCEL_IS_STAGE_CLASS (klass), FALSE);
  info = accel_stage_class_info_lookup (G_TYPE_FROM_CLASS (klass));
  return info && info->meet;
}

/**
 * accel_stage_meet:
 * @stage: a stage, its parameters set as the rank of @world would set them
 * @world: a world of the rank that runs @stage (its rank and size; it need
 *   not be joined)
 * @key: (out) (transfer full) (nullable): the meeting's name, the same on
 *   each member; %NULL when @stage meets no one
 * @members: (out) (transfer full) (array length=n_members) (nullable): the
 *   ranks that meet there, @world's among them, or %NULL for every rank of
 *   @world
 * @n_members: (out): their number, or 0 for every rank
 * @terms: (out) (transfer full): how this rank runs it ("nccl.all-reduce op
 *   sum"), which every member's must equal
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %FALSE when @stage's parameters name no meeting in @world (a
 * peer outside it, or itself). MT safe.
 */
gboolean
accel_stage_meet (AccelStage *stage, AccelWorld *world, gchar **key,
    guint **members, guint *n_members, gchar **terms, GError **error)
{
  AccelStageClassInfo *info;

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);
  g_return_val_if_fail (ACCEL_IS_WORLD (world), FALSE);
  *key = NULL;
  *members = NULL;
  *n_members = 0;
  *terms = NULL;
  info = accel_stage_class_info_lookup (G_OBJECT_TYPE (stage));
  if (!info || !info->meet)
    return TRUE;
  return info->meet (stage, world, key, members, n_members, terms, error);
}

/* whether @stage is a source of another graph's frames */
gboolean
accel_stage_is_remote_source (AccelStage *stage)
{
  AccelStageClassInfo *info
      = accel_stage_class_info_lookup (G_OBJECT_TYPE (stage));

  return info && info->remote_source;
}

/* whether @stage's start() waits for other processes */
gboolean
accel_stage_start_waits (AccelStage *stage)
{
  AccelStageClassInfo *info
      = accel_stage_class_info_lookup (G_OBJECT_TYPE (stage));

  return info && info->start_waits;
}

/**
 * accel_capture_mode_get_type:
 *
 * Returns: the enum #GType of #AccelCaptureMode. MT safe.
 */
GType
accel_capture_mode_get_type (void)
{
  static gsize type;
  static const GEnumValue values[] = {
    { ACCEL_CAPTURE_AUTO, "ACCEL_CAPTURE_AUTO", "auto" },
    { ACCEL_CAPTURE_ON, "ACCEL_CAPTURE_ON", "on" },
    { ACCEL_CAPTURE_OFF, "ACCEL_CAPTURE_OFF", "off" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (
        &type, g_enum_register_static ("AccelCaptureMode", values));
  return (GType)type;
}

/**
 * accel_stage_can_capture_always:
 * @stage: a stage
 * @frame: the frame about to be processed
 *
 * A #AccelStageClass.can_capture for kinds whose every frame can be
 * captured: their process() is a function of the frame's buffers and the
 * stage's parameters alone.
 *
 * Returns: %TRUE
 */
gboolean
accel_stage_can_capture_always (AccelStage *stage, const AccelFrame *frame)
{
  return TRUE;
}

/**
 * accel_stage_is_live:
 * @stage: a stage
 *
 * Returns: whether @stage is a live source. MT safe.
 */
gboolean
accel_stage_is_live (AccelStage *stage)
{
  AccelStagePrivate *priv = accel_stage_get_private (stage);
  AccelStageClassInfo *info;

  g_return_val_if_fail (ACCEL_IS_STAGE (stage), FALSE);
  if (priv->source.live >= 0)
    return priv->source.live;
  info = accel_stage_class_info_lookup (G_OBJECT_TYPE (stage));
  return info && info->live;
}

/**
 * accel_stage_set_live:
 * @stage: a source
 * @live: whether this instance can produce a frame again
 *
 * For a source whose class is live for some of what it reads and not for
 * the rest: a file read by position can be read again, a pipe cannot.
 * Overrides accel_stage_class_set_live() for @stage. Called from
 * negotiate(), which runs before the graph opens its state directory.
 */
void
accel_stage_set_live (AccelStage *stage, gboolean live)
{
  g_return_if_fail (ACCEL_IS_STAGE (stage));
  accel_stage_get_private (stage)->source.live = live ? 1 : 0;
}

/**
 * accel_stage_class_add_port:
 * @klass: a stage class
 * @direction: input or output
 * @name: the port's name, unique per direction ("in", "out" by convention),
 *   of letters, digits, '-' and '_' (a link names it after a '.')
 * @type: what the port accepts or produces (wildcards allowed)
 * @description: (nullable): one line for tools
 *
 * Called from class_init. Ports are numbered in the order they are added.
 * A name that is missing, taken or not such a word is a programming error
 * (a critical, and no port): a link could not name it.
 */
void
accel_stage_class_add_port (AccelStageClass *klass,
    AccelPortDirection direction, const char *name, const AccelType *type,
    const char *description)
{
  AccelStageClassInfo *info = class_info_ensure (G_TYPE_FROM_CLASS (klass));
  AccelPortTemplate *port;

  g_return_if_fail (name != NULL && *name);
  g_return_if_fail (
      name[strspn (name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                         "0123456789-_")]
      == '\0');
  g_return_if_fail (type != NULL);
  g_return_if_fail (info->ports[direction]->len < ACCEL_MAX_PORTS);
  for (guint i = 0; i < info->ports[direction]->len; i++)
    g_return_if_fail (!g_str_equal (
        ((AccelPortTemplate *)info->ports[direction]->pdata[i])->name, name));

  port = g_new0 (AccelPortTemplate, 1);
  port->name = g_strdup (name);
  port->direction = direction;
  port->type = *type;
  port->description = g_strdup (description);
  g_ptr_array_add (info->ports[direction], port);
}

/**
 * accel_stage_class_get_kind_name:
 * @klass: a stage class
 *
 * Returns: (transfer none) (nullable): the registry name given by
 * accel_stage_class_set_metadata(), or %NULL for none. MT safe.
 */
const char *
accel_stage_class_get_kind_name (AccelStageClass *klass)
{
  AccelStageClassInfo *info;

  g_return_val_if_fail (ACCEL_IS_STAGE_CLASS (klass), NULL);
  info = accel_stage_class_info_lookup (G_TYPE_FROM_CLASS (klass));
  return info ? info->kind_name : NULL;
}

/**
 * accel_stage_class_get_description:
 * @klass: a stage class
 *
 * Returns: (transfer none) (nullable): the one-line description given by
 * accel_stage_class_set_metadata(), or %NULL for none. MT safe.
 */
const char *
accel_stage_class_get_description (AccelStageClass *klass)
{
  AccelStageClassInfo *info;

  g_return_val_if_fail (ACCEL_IS_STAGE_CLASS (klass), NULL);
  info = accel_stage_class_info_lookup (G_TYPE_FROM_CLASS (klass));
  return info ? info->description : NULL;
}

/**
 * accel_stage_class_get_ports:
 * @klass: a stage class
 * @direction: which ports
 *
 * Returns: (transfer container) (element-type AccelPortTemplate): the ports,
 * in index order; the templates belong to the class. MT safe.
 */
GPtrArray *
accel_stage_class_get_ports (
    AccelStageClass *klass, AccelPortDirection direction)
{
  AccelStageClassInfo *info;
  GPtrArray *ports;

  g_return_val_if_fail (ACCEL_IS_STAGE_CLASS (klass), NULL);
  info = accel_stage_class_info_lookup (G_TYPE_FROM_CLASS (klass));
  ports = g_ptr_array_new ();
  for (guint i = 0; info && i < info->ports[direction]->len; i++)
    g_ptr_array_add (ports, info->ports[direction]->pdata[i]);
  return ports;
}

/**
 * accel_stage_class_get_stage_kind:
 * @klass: a stage class
 *
 * Returns: %ACCEL_STAGE_SOURCE for a class without input ports,
 * %ACCEL_STAGE_SINK for one without output ports, else
 * %ACCEL_STAGE_TRANSFORM. MT safe.
 */
AccelStageKind
accel_stage_class_get_stage_kind (AccelStageClass *klass)
{
  AccelStageClassInfo *info;

  g_return_val_if_fail (ACCEL_IS_STAGE_CLASS (klass), ACCEL_STAGE_SOURCE);
  info = accel_stage_class_info_lookup (G_TYPE_FROM_CLASS (klass));
  if (!info || info->ports[ACCEL_PORT_INPUT]->len == 0)
    return ACCEL_STAGE_SOURCE;
  if (info->ports[ACCEL_PORT_OUTPUT]->len == 0)
    return ACCEL_STAGE_SINK;
  return ACCEL_STAGE_TRANSFORM;
}
