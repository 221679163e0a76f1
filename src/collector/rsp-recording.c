/* rsp-recording.c — the RSP trailer: metadata and stored symbols appended to
 * a perf.data file (see rsp-recording.h for the layout). */
#include "rsp-recording.h"

#include "rsp-files.h"

#include <glib/gi18n-lib.h>
#include <errno.h>
#include <fcntl.h>
#include "rsp-json.h"
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rsp-bytes.h"
#include "rsp-perf-reader.h"
#include "rsp-user-file.h"

#define SECTION_NAME_SIZE 16
#define TABLE_ENTRY_SIZE (SECTION_NAME_SIZE + 16)
#define FOOTER_SIZE 24
#define MAX_SECTIONS 64

/* ---------------------------------------------------------------- meta */

void
rsp_health_entry_clear (gpointer data)
{
  RspHealthEntry *e = data;
  g_free (e->event);
}

void
rsp_missing_event_clear (gpointer data)
{
  RspMissingEvent *e = data;
  g_free (e->name);
  g_free (e->reason);
}

void
rsp_event_filter_clear (gpointer data)
{
  RspEventFilter *f = data;
  g_free (f->event);
  g_free (f->filter);
}

GArray *
rsp_event_filters_new (void)
{
  GArray *filters = g_array_new (FALSE, TRUE, sizeof (RspEventFilter));
  g_array_set_clear_func (filters, rsp_event_filter_clear);
  return filters;
}

void
rsp_event_filters_add (GArray *filters, const char *event, const char *filter)
{
  RspEventFilter f = { g_strdup (event), g_strdup (filter) };
  g_array_append_val (filters, f);
}

void
rsp_event_filters_add_all (GArray *into, const GArray *from)
{
  for (guint i = 0; from != NULL && i < from->len; i++)
    {
      const RspEventFilter *f = &g_array_index (from, RspEventFilter, i);
      rsp_event_filters_add (into, f->event, f->filter);
    }
}

static gint
filter_index (const GArray *filters, const char *event)
{
  for (guint i = 0; filters != NULL && i < filters->len; i++)
    if (g_strcmp0 (g_array_index (filters, RspEventFilter, i).event, event) == 0)
      return (gint) i;
  return -1;
}

const char *
rsp_event_filters_find (const GArray *filters, const char *event)
{
  gint i = filter_index (filters, event);
  return i >= 0 ? g_array_index (filters, RspEventFilter, i).filter : NULL;
}

void
rsp_event_filters_remove (GArray *filters, const char *event)
{
  gint i = filter_index (filters, event);
  if (i >= 0)
    g_array_remove_index (filters, (guint) i);
}

RspFtraceMeta *
rsp_ftrace_meta_new (void)
{
  RspFtraceMeta *meta = g_new0 (RspFtraceMeta, 1);
  meta->events = g_new0 (char *, 1);
  meta->missing_events = g_array_new (FALSE, TRUE, sizeof (RspMissingEvent));
  g_array_set_clear_func (meta->missing_events, rsp_missing_event_clear);
  meta->filters = rsp_event_filters_new ();
  meta->cpus = g_array_new (FALSE, TRUE, sizeof (RspFtraceCpuStats));
  return meta;
}

void
rsp_ftrace_meta_free (RspFtraceMeta *meta)
{
  if (meta == NULL)
    return;
  g_free (meta->instance);
  g_free (meta->clock);
  g_strfreev (meta->events);
  g_array_unref (meta->missing_events);
  g_array_unref (meta->filters);
  g_array_unref (meta->cpus);
  g_free (meta->error);
  g_free (meta);
}

RspRecordingMeta *
rsp_recording_meta_new (void)
{
  RspRecordingMeta *meta = g_new0 (RspRecordingMeta, 1);
  meta->ref_count = 1;
  meta->target_pid = -1;
  meta->exit_status = -1;
  meta->missing_events = g_array_new (FALSE, TRUE, sizeof (RspMissingEvent));
  g_array_set_clear_func (meta->missing_events, rsp_missing_event_clear);
  meta->health = g_array_new (FALSE, TRUE, sizeof (RspHealthEntry));
  g_array_set_clear_func (meta->health, rsp_health_entry_clear);
  meta->perf_filters = rsp_event_filters_new ();
  meta->keep_awake_pids = g_array_new (FALSE, TRUE, sizeof (gint32));
  meta->runs = g_array_new (FALSE, TRUE, sizeof (RspRecordedRun));
  return meta;
}

