/* rsp-window.c — the main window. */
#include "rsp-window.h"

#include <malloc.h>

#include <glib/gi18n.h>
#include <string.h>

#include "rsp-model.h"
#include "rsp-views.h"
#include "rsp-widget-util.h"

struct _RspWindow {
  GtkApplicationWindow parent_instance;

  GtkWidget *stack;
  GtkWidget *welcome;
  GtkWidget *progress;
  GtkWidget *progress_label;
  GtkWidget *views_page;

  GCancellable *cancellable;
  guint progress_source;
  gint progress_permille; /* written by the loading thread */
  GFile *file;
  RspModel *model;
};

G_DEFINE_FINAL_TYPE (RspWindow, rsp_window, GTK_TYPE_APPLICATION_WINDOW)

/* ------------------------------------------------------------------ preload */

/* The recording named on the command line starts loading before GTK
 * starts (rsp_window_preload(), from main()): starting GTK, making the
 * window and its renderer take a few tenths of a second, and the load runs
 * meanwhile on the other CPU.  The window that opens that file takes the
 * load over (rsp_window_open()). */
typedef struct {
  char *path;
  GThread *thread;
  GCancellable *cancellable;
  gint permille; /* atomic */
  GMutex lock;
  GCond cond;
  gboolean done; /* under LOCK, with what follows */
  RspModel *model;
  GError *error;
  GPtrArray *warnings;
} Preload;

static Preload *preload; /* the main thread's */

static gpointer
name_frames_thread (gpointer data)
{
  rsp_model_name_frames (data);
  rsp_model_unref (data);
  return NULL;
}

/* A step of opening a recording, with its CLOCK_MONOTONIC time, in the
 * debug log (bench/first-picture.py reads it). */
static void
log_load_step (const char *step)
{
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "load: %s at monotonic %" G_GINT64_FORMAT " us", step, g_get_monotonic_time ());
}

/* rsp_model_load(), its start and end in the debug log: the preload's
 * thread and the Open/drop load's run it. */
static RspModel *
load_model (const char *path, RspProgressFunc progress, gpointer data, GPtrArray *warnings, GError **error)
{
  log_load_step ("started");
  RspModel *model = rsp_model_load (path, progress, data, warnings, error);
  log_load_step ("model ready");
  return model;
}

/* Names MODEL's frames on a thread of its own: the timeline does not need
 * them, and a flame view that asks before they are done waits for them. */
static void
name_frames_soon (RspModel *model)
{
  g_thread_unref (g_thread_new ("rsp-names", name_frames_thread, rsp_model_ref (model)));
}

static gboolean
preload_progress (gdouble fraction, gpointer data)
{
  Preload *p = data;
  g_atomic_int_set (&p->permille, (gint) (fraction * 1000));
  return !g_cancellable_is_cancelled (p->cancellable);
}

static gpointer
preload_thread (gpointer data)
{
  Preload *p = data;
  GError *error = NULL;
  RspModel *model = load_model (p->path, preload_progress, p, p->warnings, &error);
  g_mutex_lock (&p->lock);
  p->model = model;
  p->error = error;
  p->done = TRUE;
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
  return NULL;
}

void
rsp_window_preload (const char *path)
{
  if (preload != NULL || path == NULL)
    return;
  preload = g_new0 (Preload, 1);
  preload->path = g_strdup (path);
  preload->cancellable = g_cancellable_new ();
  preload->warnings = g_ptr_array_new_with_free_func (g_free);
  g_mutex_init (&preload->lock);
  g_cond_init (&preload->cond);
  preload->thread = g_thread_new ("rsp-preload", preload_thread, preload);
}

/* Waits for P's thread and frees P with whatever it still holds. */
static void
preload_free (Preload *p)
{
  g_thread_join (p->thread);
  g_clear_pointer (&p->model, rsp_model_unref);
  g_clear_error (&p->error);
  g_ptr_array_unref (p->warnings);
  g_object_unref (p->cancellable);
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->cond);
  g_free (p->path);
  g_free (p);
}

