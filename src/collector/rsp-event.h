/* rsp-event.h — one decoded perf record, as the reader delivers it.
 *
 * The reader decodes every record exactly once (see rsp-perf-decode.c);
 * everyone else works on this struct.  Pointers in it point into the
 * reader's buffers and stay valid until the next call to
 * rsp_perf_reader_next().
 */
#pragma once

#include <glib.h>
#include <linux/perf_event.h>

G_BEGIN_DECLS

typedef struct tep_event RspTepEvent;

/* Records perf writes in user space (tools/lib/perf/include/perf/event.h);
 * the kernel's UAPI header only has the kernel ones. */
enum {
  RSP_RECORD_HEADER_ATTR = 64,
  RSP_RECORD_HEADER_EVENT_TYPE = 65,
  RSP_RECORD_HEADER_TRACING_DATA = 66,
  RSP_RECORD_HEADER_BUILD_ID = 67,
  RSP_RECORD_FINISHED_ROUND = 68,
  RSP_RECORD_ID_INDEX = 69,
  RSP_RECORD_AUXTRACE_INFO = 70,
  RSP_RECORD_AUXTRACE = 71,
  RSP_RECORD_AUXTRACE_ERROR = 72,
  RSP_RECORD_THREAD_MAP = 73,
  RSP_RECORD_CPU_MAP = 74,
  RSP_RECORD_STAT_CONFIG = 75,
  RSP_RECORD_STAT = 76,
  RSP_RECORD_STAT_ROUND = 77,
  RSP_RECORD_EVENT_UPDATE = 78,
  RSP_RECORD_TIME_CONV = 79,
  RSP_RECORD_HEADER_FEATURE = 80,
  RSP_RECORD_COMPRESSED = 81,
  RSP_RECORD_FINISHED_INIT = 82,
  RSP_RECORD_TYPE_MAX = 83,
};

/* PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8), which Debian 12's headers lack */
#define RSP_SAMPLE_BRANCH_COUNTERS (1ULL << 19)

/* One perf_event_attr of the recording, with what the reader derived
 * from it. */
typedef struct {
  guint index;                 /* position in the file's attr table */
  struct perf_event_attr attr; /* normalised to the UAPI size, zero-filled */
  char *name;                  /* "sched:sched_switch", "cpu-clock", ... */
  RspTepEvent *tp;             /* tracepoint format, NULL if not one */
  gboolean ftrace;             /* an event of RSP's tracefs instance (the
                                * recording's ftrace section), not perf's */
  guint64 *ids;
  guint n_ids;
  guint leader;                /* index of its group's leader (HEADER_GROUP_DESC); its own when not in a group */
  gboolean branch_counters;    /* its samples' branch stacks end with a counter word per branch
                                * (an event of its group asked for PERF_SAMPLE_BRANCH_COUNTERS) */
  gsize id_trailer_size;       /* bytes of sample_id_all trailer */
  /* where a sample of it holds its time and CPU, 0 when it holds none (a
   * sample's fields before them have fixed sizes), for the ordering
   * queue's read of every record (rsp_perf_record_time) */
  guint16 sample_time_at, sample_cpu_at;
  /* a sample of fixed-size fields (IDENTIFIER to PERIOD), then at most a
   * callchain and a raw payload, as RSP's and most perf recordings' are:
   * where its fixed fields end (0: another layout) and where each lies (0:
   * absent), for rsp_perf_record_decode()'s direct read */
  guint16 sample_fixed_end;
  guint16 sample_ip_at, sample_tid_at, sample_id_at, sample_addr_at, sample_stream_id_at, sample_period_at;
} RspEvsel;

/* Decoded sample fields, present according to evsel->attr.sample_type. */
typedef struct {
  guint64 ip;
  guint64 addr;
  guint64 id;
  guint64 stream_id;
  guint64 period;
  guint64 weight;
  guint64 data_src;
  guint64 transaction;
  guint64 phys_addr;
  guint64 cgroup;
  guint64 data_page_size;
  guint64 code_page_size;
  /* PERF_SAMPLE_READ: raw u64 words as written, not interpreted further. */
  const guint64 *read_values;
  guint n_read_values;
  /* a sample that reads counters comes as one event per value it read
   * (rsp-perf-reader.c); of those: */
  guint8 read_member;    /* another event's value (a group's), not a sample of its own */
  guint8 read_unchanged; /* its own event's, not grown since its last read: `perf script` prints nothing */
  /* PERF_SAMPLE_CALLCHAIN: raw ips including PERF_CONTEXT_* markers. */
  const guint64 *callchain;
  guint64 n_callchain;
  /* PERF_SAMPLE_RAW: tracepoint payload. */
  const guint8 *raw;
  guint32 raw_size;
  /* PERF_SAMPLE_BRANCH_STACK */
  guint64 n_branches;
  const guint64 *branches; /* 3 words per entry: from, to, flags */
  /* PERF_SAMPLE_REGS_USER */
  guint64 user_regs_abi;
  guint64 user_regs_mask;
  const guint64 *user_regs; /* one per set bit of user_regs_mask */
  /* PERF_SAMPLE_STACK_USER */
  const guint8 *user_stack;
  guint64 user_stack_size;
  guint64 user_stack_dyn_size;
  /* PERF_SAMPLE_REGS_INTR */
  guint64 intr_regs_abi;
  const guint64 *intr_regs;
  /* PERF_SAMPLE_AUX */
  const guint8 *aux;
  guint64 aux_size;
} RspSample;

typedef struct {
  gint32 pid, tid;
  guint64 start, len, pgoff;
  guint32 maj, min;
  guint64 ino, ino_generation;
  guint32 prot, flags;
  guint8 build_id_size; /* > 0 when MMAP2 carries a build id */
  guint8 build_id[20];
  const char *filename;
} RspMmap;

typedef struct {
  gint32 pid, tid;
  const char *comm;
  gboolean exec; /* PERF_RECORD_MISC_COMM_EXEC */
} RspComm;

typedef struct {
  gint32 pid, ppid, tid, ptid;
  guint64 time;
} RspForkExit;

typedef struct {
  guint64 id;
  guint64 lost;
} RspLost;

typedef struct {
  guint32 type;  /* PERF_RECORD_* or RSP_RECORD_* */
  guint16 misc;
  guint16 size;  /* bytes of the record, header included */
  const RspEvsel *evsel; /* NULL when the record carries no id */
  gboolean has_time;
  guint64 time;  /* ns, in the recording's clock */
  gint32 pid, tid; /* -1 when unknown */
  gint32 cpu;      /* -1 when unknown */
  guint64 file_offset;
  RspSample sample; /* valid for PERF_RECORD_SAMPLE */
  union {
    RspMmap mmap;     /* PERF_RECORD_MMAP and MMAP2 */
    RspComm comm;
    RspForkExit fork; /* PERF_RECORD_FORK and EXIT */
    RspLost lost;     /* PERF_RECORD_LOST; LOST_SAMPLES sets only .lost */
  } u;
  const guint8 *record;  /* the raw record, header first (not always aligned) */
} RspEvent;

/* "PERF_RECORD_SAMPLE", "PERF_RECORD_MMAP2", ... ; "PERF_RECORD_UNKNOWN" for
 * a type this reader does not know (a static string: a fuzzed file's made-up
 * types must not grow anything). */
const char *rsp_record_type_name (guint32 type);
gboolean rsp_record_type_known (guint32 type);

G_END_DECLS
