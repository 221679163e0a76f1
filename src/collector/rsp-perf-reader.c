/* rsp-perf-reader.c — native perf.data reader.
 *
 * The file is mapped read-only.  Records are scanned in file order, and each
 * one's time is read from its sample or sample_id_all trailer; records wait
 * in a heap until perf's FINISHED_ROUND protocol says no older record can
 * still come (perf flushes each CPU buffer once per round, so after round
 * n+1 ends, everything up to the newest time of round n is final).  Records
 * are fully decoded only when delivered.  Pages behind the oldest pending
 * record are released with MADV_DONTNEED, so memory stays bounded by the
 * queue, not by the file.
 *
 * For large files, scanning and ordering can run on a thread of their own
 * (rsp_perf_reader_set_threads(), "the scanning thread" below).
 *
 * The header is read by rsp-perf-header.c and each record decoded by
 * rsp-perf-decode.c (rsp-perf-reader-private.h lists the parts).
 */
#include "rsp-perf-reader-private.h"

#include "rsp-bytes.h"
#include "rsp-disk-cache.h"

#include <glib/gi18n-lib.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <unistd.h>


G_DEFINE_QUARK (rsp-reader-error-quark, rsp_reader_error)

/* Without FINISHED_ROUND records (an unusual writer), the oldest half of the
 * queue is flushed when it reaches this size, as perf does. */
#define MAX_QUEUED_RECORDS (1u << 21)
/* Pages behind the oldest pending record are released in chunks this big:
 * what the mapping holds counts in the peak memory, beside the model (16
 * MB chunks put a report of a 41.6 MB recording at 68 MB, against 56 MB
 * with 4 MB ones; the time did not move, 1.03 on a 114 MB recording in 15
 * pairs, within the spread). */
#define RELEASE_CHUNK (4u << 20)
/* Pages ahead of the scan are mapped in chunks this big, with one call:
 * a page fault for every 16 pages (the kernel's fault-around) was a tenth
 * of reading a large recording. */
#define POPULATE_CHUNK (4u << 20)
/* The file's bytes are read from memory the first time when a record is
 * scanned and, a round later (out of the caches by then), when it is
 * decoded; both wait for memory unless the lines are asked for ahead:
 * the scan asks for those PREFETCH_AHEAD bytes past its position, the
 * reading thread for the record PREFETCH_ITEMS items on in the scanning
 * thread's ring (or, on one thread, for the next record in the queue).
 * docs/PERFORMANCE.md, "First touches". */
#define PREFETCH_AHEAD 2048
#define PREFETCH_ITEMS 16

/* Maps the next chunk of the file ahead of the scan position (Linux 5.14
 * and later; an older kernel refuses it once and faults page by page). */
static void
populate_ahead (RspPerfReader *self)
{
  if (!self->mapped || self->populate_failed || self->populated >= self->data_end)
    return;
  long page = sysconf (_SC_PAGESIZE);
  guint64 from = MAX (self->populated, self->pos) & ~((guint64) page - 1);
  guint64 upto = MIN (from + POPULATE_CHUNK, self->data_end);
  if (upto <= from)
    return;
  if (!rsp_disk_cache_populate (self->data + from, upto - from) && errno != EINTR)
    self->populate_failed = TRUE;
  self->populated = upto;
}

void
rsp_perf_reader_warn (RspPerfReader *self, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  char *message = g_strdup_vprintf (format, args);
  va_end (args);
  /* keep the array NULL-terminated for rsp_perf_reader_warnings() */
  g_ptr_array_remove_index (self->warnings, self->warnings->len - 1);
  g_ptr_array_add (self->warnings, message);
  g_ptr_array_add (self->warnings, NULL);
}

static guint64 scanner_min_pending (RspScanThread *scanner);
static void scanner_flush (RspScanThread *scanner);
static gboolean scanner_stopped (RspScanThread *scanner);

static void
release_pages (RspPerfReader *self)
{
  if (!self->mapped)
    return;
  guint64 queued = rsp_ordered_queue_min_offset (&self->queue);
  guint64 keep_from = MIN (queued, self->pos);
  /* the records handed to the reading thread and not yet decoded there.
   * Read once: the reading thread takes items meanwhile, and MIN() with
   * the call in it read it twice, the second time (the ring emptied in
   * between) as "nothing pending", G_MAXUINT64.  RELEASED then went past
   * the end, and the next release started a page before the mapping, on
   * the scanning thread's own stack and thread block: a crash of one
   * report in ten of a 300 MB perf.data when the CPUs were busy. */
  if (self->scanner != NULL)
    {
      guint64 pending = scanner_min_pending (self->scanner);
      keep_from = MIN (keep_from, pending);
    }
  long page = sysconf (_SC_PAGESIZE);
  guint64 upto = keep_from & ~((guint64) page - 1);
  /* never past the scan position, whatever the above said */
  g_assert (upto <= self->pos && self->released <= self->pos);
  if (upto > self->released + RELEASE_CHUNK)
    {
      guint64 from = self->released & ~((guint64) page - 1);
      madvise ((void *) (self->data + from), upto - from, MADV_DONTNEED);
      self->released = upto;
    }
}

static void scan_warn (RspPerfReader *self, const char *format, ...) G_GNUC_PRINTF (2, 3);
static void scanner_unknown_id (RspScanThread *scanner);

/* Once per reader (a rewind does not repeat it): the reading thread's flag. */
static void
warn_unknown_id (RspPerfReader *self)
{
  if (!self->warned_unknown_id)
    rsp_perf_reader_warn (self, _("samples with an id that matches no event were skipped"));
  self->warned_unknown_id = TRUE;
}

typedef enum {
  SCAN_QUEUED,    /* a record went into the queue */
  SCAN_IMMEDIATE, /* a record to deliver now (no time) */
  SCAN_SKIPPED,   /* a record that is not delivered */
  SCAN_END,
} ScanResult;

/* Asks for the cache lines of the record at OFFSET (its first 256 bytes)
 * before it is decoded. */
