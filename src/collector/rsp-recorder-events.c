/* rsp-recorder-events.c — what `rsp record` records: the machine probed
 * (perf, tracefs, privileges, the events this kernel has), the tracepoints
 * left to perf when RSP's tracefs instance runs, and perf's command line. */
#include "rsp-recorder-private.h"

#include <glib/gi18n-lib.h>
#include <stdio.h>
#include <unistd.h>

#define SAMPLING_EVENT_FORMAT "cpu-clock/freq=%u/"

void
recorder_probe_clear (Probe *probe)
{
  g_clear_pointer (&probe->perf, g_free);
  g_clear_pointer (&probe->tracefs, g_free);
  if (probe->events.present != NULL)
    rsp_probed_events_clear (&probe->events);
  g_clear_pointer (&probe->tracepoints, g_free); /* names are static */
  g_clear_pointer (&probe->all_events, g_strfreev);
}

gboolean
recorder_probe_machine (const RspRecorderOptions *options, Probe *probe, GError **error)
{
  probe->perf = rsp_probe_find_perf (g_getenv ("RSP_PERF"), g_getenv ("PATH"), error);
  if (probe->perf == NULL)
    return FALSE;

  gboolean mounted_now = FALSE;
  probe->tracefs = rsp_probe_tracefs (geteuid () == 0, &mounted_now, error);
  if (probe->tracefs == NULL)
    return FALSE;
  if (mounted_now)
    fprintf (stderr, _("rsp record: mounted tracefs at %s\n"), probe->tracefs);

  RspPrivileges privileges;
  rsp_probe_privileges_here (&privileges, probe->tracefs);
  if (!rsp_probe_check_privileges (&privileges, error))
    return FALSE;

  if (!rsp_probe_events (probe->tracefs, g_getenv ("RSP_RECORD_PRETEND_MISSING"), &probe->events, error))
    return FALSE;
  for (guint i = 0; i < probe->events.missing->len; i++)
    {
      const RspMissingEvent *missing = &g_array_index (probe->events.missing, RspMissingEvent, i);
      fprintf (stderr, _("rsp record: %s missing: %s\n"), missing->name, missing->reason);
    }

  guint n = probe->events.present->len;
  probe->tracepoints = g_new0 (char *, n + 1);
  probe->all_events = g_new0 (char *, n + 2);
  for (guint i = 0; i < n; i++)
    {
      const RspProbedEvent *event = &g_array_index (probe->events.present, RspProbedEvent, i);
      probe->tracepoints[i] = (char *) event->name;
      probe->all_events[i] = g_strdup (event->name);
    }
  probe->all_events[n] = g_strdup_printf (SAMPLING_EVENT_FORMAT, options->freq);
  return TRUE;
}

/* Events the tracefs instance records instead of perf when it runs.  They
 * fire in interrupt context (perf drops them on idle CPUs) or the model
 * needs no stack of theirs, and perf's sampling of tracepoints is what
 * slows an event-dense workload: on a PostgreSQL commit loop, perf with
 * every tracepoint cost +46%, with the interrupt-time ones left to the
 * instance +22% (docs/PERFORMANCE.md).  sched_waking is among them: the
 * waker's context comes from the instance's interrupt, softirq and timer
 * brackets, and a callchain per wake-up cost 1.2 us of the woken task's
 * CPU (perf bench sched pipe).  perf keeps sched_switch (the sleeper's
 * stack) and the events that fire in the task they describe (fork, exec,
 * exit, sends, routes, block_rq_insert). */
static const char *const instance_only_events[] = {
  "sched:sched_waking", "sched:sched_wakeup", "block:block_rq_issue", "block:block_rq_complete", "irq:irq_handler_entry",
  "irq:irq_handler_exit", "irq:softirq_entry", "irq:softirq_exit", "sock:sk_data_ready",
  "sock:inet_sock_set_state", NULL,
};

/* What perf records: the probed tracepoints, less those the running
 * instance has taken over. */
