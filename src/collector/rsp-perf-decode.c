/* rsp-perf-decode.c — one perf.data record: the evsel it belongs to, its
 * time and CPU (read cheaply, for ordering), and its full decoding into an
 * RspEvent when it is delivered.  Lengths come from the file and are
 * checked against the record's size before every read.
 */
#include "rsp-perf-reader-private.h"

#include <string.h>

#include "rsp-bytes.h"

/* ---------------------------------------------------------------- records */

static inline RspEvsel *
evsel_for_id (RspPerfReader *self, guint64 id)
{
  if (self->id_table != NULL)
    {
      guint64 slot = id - self->id_base;
      guint32 v = slot < self->id_span ? self->id_table[slot] : 0;
      return v != 0 ? g_ptr_array_index (self->evsels, v - 1) : NULL;
    }
  gpointer v = g_hash_table_lookup (self->id_to_evsel, &id);
  if (v == NULL)
    return NULL;
  return g_ptr_array_index (self->evsels, GPOINTER_TO_UINT (v) - 1);
}

RspEvsel *
rsp_perf_evsel_for_id (RspPerfReader *self, guint64 id)
{
  return evsel_for_id (self, id);
}

/* Which evsel a record belongs to, or NULL.  Uses PERF_SAMPLE_IDENTIFIER
 * (first word of a sample, last word of other records) when all evsels have
 * it; a file with a single evsel needs no id. */
RspEvsel *
rsp_perf_record_evsel (RspPerfReader *self, const struct perf_event_header *h, const guint8 *rec)
{
  if (self->evsels->len == 1)
    return g_ptr_array_index (self->evsels, 0);
  RspEvsel *first = g_ptr_array_index (self->evsels, 0);
  if (h->size < sizeof *h + 8)
    return NULL;
  guint64 id;
  if (self->all_have_identifier)
    {
      if (h->type == PERF_RECORD_SAMPLE)
        id = rsp_read_u64 (rec + sizeof *h);
      else if (first->attr.sample_id_all)
        id = rsp_read_u64 (rec + h->size - 8);
      else
        return NULL;
      return evsel_for_id (self, id);
    }
  /* No identifier: perf requires then that PERF_SAMPLE_ID sits at the same
   * place for all evsels; compute it from the first one. */
  guint64 st = first->attr.sample_type;
  if (!(st & PERF_SAMPLE_ID))
    return first;
  if (h->type == PERF_RECORD_SAMPLE)
    {
      gsize pos = sizeof *h;
      if (st & PERF_SAMPLE_IP) pos += 8;
      if (st & PERF_SAMPLE_TID) pos += 8;
      if (st & PERF_SAMPLE_TIME) pos += 8;
      if (st & PERF_SAMPLE_ADDR) pos += 8;
      if (pos + 8 > h->size)
        return NULL;
      return evsel_for_id (self, rsp_read_u64 (rec + pos));
    }
  if (!first->attr.sample_id_all)
    return NULL;
  gsize back = 8; /* ID is followed by STREAM_ID, CPU, IDENTIFIER in the trailer */
  if (st & PERF_SAMPLE_STREAM_ID) back += 8;
  if (st & PERF_SAMPLE_CPU) back += 8;
  if (back > h->size - sizeof *h)
    return NULL;
  return evsel_for_id (self, rsp_read_u64 (rec + h->size - back));
}

/* Decodes the sample_id_all trailer of a non-sample record. */
static gboolean
decode_id_trailer (const RspEvsel *evsel, const guint8 *rec, gsize size, RspEvent *ev)
{
  if (evsel == NULL || !evsel->attr.sample_id_all)
    return TRUE;
  gsize tsize = evsel->id_trailer_size;
  if (tsize > size - sizeof (struct perf_event_header))
    return FALSE;
  const guint8 *p = rec + size - tsize;
  guint64 st = evsel->attr.sample_type;
  if (st & PERF_SAMPLE_TID)
    {
      ev->pid = (gint32) rsp_read_u32 (p);
      ev->tid = (gint32) rsp_read_u32 (p + 4);
      p += 8;
    }
  if (st & PERF_SAMPLE_TIME)
    {
      ev->time = rsp_read_u64 (p);
      ev->has_time = TRUE;
      p += 8;
    }
  if (st & PERF_SAMPLE_ID)
    p += 8;
  if (st & PERF_SAMPLE_STREAM_ID)
    p += 8;
  if (st & PERF_SAMPLE_CPU)
    ev->cpu = (gint32) rsp_read_u32 (p);
  return TRUE;
}

