/* rsp-recorder-options.c — the arguments of `rsp record`: its usage text,
 * parsing them into RspRecorderOptions (rsp-recorder.h), clearing those. */
#include "rsp-recorder.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

const char *
rsp_recorder_usage (void)
{
  static char *usage = NULL;
  if (usage == NULL)
    usage = g_strdup_printf (_("Usage: rsp record [OPTION...] [--] COMMAND [ARG...]\n"
                                "       rsp record [OPTION...] [--duration SEC]\n"
                                "\n"
                                "Records the whole system (perf record -a) while COMMAND runs, or for SEC\n"
                                "seconds (or until Ctrl-C) when no COMMAND is given, into one file that\n"
                                "'rsp report' and 'rsp view' open on this machine or another one.\n"
                                "\n"
                                "Options:\n"
                                "  -o, --output FILE        write the recording to FILE (default: %s)\n"
                                "  -F, --freq HZ            cpu-clock samples per second per CPU (default: 1000)\n"
                                "  --call-graph fp|dwarf    how user stacks are taken: frame pointers (default)\n"
                                "                           or stack copies unwound with DWARF (bigger files)\n"
                                "  --duration SEC           stop after SEC seconds (COMMAND gets SIGTERM)\n"
                                "  --repeat N               run COMMAND N times, one after the other (each run is\n"
                                "                           a request of 'rsp report --requests runs'); stops at\n"
                                "                           the first run that fails\n"
                                "  --pause MS               wait MS milliseconds between runs (default: 0)\n"
                                "  --probe BINARY:FUNCTION  a uprobe on FUNCTION's entry and return (through perf\n"
                                "                           probe, removed afterwards): each call is a request of\n"
                                "                           'rsp report --requests probe:FUNCTION'; may be repeated\n"
                                "  --keep-awake             last resort where RSP's tracefs instance cannot run: keep\n"
                                "                           every CPU busy with an idle-priority loop so that perf\n"
                                "                           keeps interrupt-context events (slows the workload)\n"
                                "  --stop-on-eof            stop as an interrupt does when standard input ends\n"
                                "                           (how rsp view stops what it started through pkexec);\n"
                                "                           COMMAND then reads /dev/null\n"
                                "  -h, --help               show this help\n"
                                "\n"
                                "Beside perf, a tracefs instance of RSP's own (trace clock mono) records the\n"
                                "events that fire in interrupt context on idle CPUs, which perf drops: wake-ups,\n"
                                "block completions, interrupts, softirqs, socket data and timer expiries.\n"
                                "\n"
                                "Needs root (or kernel.perf_event_paranoid=-1 and a readable tracefs).  Under\n"
                                "sudo or pkexec, COMMAND runs as the invoking user and FILE is given to that user.\n"
                                "The exit status is COMMAND's (128+N when killed by signal N), 1 on recording errors.\n"),
                             RSP_RECORDER_DEFAULT_OUTPUT);
  return usage;
}

typedef enum {
  MATCH_NO,
  MATCH_YES,
  MATCH_ERROR,
} OptionMatch;

/* Matches ARGV[*I] against an option that takes a value: "-o FILE",
 * "-oFILE", "--output FILE", "--output=FILE". */
static OptionMatch
match_valued_option (int argc, char **argv, int *i, const char *short_name, const char *long_name,
                     const char **value, GError **error)
{
  const char *arg = argv[*i];
  gsize long_length = strlen (long_name);

  if (strcmp (arg, long_name) == 0 || (short_name != NULL && strcmp (arg, short_name) == 0))
    {
      if (*i + 1 >= argc)
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("option %s needs a value"), arg);
          return MATCH_ERROR;
        }
      *i += 1;
      *value = argv[*i];
      return MATCH_YES;
    }
  if (strncmp (arg, long_name, long_length) == 0 && arg[long_length] == '=')
    {
      *value = arg + long_length + 1;
      return MATCH_YES;
    }
  if (short_name != NULL && strncmp (arg, short_name, 2) == 0 && arg[2] != '\0')
    {
      *value = arg + 2;
      return MATCH_YES;
    }
  return MATCH_NO;
}

