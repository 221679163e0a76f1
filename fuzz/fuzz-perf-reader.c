/* fuzz-perf-reader.c — libFuzzer target for the perf.data reader.
 *
 * Opens the input as a recording, walks every record, reads every field of
 * every tracepoint sample (plus one that does not exist) and prints it as
 * `rsp dump` does (libtraceevent's print fmt), looks at the
 * header, trailer, warnings and statistics, rewinds and stops half-way;
 * then reads it all again on two threads (a scanning thread, with a tiny
 * ring): the same events in the same order, figures and warnings, or
 * abort; rewinds and stops half-way, and frees.  The
 * reader must survive any input: bad input is a GError or a warning, never
 * a crash, a sanitizer report, a GLib critical or an unbounded allocation.
 *
 * Built by fuzz/meson.build (-Dfuzz=true, clang) and, with a plain main(),
 * by tests/meson.build as the fuzz-replay test (fuzz-replay.c).
 */
#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <traceevent/event-parse.h>

#include "fuzz-common.h"
#include "reader-digest.h"
#include "rsp-files.h"
#include "rsp-perf-reader.h"
#include "rsp-perf-reader-private.h"

static guint64 sink;

static void
read_sample (const RspEvent *event, RspTepHandle *tep, GString *line)
{
  guint64 value = 0;
  if (event->evsel == NULL || event->evsel->tp == NULL)
    {
      /* Not a tracepoint: the field accessors must say so. */
      if (rsp_event_get_field_u64 (event, "pid", &value))
        abort ();
      return;
    }
  struct tep_event *tp = (struct tep_event *) event->evsel->tp;
  struct tep_format_field **common = tep_event_common_fields (tp);
  struct tep_format_field **fields = tep_event_fields (tp);
  sink += fuzz_read_fields (event, common);
  sink += fuzz_read_fields (event, fields);
  free (common);
  free (fields);
  if (rsp_event_get_field_u64 (event, "no_such_field", &value)
      || rsp_event_get_field_str (event, "no_such_field") != NULL)
    abort ();
  g_string_truncate (line, 0);
  rsp_event_format_tracepoint (event, tep, line);
  sink += line->len;
}

/* Reads up to MAX_RECORDS events (every callchain entry and payload byte
 * too, in the digest); the digest of what they are, in order. */
static guint64
walk (RspPerfReader *reader, guint64 max_records)
{
  RspEvent event;
  RspTepHandle *tep = rsp_perf_reader_get_tep (reader);
  g_autoptr (GString) line = g_string_new (NULL);
  guint64 digest = READER_DIGEST_SEED;
  for (guint64 n = 0; n < max_records && rsp_perf_reader_next (reader, &event); n++)
    {
      digest = reader_digest_event (digest, &event);
      sink += event.type + event.time + (guint64) event.cpu;
      sink += (guint64) strlen (rsp_record_type_name (event.type));
      if (event.type == PERF_RECORD_SAMPLE)
        read_sample (&event, tep, line);
      else if (event.type == PERF_RECORD_COMM && event.u.comm.comm)
        sink += strlen (event.u.comm.comm);
      else if ((event.type == PERF_RECORD_MMAP || event.type == PERF_RECORD_MMAP2)
               && event.u.mmap.filename)
        sink += strlen (event.u.mmap.filename);
    }
  return digest;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  RspPerfReader *reader = rsp_perf_reader_open_bytes (data, size, &error);
  if (reader == NULL)
    {
      if (error == NULL || error->message == NULL)
        abort (); /* a failure must say why */
      return 0;
    }

  const RspPerfHeader *header = rsp_perf_reader_get_header (reader);
  if (header->hostname)
    sink += strlen (header->hostname);
  for (guint i = 0; header->cmdline && header->cmdline[i]; i++)
    sink += strlen (header->cmdline[i]);
  const RspRecording *recording = rsp_perf_reader_get_recording (reader);
  if (recording && recording->meta && recording->meta->command)
    sink += g_strv_length (recording->meta->command);
  if (recording && recording->files)
    {
      /* the files section (rsp-files.h): parsed, and looked up with and
       * without a device */
      guint bad = 0;
      RspFileTable *files = rsp_file_table_parse (recording->files, recording->files_size, &bad);
      RspFileId ids[] = { { RSP_KDEV (254, 0), 12 }, { 0, 12 }, { 0, 0 } };
      for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
        {
          const char *path = rsp_file_table_lookup (files, ids[i]);
          if (path != NULL && path[0] != '/')
            abort (); /* only absolute paths are kept */
          sink += path != NULL ? strlen (path) : 0;
        }
      sink += bad + rsp_file_table_size (files);
      rsp_file_table_free (files);
    }
  for (guint i = 0; i < rsp_perf_reader_get_n_evsels (reader); i++)
    {
      const RspEvsel *evsel = rsp_perf_reader_get_evsel (reader, i);
      if (evsel->name && rsp_perf_reader_find_evsel (reader, evsel->name) == NULL)
        abort ();
    }

  /* every event, figure and warning (each warning's text is hashed) */
  guint64 one = reader_digest_figures (walk (reader, G_MAXUINT64), reader);
  rsp_perf_reader_rewind (reader);
  sink += walk (reader, 64);
  rsp_perf_reader_free (reader);

  /* the same bytes on two threads, with a ring of 4 records and of 64
   * bytes (both threads wait all the time), and the formats read without
   * their print fmts (as the model reads them): the same events in the
   * same order, the same figures and warnings, or one of the two is wrong */
  reader = rsp_perf_reader_open_bytes_full (data, size, RSP_PERF_READER_NO_PRINT, NULL);
  if (reader == NULL)
    abort (); /* it opened a moment ago */
  rsp_perf_reader_set_threads (reader, 2);
  rsp_perf_reader_set_scan_ring (reader, 4, 64);
  if (reader_digest_figures (walk (reader, G_MAXUINT64), reader) != one)
    abort ();
  /* stopped half-way: freeing the reader stops its scanning thread */
  rsp_perf_reader_rewind (reader);
  sink += walk (reader, 64);

  rsp_perf_reader_free (reader);
  return 0;
}
