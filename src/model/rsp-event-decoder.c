/* rsp-event-decoder.c — perf records to model events: the one place the
 * model reads tracepoint fields (looked up once per event type) and
 * symbolizes the stacks it needs. */
#include <string.h>
#include <glib/gi18n-lib.h>
#include <traceevent/event-parse.h>

#include "rsp-chain-cache.h"
#include "rsp-model-event.h"
#include "rsp-model-private.h"
#include "rsp-reader-symbols.h"

#define MAX_STACK 256

enum {
  F_PREV_PID, F_PREV_STATE, F_NEXT_PID, /* sched_switch */
  F_PID,                                /* sched_waking, sched_wakeup_new, exec */
  F_PARENT_PID, F_CHILD_PID, F_CHILD_COMM, /* fork */
  F_FILENAME,                           /* exec */
  F_DEV, F_SECTOR, F_NR_SECTOR, F_RWBS, /* block */
  F_NAME,                               /* irq */
  F_VEC,                                /* softirq */
  F_SK, F_SKADDR,                       /* sock */
  F_FAMILY, F_DADDR, F_DPORT,
  F_PROTOCOL, F_PROTO, F_DST,           /* sock_send_length, fib_table_lookup */
  F_RET, F_FLAGS, F_SPORT, F_NEWSTATE,  /* sock_*_length, inet_sock_set_state */
  F_N
};

static const char *const field_names[F_N] = {
  "prev_pid", "prev_state", "next_pid", "pid", "parent_pid", "child_pid", "child_comm", "filename",
  "dev", "sector", "nr_sector", "rwbs", "name", "vec", "sk", "skaddr", "family", "daddr", "dport", "protocol", "proto", "dst",
  "ret", "flags", "sport", "newstate",
};

static const struct {
  const char *name;
  RspModelEventKind kind;
} tracepoints[] = {
  { "sched:sched_switch", RSP_MEV_SWITCH },
  { "sched:sched_waking", RSP_MEV_WAKING },
  { "sched:sched_wakeup_new", RSP_MEV_WAKEUP_NEW },
  { "sched:sched_process_fork", RSP_MEV_FORK },
  { "sched:sched_process_exec", RSP_MEV_EXEC },
  { "block:block_rq_insert", RSP_MEV_RQ_INSERT },
  { "block:block_rq_issue", RSP_MEV_RQ_ISSUE },
  { "block:block_rq_complete", RSP_MEV_RQ_COMPLETE },
  { "block:block_rq_merge", RSP_MEV_RQ_MERGE },
  { "block:block_rq_requeue", RSP_MEV_RQ_REQUEUE },
  { "irq:irq_handler_entry", RSP_MEV_IRQ_ENTRY },
  { "irq:irq_handler_exit", RSP_MEV_IRQ_EXIT },
  { "irq:softirq_entry", RSP_MEV_SOFTIRQ_ENTRY },
  { "irq:softirq_exit", RSP_MEV_SOFTIRQ_EXIT },
  { "timer:hrtimer_expire_entry", RSP_MEV_HRTIMER_ENTRY },
  { "timer:hrtimer_expire_exit", RSP_MEV_HRTIMER_EXIT },
  { "sock:sock_send_length", RSP_MEV_SEND },
  { "sock:sock_recv_length", RSP_MEV_RECV },
  { "sock:sk_data_ready", RSP_MEV_DATA_READY },
  { "sock:inet_sock_set_state", RSP_MEV_SOCK_STATE },
  { "fib:fib_table_lookup", RSP_MEV_FIB },
};

/* A numeric field read in place: its offset and size (1, 2, 4 or 8), the
 * byte order being this machine's.  What tep_read_number_field() does,
 * without its calls: reading fields was a sixth of a large report. */
typedef struct {
  guint32 offset;
  guint32 size; /* 0: read through libtraceevent (any other field) */
} FastField;

typedef struct {
  gboolean classified; /* classify_evsel() ran */
  RspModelEventKind kind;
  gboolean known;
  char *probe_function;   /* RSP_MEV_PROBE: the function (owned) */
  gboolean probe_return;
  struct tep_format_field *fields[F_N];
  FastField fast[F_N];
  /* RSP_MEV_FILE: the fields that name the file (rsp_file_event_fields()),
   * the numeric ones read in place (a flusher's burst is tens of
   * thousands of them) */
  RspFileEventFields file;
  FastField file_ino, file_dev;
} EvselInfo;