static inline void
prefetch_record (const RspPerfReader *self, guint64 offset, guint32 size)
{
  const guint8 *rec = self->data + offset;
  guint32 n = MIN (size, 256u);
  for (guint32 i = 0; i < n; i += 64)
    __builtin_prefetch (rec + i);
}

/* Asks for the lines up to PREFETCH_AHEAD past the scan position. */
static inline void
prefetch_scan_ahead (RspPerfReader *self)
{
  guint64 want = MIN (self->pos + PREFETCH_AHEAD, self->data_end);
  guint64 line = MAX (self->prefetched, self->pos);
  for (; line < want; line += 64)
    __builtin_prefetch (self->data + line);
  self->prefetched = line;
}

/* Scans the record at the scan position; fills OUT for SCAN_IMMEDIATE. */
static ScanResult
scan_one (RspPerfReader *self, RspQueuedRecord *out)
{
  if (self->pos + sizeof (struct perf_event_header) > self->data_end)
    {
      if (self->pos < self->data_end)
        {
          scan_warn (self, _("the last %llu bytes of event data are a cut-off record"),
                       (unsigned long long) (self->data_end - self->pos));
          self->scan_stats->truncated = TRUE;
        }
      return SCAN_END;
    }
  const guint8 *rec = self->data + self->pos;
  prefetch_scan_ahead (self);
  struct perf_event_header h;
  memcpy (&h, rec, sizeof h);
  /* the kernel's records come in whole 8-byte words; some of perf's own do
   * not (perf inject -b writes build ids of 100 bytes): those are skipped,
   * and the kernel's after them decoded from aligned copies */
  if (h.size < sizeof h || (h.size % 8 != 0 && h.type < 64))
    {
      /* Without a valid size there is no next record to go to. */
      scan_warn (self, _("a damaged record at byte %llu (size %u); the %llu bytes after it are unreadable"),
                   (unsigned long long) self->pos, h.size, (unsigned long long) (self->data_end - self->pos));
      self->scan_stats->bad_records++;
      self->scan_stats->truncated = TRUE;
      return SCAN_END;
    }
  if (h.size > self->data_end - self->pos)
    {
      scan_warn (self, _("the recording ends inside a record at byte %llu; it was cut off"),
                   (unsigned long long) self->pos);
      self->scan_stats->truncated = TRUE;
      return SCAN_END;
    }

  guint64 offset = self->pos;
  self->pos += h.size;
  self->scan_stats->bytes += h.size;
  if (h.type == RSP_RECORD_AUXTRACE && h.size >= sizeof h + 8)
    {
      /* the AUX area's trace data follows the record, its size not in the
       * record's (perf's session.c skips it the same way) */
      guint64 aux = rsp_read_u64 (rec + sizeof h);
      if (aux > self->data_end - self->pos)
        {
          scan_warn (self, _("the recording ends inside the AUX trace data at byte %llu; it was cut off"),
                     (unsigned long long) self->pos);
          self->scan_stats->truncated = TRUE;
          self->pos = self->data_end;
          return SCAN_END;
        }
      self->pos += aux;
      self->scan_stats->bytes += aux;
    }
  if (h.type < RSP_RECORD_TYPE_MAX)
    self->scan_stats->by_type[h.type]++;

  if (h.type >= 64)
    {
      /* Records perf writes itself: FINISHED_ROUND drives the ordering;
       * the others describe the session and are not delivered. */
      if (h.type == RSP_RECORD_FINISHED_ROUND)
        {
          self->flush_limit = self->next_flush;
          self->next_flush = self->round_max;
        }
      return SCAN_SKIPPED;
    }

  RspEvsel *evsel = rsp_perf_record_evsel (self, &h, rec);
  if (evsel == NULL && h.type == PERF_RECORD_SAMPLE)
    {
      self->scan_stats->unknown_ids++;
      if (self->scanner != NULL)
        scanner_unknown_id (self->scanner);
      else
        warn_unknown_id (self);
      return SCAN_SKIPPED;
    }
  RspQueuedRecord q = { 0, offset, evsel != NULL ? evsel->index : G_MAXUINT32, h.size };
  gint32 cpu;
  if (self->ordering && rsp_perf_record_time (evsel, rec, &h, &q.time, &cpu))
    {
      rsp_ordered_queue_push (&self->queue, &q, cpu);
      self->round_max = MAX (self->round_max, q.time);
      self->scan_stats->max_queued = MAX (self->scan_stats->max_queued, self->queue.len);
      return SCAN_QUEUED;
    }
  *out = q;
  return SCAN_IMMEDIATE;
}

static gboolean
deliver (RspPerfReader *self, guint64 offset, RspEvsel *evsel, RspEvent *event)
{
  if (!rsp_perf_record_decode (self, offset, evsel, event))
    {
      self->stats.bad_records++;
      if (!self->warned_bad_record)
        rsp_perf_reader_warn (self, _("malformed %s record at byte %llu skipped (and any later ones)"),
                     rsp_record_type_name (event->type), (unsigned long long) offset);
      self->warned_bad_record = TRUE;
      return FALSE;
    }
  if (event->has_time)
    {
      if (event->time < self->last_delivered)
        self->stats.out_of_order++;
      else
        self->last_delivered = event->time;
    }
  self->stats.records++;
  switch (event->type)
    {
    case PERF_RECORD_LOST:
      self->stats.lost_events += event->u.lost.lost;
      break;
    case PERF_RECORD_LOST_SAMPLES:
      self->stats.lost_samples += event->u.lost.lost;
      break;
    default:
      break;
    }
  return TRUE;
}

static gboolean perf_next (RspPerfReader *self, RspEvent *event);
static gboolean perf_next_event (RspPerfReader *self, RspEvent *event);

/* At the end of the instance's events: says once what its section could
 * not give.  Apart from rsp_perf_reader_next_ref(), called for every
 * event, so that it sets up no stack frame. */
