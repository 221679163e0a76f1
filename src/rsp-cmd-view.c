/* rsp-cmd-view.c — `rsp view [FILE...]` (and `rsp FILE`): the desktop
 * application.  It never runs as root: recording goes through pkexec. */
#include <glib.h>
#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rsp-application.h"
#include "rsp-window.h"
#include "rsp-commands.h"

static gboolean
asks_for_help (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--") == 0)
        break;
      if (strcmp (argv[i], "-h") == 0 || strcmp (argv[i], "-?") == 0 || g_str_has_prefix (argv[i], "--help"))
        return TRUE;
    }
  return FALSE;
}

int
rsp_cmd_view (int argc, char **argv)
{
  /* Printing the options needs no display and no privilege check. */
  if (geteuid () == 0 && !asks_for_help (argc, argv))
    {
      g_printerr (_("rsp view: the viewer does not run as root; run it as yourself (recordings made with sudo "
                    "belong to you; Record… asks for privileges through pkexec)\n"));
      return 1;
    }
  /* the first file starts loading now, while GTK starts (rsp-window.c);
   * not with options, whose meaning GApplication decides */
  gboolean options = FALSE;
  for (int i = 1; i < argc; i++)
    options |= argv[i][0] == '-';
  if (!options && argc > 1)
    {
      g_autoptr (GFile) file = g_file_new_for_commandline_arg (argv[1]);
      g_autofree char *path = g_file_get_path (file);
      rsp_window_preload (path);
    }
  /* the help's usage line names the command the user typed; a window's
   * program name (WM_CLASS) stays what it was */
  if (asks_for_help (argc, argv))
    g_set_prgname ("rsp view");
  g_autoptr (RspApplication) app = rsp_application_new ();
  /* argv[0] is "view": GApplication takes it as the program name */
  int status = g_application_run (G_APPLICATION (app), argc, argv);
  rsp_window_preload_discard ();
  return status;
}
