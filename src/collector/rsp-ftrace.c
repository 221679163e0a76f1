/* rsp-ftrace.c — RSP's own tracefs instance (see rsp-ftrace.h). */
#include "rsp-ftrace.h"

#include <glib/gi18n-lib.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <tracefs.h>
#include <unistd.h>

#include "rsp-ftrace-section.h"
#include "rsp-probe.h"
#include "rsp-user-file.h"

#define MAX_NAME_TRIES 8
#define PERF_TIMER_EXIT_FILTER_MAX 4000 /* bytes: the kernel refuses a filter longer than a page */
#define DRAIN_READS_MAX 4096 /* per wake-up and CPU: 16 MB, then poll again */

static const char *const ftrace_events[] = {
  "sched:sched_waking",
  "sched:sched_wakeup",
  "sched:sched_wakeup_new",
  "block:block_rq_insert",
  "block:block_rq_issue",
  "block:block_rq_complete",
  /* a queued request merged into another: never issued nor completed, so
   * without it the model would take it for queued to the end */
  "block:block_rq_merge",
  /* an issued request the device did not take (busy), queued again: its
   * next issue is the one that counts, and another issue at its sector
   * without one is another request (two flushes) */
  "block:block_rq_requeue",
  "irq:irq_handler_entry",
  "irq:irq_handler_exit",
  "irq:softirq_entry",
  "irq:softirq_exit",
  "sock:sk_data_ready",
  "sock:inet_sock_set_state",
  "timer:hrtimer_expire_entry",
  "timer:hrtimer_expire_exit",
  "timer:hrtimer_start",
  "timer:hrtimer_cancel",
  /* the files behind disk waits: rsp_file_events () (rsp-files.h) */
  "readahead:page_cache_sync_ra",
  "readahead:page_cache_async_ra",
  "filemap:mm_filemap_fault",
  "filemap:file_check_and_advance_wb_err",
  "ext4:ext4_sync_file_enter",
  "writeback:folio_wait_writeback",
  "writeback:writeback_single_inode_start",
  "iomap:iomap_dio_rw_begin",
  NULL,
};

/* perf's own sampling timer: each cpu-clock sample is taken in an expiry
 * of perf_swevent_hrtimer, which restarts it.  Its expiry (entry) and start
 * are left out of the instance: a third to a half of all its events while
 * RSP samples at 1000 Hz, never the cause of a wake-up (the callback wakes
 * no task; perf's reader is woken later, from an irq_work).  The expiry's
 * exit names no function, only the timer: once perf runs, its timers'
 * addresses are learnt and the exits of those left out too
 * (rsp_ftrace_filter_perf_timer_exits()).  The model matches exits to
 * entries per CPU and ignores one without an entry. */
#define PERF_TIMER_FUNCTION "perf_swevent_hrtimer"
static const char *const perf_timer_events[] = { "timer:hrtimer_expire_entry", "timer:hrtimer_start", NULL };

typedef struct {
  guint cpu;
  int fd;                   /* per_cpu/cpuN/trace_pipe_raw, non-blocking; -1 once closed */
  struct tracefs_cpu *tcpu; /* reads FD */
  int data_fd;              /* the unlinked temporary file of its sub-buffers; -1 live */
  GByteArray *live;         /* live: the sub-buffers read since the last rsp_ftrace_take_live */
  guint64 bytes;
  gboolean failed;          /* a write failed: the data stops there */
} CpuReader;

struct _RspFtrace {
  const char *const *event_list; /* what it enables: ftrace_events, or a live instance's */
  char *tracefs;
  struct tracefs_instance *instance;
  char *name;
  gboolean destroyed;
  gboolean tracing;
  gboolean stopped;
  guint32 subbuf_size;
  int buffer_kb;           /* asked per CPU */
  guint8 *buffer;          /* one sub-buffer */
  GArray *readers;         /* CpuReader */
  GPtrArray *events;       /* char *: enabled, "system:name" */
  GArray *missing;         /* RspMissingEvent */
  GArray *filters;         /* RspEventFilter: set on enabled events */
  GArray *stats;           /* RspFtraceCpuStats, after stop */
  char *error;             /* what failed while it ran */
  GPtrArray *mapped;       /* GMappedFile: the data parts handed out */
  GByteArray *live_head;   /* a live instance's section head, made once */
};

const char *const *
rsp_ftrace_events (void)
{
  return ftrace_events;
}

gboolean
rsp_ftrace_parse_instance_name (const char *name, pid_t *pid)
{
  gsize prefix = strlen (RSP_FTRACE_INSTANCE_PREFIX);
  if (name == NULL || strncmp (name, RSP_FTRACE_INSTANCE_PREFIX, prefix) != 0)
    return FALSE;
  const char *p = name + prefix;
  const char *dash = strchr (p, '-');
  if (dash == NULL || dash == p || dash - p > 10)
    return FALSE;
  g_autofree char *digits = g_strndup (p, (gsize) (dash - p));
  guint64 value;
  if (!g_ascii_string_to_unsigned (digits, 10, 1, G_MAXINT32, &value, NULL) || digits[0] == '0')
    return FALSE;
  const char *hex = dash + 1;
  if (*hex == '\0' || strlen (hex) > 16)
    return FALSE;
  for (const char *h = hex; *h != '\0'; h++)
    if (!g_ascii_isxdigit (*h) || g_ascii_isupper (*h))
      return FALSE;
  if (pid != NULL)
    *pid = (pid_t) value;
  return TRUE;
}

