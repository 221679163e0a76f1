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
 * Everything read from the file is untrusted: every length is checked
 * against the bytes that remain.
 */
#include "rsp-perf-reader.h"
#include "rsp-ftrace-reader.h"
#include "rsp-ftrace-section.h"

#include <glib/gi18n-lib.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "rsp-ordered-queue.h"
#include "rsp-trace-data.h"

G_DEFINE_QUARK (rsp-reader-error-quark, rsp_reader_error)

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" */
#define PERF_MAGIC2_SWAPPED 0x50455246494c4532ULL
#define PERF_FILE_HEADER_SIZE 104
#define PERF_PIPE_HEADER_SIZE 16

/* Feature bits of the file header (perf's util/header.h). */
enum {
  FEAT_TRACING_DATA = 1,
  FEAT_BUILD_ID = 2,
  FEAT_HOSTNAME = 3,
  FEAT_OSRELEASE = 4,
  FEAT_VERSION = 5,
  FEAT_ARCH = 6,
  FEAT_NRCPUS = 7,
  FEAT_CMDLINE = 11,
  FEAT_EVENT_DESC = 12,
  FEAT_CLOCKID = 23,
  FEAT_COMPRESSED = 27,
  FEAT_BITS = 256,
};

/* Without FINISHED_ROUND records (an unusual writer), the oldest half of the
 * queue is flushed when it reaches this size, as perf does. */
#define MAX_QUEUED_RECORDS (1u << 21)
/* Pages behind the oldest pending record are released in chunks this big. */
#define RELEASE_CHUNK (16u << 20)

#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)

typedef struct {
  guint64 offset, size;
} FileSection;

struct _RspPerfReader {
  int fd;
  const guint8 *data; /* whole file */
  gsize size;
  gboolean mapped;

  RspPerfHeader header;
  RspRecording *recording;

  GPtrArray *evsels;       /* RspEvsel* */
  GHashTable *id_to_evsel; /* u64 id -> index+1 */
  guint32 *id_table;       /* id - id_base -> index+1, when the ids are dense */
  guint64 id_base, id_span;
  gboolean all_have_identifier;
  struct tep_handle *tep;

  guint64 data_start, data_end;
  guint64 pos;             /* next record to scan */
  gboolean scan_done;
  guint64 released;        /* bytes released behind the queue */
  guint64 next_release;    /* scan position of the next release attempt */

  RspOrderedQueue queue;
  guint64 flush_limit;     /* records at or before this time are final */
  guint64 round_max;       /* newest time seen so far */
  guint64 next_flush;      /* round_max at the previous FINISHED_ROUND */
  guint64 last_delivered;
  gboolean ordering;       /* FALSE when records carry no time at all */

  RspReaderStats stats;
  GPtrArray *warnings;     /* char*, NULL-terminated view kept up to date */
  gboolean warned_unknown_id;
  gboolean warned_bad_record;
  gboolean header_truncated; /* found while parsing the header */
  RspFtraceStream *ftrace;   /* the recording's ftrace section, merged in by time */
  gboolean warned_ftrace;
  gboolean tracing_data_damaged;
};

