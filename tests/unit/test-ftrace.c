/* test-ftrace.c — the parts of RSP's tracefs instance that need no root:
 * the meta JSON member "ftrace" (round trip, older recordings, damaged
 * input), the instance names and the stale test, the trailer written in
 * parts and cut back when the disk is full.  (The instance itself needs
 * root: tests/scripts/record-ftrace.py.) */
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rsp-ftrace-section.h"
#include "rsp-ftrace.h"
#include "rsp-recording.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspRecording, rsp_recording_free)

static RspRecordingMeta *
round_trip (const RspRecordingMeta *meta)
{
  gsize length = 0;
  g_autofree char *json = rsp_recording_meta_to_json (meta, &length);
  g_autoptr (GError) error = NULL;
  RspRecordingMeta *back = rsp_recording_meta_from_json (json, length, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
  return back;
}

static RspFtraceMeta *
sample_ftrace (void)
{
  RspFtraceMeta *ftrace = rsp_ftrace_meta_new ();
  ftrace->instance = g_strdup ("rsp-4242-0badcafe");
  ftrace->clock = g_strdup ("mono");
  g_strfreev (ftrace->events);
  ftrace->events = g_strsplit ("sched:sched_waking,block:block_rq_complete", ",", -1);
  RspMissingEvent missing = { g_strdup ("sock:sk_data_ready"), g_strdup ("this kernel has no such tracepoint") };
  g_array_append_val (ftrace->missing_events, missing);
  RspEventFilter filter = { g_strdup ("timer:hrtimer_start"), g_strdup ("function.function != perf_swevent_hrtimer") };
  g_array_append_val (ftrace->filters, filter);
  RspFtraceCpuStats cpu0 = { 0, 1, 2, 3, 4, 5, 4096 };
  /* beyond a double's exact range: must come back exact */
  RspFtraceCpuStats cpu7 = { 7, 0, G_GUINT64_CONSTANT (9007199254740993), 0, 11, G_GUINT64_CONSTANT (123456789012), 8192 };
  g_array_append_val (ftrace->cpus, cpu0);
  g_array_append_val (ftrace->cpus, cpu7);
  return ftrace;
}

static void
test_meta_round_trip (void)
{
  g_autoptr (RspRecordingMeta) meta = rsp_recording_meta_new ();
  meta->ftrace = sample_ftrace ();
  meta->symbols_searched = 1;
  g_autoptr (RspRecordingMeta) back = round_trip (meta);

  g_assert_cmpuint (back->symbols_searched, ==, 1);

  g_assert_nonnull (back->ftrace);
  g_assert_cmpstr (back->ftrace->instance, ==, "rsp-4242-0badcafe");
  g_assert_cmpstr (back->ftrace->clock, ==, "mono");
  g_assert_cmpuint (g_strv_length (back->ftrace->events), ==, 2);
  g_assert_cmpstr (back->ftrace->events[0], ==, "sched:sched_waking");
  g_assert_cmpstr (back->ftrace->events[1], ==, "block:block_rq_complete");
  g_assert_cmpuint (back->ftrace->missing_events->len, ==, 1);
  const RspMissingEvent *missing = &g_array_index (back->ftrace->missing_events, RspMissingEvent, 0);
  g_assert_cmpstr (missing->name, ==, "sock:sk_data_ready");
  g_assert_cmpstr (missing->reason, ==, "this kernel has no such tracepoint");
  g_assert_cmpuint (back->ftrace->filters->len, ==, 1);
  const RspEventFilter *filter = &g_array_index (back->ftrace->filters, RspEventFilter, 0);
  g_assert_cmpstr (filter->event, ==, "timer:hrtimer_start");
  g_assert_cmpstr (filter->filter, ==, "function.function != perf_swevent_hrtimer");
  g_assert_null (back->ftrace->error);
  g_assert_cmpuint (back->ftrace->cpus->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      const RspFtraceCpuStats *want = &g_array_index (meta->ftrace->cpus, RspFtraceCpuStats, i);
      const RspFtraceCpuStats *got = &g_array_index (back->ftrace->cpus, RspFtraceCpuStats, i);
      g_assert_cmpuint (got->cpu, ==, want->cpu);
      g_assert_cmpuint (got->entries, ==, want->entries);
      g_assert_cmpuint (got->overrun, ==, want->overrun);
      g_assert_cmpuint (got->commit_overrun, ==, want->commit_overrun);
      g_assert_cmpuint (got->dropped_events, ==, want->dropped_events);
      g_assert_cmpuint (got->read_events, ==, want->read_events);
      g_assert_cmpuint (got->bytes, ==, want->bytes);
    }
  g_assert_cmpuint (rsp_ftrace_meta_events (back->ftrace), ==, 5 + G_GUINT64_CONSTANT (123456789012));
  g_assert_cmpuint (rsp_ftrace_meta_lost (back->ftrace), ==, 2 + 3 + 4 + G_GUINT64_CONSTANT (9007199254740993) + 11);
}

static void
test_meta_channel_off (void)
{
  g_autoptr (RspRecordingMeta) meta = rsp_recording_meta_new ();
  meta->ftrace = rsp_ftrace_meta_new ();
  meta->ftrace->error = g_strdup ("this kernel's tracefs at /sys/kernel/tracing has no instances directory");
  g_autoptr (RspRecordingMeta) back = round_trip (meta);
  g_assert_nonnull (back->ftrace);
  g_assert_cmpstr (back->ftrace->error, ==, meta->ftrace->error);
  g_assert_null (back->ftrace->instance);
  g_assert_nonnull (back->ftrace->events);
  g_assert_cmpuint (g_strv_length (back->ftrace->events), ==, 0);
  g_assert_cmpuint (back->ftrace->cpus->len, ==, 0);
  g_assert_cmpuint (rsp_ftrace_meta_lost (back->ftrace), ==, 0);
}

static void
test_meta_without_ftrace (void)
{
  g_autoptr (RspRecordingMeta) meta = rsp_recording_meta_new ();
  meta->rsp_version = g_strdup ("0.1");
  g_autoptr (RspRecordingMeta) back = round_trip (meta);
  g_assert_null (back->ftrace);
  g_assert_cmpstr (back->rsp_version, ==, "0.1");

  /* a recording made before the instance existed has no member at all */
  const char *old = "{ \"rsp_version\": \"0.1\", \"target_pid\": 12, \"events\": [\"sched:sched_switch\"] }";
  g_autoptr (GError) error = NULL;
  g_autoptr (RspRecordingMeta) old_meta = rsp_recording_meta_from_json (old, strlen (old), &error);
  g_assert_no_error (error);
  g_assert_null (old_meta->ftrace);
  g_assert_cmpint (old_meta->target_pid, ==, 12);
  /* nor says that its symbols name every binary searched */
  g_assert_cmpuint (old_meta->symbols_searched, ==, 0);
  g_assert_cmpuint (back->symbols_searched, ==, 0);
}

static void
test_meta_damaged (void)
{
  static const char *const damaged[] = {
    "{ \"ftrace\": [1, 2] }",
    "{ \"ftrace\": \"rsp-1-2\" }",
    "{ \"ftrace\": 7 }",
    "{ \"ftrace\": {} }",
    "{ \"ftrace\": { \"instance\": 5, \"clock\": [], \"events\": [1, null, \"x:y\", {}], "
    "\"missing_events\": [3, {\"name\": 4}, {\"reason\": \"r\"}], "
    "\"cpus\": [1, \"two\", null, {\"cpu\": -3, \"overrun\": -1, \"bytes\": \"12\", \"entries\": 1.5}, "
    "{\"cpu\": 99999999999}], \"error\": false } }",
    "{ \"ftrace\": { \"events\": \"sched:sched_waking\", \"missing_events\": {}, \"cpus\": {} } }",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (damaged); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (RspRecordingMeta) meta = rsp_recording_meta_from_json (damaged[i], strlen (damaged[i]), &error);
      g_assert_no_error (error);
      g_assert_nonnull (meta);
      if (meta->ftrace == NULL)
        continue;
      /* whatever came in, the structure is whole and its counts sane */
      g_assert_nonnull (meta->ftrace->events);
      for (char **e = meta->ftrace->events; *e != NULL; e++)
        g_assert_nonnull (*e);
      (void) rsp_ftrace_meta_lost (meta->ftrace);
      (void) rsp_ftrace_meta_events (meta->ftrace);
      /* and it serializes again */
      gsize length = 0;
      g_autofree char *json = rsp_recording_meta_to_json (meta, &length);
      g_assert_nonnull (json);
    }

  const char *odd = damaged[4];
  g_autoptr (RspRecordingMeta) meta = rsp_recording_meta_from_json (odd, strlen (odd), NULL);
  g_assert_null (meta->ftrace->instance);
  g_assert_null (meta->ftrace->error);
  g_assert_cmpuint (g_strv_length (meta->ftrace->events), ==, 4);
  g_assert_cmpstr (meta->ftrace->events[2], ==, "x:y");
  g_assert_cmpuint (meta->ftrace->missing_events->len, ==, 2);
  g_assert_cmpuint (meta->ftrace->cpus->len, ==, 2);
  const RspFtraceCpuStats *c = &g_array_index (meta->ftrace->cpus, RspFtraceCpuStats, 0);
  g_assert_cmpuint (c->cpu, ==, 0);     /* negative: 0 */
  g_assert_cmpuint (c->overrun, ==, 0); /* negative: 0 */
  g_assert_cmpuint (c->bytes, ==, 12);  /* a numeric string is read */
  c = &g_array_index (meta->ftrace->cpus, RspFtraceCpuStats, 1);
  g_assert_cmpuint (c->cpu, ==, G_MAXUINT32); /* clamped */
}

static void
test_instance_names (void)
{
  pid_t pid = 0;
  g_assert_true (rsp_ftrace_parse_instance_name ("rsp-1234-9f2c4e01", &pid));
  g_assert_cmpint (pid, ==, 1234);
  g_assert_true (rsp_ftrace_parse_instance_name ("rsp-1-0", &pid));
  g_assert_cmpint (pid, ==, 1);
  g_assert_true (rsp_ftrace_parse_instance_name ("rsp-2147483647-ffffffffffffffff", &pid));
  g_assert_cmpint (pid, ==, 2147483647);

  static const char *const foreign[] = {
    "rsp", "rsp-", "rsp-1234", "rsp-1234-", "rsp--abc", "rsp-0-abc", "rsp-0123-abc", "rsp-12a-abc",
    "rsp-1234-XYZ", "rsp-1234-ABCD", "rsp-1234-abc-def", "rsp-1234-abc/", "rsp-2147483648-1",
    "rsp-99999999999-1", "rsp-1-00000000000000000", "trace-cmd-1234-abc", "RSP-1234-abc", "xrsp-1234-abc", "",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (foreign); i++)
    {
      pid = -7;
      g_assert_false (rsp_ftrace_parse_instance_name (foreign[i], &pid));
      g_assert_cmpint (pid, ==, -7);
    }
  g_assert_false (rsp_ftrace_parse_instance_name (NULL, NULL));

  /* the names rsp makes are its own */
  g_autofree char *made = g_strdup_printf (RSP_FTRACE_INSTANCE_PREFIX "%d-%08x", (int) getpid (), 0xdeadbeefu);
  g_assert_true (rsp_ftrace_parse_instance_name (made, &pid));
  g_assert_cmpint (pid, ==, getpid ());
}

static void
test_stale_pids (void)
{
  /* a process that is gone */
  pid_t child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    _exit (0);
  int status;
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (rsp_ftrace_pid_is_stale (child));
  g_assert_true (rsp_ftrace_pid_is_stale (0));
  g_assert_true (rsp_ftrace_pid_is_stale (-1));
  /* a live process that is not rsp (this test program): the pid was reused */
  g_assert_true (rsp_ftrace_pid_is_stale (getpid ()));

  /* a live rsp is not stale: a child renamed "rsp", held on a pipe */
  int hold[2];
  g_assert_cmpint (pipe (hold), ==, 0);
  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      close (hold[1]);
      if (prctl (PR_SET_NAME, "rsp", 0, 0, 0) != 0)
        _exit (2);
      char byte;
      _exit (read (hold[0], &byte, 1) < 0 ? 1 : 0);
    }
  close (hold[0]);
  g_autofree char *comm_path = g_strdup_printf ("/proc/%d/comm", (int) child);
  for (int i = 0; i < 2000; i++)
    {
      g_autofree char *comm = NULL;
      if (g_file_get_contents (comm_path, &comm, NULL, NULL) && g_str_has_prefix (comm, "rsp\n"))
        break;
      g_usleep (1000);
    }
  g_assert_false (rsp_ftrace_pid_is_stale (child));
  close (hold[1]);
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  g_assert_true (rsp_ftrace_pid_is_stale (child));
}