gboolean
rsp_ftrace_pid_is_stale (pid_t pid)
{
  if (pid <= 0)
    return TRUE;
  if (kill (pid, 0) != 0 && errno == ESRCH)
    return TRUE;
  /* alive: is it an rsp?  A reused pid is another program's. */
  g_autofree char *path = g_strdup_printf ("/proc/%d/comm", (int) pid);
  g_autofree char *comm = NULL;
  if (!g_file_get_contents (path, &comm, NULL, NULL))
    return access ("/proc/self/comm", R_OK) == 0; /* gone meanwhile, or no /proc: keep it */
  /* "rsp", or a build of it under another name ("rsp-dev"): keep its
   * instance, a recording may be running */
  return !g_str_has_prefix (comm, "rsp");
}

guint
rsp_ftrace_remove_stale (const char *tracefs)
{
  g_autofree char *dir = g_build_filename (tracefs, "instances", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return 0;
  guint removed = 0;
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      pid_t pid;
      if (!rsp_ftrace_parse_instance_name (name, &pid) || pid == getpid () || !rsp_ftrace_pid_is_stale (pid))
        continue;
      struct tracefs_instance *instance = tracefs_instance_alloc (tracefs, name);
      if (instance == NULL)
        continue;
      /* events off first: rmdir refuses while they are in use on old kernels */
      tracefs_trace_off (instance);
      tracefs_event_disable (instance, NULL, NULL);
      if (tracefs_instance_destroy (instance) == 0)
        {
          removed++;
          fprintf (stderr, _("rsp record: removed the tracefs instance %s left by rsp process %d, which is gone\n"),
                   name, (int) pid);
        }
      else
        fprintf (stderr, _("rsp record: warning: cannot remove the stale tracefs instance %s/%s: %s\n"), dir,
                 name, g_strerror (errno));
      tracefs_instance_free (instance);
    }
  return removed;
}

static gboolean
tracefs_has_instances (const char *tracefs)
{
  g_autofree char *dir = g_build_filename (tracefs, "instances", NULL);
  return g_file_test (dir, G_FILE_TEST_IS_DIR);
}

static void
set_errno_error (GError **error, int err, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
set_errno_error (GError **error, int err, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *text = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (err), text);
}

/* TRUE when the instance's trace_clock has CLOCK selected ("[mono]"). */
static gboolean
clock_selected (struct tracefs_instance *instance, const char *clock)
{
  g_autofree char *text = tracefs_instance_file_read (instance, "trace_clock", NULL);
  g_autofree char *want = g_strdup_printf ("[%s]", clock);
  return text != NULL && strstr (text, want) != NULL;
}

static void
add_missing (RspFtrace *self, const char *event, const char *reason)
{
  RspMissingEvent missing = { g_strdup (event), g_strdup (reason) };
  g_array_append_val (self->missing, missing);
}

static void
enable_events (RspFtrace *self, const char *pretend_missing)
{
  const char *const *list = self->event_list;
  for (guint i = 0; list[i] != NULL; i++)
    {
      g_auto (GStrv) parts = g_strsplit (list[i], ":", 2);
      g_autofree char *dir = g_build_filename (self->tracefs, "events", parts[0], parts[1], NULL);
      if (rsp_probe_pretends_missing (pretend_missing, list[i]))
        {
          add_missing (self, list[i], "marked missing by RSP_RECORD_PRETEND_MISSING");
          continue;
        }
      if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
        {
          add_missing (self, list[i], _("this kernel has no such tracepoint"));
          continue;
        }
      errno = 0;
      if (tracefs_event_enable (self->instance, parts[0], parts[1]) != 0)
        {
          g_autofree char *reason = g_strdup_printf (_("cannot enable it in the instance: %s"),
                                                     g_strerror (errno != 0 ? errno : EINVAL));
          add_missing (self, list[i], reason);
          continue;
        }
      g_ptr_array_add (self->events, g_strdup (list[i]));
    }
}

/* "0x..." : NAME's address in /proc/kallsyms (a text symbol), or NULL when
 * it is not there or hidden (kptr_restrict). */
static char *
kallsyms_text_address (const char *name)
{
  FILE *f = fopen ("/proc/kallsyms", "re");
  if (f == NULL)
    return NULL;
  char *line = NULL;
  size_t cap = 0;
  char *found = NULL;
  gsize name_len = strlen (name);
  while (found == NULL && getline (&line, &cap, f) > 0)
    {
      /* "ffffffff8157b6e0 t perf_swevent_hrtimer\n" */
      char *space = strchr (line, ' ');
      if (space == NULL || (space[1] != 't' && space[1] != 'T') || space[2] != ' '
          || strncmp (space + 3, name, name_len) != 0 || (space[3 + name_len] != '\n' && space[3 + name_len] != '\0'))
        continue;
      *space = '\0';
      guint64 address;
      if (g_ascii_string_to_unsigned (line, 16, 1, G_MAXUINT64, &address, NULL))
        found = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", address);
    }
  free (line);
  fclose (f);
  return found;
}

static gboolean
set_filter (RspFtrace *self, const char *event, const char *filter)
{
  g_auto (GStrv) parts = g_strsplit (event, ":", 2);
  if (tracefs_event_file_write (self->instance, parts[0], parts[1], "filter", filter) < 0)
    return FALSE;
  rsp_event_filters_add (self->filters, event, filter);
  return TRUE;
}