void
rsp_window_preload_discard (void)
{
  if (preload == NULL)
    return;
  g_cancellable_cancel (preload->cancellable);
  preload_free (g_steal_pointer (&preload));
}

typedef struct {
  char *path;
  RspWindow *window; /* only its progress counter is touched from the thread */
  GCancellable *cancellable; /* the task's, while it runs */
  GPtrArray *warnings;
  Preload *preload;  /* the load already under way for PATH, or NULL */
} LoadJob;

static void
load_job_free (gpointer data)
{
  LoadJob *job = data;
  g_free (job->path);
  g_clear_pointer (&job->warnings, g_ptr_array_unref);
  g_clear_pointer (&job->preload, preload_free);
  g_free (job);
}

static gboolean
on_progress (gdouble fraction, gpointer user_data)
{
  LoadJob *job = user_data;
  g_atomic_int_set (&job->window->progress_permille, (gint) (fraction * 1000));
  return !g_cancellable_is_cancelled (job->cancellable);
}

static void
load_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LoadJob *job = task_data;
  GError *error = NULL;
  job->cancellable = cancellable;
  RspModel *model = load_model (job->path, on_progress, job, job->warnings, &error);
  job->cancellable = NULL;
  if (model == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, model, (GDestroyNotify) rsp_model_unref);
}

/* Takes over the preload's result, showing its progress and passing on a
 * Cancel. */
static void
preload_wait_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LoadJob *job = task_data;
  Preload *p = job->preload;
  g_mutex_lock (&p->lock);
  while (!p->done)
    {
      g_cond_wait_until (&p->cond, &p->lock, g_get_monotonic_time () + 50 * G_TIME_SPAN_MILLISECOND);
      g_atomic_int_set (&job->window->progress_permille, g_atomic_int_get (&p->permille));
      if (g_cancellable_is_cancelled (cancellable))
        g_cancellable_cancel (p->cancellable);
    }
  RspModel *model = g_steal_pointer (&p->model);
  GError *error = g_steal_pointer (&p->error);
  g_mutex_unlock (&p->lock);
  for (guint i = 0; i < p->warnings->len; i++)
    g_ptr_array_add (job->warnings, g_strdup (g_ptr_array_index (p->warnings, i)));
  if (model == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, model, (GDestroyNotify) rsp_model_unref);
}

/* The progress bar moves four times a second, and only when the load
 * has: every frame is drawn again whole, and with GTK's GL renderer on
 * a software rasterizer (a VM, remote X) twenty frames a second took half
 * of two CPUs from the load they report on. */
#define PROGRESS_INTERVAL_MS 250

static gboolean
update_progress (gpointer user_data)
{
  RspWindow *self = user_data;
  gdouble fraction = g_atomic_int_get (&self->progress_permille) / 1000.0;
  GtkProgressBar *bar = GTK_PROGRESS_BAR (self->progress);
  if (fraction != gtk_progress_bar_get_fraction (bar))
    gtk_progress_bar_set_fraction (bar, fraction);
  return G_SOURCE_CONTINUE;
}

static void
load_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  RspWindow *self = RSP_WINDOW (source);
  GTask *task = G_TASK (result);
  LoadJob *job = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;
  RspModel *model = g_task_propagate_pointer (task, &error);

  g_clear_handle_id (&self->progress_source, g_source_remove);
  g_clear_object (&self->cancellable);
  if (model == NULL)
    {
      gtk_stack_set_visible_child (GTK_STACK (self->stack), self->model != NULL ? self->views_page : self->welcome);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
          && !g_error_matches (error, RSP_READER_ERROR, RSP_READER_ERROR_CANCELLED))
        {
          g_autofree char *name = g_file_get_basename (self->file);
          g_autofree char *primary = g_strdup_printf (_("Could not open “%s”"), name);
          rsp_widget_show_error (GTK_WIDGET (self), primary, error->message);
        }
      return;
    }

  log_load_step ("model in the window");
  for (guint i = 0; i < job->warnings->len; i++)
    g_message ("%s: %s", job->path, (const char *) g_ptr_array_index (job->warnings, i));

  /* The old model goes after the views have let go of it (they hold a
   * reference of their own, as does any analysis still running). */
  RspModel *old = self->model;
  self->model = model;
  name_frames_soon (model);
  g_autofree char *name = g_file_get_basename (self->file);
  gtk_window_set_title (GTK_WINDOW (self), name);
  rsp_views_set_model (RSP_VIEWS (self->views_page), self->model, name);
  rsp_model_unref (old);
  /* A recording's model is tens to hundreds of megabytes in many small
   * blocks, freed in the loading threads' malloc arenas: give what is free
   * back to the system, or the viewer keeps the largest recording it ever
   * opened. */
  if (old != NULL)
    malloc_trim (0);
  gtk_stack_set_visible_child (GTK_STACK (self->stack), self->views_page);
  log_load_step ("views set");

  g_autofree char *uri = g_file_get_uri (self->file);
  gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);
}

