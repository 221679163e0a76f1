/* rsp-recorder-output.c — the recording file: its path checked before
 * anything starts, the post-pass over the perf.data perf wrote (recorded
 * counts, the symbols used), the meta, and the trailer appended before the
 * file goes to the invoking user and is renamed into place. */
#include "rsp-recorder-private.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rsp-ftrace-section.h"
#include "rsp-perf-reader.h"
#include "rsp-symbols.h"

/* At least as deep as any reader resolves a callchain (the model 256
 * frames, rsp dump 512): a report trusts that the stored table holds every
 * name there is for the addresses it meets (RSP_SYMBOLS_SEARCHED_GENERATION). */
#define MAX_CALLCHAIN_FRAMES 512

gboolean
recorder_check_output_path (const char *output, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (output);
  struct stat st;
  if (stat (output, &st) == 0 && S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                   _("%s is a directory: give a file name with -o"), output);
      return FALSE;
    }
  /* the recording is renamed into place: never over a device, pipe or
   * socket (as root, -o /dev/null would replace the device) */
  if (lstat (output, &st) == 0 && !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("%s exists and is not a regular file: give another file name with -o"), output);
      return FALSE;
    }
  if (access (dir, W_OK) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("cannot write the recording in %s: %s (choose another place with -o)"), dir,
                   g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}

/* Post-pass: what the perf.data holds */

/* Reads the perf.data at PATH once: counts the samples of each health
 * entry's tracepoint timed within [WINDOW_START, WINDOW_END] into its
 * recorded field, and gathers the symbols the samples use. */
gboolean
recorder_post_pass (const char *path, guint64 window_start, guint64 window_end, GArray *health,
                    guint32 jit_uid, PostPass *result, GError **error)
{
  g_autoptr (RspPerfReader) reader = rsp_perf_reader_open_full (path, RSP_PERF_READER_NO_PRINT, error);
  if (reader == NULL)
    return FALSE;

  g_autoptr (RspSymbolizer) symbolizer = rsp_symbolizer_new ();
  g_autoptr (GError) kallsyms_error = NULL;
  if (!rsp_symbolizer_load_proc_kallsyms (symbolizer, &kallsyms_error))
    fprintf (stderr, _("rsp record: kernel function names will be missing: %s\n"), kallsyms_error->message);
  const RspPerfHeader *header = rsp_perf_reader_get_header (reader);
  for (guint i = 0; header->build_ids != NULL && i < header->build_ids->len; i++)
    {
      const RspBuildId *build_id = &g_array_index (header->build_ids, RspBuildId, i);
      if (build_id->filename != NULL)
        rsp_symbolizer_add_build_id (symbolizer, build_id->filename, build_id->id, build_id->size);
    }
  rsp_symbolizer_set_track_used (symbolizer, TRUE);
  /* the JIT maps of COMMAND's user (rsp-symbols-jit.c) */
  if (jit_uid != (guint32) -1)
    rsp_symbolizer_trust_jit_maps_of (symbolizer, jit_uid);

  guint n_evsels = rsp_perf_reader_get_n_evsels (reader);
  g_autofree guint64 *samples_per_evsel = g_new0 (guint64, n_evsels);
  g_autofree RspFrame *frames = g_new (RspFrame, MAX_CALLCHAIN_FRAMES);
  const RspEvent *event;

  while ((event = rsp_perf_reader_next_ref (reader)) != NULL)
    {
      rsp_symbolizer_process_event (symbolizer, event);
      /* another event's value a sample read: not a record of its own */
      if (event->type != PERF_RECORD_SAMPLE || event->sample.read_member)
        continue;
      result->samples++;
      result->kept.samples++;
      result->kept.bytes += event->size;
      if (event->evsel != NULL && event->evsel->attr.type == PERF_TYPE_SOFTWARE
          && event->evsel->attr.config == PERF_COUNT_SW_CPU_CLOCK)
        {
          result->kept.clock_samples++;
          result->kept.clock_bytes += event->size;
        }
      if (event->evsel != NULL && event->evsel->index < n_evsels && event->has_time
          && event->time >= window_start && event->time <= window_end)
        samples_per_evsel[event->evsel->index]++;
      /* a sample without a callchain still names its address */
      rsp_symbolizer_resolve_callchain (symbolizer, event, frames, MAX_CALLCHAIN_FRAMES);
    }

  for (guint i = 0; i < health->len; i++)
    {
      RspHealthEntry *entry = &g_array_index (health, RspHealthEntry, i);
      const RspEvsel *evsel = rsp_perf_reader_find_evsel (reader, entry->event);
      if (evsel != NULL && evsel->index < n_evsels)
        entry->recorded = samples_per_evsel[evsel->index];
    }

  const RspReaderStats *stats = rsp_perf_reader_get_stats (reader);
  result->records = stats->records;
  result->lost_events = stats->lost_events;
  result->lost_samples = stats->lost_samples;
  const char *const *warnings = rsp_perf_reader_warnings (reader);
  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    fprintf (stderr, _("rsp record: warning: %s\n"), warnings[i]);
  result->symbols = rsp_symbolizer_export_used (symbolizer);
  return TRUE;
}