/* Leaves perf's sampling timer out of the events of perf_timer_events that
 * are enabled: by the function's name where the kernel's filters know
 * ".function", else by its address in /proc/kallsyms; when neither is
 * accepted, the events are recorded whole.  "filter:function" in
 * PRETEND_MISSING (RSP_RECORD_PRETEND_MISSING) skips the first way, as an
 * older kernel would refuse it. */
static void
filter_perf_timer (RspFtrace *self, const char *pretend_missing)
{
  gboolean by_name = !rsp_probe_pretends_missing (pretend_missing, "filter:function");
  g_autofree char *address = NULL;
  gboolean address_read = FALSE;
  for (guint i = 0; perf_timer_events[i] != NULL; i++)
    {
      if (!g_ptr_array_find_with_equal_func (self->events, perf_timer_events[i], g_str_equal, NULL))
        continue;
      if (by_name && set_filter (self, perf_timer_events[i], "function.function != " PERF_TIMER_FUNCTION))
        continue;
      if (!address_read)
        {
          address = kallsyms_text_address (PERF_TIMER_FUNCTION);
          address_read = TRUE;
        }
      if (address != NULL)
        {
          g_autofree char *filter = g_strdup_printf ("function != %s", address);
          set_filter (self, perf_timer_events[i], filter);
        }
    }
}

/* Records in part the enabled events RSP records so (rsp_probe_event_filter():
 * a local socket's sends and data); where the kernel refuses the filter,
 * the event is recorded whole. */
static void
filter_local_sockets (RspFtrace *self, const char *tracefs, const char *pretend_missing)
{
  for (guint i = 0; i < self->events->len; i++)
    {
      const char *event = g_ptr_array_index (self->events, i);
      const char *filter = rsp_probe_event_filter (tracefs, event, pretend_missing);
      if (filter != NULL)
        set_filter (self, event, filter);
    }
}

/* A new instance of RSP's own, "rsp-<pid>-<random hex>" (*NAME), tracing
 * off; NULL with errno set, EEXIST when MAX_NAME_TRIES names were taken. */
static struct tracefs_instance *
own_instance_new (char **name)
{
  for (guint tries = 0; tries < MAX_NAME_TRIES; tries++)
    {
      g_free (*name);
      *name = g_strdup_printf (RSP_FTRACE_INSTANCE_PREFIX "%d-%08x", (int) getpid (), g_random_int ());
      /* tracefs_instance_create () returns an existing instance as its own */
      if (tracefs_instance_exists (*name))
        continue;
      errno = 0;
      struct tracefs_instance *instance = tracefs_instance_create (*name);
      if (instance == NULL && errno == EEXIST)
        continue; /* made by someone else just now */
      if (instance == NULL)
        {
          if (errno == 0)
            errno = EACCES;
          return NULL;
        }
      if (!tracefs_instance_is_new (instance))
        {
          /* someone else's, made between the test and the creation */
          tracefs_instance_free (instance);
          continue;
        }
      return instance;
    }
  errno = EEXIST;
  return NULL;
}

/* Learning perf's timers: the timers seen expiring, and on which CPUs. */
typedef struct {
  int entry_id;
  struct tep_format_field *hrtimer;
  GArray *timers;      /* guint64, each once */
  GHashTable *cpus;    /* CPU + 1 */
} TimerSeen;

static int
timer_seen (struct tep_event *event, struct tep_record *record, int cpu, void *data)
{
  TimerSeen *seen = data;
  unsigned long long value;
  if (event->id != seen->entry_id || tep_read_number_field (seen->hrtimer, record->data, &value) != 0 || value == 0)
    return 0;
  g_hash_table_add (seen->cpus, GINT_TO_POINTER (cpu + 1));
  for (guint i = 0; i < seen->timers->len; i++)
    if (g_array_index (seen->timers, guint64, i) == value)
      return 0;
  guint64 v = value;
  g_array_append_val (seen->timers, v);
  return 0;
}

/* A handle that knows the running kernel's hrtimer_expire_entry alone:
 * tracefs_local_events_system() would read /proc/kallsyms too, a tenth of
 * a second while perf's timers fire. */
static struct tep_handle *
timer_entry_tep (void)
{
  int header_size = 0, format_size = 0;
  g_autofree char *header = tracefs_instance_file_read (NULL, "events/header_page", &header_size);
  g_autofree char *format = tracefs_event_file_read (NULL, "timer", "hrtimer_expire_entry", "format", &format_size);
  if (header == NULL || format == NULL || header_size <= 0 || format_size <= 0)
    return NULL;
  struct tep_handle *tep = tep_alloc ();
  if (tep == NULL)
    return NULL;
  enum tep_endian local = G_BYTE_ORDER == G_BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN;
  tep_set_file_bigendian (tep, local);
  tep_set_local_bigendian (tep, local);
  tep_set_long_size (tep, (int) sizeof (long));
  tep_set_page_size (tep, (int) sysconf (_SC_PAGESIZE));
  if (tep_parse_header_page (tep, header, header_size, (int) sizeof (long)) != 0
      || tep_parse_event (tep, format, format_size, "timer") != TEP_ERRNO__SUCCESS)
    {
      tep_free (tep);
      return NULL;
    }
  return tep;
}

static void
helper_destroy (struct tracefs_instance *instance)
{
  if (instance == NULL)
    return;
  tracefs_instance_destroy (instance);
  tracefs_instance_free (instance);
}

