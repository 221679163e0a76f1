/* rsp-cli-target.h — what the commands that analyse a recording share:
 * loading it with its warnings printed, and picking the process of
 * interest (--pid, --comm, else the command rsp record ran). */
#pragma once

#include "rsp-cli-options.h"
#include "rsp-analysis.h"
#include "rsp-model.h"

/* Loads PATH, printing the reader's warnings; prints the error and returns
 * NULL when it cannot be read. */
RspModel *rsp_cli_load (const char *path);
/* ... with only the symbols the recording stores when OFFLINE (--offline). */
RspModel *rsp_cli_load_offline (const char *path, gboolean offline);
/* The process of interest in a second recording B (rsp diff, rsp render
 * --diff), given A's (PID_A): with --pid, the process of B with the same
 * command started by the same commands in the same order
 * (rsp_diff_match_process); else as rsp_cli_pick_target picks it (--comm,
 * or B's recorded command).  -1 after a message starting "rsp COMMAND:". */
gint32 rsp_cli_pick_matching (const RspModel *a, gint32 pid_a, const RspModel *b, const char *path_b,
                              const RspCliTarget *target, const char *command);
/* PID's analysis over TARGET's range of MODEL (read from PATH); NULL after
 * printing why ("rsp COMMAND: PATH: ...", "rsp: PATH: ..." when COMMAND is
 * NULL) and the busiest processes. */
RspAnalysis *rsp_cli_analyse (const RspModel *model, const char *path, gint32 pid, const RspCliTarget *target,
                              const char *command);
/* A report on standard output: TEXT, and a newline after JSON. */
void rsp_cli_print_report (const char *text, gboolean json);
/* Lists the busiest processes, for "did you mean" messages. */
void rsp_cli_print_candidates (const RspModel *model);
/* The process of interest: PID if given, else the busiest process named
 * COMM, else the recorded command's.  Returns 0 when there is none (with a
 * message when REQUIRED), -1 after printing an error. */
gint32 rsp_cli_pick_target (const RspModel *model, const char *path, gint32 pid, const char *comm,
                            gboolean required);