/* Metadata */

RspRecordingMeta *
session_build_meta (const Session *s, char **events, const GArray *missing, const GArray *health,
                    gboolean idle_loss_suspected)
{
  RspRecordingMeta *meta = rsp_recording_meta_new ();
  struct utsname uts;

  g_free (meta->rsp_version);
  meta->rsp_version = g_strdup (RSP_VERSION);
  meta->command = g_strdupv (s->options->command);
  meta->target_pid = s->first_command_pid > 0 ? s->first_command_pid : s->command_pid > 0 ? s->command_pid : -1;
  meta->start_ns = s->start_ns;
  meta->end_ns = s->end_ns;
  meta->exit_status = s->command_pid > 0 && s->command_exited ? rsp_recorder_exit_status (s->command_status) : -1;
  meta->hostname = g_strdup (g_get_host_name ());
  meta->kernel_release = g_strdup (uname (&uts) == 0 ? uts.release : "unknown");
  g_free (meta->clock);
  meta->clock = g_strdup ("monotonic");
  meta->perf_argv = g_strdupv (s->perf_argv);
  meta->events = g_strdupv (events);

  if (meta->missing_events == NULL)
    {
      meta->missing_events = g_array_new (FALSE, TRUE, sizeof (RspMissingEvent));
      g_array_set_clear_func (meta->missing_events, rsp_missing_event_clear);
    }
  for (guint i = 0; i < missing->len; i++)
    {
      const RspMissingEvent *from = &g_array_index (missing, RspMissingEvent, i);
      RspMissingEvent copy = { g_strdup (from->name), g_strdup (from->reason) };
      g_array_append_val (meta->missing_events, copy);
    }
  if (meta->health == NULL)
    {
      meta->health = g_array_new (FALSE, TRUE, sizeof (RspHealthEntry));
      g_array_set_clear_func (meta->health, rsp_health_entry_clear);
    }
  for (guint i = 0; health != NULL && i < health->len; i++)
    {
      const RspHealthEntry *from = &g_array_index (health, RspHealthEntry, i);
      RspHealthEntry copy = { g_strdup (from->event), from->counted, from->recorded };
      g_array_append_val (meta->health, copy);
    }
  rsp_event_filters_add_all (meta->perf_filters, s->perf_filters);
  meta->keep_awake = s->options->keep_awake;
  if (meta->keep_awake_pids == NULL)
    meta->keep_awake_pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  if (s->keep_awake != NULL)
    {
      const GArray *pids = rsp_keep_awake_get_pids (s->keep_awake);
      g_array_append_vals (meta->keep_awake_pids, pids->data, pids->len);
    }
  meta->idle_loss_suspected = idle_loss_suspected;
  /* rsp_symbolizer_export_used() writes a line for every binary searched */
  meta->symbols_searched = RSP_SYMBOLS_SEARCHED_GENERATION;
  meta->interrupted = s->interrupted;
  meta->repeat = s->options->repeat;
  if (s->probe_group != NULL)
    {
      meta->probes = g_strdupv (s->options->probes);
      meta->probe_group = g_strdup (s->probe_group);
    }
  if (s->runs != NULL)
    g_array_append_vals (meta->runs, s->runs->data, s->runs->len);
  if (s->ftrace != NULL)
    meta->ftrace = rsp_ftrace_build_meta (s->ftrace);
  else if (s->ftrace_error != NULL)
    {
      meta->ftrace = rsp_ftrace_meta_new ();
      meta->ftrace->clock = g_strdup (RSP_FTRACE_CLOCK);
      meta->ftrace->error = g_strdup (s->ftrace_error);
    }
  return meta;
}

static GPtrArray *
single_part (GBytes *bytes)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_ptr_array_add (parts, g_bytes_ref (bytes));
  return parts;
}

/* Appends the trailer: meta, symbols, the files when FILES is given and,
 * when FTRACE_PARTS is given, the instance's section. */
