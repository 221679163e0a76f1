/* rsp-event-fields.c — the tracepoint fields of a decoded sample: found by
 * name in the event's format, read as numbers or strings after checking
 * they lie inside the sample's payload, and the whole event printed the
 * way perf script prints it.
 */
#include "rsp-perf-reader.h"

#include <string.h>
#include <traceevent/event-parse.h>

#include "rsp-bytes.h"

/* ---------------------------------------------------------------- fields */

static struct tep_format_field *
event_field (const RspEvent *event, const char *name)
{
  if (event->type != PERF_RECORD_SAMPLE || event->evsel == NULL || event->evsel->tp == NULL)
    return NULL;
  return tep_find_field (event->evsel->tp, name);
}

/* FIELD (of EVENT's format) when it lies inside EVENT's payload, else NULL. */
static const struct tep_format_field *
field_in_payload (const RspEvent *event, const struct tep_format_field *field)
{
  if (field == NULL || event->sample.raw == NULL
      || (guint64) field->offset + field->size > event->sample.raw_size)
    return NULL;
  return field;
}

gboolean
rsp_event_read_field_u64 (const RspEvent *event, const struct tep_format_field *field, guint64 *value)
{
  /* byte arrays of 1, 2, 4 or 8 bytes (__u8 daddr[4]) read as numbers too:
   * libtraceevent flags them as strings, and refuses other sizes itself */
  field = field_in_payload (event, field);
  if (field == NULL || (field->flags & TEP_FIELD_IS_DYNAMIC))
    return FALSE;
  unsigned long long v;
  if (tep_read_number_field ((struct tep_format_field *) field, event->sample.raw, &v) != 0)
    return FALSE;
  *value = v;
  return TRUE;
}

const char *
rsp_event_read_field_str (const RspEvent *event, const struct tep_format_field *field)
{
  field = field_in_payload (event, field);
  if (field == NULL)
    return NULL;
  const guint8 *raw = event->sample.raw;
  guint32 offset = (guint32) field->offset, size = (guint32) field->size;
  if (field->flags & TEP_FIELD_IS_DYNAMIC)
    {
      if (size != 4)
        return NULL;
      guint32 loc = rsp_read_u32 (raw + offset);
      offset = loc & 0xffff;
      size = loc >> 16;
      if (field->flags & TEP_FIELD_IS_RELATIVE)
        offset += field->offset + field->size;
      if ((guint64) offset + size > event->sample.raw_size)
        return NULL;
    }
  else if (!(field->flags & TEP_FIELD_IS_STRING) && !(field->flags & TEP_FIELD_IS_ARRAY))
    return NULL;
  if (size == 0 || memchr (raw + offset, 0, size) == NULL)
    return NULL;
  return (const char *) raw + offset;
}

gboolean
rsp_event_get_field_u64 (const RspEvent *event, const char *name, guint64 *value)
{
  return rsp_event_read_field_u64 (event, event_field (event, name), value);
}

const char *
rsp_event_get_field_str (const RspEvent *event, const char *name)
{
  return rsp_event_read_field_str (event, event_field (event, name));
}

/* ---------------------------------------------------------------- printing */

/* libtraceevent trusts the record: check every field, static and dynamic,
 * lies inside the payload before letting it print. */
static gboolean
tracepoint_payload_ok (const RspEvent *event, const RspTepEvent *tp)
{
  const guint8 *raw = event->sample.raw;
  guint32 raw_size = event->sample.raw_size;
  for (const struct tep_format_field *field = tp->format.common_fields; field != NULL; field = field->next)
    if ((guint64) field->offset + field->size > raw_size)
      return FALSE;
  for (const struct tep_format_field *field = tp->format.fields; field != NULL; field = field->next)
    {
      if ((guint64) field->offset + field->size > raw_size)
        return FALSE;
      if (field->flags & TEP_FIELD_IS_DYNAMIC)
        {
          if (field->size != 4)
            return FALSE;
          guint32 loc = rsp_read_u32 (raw + field->offset);
          guint64 offset = loc & 0xffff, size = loc >> 16;
          if (field->flags & TEP_FIELD_IS_RELATIVE)
            offset += (guint64) field->offset + field->size;
          if (offset + size > raw_size)
            return FALSE;
        }
    }
  return TRUE;
}

gboolean
rsp_event_format_tracepoint (const RspEvent *event, RspTepHandle *tep, GString *out)
{
  if (event->type != PERF_RECORD_SAMPLE || event->evsel == NULL || event->evsel->tp == NULL || tep == NULL
      || event->sample.raw == NULL)
    return FALSE;
  const RspTepEvent *tp = event->evsel->tp;
  if (event->sample.read_member)
    {
      /* another tracepoint's value, read by a sample of its group: the
       * payload is the sample's, printed as its own type's, as perf does */
      guint16 type;
      if (event->sample.raw_size < sizeof type)
        return FALSE;
      memcpy (&type, event->sample.raw, sizeof type);
      tp = tep_find_event (tep, type);
      if (tp == NULL)
        return FALSE;
    }
  if (!tracepoint_payload_ok (event, tp))
    {
      g_string_append (out, "[damaged tracepoint payload]");
      return FALSE;
    }
  /* an event made by a reader that never prints from its fields alone
   * (rsp-tep-fields.h) is not in the handle, and its print fmt is empty:
   * nothing to print, as for a format parsed with its print fmt emptied */
  if (tp->tep != NULL && tep_find_event (tp->tep, tp->id) != tp)
    return TRUE;
  /* A string field need not hold its NUL, and libtraceevent prints it
   * with %s: print from a copy followed by zeros, so that a read never
   * leaves the copy (found by fuzz-ftrace-section). */
  guint8 stack_copy[1024];
  gsize copy_size = (gsize) event->sample.raw_size + 8;
  guint8 *copy = copy_size <= sizeof stack_copy ? stack_copy : g_malloc (copy_size);
  memcpy (copy, event->sample.raw, event->sample.raw_size);
  memset (copy + event->sample.raw_size, 0, 8);
  struct tep_record record = { 0 };
  record.ts = event->time;
  record.size = (int) event->sample.raw_size;
  record.data = copy;
  record.cpu = event->cpu;
  /* an event of the tracefs instance is printed with its own formats:
   * perf's may lack it (perf does not record what the instance took over) */
  if (event->evsel->ftrace && tp->tep != NULL)
    tep = tp->tep;
  struct trace_seq seq;
  trace_seq_init (&seq);
  tep_print_event (tep, &seq, &record, "%s", TEP_PRINT_INFO);
  trace_seq_terminate (&seq);
  g_string_append_len (out, seq.buffer, seq.len);
  trace_seq_destroy (&seq);
  if (copy != stack_copy)
    g_free (copy);
  return TRUE;
}
