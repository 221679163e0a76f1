/* rsp-cli-options.h — the option parser of the commands that read one
 * recording (rsp dump, rsp report, rsp render): GOption with the
 * command's own entries, the options that pick a process and a range where
 * the command analyses, exactly one FILE, one way of saying what is wrong. */
#pragma once

#include <glib.h>

#include "rsp-model.h"

/* --pid, --comm, --from, --to: which process, which part of the recording. */
typedef struct {
  gint pid;       /* 0: not given */
  char *comm;     /* NULL: not given */
  double from_ms; /* ms from the recording's start; < 0: not given */
  double to_ms;
} RspCliTarget;

typedef struct {
  const char *command;    /* "report": messages start "rsp report: " */
  const char *parameters; /* after "rsp COMMAND [OPTION…] FILE" in --help */
  const char *usage;      /* the shortest correct call, "rsp report FILE" (translatable) */
  const char *description;/* under the options in --help, or NULL */
  const GOptionEntry *entries; /* the command's own, NULL-terminated, or NULL */
  RspCliTarget *target;   /* NULL: the command takes no --pid/--comm/--from/--to */
} RspCliParser;

/* Parses ARGV (argv[0] is the command's name).  Returns the recording's
 * path (g_free it), or NULL after printing what is wrong, with *STATUS set
 * to the exit status (2, a usage error).  TARGET, if any, is initialised. */
/* setlocale and the message catalogue: the first thing each executable
 * (rsp, and the viewer and renderer it starts) does. */
void rsp_cli_init_locale (void);

char *rsp_cli_parse (const RspCliParser *parser, int argc, char **argv, int *status);
/* The same for a command that reads N_FILES recordings (rsp diff): their
 * paths (g_strfreev them), or NULL. */
char **rsp_cli_parse_files (const RspCliParser *parser, int argc, char **argv, guint n_files, int *status);
void rsp_cli_target_clear (RspCliTarget *target);

/* TARGET's range on MODEL's clock: [*FROM, *TO), 0 and G_MAXUINT64 where
 * not given. */
void rsp_cli_target_range (const RspCliTarget *target, const RspModel *model, guint64 *from, guint64 *to);