/* Longer callchains are resolved each time, not kept (rsp-chain-cache.h). */
#define CHAIN_MAX_LEN 1024u

static const RspChainLimits chain_limits_tiny = { 4, 8, 64, 16 };

typedef struct {
  RspSymbolizer *symbolizer;
  RspAssembler *assembler;
  EvselInfo *info;
  gboolean reads_counters; /* an evsel's samples read counters: the reader marks other events' values */
  RspChainCache *chains; /* NULL: every chain resolved and interned per event */
  RspFrame rframes[MAX_STACK];
  RspModelFrame mframes[MAX_STACK];
} Decoder;

/* FIELD's value in EV (0 when it has none), read in place when FAST allows. */
static guint64
read_num (const RspEvent *ev, const FastField *fast, const struct tep_format_field *field)
{
  if (G_LIKELY (fast->size != 0))
    {
      if (ev->sample.raw == NULL || (guint64) fast->offset + fast->size > ev->sample.raw_size)
        return 0;
      const guint8 *p = ev->sample.raw + fast->offset;
      switch (fast->size)
        {
        case 1:
          return *p;
        case 2:
          {
            guint16 v;
            memcpy (&v, p, 2);
            return v;
          }
        case 4:
          {
            guint32 v;
            memcpy (&v, p, 4);
            return v;
          }
        default:
          {
            guint64 v;
            memcpy (&v, p, 8);
            return v;
          }
        }
    }
  guint64 v = 0;
  rsp_event_read_field_u64 (ev, field, &v);
  return v;
}

static guint64
num (const RspEvent *ev, const EvselInfo *info, guint f)
{
  return read_num (ev, &info->fast[f], info->fields[f]);
}

static void
set_fast_field (FastField *fast, const struct tep_format_field *field)
{
  fast->size = 0;
  if (field == NULL || (field->flags & TEP_FIELD_IS_DYNAMIC) || field->offset < 0)
    return;
  struct tep_handle *tep = field->event != NULL ? field->event->tep : NULL;
  if (tep == NULL || tep_is_file_bigendian (tep) != tep_is_local_bigendian (tep))
    return;
  if (field->size == 1 || field->size == 2 || field->size == 4 || field->size == 8)
    {
      fast->offset = (guint32) field->offset;
      fast->size = (guint32) field->size;
    }
}

static const char *
str (const RspEvent *ev, const EvselInfo *info, guint f)
{
  return rsp_event_read_field_str (ev, info->fields[f]);
}

static void
resolve_frames (Decoder *d, const RspEvent *ev, RspModelEvent *out)
{
  guint n = rsp_symbolizer_resolve_callchain (d->symbolizer, ev, d->rframes, MAX_STACK);
  for (guint i = 0; i < n; i++)
    {
      d->mframes[i].symbol = d->rframes[i].symbol;
      d->mframes[i].dso = d->rframes[i].dso;
      d->mframes[i].ip = d->rframes[i].ip;
      d->mframes[i].offset = d->rframes[i].symbol == NULL ? d->rframes[i].offset : 0;
      d->mframes[i].kernel = d->rframes[i].kernel;
    }
  out->frames = d->mframes;
  out->n_frames = n;
}

/* OUT's frames: the model's when the chain was seen and interned before,
 * those kept here when it was seen twice, else resolved. */
static void
resolve_stack (Decoder *d, const RspEvent *ev, RspModelEvent *out)
{
  gboolean added = FALSE;
  out->chain = d->chains != NULL ? rsp_chain_cache_lookup_sample (d->chains, d->symbolizer, ev, CHAIN_MAX_LEN, &added)
                                 : 0;
  if (out->chain == 0 || added)
    {
      resolve_frames (d, ev, out);
      return;
    }
  RspStackId id = g_array_index (rsp_chain_cache_stacks (d->chains), RspStackId, out->chain - 1);
  if (id != 0)
    {
      /* in the model's table: no interning while this event is fed moves it */
      out->frames = rsp_assembler_stack (d->assembler, id, &out->n_frames);
      return;
    }
  if (rsp_chain_cache_frames (d->chains, out->chain, &out->frames, &out->n_frames))
    return;
  /* seen twice and never interned: kept */
  resolve_frames (d, ev, out);
  rsp_chain_cache_keep_frames (d->chains, out->chain, out->frames, out->n_frames);
}