typedef struct {
  const guint8 *p;
  const guint8 *end;
} Span;

static inline gboolean
span_u64 (Span *s, guint64 *out)
{
  if (s->end - s->p < 8)
    return FALSE;
  *out = rsp_read_u64 (s->p);
  s->p += 8;
  return TRUE;
}

static inline gboolean
span_skip (Span *s, guint64 n)
{
  if ((guint64) (s->end - s->p) < n)
    return FALSE;
  s->p += n;
  return TRUE;
}

/* PERF_SAMPLE_READ's layout.  A group (read_format GROUP): nr,
 * [enabled], [running], then { value, [id], [lost] } per event; one
 * event: value, [enabled], [running], [id], [lost].  EXTRA: the words of
 * the times; PER_VALUE: a value's words in a group. */
static inline void
read_layout (guint64 read_format, guint *extra, guint *per_value)
{
  *extra = !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
  *per_value = 1 + !!(read_format & PERF_FORMAT_ID) + !!(read_format & PERF_FORMAT_LOST);
}

guint
rsp_read_values_n (guint64 read_format, const guint64 *values)
{
  return (read_format & PERF_FORMAT_GROUP) ? (guint) values[0] : 1;
}

gboolean
rsp_read_value (guint64 read_format, const guint64 *values, guint i, guint64 *value, guint64 *id)
{
  guint extra, per_value;
  read_layout (read_format, &extra, &per_value);
  gboolean group = (read_format & PERF_FORMAT_GROUP) != 0;
  const guint64 *v = group ? values + 1 + extra + (gsize) i * per_value : values;
  *value = v[0];
  *id = 0;
  if (!(read_format & PERF_FORMAT_ID))
    return FALSE;
  *id = group ? v[1] : v[1 + extra];
  return TRUE;
}

/* PERF_SAMPLE_READ: the counter values, as many words as read_format says. */
static gboolean
span_read_values (Span *s, guint64 read_format, RspSample *smp)
{
  guint extra, per_value;
  read_layout (read_format, &extra, &per_value);
  guint64 words = per_value + extra;
  if (read_format & PERF_FORMAT_GROUP)
    {
      Span peek = *s;
      guint64 nr;
      if (!span_u64 (&peek, &nr) || nr > (guint64) (peek.end - peek.p) / 8)
        return FALSE;
      words = 1 + extra + nr * per_value;
    }
  if (words > (guint64) (s->end - s->p) / 8)
    return FALSE;
  smp->read_values = (const guint64 *) s->p;
  smp->n_read_values = (guint) words;
  s->p += words * 8;
  return TRUE;
}

/* REGS_USER / REGS_INTR: an ABI word, then one word per bit of MASK unless
 * the ABI is NONE (a kernel thread has no user registers). */
static gboolean
span_regs (Span *s, guint64 mask, guint64 *abi, const guint64 **regs)
{
  if (!span_u64 (s, abi))
    return FALSE;
  if (*abi == PERF_SAMPLE_REGS_ABI_NONE)
    return TRUE;
  *regs = (const guint64 *) s->p;
  return span_skip (s, (guint64) __builtin_popcountll (mask) * 8);
}

/* A u64 size followed by that many bytes (STACK_USER, AUX). */
static gboolean
span_blob (Span *s, guint64 *size, const guint8 **bytes)
{
  if (!span_u64 (s, size))
    return FALSE;
  *bytes = s->p;
  return span_skip (s, *size);
}

/* PERF_SAMPLE_TID's word: the pid, then the tid. */
static inline void
set_pid_tid (RspEvent *ev, guint64 word)
{
  ev->pid = (gint32) (word & 0xffffffffu);
  ev->tid = (gint32) (word >> 32);
}

/* The bytes of a PERF_SAMPLE_RAW field of RAW_SIZE payload bytes: its u32
 * size and the payload, padded to 8 bytes. */
static inline guint64
raw_field_bytes (guint32 raw_size)
{
  return ((guint64) raw_size + 4 + 7) & ~7ULL;
}

