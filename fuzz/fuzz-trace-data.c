/* fuzz-trace-data.c — libFuzzer target for perf's tracing data (the
 * HEADER_TRACING_DATA feature: tracepoint formats, header page, printk
 * formats, saved command lines) and what libtraceevent makes of it.
 *
 * The input is the feature section alone.  Every event that loads is then
 * printed, as `rsp dump` prints tracepoints, from a record of zeros with the
 * event's type, so that print fmts that passed rsp's guard
 * (rsp-tep-guard.h) are evaluated too.
 */
#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "fuzz-common.h"
#include "rsp-trace-data.h"

/* Field offsets and sizes pass the guard only up to 64 KiB each. */
#define RECORD_SIZE (2 * 65536 + 64)
static guint8 record_data[RECORD_SIZE];
static guint64 sink;

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  /* inputs whose last byte is odd are read without their print fmts, as
   * rsp report reads them */
  gboolean with_print = size == 0 || (data[size - 1] & 1) == 0;
  struct tep_handle *tep = rsp_trace_data_load (data, size, with_print, &error);
  if (tep == NULL)
    {
      if (error == NULL)
        abort (); /* a failure must say why */
      return 0;
    }
  struct tep_event **events = tep_list_events (tep, TEP_EVENT_SORT_ID);
  for (guint i = 0; events && events[i]; i++)
    {
      struct tep_event *ev = events[i];
      /* the record's type field says which event it is */
      memset (record_data, 0, 64);
      guint16 id = (guint16) ev->id;
      memcpy (record_data, &id, sizeof id);
      struct tep_record record = { 0 };
      record.size = RECORD_SIZE;
      record.data = record_data;
      struct trace_seq seq;
      trace_seq_init (&seq);
      tep_print_event (tep, &seq, &record, "%s %s", TEP_PRINT_NAME, TEP_PRINT_INFO);
      sink += seq.len;
      trace_seq_destroy (&seq);
    }
  tep_free (tep);
  return 0;
}