static G_GNUC_NO_INLINE void
warn_ftrace_end (RspPerfReader *self)
{
  const RspFtraceStats *fs = rsp_ftrace_stream_get_stats (self->ftrace);
  if (self->warned_ftrace
      || (fs->bad_subbuffers == 0 && fs->missed_events == 0 && fs->unknown_ids == 0 && fs->lost_cpus == 0))
    return;
  self->warned_ftrace = TRUE;
  if (fs->lost_cpus > 0)
    rsp_perf_reader_warn (self, _("the ftrace section is cut or damaged in the buffers of %u of its CPUs: the events of "
                         "RSP's tracefs instance on them are lost, the other CPUs' are read"),
                 fs->lost_cpus);
  if (fs->bad_subbuffers > 0)
    rsp_perf_reader_warn (self, _("%llu of %llu sub-buffers in the ftrace section are damaged: the events of RSP's "
                         "tracefs instance in them are lost, the rest is read"),
                 (unsigned long long) fs->bad_subbuffers, (unsigned long long) fs->subbuffers);
  if (fs->missed_events > 0)
    rsp_perf_reader_warn (self, _("RSP's tracefs instance lost events before %llu of its sub-buffers (its buffer "
                         "filled during the recording): the analysis infers what is missing"),
                 (unsigned long long) fs->missed_events);
  if (fs->unknown_ids > 0)
    rsp_perf_reader_warn (self, _("%llu events in the ftrace section have no stored format and are skipped"),
                 (unsigned long long) fs->unknown_ids);
}

const RspEvent *
rsp_perf_reader_next_ref (RspPerfReader *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  /* perf_next() splits the samples that read counters, where there are */
  if (self->ftrace == NULL)
    return (self->reads_counters ? perf_next (self, &self->next) : perf_next_event (self, &self->next)) ? &self->next
                                                                                                        : NULL;
  const RspEvent *next = rsp_ftrace_stream_next_ref (
      self->ftrace, (RspFtracePullFunc) (self->reads_counters ? perf_next : perf_next_event), self);
  if (G_LIKELY (next != NULL))
    return next;
  warn_ftrace_end (self);
  return NULL;
}

gboolean
rsp_perf_reader_next (RspPerfReader *self, RspEvent *event)
{
  g_return_val_if_fail (self != NULL, FALSE);
  const RspEvent *next = rsp_perf_reader_next_ref (self);
  if (next == NULL)
    return FALSE;
  *event = *next;
  return TRUE;
}

/* The next record of perf's own stream to deliver, in time order, not yet
 * decoded.  FALSE at the end. */
static gboolean
next_record (RspPerfReader *self, RspQueuedRecord *next)
{
  for (;;)
    {
      const RspQueuedRecord *top = rsp_ordered_queue_peek (&self->queue);
      gboolean flushable = top != NULL
                           && (self->scan_done || top->time <= self->flush_limit
                               || self->queue.len >= MAX_QUEUED_RECORDS);
      if (flushable)
        {
          rsp_ordered_queue_pop (&self->queue, next);
          return TRUE;
        }
      if (self->scan_done)
        return FALSE;
      /* nothing to hand over until more is scanned: what is handed over
       * goes now; and a stopped thread stops scanning (a round can be
       * millions of records) */
      if (self->scanner != NULL)
        {
          scanner_flush (self->scanner);
          if (scanner_stopped (self->scanner))
            return FALSE;
        }

      switch (scan_one (self, next))
        {
        case SCAN_END:
          self->scan_done = TRUE;
          break;
        case SCAN_IMMEDIATE:
          return TRUE;
        case SCAN_QUEUED:
        case SCAN_SKIPPED:
          break;
        }
      if (self->pos >= self->next_release)
        {
          release_pages (self);
          self->next_release = self->pos + RELEASE_CHUNK / 4;
        }
      if (self->pos + POPULATE_CHUNK / 2 >= self->populated)
        populate_ahead (self);
    }
}

static gboolean scanner_next (RspPerfReader *self, RspEvent *event);

static inline RspEvsel *
evsel_at (RspPerfReader *self, guint32 index)
{
  return index == G_MAXUINT32 ? NULL : g_ptr_array_index (self->evsels, index);
}

/* The next record of perf's own stream, decoded, in time order. */
static gboolean
perf_next_event (RspPerfReader *self, RspEvent *event)
{
  /* a scanning thread that runs is used to its end (or the next rewind),
   * whatever rsp_perf_reader_set_threads() said since */
  if (self->threads > 1 || self->scanner != NULL)
    return !self->scanner_done && scanner_next (self, event);
  RspQueuedRecord next;
  while (next_record (self, &next))
    {
      /* the record after it, asked for while this one is decoded (on
       * this thread: the scanning thread's next_record() does not) */
      const RspQueuedRecord *after = rsp_ordered_queue_peek (&self->queue);
      if (after != NULL)
        prefetch_record (self, after->offset, after->size);
      if (deliver (self, next.offset, evsel_at (self, next.evsel), event))
        return TRUE;
    }
  return FALSE;
}

/* PERF_SAMPLE_READ, as perf delivers it (session.c, deliver_sample_value):
 * a sample that reads counters is one event per value it read — a
 * group's leader and members (read_format GROUP) each under its own
 * evsel, found by the value's id — whose period is how much the value
 * grew since that counter's last read.  A counter is its id; with inherit
 * (Linux 6.12 lets PERF_SAMPLE_READ inherit) each thread counts apart
 * under its parent's id: the id and the thread, as perf 6.12 keys it
 * (perf 6.1 keys by the id alone and prints a thread's difference from
 * another's, 2^64 less a few) — except a counter of every thread of a CPU
 * (perf record -a), on which perf 6.1 sets inherit too: the id alone
 * (perf 6.12 sets no inherit there).
 *
 * perf prints nothing for a value that did not grow, nor for one of no
 * known id (read_format without ID).  The record is still a sample of its
 * own event — a context switch of `sched:sched_switch:S` — and goes on
 * marked read_unchanged (rsp dump leaves it out, the model takes it);
 * the other events' values are marked read_member (not samples: the
 * model leaves them out). */
typedef struct {
  guint64 id;
  gint64 tid; /* -1: counted for all threads */
} ReadKey;

static guint
read_key_hash (gconstpointer p)
{
  const ReadKey *k = p;
  return (guint) ((k->id ^ ((guint64) k->tid << 29)) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) >> 32);
}