/* What the model makes of EVSEL's events, found at its first event: the
 * instance's formats are parsed when their first event is read
 * (rsp_ftrace_stream_ensure_format()), and most are never. */
static void
classify_evsel (EvselInfo *info, const RspEvsel *evsel)
{
  info->classified = TRUE;
  if (evsel->attr.type == PERF_TYPE_TRACEPOINT)
    {
      for (gsize k = 0; k < G_N_ELEMENTS (tracepoints); k++)
        if (g_strcmp0 (evsel->name, tracepoints[k].name) == 0 && evsel->tp != NULL)
          {
            info->kind = tracepoints[k].kind;
            info->known = TRUE;
          }
      /* the instance's events that name a file (rsp-files.h) */
      if (!info->known && rsp_file_event_is (evsel->name) && evsel->tp != NULL)
        {
          info->kind = RSP_MEV_FILE;
          info->known = TRUE;
          rsp_file_event_fields (evsel, &info->file); /* no inode (left NULL): its events are not read */
          set_fast_field (&info->file_ino, info->file.ino);
          set_fast_field (&info->file_dev, info->file.dev_is_bdi ? NULL : info->file.dev);
        }
      /* rsp record --probe's uprobes: "rsp_PID:FUNCTION" and "rsp_PID:FUNCTION__return" */
      const char *colon = evsel->name != NULL ? strchr (evsel->name, ':') : NULL;
      if (!info->known && colon != NULL && g_str_has_prefix (evsel->name, "rsp_") && colon[1] != '\0')
        {
          info->kind = RSP_MEV_PROBE;
          info->known = TRUE;
          info->probe_return = g_str_has_suffix (colon + 1, "__return");
          info->probe_function = g_strndup (colon + 1, strlen (colon + 1) - (info->probe_return ? 8 : 0));
        }
      /* a probe's format may be missing: it needs none of the fields */
      if (info->known && evsel->tp != NULL)
        for (guint f = 0; f < F_N; f++)
          {
            info->fields[f] = tep_find_field (evsel->tp, field_names[f]);
            set_fast_field (&info->fast[f], info->fields[f]);
          }
    }
  else if ((evsel->attr.type == PERF_TYPE_SOFTWARE
            && (evsel->attr.config == PERF_COUNT_SW_CPU_CLOCK || evsel->attr.config == PERF_COUNT_SW_TASK_CLOCK))
           || evsel->attr.type == PERF_TYPE_HARDWARE)
    {
      info->kind = RSP_MEV_SAMPLE;
      info->known = TRUE;
    }
}

/* Whether the model reads the events of the tracepoint NAME (what
 * classify_evsel() may make something of, by name): the others only ever
 * extend the time range and count, and the reader steps over the
 * instance's (rsp_perf_reader_skip_instance_events()): sched_wakeup and
 * the timers' starts and cancels were a third to a half of the events of
 * a recording of tasks that wake each other. */
static gboolean
model_reads (const char *name)
{
  for (gsize k = 0; k < G_N_ELEMENTS (tracepoints); k++)
    if (g_strcmp0 (name, tracepoints[k].name) == 0)
      return TRUE;
  if (name == NULL || rsp_file_event_is (name))
    return TRUE;
  const char *colon = strchr (name, ':');
  return colon != NULL && g_str_has_prefix (name, "rsp_") && colon[1] != '\0';
}

guint64
rsp_model_recorded_switches (const RspRecordingMeta *meta, guint64 data_size)
{
  for (guint i = 0; meta != NULL && meta->health != NULL && i < meta->health->len; i++)
    {
      const RspHealthEntry *h = &g_array_index (meta->health, RspHealthEntry, i);
      if (g_strcmp0 (h->event, "sched:sched_switch") == 0)
        return MIN (MAX (h->recorded, h->counted), data_size / 64);
    }
  return 0;
}

