/* rsp-health.c — counting-mode tracepoint counters, their judgement, and
 * the --keep-awake spinners.  See rsp-health.h. */
#include "rsp-health.h"

#include <glib/gi18n-lib.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rsp-probe.h"

G_DEFINE_QUARK (rsp-health-error-quark, rsp_health_error)

typedef struct {
  char *event;
  GArray *fds; /* int, one per CPU */
} HealthCounter;

struct _RspHealthCounters {
  GArray *cpus;     /* guint */
  GArray *counters; /* HealthCounter */
};

static void
health_counter_clear (gpointer data)
{
  HealthCounter *counter = data;
  for (guint i = 0; i < counter->fds->len; i++)
    close (g_array_index (counter->fds, int, i));
  g_array_unref (counter->fds);
  g_free (counter->event);
}

RspHealthCounters *
rsp_health_counters_new (const GArray *cpus)
{
  g_return_val_if_fail (cpus != NULL, NULL);

  RspHealthCounters *self = g_new0 (RspHealthCounters, 1);
  self->cpus = g_array_copy ((GArray *) cpus);
  self->counters = g_array_new (FALSE, TRUE, sizeof (HealthCounter));
  g_array_set_clear_func (self->counters, health_counter_clear);
  return self;
}

void
rsp_health_counters_free (RspHealthCounters *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->counters);
  g_array_unref (self->cpus);
  g_free (self);
}

