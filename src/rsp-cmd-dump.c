/* rsp-cmd-dump.c — `rsp dump FILE [--stats]`: the decoded events of a
 * recording in a stable text form, or counts and the reader's throughput.
 *
 * Sample:  <sec>.<nsec> [<cpu>] <comm> <pid>/<tid> <event>: <fields>
 *          \t<ip> <symbol>+0x<offset> (<dso>)      one line per frame
 * Other:   <sec>.<nsec> [<cpu>] <comm> <pid>/<tid> PERF_RECORD_<TYPE>: <details>
 */
#include <glib.h>
#include <glib/gi18n.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rsp-cli-options.h"
#include "rsp-commands.h"
#include "rsp-health.h"
#include "rsp-perf-reader.h"
#include "rsp-reader-symbols.h"
#include "rsp-symbols.h"
#include "rsp-threads.h"

#define MAX_FRAMES 512

typedef struct {
  RspPerfReader *reader;
  RspSymbolizer *symbolizer;
  RspThreads *threads;
  RspTepHandle *tep;
  RspFrame frames[MAX_FRAMES];
  GString *line;
  FILE *out;
} Dumper;

static void
append_prefix (Dumper *d, const RspEvent *ev)
{
  const char *comm = ev->tid >= 0 ? rsp_threads_get_comm (d->threads, ev->tid) : NULL;
  g_string_append_printf (d->line, "%" G_GUINT64_FORMAT ".%09" G_GUINT64_FORMAT " [%03d] ",
                          ev->time / 1000000000u, ev->time % 1000000000u, ev->cpu);
  if (comm != NULL)
    g_string_append (d->line, comm);
  else
    g_string_append_printf (d->line, ":%d", ev->tid);
  g_string_append_printf (d->line, " %d/%d ", ev->pid, ev->tid);
}

static void
append_frames (Dumper *d, const RspEvent *ev)
{
  guint n = rsp_symbolizer_resolve_callchain (d->symbolizer, ev, d->frames, MAX_FRAMES);
  for (guint i = 0; i < n; i++)
    {
      const RspFrame *f = &d->frames[i];
      g_string_append_printf (d->line, "\t%16" G_GINT64_MODIFIER "x ", f->ip);
      if (f->symbol != NULL)
        g_string_append_printf (d->line, "%s+0x%" G_GINT64_MODIFIER "x", f->symbol, f->offset);
      else
        g_string_append (d->line, "[unknown]");
      g_string_append_printf (d->line, " (%s)\n", f->dso != NULL ? f->dso : "[unknown]");
    }
  if (n > 0)
    g_string_append_c (d->line, '\n');
}

static void
append_details (Dumper *d, const RspEvent *ev)
{
  switch (ev->type)
    {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      g_string_append_printf (d->line, "%d/%d [0x%" G_GINT64_MODIFIER "x(0x%" G_GINT64_MODIFIER "x) @ 0x%"
                                       G_GINT64_MODIFIER "x]: %s",
                              ev->u.mmap.pid, ev->u.mmap.tid, ev->u.mmap.start, ev->u.mmap.len,
                              ev->u.mmap.pgoff, ev->u.mmap.filename);
      break;
    case PERF_RECORD_COMM:
      g_string_append_printf (d->line, "%s%s %d/%d", ev->u.comm.exec ? "exec " : "", ev->u.comm.comm,
                              ev->u.comm.pid, ev->u.comm.tid);
      break;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      g_string_append_printf (d->line, "%d:%d -> %d:%d", ev->u.fork.ppid, ev->u.fork.ptid, ev->u.fork.pid,
                              ev->u.fork.tid);
      break;
    case PERF_RECORD_LOST:
      g_string_append_printf (d->line, "lost %" G_GUINT64_FORMAT " events (id %" G_GUINT64_FORMAT ")",
                              ev->u.lost.lost, ev->u.lost.id);
      break;
    case PERF_RECORD_LOST_SAMPLES:
      g_string_append_printf (d->line, "lost %" G_GUINT64_FORMAT " samples", ev->u.lost.lost);
      break;
    default:
      g_string_append_printf (d->line, "%u bytes", ev->size);
      break;
    }
}