void
rsp_window_open (RspWindow *self, GFile *file)
{
  g_return_if_fail (RSP_IS_WINDOW (self));
  log_load_step ("window open");
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_set_object (&self->file, file);

  LoadJob *job = g_new0 (LoadJob, 1);
  job->path = g_file_get_path (file);
  job->window = self;
  job->warnings = g_ptr_array_new_with_free_func (g_free);
  if (job->path == NULL)
    {
      load_job_free (job);
      rsp_widget_show_error (GTK_WIDGET (self), _("Could not open the recording"), _("Only local files can be opened."));
      return;
    }
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *label = g_strdup_printf (_("Reading and assembling “%s”…"), name);
  gtk_label_set_text (GTK_LABEL (self->progress_label), label);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), 0);
  g_atomic_int_set (&self->progress_permille, 0);
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "loading");

  self->cancellable = g_cancellable_new ();
  self->progress_source = g_timeout_add (PROGRESS_INTERVAL_MS, update_progress, self);
  /* the load main() started for this file, if any; another file's goes */
  if (preload != NULL && strcmp (preload->path, job->path) == 0)
    job->preload = g_steal_pointer (&preload);
  else
    rsp_window_preload_discard ();
  GTask *task = g_task_new (self, self->cancellable, load_done, NULL);
  g_task_set_task_data (task, job, load_job_free);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, job->preload != NULL ? preload_wait_thread : load_thread);
  g_object_unref (task);
}

/* ------------------------------------------------------------------ compare with another recording */

static void
compare_loaded (GObject *source, GAsyncResult *result, gpointer user_data)
{
  RspWindow *self = RSP_WINDOW (source);
  LoadJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  RspModel *other = g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *other_name = g_path_get_basename (job->path);
  if (other == NULL)
    {
      g_autofree char *primary = g_strdup_printf (_("Could not open “%s”"), other_name);
      rsp_widget_show_error (GTK_WIDGET (self), primary, error->message);
      return;
    }
  if (self->model != NULL)
    {
      g_autofree char *name = g_file_get_basename (self->file);
      name_frames_soon (other);
      rsp_views_compare (RSP_VIEWS (self->views_page), other, name, other_name);
    }
  rsp_model_unref (other); /* the comparison holds its own reference */
}

static void
compare_with (RspWindow *self, const char *path)
{
  LoadJob *job = g_new0 (LoadJob, 1);
  job->path = g_strdup (path);
  job->window = self;
  job->warnings = g_ptr_array_new_with_free_func (g_free);
  GTask *task = g_task_new (self, NULL, compare_loaded, NULL);
  g_task_set_task_data (task, job, load_job_free);
  g_task_run_in_thread (task, load_thread);
  g_object_unref (task);
}

static void
on_compare_response (GtkNativeDialog *dialog, int response, RspWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      if (path != NULL)
        compare_with (self, path);
    }
  g_object_unref (dialog);
}