/* The addresses of the timers whose expiries ENTRY_FILTER selects (perf's
 * sampling timers), seen within WAIT_MS in an instance of their own, or
 * until they were seen on N_CPUS CPUs; NULL when none could be.  *HELPER
 * gets that instance, stopped, for helper_destroy() (its removal takes
 * tens of ms: after the filter is set). */
static GArray *
learn_timers (const char *entry_filter, guint n_cpus, guint wait_ms, struct tracefs_instance **helper)
{
  g_autofree char *name = NULL;
  struct tracefs_instance *instance = *helper = own_instance_new (&name);
  if (instance == NULL)
    return NULL;
  GArray *timers = NULL;
  struct tep_handle *tep = NULL;
  TimerSeen seen = { 0 };
  seen.timers = g_array_new (FALSE, FALSE, sizeof (guint64));
  seen.cpus = g_hash_table_new (g_direct_hash, g_direct_equal);
  tracefs_trace_off (instance);
  tep = timer_entry_tep ();
  struct tep_event *entry = tep != NULL ? tep_find_event_by_name (tep, "timer", "hrtimer_expire_entry") : NULL;
  seen.hrtimer = entry != NULL ? tep_find_field (entry, "hrtimer") : NULL;
  if (seen.hrtimer == NULL || seen.hrtimer->size != 8
      || tracefs_event_file_write (instance, "timer", "hrtimer_expire_entry", "filter", entry_filter) < 0
      || tracefs_event_file_write (instance, "timer", "hrtimer_expire_entry", "enable", "1") < 0
      || tracefs_trace_on (instance) != 0)
    goto out;
  seen.entry_id = entry->id;
  gint64 until = g_get_monotonic_time () + (gint64) wait_ms * 1000;
  do
    {
      g_usleep (2000);
      tracefs_iterate_raw_events (tep, instance, NULL, 0, timer_seen, &seen);
    }
  while (g_hash_table_size (seen.cpus) < n_cpus && g_get_monotonic_time () < until);
  if (seen.timers->len > 0)
    timers = g_steal_pointer (&seen.timers);

  tracefs_trace_off (instance);
  tracefs_event_file_write (instance, "timer", "hrtimer_expire_entry", "enable", "0");
out:
  if (tep != NULL)
    tep_free (tep);
  if (seen.timers != NULL)
    g_array_unref (seen.timers);
  g_hash_table_unref (seen.cpus);
  return timers;
}

guint
rsp_ftrace_filter_perf_timer_exits (RspFtrace *self, guint wait_ms)
{
  g_return_val_if_fail (self != NULL, 0);
  const char *exit_event = "timer:hrtimer_expire_exit";
  if (self->destroyed || !g_ptr_array_find_with_equal_func (self->events, exit_event, g_str_equal, NULL)
      || rsp_event_filters_find (self->filters, exit_event) != NULL)
    return 0;
  /* the expiries of perf's timer, as the entries' filter leaves them out */
  const char *left_out = rsp_event_filters_find (self->filters, "timer:hrtimer_expire_entry");
  const char *ne = left_out != NULL ? strstr (left_out, " != ") : NULL;
  if (ne == NULL)
    return 0;
  g_autofree char *entry_filter = g_strdup_printf ("%.*s == %s", (int) (ne - left_out), left_out, ne + 4);
  struct tracefs_instance *helper;
  g_autoptr (GArray) timers = learn_timers (entry_filter, MAX (self->readers->len, 1), wait_ms, &helper);
  if (timers == NULL)
    {
      helper_destroy (helper);
      return 0;
    }
  /* the kernel takes a filter of up to a page */
  g_autoptr (GString) filter = g_string_new (NULL);
  guint n = 0;
  for (; n < timers->len && filter->len < PERF_TIMER_EXIT_FILTER_MAX - 40; n++)
    g_string_append_printf (filter, "%shrtimer != 0x%" G_GINT64_MODIFIER "x", n > 0 ? " && " : "",
                            g_array_index (timers, guint64, n));
  gboolean ok = set_filter (self, exit_event, filter->str);
  helper_destroy (helper);
  return ok ? n : 0;
}

static guint32
read_subbuf_size (struct tracefs_instance *instance)
{
  long long kb = 0;
  if (tracefs_file_exists (instance, "buffer_subbuf_size_kb")
      && tracefs_instance_file_read_number (instance, "buffer_subbuf_size_kb", &kb) == 0 && kb > 0
      && kb <= 1024)
    return (guint32) kb * 1024;
  return (guint32) sysconf (_SC_PAGESIZE);
}

