/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: what the YAML loader's files share (accelyaml.c, the loader;
 * accelyaml-values.c, its scalars; accelyaml-syntax.c, the text's shape
 * and syntax; accelyaml-meetings.c, the world's stages across its ranks);
 * not installed */
#pragma once

#include <accel/accel.h>
#include <glib-object.h>
#include <yaml.h>

G_BEGIN_DECLS

/* the longest name that is compared with the known ones for a suggestion */
#define MAX_NAME_BYTES 128
/* how deep collections nest and how many nodes a document reaches (aliases
 * counted as often as they are used): limits that answer any input within
 * seconds and bounded memory */
#define MAX_DEPTH 64
#define MAX_NODES 1000000
/* the scalar text a document's aliases may reach, as much as a file may
 * hold: an alias to a long scalar counts as its bytes, not one node */
#define MAX_ALIASED_BYTES (16 * 1024 * 1024)

/* accelyaml.c */
G_GNUC_INTERNAL void accel_yaml_collect_warnings (GString *into);
/* a place of the YAML (1-based line and column) as a message names it */
typedef gchar *(*AccelYamlPlaceName) (gsize line, gsize column, gpointer data);
G_GNUC_INTERNAL void accel_yaml_name_places (
    AccelYamlPlaceName name, gpointer data);
/* @place (taken) as accel_yaml_stage_get_place () gives it */
G_GNUC_INTERNAL void accel_yaml_set_stage_place (
    AccelStage *stage, gchar *place);

/* accelyaml-values.c */
G_GNUC_INTERNAL void accel_yaml_suggestions_reset (void);
G_GNUC_INTERNAL gchar *accel_yaml_did_you_mean (
    const char *word, const char *const *names, guint n);
G_GNUC_INTERNAL gboolean accel_yaml_convert (
    const char *text, GParamSpec *pspec, GValue *value, gchar **problem);
G_GNUC_INTERNAL gchar *accel_yaml_value_text (const GValue *value);
G_GNUC_INTERNAL gchar *accel_yaml_duration_to_ms (const char *text);

/* accelyaml.c: @msg (taken) with its control characters as escapes */
G_GNUC_INTERNAL gchar *accel_yaml_escape_controls (gchar *msg);

/* accelyaml-syntax.c */
/* an alias of the text: the node it stands for is the anchored one, with
 * the anchor's marks, so where the alias itself is comes from here */
typedef struct
{
  yaml_mark_t mark;
  gchar *anchor;
} AccelYamlAlias;

/* the place of a node in collection @coll (its index in the document, from
 * 1): an item's index, or for a mapping 2n for the n-th key, 2n + 1 for
 * its value */
#define ACCEL_YAML_PLACE(coll, at) (((guint64)(coll) << 32) | (guint64)(at))

/* a problem that leaves the rest of the file to be read: a tag */
typedef struct
{
  yaml_mark_t mark;
  gchar *problem;
} AccelYamlAside;

G_GNUC_INTERNAL GHashTable *accel_yaml_aliases_new (void);
G_GNUC_INTERNAL GArray *accel_yaml_asides_new (void);
G_GNUC_INTERNAL gboolean accel_yaml_check_shape (const char *yaml,
    yaml_mark_t *mark, gchar **problem, GHashTable *aliases, GArray *asides);
G_GNUC_INTERNAL gchar *accel_yaml_syntax_problem (
    yaml_parser_t *parser, const char *yaml, yaml_mark_t *mark);

/* accelyaml-meetings.c */
typedef struct
{
  AccelStage *stage; /* its parameters as @rank sets them */
  guint rank;
  guint decl; /* which declaration of the file */
} AccelYamlMember;

typedef void (*AccelYamlReport) (
    guint decl, const char *problem, gpointer data);

G_GNUC_INTERNAL void accel_yaml_check_meetings (GArray *members, guint size,
    gboolean every_rank, AccelYamlReport report, gpointer data);

G_END_DECLS
