/* rsp-application.c — the GtkApplication: actions, keyboard shortcuts, the
 * shortcuts window, opening files from the command line. */
#include "rsp-application.h"

#include <glib/gi18n.h>

#include "rsp-record-dialog.h"
#include "rsp-window.h"

struct _RspApplication {
  GtkApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (RspApplication, rsp_application, GTK_TYPE_APPLICATION)

static RspWindow *
current_window (RspApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));
  if (RSP_IS_WINDOW (window))
    return RSP_WINDOW (window);
  RspWindow *created = rsp_window_new (GTK_APPLICATION (self));
  gtk_window_present (GTK_WINDOW (created));
  return created;
}

static void
on_open_response (GtkNativeDialog *dialog, int response, RspApplication *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      if (file != NULL)
        rsp_window_open (current_window (self), file);
    }
  g_object_unref (dialog);
}

static void
open_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  RspApplication *self = user_data;
  RspWindow *window = current_window (self);
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Open a Recording"), GTK_WINDOW (window),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  GtkFileFilter *filter = gtk_file_filter_new ();
  gtk_file_filter_set_name (filter, _("Recordings (*.rsp, perf.data)"));
  gtk_file_filter_add_pattern (filter, "*.rsp");
  gtk_file_filter_add_pattern (filter, "*.data");
  gtk_file_filter_add_pattern (filter, "perf.data*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  GtkFileFilter *all = gtk_file_filter_new ();
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), all);
  g_object_unref (filter);
  g_object_unref (all);
  g_signal_connect (dialog, "response", G_CALLBACK (on_open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_recorded (RspRecordDialog *dialog, GFile *file, RspApplication *self)
{
  rsp_window_open (current_window (self), file);
}

static void
record_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  RspApplication *self = user_data;
  RspRecordDialog *dialog = rsp_record_dialog_new (GTK_WINDOW (current_window (self)));
  g_signal_connect (dialog, "recorded", G_CALLBACK (on_recorded), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
about_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  RspApplication *self = user_data;
  gtk_show_about_dialog (GTK_WINDOW (current_window (self)), "program-name", _("RSP Profiler"), "logo-icon-name",
                         RSP_APPLICATION_ID, "version", RSP_VERSION, "comments",
                         _("The Recursive Systemic Profiler: why did this take so long?"), "license-type",
                         GTK_LICENSE_GPL_3_0, NULL);
}

static void
quit_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  g_application_quit (G_APPLICATION (user_data));
}

static const GActionEntry app_actions[] = {
  { "open", open_activated, NULL, NULL, NULL, { 0 } },
  { "record", record_activated, NULL, NULL, NULL, { 0 } },
  { "about", about_activated, NULL, NULL, NULL, { 0 } },
  { "quit", quit_activated, NULL, NULL, NULL, { 0 } },
};

static void
rsp_application_startup (GApplication *app)
{
  G_APPLICATION_CLASS (rsp_application_parent_class)->startup (app);
  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions), app);
  static const struct {
    const char *action;
    const char *accels[3];
  } accels[] = {
    { "app.open", { "<Control>o", NULL } },
    { "app.record", { "<Control>r", NULL } },
    { "app.quit", { "<Control>q", NULL } },
    { "win.export", { "<Control>e", NULL } },
    { "win.show-help-overlay", { "<Control>question", NULL } },
    { "win.next-instance", { "bracketright", NULL } },
    { "win.find", { "<Control>f", NULL } },
    { "win.close-tab", { "<Control>w", NULL } },
    { "win.previous-instance", { "bracketleft", NULL } },
    { "win.compare", { "<Control>d", NULL } },
    { "win.requests", { "<Control>u", NULL } },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), accels[i].action, accels[i].accels);
}

static void
rsp_application_activate (GApplication *app)
{
  current_window (RSP_APPLICATION (app));
}

static void
rsp_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  for (int i = 0; i < n_files; i++)
    {
      RspWindow *window = rsp_window_new (GTK_APPLICATION (app));
      gtk_window_present (GTK_WINDOW (window));
      rsp_window_open (window, files[i]);
    }
}

static void
rsp_application_class_init (RspApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);
  app_class->startup = rsp_application_startup;
  app_class->activate = rsp_application_activate;
  app_class->open = rsp_application_open;
}

static void
rsp_application_init (RspApplication *self)
{
}

RspApplication *
rsp_application_new (void)
{
  RspApplication *self = g_object_new (RSP_TYPE_APPLICATION, "application-id", RSP_APPLICATION_ID, "flags",
                                       G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE, NULL);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[FILE…]"));
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Open RSP recordings or perf.data files in the viewer."));
  return self;
}
