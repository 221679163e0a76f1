/* rsp-perf-reader-private.h — what the parts of the perf.data reader share.
 *
 *   rsp-perf-reader.c   the reader (rsp-perf-reader.h): the file opened and
 *                       mapped, records scanned in file order, put in time
 *                       order through the queue, delivered; the accessors
 *   rsp-perf-header.c   the file header: the magic, the event attributes
 *                       (evsels) and their ids, the feature sections
 *                       (tracing data, build ids, event names, host), the
 *                       RSP trailer and the ftrace section it names
 *   rsp-perf-decode.c   one record: which evsel it belongs to, its time and
 *                       CPU for ordering, its full decoding into an RspEvent
 *   rsp-event-fields.c  tracepoint fields of a decoded sample, read and
 *                       printed
 *
 * Everything read from the file is untrusted: every length is checked
 * against the bytes that remain.
 */
#pragma once

#include "rsp-perf-reader.h"
#include "rsp-ftrace-reader.h"
#include "rsp-ordered-queue.h"

G_BEGIN_DECLS

/* The scanning thread (rsp_perf_reader_set_threads): scanning and time
 * ordering run there, and it hands the records to deliver, in order, to
 * the reading thread, which decodes them.  See rsp-perf-reader.c. */
typedef struct _RspScanThread RspScanThread;

struct _RspPerfReader {
  int fd;
  const guint8 *data; /* whole file */
  gsize size;
  gboolean mapped;
  /* a record that is not 8-aligned in the file (perf inject -b writes
   * build ids of 100 bytes, and the kernel's records after one sit 4 bytes
   * off) is decoded from a copy here, so that its u64 fields and callchain
   * are aligned.  The copies go in slabs; when a new one is needed, every
   * slab no event still held points into is freed (the merge with the
   * ftrace section holds decoded events a while,
   * rsp_perf_reader_aligned_room()), so memory stays bounded. */
  GPtrArray *aligned_slabs;  /* RspAlignedSlab*, the last one being filled */
  gsize aligned_used;        /* words used in the last slab */
  gsize aligned_slab_words;  /* a new slab's size (0: ALIGNED_SLAB_WORDS) */
  gsize aligned_bytes_peak;  /* the most bytes in slabs at once */

  RspPerfHeader header;
  RspRecording *recording;

  GPtrArray *evsels;       /* RspEvsel* */
  GHashTable *id_to_evsel; /* u64 id -> index+1 */
  guint32 *id_table;       /* id - id_base -> index+1, when the ids are dense */
  guint64 id_base, id_span;
  gboolean all_have_identifier;
  struct tep_handle *tep;
  GPtrArray *tp_events;    /* perf's formats made from their fields alone (rsp_trace_data_load_fields()), or NULL */
  gboolean no_print;       /* RSP_PERF_READER_NO_PRINT: formats read without their print fmt */

  guint64 data_start, data_end;
  gboolean ordering;       /* FALSE when records carry no time at all */
  guint64 last_delivered;

  RspReaderStats stats;
  RspReaderStats *scan_stats; /* what scanning counts: &stats, or the scanning thread's own */
  guint threads;           /* rsp_perf_reader_set_threads() */
  guint32 scan_ring_size;  /* items handed over at most at once; 0: the default */
  guint64 scan_ahead_bytes; /* their records' bytes at most; 0: the default */
  RspScanThread *scanner;  /* running when threads > 1 and perf's stream is being read */
  gboolean scanner_done;   /* the scanning thread handed over its last record */
  GPtrArray *warnings;     /* char*, NULL-terminated view kept up to date */
  gboolean warned_bad_record;
  gboolean warned_unknown_id;
  gboolean header_truncated; /* found while parsing the header */
  RspFtraceStream *ftrace;   /* the recording's ftrace section, merged in by time */
  RspEvent next;             /* what rsp_perf_reader_next_ref() returns without an ftrace section */
  /* a sample that reads counters (PERF_SAMPLE_READ), delivered as one
   * event per value (read_split_next()) */
  gboolean reads_counters;   /* an evsel's samples read counters (PERF_SAMPLE_READ) */
  RspEvent read_sample;
  gboolean read_active;      /* READ_SAMPLE's events are being delivered */
  guint read_next, read_n;   /* the next value to deliver, of READ_N */
  gboolean read_own_done;    /* the value of the sample's own event went */
  GHashTable *read_last;     /* ReadKey -> the value it read last; NULL until a sample reads one */
  GHashTable *cpu_wide_ids;  /* u64 ids of counters of every thread on a CPU (PERF_RECORD_ID_INDEX), or NULL */
  gboolean warned_ftrace;
  gboolean tracing_data_damaged;