static gboolean
read_key_equal (gconstpointer a, gconstpointer b)
{
  const ReadKey *x = a, *y = b;
  return x->id == y->id && x->tid == y->tid;
}

static void
read_split_start (RspPerfReader *self, const RspEvent *event)
{
  self->read_sample = *event;
  self->read_active = TRUE;
  self->read_next = 0;
  self->read_own_done = FALSE;
  self->read_n = rsp_read_values_n (event->evsel->attr.read_format, event->sample.read_values);
  if (self->read_last == NULL)
    self->read_last = g_hash_table_new_full (read_key_hash, read_key_equal, g_free, g_free);
}

static gboolean
read_split_next (RspPerfReader *self, RspEvent *event)
{
  const RspEvent *sample = &self->read_sample;
  const struct perf_event_attr *attr = &sample->evsel->attr;
  gboolean per_thread = attr->inherit && (attr->sample_type & PERF_SAMPLE_TID);
  while (self->read_next < self->read_n)
    {
      guint64 value;
      ReadKey key = { 0, -1 };
      RspEvsel *member = NULL;
      if (rsp_read_value (attr->read_format, sample->sample.read_values, self->read_next++, &value, &key.id))
        {
          member = rsp_perf_evsel_for_id (self, key.id);
          if (per_thread && (self->cpu_wide_ids == NULL || !g_hash_table_contains (self->cpu_wide_ids, &key.id)))
            key.tid = sample->tid;
        }
      if (member == NULL)
        {
          self->stats.unknown_ids++;
          warn_unknown_id (self);
          continue;
        }
      guint64 *last = g_hash_table_lookup (self->read_last, &key);
      if (last == NULL)
        {
          last = g_new0 (guint64, 1);
          g_hash_table_insert (self->read_last, g_memdup2 (&key, sizeof key), last);
        }
      guint64 period = value - *last;
      *last = value;
      gboolean own = member == sample->evsel && !self->read_own_done;
      if (period == 0 && !own)
        continue;
      *event = *sample;
      event->evsel = member;
      event->sample.id = key.id;
      event->sample.period = period;
      event->sample.read_member = !own;
      event->sample.read_unchanged = own && period == 0;
      self->read_own_done |= own;
      /* a tracepoint's payload stays the sample's (perf prints it, by its
       * own type, for a member too; the model reads no member) */
      return TRUE;
    }
  if (!self->read_own_done)
    {
      /* no value of its own event among those read: the record itself,
       * as recorded, for the model */
      self->read_own_done = TRUE;
      *event = *sample;
      event->sample.read_unchanged = TRUE;
      return TRUE;
    }
  return FALSE;
}

/* A thread that exited takes its counters with it: a new thread given
 * its id counts from 0 (perf 6.12 does not forget, and takes the new
 * thread's value less the old one's). */
static void
read_forget_thread (RspPerfReader *self, gint32 tid)
{
  for (guint i = 0; i < self->evsels->len; i++)
    {
      const RspEvsel *evsel = g_ptr_array_index (self->evsels, i);
      for (guint k = 0; k < evsel->n_ids; k++)
        {
          ReadKey key = { evsel->ids[k], tid };
          g_hash_table_remove (self->read_last, &key);
        }
    }
}

/* The next event of perf's own stream, in time order. */
static gboolean
perf_next (RspPerfReader *self, RspEvent *event)
{
  for (;;)
    {
      if (G_UNLIKELY (self->read_active))
        {
          if (read_split_next (self, event))
            return TRUE;
          self->read_active = FALSE;
        }
      if (!perf_next_event (self, event))
        return FALSE;
      if (G_UNLIKELY (event->type == PERF_RECORD_EXIT && self->read_last != NULL))
        read_forget_thread (self, event->u.fork.tid);
      /* read_values: a sample of an evsel with PERF_SAMPLE_READ */
      if (G_LIKELY (event->type != PERF_RECORD_SAMPLE || event->sample.read_values == NULL))
        return TRUE;
      read_split_start (self, event);
    }
}


/* ---------------------------------------------------------------- the scanning thread
 *
 * With rsp_perf_reader_set_threads (2), a thread of its own runs
 * next_record(): scanning in file order, the ordering queue, and the
 * FINISHED_ROUND protocol.  It hands each record to deliver, as its offset
 * and evsel (16 bytes), through a ring to the reading thread, which decodes
 * it (deliver()) where it lies in the mapped file.  The scanning thread
 * touches a record's header and time only, a round or more before the
 * reading thread decodes it, so little crosses between the CPUs' caches;
 * handing over whole decoded events was slower than one thread.
 *
 * Warnings that scanning finds travel through the ring in sequence, so the
 * warnings come out in the same order as with one thread, and the figures
 * scanning keeps (scan_stats) are added to the reader's at the end.
 */

#define SCAN_RING_SIZE 16384u   /* items (a power of two): about 2.5 MB of records ahead */
#define SCAN_PUBLISH_EVERY 64u  /* items between publications of an index */
#define SCAN_AHEAD_BYTES (8u << 20) /* records' bytes handed over and not yet taken, at most */
#define SCAN_SPINS 256          /* checks before sleeping on the condition */

typedef enum {
  ITEM_RECORD,
  ITEM_WARNING,    /* offset holds a char* the reading thread takes */
  ITEM_UNKNOWN_ID, /* the first sample whose id matches no event (warn_unknown_id) */
  ITEM_END,
} ItemKind;

typedef struct {
  guint64 offset;
  guint32 evsel; /* index, or G_MAXUINT32 */
  guint16 kind;
  guint16 size;  /* a record's size (perf's are below 64 kB) */
} ScanItem;

/* Each side's fields are on cache lines of their own: the reading
 * thread's first, then the scanning thread's (allocated 64-aligned). */
