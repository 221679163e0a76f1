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
 * The header is read by rsp-perf-header.c and each record decoded by
 * rsp-perf-decode.c (rsp-perf-reader-private.h lists the parts).
 */
#include "rsp-perf-reader-private.h"

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
/* Pages behind the oldest pending record are released in chunks this big. */
#define RELEASE_CHUNK (16u << 20)
/* Pages ahead of the scan are mapped in chunks this big, with one call:
 * a page fault for every 16 pages (the kernel's fault-around) was a tenth
 * of reading a large recording. */
#define POPULATE_CHUNK (4u << 20)
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

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
  if (madvise ((void *) (self->data + from), upto - from, MADV_POPULATE_READ) != 0 && errno != EINTR)
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

static void
release_pages (RspPerfReader *self)
{
  if (!self->mapped)
    return;
  guint64 keep_from = MIN (rsp_ordered_queue_min_offset (&self->queue), self->pos);
  long page = sysconf (_SC_PAGESIZE);
  guint64 upto = keep_from & ~((guint64) page - 1);
  if (upto > self->released + RELEASE_CHUNK)
    {
      guint64 from = self->released & ~((guint64) page - 1);
      madvise ((void *) (self->data + from), upto - from, MADV_DONTNEED);
      self->released = upto;
    }
}

typedef enum {
  SCAN_QUEUED,    /* a record went into the queue */
  SCAN_IMMEDIATE, /* a record to deliver now (no time) */
  SCAN_SKIPPED,   /* a record that is not delivered */
  SCAN_END,
} ScanResult;

static ScanResult
scan_one (RspPerfReader *self, guint64 *offset_out, RspEvsel **evsel_out)
{
  if (self->pos + sizeof (struct perf_event_header) > self->data_end)
    {
      if (self->pos < self->data_end)
        {
          rsp_perf_reader_warn (self, _("the last %llu bytes of event data are a cut-off record"),
                       (unsigned long long) (self->data_end - self->pos));
          self->stats.truncated = TRUE;
        }
      return SCAN_END;
    }
  const guint8 *rec = self->data + self->pos;
  struct perf_event_header h;
  memcpy (&h, rec, sizeof h);
  if (h.size < sizeof h || h.size % 8 != 0)
    {
      /* Without a valid size there is no next record to go to. */
      rsp_perf_reader_warn (self, _("a damaged record at byte %llu (size %u); the %llu bytes after it are unreadable"),
                   (unsigned long long) self->pos, h.size, (unsigned long long) (self->data_end - self->pos));
      self->stats.bad_records++;
      self->stats.truncated = TRUE;
      return SCAN_END;
    }
  if (h.size > self->data_end - self->pos)
    {
      rsp_perf_reader_warn (self, _("the recording ends inside a record at byte %llu; it was cut off"),
                   (unsigned long long) self->pos);
      self->stats.truncated = TRUE;
      return SCAN_END;
    }

  guint64 offset = self->pos;
  self->pos += h.size;
  self->stats.bytes += h.size;
  if (h.type < RSP_RECORD_TYPE_MAX)
    self->stats.by_type[h.type]++;

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
      self->stats.unknown_ids++;
      if (!self->warned_unknown_id)
        rsp_perf_reader_warn (self, _("samples with an id that matches no event were skipped"));
      self->warned_unknown_id = TRUE;
      return SCAN_SKIPPED;
    }
  guint64 time;
  gint32 cpu;
  if (self->ordering && rsp_perf_record_time (evsel, rec, &h, &time, &cpu))
    {
      RspQueuedRecord q = { time, offset, evsel != NULL ? evsel->index : G_MAXUINT32 };
      rsp_ordered_queue_push (&self->queue, &q, cpu);
      self->round_max = MAX (self->round_max, time);
      self->stats.max_queued = MAX (self->stats.max_queued, self->queue.len);
      return SCAN_QUEUED;
    }
  *offset_out = offset;
  *evsel_out = evsel;
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