static void
reader_warn (RspPerfReader *self, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
reader_warn (RspPerfReader *self, const char *format, ...)
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

static inline guint64
read_u64 (const guint8 *p)
{
  guint64 v;
  memcpy (&v, p, 8);
  return v;
}

static inline guint32
read_u32 (const guint8 *p)
{
  guint32 v;
  memcpy (&v, p, 4);
  return v;
}

/* ---------------------------------------------------------------- evsels */

static void
evsel_free (gpointer data)
{
  RspEvsel *evsel = data;
  g_free (evsel->name);
  g_free (evsel->ids);
  g_free (evsel);
}

static gsize
id_trailer_size (guint64 sample_type)
{
  gsize n = 0;
  if (sample_type & PERF_SAMPLE_TID)
    n += 8;
  if (sample_type & PERF_SAMPLE_TIME)
    n += 8;
  if (sample_type & PERF_SAMPLE_ID)
    n += 8;
  if (sample_type & PERF_SAMPLE_STREAM_ID)
    n += 8;
  if (sample_type & PERF_SAMPLE_CPU)
    n += 8;
  if (sample_type & PERF_SAMPLE_IDENTIFIER)
    n += 8;
  return n;
}

static const char *
software_event_name (guint64 config)
{
  switch (config)
    {
    case PERF_COUNT_SW_CPU_CLOCK: return "cpu-clock";
    case PERF_COUNT_SW_TASK_CLOCK: return "task-clock";
    case PERF_COUNT_SW_PAGE_FAULTS: return "page-faults";
    case PERF_COUNT_SW_CONTEXT_SWITCHES: return "context-switches";
    case PERF_COUNT_SW_CPU_MIGRATIONS: return "cpu-migrations";
    case PERF_COUNT_SW_PAGE_FAULTS_MIN: return "minor-faults";
    case PERF_COUNT_SW_PAGE_FAULTS_MAJ: return "major-faults";
    case PERF_COUNT_SW_DUMMY: return "dummy";
    default: return NULL;
    }
}

static char *
default_evsel_name (RspPerfReader *self, const RspEvsel *evsel)
{
  const struct perf_event_attr *attr = &evsel->attr;
  if (attr->type == PERF_TYPE_TRACEPOINT && evsel->tp != NULL)
    return g_strdup_printf ("%s:%s", evsel->tp->system, evsel->tp->name);
  if (attr->type == PERF_TYPE_SOFTWARE && software_event_name (attr->config) != NULL)
    return g_strdup (software_event_name (attr->config));
  if (attr->type == PERF_TYPE_HARDWARE && attr->config == PERF_COUNT_HW_CPU_CYCLES)
    return g_strdup ("cycles");
  (void) self;
  return g_strdup_printf ("event-%u:%" G_GUINT64_FORMAT, attr->type, (guint64) attr->config);
}

/* ---------------------------------------------------------------- header */

static gboolean
section_ok (const RspPerfReader *self, const FileSection *s)
{
  return s->offset <= self->size && s->size <= self->size - s->offset;
}

/* perf's do_write_string: u32 length (padded, NUL included), bytes. */
static char *
feature_string (const guint8 *p, gsize avail, gsize *consumed)
{
  if (avail < 4)
    return NULL;
  guint32 len = read_u32 (p);
  if (len > avail - 4)
    return NULL;
  *consumed = 4 + len;
  return g_strndup ((const char *) p + 4, len);
}

static void
parse_build_ids (RspPerfReader *self, const guint8 *p, gsize size)
{
  gsize pos = 0;
  while (size - pos >= sizeof (struct perf_event_header) + 4 + 24)
    {
      struct perf_event_header h;
      memcpy (&h, p + pos, sizeof h);
      if (h.size < sizeof h + 4 + 24 || h.size > size - pos)
        break;
      RspBuildId bid = { 0 };
      const guint8 *rec = p + pos + sizeof h;
      bid.pid = (gint32) read_u32 (rec);
      memcpy (bid.id, rec + 4, 20);
      bid.size = (h.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? MIN (rec[4 + 20], 20) : 20;
      guint8 cpumode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
      bid.kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
      gsize name_len = h.size - sizeof h - 4 - 24;
      g_autofree char *filename = g_strndup ((const char *) rec + 28, name_len);
      bid.filename = g_intern_string (filename);
      g_array_append_val (self->header.build_ids, bid);
      pos += h.size;
    }
}

static void
parse_event_desc (RspPerfReader *self, const guint8 *p, gsize size)
{
  if (size < 8)
    return;
  guint32 n_events = read_u32 (p);
  guint32 attr_size = read_u32 (p + 4);
  gsize pos = 8;
  for (guint32 i = 0; i < n_events; i++)
    {
      if (attr_size > size - pos || size - pos - attr_size < 4)
        return;
      pos += attr_size;
      guint32 n_ids = read_u32 (p + pos);
      pos += 4;
      gsize consumed = 0;
      g_autofree char *name = feature_string (p + pos, size - pos, &consumed);
      if (name == NULL)
        return;
      pos += consumed;
      if ((guint64) n_ids * 8 > size - pos)
        return;
      /* Names follow the attr order of the file. */
      if (i < self->evsels->len && name[0] != '\0')
        {
          RspEvsel *evsel = g_ptr_array_index (self->evsels, i);
          g_free (evsel->name);
          evsel->name = g_steal_pointer (&name);
        }
      pos += (gsize) n_ids * 8;
    }
}

static void
parse_features (RspPerfReader *self, const guint64 *bits, guint64 feature_table)
{
  guint n_features = 0;
  for (guint bit = 0; bit < FEAT_BITS; bit++)
    if (bits[bit / 64] & (1ULL << (bit % 64)))
      n_features++;
  if (feature_table > self->size || (guint64) n_features * 16 > self->size - feature_table)
    {
      reader_warn (self, _("the header's feature sections are missing (was perf record stopped abruptly?)"));
      return;
    }

  const guint8 *table = self->data + feature_table;
  guint index = 0;
  for (guint bit = 0; bit < FEAT_BITS; bit++)
    {
      if (!(bits[bit / 64] & (1ULL << (bit % 64))))
        continue;
      FileSection s = { read_u64 (table + 16 * index), read_u64 (table + 16 * index + 8) };
      index++;
      if (bit < 64)
        self->header.features |= 1ULL << bit;
      if (!section_ok (self, &s))
        {
          reader_warn (self, _("feature section %u points outside the file"), bit);
          continue;
        }
      const guint8 *p = self->data + s.offset;
      gsize consumed;
      switch (bit)
        {
        case FEAT_TRACING_DATA:
          {
            g_autoptr (GError) error = NULL;
            self->tep = rsp_trace_data_load (p, s.size, &error);
            if (self->tep == NULL)
              {
                reader_warn (self, _("%s; tracepoint fields cannot be decoded"), error->message);
                self->tracing_data_damaged = TRUE;
              }
            self->header.has_tracing_data = self->tep != NULL;
          }
          break;
        case FEAT_BUILD_ID:
          parse_build_ids (self, p, s.size);
          break;
        case FEAT_HOSTNAME:
          self->header.hostname = feature_string (p, s.size, &consumed);
          break;
        case FEAT_OSRELEASE:
          self->header.osrelease = feature_string (p, s.size, &consumed);
          break;
        case FEAT_VERSION:
          self->header.perf_version = feature_string (p, s.size, &consumed);
          break;
        case FEAT_ARCH:
          self->header.arch = feature_string (p, s.size, &consumed);
          break;
        case FEAT_NRCPUS:
          if (s.size >= 8)
            {
              self->header.nr_cpus_available = read_u32 (p);
              self->header.nr_cpus_online = read_u32 (p + 4);
            }
          break;
        case FEAT_CMDLINE:
          if (s.size >= 4)
            {
              guint32 n = read_u32 (p);
              gsize pos = 4;
              GPtrArray *argv = g_ptr_array_new ();
              for (guint32 i = 0; i < n && pos < s.size; i++)
                {
                  char *arg = feature_string (p + pos, s.size - pos, &consumed);
                  if (arg == NULL)
                    break;
                  g_ptr_array_add (argv, arg);
                  pos += consumed;
                }
              g_ptr_array_add (argv, NULL);
              self->header.cmdline = (char **) g_ptr_array_free (argv, FALSE);
            }
          break;
        case FEAT_EVENT_DESC:
          parse_event_desc (self, p, s.size);
          break;
        case FEAT_CLOCKID:
          if (s.size >= 8)
            {
              self->header.clockid = read_u64 (p);
              self->header.has_clockid = TRUE;
            }
          break;
        default:
          break;
        }
    }
}

static gboolean
parse_attrs (RspPerfReader *self, guint64 attr_size, const FileSection *attrs, GError **error)
{
  if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attrs->size % attr_size != 0 || !section_ok (self, attrs))
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT,
                   _("the event attribute table is damaged (entry size %llu)"), (unsigned long long) attr_size);
      return FALSE;
    }
  guint64 n = attrs->size / attr_size;
  if (n == 0)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT,
                   _("the recording declares no events"));
      return FALSE;
    }
  for (guint64 i = 0; i < n; i++)
    {
      const guint8 *p = self->data + attrs->offset + i * attr_size;
      RspEvsel *evsel = g_new0 (RspEvsel, 1);
      evsel->index = (guint) i;
      gsize copy = MIN (attr_size - 16, sizeof evsel->attr);
      memcpy (&evsel->attr, p, copy);
      evsel->attr.size = sizeof evsel->attr;
      g_ptr_array_add (self->evsels, evsel);

      FileSection ids = { read_u64 (p + attr_size - 16), read_u64 (p + attr_size - 8) };
      if (!section_ok (self, &ids) || ids.size % 8 != 0)
        {
          g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT,
                       _("the id table of event %llu points outside the file"), (unsigned long long) i);
          return FALSE;
        }
      evsel->n_ids = (guint) (ids.size / 8);
      evsel->ids = g_new (guint64, MAX (evsel->n_ids, 1));
      memcpy (evsel->ids, self->data + ids.offset, ids.size);
      for (guint k = 0; k < evsel->n_ids; k++)
        g_hash_table_insert (self->id_to_evsel, g_memdup2 (&evsel->ids[k], 8), GUINT_TO_POINTER (i + 1));
      evsel->id_trailer_size = evsel->attr.sample_id_all ? id_trailer_size (evsel->attr.sample_type) : 0;
    }
  return TRUE;
}

