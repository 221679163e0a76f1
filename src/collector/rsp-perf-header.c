/* rsp-perf-header.c — the perf.data file header: magic and version, the
 * event attributes and their ids (the evsels), the feature sections, the
 * RSP trailer and the ftrace section it names.  See
 * rsp-perf-reader-private.h for the other parts of the reader.
 */
#include "rsp-perf-reader-private.h"

#include <glib/gi18n-lib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "rsp-bytes.h"
#include "rsp-ftrace-section.h"
#include "rsp-trace-data.h"

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
  FEAT_GROUP_DESC = 17,
  FEAT_CLOCKID = 23,
  FEAT_COMPRESSED = 27,
  FEAT_CLOCK_DATA = 29,
  FEAT_BITS = 256,
};

#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)

typedef struct {
  guint64 offset, size;
} FileSection;

/* ---------------------------------------------------------------- evsels */

void
rsp_perf_evsel_free (gpointer data)
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
  guint32 len = rsp_read_u32 (p);
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
      bid.pid = (gint32) rsp_read_u32 (rec);
      memcpy (bid.id, rec + 4, 20);
      bid.size = (h.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? MIN (rec[4 + 20], 20) : 20;
      guint8 cpumode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
      bid.kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
      gsize name_len = h.size - sizeof h - 4 - 24;
      bid.filename = g_strndup ((const char *) rec + 28, name_len);
      g_array_append_val (self->header.build_ids, bid);
      pos += h.size;
    }
}

/* perf's groups (`{a,b}`): u32 count, then per group its name, the index
 * of its leader and its number of members, the leader included; the
 * members follow the leader in the attr order. */
static void
parse_group_desc (RspPerfReader *self, const guint8 *p, gsize size)
{
  if (size < 4)
    return;
  guint32 n_groups = rsp_read_u32 (p);
  gsize pos = 4;
  for (guint32 i = 0; i < n_groups; i++)
    {
      gsize consumed = 0;
      g_autofree char *name = feature_string (p + pos, size - pos, &consumed);
      if (name == NULL || size - pos - consumed < 8)
        return;
      pos += consumed;
      guint32 leader = rsp_read_u32 (p + pos);
      guint32 n_members = rsp_read_u32 (p + pos + 4);
      pos += 8;
      if (leader >= self->evsels->len || n_members > self->evsels->len - leader)
        continue;
      for (guint32 k = 1; k < n_members; k++)
        ((RspEvsel *) g_ptr_array_index (self->evsels, leader + k))->leader = leader;
    }
}

