/* rsp-record-dialog.c — Record…: a command line and options, run through
 * `pkexec rsp record` (the GUI never runs as root), progress, then the
 * recording opens.  Without pkexec it shows the exact command to run. */
#include "rsp-record-dialog.h"

#include <glib/gi18n.h>
#include <string.h>

struct _RspRecordDialog {
  GtkWindow parent_instance;

  GtkWidget *command;
  GtkWidget *output;
  GtkWidget *freq;
  GtkWidget *keep_awake;
  GtkWidget *dwarf;
  GtkWidget *status;
  GtkWidget *spinner;
  GtkWidget *record_button;
  GtkWidget *log;

  GSubprocess *process;
  GCancellable *cancellable;
  char *output_path;
};

enum {
  SIGNAL_RECORDED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (RspRecordDialog, rsp_record_dialog, GTK_TYPE_WINDOW)

/* The rsp binary that runs this GUI: pkexec wants an absolute path. */
static char *
rsp_binary (void)
{
  char *self = g_file_read_link ("/proc/self/exe", NULL);
  return self != NULL ? self : g_find_program_in_path ("rsp");
}

/* The rsp record argv for the dialog's fields, or NULL with ERROR set. */
static GStrv
record_argv (RspRecordDialog *self, GError **error)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->command));
  g_auto (GStrv) command = NULL;
  if (text == NULL || *text == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Type the command to record."));
      return NULL;
    }
  /* split like a shell would, but nothing runs through a shell */
  if (!g_shell_parse_argv (text, NULL, &command, error))
    return NULL;
  g_autofree char *rsp = rsp_binary ();
  GStrvBuilder *b = g_strv_builder_new ();
  g_strv_builder_add (b, rsp != NULL ? rsp : "rsp");
  g_strv_builder_add (b, "record");
  g_strv_builder_add (b, "-o");
  g_strv_builder_add (b, self->output_path);
  g_autofree char *freq = g_strdup_printf ("%d", gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->freq)));
  g_strv_builder_add (b, "--freq");
  g_strv_builder_add (b, freq);
  if (gtk_check_button_get_active (GTK_CHECK_BUTTON (self->keep_awake)))
    g_strv_builder_add (b, "--keep-awake");
  if (gtk_check_button_get_active (GTK_CHECK_BUTTON (self->dwarf)))
    {
      g_strv_builder_add (b, "--call-graph");
      g_strv_builder_add (b, "dwarf");
    }
  g_strv_builder_add (b, "--");
  g_strv_builder_addv (b, (const char **) command);
  GStrv argv = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  return argv;
}

/* The command line to type, quoting only the arguments a shell would split
 * or expand. */
static char *
quoted (GStrv argv)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; argv[i] != NULL; i++)
    {
      const char *arg = argv[i];
      gboolean plain = *arg != '\0';
      for (const char *c = arg; *c != '\0' && plain; c++)
        plain = g_ascii_isalnum (*c) || strchr ("_./:=+,-@%", *c) != NULL;
      g_autofree char *q = plain ? g_strdup (arg) : g_shell_quote (arg);
      g_string_append_printf (s, "%s%s", i > 0 ? " " : "", q);
    }
  return g_string_free (s, FALSE);
}

static void
set_running (RspRecordDialog *self, gboolean running)
{
  gtk_widget_set_sensitive (self->record_button, !running);
  gtk_widget_set_visible (self->spinner, running);
  gtk_spinner_set_spinning (GTK_SPINNER (self->spinner), running);
}

static void
on_finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  RspRecordDialog *self = user_data;
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  GSubprocess *process = G_SUBPROCESS (source);
  if (!g_subprocess_communicate_utf8_finish (process, result, &out, &err, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      gtk_label_set_text (GTK_LABEL (self->status), error->message);
      set_running (self, FALSE);
      return;
    }
  set_running (self, FALSE);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->log)), err != NULL ? err : "", -1);
  g_clear_object (&self->process);
  if (g_file_test (self->output_path, G_FILE_TEST_IS_REGULAR))
    {
      gtk_label_set_text (GTK_LABEL (self->status), _("Recorded."));
      g_autoptr (GFile) file = g_file_new_for_path (self->output_path);
      g_signal_emit (self, signals[SIGNAL_RECORDED], 0, file);
      gtk_window_close (GTK_WINDOW (self));
    }
  else
    gtk_label_set_text (GTK_LABEL (self->status), _("Recording failed: see the messages below."));
}

static void
on_record (GtkButton *button, RspRecordDialog *self)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) argv = record_argv (self, &error);
  if (argv == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->status), error->message);
      return;
    }
  g_autofree char *pkexec = g_find_program_in_path ("pkexec");
  if (pkexec == NULL)
    {
      g_autofree char *line = quoted (argv);
      g_autofree char *text = g_strdup_printf (_("pkexec is not available. Record from a terminal with:\n\nsudo %s\n\n"
                                                 "then open %s."),
                                               line, self->output_path);
      gtk_label_set_text (GTK_LABEL (self->status), text);
      gtk_label_set_selectable (GTK_LABEL (self->status), TRUE);
      return;
    }
  GStrvBuilder *b = g_strv_builder_new ();
  g_strv_builder_add (b, pkexec);
  g_strv_builder_addv (b, (const char **) argv);
  g_auto (GStrv) full = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  self->process = g_subprocess_newv ((const char *const *) full,
                                     G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  if (self->process == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->status), error->message);
      return;
    }
  gtk_label_set_text (GTK_LABEL (self->status), _("Recording the whole system while the command runs…"));
  set_running (self, TRUE);
  g_subprocess_communicate_utf8_async (self->process, NULL, self->cancellable, on_finished, self);
}