RspRecordingMeta *
rsp_recording_meta_ref (RspRecordingMeta *meta)
{
  if (meta != NULL)
    g_atomic_int_inc (&meta->ref_count);
  return meta;
}

void
rsp_recording_meta_free (RspRecordingMeta *meta)
{
  if (meta == NULL || !g_atomic_int_dec_and_test (&meta->ref_count))
    return;
  g_free (meta->rsp_version);
  g_strfreev (meta->command);
  g_free (meta->hostname);
  g_free (meta->kernel_release);
  g_free (meta->clock);
  g_strfreev (meta->perf_argv);
  g_strfreev (meta->events);
  g_array_unref (meta->missing_events);
  g_array_unref (meta->health);
  g_array_unref (meta->perf_filters);
  g_array_unref (meta->keep_awake_pids);
  g_array_unref (meta->runs);
  g_strfreev (meta->probes);
  g_free (meta->probe_group);
  rsp_ftrace_meta_free (meta->ftrace);
  g_free (meta);
}

static void
add_strv (RspJsonWriter *b, const char *name, char **strv)
{
  rsp_json_writer_set_member_name (b, name);
  if (strv == NULL)
    {
      rsp_json_writer_add_null_value (b);
      return;
    }
  rsp_json_writer_begin_array (b);
  for (char **s = strv; *s != NULL; s++)
    rsp_json_writer_add_string_value (b, *s);
  rsp_json_writer_end_array (b);
}

static void
add_string (RspJsonWriter *b, const char *name, const char *value)
{
  rsp_json_writer_set_member_name (b, name);
  if (value != NULL)
    rsp_json_writer_add_string_value (b, value);
  else
    rsp_json_writer_add_null_value (b);
}

static void
add_u64 (RspJsonWriter *b, const char *name, guint64 value)
{
  rsp_json_writer_set_member_name (b, name);
  /* counts fit a gint64; a wrapped one would read back as 0 */
  rsp_json_writer_add_int_value (b, value <= G_MAXINT64 ? (gint64) value : 0);
}

static void
add_missing_events (RspJsonWriter *b, const char *name, const GArray *missing)
{
  rsp_json_writer_set_member_name (b, name);
  rsp_json_writer_begin_array (b);
  for (guint i = 0; i < missing->len; i++)
    {
      const RspMissingEvent *e = &g_array_index (missing, RspMissingEvent, i);
      rsp_json_writer_begin_object (b);
      add_string (b, "name", e->name);
      add_string (b, "reason", e->reason);
      rsp_json_writer_end_object (b);
    }
  rsp_json_writer_end_array (b);
}

/* FILTERS (RspEventFilter) as an array of {"event", "filter"}. */
static void
add_filters (RspJsonWriter *b, const char *name, const GArray *filters)
{
  rsp_json_writer_set_member_name (b, name);
  rsp_json_writer_begin_array (b);
  for (guint i = 0; i < filters->len; i++)
    {
      const RspEventFilter *f = &g_array_index (filters, RspEventFilter, i);
      rsp_json_writer_begin_object (b);
      add_string (b, "event", f->event);
      add_string (b, "filter", f->filter);
      rsp_json_writer_end_object (b);
    }
  rsp_json_writer_end_array (b);
}

static void
add_ftrace (RspJsonWriter *b, const RspFtraceMeta *ftrace)
{
  rsp_json_writer_set_member_name (b, "ftrace");
  if (ftrace == NULL)
    {
      rsp_json_writer_add_null_value (b);
      return;
    }
  rsp_json_writer_begin_object (b);
  add_string (b, "instance", ftrace->instance);
  add_string (b, "clock", ftrace->clock);
  add_strv (b, "events", ftrace->events);
  add_missing_events (b, "missing_events", ftrace->missing_events);
  add_filters (b, "filters", ftrace->filters);
  rsp_json_writer_set_member_name (b, "cpus");
  rsp_json_writer_begin_array (b);
  for (guint i = 0; i < ftrace->cpus->len; i++)
    {
      const RspFtraceCpuStats *c = &g_array_index (ftrace->cpus, RspFtraceCpuStats, i);
      rsp_json_writer_begin_object (b);
      add_u64 (b, "cpu", c->cpu);
      add_u64 (b, "entries", c->entries);
      add_u64 (b, "overrun", c->overrun);
      add_u64 (b, "commit_overrun", c->commit_overrun);
      add_u64 (b, "dropped_events", c->dropped_events);
      add_u64 (b, "read_events", c->read_events);
      add_u64 (b, "bytes", c->bytes);
      rsp_json_writer_end_object (b);
    }
  rsp_json_writer_end_array (b);
  add_string (b, "error", ftrace->error);
  rsp_json_writer_end_object (b);
}