/* Fills OUT from EV; FALSE for records the model has no use for. */
static gboolean
decode (Decoder *d, const RspEvent *ev, RspModelEvent *out)
{
  memset (out, 0, sizeof *out);
  out->time = ev->time;
  out->cpu = ev->cpu;
  out->pid = ev->pid;
  out->tid = ev->tid;
  switch (ev->type)
    {
    case PERF_RECORD_COMM:
      out->kind = RSP_MEV_COMM;
      out->u.comm.pid = ev->u.comm.pid;
      out->u.comm.tid = ev->u.comm.tid;
      out->u.comm.comm = ev->u.comm.comm;
      out->u.comm.exec = ev->u.comm.exec;
      return TRUE;
    case PERF_RECORD_FORK:
      out->kind = RSP_MEV_TASK;
      out->u.task.pid = ev->u.fork.pid;
      out->u.task.tid = ev->u.fork.tid;
      return TRUE;
    case PERF_RECORD_LOST:
      out->kind = RSP_MEV_LOST;
      out->u.lost.lost = ev->u.lost.lost;
      return TRUE;
    case PERF_RECORD_SAMPLE:
      break;
    default:
      return FALSE;
    }
  /* another event's value that a sample read (`{cycles,instructions}:S`):
   * not a sample, nor a tracepoint hit (rsp-perf-reader.c) */
  if (ev->evsel == NULL || !ev->has_time || (G_UNLIKELY (d->reads_counters) && ev->sample.read_member))
    return FALSE;
  EvselInfo *info = &d->info[ev->evsel->index];
  if (G_UNLIKELY (!info->classified))
    classify_evsel (info, ev->evsel);
  if (!info->known)
    {
      out->kind = RSP_MEV_OTHER;
      return TRUE;
    }
  out->kind = info->kind;
  switch (info->kind)
    {
    case RSP_MEV_SWITCH:
      out->u.sw.prev_tid = (gint32) num (ev, info, F_PREV_PID);
      out->u.sw.next_tid = (gint32) num (ev, info, F_NEXT_PID);
      out->u.sw.prev_state = (guint32) num (ev, info, F_PREV_STATE);
      resolve_stack (d, ev, out);
      break;
    case RSP_MEV_WAKING:
      out->u.wake.tid = (gint32) num (ev, info, F_PID);
      resolve_stack (d, ev, out);
      break;
    case RSP_MEV_WAKEUP_NEW:
      out->u.wake.tid = (gint32) num (ev, info, F_PID);
      break;
    case RSP_MEV_FORK:
      out->u.fork.parent_tid = (gint32) num (ev, info, F_PARENT_PID);
      out->u.fork.child_tid = (gint32) num (ev, info, F_CHILD_PID);
      out->u.fork.child_comm = str (ev, info, F_CHILD_COMM);
      break;
    case RSP_MEV_EXEC:
      out->u.exec.filename = str (ev, info, F_FILENAME);
      break;
    case RSP_MEV_RQ_INSERT:
    case RSP_MEV_RQ_ISSUE:
    case RSP_MEV_RQ_COMPLETE:
    case RSP_MEV_RQ_MERGE:
    case RSP_MEV_RQ_REQUEUE:
      out->u.rq.dev = (guint32) num (ev, info, F_DEV);
      out->u.rq.sector = num (ev, info, F_SECTOR);
      out->u.rq.nr_sector = (guint32) num (ev, info, F_NR_SECTOR);
      out->u.rq.rwbs = str (ev, info, F_RWBS);
      break;
    case RSP_MEV_IRQ_ENTRY:
      out->u.irq.name = str (ev, info, F_NAME);
      break;
    case RSP_MEV_SOFTIRQ_ENTRY:
      out->u.softirq.vec = (guint32) num (ev, info, F_VEC);
      break;
    case RSP_MEV_SEND:
    case RSP_MEV_RECV:
      out->u.sock.sk = num (ev, info, F_SK);
      out->u.sock.protocol = (guint16) num (ev, info, F_PROTOCOL);
      out->u.sock.ret = (gint32) num (ev, info, F_RET);
      out->u.sock.flags = (gint32) num (ev, info, F_FLAGS);
      break;
    case RSP_MEV_FIB:
      out->u.fib.proto = (guint8) num (ev, info, F_PROTO);
      out->u.fib.daddr = (guint32) num (ev, info, F_DST);
      out->u.fib.dport = (guint16) num (ev, info, F_DPORT);
      break;
    case RSP_MEV_DATA_READY:
      out->u.sock.sk = num (ev, info, F_SKADDR);
      break;
    case RSP_MEV_SOCK_STATE:
      out->u.state.sk = num (ev, info, F_SKADDR);
      out->u.state.family = (guint16) num (ev, info, F_FAMILY);
      out->u.state.daddr = (guint32) num (ev, info, F_DADDR);
      out->u.state.dport = (guint16) num (ev, info, F_DPORT);
      out->u.state.sport = (guint16) num (ev, info, F_SPORT);
      out->u.state.protocol = (guint16) num (ev, info, F_PROTOCOL);
      out->u.state.newstate = (gint32) num (ev, info, F_NEWSTATE);
      break;
    case RSP_MEV_SAMPLE:
      resolve_stack (d, ev, out);
      break;
    case RSP_MEV_FILE:
      {
        /* what rsp_file_event_read_with() reads: no inode, no event; no
         * device, device 0 */
        if (info->file.ino == NULL)
          return FALSE;
        out->u.file.ino = read_num (ev, &info->file_ino, info->file.ino);
        if (out->u.file.ino == 0)
          return FALSE;
        if (info->file.dev_is_bdi)
          out->u.file.dev = rsp_file_dev_from_bdi (info->file.dev != NULL ? rsp_event_read_field_str (ev, info->file.dev) : NULL);
        else
          out->u.file.dev = info->file.dev != NULL ? (guint32) read_num (ev, &info->file_dev, info->file.dev) : 0;
      }
      break;
    case RSP_MEV_PROBE:
      out->u.probe.function = info->probe_function;
      out->u.probe.ret = info->probe_return;
      break;
    default:
      break;
    }
  return TRUE;
}