/* IDENTIFIER to PERIOD: one word each, in sample_type order. */
static gboolean
decode_sample_head (Span *s, guint64 st, RspEvent *ev)
{
  RspSample *smp = &ev->sample;
  guint64 v;
  if ((st & PERF_SAMPLE_IDENTIFIER) && !span_u64 (s, &smp->id))
    return FALSE;
  if ((st & PERF_SAMPLE_IP) && !span_u64 (s, &smp->ip))
    return FALSE;
  if (st & PERF_SAMPLE_TID)
    {
      if (!span_u64 (s, &v))
        return FALSE;
      set_pid_tid (ev, v);
    }
  if (st & PERF_SAMPLE_TIME)
    {
      if (!span_u64 (s, &ev->time))
        return FALSE;
      ev->has_time = TRUE;
    }
  if ((st & PERF_SAMPLE_ADDR) && !span_u64 (s, &smp->addr))
    return FALSE;
  if ((st & PERF_SAMPLE_ID) && !span_u64 (s, &smp->id))
    return FALSE;
  if ((st & PERF_SAMPLE_STREAM_ID) && !span_u64 (s, &smp->stream_id))
    return FALSE;
  if (st & PERF_SAMPLE_CPU)
    {
      if (!span_u64 (s, &v))
        return FALSE;
      ev->cpu = (gint32) (v & 0xffffffffu);
    }
  return !(st & PERF_SAMPLE_PERIOD) || span_u64 (s, &smp->period);
}

/* READ to BRANCH_STACK: counted arrays the sample points into. */
static gboolean
decode_sample_arrays (Span *s, const RspEvsel *evsel, RspSample *smp)
{
  const struct perf_event_attr *attr = &evsel->attr;
  guint64 st = attr->sample_type;
  if ((st & PERF_SAMPLE_READ) && !span_read_values (s, attr->read_format, smp))
    return FALSE;
  if (st & PERF_SAMPLE_CALLCHAIN)
    {
      if (!span_u64 (s, &smp->n_callchain) || smp->n_callchain > (guint64) (s->end - s->p) / 8)
        return FALSE;
      smp->callchain = (const guint64 *) s->p;
      s->p += smp->n_callchain * 8;
    }
  if (st & PERF_SAMPLE_RAW)
    {
      if (s->end - s->p < 4)
        return FALSE;
      smp->raw_size = rsp_read_u32 (s->p);
      smp->raw = s->p + 4;
      if (!span_skip (s, raw_field_bytes (smp->raw_size)))
        return FALSE;
    }
  if (st & PERF_SAMPLE_BRANCH_STACK)
    {
      if (!span_u64 (s, &smp->n_branches))
        return FALSE;
      if ((attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) && !span_skip (s, 8))
        return FALSE;
      if (smp->n_branches > (guint64) (s->end - s->p) / 24)
        return FALSE;
      smp->branches = (const guint64 *) s->p;
      s->p += smp->n_branches * 24;
      /* PERF_SAMPLE_BRANCH_COUNTERS: a word per branch (not decoded further) */
      if (evsel->branch_counters && !span_skip (s, smp->n_branches * 8))
        return FALSE;
    }
  return TRUE;
}

/* REGS_USER to AUX: registers, the user stack copy, and what follows. */
static gboolean
decode_sample_tail (Span *s, const struct perf_event_attr *attr, RspSample *smp)
{
  guint64 st = attr->sample_type;
  if (st & PERF_SAMPLE_REGS_USER)
    {
      if (!span_regs (s, attr->sample_regs_user, &smp->user_regs_abi, &smp->user_regs))
        return FALSE;
      if (smp->user_regs_abi != PERF_SAMPLE_REGS_ABI_NONE)
        smp->user_regs_mask = attr->sample_regs_user;
    }
  if (st & PERF_SAMPLE_STACK_USER)
    {
      if (!span_blob (s, &smp->user_stack_size, &smp->user_stack))
        return FALSE;
      if (smp->user_stack_size > 0)
        {
          if (!span_u64 (s, &smp->user_stack_dyn_size))
            return FALSE;
          /* only dyn_size bytes were really copied */
          smp->user_stack_size = MIN (smp->user_stack_size, smp->user_stack_dyn_size);
        }
    }
  if ((st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) && !span_u64 (s, &smp->weight))
    return FALSE;
  if ((st & PERF_SAMPLE_DATA_SRC) && !span_u64 (s, &smp->data_src))
    return FALSE;
  if ((st & PERF_SAMPLE_TRANSACTION) && !span_u64 (s, &smp->transaction))
    return FALSE;
  if ((st & PERF_SAMPLE_REGS_INTR) && !span_regs (s, attr->sample_regs_intr, &smp->intr_regs_abi, &smp->intr_regs))
    return FALSE;
  if ((st & PERF_SAMPLE_PHYS_ADDR) && !span_u64 (s, &smp->phys_addr))
    return FALSE;
  if ((st & PERF_SAMPLE_CGROUP) && !span_u64 (s, &smp->cgroup))
    return FALSE;
  if ((st & PERF_SAMPLE_DATA_PAGE_SIZE) && !span_u64 (s, &smp->data_page_size))
    return FALSE;
  if ((st & PERF_SAMPLE_CODE_PAGE_SIZE) && !span_u64 (s, &smp->code_page_size))
    return FALSE;
  return !(st & PERF_SAMPLE_AUX) || span_blob (s, &smp->aux_size, &smp->aux);
}