static void
compare_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  RspWindow *self = user_data;
  if (self->model == NULL)
    return;
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Compare With a Recording"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, _("_Compare"),
                                                              _("_Cancel"));
  g_signal_connect (dialog, "response", G_CALLBACK (on_compare_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* ------------------------------------------------------------------ requests of another kind */

static void
on_requests_response (GtkDialog *dialog, int response, RspWindow *self)
{
  GtkWidget *entry = g_object_get_data (G_OBJECT (dialog), "entry");
  g_autofree char *spec = g_strdup (gtk_editable_get_text (GTK_EDITABLE (entry)));
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_strstrip (spec);
  if (response == GTK_RESPONSE_ACCEPT && *spec != '\0' && self->model != NULL)
    rsp_views_open_requests (RSP_VIEWS (self->views_page), spec);
}

static void
on_requests_entry_activate (GtkEntry *entry, GtkDialog *dialog)
{
  gtk_dialog_response (dialog, GTK_RESPONSE_ACCEPT);
}

static void
requests_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  RspWindow *self = user_data;
  if (self->model == NULL)
    return;
  GtkWidget *dialog = gtk_dialog_new_with_buttons (_("Requests"), GTK_WINDOW (self),
                                                   GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                                   _("_Cancel"), GTK_RESPONSE_CANCEL, _("_Show"),
                                                   GTK_RESPONSE_ACCEPT, NULL);
  GtkWidget *box = gtk_dialog_get_content_area (GTK_DIALOG (dialog));
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);
  gtk_box_set_spacing (GTK_BOX (box), 8);
  GtkWidget *text = gtk_label_new (_("What is one request?  runs: each run of rsp record --repeat;  "
                                     "tcp:PORT: each exchange on a server's TCP port;  "
                                     "probe:FUNCTION: each call of a function rsp record --probe watched."));
  gtk_label_set_wrap (GTK_LABEL (text), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (text), 60);
  gtk_label_set_xalign (GTK_LABEL (text), 0);
  GtkWidget *entry = gtk_entry_new ();
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), "tcp:8080");
  g_signal_connect (entry, "activate", G_CALLBACK (on_requests_entry_activate), dialog);
  gtk_box_append (GTK_BOX (box), text);
  gtk_box_append (GTK_BOX (box), entry);
  g_object_set_data (G_OBJECT (dialog), "entry", entry);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  g_signal_connect (dialog, "response", G_CALLBACK (on_requests_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_cancel (GtkButton *button, RspWindow *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

static gboolean
on_drop (GtkDropTarget *target, const GValue *value, double x, double y, RspWindow *self)
{
  if (!G_VALUE_HOLDS (value, G_TYPE_FILE))
    return FALSE;
  rsp_window_open (self, g_value_get_object (value));
  return TRUE;
}

static void
on_recent_clicked (GtkButton *button, RspWindow *self)
{
  const char *uri = g_object_get_data (G_OBJECT (button), "uri");
  g_autoptr (GFile) file = g_file_new_for_uri (uri);
  rsp_window_open (self, file);
}

/* Recent recordings, newest first, as buttons on the welcome page. */
static GtkWidget *
build_recent (RspWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  guint shown = 0;
  for (GList *l = items; l != NULL && shown < 6; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      const char *uri = gtk_recent_info_get_uri (info);
      if (!(g_str_has_suffix (uri, ".rsp") || g_str_has_suffix (uri, ".data")) || !gtk_recent_info_exists (info))
        continue;
      if (shown++ == 0)
        {
          GtkWidget *title = gtk_label_new (_("Recent recordings"));
          gtk_widget_add_css_class (title, "heading");
          gtk_box_append (GTK_BOX (box), title);
        }
      g_autofree char *name = gtk_recent_info_get_short_name (info);
      GtkWidget *button = gtk_button_new_with_label (name);
      gtk_widget_add_css_class (button, "flat");
      g_autofree char *path = g_filename_from_uri (uri, NULL, NULL);
      gtk_widget_set_tooltip_text (button, path != NULL ? path : uri);
      g_object_set_data_full (G_OBJECT (button), "uri", g_strdup (uri), g_free);
      g_signal_connect (button, "clicked", G_CALLBACK (on_recent_clicked), self);
      gtk_box_append (GTK_BOX (box), button);
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  return box;
}

static GtkWidget *
build_welcome (RspWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  gtk_widget_set_halign (box, GTK_ALIGN_CENTER);
  /* the application's icon when installed, a system one when run from the build tree */
  GtkIconTheme *icons = gtk_icon_theme_get_for_display (gdk_display_get_default ());
  const char *icon_name = gtk_icon_theme_has_icon (icons, "io.github.rsp.Profiler") ? "io.github.rsp.Profiler"
                                                                                    : "edit-find-symbolic";
  GtkWidget *icon = gtk_image_new_from_icon_name (icon_name);
  gtk_image_set_pixel_size (GTK_IMAGE (icon), 96);
  GtkWidget *title = gtk_label_new (_("Why did this take so long?"));
  gtk_widget_add_css_class (title, "title-1");
  GtkWidget *text = gtk_label_new (_("Open a recording (Ctrl+O), drop one here, or record a command (Ctrl+R).\n"
                                     "RSP follows wake-ups from the process you care about to everything it "
                                     "waited on."));
  gtk_label_set_justify (GTK_LABEL (text), GTK_JUSTIFY_CENTER);
  gtk_label_set_wrap (GTK_LABEL (text), TRUE);
  gtk_widget_add_css_class (text, "dim-label");
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), text);
  gtk_box_append (GTK_BOX (box), build_recent (self));
  return box;
}

static GtkWidget *
build_loading (RspWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  gtk_widget_set_halign (box, GTK_ALIGN_CENTER);
  gtk_widget_set_size_request (box, 360, -1);
  self->progress_label = gtk_label_new (NULL);
  self->progress = gtk_progress_bar_new ();
  GtkWidget *cancel = gtk_button_new_with_mnemonic (_("_Cancel"));
  gtk_widget_set_halign (cancel, GTK_ALIGN_CENTER);
  g_signal_connect (cancel, "clicked", G_CALLBACK (on_cancel), self);
  gtk_box_append (GTK_BOX (box), self->progress_label);
  gtk_box_append (GTK_BOX (box), self->progress);
  gtk_box_append (GTK_BOX (box), cancel);
  return box;
}

/* The shortcuts window (Ctrl+?): every key the views and the window take.
 * Built from this table so that the titles go through gettext. */
static const struct {
  const char *group;
  const char *accel;  /* GtkShortcutsShortcut:accelerator, or NULL for a gesture */
  const char *title;
} shortcuts[] = {
  { N_ ("Recordings"), "<Control>o", N_ ("Open a recording") },
  { N_ ("Recordings"), "<Control>r", N_ ("Record a command") },
  { N_ ("Recordings"), "<Control>e", N_ ("Export the view to PNG, SVG or PDF, or its tables to CSV") },
  { N_ ("Recordings"), "<Control>w", N_ ("Close the process tab") },
  { N_ ("Recordings"), "<Control>d", N_ ("Compare with another recording") },
  { N_ ("Recordings"), "<Control>u", N_ ("Requests: runs, TCP exchanges or function calls") },
  { N_ ("Recordings"), "<Control>q", N_ ("Quit") },
  { N_ ("Views"), "w plus", N_ ("Zoom in") },
  { N_ ("Views"), "s minus", N_ ("Zoom out") },
  { N_ ("Views"), "a d Left Right", N_ ("Pan earlier, later") },
  { N_ ("Views"), "Up Down", N_ ("Scroll the rows") },
  { N_ ("Views"), "f 0", N_ ("Fit to the window") },
  { N_ ("Views"), "Escape <Alt>Left", N_ ("Back to the range before the last jump") },
  { N_ ("Views"), "z Return", N_ ("Zoom to the selected range, run, sleep or box") },
  { N_ ("Views"), "Left Right", N_ ("Timeline, a run or sleep selected: the task's previous or next one") },
  { N_ ("Views"), "Left Right Up Down",
    N_ ("Flame views, a box selected: the box before or after it, the widest one on it, the one under it") },
  { N_ ("Views"), "Escape", N_ ("Consolidated view: back to the whole tree") },
  { N_ ("Views"), "i", N_ ("Consolidated view: bottom-up or top-down") },
  { N_ ("Views"), NULL, N_ ("Zoom with two fingers") },
  { N_ ("Search"), "<Control>f", N_ ("Search the current view") },
  { N_ ("Search"), "Return", N_ ("Next match, shown") },
  { N_ ("Search"), "<Shift>Return", N_ ("Previous match, shown") },
  { N_ ("Findings"), "bracketright", N_ ("Next time the selected finding happened") },
  { N_ ("Findings"), "bracketleft", N_ ("Previous time the selected finding happened") },
  { N_ ("Requests"), "Left Right", N_ ("Select the bar before or after") },
  { N_ ("Requests"), "<Shift>Left <Shift>Right", N_ ("Widen or narrow the selected bars") },
  { N_ ("Requests"), "Escape", N_ ("Back to the slow tail") },
};

static void
install_help_overlay (RspWindow *self)
{
  g_autoptr (GString) ui = g_string_new ("<interface><object class='GtkShortcutsWindow' id='help_overlay'>"
                                         "<property name='modal'>1</property><child>"
                                         "<object class='GtkShortcutsSection'>"
                                         "<property name='section-name'>shortcuts</property>");
  const char *group = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (shortcuts); i++)
    {
      if (g_strcmp0 (group, shortcuts[i].group) != 0)
        {
          if (group != NULL)
            g_string_append (ui, "</object></child>");
          group = shortcuts[i].group;
          g_autofree char *g = g_markup_printf_escaped ("<child><object class='GtkShortcutsGroup'>"
                                                        "<property name='title'>%s</property>",
                                                        _(group));
          g_string_append (ui, g);
        }
      g_autofree char *item
          = shortcuts[i].accel != NULL
                ? g_markup_printf_escaped ("<child><object class='GtkShortcutsShortcut'>"
                                           "<property name='accelerator'>%s</property>"
                                           "<property name='title'>%s</property></object></child>",
                                           shortcuts[i].accel, _(shortcuts[i].title))
                : g_markup_printf_escaped ("<child><object class='GtkShortcutsShortcut'>"
                                           "<property name='shortcut-type'>gesture-pinch</property>"
                                           "<property name='title'>%s</property></object></child>",
                                           _(shortcuts[i].title));
      g_string_append (ui, item);
    }
  g_string_append (ui, "</object></child></object></child></object></interface>");
  g_autoptr (GtkBuilder) builder = gtk_builder_new ();
  g_autoptr (GError) error = NULL;
  if (!gtk_builder_add_from_string (builder, ui->str, -1, &error))
    {
      g_warning ("shortcuts window: %s", error->message);
      return;
    }
  GtkShortcutsWindow *overlay = GTK_SHORTCUTS_WINDOW (gtk_builder_get_object (builder, "help_overlay"));
  gtk_application_window_set_help_overlay (GTK_APPLICATION_WINDOW (self), overlay);
}

static void
on_export_response (GtkNativeDialog *dialog, int response, RspWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      g_autoptr (GError) error = NULL;
      if (path != NULL && !rsp_views_export (RSP_VIEWS (self->views_page), path, &error))
        rsp_widget_show_error (GTK_WIDGET (self), _("Could not export the view"), error->message);
    }
  g_object_unref (dialog);
}