/* perf numbers ids densely: a flat table beats hashing every record. */
static void
build_id_table (RspPerfReader *self)
{
  guint64 lo = G_MAXUINT64, hi = 0;
  for (guint i = 0; i < self->evsels->len; i++)
    {
      const RspEvsel *evsel = g_ptr_array_index (self->evsels, i);
      for (guint k = 0; k < evsel->n_ids; k++)
        {
          lo = MIN (lo, evsel->ids[k]);
          hi = MAX (hi, evsel->ids[k]);
        }
    }
  if (lo > hi || hi - lo >= (1u << 20))
    return;
  self->id_base = lo;
  self->id_span = hi - lo + 1;
  self->id_table = g_new0 (guint32, self->id_span);
  for (guint i = 0; i < self->evsels->len; i++)
    {
      const RspEvsel *evsel = g_ptr_array_index (self->evsels, i);
      for (guint k = 0; k < evsel->n_ids; k++)
        self->id_table[evsel->ids[k] - lo] = i + 1;
    }
}

static void
finish_evsels (RspPerfReader *self)
{
  build_id_table (self);
  self->all_have_identifier = TRUE;
  gboolean any_time = FALSE;
  guint n_undecodable = 0;
  for (guint i = 0; i < self->evsels->len; i++)
    {
      RspEvsel *evsel = g_ptr_array_index (self->evsels, i);
      if (evsel->attr.type == PERF_TYPE_TRACEPOINT && self->tep != NULL)
        evsel->tp = tep_find_event (self->tep, (int) evsel->attr.config);
      if (evsel->name == NULL)
        evsel->name = default_evsel_name (self, evsel);
      if (!(evsel->attr.sample_type & PERF_SAMPLE_IDENTIFIER))
        self->all_have_identifier = FALSE;
      if (evsel->attr.sample_type & PERF_SAMPLE_TIME)
        any_time = TRUE;
      if (evsel->attr.type == PERF_TYPE_TRACEPOINT && evsel->tp == NULL && self->tep != NULL)
        reader_warn (self, _("tracepoint %s has no format in the recording; its fields cannot be decoded"),
                     evsel->name);
      if (evsel->attr.type == PERF_TYPE_TRACEPOINT && self->tep == NULL)
        n_undecodable++;
    }
  self->ordering = any_time;
  if (n_undecodable > 0 && !self->header.has_tracing_data && !self->tracing_data_damaged)
    reader_warn (self, _("the recording has no tracing data: the fields of its %u tracepoints cannot be decoded"),
                 n_undecodable);
}

