/* main.c — the rsp command line: dispatches to the subcommands.
 *
 * A subcommand runs in what it needs:
 *   - record, report, diff, export and dump here (rsp-cli-run.c): the model,
 *     the collector, GLib, libtraceevent, libtracefs and elfutils, linked
 *     from their static archives where they are installed (src/meson.build),
 *     so that a small report loads no shared library but the C library and
 *     libm;
 *   - view and render in programs of their own that rsp executes: rsp-view
 *     links GTK 4, rsp-render cairo and Pango.  Each is looked for beside
 *     this executable first (a build tree), then where it is installed. */
#include <errno.h>
#include <libintl.h>
#include <limits.h>
#include <locale.h>
#ifdef RSP_STATIC_LIBC
#include <nss.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rsp-commands.h"

#define _(s) gettext (s)
#define N_(s) (s)

typedef struct {
  const char *name;
  const char *helper; /* a program of its own, or NULL: run here (rsp_cli_run) */
  const char *summary;
} RspCommand;

static const RspCommand commands[] = {
  { "record", NULL, N_ ("record the whole system while a command runs (perf record -a)") },
  { "report", NULL, N_ ("where the wall time of a process went, and why (--json)") },
  { "diff", NULL, N_ ("what changed between two recordings of one workload (--json)") },
  { "export", NULL, N_ ("write a process's profile for other tools: folded, speedscope, chrome, pprof") },
  { "view", "rsp-view", N_ ("open recordings in the desktop application (also: rsp FILE)") },
  { "render", "rsp-render", N_ ("draw a view of a recording to PNG, SVG or PDF, headless") },
  { "dump", NULL, N_ ("print the decoded events of a recording, or --stats") },
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void
print_usage (FILE *out)
{
  fprintf (out, "%s", _("Usage: rsp COMMAND [OPTION...]\n\n"
                        "RSP, the Recursive Systemic Profiler: why did this take so long?\n\n"
                        "Commands:\n"));
  for (size_t i = 0; i < N_COMMANDS; i++)
    fprintf (out, "  %-8s %s\n", commands[i].name, _(commands[i].summary));
  fprintf (out, "\n%s\n", _("Run 'rsp COMMAND --help' for the options of one command."));
}

/* NAME beside this executable if it is a regular file there, else NAME in
 * INSTALLED_DIR; in BUF. */
static const char *
find_part (const char *name, const char *installed_dir, char *buf, size_t size)
{
  char self[PATH_MAX];
  ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);
  if (n > 0)
    {
      self[n] = '\0';
      char *slash = strrchr (self, '/');
      struct stat st;
      if (slash != NULL && snprintf (buf, size, "%.*s/%s", (int) (slash - self), self, name) < (int) size
          && stat (buf, &st) == 0 && S_ISREG (st.st_mode))
        return buf;
    }
  snprintf (buf, size, "%s/%s", installed_dir, name);
  return buf;
}

/* Executes HELPER with ARGV (the subcommand's: ARGV[0] is its name). */
static int
run_helper (const char *helper, char **argv)
{
  char path[PATH_MAX + 64];
  find_part (helper, RSP_LIBEXECDIR, path, sizeof path);
  execv (path, argv);
  int err = errno;
  fprintf (stderr, _("rsp %s: cannot run %s: %s; reinstall rsp (it installs %s in %s)\n"), argv[0], path,
           strerror (err), helper, RSP_LIBEXECDIR);
  return 1;
}

int
main (int argc, char **argv)
{
#ifdef RSP_STATIC_LIBC
  /* Linked with the C library (static-pie): its user and group look-ups
   * must not load NSS modules (systemd's, sssd's), which bring the shared
   * C library along and crash it.  The files only; rsp record asks
   * getent(1) and id(1) for the invoking user (rsp-recorder-command.c),
   * and GLib looks here only for a home when HOME is unset. */
  __nss_configure_lookup ("passwd", "files");
  __nss_configure_lookup ("group", "files");
  __nss_configure_lookup ("initgroups", "files");
#endif
  /* the categories the command line uses: its charset, its numbers
   * (81,95 ms in German) and its messages; not LC_ALL, whose twelve files
   * (C.UTF-8 on a Debian without locale-archive) cost 3% of a small
   * report.  Nothing here formats dates, money or sorts by locale; the
   * viewer and rsp-render set them all (rsp_cli_init_locale()). */
  setlocale (LC_CTYPE, "");
  setlocale (LC_NUMERIC, "");
  setlocale (LC_MESSAGES, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2)
    {
      print_usage (stderr);
      return 2;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      print_usage (stdout);
      return 0;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("rsp %s\n", RSP_VERSION);
      return 0;
    }
  for (size_t i = 0; i < N_COMMANDS; i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].helper != NULL ? run_helper (commands[i].helper, argv + 1)
                                        : rsp_cli_run (argc - 1, argv + 1);

  /* `rsp FILE` opens FILE in the viewer */
  if (argv[1][0] != '-' && access (argv[1], F_OK) == 0)
    {
      char *view_argv[] = { (char *) "view", argv[1], NULL };
      return run_helper ("rsp-view", view_argv);
    }
  fprintf (stderr, _("rsp: unknown command '%s'\n\n"), argv[1]);
  print_usage (stderr);
  return 2;
}
