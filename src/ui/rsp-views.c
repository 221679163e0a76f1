/* rsp-views.c — the tabs of one recording: timeline, then flame views. */
#include "rsp-views.h"

#include <glib/gi18n.h>

#include "rsp-accounting-panel.h"
#include "rsp-analysis.h"
#include "rsp-callers-pane.h"
#include "rsp-details.h"
#include "rsp-diff.h"
#include "rsp-flame-widget.h"
#include "rsp-report.h"
#include "rsp-requests-page.h"
#include "rsp-timeline-widget.h"
#include "rsp-widget-util.h"

struct _RspViews {
  GtkBox parent_instance;
  RspModel *model; /* a reference */
  GtkWidget *notebook;
  GtkWidget *timeline;
  GtkWidget *timeline_search;
  GtkWidget *match_label; /* "3 of 17" beside the timeline's search */
  GtkWidget *range_label;
  GtkWidget *range_pane;        /* under the timeline: the selected range's accounting, hidden until one is */
  GtkWidget *timeline_bottom;   /* the notebook under the timeline: the item's details, the range's accounting */
  GtkWidget *timeline_details;  /* the details of the item clicked in the timeline */
  GtkWidget *timeline_jump;     /* "Go to the waker" and the like */
  guint64 timeline_jump_start, timeline_jump_end;
  RspAnalysis *range_analysis;  /* what range_pane shows */
  GHashTable *process_pages; /* pid -> page widget */
  GHashTable *pending;       /* pids whose analysis is being computed */
  GtkWidget *requests_page;  /* the requests view, once made */
  gboolean requests_pending;
};

G_DEFINE_FINAL_TYPE (RspViews, rsp_views, GTK_TYPE_BOX)

/* A process page: its analysis, its two flame views and the panel. */
typedef struct {
  RspAnalysis *analysis;
  GtkWidget *chronological;
  GtkWidget *consolidated;
  GtkWidget *stack;
  GtkWidget *panel;
  GtkWidget *search;
  GtkWidget *search_count; /* "3 of 17" beside the search */
  GtkWidget *bottom_up; /* the toggle */
  GtkWidget *bottom;    /* under the views: details and callers/callees, hidden until something is selected */
  GtkWidget *details;   /* the details' text */
  GtkWidget *jump;      /* "Go to the waker" and the like */
  guint64 jump_start, jump_end;
  GtkWidget *callers;   /* the callers/callees pane */
  GtkWidget *paths;     /* the list of control paths */
  RspCallGraph *calls;  /* what it shows, made on the first frame selected */
} ProcessPage;

/* The process tab shown, or NULL when the timeline is. */
static ProcessPage *
current_process_page (RspViews *self)
{
  GtkWidget *page = gtk_notebook_get_nth_page (GTK_NOTEBOOK (self->notebook),
                                               gtk_notebook_get_current_page (GTK_NOTEBOOK (self->notebook)));
  return page != NULL ? g_object_get_data (G_OBJECT (page), "page") : NULL;
}

static void
process_page_free (gpointer data)
{
  ProcessPage *page = data;
  rsp_call_graph_free (page->calls); /* reads the analysis */
  rsp_analysis_free (page->analysis);
  g_free (page);
}

static void
highlight (ProcessPage *page, gint category)
{
  rsp_flame_widget_set_highlight_category (RSP_FLAME_WIDGET (page->chronological), category);
  rsp_flame_widget_set_highlight_category (RSP_FLAME_WIDGET (page->consolidated), category);
}

static void
on_category_selected (RspAccountingPanel *panel, gint category, ProcessPage *page)
{
  highlight (page, category);
  /* scroll to its boxes: the largest stretch of its largest finding */
  for (guint i = 0; category >= 0 && i < rsp_analysis_n_findings (page->analysis); i++)
    {
      const RspFinding *f = rsp_analysis_finding (page->analysis, i);
      if ((gint) f->category == category)
        {
          rsp_flame_widget_show_range (RSP_FLAME_WIDGET (page->chronological), f->best_start, f->best_end);
          break;
        }
    }
}

static void
on_finding_selected (RspAccountingPanel *panel, guint index, guint instance, ProcessPage *page)
{
  const RspFinding *f = rsp_analysis_finding (page->analysis, index);
  guint n;
  const guint32 *stretches = rsp_analysis_finding_stretches (page->analysis, index, &n);
  guint64 start = f->best_start, end = f->best_end;
  if (instance < n)
    {
      const RspStretch *st = rsp_analysis_stretch (page->analysis, stretches[instance]);
      start = st->start;
      end = st->end;
    }
  highlight (page, f->category);
  /* show where it happened, in the chronological view */
  gtk_stack_set_visible_child (GTK_STACK (page->stack), page->chronological);
  rsp_flame_widget_show_range (RSP_FLAME_WIDGET (page->chronological), start, end);
  guint64 t0 = rsp_model_start_time (rsp_analysis_model (page->analysis));
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "finding %u, instance %u of %u: %.3f-%.3f ms", index + 1, instance + 1, n,
         (start - t0) / 1e6, (end - t0) / 1e6);
}

/* ------------------------------------------------------------------ searches that step */

/* The timeline's and the flame views' searches: Enter steps to the next
 * match, Shift+Enter to the previous one, and a label beside says which. */
typedef void (*SearchStep) (gpointer data, gint delta);

typedef struct {
  SearchStep step;
  gpointer data;
} SearchStepper;

static void
on_search_activate (GtkSearchEntry *entry, SearchStepper *s)
{
  s->step (s->data, +1);
}

static gboolean
on_search_key (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
               SearchStepper *s)
{
  if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter) && (state & GDK_SHIFT_MASK))
    {
      s->step (s->data, -1);
      return TRUE;
    }
  return FALSE;
}

/* A search entry: CHANGED (entry, DATA) as it is typed, STEP (DATA, ±1) on
 * Enter and Shift+Enter. */
static GtkWidget *
stepping_search_new (const char *tooltip, GCallback changed, SearchStep step, gpointer data)
{
  GtkWidget *search = gtk_search_entry_new ();
  gtk_widget_set_tooltip_text (search, tooltip);
  g_signal_connect (search, "search-changed", changed, data);
  SearchStepper *s = g_new (SearchStepper, 1);
  *s = (SearchStepper) { step, data };
  g_object_set_data_full (G_OBJECT (search), "stepper", s, g_free);
  g_signal_connect (search, "activate", G_CALLBACK (on_search_activate), s);
  GtkEventController *keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_search_key), s);
  gtk_widget_add_controller (search, keys);
  return search;
}

static GtkWidget *
match_count_new (void)
{
  GtkWidget *label = gtk_label_new ("");
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_add_css_class (label, "numeric");
  return label;
}

/* "3 of 17", "no match", or nothing while SEARCH is empty. */
static void
match_count_show (GtkWidget *label, GtkWidget *search, guint current, guint n)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (search));
  g_autofree char *shown = *text == '\0' ? g_strdup ("")
                           : n == 0       ? g_strdup (_("no match"))
                                          : g_strdup_printf (_("%u of %u"), current + 1, n);
  gtk_label_set_text (GTK_LABEL (label), shown);
}

/* ------------------------------------------------------------------ process tabs */

static RspFlameWidget *
visible_flame (ProcessPage *page)
{
  return RSP_FLAME_WIDGET (gtk_stack_get_visible_child (GTK_STACK (page->stack)));
}