static gboolean
parse_option_value (RspRecorderOptions *options, const char *long_name, const char *value,
                    GError **error)
{
  if (strcmp (long_name, "--output") == 0)
    {
      if (*value == '\0')
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("--output needs a file name"));
          return FALSE;
        }
      g_free (options->output);
      options->output = g_strdup (value);
    }
  else if (strcmp (long_name, "--freq") == 0)
    {
      guint64 freq;
      if (!g_ascii_string_to_unsigned (value, 10, 1, RSP_RECORDER_MAX_FREQ, &freq, NULL))
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("--freq wants a whole number of Hz from 1 to %d, not '%s'"),
                       RSP_RECORDER_MAX_FREQ, value);
          return FALSE;
        }
      options->freq = (guint) freq;
    }
  else if (strcmp (long_name, "--call-graph") == 0)
    {
      if (strcmp (value, "fp") == 0)
        options->call_graph = RSP_CALL_GRAPH_FP;
      else if (strcmp (value, "dwarf") == 0)
        options->call_graph = RSP_CALL_GRAPH_DWARF;
      else
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("--call-graph is 'fp' or 'dwarf', not '%s'"), value);
          return FALSE;
        }
    }
  else if (strcmp (long_name, "--duration") == 0)
    {
      char *end = NULL;
      double seconds = g_ascii_strtod (value, &end);
      if (end == value || *end != '\0' || !isfinite (seconds) || seconds <= 0 || seconds > 1e7)
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("--duration wants a positive number of seconds, not '%s'"), value);
          return FALSE;
        }
      options->duration = seconds;
    }
  else if (strcmp (long_name, "--repeat") == 0)
    {
      guint64 n;
      if (!g_ascii_string_to_unsigned (value, 10, 1, RSP_RECORDER_MAX_REPEAT, &n, NULL))
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("--repeat wants a whole number of runs from 1 to %d, not '%s'"),
                       RSP_RECORDER_MAX_REPEAT, value);
          return FALSE;
        }
      options->repeat = (guint) n;
    }
  else if (strcmp (long_name, "--probe") == 0)
    {
      const char *colon = strrchr (value, ':');
      gboolean ok = colon != NULL && colon > value && colon[1] != '\0'
                    && (g_ascii_isalpha (colon[1]) || colon[1] == '_');
      for (const char *c = colon != NULL ? colon + 1 : ""; ok && *c != '\0'; c++)
        ok = g_ascii_isalnum (*c) || *c == '_';
      if (!ok)
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("--probe wants BINARY:FUNCTION with a C function name, not '%s'"), value);
          return FALSE;
        }
      g_autofree char *binary = g_strndup (value, (gsize) (colon - value));
      g_autofree char *path = strchr (binary, '/') != NULL ? g_strdup (binary) : g_find_program_in_path (binary);
      if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("--probe %s: no such binary '%s'"), value, binary);
          return FALSE;
        }
      g_autofree char *absolute = g_canonicalize_filename (path, NULL);
      guint n = options->probes != NULL ? g_strv_length (options->probes) : 0;
      options->probes = g_renew (char *, options->probes, n + 2);
      options->probes[n] = g_strdup_printf ("%s:%s", absolute, colon + 1);
      options->probes[n + 1] = NULL;
    }
  else if (strcmp (long_name, "--pause") == 0)
    {
      guint64 ms;
      if (!g_ascii_string_to_unsigned (value, 10, 0, 3600 * 1000, &ms, NULL))
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("--pause wants a whole number of milliseconds from 0 to 3600000, not '%s'"), value);
          return FALSE;
        }
      options->pause_ms = (guint) ms;
    }
  else
    g_assert_not_reached ();
  return TRUE;
}

gboolean
rsp_recorder_options_parse (int argc, char **argv, RspRecorderOptions *options, GError **error)
{
  static const struct {
    const char *short_name;
    const char *long_name;
  } valued[] = {
    { "-o", "--output" },
    { "-F", "--freq" },
    { NULL, "--call-graph" },
    { NULL, "--duration" },
    { NULL, "--repeat" },
    { NULL, "--pause" },
    { NULL, "--probe" },
  };

  g_return_val_if_fail (options != NULL, FALSE);

  memset (options, 0, sizeof *options);
  options->output = g_strdup (RSP_RECORDER_DEFAULT_OUTPUT);
  options->freq = RSP_RECORDER_DEFAULT_FREQ;
  options->call_graph = RSP_CALL_GRAPH_FP;

  int i;
  for (i = 1; i < argc; i++)
    {
      const char *arg = argv[i];

      if (strcmp (arg, "--") == 0)
        {
          i++;
          break;
        }
      if (arg[0] != '-' || arg[1] == '\0')
        break;
      if (strcmp (arg, "-h") == 0 || strcmp (arg, "--help") == 0)
        {
          options->help = TRUE;
          return TRUE;
        }
      if (strcmp (arg, "--keep-awake") == 0)
        {
          options->keep_awake = TRUE;
          continue;
        }
      if (strcmp (arg, "--stop-on-eof") == 0)
        {
          options->stop_on_eof = TRUE;
          continue;
        }
      if (strcmp (arg, "-g") == 0)
        {
          options->call_graph = RSP_CALL_GRAPH_FP;
          continue;
        }

      gboolean known = FALSE;
      for (gsize j = 0; j < G_N_ELEMENTS (valued) && !known; j++)
        {
          const char *value = NULL;
          switch (match_valued_option (argc, argv, &i, valued[j].short_name, valued[j].long_name,
                                       &value, error))
            {
            case MATCH_ERROR:
              return FALSE;
            case MATCH_YES:
              if (!parse_option_value (options, valued[j].long_name, value, error))
                return FALSE;
              known = TRUE;
              break;
            case MATCH_NO:
              break;
            }
        }
      if (!known)
        {
          g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                       _("unknown option '%s' (put '--' before a COMMAND that starts with '-')"), arg);
          return FALSE;
        }
    }

  if (i < argc)
    {
      options->command = g_new0 (char *, argc - i + 1);
      for (int j = i; j < argc; j++)
        options->command[j - i] = g_strdup (argv[j]);
    }
  else if (options->repeat > 1)
    {
      g_set_error (error, RSP_RECORDER_ERROR, RSP_RECORDER_ERROR_USAGE,
                   _("--repeat needs a COMMAND to run: rsp record --repeat N -- COMMAND [ARG...]"));
      return FALSE;
    }
  return TRUE;
}

void
rsp_recorder_options_clear (RspRecorderOptions *options)
{
  g_return_if_fail (options != NULL);
  g_clear_pointer (&options->output, g_free);
  g_clear_pointer (&options->command, g_strfreev);
  g_clear_pointer (&options->probes, g_strfreev);
}