struct _RspScanThread {
  RspPerfReader *reader;
  GThread *thread;
  ScanItem *ring;
  guint32 size, mask, publish_every;
  guint64 ahead_bytes;
  GMutex lock;
  GCond cond;
  gint stop;              /* the reader is rewound or freed */
  /* free-running indexes; items [head, tail) are in the ring */
  _Alignas (64) gint head; /* published by the reading thread */
  gint reader_waiting;    /* the reading thread sleeps on COND */
  guint32 local_head, known_tail;
  _Alignas (64) gint tail; /* published by the scanning thread */
  gint scanner_waiting;   /* the scanning thread sleeps on COND ... */
  gint wake_head;         /* ... until the head reaches this */
  guint32 local_tail, known_head;
  guint64 pushed_bytes;   /* the records' bytes handed over so far */
  gboolean sent_unknown_id; /* ITEM_UNKNOWN_ID went (once per thread) */
  guint64 *cumulative;    /* per slot: pushed_bytes once its item was handed over */
  RspReaderStats stats;   /* what scanning counted */
  char pad_end[64];
};

static inline void
cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#elif defined(__aarch64__)
  __asm__ __volatile__ ("yield");
#endif
}

static void
wake (RspScanThread *t, gint *waiting)
{
  if (g_atomic_int_get (waiting))
    {
      g_mutex_lock (&t->lock);
      g_cond_broadcast (&t->cond);
      g_mutex_unlock (&t->lock);
    }
}

static void
publish_tail (RspScanThread *t)
{
  g_atomic_int_set (&t->tail, (gint) t->local_tail);
  wake (t, &t->reader_waiting);
}

static gboolean
scanner_stopped (RspScanThread *t)
{
  return g_atomic_int_get (&t->stop);
}

static void
scanner_flush (RspScanThread *t)
{
  /* TAIL is this thread's to write: reading it back is a plain load */
  if ((guint32) g_atomic_int_get (&t->tail) != t->local_tail)
    publish_tail (t);
}

static void
publish_head (RspScanThread *t)
{
  g_atomic_int_set (&t->head, (gint) t->local_head);
  /* the scanning thread waits for half the ring: waking it for every
   * publication made both threads spend their time in futex calls */
  if (g_atomic_int_get (&t->scanner_waiting) && (gint32) (t->local_head - (guint32) g_atomic_int_get (&t->wake_head)) >= 0)
    wake (t, &t->scanner_waiting);
}

/* Scanning thread: room for one more item when the reading thread is at
 * HEAD: a free slot, and at most SCAN_AHEAD_BYTES of records handed over
 * and not yet taken (the pages they lie in stay mapped: records of
 * `--call-graph dwarf` samples are 8 kB each, and 16384 of them doubled
 * the peak RSS of reading such a file). */
static gboolean
has_room (const RspScanThread *t, guint32 head)
{
  guint32 used = t->local_tail - head;
  return used < t->size && t->pushed_bytes - t->cumulative[(head - 1) & t->mask] <= t->ahead_bytes;
}

/* Scanning thread: puts an item in the ring, waiting for room; FALSE
 * (and nothing put) when the reader stopped it meanwhile.  BYTES is the
 * record's size. */
static gboolean
scanner_push (RspScanThread *t, guint64 offset, guint32 evsel, ItemKind kind, guint32 bytes)
{
  if (!has_room (t, t->known_head))
    {
      publish_tail (t);
      for (int spin = 0;; spin++)
        {
          t->known_head = (guint32) g_atomic_int_get (&t->head);
          if (has_room (t, t->known_head))
            break;
          if (g_atomic_int_get (&t->stop))
            return FALSE;
          if (spin < SCAN_SPINS)
            {
              cpu_relax ();
              continue;
            }
          /* sleep until half the ring, and half the bytes, are taken */
          guint32 target = t->local_tail - t->size / 2;
          while ((gint32) (t->local_tail - target) > 0
                 && t->pushed_bytes - t->cumulative[(target - 1) & t->mask] > t->ahead_bytes / 2)
            target++;
          g_mutex_lock (&t->lock);
          g_atomic_int_set (&t->wake_head, (gint) target);
          g_atomic_int_set (&t->scanner_waiting, 1);
          while ((gint32) ((guint32) g_atomic_int_get (&t->head) - target) < 0 && !g_atomic_int_get (&t->stop))
            g_cond_wait (&t->cond, &t->lock);
          g_atomic_int_set (&t->scanner_waiting, 0);
          g_mutex_unlock (&t->lock);
        }
    }
  guint32 slot = t->local_tail & t->mask;
  ScanItem *item = &t->ring[slot];
  item->offset = offset;
  item->evsel = evsel;
  item->kind = (guint16) kind;
  item->size = (guint16) MIN (bytes, G_MAXUINT16);
  t->pushed_bytes += bytes;
  t->cumulative[slot] = t->pushed_bytes;
  t->local_tail++;
  if (kind != ITEM_RECORD || t->local_tail % t->publish_every == 0)
    publish_tail (t);
  return TRUE;
}

static gpointer
scanner_main (gpointer data)
{
  RspScanThread *t = data;
  RspQueuedRecord next;
  while (next_record (t->reader, &next))
    if (!scanner_push (t, next.offset, next.evsel, ITEM_RECORD, next.size) || g_atomic_int_get (&t->stop))
      return NULL;
  scanner_push (t, 0, 0, ITEM_END, 0);
  return NULL;
}

/* The smallest offset of the records handed over and not yet taken by the
 * reading thread: the pages they lie in are kept.  (The record being
 * decoded, and those the merge with the ftrace section holds, may lie in
 * pages released already, as on one thread: the mapping is private and
 * read-only, so they are read again from the file, the same bytes.)
 * Scanning thread. */
static guint64
scanner_min_pending (RspScanThread *t)
{
  guint64 min = G_MAXUINT64;
  guint32 head = (guint32) g_atomic_int_get (&t->head);
  for (guint32 i = head; i != t->local_tail; i++)
    {
      const ScanItem *item = &t->ring[i & t->mask];
      if (item->kind == ITEM_RECORD)
        min = MIN (min, item->offset);
    }
  return min;
}

static void
scan_warn (RspPerfReader *self, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  char *message = g_strdup_vprintf (format, args);
  va_end (args);
  if (self->scanner != NULL)
    {
      if (!scanner_push (self->scanner, (guint64) (guintptr) message, 0, ITEM_WARNING, 0))
        g_free (message);
      return;
    }
  rsp_perf_reader_warn (self, "%s", message);
  g_free (message);
}