/* "3 of 17" for the view shown. */
static void
show_flame_count (ProcessPage *page)
{
  guint current, n = rsp_flame_widget_search_matches (visible_flame (page), &current);
  match_count_show (page->search_count, page->search, current, n);
}

static void
on_flame_search (GtkSearchEntry *entry, ProcessPage *page)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));
  rsp_flame_widget_set_search (RSP_FLAME_WIDGET (page->chronological), text);
  rsp_flame_widget_set_search (RSP_FLAME_WIDGET (page->consolidated), text);
  show_flame_count (page);
}

/* Enter and Shift+Enter: the next or previous matching box, shown. */
static void
flame_search_step (gpointer data, gint delta)
{
  ProcessPage *page = data;
  rsp_flame_widget_search_step (visible_flame (page), delta);
  show_flame_count (page);
}

static void
on_stack_switched (GObject *stack, GParamSpec *pspec, ProcessPage *page)
{
  show_flame_count (page);
  /* the keyboard follows from one view to the other: a hidden view that
   * kept the focus would leave the arrow keys to the window's focus
   * moves */
  GtkWidget *shown = gtk_stack_get_visible_child (GTK_STACK (stack));
  GtkWidget *other = shown == page->chronological ? page->consolidated : page->chronological;
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (stack));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  if (focus == NULL || focus == other)
    gtk_widget_grab_focus (shown);
}

/* A frame selected in a flame view, or a row of the callers/callees
 * table: its callers and callees, summed over the whole tree. */
static void
show_callers (ProcessPage *page, const char *name, const char *from)
{
  /* the tree is built on the first selection and kept for the others */
  if (page->calls == NULL)
    page->calls = rsp_call_graph_new (page->analysis, FALSE);
  g_autoptr (RspCallers) c = rsp_call_graph_callers (page->calls, name);
  rsp_callers_pane_show (RSP_CALLERS_PANE (page->callers), c);
  gtk_widget_set_visible (page->bottom, TRUE);
  /* a moment in the chronological view shows its details instead */
  if (g_strcmp0 (from, "view") != 0
      || gtk_stack_get_visible_child (GTK_STACK (page->stack)) == page->consolidated)
    gtk_notebook_set_current_page (GTK_NOTEBOOK (page->bottom),
                                   gtk_notebook_page_num (GTK_NOTEBOOK (page->bottom), page->callers));
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "callers of %s (%s): %.3f ms in all, %.3f ms itself, %u callers, %u callees",
         name, from, c->total_ns / 1e6, c->self_ns / 1e6, c->callers->len, c->callees->len);
}

static void
on_frame_selected (RspFlameWidget *widget, const char *name, ProcessPage *page)
{
  show_callers (page, name, "view");
}

static void
on_callers_row (RspCallersPane *pane, const char *name, ProcessPage *page)
{
  show_callers (page, name, "table");
}

static void
on_bottom_closed (GtkButton *button, ProcessPage *page)
{
  gtk_widget_set_visible (page->bottom, FALSE);
}

/* A click on a box of the chronological view: what happened there. */
static void
on_moment_selected (RspFlameWidget *widget, guint segment, guint64 t, const char *name, ProcessPage *page)
{
  g_autoptr (RspDetails) d = rsp_details_new (page->analysis, segment, t, name);
  gtk_label_set_markup (GTK_LABEL (page->details), d->markup);
  gtk_accessible_update_property (GTK_ACCESSIBLE (page->details), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, d->summary,
                                  -1);
  page->jump_start = d->jump_start;
  page->jump_end = d->jump_end;
  gtk_widget_set_visible (page->jump, d->jump_label != NULL);
  if (d->jump_label != NULL)
    gtk_button_set_label (GTK_BUTTON (page->jump), d->jump_label);
  gtk_widget_set_visible (page->bottom, TRUE);
  gtk_notebook_set_current_page (GTK_NOTEBOOK (page->bottom), 0);
  guint64 origin = rsp_analysis_start (page->analysis);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "details at %.3f ms: %s; stretch %.3f-%.3f ms; jump %.3f-%.3f ms",
         (t - origin) / 1e6, d->summary, d->stretch != NULL ? (d->stretch->start - origin) / 1e6 : 0.0,
         d->stretch != NULL ? (d->stretch->end - origin) / 1e6 : 0.0,
         d->jump_label != NULL ? (d->jump_start - origin) / 1e6 : 0.0,
         d->jump_label != NULL ? (d->jump_end - origin) / 1e6 : 0.0);
}

/* The details' link: the waker's run, the disk request, the network wait. */
static void
on_jump (GtkButton *button, ProcessPage *page)
{
  gtk_stack_set_visible_child (GTK_STACK (page->stack), page->chronological);
  rsp_flame_widget_show_range (RSP_FLAME_WIDGET (page->chronological), page->jump_start, page->jump_end);
}

/* A row of the control paths' list: that path's time range, shown. */
static void
on_path_activated (GtkListBox *box, GtkListBoxRow *row, ProcessPage *page)
{
  guint id = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "path"));
  const RspControlPath *path = rsp_analysis_path (page->analysis, id);
  gtk_stack_set_visible_child (GTK_STACK (page->stack), page->chronological);
  rsp_flame_widget_show_range (RSP_FLAME_WIDGET (page->chronological), path->start, path->end);
  guint64 origin = rsp_analysis_start (page->analysis);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "control path #%u shown: %.3f-%.3f ms", path->id, (path->start - origin) / 1e6,
         (path->end - origin) / 1e6);
}

static gint
compare_path_tasks (gconstpointer pa, gconstpointer pb)
{
  const RspPathTask *a = pa, *b = pb;
  return a->ns > b->ns ? -1 : a->ns < b->ns;
}

/* Every control path, however short, in the analysis' order: its number,
 * start, length, total time and the tasks in it, the busiest first.  A click
 * shows it in the chronological view. */
static GtkWidget *
paths_page (ProcessPage *page)
{
  GtkWidget *list = gtk_list_box_new ();
  gtk_list_box_set_activate_on_single_click (GTK_LIST_BOX (list), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (list), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Control paths"), -1);
  const RspModel *m = rsp_analysis_model (page->analysis);
  guint64 origin = rsp_model_start_time (m); /* the views' rulers' */
  for (guint p = 0; p < rsp_analysis_n_paths (page->analysis); p++)
    {
      const RspControlPath *path = rsp_analysis_path (page->analysis, p);
      g_autoptr (GString) tasks = g_string_new (NULL);
      g_autoptr (GArray) busiest = g_array_new (FALSE, FALSE, sizeof (RspPathTask));
      if (path->task_time != NULL)
        g_array_append_vals (busiest, path->task_time->data, path->task_time->len);
      g_array_sort (busiest, compare_path_tasks);
      for (guint k = 0; k < busiest->len && k < 4; k++)
        {
          const RspPathTask *pt = &g_array_index (busiest, RspPathTask, k);
          const RspTask *task = rsp_model_task (m, pt->task);
          g_string_append_printf (tasks, "%s%s [%d]", k > 0 ? ", " : "", task->comm != NULL ? task->comm : "?",
                                  task->tid);
        }
      if (busiest->len > 4)
        g_string_append_printf (tasks, _(" and %u more"), busiest->len - 4);
      g_autofree char *len = rsp_format_duration (path->end - path->start);
      g_autofree char *total = rsp_format_duration (path->total);
      /* TRANSLATORS: a control path in the list: "#3 at 12.500 ms, 1.2 ms long (2.4 ms in its lanes): tcp_loop, rsp" */
      g_autofree char *text = g_strdup_printf (_("#%u at %.3f ms, %s long (%s in its lanes): %s"), path->id,
                                               (path->start - origin) / 1e6, len, total, tasks->str);
      GtkWidget *label = gtk_label_new (text);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_widget_set_margin_start (label, 6);
      GtkWidget *row = gtk_list_box_row_new ();
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), label);
      g_object_set_data (G_OBJECT (row), "path", GUINT_TO_POINTER (p));
      gtk_list_box_append (GTK_LIST_BOX (list), row);
    }
  g_signal_connect (list, "row-activated", G_CALLBACK (on_path_activated), page);
  GtkWidget *scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), list);
  return scroll;
}