static GPtrArray *
parts_of (const char *const *texts)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  for (gsize i = 0; texts[i] != NULL; i++)
    g_ptr_array_add (parts, g_bytes_new_static (texts[i], strlen (texts[i])));
  return parts;
}

static void
test_trailer_parts (void)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "test-ftrace-XXXXXX", NULL);
  int fd = g_mkstemp (path);
  g_assert_cmpint (fd, >=, 0);
  const char perf_data[] = "PERFILE2 pretend perf.data";
  g_assert_cmpint (write (fd, perf_data, sizeof perf_data - 1), ==, sizeof perf_data - 1);
  close (fd);

  const char *const meta_texts[] = { "{ \"rsp_version\": \"x\" }", NULL };
  const char *const symbol_texts[] = { NULL };
  const char *const ftrace_texts[] = { RSP_FTRACE_SECTION_MAGIC, "-head-", "", "cpu0 data", "cpu1", NULL };
  g_autoptr (GPtrArray) meta = parts_of (meta_texts);
  g_autoptr (GPtrArray) symbols = parts_of (symbol_texts);
  g_autoptr (GPtrArray) ftrace = parts_of (ftrace_texts);
  const char *const names[] = { RSP_SECTION_META, RSP_SECTION_SYMBOLS, RSP_SECTION_FTRACE };
  GPtrArray *const parts[] = { meta, symbols, ftrace };

  /* a full disk (here: a file size limit) cuts the file back to the perf.data */
  struct rlimit old_limit, limit;
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &old_limit), ==, 0);
  limit = old_limit;
  limit.rlim_cur = sizeof perf_data - 1 + 30;
  void (*old_handler) (int) = signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);
  g_autoptr (GError) error = NULL;
  gboolean ok = rsp_recording_append_sections (path, names, parts, 3, &error);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &old_limit), ==, 0);
  signal (SIGXFSZ, old_handler);
  g_assert_false (ok);
  g_assert_nonnull (error);
  struct stat st;
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, sizeof perf_data - 1);
  g_clear_error (&error);

  /* then with room */
  g_assert_true (rsp_recording_append_sections (path, names, parts, 3, &error));
  g_assert_no_error (error);
  g_autofree char *contents = NULL;
  gsize size = 0;
  g_assert_true (g_file_get_contents (path, &contents, &size, NULL));
  g_autoptr (RspRecording) rec = rsp_recording_parse ((const guint8 *) contents, size, &error);
  g_assert_no_error (error);
  g_assert_nonnull (rec);
  g_assert_cmpuint (rec->perf_data_size, ==, sizeof perf_data - 1);
  g_assert_cmpuint (rec->sections->len, ==, 3);
  const RspSection *s = &g_array_index (rec->sections, RspSection, 2);
  g_assert_cmpstr (s->name, ==, RSP_SECTION_FTRACE);
  const char *want = RSP_FTRACE_SECTION_MAGIC "-head-cpu0 datacpu1";
  g_assert_cmpuint (s->size, ==, strlen (want));
  g_assert_cmpmem (contents + s->offset, s->size, want, strlen (want));
  g_assert_cmpuint (g_array_index (rec->sections, RspSection, 1).size, ==, 0);
  g_assert_nonnull (rec->meta);
  g_assert_cmpstr (rec->meta->rsp_version, ==, "x");
  g_assert_null (rec->meta->ftrace);
  g_unlink (path);
}