static void
decoder_clear (Decoder *d, RspPerfReader *reader)
{
  g_clear_pointer (&d->chains, rsp_chain_cache_free);
  for (guint i = 0; d->info != NULL && i < rsp_perf_reader_get_n_evsels (reader); i++)
    g_free (d->info[i].probe_function);
  g_clear_pointer (&d->info, g_free);
}

RspModel *
rsp_model_build_with (RspPerfReader *reader, RspSymbolizer *symbolizer, RspChainCacheMode mode,
                      RspProgressFunc progress, gpointer progress_data, GError **error)
{
  if (rsp_perf_reader_find_evsel (reader, "sched:sched_switch") == NULL)
    {
      rsp_symbolizer_free (symbolizer);
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_FOREIGN,
                   _("the recording has no sched:sched_switch events; record it with 'rsp record' or the "
                     "perf record command line in the README"));
      return NULL;
    }

  Decoder d = { 0 };
  d.symbolizer = symbolizer;
  if (mode != RSP_CHAIN_CACHE_OFF)
    d.chains = rsp_chain_cache_new (mode == RSP_CHAIN_CACHE_TINY ? &chain_limits_tiny : &rsp_chain_limits_default);
  d.info = g_new0 (EvselInfo, MAX (rsp_perf_reader_get_n_evsels (reader), 1)); /* classify_evsel() per evsel */
  d.reads_counters = rsp_perf_reader_reads_counters (reader);

  const RspRecording *rec = rsp_perf_reader_get_recording (reader);
  RspRecordingMeta *meta = rec != NULL ? rec->meta : NULL;
  RspAssembler *assembler = rsp_assembler_new (meta != NULL ? meta->keep_awake_pids : NULL);
  /* the names of the files its events name: lives through the assembly */
  guint bad_file_names = 0;
  g_autoptr (RspFileTable) files = rec != NULL && rec->files != NULL
                                       ? rsp_file_table_parse (rec->files, rec->files_size, &bad_file_names)
                                       : NULL;
  rsp_assembler_set_files (assembler, files);
  rsp_assembler_set_requeues_recorded (assembler, rsp_perf_reader_find_evsel (reader, "block:block_rq_requeue") != NULL);
  rsp_assembler_reserve (assembler, rsp_model_recorded_switches (meta, rsp_perf_reader_get_header (reader)->data_size));
  d.assembler = assembler;
  rsp_assembler_set_chain_stacks (assembler, d.chains != NULL ? rsp_chain_cache_stacks (d.chains) : NULL);

  const RspPerfHeader *header = rsp_perf_reader_get_header (reader);
  guint64 data_size = MAX (header->data_size, 1);
  /* the instance's events the model has no use for: counted as they are
   * stepped over, and given to the assembler before the next event, as
   * if it had been fed them (they only extend the time range) */
  rsp_perf_reader_skip_instance_events (reader, model_reads);
  const RspFtraceSkipped *skipped = rsp_perf_reader_get_skipped (reader);
  guint64 n_skipped = skipped != NULL ? skipped->events : 0;
  const RspEvent *ev;
  RspModelEvent mev;
  guint64 n = 0, done = 0;
  while ((ev = rsp_perf_reader_next_ref (reader)) != NULL)
    {
      if (skipped != NULL && skipped->events != n_skipped)
        {
          rsp_assembler_note_unread (assembler, skipped->events - n_skipped, skipped->first_time, skipped->last_time);
          n_skipped = skipped->events;
        }
      rsp_symbolizer_process_event (symbolizer, ev);
      if (decode (&d, ev, &mev))
        rsp_assembler_feed (assembler, &mev);
      /* how far into perf's records (the instance's events are not in them) */
      if (ev->file_offset > header->data_offset)
        done = ev->file_offset - header->data_offset;
      if ((++n & 0xffff) == 0)
        {
          if (progress != NULL && !progress (MIN ((gdouble) done / data_size, 1.0), progress_data))
            {
              g_set_error_literal (error, RSP_READER_ERROR, RSP_READER_ERROR_CANCELLED, _("Cancelled"));
              rsp_perf_reader_skip_instance_events (reader, NULL);
              rsp_assembler_free (assembler);
              rsp_symbolizer_free (symbolizer);
              decoder_clear (&d, reader);
              return NULL;
            }
        }
    }
  if (skipped != NULL && skipped->events != n_skipped)
    rsp_assembler_note_unread (assembler, skipped->events - n_skipped, skipped->first_time, skipped->last_time);
  rsp_perf_reader_skip_instance_events (reader, NULL);
  rsp_assembler_set_chain_stacks (assembler, NULL);
  decoder_clear (&d, reader);

  RspModel *m = rsp_assembler_finish (assembler);
  m->symbolizer = symbolizer;
  m->bad_file_names = bad_file_names;
  m->meta = rsp_recording_meta_ref (meta);
  if (progress != NULL)
    progress (1.0, progress_data);
  return m;
}