static void
dump_event (Dumper *d, const RspEvent *ev)
{
  g_string_truncate (d->line, 0);
  append_prefix (d, ev);
  if (ev->type == PERF_RECORD_SAMPLE)
    {
      /* the instance's events are not perf's: `perf script` never shows them */
      g_string_append_printf (d->line, ev->evsel->ftrace ? "%s@ftrace: " : "%s: ", ev->evsel->name);
      if (ev->evsel->attr.type == PERF_TYPE_TRACEPOINT)
        {
          if (!rsp_event_format_tracepoint (ev, d->tep, d->line) && ev->evsel->tp == NULL)
            g_string_append_printf (d->line, "[%u bytes, no format]", ev->sample.raw_size);
        }
      else
        g_string_append_printf (d->line, "period=%" G_GUINT64_FORMAT, ev->sample.period);
      g_string_append_c (d->line, '\n');
      if (!ev->evsel->ftrace) /* the instance records no stacks */
        append_frames (d, ev);
    }
  else
    {
      if (rsp_record_type_known (ev->type))
        g_string_append_printf (d->line, "%s: ", rsp_record_type_name (ev->type));
      else
        g_string_append_printf (d->line, "PERF_RECORD_%u: ", ev->type);
      append_details (d, ev);
      g_string_append_c (d->line, '\n');
    }
  fwrite (d->line->str, 1, d->line->len, d->out);
}

/* Frames without a symbol, per process: what stays unnamed in the views
 * (named there by file and offset). */
typedef struct {
  gint32 pid;
  guint64 frames, unnamed;
  GHashTable *by_file; /* interned dso -> count of unnamed frames */
} Unnamed;

static void
unnamed_free (gpointer p)
{
  Unnamed *u = p;
  g_hash_table_unref (u->by_file);
  g_free (u);
}

static void
count_unnamed (GHashTable *per_pid, gint32 pid, const RspFrame *frames, guint n)
{
  Unnamed *u = g_hash_table_lookup (per_pid, GINT_TO_POINTER (pid));
  if (u == NULL)
    {
      u = g_new0 (Unnamed, 1);
      u->pid = pid;
      u->by_file = g_hash_table_new (g_direct_hash, g_direct_equal);
      g_hash_table_insert (per_pid, GINT_TO_POINTER (pid), u);
    }
  u->frames += n;
  for (guint i = 0; i < n; i++)
    if (frames[i].symbol == NULL)
      {
        u->unnamed++;
        gpointer key = (gpointer) (frames[i].dso != NULL ? frames[i].dso : "");
        g_hash_table_insert (u->by_file, key,
                             GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (u->by_file, key)) + 1));
      }
}

static gint
compare_unnamed (gconstpointer pa, gconstpointer pb)
{
  const Unnamed *a = *(Unnamed *const *) pa, *b = *(Unnamed *const *) pb;
  if (a->unnamed != b->unnamed)
    return a->unnamed > b->unnamed ? -1 : 1;
  return a->pid - b->pid;
}

#define UNNAMED_SHOWN 10

static void
print_unnamed (Dumper *d, GHashTable *per_pid)
{
  FILE *out = d->out;
  g_autoptr (GPtrArray) list = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, per_pid);
  while (g_hash_table_iter_next (&it, &key, &value))
    g_ptr_array_add (list, value);
  g_ptr_array_sort (list, compare_unnamed);
  guint64 frames = 0, unnamed = 0;
  for (guint i = 0; i < list->len; i++)
    {
      const Unnamed *u = g_ptr_array_index (list, i);
      frames += u->frames;
      unnamed += u->unnamed;
    }
  fprintf (out, _("unnamed:       %llu of %llu frames have no symbol (the views name them by file and offset, or address); by process:\n"),
           (unsigned long long) unnamed, (unsigned long long) frames);
  for (guint i = 0; i < list->len && i < UNNAMED_SHOWN; i++)
    {
      const Unnamed *u = g_ptr_array_index (list, i);
      if (u->unnamed == 0)
        break;
      /* the file most of them fall in */
      const char *top = NULL;
      gsize top_n = 0;
      g_hash_table_iter_init (&it, u->by_file);
      while (g_hash_table_iter_next (&it, &key, &value))
        if (GPOINTER_TO_SIZE (value) > top_n || (GPOINTER_TO_SIZE (value) == top_n && g_strcmp0 (key, top) < 0))
          {
            top = key;
            top_n = GPOINTER_TO_SIZE (value);
          }
      const char *comm = rsp_threads_get_comm (d->threads, u->pid);
      fprintf (out, _("  pid %-7d %-16s %llu of %llu unnamed, %llu in %s\n"), u->pid, comm != NULL ? comm : "?",
               (unsigned long long) u->unnamed, (unsigned long long) u->frames, (unsigned long long) top_n,
               top != NULL && *top != '\0' ? top : _("no file (unmapped)"));
    }
  if (list->len > UNNAMED_SHOWN)
    fprintf (out, _("  (%u processes in all)\n"), list->len);
}