/* The offset of sample_type's FLAG field at *POS, which moves past it;
 * 0 when the sample has no such field. */
static guint16
fixed_field_at (guint64 sample_type, guint64 flag, guint16 *pos)
{
  if (!(sample_type & flag))
    return 0;
  guint16 at = *pos;
  *pos += 8;
  return at;
}

void
rsp_perf_evsel_sample_offsets (RspEvsel *evsel)
{
  guint64 st = evsel->attr.sample_type;
  /* the fixed-size fields, in perf_event_open(2)'s order */
  guint16 pos = sizeof (struct perf_event_header);
  guint16 identifier_at = fixed_field_at (st, PERF_SAMPLE_IDENTIFIER, &pos);
  evsel->sample_ip_at = fixed_field_at (st, PERF_SAMPLE_IP, &pos);
  evsel->sample_tid_at = fixed_field_at (st, PERF_SAMPLE_TID, &pos);
  evsel->sample_time_at = fixed_field_at (st, PERF_SAMPLE_TIME, &pos);
  evsel->sample_addr_at = fixed_field_at (st, PERF_SAMPLE_ADDR, &pos);
  guint16 id_at = fixed_field_at (st, PERF_SAMPLE_ID, &pos);
  evsel->sample_stream_id_at = fixed_field_at (st, PERF_SAMPLE_STREAM_ID, &pos);
  evsel->sample_cpu_at = fixed_field_at (st, PERF_SAMPLE_CPU, &pos);
  evsel->sample_period_at = fixed_field_at (st, PERF_SAMPLE_PERIOD, &pos);
  /* both fill the id, the later one last */
  evsel->sample_id_at = id_at != 0 ? id_at : identifier_at;
  /* the ordering queue reads the CPU of a sample with a time only */
  if (evsel->sample_time_at == 0)
    evsel->sample_cpu_at = 0;

  const guint64 fixed = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME
                        | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU
                        | PERF_SAMPLE_PERIOD;
  gboolean direct = (st & ~(fixed | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)) == 0
                    && !((st & PERF_SAMPLE_CPU) && evsel->sample_cpu_at == 0);
  evsel->sample_fixed_end = direct ? pos : 0;
}

/* A sample of the direct layout (RspEvsel.sample_fixed_end): its fixed
 * fields read where they lie, then the callchain and the payload.  FALSE
 * where the record is too short for them: the general decoder then reads
 * it again, and decides (the fields written here are the ones it writes,
 * with the same values).  Walking sample_type's flags for every record
 * was a twentieth of the model's build of a 300 MB perf.data. */
static gboolean
decode_sample_direct (const RspEvsel *evsel, const guint8 *rec, gsize size, RspEvent *ev)
{
  if (evsel->sample_fixed_end > size)
    return FALSE;
  RspSample *smp = &ev->sample;
  if (evsel->sample_id_at != 0)
    smp->id = rsp_read_u64 (rec + evsel->sample_id_at);
  if (evsel->sample_ip_at != 0)
    smp->ip = rsp_read_u64 (rec + evsel->sample_ip_at);
  if (evsel->sample_tid_at != 0)
    set_pid_tid (ev, rsp_read_u64 (rec + evsel->sample_tid_at));
  if (evsel->sample_time_at != 0)
    {
      ev->time = rsp_read_u64 (rec + evsel->sample_time_at);
      ev->has_time = TRUE;
    }
  if (evsel->sample_addr_at != 0)
    smp->addr = rsp_read_u64 (rec + evsel->sample_addr_at);
  if (evsel->sample_stream_id_at != 0)
    smp->stream_id = rsp_read_u64 (rec + evsel->sample_stream_id_at);
  if (evsel->sample_cpu_at != 0)
    ev->cpu = (gint32) rsp_read_u32 (rec + evsel->sample_cpu_at);
  if (evsel->sample_period_at != 0)
    smp->period = rsp_read_u64 (rec + evsel->sample_period_at);
  const guint8 *p = rec + evsel->sample_fixed_end, *end = rec + size;
  guint64 st = evsel->attr.sample_type;
  if (st & PERF_SAMPLE_CALLCHAIN)
    {
      if (end - p < 8)
        return FALSE;
      guint64 n = rsp_read_u64 (p);
      p += 8;
      if (n > (guint64) (end - p) / 8)
        return FALSE;
      smp->n_callchain = n;
      smp->callchain = (const guint64 *) (gconstpointer) p;
      p += n * 8;
    }
  if (st & PERF_SAMPLE_RAW)
    {
      if (end - p < 4)
        return FALSE;
      guint32 raw_size = rsp_read_u32 (p);
      if (raw_field_bytes (raw_size) > (guint64) (end - p))
        return FALSE;
      smp->raw_size = raw_size;
      smp->raw = p + 4;
    }
  return TRUE;
}