/* The reading thread warns when it takes the item, so that a warning the
 * scanning thread ran ahead to find and the reader never took (rewound
 * before it) is not lost for the next read. */
static void
scanner_unknown_id (RspScanThread *t)
{
  if (!t->sent_unknown_id)
    t->sent_unknown_id = scanner_push (t, 0, 0, ITEM_UNKNOWN_ID, 0);
}

static void
scan_thread_free (RspScanThread *t)
{
  g_mutex_clear (&t->lock);
  g_cond_clear (&t->cond);
  g_free (t->ring);
  g_free (t->cumulative);
  g_aligned_free (t);
}

static gboolean
scanner_start (RspPerfReader *self)
{
  RspScanThread *t = g_aligned_alloc0 (1, sizeof (RspScanThread), 64);
  t->reader = self;
  t->size = self->scan_ring_size != 0 ? self->scan_ring_size : SCAN_RING_SIZE;
  t->mask = t->size - 1;
  t->ahead_bytes = self->scan_ahead_bytes != 0 ? self->scan_ahead_bytes : SCAN_AHEAD_BYTES;
  t->publish_every = MIN (SCAN_PUBLISH_EVERY, MAX (t->size / 4, 1));
  t->ring = g_new (ScanItem, t->size);
  t->cumulative = g_new0 (guint64, t->size);
  g_mutex_init (&t->lock);
  g_cond_init (&t->cond);
  self->scanner = t;
  self->scan_stats = &t->stats;
  t->thread = g_thread_try_new ("rsp-scan", scanner_main, t, NULL);
  if (t->thread != NULL)
    return TRUE;
  /* no thread to be had (a limit on processes): one thread it is */
  self->scanner = NULL;
  self->scan_stats = &self->stats;
  self->threads = 1;
  scan_thread_free (t);
  return FALSE;
}

/* Stops (if it still runs) and joins the scanning thread; adds what it
 * counted to the reader's figures. */
static void
scanner_stop (RspPerfReader *self)
{
  RspScanThread *t = self->scanner;
  if (t == NULL)
    return;
  g_atomic_int_set (&t->stop, 1);
  g_mutex_lock (&t->lock);
  g_cond_broadcast (&t->cond);
  g_mutex_unlock (&t->lock);
  g_thread_join (t->thread);
  /* warnings handed over and never taken */
  for (guint32 i = t->local_head; i != (guint32) g_atomic_int_get (&t->tail); i++)
    {
      ScanItem *item = &t->ring[i & t->mask];
      if (item->kind == ITEM_WARNING)
        g_free ((char *) (guintptr) item->offset);
    }
  RspReaderStats *s = &self->stats;
  const RspReaderStats *add = &t->stats;
  for (guint i = 0; i < RSP_RECORD_TYPE_MAX; i++)
    s->by_type[i] += add->by_type[i];
  s->bytes += add->bytes;
  s->bad_records += add->bad_records;
  s->unknown_ids += add->unknown_ids;
  s->max_queued = MAX (s->max_queued, add->max_queued);
  s->truncated = s->truncated || add->truncated;
  self->scan_stats = &self->stats;
  self->scanner = NULL;
  scan_thread_free (t);
}

/* Reading thread: the next item, waiting for one.  Copied out: once the
 * head is published, the scanning thread may write the slot again. */
static ScanItem
scanner_pop (RspScanThread *t)
{
  if (t->local_head == t->known_tail)
    {
      publish_head (t);
      for (int spin = 0;; spin++)
        {
          t->known_tail = (guint32) g_atomic_int_get (&t->tail);
          if (t->known_tail != t->local_head)
            break;
          if (spin < SCAN_SPINS)
            {
              cpu_relax ();
              continue;
            }
          g_mutex_lock (&t->lock);
          g_atomic_int_set (&t->reader_waiting, 1);
          while ((guint32) g_atomic_int_get (&t->tail) == t->local_head)
            g_cond_wait (&t->cond, &t->lock);
          g_atomic_int_set (&t->reader_waiting, 0);
          g_mutex_unlock (&t->lock);
        }
    }
  ScanItem item = t->ring[t->local_head & t->mask];
  t->local_head++;
  guint32 ahead = t->local_head + PREFETCH_ITEMS;
  if ((gint32) (t->known_tail - ahead) > 0)
    {
      /* an item the scanning thread has published: ours to read */
      const ScanItem *a = &t->ring[ahead & t->mask];
      if (a->kind == ITEM_RECORD)
        prefetch_record (t->reader, a->offset, a->size);
    }
  if (t->local_head % t->publish_every == 0)
    publish_head (t);
  return item;
}

static gboolean
scanner_next (RspPerfReader *self, RspEvent *event)
{
  if (self->scanner == NULL && !scanner_start (self))
    return perf_next_event (self, event);
  for (;;)
    {
      ScanItem item = scanner_pop (self->scanner);
      switch ((ItemKind) item.kind)
        {
        case ITEM_RECORD:
          {
            if (deliver (self, item.offset, evsel_at (self, item.evsel), event))
              return TRUE;
          }
          break;
        case ITEM_UNKNOWN_ID:
          warn_unknown_id (self);
          break;
        case ITEM_WARNING:
          {
            char *message = (char *) (guintptr) item.offset;
            rsp_perf_reader_warn (self, "%s", message);
            g_free (message);
          }
          break;
        case ITEM_END:
          self->scanner_done = TRUE;
          scanner_stop (self);
          return FALSE;
        }
    }
}

void
rsp_perf_reader_set_scan_ring (RspPerfReader *self, guint32 size, guint64 ahead_bytes)
{
  g_return_if_fail (self != NULL && size >= 2 && (size & (size - 1)) == 0);
  self->scan_ring_size = size;
  self->scan_ahead_bytes = ahead_bytes;
}

typedef struct {
  GPtrArray *slabs;
  guint8 *used; /* per slab, 1: an event points into it */
} SlabUse;