RspModel *
rsp_model_load (const char *path, RspProgressFunc progress, gpointer progress_data,
                GPtrArray *warnings, GError **error)
{
  return rsp_model_load_offline (path, FALSE, progress, progress_data, warnings, error);
}

RspModel *
rsp_model_load_offline (const char *path, gboolean offline, RspProgressFunc progress,
                        gpointer progress_data, GPtrArray *warnings, GError **error)
{
  /* the model reads tracepoints' fields and never prints them */
  g_autoptr (RspPerfReader) reader = rsp_perf_reader_open_full (path, RSP_PERF_READER_NO_PRINT, error);
  if (reader == NULL)
    return NULL;
  return rsp_model_build_from_reader (reader, offline, RSP_CHAIN_CACHE_ON, progress, progress_data,
                                      warnings, error);
}

RspModel *
rsp_model_build_from_reader (RspPerfReader *reader, gboolean offline, RspChainCacheMode mode,
                             RspProgressFunc progress, gpointer progress_data,
                             GPtrArray *warnings, GError **error)
{
  RspSymbolizer *symbolizer = rsp_symbolizer_new ();
  g_autoptr (GPtrArray) symbol_warnings = rsp_symbolizer_setup_for_reader (symbolizer, reader, offline);
  RspModel *m = rsp_model_build_with (reader, symbolizer, mode, progress, progress_data, error);
  if (warnings != NULL)
    {
      for (guint i = 0; i < symbol_warnings->len; i++)
        g_ptr_array_add (warnings, g_strdup (g_ptr_array_index (symbol_warnings, i)));
      const char *const *reader_warnings = rsp_perf_reader_warnings (reader);
      for (guint i = 0; reader_warnings[i] != NULL; i++)
        g_ptr_array_add (warnings, g_strdup (reader_warnings[i]));
      if (m != NULL && m->bad_file_names > 0)
        g_ptr_array_add (warnings, g_strdup_printf (ngettext ("the recording's files section is damaged: %u "
                                                              "file is named by its device and inode instead",
                                                              "the recording's files section is damaged: %u "
                                                              "files are named by their device and inode instead",
                                                              m->bad_file_names),
                                                    m->bad_file_names));
    }
  return m;
}