char **
session_perf_tracepoints (const Session *s, const Probe *probe)
{
  g_autoptr (RspFtraceMeta) meta = s->ftrace != NULL ? rsp_ftrace_build_meta (s->ftrace) : NULL;
  GPtrArray *out = g_ptr_array_new ();
  for (guint i = 0; probe->tracepoints != NULL && probe->tracepoints[i] != NULL; i++)
    {
      const char *name = probe->tracepoints[i];
      if (meta != NULL && meta->events != NULL && g_strv_contains (instance_only_events, name)
          && g_strv_contains ((const char *const *) meta->events, name))
        continue;
      g_ptr_array_add (out, g_strdup (name));
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

/* The tracepoint whose stack the model reads: the sleeper's at
 * sched_switch (cpu-clock samples carry theirs too).  Every other
 * tracepoint is recorded without a callchain: a stack nobody reads costs
 * an unwind per event, and for DWARF 8 kB of copied stack.  sched_waking,
 * when the tracefs instance cannot take it, keeps its stack: the waker's
 * kernel frames then tell an interrupt's wake-up from a task's. */
static const char *const stack_events[] = { "sched:sched_switch", "sched:sched_waking", NULL };

GArray *
session_perf_filters (const Probe *probe, const char *const *perf_events)
{
  GArray *filters = rsp_event_filters_new ();
  for (guint i = 0; perf_events != NULL && perf_events[i] != NULL; i++)
    {
      const char *filter =
        rsp_probe_event_filter (probe->tracefs, perf_events[i], g_getenv ("RSP_RECORD_PRETEND_MISSING"));
      if (filter != NULL)
        rsp_event_filters_add (filters, perf_events[i], filter);
    }
  return filters;
}

char **
rsp_recorder_perf_argv (const char *perf, const RspRecorderOptions *options,
                        const char *const *tracepoints, const GArray *filters, const char *output, int ctl_fd,
                        int ack_fd, gboolean large_buffers)
{
  g_return_val_if_fail (perf != NULL && options != NULL && output != NULL, NULL);

  GPtrArray *args = g_ptr_array_new ();
  g_ptr_array_add (args, g_strdup (perf));
  g_ptr_array_add (args, g_strdup ("record"));
  g_ptr_array_add (args, g_strdup ("-a"));
  g_ptr_array_add (args, g_strdup ("-k"));
  g_ptr_array_add (args, g_strdup ("monotonic"));
  g_ptr_array_add (args, g_strdup ("--call-graph"));
  g_ptr_array_add (args, g_strdup (options->call_graph == RSP_CALL_GRAPH_DWARF ? "dwarf" : "fp"));
  g_ptr_array_add (args, g_strdup ("--delay=-1"));
  g_ptr_array_add (args, g_strdup_printf ("--control=fd:%d,%d", ctl_fd, ack_fd));
  /* No side-band thread for BPF program events (which RSP does not read):
   * perf 6.1 joins that thread at exit only when its poll times out, which
   * kept every perf record running up to a second after its command
   * ended (perf record -a -- true: 1.06 s, 0.09 s with this). */
  g_ptr_array_add (args, g_strdup ("--no-bpf-event"));
  /* DWARF samples carry 8 kB of stack each: they need more room. */
  if (large_buffers)
    g_ptr_array_add (args, g_strdup (options->call_graph == RSP_CALL_GRAPH_DWARF ? "--mmap-pages=8M"
                                                                                : "--mmap-pages=2M"));
  g_ptr_array_add (args, g_strdup ("-o"));
  g_ptr_array_add (args, g_strdup (output));
  for (guint i = 0; tracepoints != NULL && tracepoints[i] != NULL; i++)
    {
      g_ptr_array_add (args, g_strdup ("-e"));
      g_ptr_array_add (args, g_strv_contains (stack_events, tracepoints[i])
                                 ? g_strdup (tracepoints[i])
                                 : g_strdup_printf ("%s/call-graph=no/", tracepoints[i]));
      const char *filter = rsp_event_filters_find (filters, tracepoints[i]);
      if (filter != NULL)
        {
          g_ptr_array_add (args, g_strdup ("--filter"));
          g_ptr_array_add (args, g_strdup (filter));
        }
    }
  g_ptr_array_add (args, g_strdup ("-e"));
  g_ptr_array_add (args, g_strdup_printf (SAMPLING_EVENT_FORMAT, options->freq));
  g_ptr_array_add (args, NULL);
  return (char **) g_ptr_array_free (args, FALSE);
}