static int
open_counting_tracepoint (guint64 id, int cpu)
{
  struct perf_event_attr attr = { 0 };
  attr.type = PERF_TYPE_TRACEPOINT;
  attr.size = sizeof attr;
  attr.config = id;
  attr.disabled = 1;
  return (int) syscall (SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

gboolean
rsp_health_counters_add (RspHealthCounters *self, const char *event, guint64 id, const char *filter,
                         GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (event != NULL, FALSE);

  HealthCounter counter = { g_strdup (event), g_array_new (FALSE, FALSE, sizeof (int)) };
  for (guint i = 0; i < self->cpus->len; i++)
    {
      int cpu = (int) g_array_index (self->cpus, guint, i);
      int fd = open_counting_tracepoint (id, cpu);
      gboolean refused = fd >= 0 && filter != NULL && ioctl (fd, PERF_EVENT_IOC_SET_FILTER, filter) != 0;
      if (fd < 0 || refused)
        {
          int saved_errno = errno;
          if (refused)
            {
              close (fd);
              g_set_error (error, RSP_HEALTH_ERROR, RSP_HEALTH_ERROR_FILTER,
                           _("cannot count %s with the filter '%s' on CPU %d: %s"), event, filter, cpu,
                           g_strerror (saved_errno));
            }
          else
            g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                         _("cannot count %s on CPU %d: %s"), event, cpu, g_strerror (saved_errno));
          health_counter_clear (&counter);
          return FALSE;
        }
      g_array_append_val (counter.fds, fd);
    }
  g_array_append_val (self->counters, counter);
  return TRUE;
}

static void
counters_ioctl (RspHealthCounters *self, unsigned long request)
{
  for (guint i = 0; i < self->counters->len; i++)
    {
      HealthCounter *counter = &g_array_index (self->counters, HealthCounter, i);
      for (guint j = 0; j < counter->fds->len; j++)
        ioctl (g_array_index (counter->fds, int, j), request, 0);
    }
}

void
rsp_health_counters_enable (RspHealthCounters *self)
{
  g_return_if_fail (self != NULL);
  counters_ioctl (self, PERF_EVENT_IOC_ENABLE);
}

void
rsp_health_counters_disable (RspHealthCounters *self)
{
  g_return_if_fail (self != NULL);
  counters_ioctl (self, PERF_EVENT_IOC_DISABLE);
}

GArray *
rsp_health_entries_new (void)
{
  GArray *entries = g_array_new (FALSE, TRUE, sizeof (RspHealthEntry));
  g_array_set_clear_func (entries, rsp_health_entry_clear);
  return entries;
}

GArray *
rsp_health_counters_read (RspHealthCounters *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  GArray *entries = rsp_health_entries_new ();
  for (guint i = 0; i < self->counters->len; i++)
    {
      HealthCounter *counter = &g_array_index (self->counters, HealthCounter, i);
      RspHealthEntry entry = { g_strdup (counter->event), 0, 0 };
      for (guint j = 0; j < counter->fds->len; j++)
        {
          guint64 value = 0;
          if (read (g_array_index (counter->fds, int, j), &value, sizeof value) == sizeof value)
            entry.counted += value;
        }
      g_array_append_val (entries, entry);
    }
  return entries;
}

gboolean
rsp_health_entry_incomplete (const RspHealthEntry *entry)
{
  g_return_val_if_fail (entry != NULL, FALSE);

  if (entry->recorded >= entry->counted)
    return FALSE;
  guint64 lost = entry->counted - entry->recorded;
  return lost >= RSP_HEALTH_MIN_LOST
         && (double) lost > RSP_HEALTH_MAX_LOST_FRACTION * (double) entry->counted;
}

static void
append_entry (GString *list, const RspHealthEntry *entry)
{
  g_string_append_printf (list, "%s%s %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT, list->len > 0 ? ", " : "",
                          entry->event, entry->recorded, entry->counted);
}

void
rsp_health_judge (const GArray *entries, gboolean keep_awake, const char *const *covered, guint64 lost_records,
                  RspHealthVerdict *verdict)
{
  g_return_if_fail (entries != NULL);
  g_return_if_fail (verdict != NULL);

  memset (verdict, 0, sizeof *verdict);
  verdict->warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) idle = g_string_new (NULL);  /* irq context on idle CPUs: docs/RECORDING.md */
  g_autoptr (GString) other = g_string_new (NULL);

  for (guint i = 0; i < entries->len; i++)
    {
      const RspHealthEntry *entry = &g_array_index (entries, RspHealthEntry, i);
      const RspEventSpec *spec = rsp_probe_event_spec (entry->event);

      verdict->n_checked++;
      if (!rsp_health_entry_incomplete (entry))
        continue;
      if (covered != NULL && g_strv_contains (covered, entry->event))
        {
          verdict->n_covered++;
          continue;
        }
      verdict->n_incomplete++;
      /* With --keep-awake no CPU idles: a loss there has another cause.
       * Nor is it the idle loss when perf's buffers overflowed (perf
       * drops idle-context events without a PERF_RECORD_LOST): the
       * overflow explains it, and a heavy load keeps the CPUs busy. */
      append_entry (spec != NULL && spec->irq_context && !keep_awake && lost_records == 0 ? idle : other, entry);
    }

  const char *overflow = lost_records > 0 ? _(", and perf's buffers overflowed") : "";
  if (idle->len > 0)
    {
      verdict->idle_loss_suspected = TRUE;
      g_ptr_array_add (verdict->warnings,
                       g_strdup_printf (_("perf dropped interrupt-context events while CPUs were idle "
                                        "(recorded/counted: %s)%s, and RSP's tracefs instance, which records "
                                        "them, did not run (see above why): the analysis will infer what is "
                                        "missing; fix the instance's problem and record again"),
                                        idle->str, overflow));
    }
  if (other->len > 0)
    g_ptr_array_add (verdict->warnings,
                     g_strdup_printf (_("events were lost (recorded/counted: %s)%s; the analysis will infer "
                                      "what is missing"),
                                      other->str, lost_records > 0 ? _(" as perf's buffers overflowed") : ""));

  if (verdict->n_checked == 0)
    verdict->summary = g_strdup (_("not checked"));
  else if (verdict->n_incomplete == 0 && verdict->n_covered == 0)
    verdict->summary = g_strdup_printf (_("all %u tracepoints complete"), verdict->n_checked);
  else if (verdict->n_incomplete == 0)
    verdict->summary = g_strdup_printf (_("all %u tracepoints complete (%u of them through the tracefs instance)"),
                                        verdict->n_checked, verdict->n_covered);
  else
    verdict->summary = g_strdup_printf (_("%u of %u tracepoints incomplete"), verdict->n_incomplete,
                                        verdict->n_checked);
}

void
rsp_health_verdict_clear (RspHealthVerdict *verdict)
{
  g_return_if_fail (verdict != NULL);
  g_clear_pointer (&verdict->warnings, g_ptr_array_unref);
  g_clear_pointer (&verdict->summary, g_free);
}

