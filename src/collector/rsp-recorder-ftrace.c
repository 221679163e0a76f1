/* rsp-recorder-ftrace.c — RSP's tracefs instance beside perf: started (or
 * turned off with one warning that says what is lost), the events it
 * covers whole for the health check, its own losses. */
#include "rsp-recorder-private.h"

#include <glib/gi18n-lib.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

#include "rsp-ftrace-reader.h"
#include "rsp-perf-reader-private.h"

/* The walk for files not open at the start or the end: at most this many
 * directory entries (and WALK_MS, rsp-files.c). */
#define FILE_WALK_MAX_ENTRIES 500000
/* The live namer: read as soon as it has events (its buffer_percent is 0),
 * at most once per FILE_NAMER_TICK_MS, with this much buffer per CPU (file
 * events are some 40 bytes: 12000 of them per CPU). */
#define FILE_NAMER_TICK_MS 5
#define FILE_NAMER_BUFFER_KB 512

/* Starts RSP's tracefs instance (tracing still off), after removing the
 * stale ones.  When it cannot run, says once what is lost and how to fix
 * it; the recording goes on with perf alone. */
void
session_open_ftrace (Session *s, const Probe *probe, const GArray *cpus)
{
  rsp_ftrace_remove_stale (probe->tracefs);
  g_autoptr (GError) error = NULL;
  g_autofree char *tmp_prefix = g_strdup_printf ("%s.%d", s->options->output, (int) getpid ());
  s->ftrace = rsp_ftrace_new (probe->tracefs, cpus, tmp_prefix, g_getenv ("RSP_RECORD_PRETEND_MISSING"), &error);
  if (s->ftrace == NULL)
    {
      gboolean fixable = g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_ACCES)
                         || g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_PERM)
                         || g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_ROFS)
                         || g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
      session_channel_off (s, error->message, fixable);
      return;
    }
  g_autoptr (RspFtraceMeta) meta = rsp_ftrace_build_meta (s->ftrace);
  for (guint i = 0; i < meta->missing_events->len; i++)
    {
      const RspMissingEvent *missing = &g_array_index (meta->missing_events, RspMissingEvent, i);
      gboolean told = FALSE;
      for (guint j = 0; j < probe->events.missing->len && !told; j++)
        told = g_strcmp0 (g_array_index (probe->events.missing, RspMissingEvent, j).name, missing->name) == 0;
      if (!told)
        fprintf (stderr, _("rsp record: %s missing in the tracefs instance: %s\n"), missing->name, missing->reason);
    }
}

/* The instance cannot run: one warning, and the reason kept for the meta.
 * WITH_FIX: the cause is privileges or the tracefs mount, which the user
 * can fix. */
void
session_channel_off (Session *s, const char *why, gboolean with_fix)
{
  if (with_fix)
    fprintf (stderr,
             _("rsp record: warning: RSP's tracefs instance is off: %s; %s (perf drops them). To fix it, run "
               "rsp record as root with tracefs mounted read-write: 'mount -t tracefs nodev /sys/kernel/tracing'\n"),
             why, _(RSP_FTRACE_LOSS_TEXT));
  else
    fprintf (stderr, _("rsp record: warning: RSP's tracefs instance is off: %s; %s (perf drops them)\n"), why,
             _(RSP_FTRACE_LOSS_TEXT));
  g_free (s->ftrace_error);
  s->ftrace_error = g_strdup (why);
  g_clear_pointer (&s->ftrace, rsp_ftrace_free);
}

/* perf's events whose every occurrence the instance also recorded, with
 * nothing lost: a shortfall of perf's there is no loss (the reader merges
 * the instance's copies in). */
char **
recorder_covered_events (const RspFtraceMeta *ftrace)
{
  if (ftrace == NULL || ftrace->events == NULL || ftrace->error != NULL || rsp_ftrace_meta_lost (ftrace) > 0
      || ftrace->cpus->len == 0)
    return g_new0 (char *, 1);
  return g_strdupv (ftrace->events);
}

/* The instance's own losses, next to perf's. */
void
recorder_report_ftrace_losses (const RspFtraceMeta *ftrace, int buffer_kb)
{
  for (guint i = 0; ftrace != NULL && i < ftrace->cpus->len; i++)
    {
      const RspFtraceCpuStats *c = &g_array_index (ftrace->cpus, RspFtraceCpuStats, i);
      guint64 lost = c->overrun + c->commit_overrun + c->dropped_events;
      /* the buffer keeps its first events when full (overwrite off): what
       * is lost are the events that came while it was full */
      if (lost > 0)
        fprintf (stderr,
                 _("rsp record: warning: the tracefs instance lost %llu events on CPU %u (buffer overrun): its "
                   "%d kB buffer filled faster than rsp record emptied it while the load held the CPUs, so some "
                   "wake-ups, interrupts, block and socket events of that CPU are missing (the analysis infers "
                   "them). If it matters, record a shorter stretch or a smaller load\n"),
                 (unsigned long long) lost, c->cpu, buffer_kb);
    }
}


static gboolean
pull_nothing (gpointer source, RspEvent *event)
{
  (void) source;
  (void) event;
  return FALSE;
}