/* The toolbar's Paths button: the list of control paths under the views. */
static void
on_show_paths (GtkButton *button, ProcessPage *page)
{
  gtk_widget_set_visible (page->bottom, TRUE);
  gtk_notebook_set_current_page (GTK_NOTEBOOK (page->bottom),
                                 gtk_notebook_page_num (GTK_NOTEBOOK (page->bottom), page->paths));
}

static GtkWidget *
details_page (ProcessPage *page)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_start (box, 8);
  gtk_widget_set_margin_end (box, 8);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  page->details = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (page->details), 0);
  gtk_label_set_yalign (GTK_LABEL (page->details), 0);
  gtk_label_set_wrap (GTK_LABEL (page->details), TRUE);
  gtk_label_set_selectable (GTK_LABEL (page->details), TRUE);
  page->jump = gtk_button_new_with_mnemonic ("");
  gtk_widget_set_halign (page->jump, GTK_ALIGN_START);
  gtk_widget_set_visible (page->jump, FALSE);
  g_signal_connect (page->jump, "clicked", G_CALLBACK (on_jump), page);
  gtk_box_append (GTK_BOX (box), page->details);
  gtk_box_append (GTK_BOX (box), page->jump);
  GtkWidget *scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), box);
  return scroll;
}

/* The toggle, the I key: the consolidated view bottom-up or top-down. */
static void
on_bottom_up (GtkToggleButton *button, ProcessPage *page)
{
  gboolean on = gtk_toggle_button_get_active (button);
  rsp_flame_widget_set_inverted (RSP_FLAME_WIDGET (page->consolidated), on);
  gtk_stack_set_visible_child (GTK_STACK (page->stack), page->consolidated);
}

static void
close_page (RspViews *self, GtkWidget *page_widget)
{
  gint32 pid = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (page_widget), "pid"));
  g_hash_table_remove (self->process_pages, GINT_TO_POINTER (pid));
  gtk_notebook_remove_page (GTK_NOTEBOOK (self->notebook),
                            gtk_notebook_page_num (GTK_NOTEBOOK (self->notebook), page_widget));
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "closed the tab of process %d", pid);
}

static void
on_close_page (GtkButton *button, GtkWidget *page_widget)
{
  close_page (RSP_VIEWS (gtk_widget_get_ancestor (page_widget, RSP_TYPE_VIEWS)), page_widget);
}

gboolean
rsp_views_close_current (RspViews *self)
{
  GtkWidget *page = gtk_notebook_get_nth_page (GTK_NOTEBOOK (self->notebook),
                                               gtk_notebook_get_current_page (GTK_NOTEBOOK (self->notebook)));
  if (page == NULL
      || (g_object_get_data (G_OBJECT (page), "page") == NULL && g_object_get_data (G_OBJECT (page), "comparison") == NULL))
    return FALSE;
  close_page (self, page);
  return TRUE;
}

static GtkWidget *
tab_label (const char *text, GtkWidget *page_widget)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  gtk_box_append (GTK_BOX (box), gtk_label_new (text));
  if (page_widget != NULL)
    {
      GtkWidget *close = gtk_button_new_from_icon_name ("window-close-symbolic");
      gtk_widget_add_css_class (close, "flat");
      gtk_widget_set_tooltip_text (close, _("Close"));
      g_signal_connect (close, "clicked", G_CALLBACK (on_close_page), page_widget);
      gtk_box_append (GTK_BOX (box), close);
    }
  return box;
}

/* A tab of ANALYSIS's flame views, under KEY (a pid; a request's tab has
 * a negative key) and TITLE (NULL: the process's name and pid). */
static void
add_process_page (RspViews *self, gint32 pid, RspAnalysis *analysis, const char *title_or_null)
{
  ProcessPage *page = g_new0 (ProcessPage, 1);
  page->analysis = analysis;
  page->chronological = rsp_flame_widget_new (analysis, RSP_FLAME_WIDGET_CHRONOLOGICAL);
  page->consolidated = rsp_flame_widget_new (analysis, RSP_FLAME_WIDGET_CONSOLIDATED);

  page->stack = gtk_stack_new ();
  gtk_stack_add_titled (GTK_STACK (page->stack), page->chronological, "chronological", _("Chronological"));
  gtk_stack_add_titled (GTK_STACK (page->stack), page->consolidated, "consolidated", _("Consolidated"));
  GtkWidget *switcher = gtk_stack_switcher_new ();
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), GTK_STACK (page->stack));
  GtkWidget *search = stepping_search_new (_("Highlight frames by name (Ctrl+F); Enter: next, Shift+Enter: previous"),
                                           G_CALLBACK (on_flame_search), flame_search_step, page);
  page->search = search;
  page->search_count = match_count_new ();
  g_signal_connect (page->stack, "notify::visible-child", G_CALLBACK (on_stack_switched), page);
  GtkWidget *toolbar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_start (toolbar, 6);
  gtk_widget_set_margin_top (toolbar, 6);
  gtk_widget_set_margin_bottom (toolbar, 6);
  page->bottom_up = gtk_toggle_button_new_with_mnemonic (_("_Bottom-up"));
  gtk_widget_set_tooltip_text (page->bottom_up,
                               _("The consolidated view inverted: each frame's own time at the bottom, "
                                 "its callers above it (I)"));
  g_signal_connect (page->bottom_up, "toggled", G_CALLBACK (on_bottom_up), page);
  gtk_box_append (GTK_BOX (toolbar), switcher);
  gtk_box_append (GTK_BOX (toolbar), page->bottom_up);
  GtkWidget *paths_button = gtk_button_new_with_mnemonic (_("_Paths"));
  gtk_widget_set_tooltip_text (paths_button, _("Every control path, however short, in a list: a click shows it"));
  g_signal_connect (paths_button, "clicked", G_CALLBACK (on_show_paths), page);
  gtk_box_append (GTK_BOX (toolbar), paths_button);
  gtk_box_append (GTK_BOX (toolbar), search);
  gtk_box_append (GTK_BOX (toolbar), page->search_count);
  g_signal_connect (page->chronological, "frame-selected", G_CALLBACK (on_frame_selected), page);
  g_signal_connect (page->chronological, "moment-selected", G_CALLBACK (on_moment_selected), page);
  g_signal_connect (page->consolidated, "frame-selected", G_CALLBACK (on_frame_selected), page);
  GtkWidget *views = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (views), page->stack);
  gtk_box_append (GTK_BOX (views), rsp_legend_widget_new (RSP_LEGEND_FLAME));
  page->callers = rsp_callers_pane_new ();
  g_signal_connect (page->callers, "name-activated", G_CALLBACK (on_callers_row), page);
  page->bottom = gtk_notebook_new ();
  gtk_notebook_append_page (GTK_NOTEBOOK (page->bottom), details_page (page), gtk_label_new (_("Details")));
  gtk_notebook_append_page (GTK_NOTEBOOK (page->bottom), page->callers, gtk_label_new (_("Callers and callees")));
  page->paths = paths_page (page);
  g_autofree char *paths_label = g_strdup_printf (_("Control paths (%u)"), rsp_analysis_n_paths (analysis));
  gtk_notebook_append_page (GTK_NOTEBOOK (page->bottom), page->paths, gtk_label_new (paths_label));
  GtkWidget *close = gtk_button_new_from_icon_name ("window-close-symbolic");
  gtk_widget_add_css_class (close, "flat");
  gtk_widget_set_tooltip_text (close, _("Close the details"));
  g_signal_connect (close, "clicked", G_CALLBACK (on_bottom_closed), page);
  gtk_notebook_set_action_widget (GTK_NOTEBOOK (page->bottom), close, GTK_PACK_END);
  gtk_widget_set_visible (page->bottom, FALSE);
  gtk_widget_set_size_request (page->bottom, -1, 120);
  gtk_widget_set_size_request (views, -1, 120);
  GtkWidget *split = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  gtk_paned_set_start_child (GTK_PANED (split), views);
  gtk_paned_set_end_child (GTK_PANED (split), page->bottom);
  gtk_paned_set_resize_end_child (GTK_PANED (split), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (split), FALSE);
  gtk_widget_set_vexpand (split, TRUE);
  GtkWidget *left = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (left), toolbar);
  gtk_box_append (GTK_BOX (left), split);

  GtkWidget *panel = rsp_accounting_panel_new (analysis);
  page->panel = panel;
  g_signal_connect (panel, "category-selected", G_CALLBACK (on_category_selected), page);
  g_signal_connect (panel, "finding-selected", G_CALLBACK (on_finding_selected), page);
  GtkWidget *scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), panel);
  gtk_widget_set_size_request (scroll, 420, -1);

  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_paned_set_start_child (GTK_PANED (paned), left);
  gtk_paned_set_end_child (GTK_PANED (paned), scroll);
  gtk_paned_set_resize_end_child (GTK_PANED (paned), FALSE);
  g_object_set_data_full (G_OBJECT (paned), "page", page, process_page_free);
  g_object_set_data (G_OBJECT (paned), "pid", GINT_TO_POINTER (pid));

  const RspTask *target = rsp_model_task (self->model, rsp_analysis_target_task (analysis));
  g_autofree char *title = title_or_null != NULL ? g_strdup (title_or_null)
                                                 : g_strdup_printf ("%s (%d)", target->comm != NULL ? target->comm : "?", pid);
  gint n = gtk_notebook_append_page (GTK_NOTEBOOK (self->notebook), paned, tab_label (title, paned));
  gtk_notebook_set_tab_reorderable (GTK_NOTEBOOK (self->notebook), paned, TRUE);
  g_hash_table_insert (self->process_pages, GINT_TO_POINTER (pid), paned);
  gtk_notebook_set_current_page (GTK_NOTEBOOK (self->notebook), n);
}