struct _RspKeepAwake {
  GArray *pids; /* gint32; 0 once reaped */
  GArray *live; /* gint32 copy handed out, pids as started */
};

/* Runs in the forked child: never returns. */
G_GNUC_NORETURN static void
spin_on_cpu (guint cpu, pid_t parent)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (getppid () != parent)
    _exit (0);
  prctl (PR_SET_NAME, "rsp-keep-awake");
  signal (SIGINT, SIG_DFL);
  signal (SIGTERM, SIG_DFL);
  signal (SIGHUP, SIG_DFL);
  sigset_t none;
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  setpgid (0, 0);
  close_range (3, ~0U, 0);

  cpu_set_t set;
  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  struct sched_param param = { 0 };
  if (sched_setaffinity (0, sizeof set, &set) != 0
      || sched_setscheduler (0, SCHED_IDLE, &param) != 0)
    _exit (1);
  for (;;)
    ;
}

RspKeepAwake *
rsp_keep_awake_start (const GArray *cpus, GError **error)
{
  g_return_val_if_fail (cpus != NULL, NULL);

  g_autoptr (RspKeepAwake) self = g_new0 (RspKeepAwake, 1);
  self->pids = g_array_new (FALSE, FALSE, sizeof (gint32));
  self->live = g_array_new (FALSE, FALSE, sizeof (gint32));
  pid_t parent = getpid ();

  for (guint i = 0; i < cpus->len; i++)
    {
      guint cpu = g_array_index (cpus, guint, i);
      pid_t pid = fork ();
      if (pid < 0)
        {
          int saved_errno = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                       _("cannot start the --keep-awake loop for CPU %u: %s"), cpu,
                       g_strerror (saved_errno));
          return NULL; /* the autoptr kills the ones already started */
        }
      if (pid == 0)
        spin_on_cpu (cpu, parent);
      gint32 value = pid;
      g_array_append_val (self->pids, value);
      g_array_append_val (self->live, value);
    }
  return g_steal_pointer (&self);
}

const GArray *
rsp_keep_awake_get_pids (RspKeepAwake *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->live;
}

void
rsp_keep_awake_stop (RspKeepAwake *self)
{
  g_return_if_fail (self != NULL);

  for (guint i = 0; i < self->pids->len; i++)
    {
      gint32 *pid = &g_array_index (self->pids, gint32, i);
      if (*pid <= 0)
        continue;
      kill (*pid, SIGKILL);
      while (waitpid (*pid, NULL, 0) < 0 && errno == EINTR)
        ;
      *pid = 0;
    }
}

void
rsp_keep_awake_free (RspKeepAwake *self)
{
  if (self == NULL)
    return;
  rsp_keep_awake_stop (self);
  g_array_unref (self->pids);
  g_array_unref (self->live);
  g_free (self);
}

char *
rsp_health_perf_loss_text (guint64 lost_events, guint64 lost_samples, const RspPerfKept *kept, gboolean dwarf)
{
  if (kept->clock_bytes * 2 >= kept->bytes)
    return g_strdup_printf (_("perf lost %llu events and %llu samples (its buffers overflowed): use a lower "
                              "--freq%s if it matters"),
                            (unsigned long long) lost_events, (unsigned long long) lost_samples,
                            dwarf ? _(" or --call-graph fp") : "");
  guint percent = (guint) ((kept->bytes - kept->clock_bytes) * 100 / MAX (kept->bytes, 1));
  return g_strdup_printf (_("perf lost %llu events and %llu samples (its buffers overflowed): %llu of the %llu "
                            "samples it kept (%u%% of their bytes) are tracepoint events, not cpu-clock samples, so "
                            "a lower --freq would not help: the load made events faster than perf could write them "
                            "while it competed with perf for the CPUs. If it matters, record a shorter stretch or a "
                            "smaller load%s; the analysis infers what is missing"),
                          (unsigned long long) lost_events, (unsigned long long) lost_samples,
                          (unsigned long long) (kept->samples - kept->clock_samples),
                          (unsigned long long) kept->samples, percent, dwarf ? _(", or use --call-graph fp") : "");
}