/* A PERF_RECORD_SAMPLE: its fields in the order of perf_event_open(2). */
gboolean
rsp_perf_sample_decode (const RspEvsel *evsel, const guint8 *rec, gsize size, RspEvent *ev)
{
  if (evsel->sample_fixed_end != 0 && decode_sample_direct (evsel, rec, size, ev))
    return TRUE;
  Span s = { rec + sizeof (struct perf_event_header), rec + size };
  return decode_sample_head (&s, evsel->attr.sample_type, ev) && decode_sample_arrays (&s, evsel, &ev->sample)
         && decode_sample_tail (&s, &evsel->attr, &ev->sample);
}

/* A string field that must be NUL-terminated inside [p, end). */
static const char *
bounded_string (const guint8 *p, const guint8 *end)
{
  if (p >= end || memchr (p, 0, (gsize) (end - p)) == NULL)
    return NULL;
  return (const char *) p;
}

/* pid, tid, start, len, pgoff: the head MMAP and MMAP2 share. */
static void
decode_mmap_head (const guint8 *body, RspEvent *ev)
{
  ev->u.mmap.pid = (gint32) rsp_read_u32 (body);
  ev->u.mmap.tid = (gint32) rsp_read_u32 (body + 4);
  ev->u.mmap.start = rsp_read_u64 (body + 8);
  ev->u.mmap.len = rsp_read_u64 (body + 16);
  ev->u.mmap.pgoff = rsp_read_u64 (body + 24);
  if (ev->pid < 0)
    {
      ev->pid = ev->u.mmap.pid;
      ev->tid = ev->u.mmap.tid;
    }
}