typedef struct {
  RspViews *views;
  RspModel *model; /* a reference: the thread reads it while another recording may open */
  gint32 pid;
} AnalysisJob;

static void
analysis_job_free (gpointer data)
{
  AnalysisJob *job = data;
  rsp_model_unref (job->model);
  g_free (job);
}

static void
analysis_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  AnalysisJob *job = data;
  GError *error = NULL;
  /* the model is read-only once loaded: the analysis can run beside the UI */
  RspAnalysis *analysis = rsp_analysis_new (job->model, job->pid, 0, G_MAXUINT64, &error);
  if (analysis == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, analysis, (GDestroyNotify) rsp_analysis_free);
}

static void
analysis_done (GObject *source, GAsyncResult *result, gpointer data)
{
  RspViews *self = RSP_VIEWS (source);
  AnalysisJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  RspAnalysis *analysis = g_task_propagate_pointer (G_TASK (result), &error);
  g_hash_table_remove (self->pending, GINT_TO_POINTER (job->pid));
  if (analysis == NULL)
    {
      g_message ("flame views of process %d: %s", job->pid, error->message);
      return;
    }
  if (job->model != self->model)
    {
      rsp_analysis_free (analysis); /* another recording was opened meanwhile */
      return;
    }
  add_process_page (self, job->pid, analysis, NULL);
}

/* The processes on the process of interest's control paths, for the
 * timeline's order: the analysis runs beside the UI once a recording is
 * shown, and only its list of processes is kept. */
static void
path_pids_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  AnalysisJob *job = data;
  GError *error = NULL;
  g_autoptr (RspAnalysis) analysis = rsp_analysis_new (job->model, job->pid, 0, G_MAXUINT64, &error);
  if (analysis == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, rsp_analysis_processes (analysis), (GDestroyNotify) g_array_unref);
}

static void
path_pids_done (GObject *source, GAsyncResult *result, gpointer data)
{
  RspViews *self = RSP_VIEWS (source);
  AnalysisJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) pids = g_task_propagate_pointer (G_TASK (result), &error);
  if (pids == NULL)
    {
      g_message ("the timeline's order: process %d: %s", job->pid, error->message);
      return;
    }
  if (job->model == self->model && self->timeline != NULL)
    rsp_timeline_widget_set_path_pids (RSP_TIMELINE_WIDGET (self->timeline), (const gint32 *) pids->data, pids->len);
}

/* Runs THREAD on an analysis job for PID of the current model beside the
 * UI; DONE gets the result on the main thread. */
static void
start_analysis_job (RspViews *self, gint32 pid, GTaskThreadFunc thread, GAsyncReadyCallback done)
{
  AnalysisJob *job = g_new0 (AnalysisJob, 1);
  job->views = self;
  job->model = rsp_model_ref (self->model);
  job->pid = pid;
  GTask *task = g_task_new (self, NULL, done, NULL);
  g_task_set_task_data (task, job, analysis_job_free);
  g_task_run_in_thread (task, thread);
  g_object_unref (task);
}

void
rsp_views_open_process (RspViews *self, gint32 pid)
{
  GtkWidget *existing = g_hash_table_lookup (self->process_pages, GINT_TO_POINTER (pid));
  if (existing != NULL)
    {
      gtk_notebook_set_current_page (GTK_NOTEBOOK (self->notebook),
                                     gtk_notebook_page_num (GTK_NOTEBOOK (self->notebook), existing));
      return;
    }
  if (g_hash_table_contains (self->pending, GINT_TO_POINTER (pid)))
    return;
  g_hash_table_add (self->pending, GINT_TO_POINTER (pid));
  start_analysis_job (self, pid, analysis_thread, analysis_done);
}

static void
on_task_activated (RspTimelineWidget *timeline, guint task, RspViews *self)
{
  rsp_views_open_process (self, rsp_model_task (self->model, task)->pid);
}

