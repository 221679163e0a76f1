/* test-recorder.c — the pure logic of `rsp record`: option parsing, the perf
 * command line, event-set degradation, privilege and health judgements.
 * (Recording for real needs root and perf: the recording tests do that.) */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rsp-health.h"
#include "rsp-probe.h"
#include "rsp-recorder.h"
#include "rsp-recording.h"

static gboolean
parse (RspRecorderOptions *options, GError **error, ...)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  va_list ap;
  g_ptr_array_add (args, (gpointer) "record");
  va_start (ap, error);
  for (const char *arg = va_arg (ap, const char *); arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (args, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  return rsp_recorder_options_parse ((int) args->len - 1, (char **) args->pdata, options, error);
}

static void
test_options_defaults (void)
{
  RspRecorderOptions options;
  g_autoptr (GError) error = NULL;

  g_assert_true (parse (&options, &error, "--", "sleep", "1", NULL));
  g_assert_no_error (error);
  g_assert_cmpstr (options.output, ==, RSP_RECORDER_DEFAULT_OUTPUT);
  g_assert_cmpuint (options.freq, ==, 1000);
  g_assert_cmpint (options.call_graph, ==, RSP_CALL_GRAPH_FP);
  g_assert_cmpfloat (options.duration, ==, 0);
  g_assert_false (options.keep_awake);
  g_assert_false (options.help);
  g_assert_nonnull (options.command);
  g_assert_cmpuint (g_strv_length (options.command), ==, 2);
  g_assert_cmpstr (options.command[0], ==, "sleep");
  g_assert_cmpstr (options.command[1], ==, "1");
  rsp_recorder_options_clear (&options);
}

static void
test_options_all (void)
{
  RspRecorderOptions options;
  g_autoptr (GError) error = NULL;

  g_assert_true (parse (&options, &error, "-o", "a.rsp", "--freq", "250", "--call-graph", "dwarf",
                        "--duration", "1.5", "--keep-awake", "--", "make", "-j2", NULL));
  g_assert_no_error (error);
  g_assert_cmpstr (options.output, ==, "a.rsp");
  g_assert_cmpuint (options.freq, ==, 250);
  g_assert_cmpint (options.call_graph, ==, RSP_CALL_GRAPH_DWARF);
  g_assert_cmpfloat (options.duration, ==, 1.5);
  g_assert_true (options.keep_awake);
  g_assert_cmpstr (options.command[0], ==, "make");
  g_assert_cmpstr (options.command[1], ==, "-j2");
  rsp_recorder_options_clear (&options);

  /* The attached and = forms. */
  g_assert_true (parse (&options, &error, "-ob.rsp", "-F99", "--call-graph=fp", "--duration=2", NULL));
  g_assert_no_error (error);
  g_assert_cmpstr (options.output, ==, "b.rsp");
  g_assert_cmpuint (options.freq, ==, 99);
  g_assert_cmpint (options.call_graph, ==, RSP_CALL_GRAPH_FP);
  g_assert_cmpfloat (options.duration, ==, 2);
  g_assert_null (options.command); /* whole system */
  rsp_recorder_options_clear (&options);

  g_assert_true (parse (&options, &error, "--output=c.rsp", "-F", "10", NULL));
  g_assert_cmpstr (options.output, ==, "c.rsp");
  g_assert_cmpuint (options.freq, ==, 10);
  g_assert_cmpuint (options.repeat, ==, 0);
  rsp_recorder_options_clear (&options);

  /* many runs of one command */
  g_assert_true (parse (&options, &error, "--repeat", "40", "--pause=25", "--", "./client", NULL));
  g_assert_no_error (error);
  g_assert_cmpuint (options.repeat, ==, 40);
  g_assert_cmpuint (options.pause_ms, ==, 25);
  g_assert_cmpstr (options.command[0], ==, "./client");
  rsp_recorder_options_clear (&options);

  /* probes: repeatable, the binary found on PATH and made absolute */
  g_assert_true (parse (&options, &error, "--probe", "true:main", "--probe=/bin/true:_start", "--", "true", NULL));
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (options.probes), ==, 2);
  g_assert_true (g_str_has_prefix (options.probes[0], "/"));
  g_assert_true (g_str_has_suffix (options.probes[0], ":main"));
  g_assert_true (g_str_has_suffix (options.probes[1], "true:_start"));
  rsp_recorder_options_clear (&options);
}

static void
test_options_command_stops_parsing (void)
{
  RspRecorderOptions options;
  g_autoptr (GError) error = NULL;

  /* As with perf: the first non-option starts COMMAND; what follows is its. */
  g_assert_true (parse (&options, &error, "--keep-awake", "ls", "-o", "x", "--freq", "1", NULL));
  g_assert_no_error (error);
  g_assert_true (options.keep_awake);
  g_assert_cmpstr (options.output, ==, RSP_RECORDER_DEFAULT_OUTPUT);
  g_assert_cmpuint (options.freq, ==, 1000);
  g_assert_cmpuint (g_strv_length (options.command), ==, 5);
  g_assert_cmpstr (options.command[1], ==, "-o");
  rsp_recorder_options_clear (&options);

  /* "--" lets COMMAND start with a dash; a second "--" is COMMAND's. */
  g_assert_true (parse (&options, &error, "--", "-weird", "--", NULL));
  g_assert_cmpstr (options.command[0], ==, "-weird");
  g_assert_cmpstr (options.command[1], ==, "--");
  rsp_recorder_options_clear (&options);

  g_assert_true (parse (&options, &error, "--help", "--bogus", NULL));
  g_assert_true (options.help);
  rsp_recorder_options_clear (&options);
}

