/* rsp-cmd-record.c — `rsp record`: the command line of the recorder
 * (src/collector/rsp-recorder.c does the work). */
#include <glib.h>
#include <glib/gi18n.h>
#include <stdio.h>

#include "rsp-commands.h"
#include "rsp-recorder.h"

int
rsp_cmd_record (int argc, char **argv)
{
  RspRecorderOptions options;
  g_autoptr (GError) error = NULL;

  if (!rsp_recorder_options_parse (argc, argv, &options, &error))
    {
      fprintf (stderr, _("rsp record: %s\nRun 'rsp record --help' for the options.\n"), error->message);
      rsp_recorder_options_clear (&options);
      return 2;
    }
  if (options.help)
    {
      fputs (rsp_recorder_usage (), stdout);
      rsp_recorder_options_clear (&options);
      return 0;
    }

  int status = rsp_recorder_run (&options);
  rsp_recorder_options_clear (&options);
  return status;
}