static gboolean
append_trailer (Session *s, const RspRecordingMeta *meta, GBytes *symbols, GBytes *files, GPtrArray *ftrace_parts,
                GError **error)
{
  gsize meta_length = 0;
  char *meta_json = rsp_recording_meta_to_json (meta, &meta_length);
  g_autoptr (GBytes) meta_bytes = g_bytes_new_take (meta_json, meta_length);
  g_autoptr (GBytes) no_symbols = g_bytes_new_static ("", 0);
  g_autoptr (GPtrArray) meta_parts = single_part (meta_bytes);
  g_autoptr (GPtrArray) symbol_parts = single_part (symbols != NULL ? symbols : no_symbols);
  g_autoptr (GPtrArray) file_parts = files != NULL ? single_part (files) : NULL;
  const char *names[4] = { RSP_SECTION_META, RSP_SECTION_SYMBOLS };
  GPtrArray *parts[4] = { meta_parts, symbol_parts };
  guint n = 2;
  if (ftrace_parts != NULL)
    {
      names[n] = RSP_SECTION_FTRACE;
      parts[n++] = ftrace_parts;
      if (file_parts != NULL)
        {
          names[n] = RSP_SECTION_FILES;
          parts[n++] = file_parts;
        }
    }
  return rsp_recording_append_sections (s->tmp_path, names, parts, n, error);
}

/* What a copy of the recording leaves free on its file system, at least. */
#define COPY_SPARE_BYTES ((guint64) 64 << 20)

/* Puts a copy of the finished recording, written in 2 MB pieces, in the
 * place of the one perf wrote in pieces of a few pages: read from the page
 * cache, the copy maps ten times faster (rsp_recording_copy()), a tenth of
 * a report of a 10 MB recording.  A copy that cannot be made (a full
 * disk), or that would leave less than COPY_SPARE_BYTES free, costs only
 * that, with a note: the recording is kept as it is. */
static void
copy_for_reading (Session *s)
{
  g_autofree char *copy = g_strdup_printf ("%s.%d.tmp-rsp", s->options->output, (int) getpid ());
  g_autoptr (GError) error = NULL;
  const char *why = NULL;
  /* room for the copy and COPY_SPARE_BYTES after it: a disk filled for a
   * moment would fail other programs' writes */
  struct stat st;
  struct statvfs vfs;
  if (stat (s->tmp_path, &st) == 0 && statvfs (s->tmp_path, &vfs) == 0
      && (guint64) vfs.f_bavail * vfs.f_frsize < 2 * (guint64) st.st_size + COPY_SPARE_BYTES)
    why = _("too little free space on its file system for a copy");
  else
    {
      unlink (copy); /* a stale one of this pid's */
      if (!rsp_recording_copy (s->tmp_path, copy, &error))
        why = error->message;
    }
  if (why != NULL)
    {
      fprintf (stderr, _("rsp record: note: the recording is kept as perf wrote it, which a report maps more "
                         "slowly (%s)\n"),
               why);
      return;
    }
  unlink (s->tmp_path);
  g_free (s->tmp_path);
  s->tmp_path = g_steal_pointer (&copy);
}

/* Appends the trailer to the perf.data at the temporary path, gives it to
 * the invoking user, and renames it into place.  When the instance's
 * section cannot be written (a full disk), the recording is written
 * without it, and META says so. */
gboolean
session_write_recording (Session *s, RspRecordingMeta *meta, GBytes *symbols, GBytes *files, GError **error)
{
  g_autoptr (GPtrArray) ftrace_parts = NULL;
  if (s->ftrace != NULL && meta->ftrace != NULL)
    {
      g_autoptr (GError) ftrace_error = NULL;
      ftrace_parts = rsp_ftrace_section_parts (s->ftrace, &ftrace_error);
      if (ftrace_parts == NULL)
        {
          fprintf (stderr, _("rsp record: warning: the tracefs instance's events are left out: %s; %s\n"),
                   ftrace_error->message, _(RSP_FTRACE_LOSS_TEXT));
          g_free (meta->ftrace->error);
          meta->ftrace->error = g_strdup (ftrace_error->message);
        }
    }
  if (ftrace_parts != NULL)
    {
      g_autoptr (GError) ftrace_error = NULL;
      if (append_trailer (s, meta, symbols, files, ftrace_parts, &ftrace_error))
        goto written;
      fprintf (stderr, _("rsp record: warning: the tracefs instance's events cannot be written (%s): the "
                         "recording is written without them; %s\n"),
               ftrace_error->message, _(RSP_FTRACE_LOSS_TEXT));
      g_free (meta->ftrace->error);
      meta->ftrace->error = g_strdup_printf (_("its section could not be written: %s"), ftrace_error->message);
    }
  if (!append_trailer (s, meta, symbols, NULL, NULL, error))
    return FALSE;

written:
  copy_for_reading (s);
  if (s->drop_privileges && chown (s->tmp_path, s->user_uid, s->user_gid) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("cannot give %s to uid %u: %s"), s->tmp_path, (guint) s->user_uid, g_strerror (saved_errno));
      return FALSE;
    }
  if (rename (s->tmp_path, s->options->output) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("cannot rename %s to %s: %s"), s->tmp_path, s->options->output, g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}