static gboolean
open_readers (RspFtrace *self, const GArray *cpus, const char *tmp_prefix, GError **error)
{
  for (guint i = 0; i < cpus->len; i++)
    {
      guint cpu = g_array_index (cpus, guint, i);
      g_autofree char *file = g_strdup_printf ("per_cpu/cpu%u/trace_pipe_raw", cpu);
      int fd = tracefs_instance_file_open (self->instance, file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0)
        {
          set_errno_error (error, errno, _("cannot open %s of the tracefs instance %s: %s"), file, self->name,
                           g_strerror (errno));
          return FALSE;
        }
      int data_fd = -1;
      if (tmp_prefix != NULL)
        {
          g_autofree char *data_path = g_strdup_printf ("%s.ftrace-cpu%u", tmp_prefix, cpu);
          data_fd = open (data_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
          if (data_fd < 0)
            {
              int err = errno;
              close (fd);
              set_errno_error (error, err, _("cannot create %s: %s"), data_path, g_strerror (err));
              return FALSE;
            }
          /* unlinked now: nothing is left behind however rsp ends */
          unlink (data_path);
        }
      struct tracefs_cpu *tcpu = tracefs_cpu_alloc_fd (fd, (int) self->subbuf_size, TRUE);
      if (tcpu == NULL)
        {
          int err = errno != 0 ? errno : ENOMEM;
          close (fd);
          if (data_fd >= 0)
            close (data_fd);
          set_errno_error (error, err, _("cannot read the tracefs instance's buffer of CPU %u: %s"), cpu,
                           g_strerror (err));
          return FALSE;
        }
      CpuReader reader = { .cpu = cpu, .fd = fd, .tcpu = tcpu, .data_fd = data_fd,
                           .live = data_fd < 0 ? g_byte_array_new () : NULL };
      g_array_append_val (self->readers, reader);
    }
  return TRUE;
}

static RspFtrace *
ftrace_new (const char *tracefs, const GArray *cpus, const char *tmp_prefix, const char *pretend_missing,
            const char *const *events, int buffer_kb, GError **error)
{
  g_return_val_if_fail (tracefs != NULL && cpus != NULL && events != NULL, NULL);

  if (!tracefs_has_instances (tracefs))
    {
      set_errno_error (error, ENOENT, _("this kernel's tracefs at %s has no instances directory"), tracefs);
      return NULL;
    }

  g_autoptr (RspFtrace) self = g_new0 (RspFtrace, 1);
  self->event_list = events;
  self->tracefs = g_strdup (tracefs);
  self->readers = g_array_new (FALSE, TRUE, sizeof (CpuReader));
  self->events = g_ptr_array_new_with_free_func (g_free);
  self->missing = g_array_new (FALSE, TRUE, sizeof (RspMissingEvent));
  g_array_set_clear_func (self->missing, rsp_missing_event_clear);
  self->filters = rsp_event_filters_new ();
  self->mapped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_mapped_file_unref);
  self->destroyed = TRUE; /* nothing to remove yet */

  /* libtracefs finds tracefs on its own; tell it the one perf uses */
  g_autofree char *dir_copy = g_strdup (tracefs);
  tracefs_set_tracing_dir (dir_copy);

  self->instance = own_instance_new (&self->name);
  if (self->instance == NULL && errno == EEXIST)
    {
      set_errno_error (error, EEXIST, _("cannot find a free tracefs instance name after %d tries (the last: %s)"),
                       MAX_NAME_TRIES, self->name);
      return NULL;
    }
  if (self->instance == NULL)
    {
      int err = errno;
      set_errno_error (error, err, _("cannot create the tracefs instance %s/instances/%s: %s%s"), tracefs,
                       self->name, g_strerror (err),
                       err == EACCES || err == EPERM ? _(" (tracefs is not writable: run rsp record as root)") : "");
      return NULL;
    }
  self->destroyed = FALSE;

  /* a new instance traces at once: off until perf is enabled */
  if (tracefs_trace_off (self->instance) != 0)
    {
      set_errno_error (error, errno, _("cannot turn tracing off in the tracefs instance %s: %s"), self->name,
                       g_strerror (errno));
      return NULL;
    }
  if (tracefs_instance_file_write (self->instance, "trace_clock", RSP_FTRACE_CLOCK) < 0
      || !clock_selected (self->instance, RSP_FTRACE_CLOCK))
    {
      set_errno_error (error, EINVAL,
                       _("the tracefs instance cannot use the trace clock '%s', which perf's -k CLOCK_MONOTONIC "
                         "matches: its events could not be put in order with perf's"),
                       RSP_FTRACE_CLOCK);
      return NULL;
    }
  self->buffer_kb = buffer_kb;
  if (tracefs_instance_set_buffer_size (self->instance, buffer_kb, -1) != 0)
    {
      fprintf (stderr, _("rsp record: warning: cannot give the tracefs instance %d kB per CPU: %s; using "
                         "the kernel's default\n"),
               buffer_kb, g_strerror (errno));
      /* what it has instead (0 if even that is unknown) */
      ssize_t got = tracefs_instance_get_buffer_size (self->instance, 0);
      self->buffer_kb = got > 0 && got <= G_MAXINT ? (int) got : 0;
    }
  /* keep the first events when a buffer fills, and count the rest as dropped:
   * the stored stream is then whole up to the first loss */
  if (tracefs_file_exists (self->instance, "options/overwrite"))
    tracefs_instance_file_write (self->instance, "options/overwrite", "0");
  if (tracefs_file_exists (self->instance, "buffer_percent"))
    {
      /* a live instance wakes its reader at its first event */
      g_autofree char *percent = g_strdup_printf ("%d", tmp_prefix != NULL ? RSP_FTRACE_BUFFER_PERCENT : 0);
      tracefs_instance_file_write (self->instance, "buffer_percent", percent);
    }
  self->subbuf_size = read_subbuf_size (self->instance);
  self->buffer = g_malloc0 (self->subbuf_size);

  enable_events (self, pretend_missing);
  if (self->events->len == 0)
    {
      set_errno_error (error, ENOSYS, _("none of the events of the tracefs instance exists in this kernel"));
      return NULL;
    }
  filter_perf_timer (self, pretend_missing);
  filter_local_sockets (self, tracefs, pretend_missing);
  if (!open_readers (self, cpus, tmp_prefix, error))
    return NULL;
  return g_steal_pointer (&self);
}

