/* rsp-commands.h — the subcommands of the rsp executable.  Each takes the
 * arguments after its own name (argv[0] is the subcommand) and returns the
 * process exit status. */
#pragma once

int rsp_cmd_record (int argc, char **argv);
int rsp_cmd_dump (int argc, char **argv);
int rsp_cmd_report (int argc, char **argv);
int rsp_cmd_diff (int argc, char **argv);
int rsp_cmd_export (int argc, char **argv);
/* Runs the one of the five above that ARGV[0] names, with GLib's program
 * name set to "rsp NAME" (rsp-cli-run.c); the locale is set by the caller. */
int rsp_cli_run (int argc, char **argv);
/* In programs of their own, which rsp executes (see main.c): */
int rsp_cmd_render (int argc, char **argv);
int rsp_cmd_view (int argc, char **argv);
