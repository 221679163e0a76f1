/* rsp-ftrace-reader.h — decodes the "ftrace" section of an RSP recording
 * (rsp-ftrace-section.h) and merges its events into perf's by time.
 *
 * The instance's events come out of the reader as PERF_RECORD_SAMPLEs of
 * evsels of their own (RspEvsel.ftrace is TRUE), named like perf's
 * ("sched:sched_waking"), with the tracepoint payload as the raw data, the
 * CPU of the buffer they were in, and no callchain.  The model reads them
 * like perf's.
 *
 * Duplicates: an event that perf recorded too is delivered once, as perf's
 * (perf's copy carries the callchain).  An instance event is a twin of a
 * perf event of the same name on the same CPU whose payload, past the common
 * fields, is byte for byte the same, within RSP_FTRACE_TWIN_WINDOW_NS in
 * time; each perf event is the twin of at most one instance event.  An
 * instance event, in time order, takes the nearest such perf event not yet
 * taken that is not nearer a later instance event of the same payload on
 * its CPU, so that where one channel lost one of a run of the same event
 * repeated within the window, the run's others still pair with their own.
 * The instance's copy of a twin is dropped and counted.
 */
#pragma once

#include <glib.h>

#include "rsp-event.h"

G_BEGIN_DECLS

/* Both channels take their timestamps from CLOCK_MONOTONIC, a few µs
 * apart (4 µs typically in dio_ftrace.rsp, up to 34); 50 µs leaves room.
 * Two real events of the same payload within it are told apart by which
 * is nearer (rsp_ftrace_stream_next_ref()). */
#define RSP_FTRACE_TWIN_WINDOW_NS 50000ULL

typedef struct _RspFtraceStream RspFtraceStream;

typedef struct {
  guint64 events;        /* decoded from the section */
  guint64 delivered;     /* merged into the event sequence */
  guint64 twins;         /* dropped: perf delivered the same event */
  guint64 subbuffers;    /* sub-buffers read */
  guint64 bad_subbuffers;/* skipped as damaged */
  guint64 missed_events; /* sub-buffers the kernel flagged as following lost events */
  guint64 unknown_ids;   /* events whose type has no stored format */
  guint32 lost_cpus;     /* CPU blocks cut or damaged in the section: not read */
  guint32 max_held;      /* most perf events held at once by the merge */
  guint64 released;      /* bytes of sub-buffers read given back (a mapped file's pages) */
} RspFtraceStats;

/* The events stepped over (rsp_ftrace_stream_set_skipped()) since the
 * stream began or was rewound: how many, and the earliest and latest time
 * of those with a time (0: none). */
typedef struct {
  guint64 events;
  guint64 first_time, last_time;
} RspFtraceSkipped;

/* Reads pull the next perf event (in perf's time order) into EVENT. */
typedef gboolean (*RspFtracePullFunc) (gpointer source, RspEvent *event);

/* Parses the section DATA (SIZE bytes; it must outlive the stream).  Appends
 * one evsel per stored format to EVSELS (RspEvsel*, owned by the array; their
 * index is their position) and pairs them with perf's evsels of the same
 * name already in EVSELS.  Returns NULL and sets ERROR when the section is
 * unusable; a damaged sub-buffer later is skipped and counted. */
RspFtraceStream *rsp_ftrace_stream_new (const guint8 *data, gsize size, GPtrArray *evsels, GError **error);
/* The same, reading the events where they are in DATA instead of from a
 * copy: for a recording mapped for as long as the stream lives (a copy of
 * a large section was a fifth of a report).  Without WITH_PRINT the
 * formats' print fmt lines are left out (rsp_tep_check_format_fields()). */
RspFtraceStream *rsp_ftrace_stream_new_in_place (const guint8 *data, gsize size, GPtrArray *evsels,
                                                 gboolean with_print, GError **error);
/* An in-place stream's DATA is a private, read-only mapping of a file
 * (the reader's of the recording): the pages of sub-buffers read already
 * are given back as it goes (memory that is the caller's own must never
 * be: giving back anonymous memory zeroes it). */
void rsp_ftrace_stream_set_file_mapped (RspFtraceStream *s);
/* How much of a CPU's sub-buffers read is given back at once (4 MB; the
 * tests make it a page). */
void rsp_ftrace_stream_set_release_chunk (RspFtraceStream *s, guint64 bytes);
/* For the tests: the instance ends after N of its events are delivered,
 * as a recording whose instance stopped before perf did. */
void rsp_ftrace_stream_set_max_events (RspFtraceStream *s, guint64 n);
void rsp_ftrace_stream_free (RspFtraceStream *stream);
/* Replaces STREAM's events with the CPU blocks at DATA (a section's part
 * after its formats, of a section with the same formats: rsp record's live
 * namer reads one instance again and again) and rewinds it.  FALSE when
 * some block is cut or damaged (the ones before it are read). */
gboolean rsp_ftrace_stream_load_cpus (RspFtraceStream *stream, const guint8 *data, gsize size);

/* The next event of the merged sequence: perf's, pulled through PULL, and
 * the instance's, in time order, twins dropped. */
gboolean rsp_ftrace_stream_next (RspFtraceStream *stream, RspFtracePullFunc pull, gpointer source, RspEvent *event);
/* The same without a copy: the next event, valid until the next call on
 * STREAM (or its rewind or free); NULL at the end. */
const RspEvent *rsp_ftrace_stream_next_ref (RspFtraceStream *stream, RspFtracePullFunc pull, gpointer source);
void rsp_ftrace_stream_rewind (RspFtraceStream *stream);
/* Calls FUNC on each of perf's events STREAM holds now (pulled ahead of the
 * instance's, or kept a while as twin candidates): their records must stay
 * where they are (rsp_perf_reader_aligned_room()). */
void rsp_ftrace_stream_foreach_held (RspFtraceStream *stream, void (*func) (const RspEvent *event, gpointer data),
                                     gpointer data);
/* A stream made without WITH_PRINT parses each format when the first
 * event of its type is read; this parses EVSEL's (one of STREAM's) now, so
 * that EVSEL->tp is what it would have been.  Readers that hand out evsels
 * call it first (rsp_perf_reader_get_evsel()). */
void rsp_ftrace_stream_ensure_format (RspFtraceStream *stream, const RspEvsel *evsel);
const RspFtraceStats *rsp_ftrace_stream_get_stats (const RspFtraceStream *stream);
/* Whether EVSEL's events (an instance evsel of STREAM) are stepped over
 * from the next one read on, neither decoded nor delivered, only counted
 * (rsp_ftrace_stream_get_skipped(); they count in the stats' EVENTS, not
 * in DELIVERED): for a reader that has no use for them (the model, for
 * sched_wakeup and the timers' starts and cancels).  Refused (FALSE) for
 * an evsel perf records too, whose events are matched with perf's, and
 * one not of STREAM.  An event whose format cannot be parsed is delivered
 * all the same (counted as of unknown type, as always).  The cursors'
 * current events are read already: the first event of each CPU may still
 * be delivered. */
gboolean rsp_ftrace_stream_set_skipped (RspFtraceStream *stream, const RspEvsel *evsel, gboolean skip);
const RspFtraceSkipped *rsp_ftrace_stream_get_skipped (const RspFtraceStream *stream);
/* The CPUs whose buffers the section holds. */
guint rsp_ftrace_stream_get_n_cpus (const RspFtraceStream *stream);

G_END_DECLS