char *
rsp_recording_meta_to_json (const RspRecordingMeta *meta, gsize *length)
{
  g_autoptr (RspJsonWriter) b = rsp_json_writer_new ();
  rsp_json_writer_begin_object (b);
  add_string (b, "rsp_version", meta->rsp_version);
  add_strv (b, "command", meta->command);
  rsp_json_writer_set_member_name (b, "target_pid");
  rsp_json_writer_add_int_value (b, meta->target_pid);
  /* nanosecond times exceed a double's exact range: keep them as strings */
  g_autofree char *start = g_strdup_printf ("%" G_GUINT64_FORMAT, meta->start_ns);
  g_autofree char *end = g_strdup_printf ("%" G_GUINT64_FORMAT, meta->end_ns);
  add_string (b, "start_ns", start);
  add_string (b, "end_ns", end);
  rsp_json_writer_set_member_name (b, "exit_status");
  rsp_json_writer_add_int_value (b, meta->exit_status);
  add_string (b, "hostname", meta->hostname);
  add_string (b, "kernel_release", meta->kernel_release);
  add_string (b, "clock", meta->clock);
  add_strv (b, "perf_argv", meta->perf_argv);
  add_strv (b, "events", meta->events);

  add_missing_events (b, "missing_events", meta->missing_events);
  add_filters (b, "perf_filters", meta->perf_filters);

  rsp_json_writer_set_member_name (b, "health");
  rsp_json_writer_begin_array (b);
  for (guint i = 0; i < meta->health->len; i++)
    {
      const RspHealthEntry *e = &g_array_index (meta->health, RspHealthEntry, i);
      rsp_json_writer_begin_object (b);
      add_string (b, "event", e->event);
      rsp_json_writer_set_member_name (b, "counted");
      rsp_json_writer_add_int_value (b, (gint64) e->counted);
      rsp_json_writer_set_member_name (b, "recorded");
      rsp_json_writer_add_int_value (b, (gint64) e->recorded);
      rsp_json_writer_end_object (b);
    }
  rsp_json_writer_end_array (b);

  rsp_json_writer_set_member_name (b, "keep_awake");
  rsp_json_writer_add_boolean_value (b, meta->keep_awake);
  rsp_json_writer_set_member_name (b, "keep_awake_pids");
  rsp_json_writer_begin_array (b);
  for (guint i = 0; i < meta->keep_awake_pids->len; i++)
    rsp_json_writer_add_int_value (b, g_array_index (meta->keep_awake_pids, gint32, i));
  rsp_json_writer_end_array (b);
  rsp_json_writer_set_member_name (b, "idle_loss_suspected");
  rsp_json_writer_add_boolean_value (b, meta->idle_loss_suspected);
  rsp_json_writer_set_member_name (b, "interrupted");
  rsp_json_writer_add_boolean_value (b, meta->interrupted);
  rsp_json_writer_set_member_name (b, "symbols_searched");
  rsp_json_writer_add_int_value (b, meta->symbols_searched);
  add_ftrace (b, meta->ftrace);
  rsp_json_writer_set_member_name (b, "repeat");
  rsp_json_writer_add_int_value (b, meta->repeat);
  rsp_json_writer_set_member_name (b, "runs");
  rsp_json_writer_begin_array (b);
  for (guint i = 0; i < meta->runs->len; i++)
    {
      const RspRecordedRun *r = &g_array_index (meta->runs, RspRecordedRun, i);
      g_autofree char *run_start = g_strdup_printf ("%" G_GUINT64_FORMAT, r->start_ns);
      g_autofree char *run_end = g_strdup_printf ("%" G_GUINT64_FORMAT, r->end_ns);
      rsp_json_writer_begin_object (b);
      rsp_json_writer_set_member_name (b, "pid");
      rsp_json_writer_add_int_value (b, r->pid);
      add_string (b, "start_ns", run_start);
      add_string (b, "end_ns", run_end);
      rsp_json_writer_set_member_name (b, "exit_status");
      rsp_json_writer_add_int_value (b, r->exit_status);
      rsp_json_writer_end_object (b);
    }
  rsp_json_writer_end_array (b);
  add_strv (b, "probes", meta->probes);
  add_string (b, "probe_group", meta->probe_group);
  rsp_json_writer_end_object (b);

  return rsp_json_writer_finish (b, length);
}