static void
rsp_record_dialog_dispose (GObject *object)
{
  RspRecordDialog *self = RSP_RECORD_DIALOG (object);
  g_cancellable_cancel (self->cancellable);
  G_OBJECT_CLASS (rsp_record_dialog_parent_class)->dispose (object);
}

static void
rsp_record_dialog_finalize (GObject *object)
{
  RspRecordDialog *self = RSP_RECORD_DIALOG (object);
  g_clear_object (&self->process);
  g_clear_object (&self->cancellable);
  g_free (self->output_path);
  G_OBJECT_CLASS (rsp_record_dialog_parent_class)->finalize (object);
}

static void
rsp_record_dialog_class_init (RspRecordDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->dispose = rsp_record_dialog_dispose;
  object_class->finalize = rsp_record_dialog_finalize;
  signals[SIGNAL_RECORDED] = g_signal_new ("recorded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                           NULL, G_TYPE_NONE, 1, G_TYPE_FILE);
}

static GtkWidget *
row (GtkWidget *grid, int y, const char *label, GtkWidget *widget)
{
  GtkWidget *l = gtk_label_new_with_mnemonic (label);
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), widget);
  gtk_widget_set_halign (l, GTK_ALIGN_END);
  gtk_grid_attach (GTK_GRID (grid), l, 0, y, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), widget, 1, y, 1, 1);
  gtk_widget_set_hexpand (widget, TRUE);
  return widget;
}

static void
rsp_record_dialog_init (RspRecordDialog *self)
{
  self->cancellable = g_cancellable_new ();
  g_autofree char *stamp = g_date_time_format (g_date_time_new_now_local (), "%Y%m%d-%H%M%S");
  g_autofree char *name = g_strdup_printf ("rsp-%s.rsp", stamp);
  self->output_path = g_build_filename (g_get_home_dir (), name, NULL);

  gtk_window_set_title (GTK_WINDOW (self), _("Record"));
  gtk_window_set_default_size (GTK_WINDOW (self), 560, -1);
  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 8);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  gtk_widget_set_margin_start (grid, 18);
  gtk_widget_set_margin_end (grid, 18);
  gtk_widget_set_margin_top (grid, 18);
  gtk_widget_set_margin_bottom (grid, 18);

  self->command = row (grid, 0, _("_Command"), gtk_entry_new ());
  gtk_entry_set_placeholder_text (GTK_ENTRY (self->command), _("e.g. curl http://127.0.0.1:8080/"));
  gtk_entry_set_activates_default (GTK_ENTRY (self->command), TRUE);
  self->output = row (grid, 1, _("_Save as"), gtk_label_new (self->output_path));
  gtk_widget_set_halign (self->output, GTK_ALIGN_START);
  self->freq = row (grid, 2, _("Sampling _frequency (Hz)"), gtk_spin_button_new_with_range (10, 10000, 10));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->freq), 1000);
  /* a last resort, as `rsp record --keep-awake`: RSP's tracefs instance
   * already records what perf drops on idle CPUs */
  self->keep_awake = gtk_check_button_new_with_mnemonic (
      _("_Keep CPUs awake (last resort when the tracefs instance cannot run; slows the workload)"));
  gtk_grid_attach (GTK_GRID (grid), self->keep_awake, 1, 3, 1, 1);
  self->dwarf = gtk_check_button_new_with_mnemonic (_("_DWARF call graphs (for code built without frame pointers)"));
  gtk_grid_attach (GTK_GRID (grid), self->dwarf, 1, 4, 1, 1);

  GtkWidget *status_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  self->spinner = gtk_spinner_new ();
  gtk_widget_set_visible (self->spinner, FALSE);
  self->status = gtk_label_new (_("The recording runs as root through pkexec; the command runs as you."));
  gtk_label_set_wrap (GTK_LABEL (self->status), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->status), 0);
  gtk_box_append (GTK_BOX (status_box), self->spinner);
  gtk_box_append (GTK_BOX (status_box), self->status);
  gtk_grid_attach (GTK_GRID (grid), status_box, 0, 5, 2, 1);

  self->log = gtk_text_view_new ();
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->log), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (self->log), TRUE);
  GtkWidget *scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), self->log);
  gtk_widget_set_size_request (scroll, -1, 100);
  gtk_grid_attach (GTK_GRID (grid), scroll, 0, 6, 2, 1);

  self->record_button = gtk_button_new_with_mnemonic (_("_Record"));
  gtk_widget_add_css_class (self->record_button, "suggested-action");
  gtk_widget_set_halign (self->record_button, GTK_ALIGN_END);
  g_signal_connect (self->record_button, "clicked", G_CALLBACK (on_record), self);
  gtk_grid_attach (GTK_GRID (grid), self->record_button, 1, 7, 1, 1);
  gtk_window_set_child (GTK_WINDOW (self), grid);
  gtk_window_set_default_widget (GTK_WINDOW (self), self->record_button);
}

RspRecordDialog *
rsp_record_dialog_new (GtkWindow *parent)
{
  return g_object_new (RSP_TYPE_RECORD_DIALOG, "transient-for", parent, "modal", TRUE, NULL);
}
