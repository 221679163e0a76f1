/* rsp-cmd-view.c — `rsp view [FILE...]` (and `rsp FILE`): the desktop
 * application.  It never runs as root: recording goes through pkexec. */
#include <glib.h>
#include <glib/gi18n.h>
#include <stdio.h>
#include <unistd.h>

#include "rsp-application.h"
#include "rsp-commands.h"

int
rsp_cmd_view (int argc, char **argv)
{
  if (geteuid () == 0)
    {
      g_printerr (_("rsp view: the viewer does not run as root; run it as yourself (recordings made with sudo "
                    "belong to you; Record… asks for privileges through pkexec)\n"));
      return 1;
    }
  g_autoptr (RspApplication) app = rsp_application_new ();
  /* argv[0] is "view": GApplication takes it as the program name */
  return g_application_run (G_APPLICATION (app), argc, argv);
}