/* RSP's tracefs instance's events (rsp-ftrace-reader.h): a damaged section
 * costs those events, never the recording. */
static void
open_ftrace_section (RspPerfReader *self)
{
  if (self->recording == NULL)
    return;
  for (guint i = 0; i < self->recording->sections->len; i++)
    {
      const RspSection *sec = &g_array_index (self->recording->sections, RspSection, i);
      if (strcmp (sec->name, RSP_SECTION_FTRACE) != 0)
        continue;
      g_autoptr (GError) error = NULL;
      self->ftrace = rsp_ftrace_stream_new (self->data + sec->offset, sec->size, self->evsels, &error);
      if (self->ftrace == NULL)
        reader_warn (self, _("%s: the events of RSP's tracefs instance (block completions, wake-ups from "
                             "interrupts and timers on idle CPUs) are lost; perf's events are read"),
                     error->message);
      return;
    }
}

static gboolean
parse_file (RspPerfReader *self, GError **error)
{
  if (self->size < 8)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_NOT_PERF,
                   _("the file is %s; it is not a perf.data recording"),
                   self->size == 0 ? _("empty") : _("too short"));
      return FALSE;
    }
  guint64 magic = read_u64 (self->data);
  if (magic == PERF_MAGIC2_SWAPPED)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_FOREIGN,
                   _("this perf.data was written on a big-endian machine; RSP reads little-endian recordings only"));
      return FALSE;
    }
  if (memcmp (self->data, "PERFFILE", 8) == 0)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_FOREIGN,
                   _("this is a version 1 perf.data from a very old perf; record again with a current perf"));
      return FALSE;
    }
  if (magic != PERF_MAGIC2)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_NOT_PERF,
                   _("not a perf.data recording (no PERFILE2 magic)"));
      return FALSE;
    }
  if (self->size < 16)
    goto truncated;
  guint64 header_size = read_u64 (self->data + 8);
  if (header_size == PERF_PIPE_HEADER_SIZE)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_FOREIGN,
                   _("this perf.data was written to a pipe (perf record -o -); record to a file with -o FILE"));
      return FALSE;
    }
  if (header_size < PERF_FILE_HEADER_SIZE)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT,
                   _("the perf.data header is damaged (size %llu)"), (unsigned long long) header_size);
      return FALSE;
    }
  if (self->size < PERF_FILE_HEADER_SIZE)
    goto truncated;

  const guint8 *h = self->data;
  guint64 attr_size = read_u64 (h + 16);
  FileSection attrs = { read_u64 (h + 24), read_u64 (h + 32) };
  FileSection data = { read_u64 (h + 40), read_u64 (h + 48) };
  guint64 feature_bits[4];
  memcpy (feature_bits, h + 72, sizeof feature_bits);

  if (attrs.offset > self->size || attrs.size > self->size - attrs.offset)
    goto truncated;
  if (!parse_attrs (self, attr_size, &attrs, error))
    return FALSE;

  if (feature_bits[FEAT_COMPRESSED / 64] & (1ULL << (FEAT_COMPRESSED % 64)))
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_FOREIGN,
                   _("this perf.data is compressed (perf record -z); record without -z, or convert it "
                   "with 'perf inject -i IN -o OUT'"));
      return FALSE;
    }

  /* The RSP trailer, if any, sits after everything perf wrote. */
  gsize perf_size = self->size;
  {
    g_autoptr (GError) trailer_error = NULL;
    self->recording = rsp_recording_parse (self->data, self->size, &trailer_error);
    if (self->recording != NULL)
      perf_size = self->recording->perf_data_size;
    else if (trailer_error != NULL)
      reader_warn (self, _("%s; reading the perf data without RSP metadata"), trailer_error->message);
  }

  if (data.offset < PERF_FILE_HEADER_SIZE || data.offset > perf_size)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_TRUNCATED,
                   _("the recording is truncated: its data section starts at byte %llu but the file has %llu bytes"),
                   (unsigned long long) data.offset, (unsigned long long) perf_size);
      return FALSE;
    }
  self->data_start = data.offset;
  if (data.size == 0 && perf_size > data.offset)
    {
      /* perf writes the final sizes when it exits; a killed perf leaves 0. */
      reader_warn (self, _("the data size in the header is 0 (perf record did not exit cleanly); "
                         "reading to the end of the file"));
      self->data_end = perf_size;
      self->header_truncated = TRUE;
    }
  else if (data.size > perf_size - data.offset)
    {
      reader_warn (self, _("the recording is truncated: %llu of %llu bytes of event data are present"),
                   (unsigned long long) (perf_size - data.offset), (unsigned long long) data.size);
      self->data_end = perf_size;
      self->header_truncated = TRUE;
    }
  else
    {
      self->data_end = data.offset + data.size;
      parse_features (self, feature_bits, self->data_end);
    }
  self->header.file_size = self->size;
  self->header.data_offset = self->data_start;
  self->header.data_size = self->data_end - self->data_start;
  finish_evsels (self);
  /* after perf's evsels are final: the instance's are appended to them */
  open_ftrace_section (self);
  return TRUE;

