/* fuzz-ftrace-section.c — libFuzzer target for the "ftrace" section of an
 * RSP recording (rsp-ftrace-section.h): the tracefs instance's header page,
 * event formats and per-CPU ring-buffer sub-buffers, decoded by
 * rsp-ftrace-reader.c.
 *
 * The input is the section alone.  The stream is read to the end with no
 * perf events beside it, every event's fields are read and printed as
 * `rsp dump` prints them, then the stream is rewound and read again.
 */
#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "fuzz-common.h"
#include "rsp-ftrace-reader.h"
#include "rsp-perf-reader.h"

static guint64 sink;

static void
evsel_free (gpointer data)
{
  RspEvsel *evsel = data;
  if (evsel->ftrace)
    g_free (evsel->name);
  g_free (evsel);
}

static gboolean
no_perf_events (gpointer source, RspEvent *event)
{
  (void) source;
  (void) event;
  return FALSE;
}

static void
read_event (const RspEvent *event, GString *line)
{
  sink += event->time + (guint64) event->cpu + event->sample.raw_size;
  if (event->evsel == NULL || event->evsel->tp == NULL)
    return;
  struct tep_event *tp = (struct tep_event *) event->evsel->tp;
  struct tep_format_field **fields = tep_event_fields (tp);
  sink += fuzz_read_fields (event, fields);
  free (fields);
  g_string_truncate (line, 0);
  rsp_event_format_tracepoint (event, tp->tep, line);
  sink += line->len;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) evsels = g_ptr_array_new_with_free_func (evsel_free);
  RspFtraceStream *stream = rsp_ftrace_stream_new (data, size, evsels, &error);
  if (stream == NULL)
    {
      if (error == NULL || evsels->len != 0)
        abort (); /* a failure says why and leaves the evsels as they were */
      return 0;
    }
  g_autoptr (GString) line = g_string_new (NULL);
  RspEvent event;
  while (rsp_ftrace_stream_next (stream, no_perf_events, NULL, &event))
    read_event (&event, line);
  const RspFtraceStats *stats = rsp_ftrace_stream_get_stats (stream);
  if (stats->delivered > stats->events)
    abort ();
  rsp_ftrace_stream_rewind (stream);
  for (guint n = 0; n < 16 && rsp_ftrace_stream_next (stream, no_perf_events, NULL, &event); n++)
    read_event (&event, line);
  rsp_ftrace_stream_free (stream);
  return 0;
}