static void
test_options_errors (void)
{
  static const char *const bad[][3] = {
    { "--freq", "0", NULL },
    { "--freq", "abc", NULL },
    { "--freq", "100001", NULL },
    { "-F", "-5", NULL },
    { "--call-graph", "lbr", NULL },
    { "--duration", "-1", NULL },
    { "--duration", "0", NULL },
    { "--duration", "1s", NULL },
    { "--duration", "nan", NULL },
    { "--output=", NULL, NULL },
    { "--bogus", NULL, NULL },
    { "-x", NULL, NULL },
    { "-o", NULL, NULL },
    { "--duration", NULL, NULL },
    { "--repeat", "0", NULL },
    { "--repeat", "many", NULL },
    { "--repeat", "5", NULL },    /* no COMMAND to repeat */
    { "--pause", "-1", NULL },
    { "--pause", "1.5", NULL },
    { "--probe", "/bin/true", NULL },         /* no function */
    { "--probe", "/bin/true:1abc", NULL },    /* not a C name */
    { "--probe", "/bin/true:a-b", NULL },
    { "--probe", "/no/such/binary:f", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      RspRecorderOptions options;
      g_autoptr (GError) error = NULL;
      g_assert_false (parse (&options, &error, bad[i][0], bad[i][1], bad[i][2], NULL));
      g_assert_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE);
      rsp_recorder_options_clear (&options);
    }
}

static guint
count_arg (char **argv, const char *arg)
{
  guint n = 0;
  for (guint i = 0; argv[i] != NULL; i++)
    n += strcmp (argv[i], arg) == 0;
  return n;
}

static void
test_perf_argv (void)
{
  RspRecorderOptions options;
  g_autoptr (GError) error = NULL;
  g_assert_true (parse (&options, &error, "--freq", "250", "--", "true", NULL));

  const char *const tracepoints[] = { "sched:sched_switch", "block:block_rq_complete", NULL };
  g_auto (GStrv) argv = rsp_recorder_perf_argv ("/usr/bin/perf", &options, tracepoints, NULL, "out.tmp", 7, 9, FALSE);
  g_autofree char *line = g_strjoinv (" ", argv);
  g_assert_cmpstr (line, ==,
                   "/usr/bin/perf record -a -k monotonic --call-graph fp --delay=-1 --control=fd:7,9 "
                   "--no-bpf-event -o out.tmp -e sched:sched_switch -e block:block_rq_complete/call-graph=no/ "
                   "-e cpu-clock/freq=250/");
  /* Never a global frequency: perf would apply it to the tracepoints too. */
  g_assert_cmpuint (count_arg (argv, "-F"), ==, 0);
  g_assert_cmpuint (count_arg (argv, "--freq"), ==, 0);
  g_assert_cmpuint (count_arg (argv, "-c"), ==, 0);

  options.call_graph = RSP_CALL_GRAPH_DWARF;
  g_auto (GStrv) dwarf = rsp_recorder_perf_argv ("perf", &options, tracepoints, NULL, "o", 3, 4, TRUE);
  g_autofree char *dwarf_line = g_strjoinv (" ", dwarf);
  g_assert_cmpstr (dwarf_line, ==,
                   "perf record -a -k monotonic --call-graph dwarf --delay=-1 --control=fd:3,4 "
                   "--no-bpf-event --mmap-pages=8M -o o -e sched:sched_switch -e block:block_rq_complete/call-graph=no/ "
                   "-e cpu-clock/freq=250/");

  /* Nothing but the sampling event when no tracepoint exists. */
  g_auto (GStrv) bare = rsp_recorder_perf_argv ("perf", &options, NULL, NULL, "o", 3, 4, FALSE);
  g_assert_cmpuint (count_arg (bare, "-e"), ==, 1);

  /* A tracepoint recorded in part: its --filter right after its -e, as
   * perf takes it; the others without one. */
  options.call_graph = RSP_CALL_GRAPH_FP;
  const char *const with_sock[] = { "sched:sched_switch", "sock:sock_send_length", "sock:sock_recv_length", NULL };
  g_autoptr (GArray) filters = g_array_new (FALSE, TRUE, sizeof (RspEventFilter));
  g_array_set_clear_func (filters, rsp_event_filter_clear);
  RspEventFilter f = { g_strdup ("sock:sock_send_length"), g_strdup ("family != 1") };
  g_array_append_val (filters, f);
  g_auto (GStrv) filtered = rsp_recorder_perf_argv ("perf", &options, with_sock, filters, "o", 3, 4, FALSE);
  g_autofree char *filtered_line = g_strjoinv (" ", filtered);
  g_assert_nonnull (strstr (filtered_line, "-e sched:sched_switch -e sock:sock_send_length/call-graph=no/ "
                                           "--filter family != 1 -e sock:sock_recv_length/call-graph=no/ -e "));
  g_assert_cmpuint (count_arg (filtered, "--filter"), ==, 1);
  guint at = 0;
  while (g_strcmp0 (filtered[at], "--filter") != 0)
    at++;
  g_assert_cmpstr (filtered[at + 1], ==, "family != 1"); /* one argument, spaces and all */
  rsp_recorder_options_clear (&options);
}

