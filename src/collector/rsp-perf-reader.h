/* rsp-perf-reader.h — native reader of perf.data files (and of RSP
 * recordings, which are perf.data files with an RSP trailer appended).
 *
 * The reader maps the file, parses the header, attrs, ids and feature
 * sections, and delivers records in time order across CPUs (perf's
 * FINISHED_ROUND protocol).  Memory stays bounded by what is pending in the
 * ordering queue, not by the file size.
 */
#pragma once

#include <glib.h>

#include "rsp-event.h"
#include "rsp-ftrace-reader.h"
#include "rsp-recording.h"

G_BEGIN_DECLS

#define RSP_READER_ERROR (rsp_reader_error_quark ())
GQuark rsp_reader_error_quark (void);

typedef enum {
  RSP_READER_ERROR_OPEN,      /* cannot open or map the file */
  RSP_READER_ERROR_NOT_PERF,  /* not a perf.data file at all */
  RSP_READER_ERROR_FOREIGN,   /* a perf.data we cannot read (endianness, pipe mode...) */
  RSP_READER_ERROR_CORRUPT,   /* header or attrs are unusable */
  RSP_READER_ERROR_TRUNCATED, /* the data section ends early */
  RSP_READER_ERROR_CANCELLED, /* the caller's progress function asked to stop */
} RspReaderError;

typedef struct tep_handle RspTepHandle;

/* Build id of one DSO, from the HEADER_BUILD_ID feature. */
typedef struct {
  gint32 pid;
  gboolean kernel; /* misc says kernel (kernel or module) */
  guint8 size;
  guint8 id[20];
  char *filename; /* owned by the header's array */
} RspBuildId;

/* Everything the file header and feature sections tell. */
typedef struct {
  guint64 file_size;
  guint64 data_offset, data_size;
  char *hostname;
  char *osrelease;
  char *perf_version;
  char *arch;
  guint32 nr_cpus_online, nr_cpus_available;
  char **cmdline;   /* argv of the perf command, NULL-terminated */
  /* the clock of the records' times (perf record -k), from HEADER_CLOCK_DATA */
  guint32 clockid;  /* CLOCK_MONOTONIC, ... */
  gboolean has_clockid;
  guint64 clock_res_ns; /* that clock's resolution, from HEADER_CLOCKID */
  gboolean has_clock_res;
  GArray *build_ids; /* RspBuildId */
  gboolean has_tracing_data;
  guint64 features; /* low 64 feature bits that are set */
} RspPerfHeader;

/* Counts the reader keeps while it reads. */
typedef struct {
  guint64 records;                        /* records delivered */
  guint64 by_type[RSP_RECORD_TYPE_MAX];   /* per PERF_RECORD_* type */
  guint64 bytes;                          /* bytes of records read */
  guint64 lost_events;                    /* sum of PERF_RECORD_LOST.lost */
  guint64 lost_samples;                   /* sum of LOST_SAMPLES.lost */
  guint64 bad_records;                    /* records skipped as malformed */
  guint64 unknown_ids;                    /* samples whose id matches no attr */
  guint64 out_of_order;                   /* records older than already delivered ones */
  guint64 max_queued;                     /* peak of the ordering queue */
  gboolean truncated;                     /* data section shorter than declared */
} RspReaderStats;

typedef struct _RspPerfReader RspPerfReader;

typedef enum {
  RSP_PERF_READER_DEFAULT = 0,
  /* Tracepoints are never printed (rsp_event_format_tracepoint() prints
   * nothing): their formats are read without the print fmt line, which
   * libtraceevent parses slowly.  Fields, events and warnings are the same. */
  RSP_PERF_READER_NO_PRINT = 1 << 0,
} RspPerfReaderFlags;

/* Opens PATH.  Returns NULL with ERROR set when the file cannot be used at
 * all; a file that is partly readable opens, and rsp_perf_reader_warnings()
 * says what is wrong with it. */
RspPerfReader *rsp_perf_reader_open (const char *path, GError **error);
RspPerfReader *rsp_perf_reader_open_full (const char *path, RspPerfReaderFlags flags, GError **error);
/* Same from a caller-owned buffer (fuzzing, tests).  DATA must stay valid. */
RspPerfReader *rsp_perf_reader_open_bytes (const guint8 *data, gsize size, GError **error);
RspPerfReader *rsp_perf_reader_open_bytes_full (const guint8 *data, gsize size, RspPerfReaderFlags flags,
                                                GError **error);
void rsp_perf_reader_free (RspPerfReader *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspPerfReader, rsp_perf_reader_free)