static void
on_range_selected (RspTimelineWidget *timeline, guint64 t0, guint64 t1, RspViews *self)
{
  const RspRecordingMeta *meta = rsp_model_meta (self->model);
  gint32 pid = meta != NULL ? meta->target_pid : 0;
  g_autofree char *span = g_strdup_printf ("%.3f–%.3f ms", (t0 - rsp_model_start_time (self->model)) / 1e6,
                                           (t1 - rsp_model_start_time (self->model)) / 1e6);
  RspAnalysis *a = pid > 0 ? rsp_analysis_new (self->model, pid, t0, t1, NULL) : NULL;
  if (a == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Selected %s"), span);
      gtk_label_set_text (GTK_LABEL (self->range_label), text);
      return;
    }
  /* the range's accounting table and findings under the timeline; the
   * panel reads the analysis, which goes with the panel it is shown in */
  GtkWidget *panel = rsp_accounting_panel_new (a);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->range_pane), panel);
  g_clear_pointer (&self->range_analysis, rsp_analysis_free);
  self->range_analysis = a;
  gtk_widget_set_visible (self->timeline_bottom, TRUE);
  gtk_notebook_set_current_page (GTK_NOTEBOOK (self->timeline_bottom),
                                 gtk_notebook_page_num (GTK_NOTEBOOK (self->timeline_bottom), self->range_pane));
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "range accounting: %s, %.1f%% accounted, %u findings", span,
         rsp_analysis_accounted_percent (a), rsp_analysis_n_findings (a));
  /* the accounting of the selection, in one line: the largest categories */
  g_autoptr (GString) text = g_string_new (NULL);
  g_string_append_printf (text, _("%s: %.1f%% accounted"), span, rsp_analysis_accounted_percent (a));
  guint64 total = rsp_analysis_total_ns (a);
  for (guint shown = 0, c = 0; c < RSP_CAT_N && shown < 4; c++)
    {
      guint64 ns = rsp_analysis_category_ns (a, c);
      if (total == 0 || ns * 20 < total)
        continue;
      g_string_append_printf (text, " · %s %.1f%%", _(rsp_category_label (c)), 100.0 * ns / total);
      shown++;
    }
  gtk_label_set_text (GTK_LABEL (self->range_label), text->str);
}

static void
on_range_close (GtkButton *button, GtkWidget *pane)
{
  gtk_widget_set_visible (pane, FALSE);
}

/* A run, a sleep, an operation or a link clicked in the timeline (or
 * stepped to with Left/Right): its details under it. */
static void
on_item_selected (RspTimelineWidget *timeline, guint kind, guint item, RspViews *self)
{
  if (item == RSP_NONE)
    return;
  g_autoptr (RspDetails) d = rsp_details_new_for_item (self->model, (RspDetailsItem) kind, item);
  gtk_label_set_markup (GTK_LABEL (self->timeline_details), d->markup);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->timeline_details), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  d->summary, -1);
  self->timeline_jump_start = d->jump_start;
  self->timeline_jump_end = d->jump_end;
  gtk_widget_set_visible (self->timeline_jump, d->jump_label != NULL);
  if (d->jump_label != NULL)
    gtk_button_set_label (GTK_BUTTON (self->timeline_jump), d->jump_label);
  gtk_widget_set_visible (self->timeline_bottom, TRUE);
  gtk_notebook_set_current_page (GTK_NOTEBOOK (self->timeline_bottom), 0);
  guint64 origin = rsp_model_start_time (self->model);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "timeline details: item %u of kind %u: %s; jump %.3f-%.3f ms", item, kind,
         d->summary, d->jump_label != NULL ? (d->jump_start - origin) / 1e6 : 0.0,
         d->jump_label != NULL ? (d->jump_end - origin) / 1e6 : 0.0);
}

static void
on_timeline_jump (GtkButton *button, RspViews *self)
{
  rsp_timeline_widget_show_range (RSP_TIMELINE_WIDGET (self->timeline), self->timeline_jump_start,
                                  self->timeline_jump_end);
}

static void
on_show_sleeps (GtkCheckButton *button, RspViews *self)
{
  rsp_timeline_widget_set_show_sleeps (RSP_TIMELINE_WIDGET (self->timeline), gtk_check_button_get_active (button));
}

static void
on_summary (GtkCheckButton *button, RspViews *self)
{
  rsp_timeline_widget_set_summary (RSP_TIMELINE_WIDGET (self->timeline), gtk_check_button_get_active (button));
}

static void
show_match_count (RspViews *self)
{
  guint current, n = rsp_timeline_widget_search_matches (RSP_TIMELINE_WIDGET (self->timeline), &current);
  match_count_show (self->match_label, self->timeline_search, current, n);
}

static void
on_filter (GtkCheckButton *button, RspViews *self)
{
  rsp_timeline_widget_set_filter (RSP_TIMELINE_WIDGET (self->timeline), gtk_check_button_get_active (button));
  show_match_count (self);
}

static void
on_timeline_search (GtkSearchEntry *entry, RspViews *self)
{
  rsp_timeline_widget_set_search (RSP_TIMELINE_WIDGET (self->timeline), gtk_editable_get_text (GTK_EDITABLE (entry)));
  show_match_count (self);
}

/* Enter and Shift+Enter: the next or previous matching task row. */
static void
timeline_search_step (gpointer data, gint delta)
{
  RspViews *self = data;
  rsp_timeline_widget_search_step (RSP_TIMELINE_WIDGET (self->timeline), delta);
  show_match_count (self);
}

static void
on_fit (GtkButton *button, RspViews *self)
{
  rsp_timeline_widget_zoom_fit (RSP_TIMELINE_WIDGET (self->timeline));
}

/* ------------------------------------------------------------------ the requests view */

/* A request of the list: its own flame views, in a tab of its own. */
static void
on_request_activated (RspRequestsPage *page, guint index, RspViews *self)
{
  const RspRequests *r = rsp_requests_page_get_requests (page);
  gint32 key = -(gint32) index - 1;
  GtkWidget *existing = g_hash_table_lookup (self->process_pages, GINT_TO_POINTER (key));
  if (existing != NULL)
    {
      gtk_notebook_set_current_page (GTK_NOTEBOOK (self->notebook),
                                     gtk_notebook_page_num (GTK_NOTEBOOK (self->notebook), existing));
      return;
    }
  const RspRequest *req = rsp_requests_get (r, index);
  const RspTask *task = rsp_model_task (self->model, req->task);
  gint32 tid = rsp_requests_kind (r) == RSP_REQUESTS_RUNS || task == NULL ? 0 : task->tid;
  g_autoptr (GError) error = NULL;
  RspAnalysis *a = rsp_analysis_new_for_thread (self->model, req->pid, tid, req->start, req->end, &error);
  if (a == NULL)
    {
      rsp_widget_show_error (GTK_WIDGET (self), _("Could not analyse the request"), error->message);
      return;
    }
  g_autofree char *dur = g_strdup_printf ("%.1f ms", rsp_requests_duration (req) / 1e6);
  /* TRANSLATORS: the tab of one request: "Request 3 (50.3 ms)" */
  g_autofree char *title = g_strdup_printf (_("Request %u (%s)"), index + 1, dur);
  add_process_page (self, key, a, title);
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "opened request %u: pid %d, %.3f ms, %u control paths", index + 1, req->pid,
         rsp_requests_duration (req) / 1e6, rsp_analysis_n_paths (a));
}

typedef struct {
  RspModel *model; /* a reference */
  char *spec;
} RequestsJob;

static void
requests_job_free (gpointer data)
{
  RequestsJob *job = data;
  rsp_model_unref (job->model);
  g_free (job->spec);
  g_free (job);
}

static void
requests_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  RequestsJob *job = data;
  GError *error = NULL;
  RspRequests *r = rsp_requests_new_full (job->model, job->spec, 0, TRUE, &error);
  if (r == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, r, (GDestroyNotify) rsp_requests_free);
}