static void
find_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  RspWindow *self = user_data;
  rsp_views_focus_search (RSP_VIEWS (self->views_page));
}

static void
close_tab_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  RspWindow *self = user_data;
  rsp_views_close_current (RSP_VIEWS (self->views_page));
}

static void
next_instance_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  RspWindow *self = user_data;
  rsp_views_step_finding (RSP_VIEWS (self->views_page), +1);
}

static void
previous_instance_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  RspWindow *self = user_data;
  rsp_views_step_finding (RSP_VIEWS (self->views_page), -1);
}

static void
export_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  RspWindow *self = user_data;
  if (self->model == NULL)
    return;
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Export the View"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), "rsp-view.png");
  g_signal_connect (dialog, "response", G_CALLBACK (on_export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
rsp_window_dispose (GObject *object)
{
  RspWindow *self = RSP_WINDOW (object);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->progress_source, g_source_remove);
  G_OBJECT_CLASS (rsp_window_parent_class)->dispose (object);
}

static void
rsp_window_finalize (GObject *object)
{
  RspWindow *self = RSP_WINDOW (object);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->file);
  g_clear_pointer (&self->model, rsp_model_unref);
  G_OBJECT_CLASS (rsp_window_parent_class)->finalize (object);
}

static void
rsp_window_class_init (RspWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->dispose = rsp_window_dispose;
  object_class->finalize = rsp_window_finalize;
}