static void
test_exit_status (void)
{
  g_assert_cmpint (rsp_recorder_exit_status (0), ==, 0);
  g_assert_cmpint (rsp_recorder_exit_status (3 << 8), ==, 3);
  g_assert_cmpint (rsp_recorder_exit_status (9), ==, 137);  /* killed by SIGKILL */
  g_assert_cmpint (rsp_recorder_exit_status (2), ==, 130);  /* killed by SIGINT */
}

static void
test_event_set (void)
{
  guint n;
  const RspEventSpec *set = rsp_probe_event_set (&n);
  g_assert_cmpuint (n, ==, 19); /* the 18 tracepoints of docs/RECORDING.md and fib:fib_table_lookup */
  for (guint i = 0; i < n; i++)
    {
      g_assert_nonnull (strchr (set[i].name, ':'));
      g_assert_nonnull (set[i].lost);
      g_assert_true (rsp_probe_event_spec (set[i].name) == &set[i]);
    }
  g_assert_true (rsp_probe_event_spec ("block:block_rq_complete")->irq_context);
  g_assert_true (rsp_probe_event_spec ("sched:sched_waking")->irq_context);
  g_assert_false (rsp_probe_event_spec ("sched:sched_switch")->irq_context);
  g_assert_null (rsp_probe_event_spec ("cpu-clock"));
}

/* A fake tracefs with every event of the set except those in SKIP. */
static char *
make_tracefs (const char *const *skip)
{
  g_autoptr (GError) error = NULL;
  char *root = g_dir_make_tmp ("rsp-tracefs-XXXXXX", &error);
  g_assert_no_error (error);
  guint n;
  const RspEventSpec *set = rsp_probe_event_set (&n);
  for (guint i = 0; i < n; i++)
    {
      if (skip != NULL && g_strv_contains (skip, set[i].name))
        continue;
      g_auto (GStrv) parts = g_strsplit (set[i].name, ":", 2);
      g_autofree char *dir = g_build_filename (root, "events", parts[0], parts[1], NULL);
      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
      g_autofree char *id_path = g_build_filename (dir, "id", NULL);
      g_autofree char *id = g_strdup_printf ("%u\n", 100 + i);
      g_assert_true (g_file_set_contents (id_path, id, -1, NULL));
    }
  return root;
}

static void
remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  if (dir != NULL)
    {
      const char *name;
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
      g_dir_close (dir);
    }
  g_remove (path);
}