static void
note_slab_use (const RspEvent *event, gpointer data)
{
  SlabUse *use = data;
  guintptr rec = (guintptr) event->record;
  for (guint i = 0; rec != 0 && i < use->slabs->len; i++)
    {
      const RspAlignedSlab *slab = g_ptr_array_index (use->slabs, i);
      if (rec >= (guintptr) slab->data && rec < (guintptr) (slab->data + slab->words))
        {
          use->used[i] = 1;
          return;
        }
    }
}

/* Frees every slab no event the merge holds points into, wherever it is
 * (one event kept long pins its slab, not the ones after it).  Records
 * are decoded only when the last sample's read values are all split
 * (perf_next()), so the merge's events are the only ones held. */
static void
recycle_slabs (RspPerfReader *self)
{
  GPtrArray *slabs = self->aligned_slabs;
  g_autofree guint8 *used = g_new0 (guint8, slabs->len);
  SlabUse use = { slabs, used };
  if (self->ftrace != NULL)
    rsp_ftrace_stream_foreach_held (self->ftrace, note_slab_use, &use);
  guint kept = 0;
  for (guint i = 0; i < slabs->len; i++)
    {
      if (used[i])
        slabs->pdata[kept++] = slabs->pdata[i];
      else
        g_free (slabs->pdata[i]);
    }
  for (guint i = kept; i < slabs->len; i++)
    slabs->pdata[i] = NULL; /* freed above, or moved down */
  g_ptr_array_set_size (slabs, kept);
}

guint64 *
rsp_perf_reader_aligned_room (RspPerfReader *self, gsize words)
{
  if (self->aligned_slabs == NULL)
    self->aligned_slabs = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *slabs = self->aligned_slabs;
  RspAlignedSlab *slab = slabs->len > 0 ? g_ptr_array_index (slabs, slabs->len - 1) : NULL;
  if (slab == NULL || slab->words - self->aligned_used < words)
    {
      recycle_slabs (self);
      gsize size = MAX (words, self->aligned_slab_words > 0 ? self->aligned_slab_words : ALIGNED_SLAB_WORDS);
      slab = g_malloc (sizeof *slab + size * sizeof (guint64));
      slab->words = size;
      g_ptr_array_add (slabs, slab);
      self->aligned_used = 0;
      gsize bytes = 0;
      for (guint i = 0; i < slabs->len; i++)
        bytes += ((const RspAlignedSlab *) g_ptr_array_index (slabs, i))->words * sizeof (guint64);
      self->aligned_bytes_peak = MAX (self->aligned_bytes_peak, bytes);
    }
  guint64 *room = slab->data + self->aligned_used;
  self->aligned_used += words;
  return room;
}

void
rsp_perf_reader_set_aligned_slab_words (RspPerfReader *self, gsize words)
{
  self->aligned_slab_words = words;
}

gsize
rsp_perf_reader_get_aligned_bytes_peak (RspPerfReader *self)
{
  return self->aligned_bytes_peak;
}

void
rsp_perf_reader_set_threads (RspPerfReader *self, guint n)
{
  g_return_if_fail (self != NULL);
  self->threads = MAX (n, 1);
}

/* The threads worth using for a mapped file: 2 for a data section of 32
 * MB or more on a machine with 2 or more CPUs, else 1; RSP_THREADS=N in
 * the environment overrides it (1 or 2). */
static guint
default_threads (RspPerfReader *self)
{
  const char *env = g_getenv ("RSP_THREADS");
  if (env != NULL && *env != '\0')
    return g_ascii_strtoull (env, NULL, 10) >= 2 ? 2 : 1;
  if (g_get_num_processors () < 2)
    return 1;
  return self->data_end - self->data_start >= (32u << 20) ? 2 : 1;
}

void
rsp_perf_reader_rewind (RspPerfReader *self)
{
  scanner_stop (self);
  self->scanner_done = FALSE;
  rsp_ordered_queue_clear (&self->queue);
  rsp_ordered_queue_init (&self->queue);
  self->pos = self->data_start;
  self->scan_done = FALSE;
  self->released = 0;
  self->populated = 0;
  self->prefetched = 0;
  self->next_release = 0;
  self->flush_limit = 0;
  self->round_max = 0;
  self->next_flush = 0;
  self->last_delivered = 0;
  self->read_active = FALSE;
  self->read_next = self->read_n = 0;
  if (self->read_last != NULL)
    g_hash_table_remove_all (self->read_last);
  memset (&self->stats, 0, sizeof self->stats);
  self->stats.truncated = self->header_truncated;
  self->scan_stats = &self->stats;
  if (self->ftrace != NULL)
    rsp_ftrace_stream_rewind (self->ftrace);
}

/* ---------------------------------------------------------------- lifetime */

static void
build_id_clear (gpointer data)
{
  RspBuildId *build_id = data;
  g_free (build_id->filename);
}

static RspPerfReader *
reader_new (void)
{
  RspPerfReader *self = g_new0 (RspPerfReader, 1);
  self->fd = -1;
  self->evsels = g_ptr_array_new_with_free_func (rsp_perf_evsel_free);
  self->id_to_evsel = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->warnings, NULL);
  self->header.build_ids = g_array_new (FALSE, TRUE, sizeof (RspBuildId));
  g_array_set_clear_func (self->header.build_ids, build_id_clear);
  rsp_ordered_queue_init (&self->queue);
  return self;
}

static RspPerfReader *
reader_finish_open (RspPerfReader *self, RspPerfReaderFlags flags, GError **error)
{
  self->no_print = (flags & RSP_PERF_READER_NO_PRINT) != 0;
  if (!rsp_perf_header_parse (self, error))
    {
      rsp_perf_reader_free (self);
      return NULL;
    }
  rsp_perf_reader_rewind (self);
  return self;
}

RspPerfReader *
rsp_perf_reader_open (const char *path, GError **error)
{
  return rsp_perf_reader_open_full (path, RSP_PERF_READER_DEFAULT, error);
}

