/* rsp-cmd-export.c — `rsp export --format F -o OUT FILE [--pid P | --comm NAME] [--from MS --to MS]`:
 * the analysed process's profile in a format other tools open
 * (rsp-profile-export.h). */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rsp-analysis.h"
#include "rsp-cli-options.h"
#include "rsp-cli-target.h"
#include "rsp-commands.h"
#include "rsp-heap.h"
#include "rsp-profile-export.h"
#include "rsp-user-file.h"

/* DATA into the existing file OUTPUT, opened as it is. */
static gboolean
write_into (const char *output, const char *data, gsize size, GError **error)
{
  int fd = open (output, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
  int e = fd < 0 ? errno : rsp_write_all (fd, data, size);
  if (fd >= 0 && close (fd) != 0 && e == 0)
    e = errno;
  if (e != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), _("cannot write %s: %s"), output,
                   g_strerror (e));
      return FALSE;
    }
  return TRUE;
}

static gboolean
write_out (const char *output, GBytes *bytes, GError **error)
{
  gsize size;
  const char *data = g_bytes_get_data (bytes, &size);
  if (g_strcmp0 (output, "-") == 0)
    {
      if (fwrite (data, 1, size, stdout) != size || fflush (stdout) != 0)
        {
          int e = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), _("cannot write to standard output: %s"),
                       g_strerror (e));
          return FALSE;
        }
      return TRUE;
    }
  /* a device or a FIFO (/dev/null, /dev/stdout, a shell's <(...)) is
   * written into as it is: replaced by a rename, /dev/null became a
   * regular file */
  struct stat st;
  gboolean exists = g_stat (output, &st) == 0;
  if (exists && S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, _("%s is a directory: give a file name with -o"), output);
      return FALSE;
    }
  if (exists && !S_ISREG (st.st_mode))
    return write_into (output, data, size, error);
  /* through a temporary file and a rename: a full disk leaves no half export */
  if (!g_file_set_contents_full (output, data, (gssize) size, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error))
    return FALSE;
  rsp_give_to_invoking_user (output);
  return TRUE;
}

static int
export (const char *path, const RspCliTarget *target, RspExportFormat format, const char *output, gboolean offline)
{
  rsp_heap_tune (rsp_heap_file_bytes (path)); /* the model's arrays in huge pages */
  g_autoptr (RspModel) model = rsp_cli_load_offline (path, offline);
  if (model == NULL)
    return 1;
  gint32 pid = rsp_cli_pick_target (model, path, target->pid, target->comm, TRUE);
  if (pid < 0)
    return 1;
  g_autoptr (RspAnalysis) analysis = rsp_cli_analyse (model, path, pid, target, NULL);
  if (analysis == NULL)
    return 1;
  g_autoptr (GError) error = NULL;
  g_autofree char *title = g_path_get_basename (path);
  g_autoptr (GBytes) bytes = rsp_export (analysis, format, title);
  if (!write_out (output, bytes, &error))
    {
      g_printerr ("rsp export: %s\n", error->message);
      return 1;
    }
  return 0;
}

int
rsp_cmd_export (int argc, char **argv)
{
  char *format_name = NULL, *output = NULL;
  gboolean offline = FALSE;
  RspCliTarget target;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      N_ ("folded (FlameGraph's collapsed stacks, microseconds), speedscope (speedscope's JSON), chrome "
          "(trace-event JSON for Perfetto and chrome://tracing) or pprof (gzipped profile.proto)"),
      N_ ("FORMAT") },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_ ("The file to write; - for standard output"),
      N_ ("OUT") },
    { "offline", 0, 0, G_OPTION_ARG_NONE, &offline,
      N_ ("Use only the symbols stored in the recording, nothing from this machine"), NULL },
    { NULL },
  };
  const RspCliParser parser = {
    .command = "export",
    .parameters = N_ ("- the profile of a process for other tools"),
    .usage = N_ ("rsp export --format FORMAT -o OUT FILE"),
    .description = N_ ("The profile is what rsp report accounts: the time of the process of interest and of "
                       "everything it waited on, on-CPU and off-CPU, each stack with the processes it crosses "
                       "and its category as the top frame; its totals are the accounting table's."),
    .entries = entries,
    .target = &target,
  };
  int status;
  g_autofree char *path = rsp_cli_parse (&parser, argc, argv, &status);
  if (path == NULL)
    {
      g_free (format_name);
      g_free (output);
      return status;
    }
  RspExportFormat format;
  if (format_name == NULL || !rsp_export_format_parse (format_name, &format))
    {
      if (format_name == NULL)
        g_printerr ("rsp export: %s\n", _("--format is required: folded, speedscope, chrome or pprof"));
      else
        g_printerr (_("rsp export: unknown format '%s': use folded, speedscope, chrome or pprof\n"), format_name);
      status = 2;
    }
  else if (output == NULL)
    {
      g_printerr ("rsp export: %s\n", _("-o OUT is required (- writes to standard output)"));
      status = 2;
    }
  else
    status = export (path, &target, format, output, offline);
  rsp_cli_target_clear (&target);
  g_free (format_name);
  g_free (output);
  return status;
}