/* Names the renderer GTK draws the window with (rsp-cmd-view.c chooses
 * cairo where there is no GPU; tests/gui checks it). */
static void
on_realize (GtkWidget *widget, gpointer user_data)
{
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (widget));
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "window drawn by %s", renderer != NULL ? G_OBJECT_TYPE_NAME (renderer) : "nothing");
}

static void
rsp_window_init (RspWindow *self)
{
  gtk_window_set_default_size (GTK_WINDOW (self), 1280, 800);
  gtk_window_set_title (GTK_WINDOW (self), _("RSP Profiler"));

  GtkWidget *header = gtk_header_bar_new ();
  GtkWidget *open = gtk_button_new_from_icon_name ("document-open-symbolic");
  gtk_widget_set_tooltip_text (open, _("Open a recording (Ctrl+O)"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (open), "app.open");
  GtkWidget *record = gtk_button_new_with_mnemonic (_("_Record…"));
  gtk_widget_set_tooltip_text (record, _("Record a command with rsp record (Ctrl+R)"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (record), "app.record");
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), open);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), record);

  GMenu *menu = g_menu_new ();
  g_menu_append (menu, _("_Open…"), "app.open");
  g_menu_append (menu, _("_Record…"), "app.record");
  g_menu_append (menu, _("_Export View…"), "win.export");
  g_menu_append (menu, _("Re_quests…"), "win.requests");
  g_menu_append (menu, _("_Compare With…"), "win.compare");
  GMenu *section = g_menu_new ();
  g_menu_append (section, _("_Keyboard Shortcuts"), "win.show-help-overlay");
  g_menu_append (section, _("_About RSP"), "app.about");
  g_menu_append (section, _("_Quit"), "app.quit");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (section));
  GtkWidget *menu_button = gtk_menu_button_new ();
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (menu_button), "open-menu-symbolic");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (menu_button), G_MENU_MODEL (menu));
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), menu_button);
  g_object_unref (section);
  g_object_unref (menu);
  gtk_window_set_titlebar (GTK_WINDOW (self), header);

  self->stack = gtk_stack_new ();
  gtk_stack_set_transition_type (GTK_STACK (self->stack), GTK_STACK_TRANSITION_TYPE_CROSSFADE);
  self->welcome = build_welcome (self);
  gtk_stack_add_named (GTK_STACK (self->stack), self->welcome, "welcome");
  gtk_stack_add_named (GTK_STACK (self->stack), build_loading (self), "loading");
  self->views_page = GTK_WIDGET (rsp_views_new ());
  gtk_stack_add_named (GTK_STACK (self->stack), self->views_page, "views");
  gtk_window_set_child (GTK_WINDOW (self), self->stack);

  install_help_overlay (self);
  static const GActionEntry win_actions[] = {
    { "export", export_activated, NULL, NULL, NULL, { 0 } },
    { "next-instance", next_instance_activated, NULL, NULL, NULL, { 0 } },
    { "find", find_activated, NULL, NULL, NULL, { 0 } },
    { "close-tab", close_tab_activated, NULL, NULL, NULL, { 0 } },
    { "previous-instance", previous_instance_activated, NULL, NULL, NULL, { 0 } },
    { "compare", compare_activated, NULL, NULL, NULL, { 0 } },
    { "requests", requests_activated, NULL, NULL, NULL, { 0 } },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (self), win_actions, G_N_ELEMENTS (win_actions), self);

  GtkDropTarget *drop = gtk_drop_target_new (G_TYPE_FILE, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
  g_signal_connect_after (self, "realize", G_CALLBACK (on_realize), NULL);
}

RspWindow *
rsp_window_new (GtkApplication *app)
{
  return g_object_new (RSP_TYPE_WINDOW, "application", app, NULL);
}