void
session_open_file_namer (Session *s, const Probe *probe, const GArray *cpus)
{
  if (s->ftrace == NULL)
    return;
  /* none of the file events in this kernel (or all marked missing): the
   * instance's meta says so already */
  g_autoptr (RspFtraceMeta) meta = rsp_ftrace_build_meta (s->ftrace);
  gboolean any = FALSE;
  for (const char *const *e = rsp_file_events (); *e != NULL && !any; e++)
    any = meta->events != NULL && g_strv_contains ((const char *const *) meta->events, *e);
  if (!any)
    return;
  g_autoptr (GError) error = NULL;
  s->namer = rsp_ftrace_new_live (probe->tracefs, cpus, rsp_file_events (), FILE_NAMER_BUFFER_KB,
                                  g_getenv ("RSP_RECORD_PRETEND_MISSING"), &error);
  if (s->namer == NULL)
    fprintf (stderr,
             _("rsp record: warning: the files behind disk waits are named only when the recording ends (files "
               "deleted or closed before then keep their device and inode): %s\n"),
             error->message);
}

gint64
session_file_namer_timeout (const Session *s)
{
  if (s->namer == NULL || s->namer_next_us == 0)
    return -1;
  gint64 wait = s->namer_next_us - g_get_monotonic_time ();
  /* ready: its fds wake the poll (session_file_namer_poll_fds) */
  return wait > 0 ? (wait + 999) / 1000 : -1;
}

guint
session_file_namer_poll_fds (Session *s, struct pollfd *fds, guint max)
{
  if (s->namer == NULL || s->namer_next_us == 0 || g_get_monotonic_time () < s->namer_next_us)
    return 0;
  return rsp_ftrace_poll_fds (s->namer, fds, max);
}

/* The inodes the events of SECTION (from the live namer) name that have no
 * name yet: named from the open and mapped files of the thread that did the
 * I/O, read once per thread and call.  The formats are parsed at the first
 * call only: the later ones load their events into the same stream. */
static void
name_from_section (Session *s, GBytes *section)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (section, &size);
  if (s->namer_stream == NULL)
    {
      s->namer_evsels = g_ptr_array_new_with_free_func (rsp_perf_evsel_free);
      s->namer_stream = rsp_ftrace_stream_new (data, size, s->namer_evsels, NULL);
      if (s->namer_stream == NULL)
        return;
    }
  else
    {
      gsize head = rsp_ftrace_live_head_size (s->namer);
      if (head == 0 || head > size)
        return;
      rsp_ftrace_stream_load_cpus (s->namer_stream, data + head, size - head);
    }
  g_autoptr (GHashTable) read_tids = g_hash_table_new (g_direct_hash, g_direct_equal);
  const RspEvent *event;
  RspFileId id;
  while ((event = rsp_ftrace_stream_next_ref (s->namer_stream, pull_nothing, NULL)) != NULL)
    {
      if (!rsp_file_event_read (event, &id))
        continue;
      rsp_file_names_want (s->files, id);
      if (rsp_file_names_has (s->files, id) || event->tid <= 0
          || g_hash_table_contains (read_tids, GINT_TO_POINTER (event->tid)))
        continue;
      g_hash_table_add (read_tids, GINT_TO_POINTER (event->tid));
      rsp_file_names_snapshot_pid (s->files, "/proc", event->tid);
    }
}

void
session_file_namer_tick (Session *s, const struct pollfd *fds, guint n, gboolean final)
{
  if (s->namer == NULL || s->files == NULL)
    return;
  gint64 now = g_get_monotonic_time ();
  gboolean ready = FALSE;
  for (guint i = 0; i < n; i++)
    ready |= (fds[i].revents & (POLLIN | POLLERR | POLLHUP)) != 0;
  if (!final && (s->namer_next_us == 0 || now < s->namer_next_us || !ready))
    return;
  s->namer_next_us = final ? 0 : now + FILE_NAMER_TICK_MS * 1000;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) section = rsp_ftrace_take_live (s->namer, &error);
  if (section != NULL)
    name_from_section (s, section);
}

GBytes *
session_name_files (Session *s)
{
  if (s->ftrace == NULL || s->files == NULL)
    return NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) parts = rsp_ftrace_section_parts (s->ftrace, &error);
  if (parts == NULL)
    return NULL;
  g_autoptr (GByteArray) all = g_byte_array_new ();
  for (guint i = 0; i < parts->len; i++)
    {
      gsize size;
      const guint8 *data = g_bytes_get_data (g_ptr_array_index (parts, i), &size);
      g_byte_array_append (all, data, (guint) size);
    }
  g_autoptr (GPtrArray) evsels = g_ptr_array_new_with_free_func (rsp_perf_evsel_free);
  RspFtraceStream *stream = rsp_ftrace_stream_new (all->data, all->len, evsels, &error);
  if (stream == NULL)
    {
      fprintf (stderr, _("rsp record: warning: the files behind disk waits stay unnamed: %s\n"), error->message);
      return NULL;
    }
  const RspEvent *event;
  RspFileId id;
  while ((event = rsp_ftrace_stream_next_ref (stream, pull_nothing, NULL)) != NULL)
    if (rsp_file_event_read (event, &id))
      rsp_file_names_want (s->files, id);
  rsp_ftrace_stream_free (stream);
  g_clear_pointer (&evsels, g_ptr_array_unref);

  if (rsp_file_names_n_wanted (s->files) > 0)
    {
      /* the files open now, then a walk for the rest */
      rsp_file_names_snapshot (s->files, "/proc");
      if (rsp_file_names_n_named (s->files) < rsp_file_names_n_wanted (s->files))
        rsp_file_names_walk (s->files, NULL, FILE_WALK_MAX_ENTRIES);
    }
  return rsp_file_names_section (s->files);
}