/* The instance's buffer per CPU: 16 MB while all CPUs' together stay
 * within 1/64 of the RAM and 256 MB, never under 4 MB. */
static void
test_buffer_size (void)
{
  const guint64 gb = G_GUINT64_CONSTANT (1) << 30;
  g_assert_cmpint (rsp_ftrace_buffer_kb (2, 24 * gb), ==, 16384);
  g_assert_cmpint (rsp_ftrace_buffer_kb (2, 0), ==, 16384);
  g_assert_cmpint (rsp_ftrace_buffer_kb (0, 0), ==, 16384);
  g_assert_cmpint (rsp_ftrace_buffer_kb (16, 24 * gb), ==, 16384);
  g_assert_cmpint (rsp_ftrace_buffer_kb (64, 24 * gb), ==, 4096);   /* 256 MB over 64 CPUs */
  g_assert_cmpint (rsp_ftrace_buffer_kb (8, 4 * gb), ==, 8192);     /* 64 MB over 8 CPUs */
  g_assert_cmpint (rsp_ftrace_buffer_kb (6, 4 * gb), ==, 10920);    /* whole 4 kB pages */
  g_assert_cmpint (rsp_ftrace_buffer_kb (2, gb / 2), ==, 4096);     /* 8 MB would be 4 MB each: the floor */
  g_assert_cmpint (rsp_ftrace_buffer_kb (1024, 1024 * gb), ==, 4096);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ftrace/meta/round-trip", test_meta_round_trip);
  g_test_add_func ("/ftrace/buffer-size", test_buffer_size);
  g_test_add_func ("/ftrace/meta/channel-off", test_meta_channel_off);
  g_test_add_func ("/ftrace/meta/without-ftrace", test_meta_without_ftrace);
  g_test_add_func ("/ftrace/meta/damaged", test_meta_damaged);
  g_test_add_func ("/ftrace/instance-names", test_instance_names);
  g_test_add_func ("/ftrace/stale-pids", test_stale_pids);
  g_test_add_func ("/ftrace/trailer-parts", test_trailer_parts);
  return g_test_run ();
}
