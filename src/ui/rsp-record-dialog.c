/* rsp-record-dialog.c — Record…: a command line and options, run through
 * `pkexec rsp record --stop-on-eof` (the GUI never runs as root, and cannot
 * signal what runs as root: closing the recorder's standard input is the
 * Stop button), its messages as they come, the elapsed time and the size
 * so far, then the recording opens.  Cancel and Escape close the dialog,
 * stopping a recording first.  Without pkexec it shows the exact command
 * to run. */
#include "rsp-record-dialog.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

#define PKEXEC_DISMISSED 126 /* pkexec(1): the authentication dialog was dismissed */
#define PKEXEC_NOT_AUTHORIZED 127

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
  GtkWidget *stop_button;
  GtkWidget *log;

  GSubprocess *process;
  GOutputStream *stop_pipe;  /* the recorder's standard input: closing it stops the recording */
  GDataInputStream *messages;
  GString *message_text;
  GCancellable *cancellable;
  guint tick;
  gint64 started_us;
  gboolean stopping;
  char *output_path;
};

enum {
  SIGNAL_RECORDED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (RspRecordDialog, rsp_record_dialog, GTK_TYPE_WINDOW)

/* The rsp executable that started this viewer (the viewer is a program of
 * its own, rsp-view, which rsp executes): the one beside it in a build
 * tree, else the installed one, else rsp in PATH.  pkexec wants an
 * absolute path. */
static char *
rsp_binary (void)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = self != NULL ? g_path_get_dirname (self) : NULL;
  g_autofree char *beside = dir != NULL ? g_build_filename (dir, "rsp", NULL) : NULL;
  if (beside != NULL && g_file_test (beside, G_FILE_TEST_IS_REGULAR | G_FILE_TEST_IS_EXECUTABLE))
    return g_steal_pointer (&beside);
  if (g_file_test (RSP_BINDIR "/rsp", G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup (RSP_BINDIR "/rsp");
  return g_find_program_in_path ("rsp");
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
  g_strv_builder_add (b, "--stop-on-eof");
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
  gtk_widget_set_visible (self->stop_button, running);
  gtk_widget_set_sensitive (self->stop_button, running);
  gtk_widget_set_visible (self->spinner, running);
  gtk_spinner_set_spinning (GTK_SPINNER (self->spinner), running);
  if (!running)
    g_clear_handle_id (&self->tick, g_source_remove);
}

/* What perf has written so far: rsp record's temporary file beside the
 * output ("OUTPUT.PID.tmp-perf"). */
static goffset
size_so_far (RspRecordDialog *self)
{
  g_autofree char *dir = g_path_get_dirname (self->output_path);
  g_autofree char *base = g_path_get_basename (self->output_path);
  g_autofree char *prefix = g_strconcat (base, ".", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  goffset size = 0;
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, prefix) && g_str_has_suffix (name, ".tmp-perf"))
      {
        g_autofree char *path = g_build_filename (dir, name, NULL);
        GStatBuf st;
        if (g_stat (path, &st) == 0)
          size = MAX (size, (goffset) st.st_size);
      }
  return size;
}

static gboolean
on_tick (gpointer data)
{
  RspRecordDialog *self = data;
  gint64 seconds = (g_get_monotonic_time () - self->started_us) / G_USEC_PER_SEC;
  goffset size = size_so_far (self);
  g_autofree char *bytes = g_format_size (size);
  g_autofree char *text = self->stopping
                              ? g_strdup_printf (_("Stopping: finishing the recording (%s written)…"), bytes)
                              /* TRANSLATORS: seconds since the recording started, the size of perf's file so far */
                              : g_strdup_printf (_("Recording the whole system while the command runs: %d s, %s so far…"),
                                                 (int) seconds, bytes);
  gtk_label_set_text (GTK_LABEL (self->status), text);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "record: %" G_GINT64_FORMAT " s, %" G_GOFFSET_FORMAT " bytes%s", seconds, size,
         self->stopping ? ", stopping" : "");
  return G_SOURCE_CONTINUE;
}

