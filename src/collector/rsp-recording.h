/* rsp-recording.h — the RSP recording file: a perf.data file with an RSP
 * trailer appended, so that `perf script` still reads it and RSP finds its
 * metadata and stored symbols in the same single file.
 *
 * Layout after the perf.data bytes:
 *   section bytes ...
 *   table: n × { char name[16]; u64 offset; u64 size; }
 *   footer: { u64 table_offset; u32 n_sections; u32 version; char magic[8] }
 * magic is "RSPTRL01".  Sections: "meta" (JSON, see rsp_recording_meta_*),
 * "symbols" (text, written and parsed by rsp-symbols-stored.c), "ftrace" (what
 * RSP's tracefs instance recorded, see rsp-ftrace-section.h), "files" (the
 * names of the files its events name, see rsp-files.h).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RSP_TRAILER_MAGIC "RSPTRL01"
#define RSP_TRAILER_VERSION 1
#define RSP_SECTION_META "meta"
#define RSP_SECTION_SYMBOLS "symbols"

/* Counting-mode count against recorded count for one tracepoint. */
typedef struct {
  char *event;       /* "sched:sched_switch" */
  guint64 counted;   /* fired in the kernel during the recording */
  guint64 recorded;  /* present in the perf.data within the counting window */
} RspHealthEntry;

typedef struct {
  char *name;
  char *reason;
} RspMissingEvent;

/* Clear functions for GArrays of these (g_array_set_clear_func): they free
 * what an entry owns, not the entry. */
void rsp_health_entry_clear (gpointer data);
void rsp_missing_event_clear (gpointer data);

/* A filter an event of RSP's tracefs instance was recorded with: only the
 * occurrences FILTER (the kernel's filter syntax) let through are in the
 * recording. */
typedef struct {
  char *event;  /* "timer:hrtimer_start" */
  char *filter; /* "function.function != perf_swevent_hrtimer" */
} RspEventFilter;

void rsp_event_filter_clear (gpointer data);
/* An empty GArray of RspEventFilter that frees its entries' strings. */
GArray *rsp_event_filters_new (void);
/* Appends a copy of EVENT and FILTER to FILTERS. */
void rsp_event_filters_add (GArray *filters, const char *event, const char *filter);
/* Appends a copy of each of FROM's filters to INTO. */
void rsp_event_filters_add_all (GArray *into, const GArray *from);
/* The filter of EVENT in FILTERS (may be NULL), or NULL. */
const char *rsp_event_filters_find (const GArray *filters, const char *event);
/* Takes EVENT's filter out of FILTERS, if it is there. */
void rsp_event_filters_remove (GArray *filters, const char *event);

/* One CPU of RSP's tracefs instance, from per_cpu/cpuN/stats at the end of
 * the recording, and BYTES: the sub-buffers of that CPU stored in the
 * "ftrace" section. */
typedef struct {
  guint32 cpu;
  guint64 entries;        /* left in the buffer, unread (0 after a full drain) */
  guint64 overrun;        /* lost: overwritten before they were read */
  guint64 commit_overrun; /* lost: nested writes overflowed a sub-buffer */
  guint64 dropped_events; /* lost: the buffer was full (no-overwrite mode) */
  guint64 read_events;    /* read out of the buffer, stored */
  guint64 bytes;
} RspFtraceCpuStats;

/* The meta's "ftrace" member: RSP's tracefs instance.  ERROR is why the
 * channel was off (then EVENTS is empty and CPUS too) or what failed while
 * it ran (a full disk, say); NULL when it all went well. */
typedef struct {
  char *instance;          /* "rsp-1234-9f2c4e01" */
  char *clock;             /* the instance's trace_clock: "mono" */
  char **events;           /* "sched:sched_waking", ... enabled in the instance */
  GArray *missing_events;  /* RspMissingEvent: not enabled, and why */
  GArray *filters;         /* RspEventFilter: enabled events recorded in part; empty in older recordings */
  GArray *cpus;            /* RspFtraceCpuStats */
  char *error;
} RspFtraceMeta;

RspFtraceMeta *rsp_ftrace_meta_new (void);
void rsp_ftrace_meta_free (RspFtraceMeta *meta);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspFtraceMeta, rsp_ftrace_meta_free)

/* One run of COMMAND under `rsp record --repeat N`: a request of
 * `rsp report --requests runs`. */
typedef struct {
  gint32 pid;
  guint64 start_ns, end_ns; /* released .. reaped, recording clock */
  gint exit_status;         /* as the shell reports it; -1 unknown */
} RspRecordedRun;