static void
requests_done (GObject *source, GAsyncResult *result, gpointer data)
{
  RspViews *self = RSP_VIEWS (source);
  RequestsJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  RspRequests *r = g_task_propagate_pointer (G_TASK (result), &error);
  self->requests_pending = FALSE;
  if (job->model != self->model)
    {
      g_clear_pointer (&r, rsp_requests_free); /* another recording was opened meanwhile */
      return;
    }
  if (r == NULL)
    {
      g_autofree char *primary = g_strdup_printf (_("No requests of the kind “%s”"), job->spec);
      rsp_widget_show_error (GTK_WIDGET (self), primary, error->message);
      return;
    }
  if (self->requests_page != NULL)
    gtk_notebook_remove_page (GTK_NOTEBOOK (self->notebook),
                              gtk_notebook_page_num (GTK_NOTEBOOK (self->notebook), self->requests_page));
  GtkWidget *page = rsp_requests_page_new (r);
  self->requests_page = page;
  g_object_add_weak_pointer (G_OBJECT (page), (gpointer *) &self->requests_page);
  g_signal_connect (page, "request-activated", G_CALLBACK (on_request_activated), self);
  g_autofree char *label = g_strdup_printf (_("Requests: %s"), rsp_requests_spec (r));
  gint n = gtk_notebook_insert_page (GTK_NOTEBOOK (self->notebook), page, tab_label (label, NULL), 1);
  gtk_notebook_set_current_page (GTK_NOTEBOOK (self->notebook), n);
}

void
rsp_views_open_requests (RspViews *self, const char *spec)
{
  g_return_if_fail (RSP_IS_VIEWS (self) && spec != NULL);
  if (self->model == NULL || self->requests_pending)
    return;
  self->requests_pending = TRUE;
  RequestsJob *job = g_new0 (RequestsJob, 1);
  job->model = rsp_model_ref (self->model);
  job->spec = g_strdup (spec);
  GTask *task = g_task_new (self, NULL, requests_done, NULL);
  g_task_set_task_data (task, job, requests_job_free);
  g_task_run_in_thread (task, requests_thread);
  g_object_unref (task);
}

/* ------------------------------------------------------------------ two recordings compared */

/* What a comparison tab holds: the other recording and both analyses. */
typedef struct {
  RspModel *other;     /* B, a reference */
  RspAnalysis *a, *b;  /* A's process and B's matching one */
  RspDiff *diff;
} Comparison;

static void
comparison_free (gpointer data)
{
  Comparison *c = data;
  g_clear_pointer (&c->diff, rsp_diff_free); /* reads both analyses */
  g_clear_pointer (&c->a, rsp_analysis_free);
  g_clear_pointer (&c->b, rsp_analysis_free);
  g_clear_pointer (&c->other, rsp_model_unref);
  g_free (c);
}

typedef struct {
  RspModel *model, *other; /* references */
  gint32 pid;              /* A's process */
  char *name, *other_name;
} CompareJob;

static void
compare_job_free (gpointer data)
{
  CompareJob *job = data;
  rsp_model_unref (job->model);
  rsp_model_unref (job->other);
  g_free (job->name);
  g_free (job->other_name);
  g_free (job);
}

static void
compare_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  CompareJob *job = data;
  GError *error = NULL;
  const RspTask *main_a = NULL;
  for (RspIdx i = 0; i < rsp_model_n_tasks (job->model) && main_a == NULL; i++)
    if (rsp_model_task (job->model, i)->pid == job->pid)
      main_a = rsp_model_task (job->model, i);
  gint32 pid_b = rsp_diff_match_process (job->model, job->pid, job->other);
  if (pid_b == 0)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                               _("%s has no process that matches %s (pid %d) of %s: the same command, started "
                                 "by the same chain of commands.  Compare two recordings of the same workload."),
                               job->other_name, main_a != NULL && main_a->comm != NULL ? main_a->comm : "?",
                               job->pid, job->name);
      return;
    }
  Comparison *c = g_new0 (Comparison, 1);
  c->other = rsp_model_ref (job->other);
  c->a = rsp_analysis_new (job->model, job->pid, 0, G_MAXUINT64, &error);
  if (c->a != NULL)
    c->b = rsp_analysis_new (job->other, pid_b, 0, G_MAXUINT64, &error);
  if (c->b == NULL)
    {
      comparison_free (c);
      g_task_return_error (task, error);
      return;
    }
  c->diff = rsp_diff_new (c->a, c->b);
  g_task_return_pointer (task, c, comparison_free);
}

/* One side: which recording and process, and its accounting table. */
static GtkWidget *
comparison_side (const char *role, const char *name, const RspAnalysis *a)
{
  const RspTask *t = rsp_model_task (rsp_analysis_model (a), rsp_analysis_target_task (a));
  g_autofree char *head = g_markup_printf_escaped ("<b>%s</b> %s · %s (pid %d)", role, name,
                                                   t->comm != NULL ? t->comm : "?", t->pid);
  GtkWidget *label = gtk_label_new (NULL);
  gtk_label_set_markup (GTK_LABEL (label), head);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), rsp_accounting_panel_new (a));
  gtk_widget_set_hexpand (box, TRUE);
  return box;
}

static void
compare_done (GObject *source, GAsyncResult *result, gpointer data)
{
  RspViews *self = RSP_VIEWS (source);
  CompareJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  Comparison *c = g_task_propagate_pointer (G_TASK (result), &error);
  if (job->model != self->model)
    {
      g_clear_pointer (&c, comparison_free); /* another recording was opened meanwhile */
      return;
    }
  if (c == NULL)
    {
      rsp_widget_show_error (GTK_WIDGET (self), _("Could not compare the recordings"), error->message);
      return;
    }
  /* the differential flame on top: B's tree, coloured by the change from A */
  const RspAnalysis *before = c->a, *after = c->b;
  GtkWidget *flame = rsp_flame_widget_new_group (&after, 1, &before, 1);
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (top), flame);
  gtk_box_append (GTK_BOX (top), rsp_legend_widget_new (RSP_LEGEND_DIFF));
  gtk_widget_set_size_request (top, -1, 200);

  /* under it, the two accountings side by side and what changed most */
  g_autoptr (GString) changes = g_string_new (NULL);
  guint n = MIN (rsp_diff_n_changes (c->diff), 8);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *line = rsp_diff_change_describe (c->diff, rsp_diff_change (c->diff, i), RSP_DESCRIBE_LOCAL);
      g_string_append_printf (changes, "%s• %s", i > 0 ? "\n\n" : "", line);
    }
  GtkWidget *changes_title = gtk_label_new (NULL);
  gtk_label_set_markup (GTK_LABEL (changes_title), _("<b>What changed most</b>"));
  gtk_label_set_xalign (GTK_LABEL (changes_title), 0);
  GtkWidget *changes_label = gtk_label_new (n > 0 ? changes->str : _("Nothing changed."));
  gtk_label_set_xalign (GTK_LABEL (changes_label), 0);
  gtk_label_set_wrap (GTK_LABEL (changes_label), TRUE);
  gtk_label_set_selectable (GTK_LABEL (changes_label), TRUE);
  GtkWidget *changes_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_margin_start (changes_box, 6);
  gtk_widget_set_margin_end (changes_box, 6);
  gtk_box_append (GTK_BOX (changes_box), changes_title);
  gtk_box_append (GTK_BOX (changes_box), changes_label);
  gtk_widget_set_hexpand (changes_box, TRUE);
  gtk_widget_set_size_request (changes_box, 320, -1);
  GtkWidget *sides = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_top (sides, 6);
  gtk_box_append (GTK_BOX (sides), comparison_side (_("Before:"), job->name, c->a));
  gtk_box_append (GTK_BOX (sides), comparison_side (_("After:"), job->other_name, c->b));
  gtk_box_append (GTK_BOX (sides), changes_box);
  GtkWidget *scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), sides);
  gtk_widget_set_size_request (scroll, -1, 200);
  GtkWidget *split = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  gtk_paned_set_start_child (GTK_PANED (split), top);
  gtk_paned_set_end_child (GTK_PANED (split), scroll);
  gtk_widget_set_vexpand (split, TRUE);
  /* the widgets read the analyses: the comparison goes with the tab */
  g_object_set_data_full (G_OBJECT (split), "comparison", c, comparison_free);

  g_autofree char *title = g_strdup_printf (_("%s ↔ %s"), job->name, job->other_name);
  gint page = gtk_notebook_append_page (GTK_NOTEBOOK (self->notebook), split, tab_label (title, split));
  gtk_notebook_set_current_page (GTK_NOTEBOOK (self->notebook), page);
  const RspDiffChange *first = rsp_diff_n_changes (c->diff) > 0 ? rsp_diff_change (c->diff, 0) : NULL;
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "compared %s (pid %d, %.3f ms) with %s (pid %d, %.3f ms); changed most: %s %s %+.3f ms",
         job->name, job->pid, rsp_analysis_total_ns (c->a) / 1e6, job->other_name,
         rsp_model_task (c->other, rsp_analysis_target_task (c->b))->pid, rsp_analysis_total_ns (c->b) / 1e6,
         first != NULL ? rsp_category_id (first->category) : "-",
         first != NULL && first->frame != NULL ? first->frame : "-", first != NULL ? first->delta_ns / 1e6 : 0.0);
}