static char **
get_strv (const RspJsonNode *o, const char *name)
{
  const RspJsonNode *a = rsp_json_object_get_member (o, name);
  if (rsp_json_node_get_type (a) != RSP_JSON_ARRAY)
    return NULL;
  guint n = rsp_json_node_get_length (a);
  char **strv = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    {
      const char *e = rsp_json_node_get_string (rsp_json_array_get_element (a, i));
      strv[i] = g_strdup (e != NULL ? e : "");
    }
  return strv;
}

static char *
get_string (const RspJsonNode *o, const char *name)
{
  return g_strdup (rsp_json_node_get_string (rsp_json_object_get_member (o, name)));
}

static gint64
get_int (const RspJsonNode *o, const char *name, gint64 fallback)
{
  const RspJsonNode *node = rsp_json_object_get_member (o, name);
  if (rsp_json_node_get_type (node) == RSP_JSON_INT)
    return rsp_json_node_get_int (node);
  if (rsp_json_node_get_type (node) == RSP_JSON_STRING)
    return (gint64) g_ascii_strtoull (rsp_json_node_get_string (node), NULL, 10);
  return fallback;
}

static gboolean
get_bool (const RspJsonNode *o, const char *name)
{
  return rsp_json_node_get_boolean (rsp_json_object_get_member (o, name));
}

/* The member NAME when it is an array, else NULL (which has no elements). */
static const RspJsonNode *
get_array (const RspJsonNode *o, const char *name)
{
  const RspJsonNode *node = rsp_json_object_get_member (o, name);
  return rsp_json_node_get_type (node) == RSP_JSON_ARRAY ? node : NULL;
}

static void
get_missing_events (const RspJsonNode *o, const char *name, GArray *into)
{
  const RspJsonNode *a = get_array (o, name);
  for (guint i = 0; i < rsp_json_node_get_length (a); i++)
    {
      const RspJsonNode *n = rsp_json_array_get_element (a, i);
      if (rsp_json_node_get_type (n) != RSP_JSON_OBJECT)
        continue;
      RspMissingEvent e = { get_string (n, "name"), get_string (n, "reason") };
      g_array_append_val (into, e);
    }
}

/* The array NAME of {"event", "filter"} into INTO (RspEventFilter); what
 * is not such an object is left out. */
static void
get_filters (const RspJsonNode *o, const char *name, GArray *into)
{
  const RspJsonNode *a = get_array (o, name);
  for (guint i = 0; i < rsp_json_node_get_length (a); i++)
    {
      const RspJsonNode *n = rsp_json_array_get_element (a, i);
      if (rsp_json_node_get_type (n) != RSP_JSON_OBJECT)
        continue;
      RspEventFilter f = { get_string (n, "event"), get_string (n, "filter") };
      if (f.event == NULL || f.filter == NULL)
        {
          rsp_event_filter_clear (&f);
          continue;
        }
      g_array_append_val (into, f);
    }
}

static guint64
get_u64 (const RspJsonNode *o, const char *name)
{
  gint64 value = get_int (o, name, 0);
  return value > 0 ? (guint64) value : 0;
}