RspFtrace *
rsp_ftrace_new (const char *tracefs, const GArray *cpus, const char *tmp_prefix, const char *pretend_missing,
                GError **error)
{
  g_return_val_if_fail (tmp_prefix != NULL, NULL);
  long pages = sysconf (_SC_PHYS_PAGES), page_size = sysconf (_SC_PAGESIZE);
  guint64 ram = pages > 0 && page_size > 0 ? (guint64) pages * (guint64) page_size : 0;
  return ftrace_new (tracefs, cpus, tmp_prefix, pretend_missing, ftrace_events,
                     rsp_ftrace_buffer_kb (cpus != NULL ? cpus->len : 1, ram), error);
}

int
rsp_ftrace_get_buffer_kb (const RspFtrace *self)
{
  return self != NULL ? self->buffer_kb : 0;
}

int
rsp_ftrace_buffer_kb (guint n_cpus, guint64 ram_bytes)
{
  guint64 budget_kb = 256 * 1024;
  if (ram_bytes > 0)
    budget_kb = MIN (budget_kb, ram_bytes / 64 / 1024);
  guint64 per_cpu = budget_kb / MAX (n_cpus, 1);
  per_cpu = CLAMP (per_cpu, RSP_FTRACE_BUFFER_MIN_KB, RSP_FTRACE_BUFFER_MAX_KB);
  /* whole pages of 4 kB */
  return (int) (per_cpu & ~(guint64) 3);
}

RspFtrace *
rsp_ftrace_new_live (const char *tracefs, const GArray *cpus, const char *const *events, int buffer_kb,
                     const char *pretend_missing, GError **error)
{
  return ftrace_new (tracefs, cpus, NULL, pretend_missing, events, buffer_kb, error);
}

const char *
rsp_ftrace_get_name (const RspFtrace *self)
{
  return self->name;
}

guint
rsp_ftrace_get_n_cpus (const RspFtrace *self)
{
  return self != NULL ? self->readers->len : 0;
}

gboolean
rsp_ftrace_start (RspFtrace *self, GError **error)
{
  if (tracefs_trace_on (self->instance) != 0)
    {
      set_errno_error (error, errno, _("cannot turn tracing on in the tracefs instance %s: %s"), self->name,
                       g_strerror (errno));
      return FALSE;
    }
  self->tracing = TRUE;
  return TRUE;
}

guint
rsp_ftrace_poll_fds (RspFtrace *self, struct pollfd *fds, guint max)
{
  guint n = 0;
  for (guint i = 0; self != NULL && i < self->readers->len && n < max; i++)
    {
      const CpuReader *r = &g_array_index (self->readers, CpuReader, i);
      if (r->fd >= 0 && !r->failed)
        fds[n++] = (struct pollfd) { r->fd, POLLIN, 0 };
    }
  return n;
}

/* Stores one sub-buffer of READER (LENGTH bytes read), padded to its size. */
static void
store (RspFtrace *self, CpuReader *r, int length)
{
  if ((guint32) length < self->subbuf_size)
    memset (self->buffer + length, 0, self->subbuf_size - (guint32) length);
  if (r->live != NULL)
    {
      g_byte_array_append (r->live, self->buffer, self->subbuf_size);
      r->bytes += self->subbuf_size;
      return;
    }
  int err = rsp_write_all (r->data_fd, self->buffer, self->subbuf_size);
  if (err != 0)
    {
      /* a partial sub-buffer would shift the ones after it: cut it off */
      if (ftruncate (r->data_fd, (off_t) r->bytes) != 0 || lseek (r->data_fd, (off_t) r->bytes, SEEK_SET) < 0)
        {
          /* the reader skips a partial tail */
        }
      r->failed = TRUE;
      g_autofree char *text = g_strdup_printf (_("cannot store the tracefs instance's events of CPU %u: %s "
                                                 "(the recording keeps the %llu kB "
                                                 "stored before; later ones are lost)"),
                                               r->cpu, g_strerror (err), (unsigned long long) (r->bytes / 1024));
      fprintf (stderr, _("rsp record: warning: %s\n"), text);
      if (self->error == NULL)
        self->error = g_steal_pointer (&text);
      return;
    }
  r->bytes += self->subbuf_size;
}

static void
drain_reader (RspFtrace *self, CpuReader *r, gboolean flush)
{
  for (guint n = 0; (flush || n < DRAIN_READS_MAX) && r->fd >= 0 && !r->failed; n++)
    {
      int length = flush ? tracefs_cpu_flush (r->tcpu, self->buffer) : tracefs_cpu_read (r->tcpu, self->buffer, TRUE);
      if (length < 0 && errno == EINTR)
        continue;
      if (length <= 0)
        break;
      store (self, r, length);
    }
}

void
rsp_ftrace_drain (RspFtrace *self, const struct pollfd *fds, guint n)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < n; i++)
    {
      if ((fds[i].revents & (POLLIN | POLLERR | POLLHUP)) == 0)
        continue;
      for (guint j = 0; j < self->readers->len; j++)
        {
          CpuReader *r = &g_array_index (self->readers, CpuReader, j);
          if (r->fd == fds[i].fd)
            drain_reader (self, r, FALSE);
        }
    }
}

