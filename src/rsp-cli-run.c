/* rsp-cli-run.c — the subcommands the rsp executable runs itself: record,
 * report, diff, export, dump (see main.c). */
#include <glib.h>
#include <string.h>

#include "rsp-cli-options.h"
#include "rsp-commands.h"

int
rsp_cli_run (int argc, char **argv)
{
  static const struct {
    const char *name;
    int (*run) (int argc, char **argv);
  } commands[] = {
    { "record", rsp_cmd_record },
    { "report", rsp_cmd_report },
    { "diff", rsp_cmd_diff },
    { "dump", rsp_cmd_dump },
    { "export", rsp_cmd_export },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[0], commands[i].name) == 0)
      {
        /* "Usage: rsp report [OPTION…] FILE", not "Usage: report …" */
        g_autofree char *prgname = g_strdup_printf ("rsp %s", commands[i].name);
        g_set_prgname (prgname);
        return commands[i].run (argc, argv);
      }
  g_printerr ("rsp: no command '%s'\n", argv[0]);
  return 2;
}