/* One line per event FILTERS (RspEventFilter) says is recorded in part. */
static void
print_filters (FILE *out, const GArray *filters)
{
  for (guint i = 0; filters != NULL && i < filters->len; i++)
    {
      const RspEventFilter *f = &g_array_index (filters, RspEventFilter, i);
      fprintf (out, _("  recorded in part: %s, only where %s\n"), f->event, f->filter);
    }
}

static void
print_stats (Dumper *d, const char *path, const guint64 *per_event, guint64 frames, gdouble seconds)
{
  RspPerfReader *r = d->reader;
  const RspReaderStats *st = rsp_perf_reader_get_stats (r);
  const RspPerfHeader *h = rsp_perf_reader_get_header (r);
  const RspRecording *rec = rsp_perf_reader_get_recording (r);
  FILE *out = d->out;

  fprintf (out, _("file:        %s (%.1f MB, %s)\n"), path, h->file_size / 1e6,
           rec != NULL ? _("RSP recording") : "perf.data");
  if (h->hostname != NULL || h->osrelease != NULL)
    fprintf (out, _("recorded on: %s, Linux %s, perf %s, %u CPUs\n"), h->hostname ? h->hostname : "?",
             h->osrelease ? h->osrelease : "?", h->perf_version ? h->perf_version : "?", h->nr_cpus_online);
  if (rec != NULL && rec->meta != NULL)
    {
      const RspRecordingMeta *m = rec->meta;
      if (m->command != NULL)
        {
          g_autofree char *cmd = g_strjoinv (" ", m->command);
          fprintf (out, _("command:     %s (pid %d, exit status %d, %.3f s)\n"), cmd, m->target_pid, m->exit_status,
                   (m->end_ns - m->start_ns) / 1e9);
          if (m->runs->len > 1)
            {
              guint64 sum = 0;
              for (guint i = 0; i < m->runs->len; i++)
                {
                  const RspRecordedRun *run = &g_array_index (m->runs, RspRecordedRun, i);
                  sum += run->end_ns - run->start_ns;
                }
              fprintf (out, _("runs:        %u of --repeat %u, %.3f ms each on average (rsp report --requests runs)\n"),
                       m->runs->len, m->repeat, sum / 1e6 / m->runs->len);
            }
        }
      else
        fprintf (out, _("command:     none (whole system, %.3f s)\n"), (m->end_ns - m->start_ns) / 1e9);
    }

  fprintf (out, "\n%s\n", _("events:"));
  for (guint i = 0; i < rsp_perf_reader_get_n_evsels (r); i++)
    {
      const RspEvsel *evsel = rsp_perf_reader_get_evsel (r, i);
      guint64 n = per_event[evsel->index];
      g_autofree char *name = evsel->ftrace ? g_strdup_printf ("%s@ftrace", evsel->name) : g_strdup (evsel->name);
      fprintf (out, "  %-28s %12" G_GUINT64_FORMAT "\n", name, n);
    }
  if (rec != NULL && rec->meta != NULL)
    print_filters (out, rec->meta->perf_filters);
  const RspFtraceStats *fs = rsp_perf_reader_get_ftrace_stats (r);
  if (fs != NULL)
    fprintf (out,
             _("\nftrace:        %llu events from RSP's tracefs instance: %llu merged, %llu also in perf's stream "
               "(dropped as twins), %llu of unknown type; %llu sub-buffers, %llu damaged, %llu after lost events\n"),
             (unsigned long long) fs->events, (unsigned long long) fs->delivered, (unsigned long long) fs->twins,
             (unsigned long long) fs->unknown_ids, (unsigned long long) fs->subbuffers,
             (unsigned long long) fs->bad_subbuffers, (unsigned long long) fs->missed_events);
  if (fs != NULL && rec != NULL && rec->meta != NULL && rec->meta->ftrace != NULL)
    print_filters (out, rec->meta->ftrace->filters);
  fprintf (out, "\n%s\n", _("records:"));
  for (guint t = 0; t < RSP_RECORD_TYPE_MAX; t++)
    if (st->by_type[t] > 0)
      {
        char unknown[32];
        g_snprintf (unknown, sizeof unknown, "PERF_RECORD_%u", t);
        fprintf (out, "  %-28s %12" G_GUINT64_FORMAT "\n",
                 rsp_record_type_known (t) ? rsp_record_type_name (t) : unknown, st->by_type[t]);
      }

  fprintf (out, _("\nlost events:   %llu (PERF_RECORD_LOST), %llu samples (LOST_SAMPLES)\n"),
           (unsigned long long) st->lost_events, (unsigned long long) st->lost_samples);
  fprintf (out, _("bad records:   %llu, unknown ids: %llu, out of order: %llu%s\n"),
           (unsigned long long) st->bad_records, (unsigned long long) st->unknown_ids,
           (unsigned long long) st->out_of_order, st->truncated ? _(", TRUNCATED") : "");

  if (rec != NULL && rec->meta != NULL && rec->meta->health->len > 0)
    {
      const RspRecordingMeta *m = rec->meta;
      fprintf (out, "\n%s\n", _("health (fired in the kernel / recorded):"));
      for (guint i = 0; i < m->health->len; i++)
        {
          const RspHealthEntry *e = &g_array_index (m->health, RspHealthEntry, i);
          gdouble pct = e->counted > 0 ? 100.0 * e->recorded / e->counted : 100.0;
          fprintf (out, "  %-28s %10" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT "  %6.1f%%%s\n", e->event,
                   e->counted, e->recorded, pct, rsp_health_entry_incomplete (e) ? _("  LOSS") : "");
        }
      if (m->idle_loss_suspected)
        fprintf (out, "  %s\n", _("perf lost events that fire in interrupt context on idle CPUs; rsp record "
                                   "keeps them through its own tracefs instance (the ftrace line above)"));
      for (guint i = 0; i < m->missing_events->len; i++)
        {
          const RspMissingEvent *e = &g_array_index (m->missing_events, RspMissingEvent, i);
          fprintf (out, _("  not recorded: %s (%s)\n"), e->name, e->reason);
        }
    }

  const RspSymbolizerStats *ss = rsp_symbolizer_get_stats (d->symbolizer);
  fprintf (out, _("\nsymbols:       %llu frames, %llu unknown, %u binaries loaded, %u missing, %u from the symbol cache, "
                  "%u named by the recording alone\n"),
           (unsigned long long) frames, (unsigned long long) ss->unknown, ss->dsos_loaded, ss->dsos_missing,
           ss->dsos_from_cache, ss->dsos_stored_whole);
  fprintf (out, _("throughput:    %llu records in %.3f s: %.0f records/s, %.1f MB/s (symbols resolved)\n"),
           (unsigned long long) st->records, seconds, seconds > 0 ? st->records / seconds : 0.0,
           seconds > 0 ? st->bytes / 1e6 / seconds : 0.0);
}