static guint64
stat_value (const char *text, const char *key)
{
  g_autofree char *needle = g_strconcat (key, ":", NULL);
  for (const char *line = text; line != NULL && *line != '\0';)
    {
      if (g_str_has_prefix (line, needle))
        return g_ascii_strtoull (line + strlen (needle), NULL, 10);
      line = strchr (line, '\n');
      if (line != NULL)
        line++;
    }
  return 0;
}

void
rsp_ftrace_stop (RspFtrace *self)
{
  if (self == NULL || self->stopped || self->destroyed)
    return;
  self->stopped = TRUE;
  tracefs_trace_off (self->instance);
  self->tracing = FALSE;

  self->stats = g_array_new (FALSE, TRUE, sizeof (RspFtraceCpuStats));
  for (guint i = 0; i < self->readers->len; i++)
    {
      CpuReader *r = &g_array_index (self->readers, CpuReader, i);
      /* what is left, the partial last sub-buffer included */
      drain_reader (self, r, TRUE);
      g_autofree char *file = g_strdup_printf ("per_cpu/cpu%u/stats", r->cpu);
      g_autofree char *text = tracefs_instance_file_read (self->instance, file, NULL);
      RspFtraceCpuStats stats = {
        .cpu = r->cpu,
        .entries = stat_value (text, "entries"),
        .overrun = stat_value (text, "overrun"),
        .commit_overrun = stat_value (text, "commit overrun"),
        .dropped_events = stat_value (text, "dropped events"),
        .read_events = stat_value (text, "read events"),
        .bytes = r->bytes,
      };
      g_array_append_val (self->stats, stats);
    }
}

void
rsp_ftrace_destroy (RspFtrace *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->readers->len; i++)
    {
      CpuReader *r = &g_array_index (self->readers, CpuReader, i);
      if (r->tcpu != NULL)
        tracefs_cpu_free_fd (r->tcpu);
      r->tcpu = NULL;
      if (r->fd >= 0)
        close (r->fd);
      r->fd = -1;
    }
  if (self->destroyed)
    return;
  self->destroyed = TRUE;
  tracefs_trace_off (self->instance);
  tracefs_event_disable (self->instance, NULL, NULL);
  if (tracefs_instance_destroy (self->instance) != 0)
    fprintf (stderr, _("rsp record: warning: cannot remove the tracefs instance %s: %s (the next rsp record "
                       "removes it)\n"),
             self->name, g_strerror (errno));
}

void
rsp_ftrace_free (RspFtrace *self)
{
  if (self == NULL)
    return;
  rsp_ftrace_destroy (self);
  for (guint i = 0; i < self->readers->len; i++)
    {
      CpuReader *r = &g_array_index (self->readers, CpuReader, i);
      if (r->data_fd >= 0)
        close (r->data_fd);
      if (r->live != NULL)
        g_byte_array_unref (r->live);
    }
  if (self->instance != NULL)
    tracefs_instance_free (self->instance);
  g_array_unref (self->readers);
  g_ptr_array_unref (self->events);
  g_array_unref (self->missing);
  g_array_unref (self->filters);
  g_clear_pointer (&self->stats, g_array_unref);
  g_ptr_array_unref (self->mapped);
  if (self->live_head != NULL)
    g_byte_array_unref (self->live_head);
  g_free (self->buffer);
  g_free (self->error);
  g_free (self->name);
  g_free (self->tracefs);
  g_free (self);
}

RspFtraceMeta *
rsp_ftrace_build_meta (const RspFtrace *self)
{
  RspFtraceMeta *meta = rsp_ftrace_meta_new ();
  meta->instance = g_strdup (self->name);
  meta->clock = g_strdup (RSP_FTRACE_CLOCK);
  g_strfreev (meta->events);
  meta->events = g_new0 (char *, self->events->len + 1);
  for (guint i = 0; i < self->events->len; i++)
    meta->events[i] = g_strdup (g_ptr_array_index (self->events, i));
  for (guint i = 0; i < self->missing->len; i++)
    {
      const RspMissingEvent *from = &g_array_index (self->missing, RspMissingEvent, i);
      RspMissingEvent copy = { g_strdup (from->name), g_strdup (from->reason) };
      g_array_append_val (meta->missing_events, copy);
    }
  rsp_event_filters_add_all (meta->filters, self->filters);
  if (self->stats != NULL)
    g_array_append_vals (meta->cpus, self->stats->data, self->stats->len);
  meta->error = g_strdup (self->error);
  return meta;
}

guint64
rsp_ftrace_meta_events (const RspFtraceMeta *meta)
{
  guint64 n = 0;
  for (guint i = 0; meta != NULL && i < meta->cpus->len; i++)
    n += g_array_index (meta->cpus, RspFtraceCpuStats, i).read_events;
  return n;
}

guint64
rsp_ftrace_meta_lost (const RspFtraceMeta *meta)
{
  guint64 n = 0;
  for (guint i = 0; meta != NULL && i < meta->cpus->len; i++)
    {
      const RspFtraceCpuStats *c = &g_array_index (meta->cpus, RspFtraceCpuStats, i);
      n += c->overrun + c->commit_overrun + c->dropped_events;
    }
  return n;
}

/* The section's head, built in memory */

static void
put_u32 (GByteArray *b, guint32 v)
{
  g_byte_array_append (b, (const guint8 *) &v, 4);
}

static void
put_u64 (GByteArray *b, guint64 v)
{
  g_byte_array_append (b, (const guint8 *) &v, 8);
}

/* The section up to its CPU blocks: the header, the header page, the
 * formats of the enabled events. */
