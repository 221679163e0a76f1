/* rsp-render-main.c — the renderer's program (cairo and Pango), which
 * `rsp render` executes with the subcommand's arguments (argv[0]
 * "render"): kept out of the rsp executable so that the other commands
 * start without loading the drawing libraries. */
#include <glib.h>

#include "rsp-cli-options.h"
#include "rsp-commands.h"

int
main (int argc, char **argv)
{
  rsp_cli_init_locale ();
  g_set_prgname ("rsp render");
  return rsp_cmd_render (argc, argv);
}