/* The "ftrace" member; NULL when absent or not an object. */
static RspFtraceMeta *
get_ftrace (const RspJsonNode *o)
{
  const RspJsonNode *fo = rsp_json_object_get_member (o, "ftrace");
  if (rsp_json_node_get_type (fo) != RSP_JSON_OBJECT)
    return NULL;
  RspFtraceMeta *ftrace = rsp_ftrace_meta_new ();
  ftrace->instance = get_string (fo, "instance");
  ftrace->clock = get_string (fo, "clock");
  char **events = get_strv (fo, "events");
  if (events != NULL)
    {
      g_strfreev (ftrace->events);
      ftrace->events = events;
    }
  get_missing_events (fo, "missing_events", ftrace->missing_events);
  get_filters (fo, "filters", ftrace->filters);
  const RspJsonNode *a = get_array (fo, "cpus");
  for (guint i = 0; i < rsp_json_node_get_length (a); i++)
    {
      const RspJsonNode *co = rsp_json_array_get_element (a, i);
      if (rsp_json_node_get_type (co) != RSP_JSON_OBJECT)
        continue;
      RspFtraceCpuStats c = {
        .cpu = (guint32) MIN (get_u64 (co, "cpu"), G_MAXUINT32),
        .entries = get_u64 (co, "entries"),
        .overrun = get_u64 (co, "overrun"),
        .commit_overrun = get_u64 (co, "commit_overrun"),
        .dropped_events = get_u64 (co, "dropped_events"),
        .read_events = get_u64 (co, "read_events"),
        .bytes = get_u64 (co, "bytes"),
      };
      g_array_append_val (ftrace->cpus, c);
    }
  ftrace->error = get_string (fo, "error");
  return ftrace;
}

RspRecordingMeta *
rsp_recording_meta_from_json (const char *json, gsize length, GError **error)
{
  g_autoptr (RspJsonNode) o = rsp_json_parse (json, length, error);
  if (o == NULL)
    return NULL;
  if (rsp_json_node_get_type (o) != RSP_JSON_OBJECT)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT, _("the metadata is not a JSON object"));
      return NULL;
    }
  RspRecordingMeta *meta = rsp_recording_meta_new ();
  meta->rsp_version = get_string (o, "rsp_version");
  meta->command = get_strv (o, "command");
  meta->target_pid = (gint32) get_int (o, "target_pid", -1);
  meta->start_ns = (guint64) get_int (o, "start_ns", 0);
  meta->end_ns = (guint64) get_int (o, "end_ns", 0);
  meta->exit_status = (gint) get_int (o, "exit_status", -1);
  meta->hostname = get_string (o, "hostname");
  meta->kernel_release = get_string (o, "kernel_release");
  meta->clock = get_string (o, "clock");
  meta->perf_argv = get_strv (o, "perf_argv");
  meta->events = get_strv (o, "events");
  meta->keep_awake = get_bool (o, "keep_awake");
  meta->idle_loss_suspected = get_bool (o, "idle_loss_suspected");
  meta->interrupted = get_bool (o, "interrupted");
  gint64 searched = get_int (o, "symbols_searched", 0);
  meta->symbols_searched = searched > 0 && searched <= G_MAXUINT ? (guint) searched : 0;

  get_missing_events (o, "missing_events", meta->missing_events);
  get_filters (o, "perf_filters", meta->perf_filters);
  meta->ftrace = get_ftrace (o);
  const RspJsonNode *a = get_array (o, "health");
  for (guint i = 0; i < rsp_json_node_get_length (a); i++)
    {
      const RspJsonNode *eo = rsp_json_array_get_element (a, i);
      if (rsp_json_node_get_type (eo) != RSP_JSON_OBJECT)
        continue;
      RspHealthEntry e = { get_string (eo, "event"), (guint64) get_int (eo, "counted", 0),
                           (guint64) get_int (eo, "recorded", 0) };
      if (e.event == NULL)
        continue;
      g_array_append_val (meta->health, e);
    }
  a = get_array (o, "keep_awake_pids");
  for (guint i = 0; i < rsp_json_node_get_length (a); i++)
    {
      const RspJsonNode *n = rsp_json_array_get_element (a, i);
      if (rsp_json_node_get_type (n) == RSP_JSON_INT)
        {
          gint32 pid = (gint32) rsp_json_node_get_int (n);
          g_array_append_val (meta->keep_awake_pids, pid);
        }
    }
  meta->repeat = (guint) CLAMP (get_int (o, "repeat", 0), 0, G_MAXINT32);
  meta->probes = get_strv (o, "probes");
  meta->probe_group = get_string (o, "probe_group");
  a = get_array (o, "runs");
  for (guint i = 0; i < rsp_json_node_get_length (a); i++)
    {
      const RspJsonNode *ro = rsp_json_array_get_element (a, i);
      if (rsp_json_node_get_type (ro) != RSP_JSON_OBJECT)
        continue;
      RspRecordedRun r = {
        .pid = (gint32) get_int (ro, "pid", -1),
        .start_ns = (guint64) get_int (ro, "start_ns", 0),
        .end_ns = (guint64) get_int (ro, "end_ns", 0),
        .exit_status = (gint) get_int (ro, "exit_status", -1),
      };
      if (r.pid <= 0 || r.end_ns < r.start_ns)
        continue; /* a damaged entry is no request */
      g_array_append_val (meta->runs, r);
    }
  return meta;
}