/* Closing the recorder's input stops it as Ctrl-C would (--stop-on-eof). */
static void
stop_recording (RspRecordDialog *self)
{
  if (self->stop_pipe == NULL || self->stopping)
    return;
  self->stopping = TRUE;
  g_output_stream_close (self->stop_pipe, NULL, NULL);
  gtk_widget_set_sensitive (self->stop_button, FALSE);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "record: stop");
  on_tick (self);
}

static void read_message (RspRecordDialog *self);

static void
on_message (GObject *source, GAsyncResult *result, gpointer user_data)
{
  RspRecordDialog *self = user_data;
  g_autoptr (GError) error = NULL;
  gsize len;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source), result, &len, &error);
  if (line == NULL)
    {
      g_object_unref (self);
      return; /* the end, an error or the dialog closed */
    }
  g_string_append_printf (self->message_text, "%s\n", line);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->log)), self->message_text->str, -1);
  read_message (self);
  g_object_unref (self);
}

static void
read_message (RspRecordDialog *self)
{
  g_data_input_stream_read_line_async (self->messages, G_PRIORITY_DEFAULT, self->cancellable, on_message,
                                       g_object_ref (self));
}

/* The message that says what failed: rsp record's last "rsp record: …" or
 * "rsp: …" line, else its last line. */
static char *
failure_message (RspRecordDialog *self)
{
  g_auto (GStrv) lines = g_strsplit (self->message_text->str, "\n", -1);
  const char *best = NULL, *last = NULL;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *l = g_strstrip (lines[i]);
      if (*l == '\0')
        continue;
      last = l;
      if (g_str_has_prefix (l, "rsp record:") || g_str_has_prefix (l, "rsp:"))
        best = l;
    }
  return g_strdup (best != NULL ? best : last);
}

static void
on_exited (GObject *source, GAsyncResult *result, gpointer user_data)
{
  RspRecordDialog *self = user_data;
  g_autoptr (GError) error = NULL;
  GSubprocess *process = G_SUBPROCESS (source);
  gboolean waited = g_subprocess_wait_finish (process, result, &error);
  if (!waited && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_object_unref (self);
      return; /* the dialog closed: the recording, stopped, ends on its own */
    }
  set_running (self, FALSE);
  g_clear_object (&self->stop_pipe);
  g_clear_object (&self->process);
  gint status = waited && g_subprocess_get_if_exited (process) ? g_subprocess_get_exit_status (process) : -1;
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "record: ended, exit %d", status);
  if (waited && g_file_test (self->output_path, G_FILE_TEST_IS_REGULAR))
    {
      gtk_label_set_text (GTK_LABEL (self->status), _("Recorded."));
      g_autoptr (GFile) file = g_file_new_for_path (self->output_path);
      g_signal_emit (self, signals[SIGNAL_RECORDED], 0, file);
      gtk_window_close (GTK_WINDOW (self));
      g_object_unref (self);
      return;
    }
  g_autofree char *why = failure_message (self);
  g_autofree char *text = NULL;
  if (!waited)
    text = g_strdup_printf (_("Recording failed: %s"), error->message);
  else if (status == PKEXEC_DISMISSED && why == NULL)
    text = g_strdup (_("The authentication was dismissed: nothing was recorded."));
  else if (status == PKEXEC_NOT_AUTHORIZED && why == NULL)
    text = g_strdup (_("pkexec could not run rsp record as root (not authorized, or no authentication agent): "
                       "nothing was recorded."));
  else if (why != NULL)
    text = g_strdup_printf (_("Recording failed: %s"), why);
  else
    text = g_strdup_printf (_("Recording failed: rsp record exited with status %d and wrote nothing."), status);
  gtk_label_set_text (GTK_LABEL (self->status), text);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "record: failed: %s", text);
  g_object_unref (self);
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
                                     G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                         | G_SUBPROCESS_FLAGS_STDERR_MERGE,
                                     &error);
  if (self->process == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Recording failed: cannot run pkexec: %s"), error->message);
      gtk_label_set_text (GTK_LABEL (self->status), text);
      return;
    }
  self->stop_pipe = g_object_ref (g_subprocess_get_stdin_pipe (self->process));
  g_clear_object (&self->messages);
  self->messages = g_data_input_stream_new (g_subprocess_get_stdout_pipe (self->process));
  g_string_truncate (self->message_text, 0);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->log)), "", -1);
  self->stopping = FALSE;
  self->started_us = g_get_monotonic_time ();
  set_running (self, TRUE);
  on_tick (self);
  self->tick = g_timeout_add_seconds (1, on_tick, self);
  read_message (self);
  g_subprocess_wait_async (self->process, self->cancellable, on_exited, g_object_ref (self));
}