static gboolean
decode_other (const RspEvsel *evsel, const guint8 *rec, gsize size, RspEvent *ev)
{
  const guint8 *body = rec + sizeof (struct perf_event_header);
  gsize trailer = (evsel != NULL && evsel->attr.sample_id_all) ? evsel->id_trailer_size : 0;
  if (trailer > size - sizeof (struct perf_event_header))
    return FALSE;
  const guint8 *end = rec + size - trailer;
  gsize len = (gsize) (end - body);

  if (!decode_id_trailer (evsel, rec, size, ev))
    return FALSE;

  switch (ev->type)
    {
    case PERF_RECORD_MMAP:
      if (len < 32)
        return FALSE;
      decode_mmap_head (body, ev);
      ev->u.mmap.filename = bounded_string (body + 32, end);
      return ev->u.mmap.filename != NULL;
    case PERF_RECORD_MMAP2:
      if (len < 64)
        return FALSE;
      decode_mmap_head (body, ev);
      if (ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
        {
          ev->u.mmap.build_id_size = MIN (body[32], 20);
          memcpy (ev->u.mmap.build_id, body + 36, 20);
        }
      else
        {
          ev->u.mmap.maj = rsp_read_u32 (body + 32);
          ev->u.mmap.min = rsp_read_u32 (body + 36);
          ev->u.mmap.ino = rsp_read_u64 (body + 40);
          ev->u.mmap.ino_generation = rsp_read_u64 (body + 48);
        }
      ev->u.mmap.prot = rsp_read_u32 (body + 56);
      ev->u.mmap.flags = rsp_read_u32 (body + 60);
      ev->u.mmap.filename = bounded_string (body + 64, end);
      return ev->u.mmap.filename != NULL;
    case PERF_RECORD_COMM:
      if (len < 8)
        return FALSE;
      ev->u.comm.pid = (gint32) rsp_read_u32 (body);
      ev->u.comm.tid = (gint32) rsp_read_u32 (body + 4);
      ev->u.comm.exec = (ev->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
      ev->u.comm.comm = bounded_string (body + 8, end);
      if (ev->pid < 0)
        {
          ev->pid = ev->u.comm.pid;
          ev->tid = ev->u.comm.tid;
        }
      return ev->u.comm.comm != NULL;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      if (len < 24)
        return FALSE;
      ev->u.fork.pid = (gint32) rsp_read_u32 (body);
      ev->u.fork.ppid = (gint32) rsp_read_u32 (body + 4);
      ev->u.fork.tid = (gint32) rsp_read_u32 (body + 8);
      ev->u.fork.ptid = (gint32) rsp_read_u32 (body + 12);
      ev->u.fork.time = rsp_read_u64 (body + 16);
      if (!ev->has_time)
        {
          ev->time = ev->u.fork.time;
          ev->has_time = TRUE;
        }
      if (ev->pid < 0)
        {
          ev->pid = ev->u.fork.pid;
          ev->tid = ev->u.fork.tid;
        }
      return TRUE;
    case PERF_RECORD_LOST:
      if (len < 16)
        return FALSE;
      ev->u.lost.id = rsp_read_u64 (body);
      ev->u.lost.lost = rsp_read_u64 (body + 8);
      return TRUE;
    case PERF_RECORD_LOST_SAMPLES:
      if (len < 8)
        return FALSE;
      ev->u.lost.lost = rsp_read_u64 (body);
      return TRUE;
    default:
      return TRUE;
    }
}

/* Decodes the record at OFFSET into EV.  FALSE when malformed. */
gboolean
rsp_perf_record_decode (RspPerfReader *self, guint64 offset, RspEvsel *evsel, RspEvent *ev)
{
  const guint8 *rec = self->data + offset;
  struct perf_event_header header;
  const struct perf_event_header *h = &header;
  memcpy (&header, rec, sizeof header);
  if (((guintptr) rec & 7) != 0)
    {
      /* the record's fields are read in place (the callchain as a
       * guint64 array): decode an aligned copy */
      guint64 *copy = rsp_perf_reader_aligned_room (self, (header.size + 7) / 8);
      memcpy (copy, rec, header.size);
      rec = (const guint8 *) copy;
    }

  memset (ev, 0, sizeof *ev);
  ev->type = h->type;
  ev->misc = h->misc;
  ev->size = h->size;
  ev->record = rec;
  ev->file_offset = offset;
  ev->evsel = evsel;
  ev->pid = ev->tid = -1;
  ev->cpu = -1;
  if (h->type == PERF_RECORD_SAMPLE)
    {
      if (evsel == NULL)
        return FALSE;
      return rsp_perf_sample_decode (evsel, rec, h->size, ev);
    }
  return decode_other (evsel, rec, h->size, ev);
}

/* Reads only the time and CPU of a record (for ordering); CPU is -1 when
 * the record does not carry it. */
gboolean
rsp_perf_record_time (const RspEvsel *evsel, const guint8 *rec, const struct perf_event_header *h, guint64 *time,
             gint32 *cpu)
{
  *cpu = -1;
  if (evsel == NULL)
    return FALSE;
  guint64 st = evsel->attr.sample_type;
  if (!(st & PERF_SAMPLE_TIME))
    return FALSE;
  if (h->type == PERF_RECORD_SAMPLE)
    {
      /* the offsets the header's reader found (sample_time_offsets()) */
      if ((guint) evsel->sample_time_at + 8 > h->size)
        return FALSE;
      *time = rsp_read_u64 (rec + evsel->sample_time_at);
      if (evsel->sample_cpu_at != 0 && (guint) evsel->sample_cpu_at + 8 <= h->size)
        *cpu = (gint32) rsp_read_u32 (rec + evsel->sample_cpu_at);
      return TRUE;
    }
  if (!evsel->attr.sample_id_all || evsel->id_trailer_size > h->size - sizeof *h)
    return FALSE;
  gsize pos = h->size - evsel->id_trailer_size;
  if (st & PERF_SAMPLE_TID) pos += 8;
  *time = rsp_read_u64 (rec + pos);
  pos += 8;
  if (st & PERF_SAMPLE_CPU)
    {
      if (st & PERF_SAMPLE_ID) pos += 8;
      if (st & PERF_SAMPLE_STREAM_ID) pos += 8;
      *cpu = (gint32) rsp_read_u32 (rec + pos);
    }
  return TRUE;
}