  /* Scanning's own state, changed for every record scanned: with a
   * scanning thread, only that thread touches it, so it sits on cache
   * lines of its own (the padding keeps the reading thread's fields off
   * them: sharing a line cost that thread a third of its speed). */
  char pad_before_scan[64];
  guint64 pos;             /* next record to scan */
  gboolean scan_done;
  guint64 released;        /* bytes released behind the queue */
  guint64 next_release;    /* scan position of the next release attempt */
  guint64 populated;       /* the file is mapped ahead up to here (populate_ahead) */
  guint64 prefetched;      /* cache lines are asked for up to here (scan_one) */
  gboolean populate_failed; /* the kernel has no MADV_POPULATE_READ */
  RspOrderedQueue queue;
  guint64 flush_limit;     /* records at or before this time are final */
  guint64 round_max;       /* newest time seen so far */
  guint64 next_flush;      /* round_max at the previous FINISHED_ROUND */
  char pad_after_scan[64];
};

/* The scanning thread's ring, in records (a power of two, >= 2), and how
 * many bytes of records it hands over ahead at most (0: the default);
 * tests use small ones to make both threads wait often. */
void rsp_perf_reader_set_scan_ring (RspPerfReader *self, guint32 size, guint64 ahead_bytes);

/* Adds a warning rsp_perf_reader_warnings() returns. */
void rsp_perf_reader_warn (RspPerfReader *self, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* rsp-perf-header.c */
void rsp_perf_evsel_free (gpointer evsel);
/* Reads the header of the file in self->data: fills self->header, the
 * evsels, the tep handle, the data section's bounds, the RSP trailer and
 * the ftrace stream.  FALSE with ERROR set when the file cannot be read. */
gboolean rsp_perf_header_parse (RspPerfReader *self, GError **error);

/* rsp-perf-decode.c */
/* The counter values a sample read (PERF_SAMPLE_READ, all there:
 * rsp_perf_sample_decode() checked): how many, and the I-th's value and
 * id (FALSE, ID 0: READ_FORMAT has no ids). */
guint rsp_read_values_n (guint64 read_format, const guint64 *values);
gboolean rsp_read_value (guint64 read_format, const guint64 *values, guint i, guint64 *value, guint64 *id);
/* The evsel of sample id ID, or NULL. */
RspEvsel *rsp_perf_evsel_for_id (RspPerfReader *self, guint64 id);
/* Which evsel the record REC (header H) belongs to, or NULL. */
RspEvsel *rsp_perf_record_evsel (RspPerfReader *self, const struct perf_event_header *h, const guint8 *rec);
/* The time and CPU of a record, read without decoding it; CPU is -1 when
 * the record does not carry it.  FALSE when it carries no time. */
gboolean rsp_perf_record_time (const RspEvsel *evsel, const guint8 *rec, const struct perf_event_header *h,
                               guint64 *time, gint32 *cpu);
/* Where EVSEL's samples hold their time and CPU (sample_time_at,
 * sample_cpu_at) and, for a sample of fixed-size fields with at most a
 * callchain and a payload after them, every field (sample_fixed_end and
 * the offsets after it). */
void rsp_perf_evsel_sample_offsets (RspEvsel *evsel);
/* Decodes a PERF_RECORD_SAMPLE of EVSEL (REC, SIZE bytes, 8-aligned, header
 * included) into EV, which the caller cleared.  FALSE when it is
 * malformed.  The direct read where EVSEL's layout allows it, else the
 * general one; both give the same event (test /perf-decode/direct). */
gboolean rsp_perf_sample_decode (const RspEvsel *evsel, const guint8 *rec, gsize size, RspEvent *ev);
/* Decodes the record at OFFSET into EV.  FALSE when it is malformed. */
gboolean rsp_perf_record_decode (RspPerfReader *self, guint64 offset, RspEvsel *evsel, RspEvent *ev);

/* A slab of aligned copies of records (rsp_perf_record_decode()). */
typedef struct {
  gsize words;
  guint64 data[];
} RspAlignedSlab;
#define ALIGNED_SLAB_WORDS 8192
/* Room for an aligned copy of a record of WORDS words: in the last slab,
 * else in a new one, made after every slab that no event the merge holds
 * points into (rsp_ftrace_stream_foreach_held()) is freed. */
guint64 *rsp_perf_reader_aligned_room (RspPerfReader *self, gsize words);
/* For the tests: the size of the slabs made from now on (0: the default),
 * and the most bytes the slabs held at once. */
void rsp_perf_reader_set_aligned_slab_words (RspPerfReader *self, gsize words);
gsize rsp_perf_reader_get_aligned_bytes_peak (RspPerfReader *self);

G_END_DECLS