void
rsp_views_compare (RspViews *self, const RspModel *other, const char *name, const char *other_name)
{
  g_return_if_fail (RSP_IS_VIEWS (self) && other != NULL);
  if (self->model == NULL)
    return;
  /* the process shown in a tab, else the recording's process of interest */
  ProcessPage *pp = current_process_page (self);
  GtkWidget *shown = gtk_notebook_get_nth_page (GTK_NOTEBOOK (self->notebook),
                                                gtk_notebook_get_current_page (GTK_NOTEBOOK (self->notebook)));
  gint32 key = shown != NULL ? GPOINTER_TO_INT (g_object_get_data (G_OBJECT (shown), "pid")) : 0;
  const RspRecordingMeta *meta = rsp_model_meta (self->model);
  gint32 pid = pp != NULL && key > 0 ? key : meta != NULL ? meta->target_pid : 0;
  if (pid <= 0)
    {
      rsp_widget_show_error (GTK_WIDGET (self), _("Could not compare the recordings"),
                    _("This recording names no process of interest: open a process's tab from the timeline "
                      "first, then compare."));
      return;
    }
  CompareJob *job = g_new0 (CompareJob, 1);
  job->model = rsp_model_ref (self->model);
  job->other = rsp_model_ref (other);
  job->pid = pid;
  job->name = g_strdup (name);
  job->other_name = g_strdup (other_name);
  GTask *task = g_task_new (self, NULL, compare_done, NULL);
  g_task_set_task_data (task, job, compare_job_free);
  g_task_run_in_thread (task, compare_thread);
  g_object_unref (task);
}

void
rsp_views_set_model (RspViews *self, const RspModel *model, const char *title)
{
  while (gtk_notebook_get_n_pages (GTK_NOTEBOOK (self->notebook)) > 0)
    gtk_notebook_remove_page (GTK_NOTEBOOK (self->notebook), -1);
  self->requests_page = NULL;
  g_hash_table_remove_all (self->process_pages);
  /* the range pane went with the timeline's page: its analysis goes now */
  g_clear_pointer (&self->range_analysis, rsp_analysis_free);
  RspModel *old = self->model;
  self->model = rsp_model_ref (model);
  rsp_model_unref (old);

  const RspRecordingMeta *meta = rsp_model_meta (model);
  gint32 pid = meta != NULL ? meta->target_pid : 0;
  g_log ("rsp-ui", G_LOG_LEVEL_DEBUG, "views: %s, %u tasks, %s, process of interest %d", title,
         rsp_model_n_tasks (model), meta != NULL ? "RSP metadata" : "no RSP metadata", pid);
  self->timeline = rsp_timeline_widget_new (model, pid);
  if (pid > 0)
    start_analysis_job (self, pid, path_pids_thread, path_pids_done); /* the timeline's order */
  g_signal_connect (self->timeline, "task-activated", G_CALLBACK (on_task_activated), self);
  g_signal_connect (self->timeline, "range-selected", G_CALLBACK (on_range_selected), self);

  GtkWidget *toolbar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_set_margin_start (toolbar, 6);
  gtk_widget_set_margin_end (toolbar, 6);
  gtk_widget_set_margin_top (toolbar, 6);
  gtk_widget_set_margin_bottom (toolbar, 6);
  GtkWidget *sleeps = gtk_check_button_new_with_mnemonic (_("Show _sleeps"));
  g_signal_connect (sleeps, "toggled", G_CALLBACK (on_show_sleeps), self);
  GtkWidget *summary = gtk_check_button_new_with_mnemonic (_("_Summary (hide idle tasks)"));
  g_signal_connect (summary, "toggled", G_CALLBACK (on_summary), self);
  GtkWidget *filter = gtk_check_button_new_with_mnemonic (_("_Only matches"));
  gtk_widget_set_tooltip_text (filter, _("Hide the tasks whose name, pid or tid does not match the search "
                                         "(the process of interest stays)"));
  g_signal_connect (filter, "toggled", G_CALLBACK (on_filter), self);
  GtkWidget *search = stepping_search_new (_("Find a task by name (Ctrl+F); Enter: next, Shift+Enter: previous"),
                                           G_CALLBACK (on_timeline_search), timeline_search_step, self);
  self->timeline_search = search;
  self->match_label = match_count_new ();
  GtkWidget *fit = gtk_button_new_from_icon_name ("zoom-fit-best-symbolic");
  gtk_widget_set_tooltip_text (fit, _("Show everything (0)"));
  g_signal_connect (fit, "clicked", G_CALLBACK (on_fit), self);
  self->range_label = gtk_label_new (_("Click a task name to open its flame view; Shift+drag selects a range."));
  gtk_label_set_ellipsize (GTK_LABEL (self->range_label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (self->range_label, TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->range_label), 0);
  gtk_widget_add_css_class (self->range_label, "dim-label");
  gtk_box_append (GTK_BOX (toolbar), search);
  gtk_box_append (GTK_BOX (toolbar), self->match_label);
  gtk_box_append (GTK_BOX (toolbar), filter);
  gtk_box_append (GTK_BOX (toolbar), sleeps);
  gtk_box_append (GTK_BOX (toolbar), summary);
  gtk_box_append (GTK_BOX (toolbar), fit);
  gtk_box_append (GTK_BOX (toolbar), self->range_label);
  GtkWidget *page = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (page), toolbar);
  gtk_box_append (GTK_BOX (page), self->timeline);
  gtk_box_append (GTK_BOX (page), rsp_legend_widget_new (RSP_LEGEND_TIMELINE));
  /* under it, hidden until used: the details of the item clicked, and a
   * range selected (Shift+drag) with its accounting */
  self->timeline_details = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->timeline_details), 0);
  gtk_label_set_yalign (GTK_LABEL (self->timeline_details), 0);
  gtk_label_set_wrap (GTK_LABEL (self->timeline_details), TRUE);
  gtk_label_set_selectable (GTK_LABEL (self->timeline_details), TRUE);
  self->timeline_jump = gtk_button_new_with_mnemonic ("");
  gtk_widget_set_halign (self->timeline_jump, GTK_ALIGN_START);
  gtk_widget_set_visible (self->timeline_jump, FALSE);
  g_signal_connect (self->timeline_jump, "clicked", G_CALLBACK (on_timeline_jump), self);
  GtkWidget *details_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_start (details_box, 8);
  gtk_widget_set_margin_end (details_box, 8);
  gtk_widget_set_margin_top (details_box, 6);
  gtk_box_append (GTK_BOX (details_box), self->timeline_details);
  gtk_box_append (GTK_BOX (details_box), self->timeline_jump);
  GtkWidget *details_scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (details_scroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (details_scroll), details_box);
  self->range_pane = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->range_pane), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  GtkWidget *range_box = gtk_notebook_new ();
  self->timeline_bottom = range_box;
  gtk_widget_set_size_request (range_box, -1, 220);
  gtk_notebook_append_page (GTK_NOTEBOOK (range_box), details_scroll, gtk_label_new (_("Details")));
  gtk_notebook_append_page (GTK_NOTEBOOK (range_box), self->range_pane, gtk_label_new (_("Selected range")));
  GtkWidget *range_close = gtk_button_new_from_icon_name ("window-close-symbolic");
  gtk_widget_add_css_class (range_close, "flat");
  gtk_widget_set_tooltip_text (range_close, _("Close the details"));
  g_signal_connect (range_close, "clicked", G_CALLBACK (on_range_close), range_box);
  gtk_notebook_set_action_widget (GTK_NOTEBOOK (range_box), range_close, GTK_PACK_END);
  gtk_widget_set_visible (range_box, FALSE);
  g_signal_connect (self->timeline, "item-selected", G_CALLBACK (on_item_selected), self);
  GtkWidget *split = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  gtk_paned_set_start_child (GTK_PANED (split), page);
  gtk_paned_set_end_child (GTK_PANED (split), range_box);
  gtk_paned_set_resize_end_child (GTK_PANED (split), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (split), FALSE);
  page = split;
  gtk_notebook_append_page (GTK_NOTEBOOK (self->notebook), page, tab_label (_("Timeline"), NULL));
  (void) title;
  /* a recording of rsp record --repeat opens on its runs' distribution */
  if (rsp_requests_model_has_runs (model))
    rsp_views_open_requests (self, "runs");
}

