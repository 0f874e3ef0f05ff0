/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: a stateful source's parameter changes since its last snapshot,
 * each with the frame it first applied to, so that a catch-up after a
 * restart (accel_source_catch_up ()) makes its frames again with the
 * values they had, not the values of now */
#define G_LOG_DOMAIN "accel-stage"

#include "accelstage-private.h"

typedef struct
{
  guint64 sequence; /* the first frame made with @after */
  gchar *name;
  GValue before;
  GValue after;
} ParamChange;

static void
param_change_clear (gpointer data)
{
  ParamChange *change = data;

  g_free (change->name);
  g_value_unset (&change->before);
  g_value_unset (&change->after);
}

/* a source that can make its frames again keeps its changes */
static gboolean
keeps_params (AccelStage *self)
{
  AccelStagePrivate *priv = accel_stage_get_private (self);
  AccelStageClass *klass = ACCEL_STAGE_GET_CLASS (self);

  return priv->n_in == 0 && klass->snapshot && klass->restore
         && !accel_stage_is_live (self);
}

static void
set_param (AccelStage *self, const char *name, const GValue *value)
{
  g_object_set_property (G_OBJECT (self), name, value);
  /* graphs captured with the old value are not replayed */
  accel_stage_forget_captures (self);
}

/* copies into @value the value of the last change of @name in @params */
static gboolean
last_value (GArray *params, const char *name, GValue *value)
{
  for (guint i = params ? params->len : 0; i-- > 0;)
    {
      ParamChange *change = &g_array_index (params, ParamChange, i);

      if (g_str_equal (change->name, name))
        {
          g_value_copy (&change->after, value);
          return TRUE;
        }
    }
  return FALSE;
}

/**
 * accel_source_set_param:
 * @self: a stage
 * @name: one of its parameters
 * @value: its new value
 *
 * A parameter change between frames. A stateful source notes it with the
 * frame it first applies to; in a catch-up that is the frame that failed,
 * the first it makes anew, so the frames it makes again keep their values
 * till then. Stage thread.
 */
void
accel_source_set_param (AccelStage *self, const char *name, const GValue *value)
{
  AccelSourceState *source = &accel_stage_get_private (self)->source;
  GParamSpec *pspec;
  ParamChange change = { 0 };
  gboolean catching_up;

  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (self), name);
  if (!pspec || !keeps_params (self))
    {
      set_param (self, name, value);
      return;
    }
  catching_up = accel_source_catching_up (source);
  change.sequence = catching_up ? source->replay_until : source->next_sequence;
  change.name = g_strdup (name);
  g_value_init (&change.before, G_PARAM_SPEC_VALUE_TYPE (pspec));
  /* the value in force before it: the last change's (a catch-up has set
   * the parameter back meanwhile), else the one it has */
  if (!last_value (source->params, name, &change.before))
    g_object_get_property (G_OBJECT (self), name, &change.before);
  g_value_init (&change.after, G_PARAM_SPEC_VALUE_TYPE (pspec));
  g_value_copy (value, &change.after);
  if (!source->params)
    {
      source->params = g_array_new (FALSE, TRUE, sizeof (ParamChange));
      g_array_set_clear_func (source->params, param_change_clear);
    }
  g_array_append_val (source->params, change);
  if (!catching_up)
    set_param (self, name, value);
}

/**
 * accel_source_forget_params:
 * @self: a stage
 * @through: the frame its new snapshot is the state after
 *
 * The changes a catch-up from that snapshot no longer needs. Stage thread.
 */
void
accel_source_forget_params (AccelStage *self, guint64 through)
{
  GArray *params = accel_stage_get_private (self)->source.params;
  guint n = 0;

  while (params && n < params->len
         && g_array_index (params, ParamChange, n).sequence <= through)
    n++;
  if (n)
    g_array_remove_range (params, 0, n);
}

/**
 * accel_source_n_param_changes:
 * @self: a stage
 *
 * Returns: how many changes it keeps for a catch-up: those since its
 *   snapshot. Stage thread.
 */
guint
accel_source_n_param_changes (AccelStage *self)
{
  GArray *params = accel_stage_get_private (self)->source.params;

  return params ? params->len : 0;
}

/**
 * accel_source_rewind_params:
 * @self: a stage
 * @from: the first frame a catch-up makes again
 *
 * Sets back each parameter changed from frame @from on to its value then.
 * Stage thread.
 */
void
accel_source_rewind_params (AccelStage *self, guint64 from)
{
  GArray *params = accel_stage_get_private (self)->source.params;

  for (guint i = params ? params->len : 0; i-- > 0;)
    {
      ParamChange *change = &g_array_index (params, ParamChange, i);

      if (change->sequence >= from)
        set_param (self, change->name, &change->before);
    }
}

/**
 * accel_source_replay_params:
 * @self: a stage
 * @sequence: a frame a catch-up makes again, about to be made
 *
 * Applies the changes that first applied to @sequence, in their order.
 * Stage thread.
 */
void
accel_source_replay_params (AccelStage *self, guint64 sequence)
{
  GArray *params = accel_stage_get_private (self)->source.params;

  for (guint i = 0; params && i < params->len; i++)
    {
      ParamChange *change = &g_array_index (params, ParamChange, i);

      if (change->sequence == sequence)
        set_param (self, change->name, &change->after);
    }
}

/**
 * accel_source_clear_params:
 * @source: a source's state
 *
 * Forgets every change: the stage's end.
 */
void
accel_source_clear_params (AccelSourceState *source)
{
  g_clear_pointer (&source->params, g_array_unref);
}

/**
 * accel_source_settle_params:
 * @self: a stage
 *
 * As its stream stops: a catch-up cut short (the graph stopped, or it
 * failed again past its restarts) had set parameters back, and held the
 * changes that came meanwhile; each now takes its last value (they were
 * left at the old ones, and a change the application made was lost).
 * Then forgets every change. Stage thread.
 */
void
accel_source_settle_params (AccelStage *self)
{
  AccelSourceState *source = &accel_stage_get_private (self)->source;

  for (guint i = 0; source->params && i < source->params->len; i++)
    {
      ParamChange *change = &g_array_index (source->params, ParamChange, i);

      if (change->sequence >= source->next_sequence)
        set_param (self, change->name, &change->after);
    }
  accel_source_clear_params (source);
}