truncated:
  g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_TRUNCATED,
               _("the recording is truncated inside its header (%llu bytes)"), (unsigned long long) self->size);
  return FALSE;
}

/* ---------------------------------------------------------------- records */

static RspEvsel *
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

/* Which evsel a record belongs to, or NULL.  Uses PERF_SAMPLE_IDENTIFIER
 * (first word of a sample, last word of other records) when all evsels have
 * it; a file with a single evsel needs no id. */
static RspEvsel *
record_evsel (RspPerfReader *self, const struct perf_event_header *h, const guint8 *rec)
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
        id = read_u64 (rec + sizeof *h);
      else if (first->attr.sample_id_all)
        id = read_u64 (rec + h->size - 8);
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
      return evsel_for_id (self, read_u64 (rec + pos));
    }
  if (!first->attr.sample_id_all)
    return NULL;
  gsize back = 8; /* ID is followed by STREAM_ID, CPU, IDENTIFIER in the trailer */
  if (st & PERF_SAMPLE_STREAM_ID) back += 8;
  if (st & PERF_SAMPLE_CPU) back += 8;
  if (back > h->size - sizeof *h)
    return NULL;
  return evsel_for_id (self, read_u64 (rec + h->size - back));
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
      ev->pid = (gint32) read_u32 (p);
      ev->tid = (gint32) read_u32 (p + 4);
      p += 8;
    }
  if (st & PERF_SAMPLE_TIME)
    {
      ev->time = read_u64 (p);
      ev->has_time = TRUE;
      p += 8;
    }
  if (st & PERF_SAMPLE_ID)
    p += 8;
  if (st & PERF_SAMPLE_STREAM_ID)
    p += 8;
  if (st & PERF_SAMPLE_CPU)
    ev->cpu = (gint32) read_u32 (p);
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
  *out = read_u64 (s->p);
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