/* ---------------------------------------------------------------- trailer */

void
rsp_recording_free (RspRecording *rec)
{
  if (rec == NULL)
    return;
  g_array_unref (rec->sections);
  rsp_recording_meta_free (rec->meta);
  g_free (rec);
}

RspRecording *
rsp_recording_parse (const guint8 *data, gsize size, GError **error)
{
  if (size < FOOTER_SIZE || memcmp (data + size - 8, RSP_TRAILER_MAGIC, 8) != 0)
    return NULL;
  const guint8 *footer = data + size - FOOTER_SIZE;
  guint64 table_offset = rsp_read_u64 (footer);
  guint32 n = rsp_read_u32 (footer + 8);
  guint32 version = rsp_read_u32 (footer + 12);
  if (version != RSP_TRAILER_VERSION)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_FOREIGN,
                   _("the RSP trailer has version %u, this rsp reads version %u"), version, RSP_TRAILER_VERSION);
      return NULL;
    }
  if (n == 0 || n > MAX_SECTIONS || table_offset > size - FOOTER_SIZE
      || (guint64) n * TABLE_ENTRY_SIZE != size - FOOTER_SIZE - table_offset)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT, _("the RSP trailer's section table is damaged"));
      return NULL;
    }

  RspRecording *rec = g_new0 (RspRecording, 1);
  rec->sections = g_array_new (FALSE, TRUE, sizeof (RspSection));
  rec->perf_data_size = table_offset;
  for (guint32 i = 0; i < n; i++)
    {
      const guint8 *e = data + table_offset + (gsize) i * TABLE_ENTRY_SIZE;
      RspSection s = { 0 };
      memcpy (s.name, e, SECTION_NAME_SIZE);
      s.offset = rsp_read_u64 (e + SECTION_NAME_SIZE);
      s.size = rsp_read_u64 (e + SECTION_NAME_SIZE + 8);
      if (s.offset > table_offset || s.size > table_offset - s.offset)
        {
          g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT,
                       _("the RSP trailer's section '%s' points outside the file"), s.name);
          rsp_recording_free (rec);
          return NULL;
        }
      rec->perf_data_size = MIN (rec->perf_data_size, s.offset);
      g_array_append_val (rec->sections, s);

      if (strcmp (s.name, RSP_SECTION_META) == 0)
        {
          g_autoptr (GError) meta_error = NULL;
          rec->meta = rsp_recording_meta_from_json ((const char *) data + s.offset, s.size, &meta_error);
          if (rec->meta == NULL)
            {
              g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT,
                           _("the recording's metadata is damaged: %s"), meta_error->message);
              rsp_recording_free (rec);
              return NULL;
            }
        }
      else if (strcmp (s.name, RSP_SECTION_SYMBOLS) == 0)
        {
          rec->symbols = data + s.offset;
          rec->symbols_size = s.size;
        }
      else if (strcmp (s.name, RSP_SECTION_FILES) == 0)
        {
          rec->files = data + s.offset;
          rec->files_size = s.size;
        }
    }
  return rec;
}

static gboolean
write_all (int fd, const void *buf, gsize len, GError **error)
{
  int err = rsp_write_all (fd, buf, len);
  if (err != 0)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), _("cannot write the recording: %s"),
                 g_strerror (err));
  return err == 0;
}