const RspPerfHeader *rsp_perf_reader_get_header (RspPerfReader *self);
/* The RSP trailer (metadata, stored symbols), NULL for a plain perf.data. */
const RspRecording *rsp_perf_reader_get_recording (RspPerfReader *self);

guint rsp_perf_reader_get_n_evsels (RspPerfReader *self);
const RspEvsel *rsp_perf_reader_get_evsel (RspPerfReader *self, guint index);
/* Finds an evsel by name ("sched:sched_switch"); NULL if absent. */
const RspEvsel *rsp_perf_reader_find_evsel (RspPerfReader *self, const char *name);
/* libtraceevent handle loaded from the file's tracing data (never from this
 * machine's tracefs); NULL when the file has no tracepoints. */
RspTepHandle *rsp_perf_reader_get_tep (RspPerfReader *self);

/* Fills EVENT with the next record in time order.  Returns FALSE at the end
 * of the data (a truncated tail adds a warning, it is not an error). */
gboolean rsp_perf_reader_next (RspPerfReader *self, RspEvent *event);
/* The same without a copy: the next record, valid until the next call on
 * SELF (or its rewind or free); NULL at the end. */
const RspEvent *rsp_perf_reader_next_ref (RspPerfReader *self);

/* Rewinds to the first record (statistics restart too). */
void rsp_perf_reader_rewind (RspPerfReader *self);

const RspReaderStats *rsp_perf_reader_get_stats (RspPerfReader *self);
/* Whether an evsel's samples read counters (PERF_SAMPLE_READ): then the
 * reader delivers each value read as an event, the other events' marked
 * read_member (rsp-event.h). */
gboolean rsp_perf_reader_reads_counters (RspPerfReader *self);
/* With N >= 2, perf's records are scanned and put in time order on a
 * thread of their own while the caller decodes and uses them; the events,
 * their order and the warnings are the same as with N = 1, and so are the
 * figures (rsp_perf_reader_get_stats()) once the stream has ended: before
 * that, what scanning counts is not in them yet.  rsp_perf_reader_open()
 * chooses 2 for a data section of 32 MB or more on a machine with 2 or
 * more CPUs, else 1 (RSP_THREADS=1 or 2 in the environment overrides it);
 * a reader of bytes uses 1.  Takes effect from the next read of perf's
 * stream when no scanning thread runs (one that runs is used until the
 * end or the next rewind). */
void rsp_perf_reader_set_threads (RspPerfReader *self, guint n);
/* The ftrace section's figures (rsp-ftrace-reader.h), NULL when the
 * recording has none or it could not be read. */
const RspFtraceStats *rsp_perf_reader_get_ftrace_stats (RspPerfReader *self);
/* For a reader that has no use for some of RSP's instance events: those
 * whose name ("sched:sched_wakeup") KEEP says no to are stepped over from
 * the next one read on, not decoded nor delivered, only counted
 * (rsp_perf_reader_get_skipped(); rsp_ftrace_stream_set_skipped() says
 * which cannot be).  KEEP NULL keeps them all again.  Returns how many
 * evsels are skipped. */
guint rsp_perf_reader_skip_instance_events (RspPerfReader *self, gboolean (*keep) (const char *name));
/* The events skipped since the reading began or was rewound, NULL when the
 * recording has no instance events: the address stays the same while the
 * reader lives, its figures grow as it reads. */
const RspFtraceSkipped *rsp_perf_reader_get_skipped (RspPerfReader *self);
/* Human-readable warnings gathered so far (NULL-terminated, owned by reader). */
const char *const *rsp_perf_reader_warnings (RspPerfReader *self);

/* The same with a field looked up once (tep_find_field on the evsel's
 * format), for code that reads the same fields of many events. */
struct tep_format_field;
gboolean rsp_event_read_field_u64 (const RspEvent *event, const struct tep_format_field *field, guint64 *value);
const char *rsp_event_read_field_str (const RspEvent *event, const struct tep_format_field *field);

/* Reads a numeric tracepoint field of EVENT by name; FALSE if the event is
 * not a tracepoint or lacks the field. */
gboolean rsp_event_get_field_u64 (const RspEvent *event, const char *field, guint64 *value);
/* Reads a string (char array or __data_loc) field; returns a pointer into the
 * record, NUL-terminated within the field, or NULL. */
const char *rsp_event_get_field_str (const RspEvent *event, const char *field);

/* Appends the tracepoint's fields as its print format renders them (the
 * text perf script shows); FALSE when EVENT is not a decodable tracepoint. */
gboolean rsp_event_format_tracepoint (const RspEvent *event, RspTepHandle *tep, GString *out);

G_END_DECLS