int
rsp_cmd_dump (int argc, char **argv)
{
  gboolean stats = FALSE;
  gboolean offline = FALSE;
  gboolean no_cache = FALSE;
  const GOptionEntry entries[] = {
    { "stats", 's', 0, G_OPTION_ARG_NONE, &stats,
      N_ ("Print counts per event and record type, lost events, health, throughput and the frames without a symbol per process"), NULL },
    { "offline", 0, 0, G_OPTION_ARG_NONE, &offline,
      N_ ("Use only the symbols stored in the recording, nothing from this machine"), NULL },
    { "no-cache", 0, 0, G_OPTION_ARG_NONE, &no_cache,
      N_ ("Read every symbol table from its file, not from the symbol cache in ~/.cache/rsp (as RSP_NO_CACHE=1 "
          "does)"),
      NULL },
    { NULL },
  };
  const RspCliParser parser = {
    .command = "dump",
    .parameters = N_ ("- print the decoded events of a recording"),
    .usage = N_ ("rsp dump FILE"),
    .description = N_ ("FILE is an RSP recording (rsp record) or a perf.data file."),
    .entries = entries,
  };
  int status;
  g_autofree char *path = rsp_cli_parse (&parser, argc, argv, &status);
  if (path == NULL)
    return status;
  /* the caches read the variable (rsp-disk-cache.c) */
  if (no_cache)
    g_setenv ("RSP_NO_CACHE", "1", TRUE);
  g_autoptr (GError) error = NULL;

  g_autoptr (RspPerfReader) reader = rsp_perf_reader_open (path, &error);
  if (reader == NULL)
    {
      g_printerr ("rsp: %s: %s\n", path, error->message);
      return 1;
    }

  Dumper d = { 0 };
  d.reader = reader;
  d.symbolizer = rsp_symbolizer_new ();
  /* names as perf script prints them (C++ without its parameters) */
  rsp_symbolizer_set_perf_names (d.symbolizer, TRUE);
  d.threads = rsp_threads_new ();
  d.tep = rsp_perf_reader_get_tep (reader);
  d.line = g_string_sized_new (4096);
  d.out = stdout;
  static char outbuf[1 << 20];
  setvbuf (stdout, outbuf, _IOFBF, sizeof outbuf);
  {
    g_autoptr (GPtrArray) warnings = rsp_symbolizer_setup_for_reader (d.symbolizer, reader, offline);
    rsp_symbolizer_attach_to_tep (d.symbolizer, reader);
    for (guint i = 0; i < warnings->len; i++)
      g_printerr (_("rsp: warning: %s\n"), (const char *) g_ptr_array_index (warnings, i));
  }

  g_autofree guint64 *per_event = g_new0 (guint64, MAX (rsp_perf_reader_get_n_evsels (reader), 1));
  guint64 frames = 0;
  g_autoptr (GHashTable) unnamed = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, unnamed_free);
  gint64 t0 = g_get_monotonic_time ();
  const RspEvent *ev;
  while ((ev = rsp_perf_reader_next_ref (reader)) != NULL)
    {
      rsp_threads_process_event (d.threads, ev);
      rsp_symbolizer_process_event (d.symbolizer, ev);
      /* a sample that read its own counter unchanged: perf script prints
       * nothing for it (the model takes it) */
      if (ev->type == PERF_RECORD_SAMPLE && ev->sample.read_unchanged)
        continue;
      if (stats)
        {
          if (ev->type == PERF_RECORD_SAMPLE)
            {
              per_event[ev->evsel->index]++;
              guint n = rsp_symbolizer_resolve_callchain (d.symbolizer, ev, d.frames, MAX_FRAMES);
              frames += n;
              count_unnamed (unnamed, ev->pid, d.frames, n);
            }
        }
      else
        dump_event (&d, ev);
    }
  gdouble seconds = (g_get_monotonic_time () - t0) / 1e6;
  if (stats)
    {
      print_stats (&d, path, per_event, frames, seconds);
      print_unnamed (&d, unnamed);
    }
  fflush (stdout);

  status = 0;
  const char *const *warnings = rsp_perf_reader_warnings (reader);
  for (guint i = 0; warnings[i] != NULL; i++)
    g_printerr (_("rsp: warning: %s: %s\n"), path, warnings[i]);
  const RspReaderStats *rst = rsp_perf_reader_get_stats (reader);
  if (rst->truncated || rst->bad_records > 0 || rst->unknown_ids > 0)
    status = 3; /* read what was there, but the file is damaged */

  g_string_free (d.line, TRUE);
  rsp_threads_free (d.threads);
  rsp_symbolizer_free (d.symbolizer);
  return status;
}
