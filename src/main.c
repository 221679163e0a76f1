/* main.c — the rsp command line: dispatches to the subcommands. */
#include <glib.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "rsp-commands.h"

typedef struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *summary;
} RspCommand;

static const RspCommand commands[] = {
  { "record", rsp_cmd_record, N_ ("record the whole system while a command runs (perf record -a)") },
  { "report", rsp_cmd_report, N_ ("where the wall time of a process went, and why (--json)") },
  { "diff", rsp_cmd_diff, N_ ("what changed between two recordings of one workload (--json)") },
  { "view", rsp_cmd_view, N_ ("open recordings in the desktop application (also: rsp FILE)") },
  { "render", rsp_cmd_render, N_ ("draw a view of a recording to PNG, SVG or PDF, headless") },
  { "dump", rsp_cmd_dump, N_ ("print the decoded events of a recording, or --stats") },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "%s", _("Usage: rsp COMMAND [OPTION...]\n\n"
                        "RSP, the Recursive Systemic Profiler: why did this take so long?\n\n"
                        "Commands:\n"));
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-8s %s\n", commands[i].name, _(commands[i].summary));
  fprintf (out, "\n%s\n", _("Run 'rsp COMMAND --help' for the options of one command."));
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2)
    {
      print_usage (stderr);
      return 2;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      print_usage (stdout);
      return 0;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("rsp %s\n", RSP_VERSION);
      return 0;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      {
        /* "Usage: rsp report [OPTION…] FILE", not "Usage: report …".  The
         * viewer keeps the plain name: it is the application's. */
        if (commands[i].run != rsp_cmd_view)
          {
            g_autofree char *prgname = g_strdup_printf ("rsp %s", commands[i].name);
            g_set_prgname (prgname);
          }
        return commands[i].run (argc - 1, argv + 1);
      }

  /* `rsp FILE` opens FILE in the viewer */
  if (argv[1][0] != '-' && g_file_test (argv[1], G_FILE_TEST_EXISTS))
    {
      char *view_argv[] = { (char *) "view", argv[1], NULL };
      return rsp_cmd_view (2, view_argv);
    }
  fprintf (stderr, _("rsp: unknown command '%s'\n\n"), argv[1]);
  print_usage (stderr);
  return 2;
}