static GByteArray *
section_head (RspFtrace *self, GError **error)
{
  g_autoptr (GByteArray) head = g_byte_array_new ();

  int header_length = 0;
  g_autofree char *header_page = tracefs_instance_file_read (self->instance, "events/header_page", &header_length);
  if (header_page == NULL)
    header_page = tracefs_instance_file_read (NULL, "events/header_page", &header_length);
  if (header_page == NULL || header_length <= 0)
    {
      set_errno_error (error, ENOENT, _("cannot read events/header_page of tracefs"));
      return NULL;
    }

  g_byte_array_append (head, (const guint8 *) RSP_FTRACE_SECTION_MAGIC, 8);
  put_u32 (head, RSP_FTRACE_SECTION_VERSION);
  put_u32 (head, self->subbuf_size);
  put_u32 (head, (guint32) sizeof (long));
  put_u32 (head, self->readers->len);
  put_u64 (head, (guint64) header_length);
  g_byte_array_append (head, (const guint8 *) header_page, (guint) header_length);

  g_autoptr (GPtrArray) formats = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) systems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) format_lengths = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint i = 0; i < self->events->len; i++)
    {
      g_auto (GStrv) name = g_strsplit (g_ptr_array_index (self->events, i), ":", 2);
      int length = 0;
      char *format = tracefs_event_file_read (self->instance, name[0], name[1], "format", &length);
      if (format == NULL || length <= 0)
        {
          /* the reader cannot decode its events: they count as unknown */
          fprintf (stderr, _("rsp record: warning: cannot read the format of %s: its events cannot be decoded\n"),
                   (const char *) g_ptr_array_index (self->events, i));
          free (format);
          continue;
        }
      g_ptr_array_add (formats, format);
      g_ptr_array_add (systems, g_strdup (name[0]));
      g_array_append_val (format_lengths, length);
    }
  put_u32 (head, formats->len);
  for (guint i = 0; i < formats->len; i++)
    {
      const char *system = g_ptr_array_index (systems, i);
      put_u32 (head, (guint32) strlen (system));
      g_byte_array_append (head, (const guint8 *) system, (guint) strlen (system));
      int length = g_array_index (format_lengths, int, i);
      put_u64 (head, (guint64) length);
      g_byte_array_append (head, g_ptr_array_index (formats, i), (guint) length);
    }
  return g_steal_pointer (&head);
}

GPtrArray *
rsp_ftrace_section_parts (RspFtrace *self, GError **error)
{
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GByteArray) head = section_head (self, error);
  if (head == NULL)
    return NULL;
  for (guint i = 0; i < self->readers->len; i++)
    {
      CpuReader *r = &g_array_index (self->readers, CpuReader, i);
      put_u32 (head, r->cpu);
      put_u32 (head, 0);
      put_u64 (head, r->bytes);
      g_ptr_array_add (parts, g_byte_array_free_to_bytes (g_steal_pointer (&head)));
      head = g_byte_array_new ();
      if (r->bytes == 0)
        continue;
      GError *map_error = NULL;
      GMappedFile *mapped = g_mapped_file_new_from_fd (r->data_fd, FALSE, &map_error);
      if (mapped == NULL || g_mapped_file_get_length (mapped) < r->bytes)
        {
          set_errno_error (error, EIO, _("cannot read back the tracefs instance's events of CPU %u: %s"), r->cpu,
                           map_error != NULL ? map_error->message : g_strerror (EIO));
          g_clear_error (&map_error);
          g_clear_pointer (&mapped, g_mapped_file_unref);
          return NULL;
        }
      g_ptr_array_add (self->mapped, mapped);
      g_ptr_array_add (parts, g_bytes_new_static (g_mapped_file_get_contents (mapped), r->bytes));
    }
  if (head->len > 0)
    g_ptr_array_add (parts, g_byte_array_free_to_bytes (g_steal_pointer (&head)));
  return g_steal_pointer (&parts);
}

GBytes *
rsp_ftrace_take_live (RspFtrace *self, GError **error)
{
  g_return_val_if_fail (self != NULL, NULL);
  if (self->live_head == NULL)
    {
      self->live_head = section_head (self, error);
      if (self->live_head == NULL)
        return NULL;
    }
  guint64 total = 0;
  for (guint i = 0; i < self->readers->len; i++)
    {
      CpuReader *r = &g_array_index (self->readers, CpuReader, i);
      if (r->live == NULL)
        continue;
      /* the whole sub-buffers, then the one being written */
      drain_reader (self, r, FALSE);
      drain_reader (self, r, TRUE);
      total += r->live->len;
    }
  if (total == 0)
    return NULL;
  GByteArray *out = g_byte_array_sized_new ((guint) MIN (self->live_head->len + total + 16 * self->readers->len, G_MAXUINT));
  g_byte_array_append (out, self->live_head->data, self->live_head->len);
  for (guint i = 0; i < self->readers->len; i++)
    {
      CpuReader *r = &g_array_index (self->readers, CpuReader, i);
      guint len = r->live != NULL ? r->live->len : 0;
      put_u32 (out, r->cpu);
      put_u32 (out, 0);
      put_u64 (out, len);
      if (len > 0)
        {
          g_byte_array_append (out, r->live->data, len);
          g_byte_array_set_size (r->live, 0);
        }
    }
  return g_byte_array_free_to_bytes (out);
}

gsize
rsp_ftrace_live_head_size (const RspFtrace *self)
{
  return self != NULL && self->live_head != NULL ? self->live_head->len : 0;
}
