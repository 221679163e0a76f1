/* rsp-cmd-view.c — `rsp view [FILE...]` (and `rsp FILE`): the desktop
 * application.  It never runs as root: recording goes through pkexec. */
#include <glib.h>
#include <glib/gi18n.h>
#include <gtk/gtk.h>
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

/* TRUE when this machine has a GPU that OpenGL can draw with: a DRM
 * render node (Mesa's drivers, virtio-gpu) or NVIDIA's own driver.
 * Without either, the only OpenGL there is Mesa's software rasterizer
 * (llvmpipe). */
static gboolean
has_gpu (void)
{
  if (g_file_test ("/dev/nvidiactl", G_FILE_TEST_EXISTS))
    return TRUE;
  g_autoptr (GDir) dir = g_dir_open ("/dev/dri", 0, NULL);
  const char *name;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, "renderD"))
      return TRUE;
  return FALSE;
}

/* GTK 4 before 4.14 draws with OpenGL wherever the display offers it,
 * even where that OpenGL is a software rasterizer (a VM or a server
 * without a GPU): there, compiling its shaders kept the main thread busy
 * for half a second before the first frame, and the rasterizer took CPU
 * from the recording's load.  GTK 4.14 and later avoid such renderers
 * themselves; before that, the viewer picks GTK's cairo renderer where
 * there is no GPU.  GSK_RENDERER set by the user is left as it is.  Runs
 * before any thread starts (setenv). */
static void
choose_renderer (void)
{
  const char *why = NULL;
  if (g_getenv ("GSK_RENDERER") != NULL)
    why = "GSK_RENDERER is set";
  else if (gtk_get_minor_version () >= 14)
    why = "GTK 4.14 or later chooses";
  else if (has_gpu ())
    why = "a GPU is there";
  else
    g_setenv ("GSK_RENDERER", "cairo", TRUE);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "renderer: %s", why != NULL ? why : "cairo, no GPU");
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
  choose_renderer ();
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