static void
parse_event_desc (RspPerfReader *self, const guint8 *p, gsize size)
{
  if (size < 8)
    return;
  guint32 n_events = rsp_read_u32 (p);
  guint32 attr_size = rsp_read_u32 (p + 4);
  gsize pos = 8;
  for (guint32 i = 0; i < n_events; i++)
    {
      if (attr_size > size - pos || size - pos - attr_size < 4)
        return;
      pos += attr_size;
      guint32 n_ids = rsp_read_u32 (p + pos);
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
      rsp_perf_reader_warn (self, _("the header's feature sections are missing (was perf record stopped abruptly?)"));
      return;
    }

  const guint8 *table = self->data + feature_table;
  guint index = 0;
  for (guint bit = 0; bit < FEAT_BITS; bit++)
    {
      if (!(bits[bit / 64] & (1ULL << (bit % 64))))
        continue;
      FileSection s = { rsp_read_u64 (table + 16 * index), rsp_read_u64 (table + 16 * index + 8) };
      index++;
      if (bit < 64)
        self->header.features |= 1ULL << bit;
      if (!section_ok (self, &s))
        {
          rsp_perf_reader_warn (self, _("feature section %u points outside the file"), bit);
          continue;
        }
      const guint8 *p = self->data + s.offset;
      gsize consumed;
      switch (bit)
        {
        case FEAT_TRACING_DATA:
          {
            g_autoptr (GError) error = NULL;
            /* a reader that never prints takes the formats' fields alone
             * where it can (rsp-tep-fields.h) */
            self->tep = self->no_print ? rsp_trace_data_load_fields (p, s.size, &self->tp_events, &error)
                                       : rsp_trace_data_load (p, s.size, TRUE, &error);
            if (self->tep == NULL)
              {
                rsp_perf_reader_warn (self, _("%s; tracepoint fields cannot be decoded"), error->message);
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
              self->header.nr_cpus_available = rsp_read_u32 (p);
              self->header.nr_cpus_online = rsp_read_u32 (p + 4);
            }
          break;
        case FEAT_CMDLINE:
          if (s.size >= 4)
            {
              guint32 n = rsp_read_u32 (p);
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
        case FEAT_GROUP_DESC:
          parse_group_desc (self, p, s.size);
          break;
        case FEAT_CLOCKID:
          /* not the clock's id, despite its name: its resolution (perf's
           * write_clockid() writes env.clock.clockid_res_ns) */
          if (s.size >= 8)
            {
              self->header.clock_res_ns = rsp_read_u64 (p);
              self->header.has_clock_res = TRUE;
            }
          break;
        case FEAT_CLOCK_DATA:
          /* version (1), the clock's id, then the wall clock and that
           * clock read at one moment */
          if (s.size >= 8 && rsp_read_u32 (p) == 1) /* perf reads version 1 only */
            {
              self->header.clockid = rsp_read_u32 (p + 4);
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
      evsel->leader = (guint) i;
      gsize copy = MIN (attr_size - 16, sizeof evsel->attr);
      memcpy (&evsel->attr, p, copy);
      evsel->attr.size = sizeof evsel->attr;
      g_ptr_array_add (self->evsels, evsel);

      FileSection ids = { rsp_read_u64 (p + attr_size - 16), rsp_read_u64 (p + attr_size - 8) };
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
      rsp_perf_evsel_sample_offsets (evsel);
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

/* PERF_RECORD_ID_INDEX, which perf record writes among its own records at
 * the start of the data (before the kernel's): for each sample id, the
 * CPU and thread its counter counts on.  The ids of counters that count
 * every thread of a CPU (perf record -a, -C: thread -1) go into
 * cpu_wide_ids: perf 6.1 sets inherit on those too, and their values are
 * not per thread (rsp-perf-reader.c, read_split_next()). */
static void
read_id_index (RspPerfReader *self)
{
  guint64 pos = self->data_start;
  for (guint n = 0; n < 256 && pos + sizeof (struct perf_event_header) <= self->data_end; n++)
    {
      struct perf_event_header h;
      memcpy (&h, self->data + pos, sizeof h);
      if (h.type < 64 || h.size < sizeof h || h.size > self->data_end - pos)
        return; /* the kernel's records have begun (or the data is damaged: the scan says so) */
      if (h.type == RSP_RECORD_ID_INDEX && h.size >= sizeof h + 8)
        {
          const guint8 *p = self->data + pos + sizeof h;
          guint64 nr = MIN (rsp_read_u64 (p), (guint64) (h.size - sizeof h - 8) / 32);
          for (guint64 i = 0; i < nr; i++)
            {
              /* id, idx, cpu, tid */
              const guint8 *e = p + 8 + i * 32;
              if ((gint64) rsp_read_u64 (e + 24) == -1)
                {
                  if (self->cpu_wide_ids == NULL)
                    self->cpu_wide_ids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
                  guint64 id = rsp_read_u64 (e);
                  g_hash_table_add (self->cpu_wide_ids, g_memdup2 (&id, sizeof id));
                }
            }
        }
      pos += h.size;
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
        evsel->tp = rsp_trace_data_find_event (self->tep, self->tp_events, (int) evsel->attr.config);
      if (evsel->name == NULL)
        evsel->name = default_evsel_name (self, evsel);
      if (!(evsel->attr.sample_type & PERF_SAMPLE_IDENTIFIER))
        self->all_have_identifier = FALSE;
      if (evsel->attr.sample_type & PERF_SAMPLE_TIME)
        any_time = TRUE;
      if (evsel->attr.sample_type & PERF_SAMPLE_READ)
        self->reads_counters = TRUE;
      if (evsel->attr.type == PERF_TYPE_TRACEPOINT && evsel->tp == NULL && self->tep != NULL)
        rsp_perf_reader_warn (self, _("tracepoint %s has no format in the recording; its fields cannot be decoded"),
                     evsel->name);
      if (evsel->attr.type == PERF_TYPE_TRACEPOINT && self->tep == NULL)
        n_undecodable++;
    }
  self->ordering = any_time;
  if (self->reads_counters) /* only the read split asks which counters are a CPU's */
    read_id_index (self);
  /* PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8, Intel's LBR event logging):
   * when an event of a group asks for it, the branch stacks of all its
   * events end with a counter word per branch, as perf's
   * evsel__has_branch_counters() reads them */
  for (guint i = 0; i < self->evsels->len; i++)
    {
      RspEvsel *evsel = g_ptr_array_index (self->evsels, i);
      if (evsel->attr.branch_sample_type & RSP_SAMPLE_BRANCH_COUNTERS)
        ((RspEvsel *) g_ptr_array_index (self->evsels, evsel->leader))->branch_counters = TRUE;
    }
  for (guint i = 0; i < self->evsels->len; i++)
    {
      RspEvsel *evsel = g_ptr_array_index (self->evsels, i);
      evsel->branch_counters = ((RspEvsel *) g_ptr_array_index (self->evsels, evsel->leader))->branch_counters;
    }
  if (n_undecodable > 0 && !self->header.has_tracing_data && !self->tracing_data_damaged)
    rsp_perf_reader_warn (self, _("the recording has no tracing data: the fields of its %u tracepoints cannot be decoded"),
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
      self->ftrace = rsp_ftrace_stream_new_in_place (self->data + sec->offset, sec->size, self->evsels,
                                                     !self->no_print, &error);
      if (self->ftrace != NULL && self->mapped)
        rsp_ftrace_stream_set_file_mapped (self->ftrace);
      if (self->ftrace == NULL)
        rsp_perf_reader_warn (self, _("%s: the events of RSP's tracefs instance (block completions, wake-ups from "
                             "interrupts and timers on idle CPUs) are lost; perf's events are read"),
                     error->message);
      return;
    }
}

static gboolean
truncated_header (RspPerfReader *self, GError **error)
{
  g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_TRUNCATED,
               _("the recording is truncated inside its header (%llu bytes)"), (unsigned long long) self->size);
  return FALSE;
}

/* The magic and the header size: a perf.data file RSP can read, or one
 * clear error saying what it is instead. */
static gboolean
check_magic (RspPerfReader *self, GError **error)
{
  if (self->size < 8)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_NOT_PERF,
                   _("the file is %s; it is not a perf.data recording"),
                   self->size == 0 ? _("empty") : _("too short"));
      return FALSE;
    }
  guint64 magic = rsp_read_u64 (self->data);
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
    return truncated_header (self, error);
  guint64 header_size = rsp_read_u64 (self->data + 8);
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
    return truncated_header (self, error);
  return TRUE;
}

gboolean
rsp_perf_header_parse (RspPerfReader *self, GError **error)
{
  if (!check_magic (self, error))
    return FALSE;
  const guint8 *h = self->data;
  guint64 attr_size = rsp_read_u64 (h + 16);
  FileSection attrs = { rsp_read_u64 (h + 24), rsp_read_u64 (h + 32) };
  FileSection data = { rsp_read_u64 (h + 40), rsp_read_u64 (h + 48) };
  guint64 feature_bits[4];
  memcpy (feature_bits, h + 72, sizeof feature_bits);

  if (attrs.offset > self->size || attrs.size > self->size - attrs.offset)
    return truncated_header (self, error);
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
      rsp_perf_reader_warn (self, _("%s; reading the perf data without RSP metadata"), trailer_error->message);
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
      rsp_perf_reader_warn (self, _("the data size in the header is 0 (perf record did not exit cleanly); "
                         "reading to the end of the file"));
      self->data_end = perf_size;
      self->header_truncated = TRUE;
    }
  else if (data.size > perf_size - data.offset)
    {
      rsp_perf_reader_warn (self, _("the recording is truncated: %llu of %llu bytes of event data are present"),
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
}