RspPerfReader *
rsp_perf_reader_open_full (const char *path, RspPerfReaderFlags flags, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      int err = errno;
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_OPEN, _("cannot open %s: %s%s"), path,
                   g_strerror (err),
                   err == EACCES ? _(" (recordings made by root are private: 'sudo chown $USER FILE')") : "");
      return NULL;
    }
  struct stat st;
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_OPEN, _("%s is not a regular file"), path);
      close (fd);
      return NULL;
    }
  RspPerfReader *self = reader_new ();
  self->fd = fd;
  self->size = (gsize) st.st_size;
  if (self->size > 0)
    {
      void *map = mmap (NULL, self->size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (map == MAP_FAILED)
        {
          g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_OPEN, _("cannot map %s: %s"), path,
                       g_strerror (errno));
          rsp_perf_reader_free (self);
          return NULL;
        }
      madvise (map, self->size, MADV_SEQUENTIAL);
      /* Read from the disk (not in the page cache yet), the file comes in
       * as 2 MB folios, which the next report maps with one entry per 2 MB
       * instead of 512 (docs/PERFORMANCE.md, "Huge folios").  Where the
       * kernel or the file system has none, nothing changes. */
      madvise (map, self->size, MADV_HUGEPAGE);
      self->data = map;
      self->mapped = TRUE;
    }
  else
    self->data = (const guint8 *) "";
  if (reader_finish_open (self, flags, error) == NULL)
    return NULL;
  if (self->mapped)
    self->threads = default_threads (self);
  return self;
}

RspPerfReader *
rsp_perf_reader_open_bytes (const guint8 *data, gsize size, GError **error)
{
  return rsp_perf_reader_open_bytes_full (data, size, RSP_PERF_READER_DEFAULT, error);
}

RspPerfReader *
rsp_perf_reader_open_bytes_full (const guint8 *data, gsize size, RspPerfReaderFlags flags, GError **error)
{
  RspPerfReader *self = reader_new ();
  self->data = size > 0 ? data : (const guint8 *) "";
  self->size = size;
  return reader_finish_open (self, flags, error);
}

void
rsp_perf_reader_free (RspPerfReader *self)
{
  if (self == NULL)
    return;
  scanner_stop (self);
  if (self->mapped)
    munmap ((void *) self->data, self->size);
  if (self->fd >= 0)
    close (self->fd);
  g_clear_pointer (&self->ftrace, rsp_ftrace_stream_free);
  g_clear_pointer (&self->recording, rsp_recording_free);
  g_ptr_array_unref (self->evsels);
  g_hash_table_unref (self->id_to_evsel);
  g_clear_pointer (&self->read_last, g_hash_table_unref);
  g_clear_pointer (&self->cpu_wide_ids, g_hash_table_unref);
  g_free (self->id_table);
  g_clear_pointer (&self->aligned_slabs, g_ptr_array_unref);
  g_ptr_array_unref (self->warnings);
  g_clear_pointer (&self->tp_events, g_ptr_array_unref);
  if (self->tep != NULL)
    tep_free (self->tep);
  g_free (self->header.hostname);
  g_free (self->header.osrelease);
  g_free (self->header.perf_version);
  g_free (self->header.arch);
  g_strfreev (self->header.cmdline);
  g_array_unref (self->header.build_ids);
  rsp_ordered_queue_clear (&self->queue);
  g_free (self);
}

/* ---------------------------------------------------------------- accessors */

const RspPerfHeader *
rsp_perf_reader_get_header (RspPerfReader *self)
{
  return &self->header;
}

const RspRecording *
rsp_perf_reader_get_recording (RspPerfReader *self)
{
  return self->recording;
}

guint
rsp_perf_reader_get_n_evsels (RspPerfReader *self)
{
  return self->evsels->len;
}

/* EVSEL with its format parsed, if it is an instance event whose format
 * waits for its first event (rsp_ftrace_stream_ensure_format()). */
static const RspEvsel *
handed_out (RspPerfReader *self, const RspEvsel *evsel)
{
  if (evsel->ftrace && evsel->tp == NULL && self->ftrace != NULL)
    rsp_ftrace_stream_ensure_format (self->ftrace, evsel);
  return evsel;
}

const RspEvsel *
rsp_perf_reader_get_evsel (RspPerfReader *self, guint index)
{
  g_return_val_if_fail (index < self->evsels->len, NULL);
  return handed_out (self, g_ptr_array_index (self->evsels, index));
}

const RspEvsel *
rsp_perf_reader_find_evsel (RspPerfReader *self, const char *name)
{
  for (guint i = 0; i < self->evsels->len; i++)
    {
      const RspEvsel *evsel = g_ptr_array_index (self->evsels, i);
      if (g_strcmp0 (evsel->name, name) == 0)
        return handed_out (self, evsel);
    }
  return NULL;
}

RspTepHandle *
rsp_perf_reader_get_tep (RspPerfReader *self)
{
  return self->tep;
}

gboolean
rsp_perf_reader_reads_counters (RspPerfReader *self)
{
  return self->reads_counters;
}

const RspReaderStats *
rsp_perf_reader_get_stats (RspPerfReader *self)
{
  return &self->stats;
}

const RspFtraceStats *
rsp_perf_reader_get_ftrace_stats (RspPerfReader *self)
{
  return self->ftrace != NULL ? rsp_ftrace_stream_get_stats (self->ftrace) : NULL;
}

guint
rsp_perf_reader_skip_instance_events (RspPerfReader *self, gboolean (*keep) (const char *name))
{
  g_return_val_if_fail (self != NULL, 0);
  guint n = 0;
  for (guint i = 0; self->ftrace != NULL && i < self->evsels->len; i++)
    {
      const RspEvsel *evsel = g_ptr_array_index (self->evsels, i);
      if (evsel->ftrace && rsp_ftrace_stream_set_skipped (self->ftrace, evsel, keep != NULL && !keep (evsel->name)))
        n++;
    }
  return n;
}

const RspFtraceSkipped *
rsp_perf_reader_get_skipped (RspPerfReader *self)
{
  return self->ftrace != NULL ? rsp_ftrace_stream_get_skipped (self->ftrace) : NULL;
}

const char *const *
rsp_perf_reader_warnings (RspPerfReader *self)
{
  return (const char *const *) self->warnings->pdata;
}