/* The "meta" section. */
typedef struct {
  char *rsp_version;
  char **command;       /* target argv, NULL when whole-system */
  gint32 target_pid;    /* -1 when whole-system */
  guint64 start_ns;     /* recording clock (CLOCK_MONOTONIC) */
  guint64 end_ns;
  gint exit_status;     /* target's exit status; -1 unknown */
  char *hostname;
  char *kernel_release;
  char *clock;          /* "monotonic" */
  char **perf_argv;     /* the perf record command line used */
  char **events;        /* events recorded */
  GArray *missing_events; /* RspMissingEvent */
  GArray *health;       /* RspHealthEntry */
  GArray *perf_filters; /* RspEventFilter: perf's tracepoints recorded in part
                         * (their health counters counted with the same
                         * filter); empty in older recordings */
  gboolean keep_awake;
  GArray *keep_awake_pids; /* gint32: the SCHED_IDLE spinners */
  gboolean idle_loss_suspected;
  gboolean interrupted; /* stopped by Ctrl-C */
  RspFtraceMeta *ftrace; /* NULL: no tracefs instance was tried (older recordings) */
  guint repeat;         /* --repeat N asked for (0 or 1: COMMAND ran once) */
  GArray *runs;         /* RspRecordedRun, in order; empty for older recordings */
  char **probes;        /* --probe BINARY:FUNCTION as placed, NULL if none */
  char *probe_group;    /* their uprobe events' system: "rsp_1234" */
  guint symbols_searched; /* RSP_SYMBOLS_SEARCHED_GENERATION: the "symbols"
                           * section has a D line for every binary the
                           * recorder looked addresses up in, also with no
                           * name found, and it looked up what that
                           * generation's readers do; 0 in older recordings */
  gint ref_count;       /* rsp_recording_meta_ref(); read-only once shared */
} RspRecordingMeta;

typedef struct {
  char name[17];
  guint64 offset;
  guint64 size;
} RspSection;

/* A parsed trailer, owned by the reader. */
typedef struct {
  guint64 perf_data_size; /* bytes before the first section */
  GArray *sections;       /* RspSection */
  RspRecordingMeta *meta; /* NULL if the meta section is missing or bad */
  const guint8 *symbols;  /* points into the mapped file; NULL if absent */
  gsize symbols_size;
  const guint8 *files;    /* the "files" section (rsp-files.h); NULL if absent */
  gsize files_size;
} RspRecording;

RspRecordingMeta *rsp_recording_meta_new (void);
/* A meta is shared (the reader's and the model's) by reference; nothing
 * changes it once it is shared.  _free drops one reference. */
RspRecordingMeta *rsp_recording_meta_ref (RspRecordingMeta *meta);
void rsp_recording_meta_free (RspRecordingMeta *meta);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspRecordingMeta, rsp_recording_meta_free)
char *rsp_recording_meta_to_json (const RspRecordingMeta *meta, gsize *length);
RspRecordingMeta *rsp_recording_meta_from_json (const char *json, gsize length, GError **error);

/* Looks for a trailer at the end of DATA.  Returns NULL when there is none
 * (a plain perf.data); sets ERROR and returns NULL when there is a trailer
 * that is damaged (the caller then reads the perf.data part with a warning). */
RspRecording *rsp_recording_parse (const guint8 *data, gsize size, GError **error);
void rsp_recording_free (RspRecording *rec);

/* Appends a trailer with the given named sections to the file at PATH
 * (which holds perf.data).  NAMES and BLOBS are parallel, N entries. */
gboolean rsp_recording_append_trailer (const char *path, const char *const *names,
                                       GBytes *const *blobs, guint n, GError **error);

/* The same with each section made of consecutive parts: PARTS[i] is a
 * GPtrArray of GBytes (mapped files need not be copied into one blob).
 * When writing fails (a full disk), the file is cut back to what it was,
 * so that the caller may try again with fewer sections. */
gboolean rsp_recording_append_sections (const char *path, const char *const *names,
                                        GPtrArray *const *parts, guint n, GError **error);

/* Copies the recording at PATH to NEW_PATH (created, with PATH's
 * permission bits; it must not exist) in writes of RSP_RECORDING_COPY_PIECE
 * bytes at offsets that are multiples of it.  Written so, the copy's page
 * cache is in 2 MB folios where the file system has them (ext4 since
 * Linux 6.16, XFS), which a reader maps with one entry per 2 MB instead of
 * 512; perf writes the recording in pieces of a few pages, and its page
 * cache keeps their size.  On failure (a full disk) NEW_PATH is removed
 * and PATH left as it was. */
#define RSP_RECORDING_COPY_PIECE (2u << 20)
gboolean rsp_recording_copy (const char *path, const char *new_path, GError **error);

G_END_DECLS