static void
test_probe_events_complete (void)
{
  g_autofree char *tracefs = make_tracefs (NULL);
  RspProbedEvents events = { 0 };
  g_autoptr (GError) error = NULL;

  g_assert_true (rsp_probe_events (tracefs, NULL, &events, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (events.present->len, ==, 19);
  g_assert_cmpuint (events.missing->len, ==, 0);
  const RspProbedEvent *first = &g_array_index (events.present, RspProbedEvent, 0);
  g_assert_cmpstr (first->name, ==, "sched:sched_switch");
  g_assert_cmpuint (first->id, ==, 100);
  rsp_probed_events_clear (&events);
  remove_tree (tracefs);
}

/* A local socket's events are recorded in part ("family != 1") where the
 * kernel's format has the field, whole where it has not (an older kernel:
 * the filter would make perf refuse to record) or where a test pretends
 * so; the other events are recorded whole. */
static void
test_probe_event_filter (void)
{
  g_autofree char *tracefs = make_tracefs (NULL);
  g_assert_null (rsp_probe_event_filter (tracefs, "sock:sock_send_length", NULL)); /* no format */
  g_autofree char *send_format = g_build_filename (tracefs, "events", "sock", "sock_send_length", "format", NULL);
  g_assert_true (g_file_set_contents (send_format,
                                      "name: sock_send_length\nID: 1707\nformat:\n"
                                      "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
                                      "\tfield:void * sk;\toffset:8;\tsize:8;\tsigned:0;\n"
                                      "\tfield:__u16 family;\toffset:16;\tsize:2;\tsigned:0;\n",
                                      -1, NULL));
  g_assert_cmpstr (rsp_probe_event_filter (tracefs, "sock:sock_send_length", NULL), ==, "family != 1");
  g_assert_null (rsp_probe_event_filter (tracefs, "sock:sock_send_length", "sched:sched_waking, filter:family"));
  g_autofree char *ready_format = g_build_filename (tracefs, "events", "sock", "sk_data_ready", "format", NULL);
  /* a field whose name only ends in "family" is not it */
  g_assert_true (g_file_set_contents (ready_format,
                                      "name: sk_data_ready\nID: 2285\nformat:\n"
                                      "\tfield:__u16 sk_family;\toffset:16;\tsize:2;\tsigned:0;\n",
                                      -1, NULL));
  g_assert_null (rsp_probe_event_filter (tracefs, "sock:sk_data_ready", NULL));
  g_autofree char *switch_format = g_build_filename (tracefs, "events", "sched", "sched_switch", "format", NULL);
  g_assert_true (g_file_set_contents (switch_format, "\tfield:__u16 family;\toffset:8;\n", -1, NULL));
  g_assert_null (rsp_probe_event_filter (tracefs, "sched:sched_switch", NULL));
  remove_tree (tracefs);
}

static void
test_probe_events_degrade (void)
{
  const char *const absent[] = { "sock:sk_data_ready", "sock:sock_send_length", NULL };
  g_autofree char *tracefs = make_tracefs (absent);
  RspProbedEvents events = { 0 };
  g_autoptr (GError) error = NULL;

  /* Two the kernel lacks, one pretended missing (RSP_RECORD_PRETEND_MISSING). */
  g_assert_true (rsp_probe_events (tracefs, "block:block_rq_issue, nonsense:event", &events, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (events.present->len, ==, 16);
  g_assert_cmpuint (events.missing->len, ==, 3);
  for (guint i = 0; i < events.present->len; i++)
    {
      const char *name = g_array_index (events.present, RspProbedEvent, i).name;
      g_assert_false (g_strv_contains (absent, name));
      g_assert_cmpstr (name, !=, "block:block_rq_issue");
    }
  const RspMissingEvent *issue = &g_array_index (events.missing, RspMissingEvent, 0);
  g_assert_cmpstr (issue->name, ==, "block:block_rq_issue");
  g_assert_nonnull (strstr (issue->reason, "RSP_RECORD_PRETEND_MISSING"));
  const RspMissingEvent *ready = &g_array_index (events.missing, RspMissingEvent, 2);
  g_assert_cmpstr (ready->name, ==, "sock:sk_data_ready");
  g_assert_nonnull (strstr (ready->reason, "network waits will show as hardware waits"));
  g_assert_nonnull (strstr (ready->reason, "does not have it"));
  rsp_probed_events_clear (&events);
  remove_tree (tracefs);
}

static void
test_probe_events_none (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *empty = g_dir_make_tmp ("rsp-tracefs-XXXXXX", &error);
  RspProbedEvents events = { 0 };

  g_assert_false (rsp_probe_events (empty, NULL, &events, &error));
  g_assert_error (error, RSP_PROBE_ERROR, RSP_PROBE_ERROR_NO_EVENTS);
  rsp_probed_events_clear (&events);
  remove_tree (empty);
}

static void
test_find_perf (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("rsp-path-XXXXXX", &error);
  g_autofree char *fake = g_build_filename (dir, "perf", NULL);
  g_autofree char *path_env = g_strdup_printf ("/nonexistent:%s", dir);

  /* Not there at all: the message says how to install it. */
  g_assert_null (rsp_probe_find_perf (NULL, "/nonexistent", &error));
  g_assert_error (error, RSP_PROBE_ERROR, RSP_PROBE_ERROR_NO_PERF);
  g_assert_nonnull (strstr (error->message, "apt-get install linux-perf"));
  g_clear_error (&error);

  /* A file that is not executable does not count. */
  g_assert_true (g_file_set_contents (fake, "#!/bin/sh\n", -1, NULL));
  g_assert_null (rsp_probe_find_perf (NULL, path_env, &error));
  g_clear_error (&error);
  g_assert_cmpint (g_chmod (fake, 0755), ==, 0);
  g_autofree char *found = rsp_probe_find_perf (NULL, path_env, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, fake);

  /* RSP_PERF wins, and a wrong RSP_PERF is an error, not a fallback. */
  g_autofree char *forced = rsp_probe_find_perf (fake, "/nonexistent", &error);
  g_assert_cmpstr (forced, ==, fake);
  g_assert_null (rsp_probe_find_perf ("/nonexistent/perf", path_env, &error));
  g_assert_error (error, RSP_PROBE_ERROR, RSP_PROBE_ERROR_NO_PERF);
  g_assert_nonnull (strstr (error->message, "RSP_PERF"));

  remove_tree (dir);
}

static void
test_privileges (void)
{
  g_autoptr (GError) error = NULL;
  RspPrivileges root = { .euid = 0, .perf_event_paranoid = 4 };
  g_assert_true (rsp_probe_check_privileges (&root, &error));

  RspPrivileges user = { .euid = 1000, .egid = 1000, .perf_event_paranoid = 2, .tracefs_readable = TRUE };
  g_assert_false (rsp_probe_check_privileges (&user, &error));
  g_assert_error (error, RSP_PROBE_ERROR, RSP_PROBE_ERROR_PRIVILEGES);
  g_assert_nonnull (strstr (error->message, "sudo"));
  g_assert_nonnull (strstr (error->message, "perf_event_paranoid=-1"));
  g_clear_error (&error);

  /* paranoid 0 allows CPU-wide counting, but not raw tracepoint samples. */
  user.perf_event_paranoid = 0;
  g_assert_false (rsp_probe_check_privileges (&user, &error));
  g_clear_error (&error);

  user.perf_event_paranoid = -1;
  g_assert_true (rsp_probe_check_privileges (&user, &error));
  g_assert_no_error (error);

  user.tracefs_readable = FALSE;
  g_assert_false (rsp_probe_check_privileges (&user, &error));
  g_assert_nonnull (strstr (error->message, "gid=1000"));
  g_clear_error (&error);

  RspPrivileges capable = { .euid = 1000, .perf_event_paranoid = 2, .cap_perfmon = TRUE, .tracefs_readable = TRUE };
  g_assert_true (rsp_probe_check_privileges (&capable, &error));
}

static void
test_cpu_list (void)
{
  static const struct {
    const char *text;
    const char *expected; /* NULL: rejected */
  } cases[] = {
    { "0\n", "0" },
    { "0-1\n", "0 1" },
    { "0-3,6,8-9", "0 1 2 3 6 8 9" },
    { "", NULL },
    { "a-b", NULL },
    { "3-1", NULL },
    { "0,,1", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GArray) cpus = rsp_probe_parse_cpu_list (cases[i].text);
      if (cases[i].expected == NULL)
        {
          g_assert_null (cpus);
          continue;
        }
      g_assert_nonnull (cpus);
      g_autoptr (GString) got = g_string_new (NULL);
      for (guint j = 0; j < cpus->len; j++)
        g_string_append_printf (got, "%s%u", j > 0 ? " " : "", g_array_index (cpus, guint, j));
      g_assert_cmpstr (got->str, ==, cases[i].expected);
    }

  g_autoptr (GArray) online = rsp_probe_online_cpus ();
  g_assert_cmpuint (online->len, >=, 1);
}

static void
test_invoking_user (void)
{
  uid_t uid;
  gid_t gid;
  const char *const sudo[] = { "SUDO_UID=1001", "SUDO_GID=1002", "SUDO_USER=alice", NULL };
  g_assert_true (rsp_probe_invoking_user (sudo, &uid, &gid));
  g_assert_cmpuint (uid, ==, 1001);
  g_assert_cmpuint (gid, ==, 1002);

  const char *const pkexec[] = { "PKEXEC_UID=1003", NULL };
  g_assert_true (rsp_probe_invoking_user (pkexec, &uid, &gid));
  g_assert_cmpuint (uid, ==, 1003);
  g_assert_cmpuint (gid, ==, (gid_t) -1);

  const char *const root_sudo[] = { "SUDO_UID=0", "SUDO_GID=0", NULL };
  g_assert_false (rsp_probe_invoking_user (root_sudo, &uid, &gid));
  const char *const garbage[] = { "SUDO_UID=bob", NULL };
  g_assert_false (rsp_probe_invoking_user (garbage, &uid, &gid));
  const char *const none[] = { "HOME=/root", NULL };
  g_assert_false (rsp_probe_invoking_user (none, &uid, &gid));
}

/* getent passwd UID and id -G NAME, as session_set_user() reads them */
static void
test_user_tools_output (void)
{
  g_autofree char *name = NULL, *home = NULL;
  gid_t gid = 0;
  g_assert_true (rsp_probe_parse_passwd ("alice:x:1001:1002:Alice A,,,:/home/alice:/bin/bash\n", 1001, &name,
                                         &gid, &home));
  g_assert_cmpstr (name, ==, "alice");
  g_assert_cmpuint (gid, ==, 1002);
  g_assert_cmpstr (home, ==, "/home/alice");
  /* another uid, too few or too many fields, no home, not a number */
  const char *const bad[] = { "alice:x:1001:1002::/home/alice:/bin/sh", "alice:x:1003:1002::/home/alice",
                              "alice:x:1003:1002::/home/alice:/bin/sh:more", "alice:x:1003:1002:::/bin/sh",
                              "alice:x:1003:users::/home/alice:/bin/sh", ":x:1003:1002::/home/a:/bin/sh", "" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      char *n = NULL, *h = NULL;
      g_assert_false (rsp_probe_parse_passwd (bad[i], 1003, &n, &gid, &h));
      g_assert_null (n);
      g_assert_null (h);
    }

  g_autoptr (GArray) groups = g_array_new (FALSE, FALSE, sizeof (gid_t));
  gid_t first = 1002;
  g_array_append_val (groups, first);
  g_assert_true (rsp_probe_parse_groups ("1001 27 1002  44\n", groups));
  g_assert_cmpuint (groups->len, ==, 4); /* 1002 once */
  g_assert_cmpuint (g_array_index (groups, gid_t, 0), ==, 1002);
  g_assert_cmpuint (g_array_index (groups, gid_t, 1), ==, 1001);
  g_assert_cmpuint (g_array_index (groups, gid_t, 2), ==, 27);
  g_assert_cmpuint (g_array_index (groups, gid_t, 3), ==, 44);
  g_assert_false (rsp_probe_parse_groups ("27 audio 44", groups));
  g_assert_false (rsp_probe_parse_groups ("\n", groups));
  g_assert_cmpuint (groups->len, ==, 4);
}

static GArray *
entries (const char *first, ...)
{
  GArray *array = rsp_health_entries_new ();
  va_list ap;
  va_start (ap, first);
  for (const char *name = first; name != NULL; name = va_arg (ap, const char *))
    {
      RspHealthEntry entry = { g_strdup (name), 0, 0 };
      entry.counted = va_arg (ap, guint64);
      entry.recorded = va_arg (ap, guint64);
      g_array_append_val (array, entry);
    }
  va_end (ap);
  return array;
}

/* A counter counts with perf's filter; a filter the kernel refuses is
 * told apart (RSP_HEALTH_ERROR_FILTER: the recorder then records the
 * event whole) from a counter that cannot be opened.  Needs root and
 * sched_switch's id in tracefs. */
static void
test_health_counter_filter (void)
{
  g_autofree char *id_text = NULL;
  if (geteuid () != 0
      || !g_file_get_contents ("/sys/kernel/tracing/events/sched/sched_switch/id", &id_text, NULL, NULL))
    {
      g_test_skip ("needs root and tracefs at /sys/kernel/tracing (counting tracepoints)");
      return;
    }
  guint64 id = g_ascii_strtoull (id_text, NULL, 10);
  g_autoptr (GArray) cpus = rsp_probe_online_cpus ();
  g_autoptr (RspHealthCounters) counters = rsp_health_counters_new (cpus);
  g_autoptr (GError) error = NULL;
  g_assert_true (rsp_health_counters_add (counters, "sched:sched_switch", id, "prev_pid != 0", &error));
  g_assert_no_error (error);
  g_assert_false (rsp_health_counters_add (counters, "sched:sched_switch", id, "no_such_field != 1", &error));
  g_assert_error (error, RSP_HEALTH_ERROR, RSP_HEALTH_ERROR_FILTER);
  g_clear_error (&error);
  g_assert_false (rsp_health_counters_add (counters, "sched:sched_switch", G_MAXUINT32, NULL, &error));
  g_assert_nonnull (error);
  g_assert_false (g_error_matches (error, RSP_HEALTH_ERROR, RSP_HEALTH_ERROR_FILTER));
}

static void
test_health_thresholds (void)
{
  RspHealthEntry entry = { (char *) "sched:sched_switch", 0, 0 };
  g_assert_false (rsp_health_entry_incomplete (&entry));
  entry.counted = 10, entry.recorded = 10;
  g_assert_false (rsp_health_entry_incomplete (&entry));
  /* the window covers every counted event: one missing is a real loss */
  entry.counted = 14, entry.recorded = 13;
  g_assert_true (rsp_health_entry_incomplete (&entry));
  entry.counted = 1000, entry.recorded = 900;
  g_assert_true (rsp_health_entry_incomplete (&entry));
  entry.counted = 128, entry.recorded = 1; /* perf dropped the idle CPU's completions: the dd case of docs/RECORDING.md */
  g_assert_true (rsp_health_entry_incomplete (&entry));
  entry.counted = 5, entry.recorded = 9; /* more recorded than counted: fine */
  g_assert_false (rsp_health_entry_incomplete (&entry));
}

static void
test_health_judge (void)
{
  RspHealthVerdict verdict;

  g_autoptr (GArray) healthy = entries ("sched:sched_switch", (guint64) 500, (guint64) 500,
                                        "block:block_rq_complete", (guint64) 128, (guint64) 128, NULL);
  rsp_health_judge (healthy, FALSE, NULL, 0, &verdict);
  g_assert_false (verdict.idle_loss_suspected);
  g_assert_cmpuint (verdict.n_checked, ==, 2);
  g_assert_cmpuint (verdict.n_incomplete, ==, 0);
  g_assert_cmpuint (verdict.warnings->len, ==, 0);
  g_assert_cmpstr (verdict.summary, ==, "all 2 tracepoints complete");
  rsp_health_verdict_clear (&verdict);

  /* The measured dd case: softirq-context completions and wakings lost. */
  g_autoptr (GArray) idle = entries ("sched:sched_switch", (guint64) 280, (guint64) 280,
                                     "sched:sched_waking", (guint64) 139, (guint64) 10,
                                     "block:block_rq_complete", (guint64) 128, (guint64) 1, NULL);
  rsp_health_judge (idle, FALSE, NULL, 0, &verdict);
  g_assert_true (verdict.idle_loss_suspected);
  g_assert_cmpuint (verdict.n_incomplete, ==, 2);
  g_assert_cmpuint (verdict.warnings->len, ==, 1); /* one line, naming the fix */
  const char *warning = g_ptr_array_index (verdict.warnings, 0);
  g_assert_null (strstr (warning, "--keep-awake")); /* the last resort is never the advice */
  g_assert_nonnull (strstr (warning, "tracefs instance"));
  g_assert_nonnull (strstr (warning, "block:block_rq_complete 1/128"));
  g_assert_nonnull (strstr (warning, "sched:sched_waking 10/139"));
  g_assert_null (strstr (warning, "sched_switch"));
  g_assert_null (strstr (warning, "overflowed"));
  g_assert_nonnull (strstr (verdict.summary, "2 of 3"));
  g_assert_null (strstr (verdict.summary, "--keep-awake"));
  rsp_health_verdict_clear (&verdict);

  /* The same losses with the tracefs instance recording both events whole:
   * no loss, no warning. */
  const char *const covered[] = { "sched:sched_waking", "block:block_rq_complete", NULL };
  rsp_health_judge (idle, FALSE, covered, 0, &verdict);
  g_assert_false (verdict.idle_loss_suspected);
  g_assert_cmpuint (verdict.n_incomplete, ==, 0);
  g_assert_cmpuint (verdict.n_covered, ==, 2);
  g_assert_cmpuint (verdict.warnings->len, ==, 0);
  g_assert_cmpstr (verdict.summary, ==, "all 3 tracepoints complete (2 of them through the tracefs instance)");
  rsp_health_verdict_clear (&verdict);

  /* Already kept awake: no CPU idled, so the loss is not the idle loss. */
  rsp_health_judge (idle, TRUE, NULL, 1181, &verdict);
  g_assert_false (verdict.idle_loss_suspected);
  g_assert_cmpuint (verdict.warnings->len, ==, 1);
  warning = g_ptr_array_index (verdict.warnings, 0);
  g_assert_null (strstr (warning, "--keep-awake"));
  g_assert_nonnull (strstr (warning, "overflowed"));
  g_assert_null (strstr (verdict.summary, "try --keep-awake"));
  rsp_health_verdict_clear (&verdict);

  /* perf's buffers overflowed (PERF_RECORD_LOST): the overflow explains
   * the loss, not idle CPUs, and the instance is not said to have failed
   * (perf bench sched messaging on 2 CPUs lost 45% of every event so) */
  rsp_health_judge (idle, FALSE, NULL, 1200505, &verdict);
  g_assert_false (verdict.idle_loss_suspected);
  g_assert_cmpuint (verdict.warnings->len, ==, 1);
  warning = g_ptr_array_index (verdict.warnings, 0);
  g_assert_nonnull (strstr (warning, "overflowed"));
  g_assert_null (strstr (warning, "did not run"));
  g_assert_nonnull (strstr (warning, "sched:sched_waking 10/139"));
  rsp_health_verdict_clear (&verdict);

  /* A loss in a task-context event is not the idle loss. */
  g_autoptr (GArray) other = entries ("sched:sched_process_fork", (guint64) 100, (guint64) 50, NULL);
  rsp_health_judge (other, FALSE, NULL, 0, &verdict);
  g_assert_false (verdict.idle_loss_suspected);
  g_assert_cmpuint (verdict.warnings->len, ==, 1);
  g_assert_null (strstr (g_ptr_array_index (verdict.warnings, 0), "--keep-awake"));
  rsp_health_verdict_clear (&verdict);

  g_autoptr (GArray) nothing = rsp_health_entries_new ();
  rsp_health_judge (nothing, FALSE, NULL, 0, &verdict);
  g_assert_cmpstr (verdict.summary, ==, "not checked");
  rsp_health_verdict_clear (&verdict);
}

static void
test_run_without_perf (void)
{
  /* The whole recorder stops at the first check, with status 1. */
  RspRecorderOptions options;
  g_autoptr (GError) error = NULL;
  g_assert_true (parse (&options, &error, "-o", "never-written.rsp", "--", "true", NULL));
  g_setenv ("RSP_PERF", "/nonexistent/perf", TRUE);
  g_assert_cmpint (rsp_recorder_run (&options), ==, 1);
  g_unsetenv ("RSP_PERF");
  g_assert_false (g_file_test ("never-written.rsp", G_FILE_TEST_EXISTS));
  rsp_recorder_options_clear (&options);
}

/* perf's overflow warning names the fix that fits what filled its buffers:
 * a lower --freq only when cpu-clock samples were the bulk (perf bench
 * sched messaging filled them with socket tracepoints: 17 of 18 of what
 * perf kept). */
static void
test_health_perf_loss (void)
{
  /* cpu-clock samples the bulk, by number and bytes */
  RspPerfKept clock = { .samples = 5000, .clock_samples = 4000, .bytes = 500000, .clock_bytes = 440000 };
  g_autofree char *samples = rsp_health_perf_loss_text (26, 1000, &clock, FALSE);
  g_assert_nonnull (strstr (samples, "perf lost 26 events and 1000 samples"));
  g_assert_nonnull (strstr (samples, "use a lower --freq if it matters"));
  g_assert_null (strstr (samples, "--call-graph fp"));
  g_autofree char *dwarf = rsp_health_perf_loss_text (1, 2, &clock, TRUE);
  g_assert_nonnull (strstr (dwarf, "--freq or --call-graph fp"));
  /* DWARF: fewer clock samples than tracepoint events, but 8 kB each: they
   * filled the buffers */
  RspPerfKept dwarf_kept = { .samples = 60000, .clock_samples = 10000, .bytes = 85000000, .clock_bytes = 80000000 };
  g_autofree char *dwarf_clock = rsp_health_perf_loss_text (1, 2, &dwarf_kept, TRUE);
  g_assert_nonnull (strstr (dwarf_clock, "use a lower --freq or --call-graph fp"));
  /* perf bench sched messaging: socket tracepoints */
  RspPerfKept messaging = { .samples = 886075, .clock_samples = 1520, .bytes = 88000000, .clock_bytes = 300000 };
  g_autofree char *tracepoints = rsp_health_perf_loss_text (26, 1718698, &messaging, FALSE);
  g_assert_nonnull (strstr (tracepoints, "884555 of the 886075 samples it kept (99% of their bytes) are tracepoint events"));
  g_assert_nonnull (strstr (tracepoints, "a lower --freq would not help"));
  g_assert_nonnull (strstr (tracepoints, "record a shorter stretch or a smaller load;"));
  g_assert_null (strstr (tracepoints, "--keep-awake"));
  RspPerfKept few = { .samples = 10, .clock_samples = 1, .bytes = 1000, .clock_bytes = 100 };
  g_autofree char *tracepoints_dwarf = rsp_health_perf_loss_text (1, 2, &few, TRUE);
  g_assert_nonnull (strstr (tracepoints_dwarf, "smaller load, or use --call-graph fp;"));
}

/* rsp_recording_copy(): the same bytes and permission bits, a new file
 * only, nothing left behind when it fails. */
static void
test_recording_copy (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("rsp-copy-XXXXXX", &error);
  g_assert_no_error (error);
  /* sizes around the 2 MB piece: none, less, one, one and a bit, several */
  const gsize sizes[] = { 0, 4097, RSP_RECORDING_COPY_PIECE, RSP_RECORDING_COPY_PIECE + 1,
                          3 * RSP_RECORDING_COPY_PIECE + 12345 };
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      gsize size = sizes[k];
      g_autofree guint8 *data = g_malloc (MAX (size, 1));
      guint32 x = 2463534242u + k;
      for (gsize i = 0; i < size; i++)
        {
          x ^= x << 13, x ^= x >> 17, x ^= x << 5;
          data[i] = (guint8) x;
        }
      g_autofree char *from = g_build_filename (dir, "from", NULL);
      g_autofree char *to = g_build_filename (dir, "to", NULL);
      g_assert_true (g_file_set_contents (from, (const char *) data, (gssize) size, &error));
      /* the bits are kept whatever the umask: 0644 under 077 */
      g_assert_cmpint (chmod (from, k % 2 == 0 ? 0640 : 0644), ==, 0);
      mode_t old_umask = umask (077);
      g_assert_true (rsp_recording_copy (from, to, &error));
      umask (old_umask);
      g_assert_no_error (error);
      g_autofree char *copied = NULL;
      gsize copied_size = 0;
      g_assert_true (g_file_get_contents (to, &copied, &copied_size, &error));
      g_assert_cmpuint (copied_size, ==, size);
      g_assert_true (size == 0 || memcmp (copied, data, size) == 0);
      struct stat st;
      g_assert_cmpint (stat (to, &st), ==, 0);
      g_assert_cmpuint (st.st_mode & 07777, ==, k % 2 == 0 ? 0640 : 0644);

      /* an existing file is not overwritten, and stays */
      g_assert_false (rsp_recording_copy (from, to, &error));
      g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST);
      g_clear_error (&error);
      g_assert_cmpint (stat (to, &st), ==, 0);
      g_assert_cmpint (st.st_size, ==, (goffset) size);
      g_assert_cmpint (unlink (to), ==, 0);
      g_assert_cmpint (unlink (from), ==, 0);
    }
  /* no source, no place for the copy: an error each, no file made */
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  g_autofree char *to = g_build_filename (dir, "to", NULL);
  g_assert_false (rsp_recording_copy (missing, to, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);
  g_assert_false (g_file_test (to, G_FILE_TEST_EXISTS));
  g_autofree char *from = g_build_filename (dir, "from", NULL);
  g_assert_true (g_file_set_contents (from, "perf", 4, &error));
  g_autofree char *nowhere = g_build_filename (dir, "no-dir", "to", NULL);
  g_assert_false (rsp_recording_copy (from, nowhere, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);
  /* a write that fails half way (a full disk; here a limit on the size of
   * files, EFBIG): the error, and the partial copy removed */
  g_autofree guint8 *big = g_malloc0 (3 * RSP_RECORDING_COPY_PIECE);
  g_assert_true (g_file_set_contents (from, (const char *) big, 3 * RSP_RECORDING_COPY_PIECE, &error));
  struct rlimit old_limit, limit;
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &old_limit), ==, 0);
  limit = old_limit;
  limit.rlim_cur = RSP_RECORDING_COPY_PIECE + 4096;
  void (*old_handler) (int) = signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);
  gboolean copied = rsp_recording_copy (from, to, &error);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &old_limit), ==, 0);
  signal (SIGXFSZ, old_handler);
  g_assert_false (copied);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED); /* EFBIG has no GFileError of its own */
  g_assert_nonnull (strstr (error->message, g_strerror (EFBIG)));
  g_clear_error (&error);
  g_assert_false (g_file_test (to, G_FILE_TEST_EXISTS));
  g_assert_cmpint (unlink (from), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/recorder/options/defaults", test_options_defaults);
  g_test_add_func ("/recorder/options/all", test_options_all);
  g_test_add_func ("/recorder/options/command-stops-parsing", test_options_command_stops_parsing);
  g_test_add_func ("/recorder/options/errors", test_options_errors);
  g_test_add_func ("/recorder/perf-argv", test_perf_argv);
  g_test_add_func ("/recorder/exit-status", test_exit_status);
  g_test_add_func ("/recorder/run-without-perf", test_run_without_perf);
  g_test_add_func ("/recording/copy", test_recording_copy);
  g_test_add_func ("/probe/event-set", test_event_set);
  g_test_add_func ("/probe/events/complete", test_probe_events_complete);
  g_test_add_func ("/probe/events/degrade", test_probe_events_degrade);
  g_test_add_func ("/probe/event-filter", test_probe_event_filter);
  g_test_add_func ("/probe/events/none", test_probe_events_none);
  g_test_add_func ("/probe/find-perf", test_find_perf);
  g_test_add_func ("/probe/privileges", test_privileges);
  g_test_add_func ("/probe/cpu-list", test_cpu_list);
  g_test_add_func ("/probe/invoking-user", test_invoking_user);
  g_test_add_func ("/probe/user-tools-output", test_user_tools_output);
  g_test_add_func ("/health/thresholds", test_health_thresholds);
  g_test_add_func ("/health/counter-filter", test_health_counter_filter);
  g_test_add_func ("/health/judge", test_health_judge);
  g_test_add_func ("/health/perf-loss", test_health_perf_loss);
  return g_test_run ();
}