const RspEvent *
rsp_perf_reader_next_ref (RspPerfReader *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  if (self->ftrace == NULL)
    return perf_next (self, &self->next) ? &self->next : NULL;
  const RspEvent *next = rsp_ftrace_stream_next_ref (self->ftrace, (RspFtracePullFunc) perf_next, self);
  if (next != NULL)
    return next;
  /* the end: say once what the instance's section could not give */
  const RspFtraceStats *fs = rsp_ftrace_stream_get_stats (self->ftrace);
  if (!self->warned_ftrace
      && (fs->bad_subbuffers > 0 || fs->missed_events > 0 || fs->unknown_ids > 0 || fs->lost_cpus > 0))
    {
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

/* The next event of perf's own stream, in time order. */
static gboolean
perf_next (RspPerfReader *self, RspEvent *event)
{
  for (;;)
    {
      const RspQueuedRecord *top = rsp_ordered_queue_peek (&self->queue);
      gboolean flushable = top != NULL
                           && (self->scan_done || top->time <= self->flush_limit
                               || self->queue.len >= MAX_QUEUED_RECORDS);
      if (flushable)
        {
          RspQueuedRecord q;
          rsp_ordered_queue_pop (&self->queue, &q);
          RspEvsel *evsel = q.evsel == G_MAXUINT32 ? NULL : g_ptr_array_index (self->evsels, q.evsel);
          if (deliver (self, q.offset, evsel, event))
            return TRUE;
          continue;
        }
      if (self->scan_done)
        return FALSE;

      guint64 offset = 0;
      RspEvsel *evsel = NULL;
      switch (scan_one (self, &offset, &evsel))
        {
        case SCAN_END:
          self->scan_done = TRUE;
          break;
        case SCAN_IMMEDIATE:
          if (deliver (self, offset, evsel, event))
            return TRUE;
          break;
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

void
rsp_perf_reader_rewind (RspPerfReader *self)
{
  rsp_ordered_queue_clear (&self->queue);
  rsp_ordered_queue_init (&self->queue);
  self->pos = self->data_start;
  self->scan_done = FALSE;
  self->released = 0;
  self->populated = 0;
  self->next_release = 0;
  self->flush_limit = 0;
  self->round_max = 0;
  self->next_flush = 0;
  self->last_delivered = 0;
  memset (&self->stats, 0, sizeof self->stats);
  self->stats.truncated = self->header_truncated;
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
reader_finish_open (RspPerfReader *self, GError **error)
{
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
      self->data = map;
      self->mapped = TRUE;
    }
  else
    self->data = (const guint8 *) "";
  return reader_finish_open (self, error);
}

RspPerfReader *
rsp_perf_reader_open_bytes (const guint8 *data, gsize size, GError **error)
{
  RspPerfReader *self = reader_new ();
  self->data = size > 0 ? data : (const guint8 *) "";
  self->size = size;
  return reader_finish_open (self, error);
}

void
rsp_perf_reader_free (RspPerfReader *self)
{
  if (self == NULL)
    return;
  if (self->mapped)
    munmap ((void *) self->data, self->size);
  if (self->fd >= 0)
    close (self->fd);
  g_clear_pointer (&self->ftrace, rsp_ftrace_stream_free);
  g_clear_pointer (&self->recording, rsp_recording_free);
  g_ptr_array_unref (self->evsels);
  g_hash_table_unref (self->id_to_evsel);
  g_free (self->id_table);
  g_clear_pointer (&self->aligned_slabs, g_ptr_array_unref);
  g_ptr_array_unref (self->warnings);
  if (self->tep != NULL)
    tep_free (self->tep);
  g_free (self->header.hostname);
  g_free (self->header.osrelease);
  g_free (self->header.perf_version);
  g_free (self->header.arch);
  g_free (self->header.clockid_name);
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

const RspEvsel *
rsp_perf_reader_get_evsel (RspPerfReader *self, guint index)
{
  g_return_val_if_fail (index < self->evsels->len, NULL);
  return g_ptr_array_index (self->evsels, index);
}

const RspEvsel *
rsp_perf_reader_find_evsel (RspPerfReader *self, const char *name)
{
  for (guint i = 0; i < self->evsels->len; i++)
    {
      const RspEvsel *evsel = g_ptr_array_index (self->evsels, i);
      if (g_strcmp0 (evsel->name, name) == 0)
        return evsel;
    }
  return NULL;
}

RspTepHandle *
rsp_perf_reader_get_tep (RspPerfReader *self)
{
  return self->tep;
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

const char *const *
rsp_perf_reader_warnings (RspPerfReader *self)
{
  return (const char *const *) self->warnings->pdata;
}