void
rsp_views_focus_search (RspViews *self)
{
  ProcessPage *pp = current_process_page (self);
  GtkWidget *search = pp != NULL ? pp->search : self->timeline_search;
  if (search != NULL)
    gtk_widget_grab_focus (search);
}

void
rsp_views_step_finding (RspViews *self, gint delta)
{
  ProcessPage *pp = current_process_page (self);
  if (pp != NULL)
    rsp_accounting_panel_step (RSP_ACCOUNTING_PANEL (pp->panel), delta);
}

gboolean
rsp_views_export (RspViews *self, const char *path, GError **error)
{
  ProcessPage *pp = current_process_page (self);
  GtkWidget *shown = gtk_notebook_get_nth_page (GTK_NOTEBOOK (self->notebook),
                                                gtk_notebook_get_current_page (GTK_NOTEBOOK (self->notebook)));
  if (shown != NULL && shown == self->requests_page)
    {
      RspRequestsPage *rp = RSP_REQUESTS_PAGE (shown);
      if (g_str_has_suffix (path, ".csv") || g_str_has_suffix (path, ".CSV"))
        {
          g_autofree char *csv = rsp_requests_report_csv (rsp_requests_page_get_requests (rp));
          return g_file_set_contents (path, csv, -1, error);
        }
      return rsp_requests_page_export (rp, path, error);
    }
  if (g_str_has_suffix (path, ".csv") || g_str_has_suffix (path, ".CSV"))
    {
      if (pp == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("cannot write %s: %s"), path,
                       _("the tables are in a process's tab: open one from the timeline, then export it as CSV"));
          return FALSE;
        }
      g_autofree char *csv = rsp_report_csv (pp->analysis);
      return g_file_set_contents (path, csv, -1, error);
    }
  if (pp == NULL)
    return rsp_timeline_widget_export (RSP_TIMELINE_WIDGET (self->timeline), path, error);
  return rsp_flame_widget_export (RSP_FLAME_WIDGET (gtk_stack_get_visible_child (GTK_STACK (pp->stack))), path, error);
}

static void
rsp_views_finalize (GObject *object)
{
  RspViews *self = RSP_VIEWS (object);
  g_hash_table_unref (self->process_pages);
  g_hash_table_unref (self->pending);
  g_clear_pointer (&self->range_analysis, rsp_analysis_free);
  g_clear_pointer (&self->model, rsp_model_unref);
  G_OBJECT_CLASS (rsp_views_parent_class)->finalize (object);
}

static void
rsp_views_class_init (RspViewsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rsp_views_finalize;
}

/* Keys that no focused widget took (a list row, a button, a tab) go to
 * the visible view, so that W/A/S/D, F, Z and Escape work wherever the
 * focus is; a text entry keeps the keys it types. */
static gboolean
on_views_key (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state, RspViews *self)
{
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (GTK_WIDGET (self)));
  if (focus != NULL && (GTK_IS_EDITABLE (focus) || gtk_widget_get_ancestor (focus, GTK_TYPE_TEXT) != NULL))
    return FALSE;
  ProcessPage *pp = current_process_page (self);
  GtkWidget *shown = gtk_notebook_get_nth_page (GTK_NOTEBOOK (self->notebook),
                                                gtk_notebook_get_current_page (GTK_NOTEBOOK (self->notebook)));
  if (shown != NULL && shown == self->requests_page)
    return rsp_requests_page_handle_key (RSP_REQUESTS_PAGE (shown), keyval, state);
  if (pp != NULL && (keyval == GDK_KEY_i || keyval == GDK_KEY_I)
      && !(state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK)))
    {
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (pp->bottom_up),
                                    !gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (pp->bottom_up)));
      return TRUE;
    }
  if (pp != NULL)
    return rsp_flame_widget_handle_key (RSP_FLAME_WIDGET (gtk_stack_get_visible_child (GTK_STACK (pp->stack))),
                                        keyval, state);
  if (self->timeline != NULL)
    return rsp_timeline_widget_handle_key (RSP_TIMELINE_WIDGET (self->timeline), keyval, state);
  return FALSE;
}

static void
rsp_views_init (RspViews *self)
{
  GtkEventController *keys = gtk_event_controller_key_new ();
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_views_key), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  self->process_pages = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->pending = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->notebook = gtk_notebook_new ();
  gtk_notebook_set_scrollable (GTK_NOTEBOOK (self->notebook), TRUE);
  gtk_widget_set_vexpand (self->notebook, TRUE);
  gtk_box_append (GTK_BOX (self), self->notebook);
}

RspViews *
rsp_views_new (void)
{
  return g_object_new (RSP_TYPE_VIEWS, NULL);
}
