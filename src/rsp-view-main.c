/* rsp-view-main.c — the viewer's program (GTK 4), which `rsp view` and
 * `rsp FILE` execute with the subcommand's arguments (argv[0] "view"):
 * kept out of the rsp executable so that the command line never loads
 * GTK. */
#include "rsp-cli-options.h"
#include "rsp-commands.h"

int
main (int argc, char **argv)
{
  rsp_cli_init_locale ();
  return rsp_cmd_view (argc, argv);
}