gboolean
rsp_recording_append_sections (const char *path, const char *const *names, GPtrArray *const *parts, guint n,
                               GError **error)
{
  g_return_val_if_fail (n > 0 && n <= MAX_SECTIONS, FALSE);
  int fd = open (path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0)
    {
      int err = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), _("cannot open %s: %s"), path, g_strerror (err));
      return FALSE;
    }
  off_t pos = lseek (fd, 0, SEEK_END);
  if (pos < 0)
    {
      close (fd);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("cannot seek in %s"), path);
      return FALSE;
    }
  guint64 offset = (guint64) pos;
  g_autofree guint8 *table = g_malloc0 ((gsize) n * TABLE_ENTRY_SIZE);
  gboolean ok = TRUE;
  for (guint i = 0; i < n && ok; i++)
    {
      guint64 size = 0;
      for (guint j = 0; j < parts[i]->len && ok; j++)
        {
          gsize part_size = 0;
          const guint8 *bytes = g_bytes_get_data (g_ptr_array_index (parts[i], j), &part_size);
          ok = write_all (fd, bytes, part_size, error);
          size += part_size;
        }
      guint8 *e = table + (gsize) i * TABLE_ENTRY_SIZE;
      strncpy ((char *) e, names[i], SECTION_NAME_SIZE);
      guint64 le_offset = GUINT64_TO_LE (offset), le_size = GUINT64_TO_LE (size);
      memcpy (e + SECTION_NAME_SIZE, &le_offset, 8);
      memcpy (e + SECTION_NAME_SIZE + 8, &le_size, 8);
      offset += size;
    }
  if (ok)
    ok = write_all (fd, table, (gsize) n * TABLE_ENTRY_SIZE, error);
  if (ok)
    {
      guint8 footer[FOOTER_SIZE];
      guint64 le_table = GUINT64_TO_LE (offset);
      guint32 le_n = GUINT32_TO_LE (n), le_version = GUINT32_TO_LE (RSP_TRAILER_VERSION);
      memcpy (footer, &le_table, 8);
      memcpy (footer + 8, &le_n, 4);
      memcpy (footer + 12, &le_version, 4);
      memcpy (footer + 16, RSP_TRAILER_MAGIC, 8);
      ok = write_all (fd, footer, sizeof footer, error);
    }
  if (!ok && ftruncate (fd, pos) != 0)
    {
      /* the file keeps a partial trailer, which the reader reports as damaged */
    }
  if (close (fd) < 0 && ok)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), _("cannot write %s: %s"), path, g_strerror (errno));
      ok = FALSE;
    }
  return ok;
}

gboolean
rsp_recording_copy (const char *path, const char *new_path, GError **error)
{
  g_return_val_if_fail (path != NULL && new_path != NULL, FALSE);
  int in = open (path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (in < 0 || fstat (in, &st) != 0)
    {
      int err = errno;
      if (in >= 0)
        close (in);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), _("cannot open %s: %s"), path, g_strerror (err));
      return FALSE;
    }
  /* PATH's permission bits whatever the umask; created 0600, so that the
   * copy is never readable to more users than PATH */
  int out = open (new_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (out < 0 || fchmod (out, st.st_mode & 0777) != 0)
    {
      int err = errno;
      if (out >= 0)
        {
          close (out);
          unlink (new_path);
        }
      close (in);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), _("cannot create %s: %s"), new_path,
                   g_strerror (err));
      return FALSE;
    }
  gsize size = (gsize) st.st_size;
  void *map = size > 0 ? mmap (NULL, size, PROT_READ, MAP_PRIVATE, in, 0) : NULL;
  gboolean ok = map != MAP_FAILED;
  if (!ok)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), _("cannot map %s: %s"), path,
                 g_strerror (errno));
  if (map != NULL && map != MAP_FAILED)
    madvise (map, size, MADV_SEQUENTIAL);
  /* a piece each, at the piece's offset: write_all() finishes a short
   * write without leaving it */
  for (gsize at = 0; ok && at < size; at += RSP_RECORDING_COPY_PIECE)
    ok = write_all (out, (const guint8 *) map + at, MIN ((gsize) RSP_RECORDING_COPY_PIECE, size - at), error);
  if (map != NULL && map != MAP_FAILED)
    munmap (map, size);
  close (in);
  if (close (out) != 0 && ok)
    {
      int err = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), _("cannot write %s: %s"), new_path,
                   g_strerror (err));
      ok = FALSE;
    }
  if (!ok)
    unlink (new_path);
  return ok;
}

gboolean
rsp_recording_append_trailer (const char *path, const char *const *names, GBytes *const *blobs, guint n,
                              GError **error)
{
  g_return_val_if_fail (n > 0 && n <= MAX_SECTIONS, FALSE);
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  for (guint i = 0; i < n; i++)
    {
      GPtrArray *one = g_ptr_array_new ();
      g_ptr_array_add (one, blobs[i]);
      g_ptr_array_add (all, one);
    }
  return rsp_recording_append_sections (path, names, (GPtrArray *const *) all->pdata, n, error);
}
