/* rsp-cli-options.c — one option parser for dump, report and render. */
#include "rsp-cli-options.h"

#include <glib/gi18n.h>
#include <locale.h>

#include <glib/gi18n.h>

void
rsp_cli_target_clear (RspCliTarget *target)
{
  g_clear_pointer (&target->comm, g_free);
}

char *
rsp_cli_parse (const RspCliParser *p, int argc, char **argv, int *status)
{
  g_auto (GStrv) files = rsp_cli_parse_files (p, argc, argv, 1, status);
  return files != NULL ? g_strdup (files[0]) : NULL;
}

char **
rsp_cli_parse_files (const RspCliParser *p, int argc, char **argv, guint n_files, int *status)
{
  *status = 2;
  g_auto (GStrv) files = NULL;
  RspCliTarget *t = p->target;
  if (t != NULL)
    *t = (RspCliTarget) { .from_ms = -1, .to_ms = -1 };
  GOptionEntry target_entries[] = {
    { "pid", 'p', 0, G_OPTION_ARG_INT, t ? &t->pid : NULL,
      N_ ("The process of interest (default: the command rsp record ran)"), N_ ("PID") },
    { "comm", 'c', 0, G_OPTION_ARG_STRING, t ? &t->comm : NULL,
      N_ ("The process of interest by name (the busiest one of that name)"), N_ ("NAME") },
    { "from", 0, 0, G_OPTION_ARG_DOUBLE, t ? &t->from_ms : NULL, N_ ("Start of the range, ms from the recording's start"),
      N_ ("MS") },
    { "to", 0, 0, G_OPTION_ARG_DOUBLE, t ? &t->to_ms : NULL, N_ ("End of the range, ms from the recording's start"),
      N_ ("MS") },
    { NULL },
  };
  GOptionEntry file_entries[] = {
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_ ("FILE") },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (p->parameters);
  g_option_context_set_translation_domain (ctx, GETTEXT_PACKAGE);
  if (t != NULL)
    g_option_context_add_main_entries (ctx, target_entries, GETTEXT_PACKAGE);
  if (p->entries != NULL)
    g_option_context_add_main_entries (ctx, p->entries, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (ctx, file_entries, GETTEXT_PACKAGE);
  if (p->description != NULL)
    g_option_context_set_description (ctx, p->description);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("rsp %s: %s\n", p->command, error->message);
      return NULL;
    }
  if (files == NULL || g_strv_length (files) != n_files)
    {
      if (n_files == 1)
        g_printerr (_("rsp %s: give exactly one recording (%s)\n"), p->command, _(p->usage));
      else
        g_printerr (_("rsp %s: give exactly %u recordings (%s)\n"), p->command, n_files, _(p->usage));
      return NULL;
    }
  if (t != NULL && t->from_ms >= 0 && t->to_ms >= 0 && t->to_ms <= t->from_ms)
    {
      g_printerr (_("rsp %s: --to (%.3f ms) must be after --from (%.3f ms)\n"), p->command, t->to_ms, t->from_ms);
      return NULL;
    }
  *status = 0;
  return g_steal_pointer (&files);
}

void
rsp_cli_target_range (const RspCliTarget *t, const RspModel *model, guint64 *from, guint64 *to)
{
  guint64 origin = rsp_model_start_time (model);
  *from = t->from_ms >= 0 ? origin + (guint64) (t->from_ms * 1e6) : 0;
  *to = t->to_ms >= 0 ? origin + (guint64) (t->to_ms * 1e6) : G_MAXUINT64;
}

void
rsp_cli_init_locale (void)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}
