/* fuzz-trace-data.c — libFuzzer target for perf's tracing data (the
 * HEADER_TRACING_DATA feature: tracepoint formats, header page, printk
 * formats, saved command lines) and what libtraceevent makes of it.
 *
 * The input is the feature section alone.  Every event that loads is then
 * printed, as `rsp dump` prints tracepoints, from a record of zeros with the
 * event's type, so that print fmts that passed rsp's guard
 * (rsp-tep-guard.h) are evaluated too.
 *
 * Read without print fmts, the section is also read as a reader that never
 * prints reads it (rsp_trace_data_load_fields()): where that makes the
 * events from their fields alone, each must equal libtraceevent's, field
 * by field, and no event may be missing or added.
 */
#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "fuzz-common.h"
#include "rsp-tep-fields.h"
#include "rsp-trace-data.h"

/* Field offsets and sizes pass the guard only up to 64 KiB each. */
#define RECORD_SIZE (2 * 65536 + 64)
static guint8 record_data[RECORD_SIZE];
static guint64 sink;

static void
same_fields (const struct tep_format_field *a, const struct tep_format_field *b)
{
  for (; a != NULL && b != NULL; a = a->next, b = b->next)
    if (strcmp (a->name, b->name) != 0 || strcmp (a->type, b->type) != 0 || strcmp (a->alias, b->alias) != 0
        || a->offset != b->offset || a->size != b->size || a->arraylen != b->arraylen
        || a->elementsize != b->elementsize || a->flags != b->flags)
      abort ();
  if (a != NULL || b != NULL)
    abort ();
}

/* The fields-alone read of DATA against libtraceevent's handle TEP (read
 * without print fmts). */
static void
compare_fields_read (const uint8_t *data, size_t size, struct tep_handle *tep)
{
  g_autoptr (GError) error = NULL;
  GPtrArray *own = NULL;
  struct tep_handle *light_tep = rsp_trace_data_load_fields (data, size, &own, &error);
  if (light_tep == NULL)
    abort (); /* the same section loaded whole */
  if (own != NULL)
    {
      struct tep_event **events = tep_list_events (tep, TEP_EVENT_SORT_ID);
      guint n = 0;
      for (; events != NULL && events[n] != NULL; n++)
        {
          const struct tep_event *a = events[n];
          const struct tep_event *b = rsp_trace_data_find_event (light_tep, own, a->id);
          if (b == NULL || strcmp (a->name, b->name) != 0 || strcmp (a->system, b->system) != 0
              || a->flags != b->flags || a->format.nr_common != b->format.nr_common
              || a->format.nr_fields != b->format.nr_fields || g_strcmp0 (a->print_fmt.format, b->print_fmt.format) != 0)
            abort ();
          same_fields (a->format.common_fields, b->format.common_fields);
          same_fields (a->format.fields, b->format.fields);
        }
      if (n != own->len || tep_get_events_count (light_tep) != 0)
        abort ();
      g_ptr_array_unref (own);
    }
  tep_free (light_tep);
}

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
  if (!with_print)
    compare_fields_read (data, size, tep);
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
