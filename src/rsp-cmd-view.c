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

/* TRUE when OpenGL here may draw on a GPU: a DRM render node this user
 * can open (Mesa's hardware drivers, a VM's virtio-gpu) or NVIDIA's own
 * driver, and Mesa not told to draw in software.  Without any of them,
 * the only OpenGL there is Mesa's software rasterizer (llvmpipe).  The
 * other way round it can be wrong: a node is there, but the display
 * cannot use it (Xvfb, VNC or xrdp on a machine with a GPU, ssh -X, a
 * virtio-gpu without 3D): GTK's choice is then kept, as before. */
static gboolean
has_gpu (void)
{
  const char *software = g_getenv ("LIBGL_ALWAYS_SOFTWARE");
  if (software != NULL && *software != '\0' && strcmp (software, "0") != 0)
    return FALSE;
  if (access ("/dev/nvidiactl", R_OK | W_OK) == 0)
    return TRUE;
  g_autoptr (GDir) dir = g_dir_open ("/dev/dri", 0, NULL);
  const char *name;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      if (!g_str_has_prefix (name, "renderD"))
        continue;
      g_autofree char *path = g_build_filename ("/dev/dri", name, NULL);
      if (access (path, R_OK | W_OK) == 0)
        return TRUE;
    }
  return FALSE;
}

/* GTK 4 draws with OpenGL wherever the display offers it, even where that
 * OpenGL is a software rasterizer (a VM or a server without a GPU; GTK
 * 4.14 and later only step down from their newest OpenGL renderer to an
 * older one there).  On such a VM, GTK 4.8's OpenGL renderer kept the
 * main thread busy for half a second before the first frame (compiling
 * its shaders), and the rasterizer took CPU from the recording's load.
 * So where there is no GPU the viewer picks GTK's cairo renderer.
 * GSK_RENDERER set by the user is left as it is.  It sets the
 * environment, so it runs before any thread starts. */
static void
choose_renderer (void)
{
  const char *why = NULL;
  if (g_getenv ("GSK_RENDERER") != NULL)
    why = "GSK_RENDERER is set";
  else if (has_gpu ())
    why = "a GPU is there, GTK chooses";
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
  /* first: it sets the environment, and no thread may run yet */
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