static void
on_stop (GtkButton *button, RspRecordDialog *self)
{
  stop_recording (self);
}

/* Cancel and Escape: a recording running is stopped (it finishes on its
 * own and is not opened), then the dialog closes. */
static void
cancel (RspRecordDialog *self)
{
  if (self->process != NULL)
    {
      stop_recording (self);
      /* nothing more is read or waited for: the recorder, its input
       * closed, finishes on its own and its file is not opened */
      g_cancellable_cancel (self->cancellable);
      g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "record: cancelled, not opened");
    }
  gtk_window_close (GTK_WINDOW (self));
}

static void
on_cancel (GtkButton *button, RspRecordDialog *self)
{
  cancel (self);
}

static gboolean
on_escape (GtkWidget *widget, GVariant *args, gpointer data)
{
  cancel (RSP_RECORD_DIALOG (widget));
  return TRUE;
}

static void
rsp_record_dialog_dispose (GObject *object)
{
  RspRecordDialog *self = RSP_RECORD_DIALOG (object);
  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->tick, g_source_remove);
  G_OBJECT_CLASS (rsp_record_dialog_parent_class)->dispose (object);
}

static void
rsp_record_dialog_finalize (GObject *object)
{
  RspRecordDialog *self = RSP_RECORD_DIALOG (object);
  g_clear_object (&self->process);
  g_clear_object (&self->stop_pipe);
  g_clear_object (&self->messages);
  g_string_free (self->message_text, TRUE);
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
  gtk_widget_class_add_binding (GTK_WIDGET_CLASS (klass), GDK_KEY_Escape, 0, on_escape, NULL);
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
  self->message_text = g_string_new (NULL);
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");
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

  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_widget_set_halign (buttons, GTK_ALIGN_END);
  GtkWidget *cancel_button = gtk_button_new_with_mnemonic (_("_Cancel"));
  gtk_widget_set_tooltip_text (cancel_button, _("Close (Escape); a recording running is stopped and not opened"));
  g_signal_connect (cancel_button, "clicked", G_CALLBACK (on_cancel), self);
  self->stop_button = gtk_button_new_with_mnemonic (_("_Stop"));
  gtk_widget_set_tooltip_text (self->stop_button, _("Stop recording now and open what was recorded"));
  gtk_widget_add_css_class (self->stop_button, "destructive-action");
  gtk_widget_set_visible (self->stop_button, FALSE);
  g_signal_connect (self->stop_button, "clicked", G_CALLBACK (on_stop), self);
  self->record_button = gtk_button_new_with_mnemonic (_("_Record"));
  gtk_widget_add_css_class (self->record_button, "suggested-action");
  g_signal_connect (self->record_button, "clicked", G_CALLBACK (on_record), self);
  gtk_box_append (GTK_BOX (buttons), cancel_button);
  gtk_box_append (GTK_BOX (buttons), self->stop_button);
  gtk_box_append (GTK_BOX (buttons), self->record_button);
  gtk_grid_attach (GTK_GRID (grid), buttons, 0, 7, 2, 1);
  gtk_window_set_child (GTK_WINDOW (self), grid);
  gtk_window_set_default_widget (GTK_WINDOW (self), self->record_button);
}

RspRecordDialog *
rsp_record_dialog_new (GtkWindow *parent)
{
  return g_object_new (RSP_TYPE_RECORD_DIALOG, "transient-for", parent, "modal", TRUE, NULL);
}