static gboolean
decode_sample (const RspEvsel *evsel, const guint8 *rec, gsize size, RspEvent *ev)
{
  Span s = { rec + sizeof (struct perf_event_header), rec + size };
  RspSample *smp = &ev->sample;
  const struct perf_event_attr *attr = &evsel->attr;
  guint64 st = attr->sample_type;
  guint64 v;

  if ((st & PERF_SAMPLE_IDENTIFIER) && !span_u64 (&s, &smp->id))
    return FALSE;
  if ((st & PERF_SAMPLE_IP) && !span_u64 (&s, &smp->ip))
    return FALSE;
  if (st & PERF_SAMPLE_TID)
    {
      if (!span_u64 (&s, &v))
        return FALSE;
      ev->pid = (gint32) (v & 0xffffffffu);
      ev->tid = (gint32) (v >> 32);
    }
  if (st & PERF_SAMPLE_TIME)
    {
      if (!span_u64 (&s, &ev->time))
        return FALSE;
      ev->has_time = TRUE;
    }
  if ((st & PERF_SAMPLE_ADDR) && !span_u64 (&s, &smp->addr))
    return FALSE;
  if ((st & PERF_SAMPLE_ID) && !span_u64 (&s, &smp->id))
    return FALSE;
  if ((st & PERF_SAMPLE_STREAM_ID) && !span_u64 (&s, &smp->stream_id))
    return FALSE;
  if (st & PERF_SAMPLE_CPU)
    {
      if (!span_u64 (&s, &v))
        return FALSE;
      ev->cpu = (gint32) (v & 0xffffffffu);
    }
  if ((st & PERF_SAMPLE_PERIOD) && !span_u64 (&s, &smp->period))
    return FALSE;
  if (st & PERF_SAMPLE_READ)
    {
      guint64 rf = attr->read_format;
      guint64 words;
      const guint8 *start = s.p;
      guint64 per_value = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
      guint64 extra = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
      if (rf & PERF_FORMAT_GROUP)
        {
          guint64 nr;
          if (!span_u64 (&s, &nr) || nr > (guint64) (s.end - s.p) / 8)
            return FALSE;
          words = 1 + extra + nr * per_value;
        }
      else
        words = per_value + extra;
      s.p = start;
      if (words > (guint64) (s.end - s.p) / 8)
        return FALSE;
      smp->read_values = (const guint64 *) s.p;
      smp->n_read_values = (guint) words;
      s.p += words * 8;
    }
  if (st & PERF_SAMPLE_CALLCHAIN)
    {
      if (!span_u64 (&s, &smp->n_callchain) || smp->n_callchain > (guint64) (s.end - s.p) / 8)
        return FALSE;
      smp->callchain = (const guint64 *) s.p;
      s.p += smp->n_callchain * 8;
    }
  if (st & PERF_SAMPLE_RAW)
    {
      if (s.end - s.p < 4)
        return FALSE;
      smp->raw_size = read_u32 (s.p);
      smp->raw = s.p + 4;
      /* u32 size + data is padded to 8 bytes */
      if (!span_skip (&s, ((guint64) smp->raw_size + 4 + 7) & ~7ULL))
        return FALSE;
    }
  if (st & PERF_SAMPLE_BRANCH_STACK)
    {
      if (!span_u64 (&s, &smp->n_branches))
        return FALSE;
      if ((attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) && !span_skip (&s, 8))
        return FALSE;
      if (smp->n_branches > (guint64) (s.end - s.p) / 24)
        return FALSE;
      smp->branches = (const guint64 *) s.p;
      s.p += smp->n_branches * 24;
    }
  if (st & PERF_SAMPLE_REGS_USER)
    {
      if (!span_u64 (&s, &smp->user_regs_abi))
        return FALSE;
      if (smp->user_regs_abi != PERF_SAMPLE_REGS_ABI_NONE)
        {
          smp->user_regs_mask = attr->sample_regs_user;
          guint n = (guint) __builtin_popcountll (attr->sample_regs_user);
          smp->user_regs = (const guint64 *) s.p;
          if (!span_skip (&s, (guint64) n * 8))
            return FALSE;
        }
    }
  if (st & PERF_SAMPLE_STACK_USER)
    {
      if (!span_u64 (&s, &smp->user_stack_size))
        return FALSE;
      smp->user_stack = s.p;
      if (!span_skip (&s, smp->user_stack_size))
        return FALSE;
      if (smp->user_stack_size > 0)
        {
          if (!span_u64 (&s, &smp->user_stack_dyn_size))
            return FALSE;
          /* only dyn_size bytes were really copied */
          smp->user_stack_size = MIN (smp->user_stack_size, smp->user_stack_dyn_size);
        }
    }
  if ((st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) && !span_u64 (&s, &smp->weight))
    return FALSE;
  if ((st & PERF_SAMPLE_DATA_SRC) && !span_u64 (&s, &smp->data_src))
    return FALSE;
  if ((st & PERF_SAMPLE_TRANSACTION) && !span_u64 (&s, &smp->transaction))
    return FALSE;
  if (st & PERF_SAMPLE_REGS_INTR)
    {
      if (!span_u64 (&s, &smp->intr_regs_abi))
        return FALSE;
      if (smp->intr_regs_abi != PERF_SAMPLE_REGS_ABI_NONE)
        {
          guint n = (guint) __builtin_popcountll (attr->sample_regs_intr);
          smp->intr_regs = (const guint64 *) s.p;
          if (!span_skip (&s, (guint64) n * 8))
            return FALSE;
        }
    }
  if ((st & PERF_SAMPLE_PHYS_ADDR) && !span_u64 (&s, &smp->phys_addr))
    return FALSE;
  if ((st & PERF_SAMPLE_CGROUP) && !span_u64 (&s, &smp->cgroup))
    return FALSE;
  if ((st & PERF_SAMPLE_DATA_PAGE_SIZE) && !span_u64 (&s, &smp->data_page_size))
    return FALSE;
  if ((st & PERF_SAMPLE_CODE_PAGE_SIZE) && !span_u64 (&s, &smp->code_page_size))
    return FALSE;
  if (st & PERF_SAMPLE_AUX)
    {
      if (!span_u64 (&s, &smp->aux_size))
        return FALSE;
      smp->aux = s.p;
      if (!span_skip (&s, smp->aux_size))
        return FALSE;
    }
  return TRUE;
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
  ev->u.mmap.pid = (gint32) read_u32 (body);
  ev->u.mmap.tid = (gint32) read_u32 (body + 4);
  ev->u.mmap.start = read_u64 (body + 8);
  ev->u.mmap.len = read_u64 (body + 16);
  ev->u.mmap.pgoff = read_u64 (body + 24);
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
          ev->u.mmap.maj = read_u32 (body + 32);
          ev->u.mmap.min = read_u32 (body + 36);
          ev->u.mmap.ino = read_u64 (body + 40);
          ev->u.mmap.ino_generation = read_u64 (body + 48);
        }
      ev->u.mmap.prot = read_u32 (body + 56);
      ev->u.mmap.flags = read_u32 (body + 60);
      ev->u.mmap.filename = bounded_string (body + 64, end);
      return ev->u.mmap.filename != NULL;
    case PERF_RECORD_COMM:
      if (len < 8)
        return FALSE;
      ev->u.comm.pid = (gint32) read_u32 (body);
      ev->u.comm.tid = (gint32) read_u32 (body + 4);
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
      ev->u.fork.pid = (gint32) read_u32 (body);
      ev->u.fork.ppid = (gint32) read_u32 (body + 4);
      ev->u.fork.tid = (gint32) read_u32 (body + 8);
      ev->u.fork.ptid = (gint32) read_u32 (body + 12);
      ev->u.fork.time = read_u64 (body + 16);
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
      ev->u.lost.id = read_u64 (body);
      ev->u.lost.lost = read_u64 (body + 8);
      return TRUE;
    case PERF_RECORD_LOST_SAMPLES:
      if (len < 8)
        return FALSE;
      ev->u.lost.lost = read_u64 (body);
      return TRUE;
    default:
      return TRUE;
    }
}

