/* main.c — the rsp command line: dispatches to the subcommands. */
#include <glib.h>
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
  { "record", rsp_cmd_record, "record the whole system while a command runs (perf record -a)" },
  { "report", rsp_cmd_report, "where the wall time of a process went, and why (--json)" },
  { "dump", rsp_cmd_dump, "print the decoded events of a recording, or --stats" },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "Usage: rsp COMMAND [OPTION...]\n\n"
                "RSP, the Recursive Systemic Profiler: why did this take so long?\n\n"
                "Commands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\nRun 'rsp COMMAND --help' for the options of one command.\n");
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");

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
      return commands[i].run (argc - 1, argv + 1);

  fprintf (stderr, "rsp: unknown command '%s'\n\n", argv[1]);
  print_usage (stderr);
  return 2;
}