/* Decodes the record at OFFSET into EV.  FALSE when malformed. */
static gboolean
decode_record (RspPerfReader *self, guint64 offset, RspEvsel *evsel, RspEvent *ev)
{
  const guint8 *rec = self->data + offset;
  const struct perf_event_header *h = (const struct perf_event_header *) rec;

  memset (ev, 0, sizeof *ev);
  ev->type = h->type;
  ev->misc = h->misc;
  ev->size = h->size;
  ev->header = h;
  ev->file_offset = offset;
  ev->evsel = evsel;
  ev->pid = ev->tid = -1;
  ev->cpu = -1;
  if (h->type == PERF_RECORD_SAMPLE)
    {
      if (evsel == NULL)
        return FALSE;
      return decode_sample (evsel, rec, h->size, ev);
    }
  return decode_other (evsel, rec, h->size, ev);
}

/* Reads only the time and CPU of a record (for ordering); CPU is -1 when
 * the record does not carry it. */
static gboolean
record_time (const RspEvsel *evsel, const guint8 *rec, const struct perf_event_header *h, guint64 *time,
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
      gsize pos = sizeof *h;
      if (st & PERF_SAMPLE_IDENTIFIER) pos += 8;
      if (st & PERF_SAMPLE_IP) pos += 8;
      if (st & PERF_SAMPLE_TID) pos += 8;
      if (pos + 8 > h->size)
        return FALSE;
      *time = read_u64 (rec + pos);
      pos += 8;
      if (st & PERF_SAMPLE_CPU)
        {
          if (st & PERF_SAMPLE_ADDR) pos += 8;
          if (st & PERF_SAMPLE_ID) pos += 8;
          if (st & PERF_SAMPLE_STREAM_ID) pos += 8;
          if (pos + 8 <= h->size)
            *cpu = (gint32) read_u32 (rec + pos);
        }
      return TRUE;
    }
  if (!evsel->attr.sample_id_all || evsel->id_trailer_size > h->size - sizeof *h)
    return FALSE;
  gsize pos = h->size - evsel->id_trailer_size;
  if (st & PERF_SAMPLE_TID) pos += 8;
  *time = read_u64 (rec + pos);
  pos += 8;
  if (st & PERF_SAMPLE_CPU)
    {
      if (st & PERF_SAMPLE_ID) pos += 8;
      if (st & PERF_SAMPLE_STREAM_ID) pos += 8;
      *cpu = (gint32) read_u32 (rec + pos);
    }
  return TRUE;
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
          reader_warn (self, _("the last %llu bytes of event data are a cut-off record"),
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
      reader_warn (self, _("a damaged record at byte %llu (size %u); the %llu bytes after it are unreadable"),
                   (unsigned long long) self->pos, h.size, (unsigned long long) (self->data_end - self->pos));
      self->stats.bad_records++;
      self->stats.truncated = TRUE;
      return SCAN_END;
    }
  if (h.size > self->data_end - self->pos)
    {
      reader_warn (self, _("the recording ends inside a record at byte %llu; it was cut off"),
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

  RspEvsel *evsel = record_evsel (self, &h, rec);
  if (evsel == NULL && h.type == PERF_RECORD_SAMPLE)
    {
      self->stats.unknown_ids++;
      if (!self->warned_unknown_id)
        reader_warn (self, _("samples with an id that matches no event were skipped"));
      self->warned_unknown_id = TRUE;
      return SCAN_SKIPPED;
    }
  guint64 time;
  gint32 cpu;
  if (self->ordering && record_time (evsel, rec, &h, &time, &cpu))
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
  if (!decode_record (self, offset, evsel, event))
    {
      self->stats.bad_records++;
      if (!self->warned_bad_record)
        reader_warn (self, _("malformed %s record at byte %llu skipped (and any later ones)"),
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

gboolean
rsp_perf_reader_next (RspPerfReader *self, RspEvent *event)
{
  g_return_val_if_fail (self != NULL, FALSE);
  if (self->ftrace == NULL)
    return perf_next (self, event);
  if (rsp_ftrace_stream_next (self->ftrace, (RspFtracePullFunc) perf_next, self, event))
    return TRUE;
  /* the end: say once what the instance's section could not give */
  const RspFtraceStats *fs = rsp_ftrace_stream_get_stats (self->ftrace);
  if (!self->warned_ftrace
      && (fs->bad_subbuffers > 0 || fs->missed_events > 0 || fs->unknown_ids > 0 || fs->lost_cpus > 0))
    {
      self->warned_ftrace = TRUE;
      if (fs->lost_cpus > 0)
        reader_warn (self, _("the ftrace section is cut or damaged in the buffers of %u of its CPUs: the events of "
                             "RSP's tracefs instance on them are lost, the other CPUs' are read"),
                     fs->lost_cpus);
      if (fs->bad_subbuffers > 0)
        reader_warn (self, _("%llu of %llu sub-buffers in the ftrace section are damaged: the events of RSP's "
                             "tracefs instance in them are lost, the rest is read"),
                     (unsigned long long) fs->bad_subbuffers, (unsigned long long) fs->subbuffers);
      if (fs->missed_events > 0)
        reader_warn (self, _("RSP's tracefs instance lost events before %llu of its sub-buffers (its buffer "
                             "filled during the recording): the analysis infers what is missing"),
                     (unsigned long long) fs->missed_events);
      if (fs->unknown_ids > 0)
        reader_warn (self, _("%llu events in the ftrace section have no stored format and are skipped"),
                     (unsigned long long) fs->unknown_ids);
    }
  return FALSE;
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

static RspPerfReader *
reader_new (void)
{
  RspPerfReader *self = g_new0 (RspPerfReader, 1);
  self->fd = -1;
  self->evsels = g_ptr_array_new_with_free_func (evsel_free);
  self->id_to_evsel = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->warnings, NULL);
  self->header.build_ids = g_array_new (FALSE, TRUE, sizeof (RspBuildId));
  rsp_ordered_queue_init (&self->queue);
  return self;
}

static RspPerfReader *
reader_finish_open (RspPerfReader *self, GError **error)
{
  if (!parse_file (self, error))
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
      guint32 loc = read_u32 (raw + offset);
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
tracepoint_payload_ok (const RspEvent *event)
{
  const RspTepEvent *tp = event->evsel->tp;
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
          guint32 loc = read_u32 (raw + field->offset);
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
  if (!tracepoint_payload_ok (event))
    {
      g_string_append (out, "[damaged tracepoint payload]");
      return FALSE;
    }
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
  struct tep_event *tp = (struct tep_event *) event->evsel->tp;
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
