/* rsp-accounting-panel.c — accounting table and findings. */
#include "rsp-accounting-panel.h"

#include <glib/gi18n.h>
#include <string.h>

#include "rsp-describe.h"
#include "rsp-widget-util.h"

#define MAX_PATH_COLUMNS 3 /* paths shown as their own column; the rest are summed */

struct _RspAccountingPanel {
  GtkBox parent_instance;
  const RspAnalysis *analysis;
  GtkWidget *categories;
  GtkWidget *findings;
  GPtrArray *instance_labels; /* per finding row: its "k of n" label, or NULL */
  gint finding;               /* the selected finding, -1 for none */
  guint instance;             /* its instance shown */
};

enum {
  SIGNAL_CATEGORY_SELECTED,
  SIGNAL_FINDING_SELECTED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (RspAccountingPanel, rsp_accounting_panel, GTK_TYPE_BOX)

static GtkWidget *
cell (const char *text, gboolean numeric, gboolean bold)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0 : 0.0);
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  if (bold)
    gtk_widget_add_css_class (label, "heading");
  return label;
}

static GtkWidget *instance_stepper (RspAccountingPanel *self, guint finding, guint n);

/* One row of the table: label, total ms, percent, then per path. */
static GtkWidget *
table_row (const RspAnalysis *a, const char *label, const guint64 *per_path, guint64 total_ns, gboolean bold)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *name = cell (label, FALSE, bold);
  gtk_widget_set_hexpand (name, TRUE);
  gtk_box_append (GTK_BOX (box), name);
  guint64 all = rsp_analysis_total_ns (a);
  g_autofree char *ms = g_strdup_printf ("%.2f", total_ns / 1e6);
  g_autofree char *pct = g_strdup_printf ("%.1f%%", all > 0 ? 100.0 * total_ns / all : 0.0);
  GtkWidget *ms_cell = cell (ms, TRUE, bold), *pct_cell = cell (pct, TRUE, bold);
  gtk_widget_set_size_request (ms_cell, 80, -1);
  gtk_widget_set_size_request (pct_cell, 56, -1);
  gtk_box_append (GTK_BOX (box), ms_cell);
  gtk_box_append (GTK_BOX (box), pct_cell);
  guint n_paths = rsp_analysis_n_paths (a);
  for (guint p = 0; p < MIN (n_paths, MAX_PATH_COLUMNS + 1); p++)
    {
      /* a row without a per-path split (wall time) keeps the columns aligned */
      g_autofree char *v = per_path != NULL ? g_strdup_printf ("%.2f", per_path[p] / 1e6) : g_strdup ("");
      GtkWidget *c = cell (v, TRUE, bold);
      gtk_widget_set_size_request (c, 72, -1);
      gtk_box_append (GTK_BOX (box), c);
    }
  return box;
}

static void
fill (RspAccountingPanel *self)
{
  const RspAnalysis *a = self->analysis;
  guint n_paths = rsp_analysis_n_paths (a);
  guint columns = MIN (n_paths, MAX_PATH_COLUMNS + 1);
  g_autofree guint64 *per_path = g_new0 (guint64, columns);

  /* header: paths beyond the first few are summed in the last column */
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *h = cell (_("Category"), FALSE, TRUE);
  gtk_widget_set_hexpand (h, TRUE);
  gtk_box_append (GTK_BOX (header), h);
  const char *titles[] = { _("ms"), "%" };
  for (guint i = 0; i < 2; i++)
    {
      GtkWidget *c = cell (titles[i], TRUE, TRUE);
      gtk_widget_set_size_request (c, i == 0 ? 80 : 56, -1);
      gtk_box_append (GTK_BOX (header), c);
    }
  for (guint p = 0; p < columns; p++)
    {
      g_autofree char *t = p < MAX_PATH_COLUMNS || n_paths == columns ? g_strdup_printf ("#%u", p)
                                                                        : g_strdup_printf (_("#%u…"), p);
      GtkWidget *c = cell (t, TRUE, TRUE);
      gtk_widget_set_size_request (c, 72, -1);
      gtk_box_append (GTK_BOX (header), c);
    }
  gtk_list_box_append (GTK_LIST_BOX (self->categories), header);

  gtk_list_box_append (GTK_LIST_BOX (self->categories), table_row (a, _("Wall time"), NULL, rsp_analysis_wall_ns (a), FALSE));
  for (guint p = 0; p < n_paths; p++)
    per_path[MIN (p, columns - 1)] += rsp_analysis_path (a, p)->total;
  gtk_list_box_append (GTK_LIST_BOX (self->categories), table_row (a, _("Total time"), per_path, rsp_analysis_total_ns (a), TRUE));
  for (guint c = 0; c < RSP_CAT_N; c++)
    {
      memset (per_path, 0, sizeof (guint64) * columns);
      for (guint p = 0; p < n_paths; p++)
        per_path[MIN (p, columns - 1)] += rsp_analysis_path (a, p)->category_ns[c];
      GtkWidget *row = table_row (a, _(rsp_category_label (c)), per_path, rsp_analysis_category_ns (a, c), FALSE);
      g_object_set_data (G_OBJECT (row), "category", GINT_TO_POINTER (c + 1));
      gtk_list_box_append (GTK_LIST_BOX (self->categories), row);
    }
  g_autofree char *pct = g_strdup_printf (_("Percent accounted: %.1f%%"), rsp_analysis_accounted_percent (a));
  if (rsp_analysis_total_ns (a) > rsp_analysis_wall_ns (a))
    {
      /* the table's total is not a mistake: lanes side by side each count */
      g_autofree char *both = g_strdup_printf ("%s  ·  %s", pct,
                                               _("total time above the wall time: threads and control paths that "
                                                 "ran side by side each count in full"));
      g_free (g_steal_pointer (&pct));
      pct = g_steal_pointer (&both);
    }
  GtkWidget *footer = cell (pct, FALSE, TRUE);
  gtk_list_box_append (GTK_LIST_BOX (self->categories), footer);

  const RspModel *m = rsp_analysis_model (a);
  guint64 total = rsp_analysis_total_ns (a);
  for (guint i = 0; i < MIN (rsp_analysis_n_findings (a), 20u); i++)
    {
      const RspFinding *f = rsp_analysis_finding (a, i);
      g_autoptr (GString) text = g_string_new (NULL);
      g_autofree char *sentence = rsp_finding_describe (m, f, RSP_DESCRIBE_LOCAL);
      g_string_append_printf (text, "%.1f%%  %s", total > 0 ? 100.0 * f->ns / total : 0.0, sentence);
      if (f->n_path > 1)
        {
          g_string_append (text, "\n    ");
          for (guint k = 0; k < f->n_path; k++)
            {
              const RspFindingStep *step = &f->path[k];
              const char *comm = rsp_model_task (m, step->task)->comm;
              g_string_append_printf (text, "%s%s", k > 0 ? " → " : "", comm != NULL ? comm : "?");
            }
        }
      GtkWidget *label = gtk_label_new (text->str);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      gtk_widget_set_margin_top (row, 4);
      gtk_widget_set_margin_bottom (row, 4);
      gtk_box_append (GTK_BOX (row), label);
      g_ptr_array_add (self->instance_labels, NULL);
      guint n;
      rsp_analysis_finding_stretches (a, i, &n);
      if (n > 1)
        gtk_box_append (GTK_BOX (row), instance_stepper (self, i, n));
      gtk_list_box_append (GTK_LIST_BOX (self->findings), row);
    }
}

/* The instance of finding F that the views show first: its longest. */
static guint
longest_instance (const RspAnalysis *a, guint f)
{
  guint n, best = 0;
  const guint32 *st = rsp_analysis_finding_stretches (a, f, &n);
  for (guint k = 1; k < n; k++)
    {
      const RspStretch *x = rsp_analysis_stretch (a, st[k]), *b = rsp_analysis_stretch (a, st[best]);
      if (x->end - x->start > b->end - b->start)
        best = k;
    }
  return best;
}

/* Empties the "k of n" of the finding selected until now. */
static void
clear_position (RspAccountingPanel *self)
{
  if (self->finding < 0 || (guint) self->finding >= self->instance_labels->len)
    return;
  GtkWidget *label = g_ptr_array_index (self->instance_labels, self->finding);
  if (label != NULL)
    gtk_label_set_text (GTK_LABEL (label), "");
}

static void
show_instance (RspAccountingPanel *self, guint finding, guint instance)
{
  guint n;
  rsp_analysis_finding_stretches (self->analysis, finding, &n);
  if (self->finding != (gint) finding)
    clear_position (self);
  self->finding = (gint) finding;
  self->instance = n > 0 ? instance % n : 0;
  GtkWidget *label = finding < self->instance_labels->len ? g_ptr_array_index (self->instance_labels, finding) : NULL;
  if (label != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("%u of %u"), self->instance + 1, n);
      gtk_label_set_text (GTK_LABEL (label), text);
    }
  GtkListBoxRow *row = gtk_list_box_get_row_at_index (GTK_LIST_BOX (self->findings), (int) finding);
  if (row != NULL && gtk_list_box_get_selected_row (GTK_LIST_BOX (self->findings)) != row)
    gtk_list_box_select_row (GTK_LIST_BOX (self->findings), row);
  /* a finding, not a category, is selected now */
  gtk_list_box_unselect_all (GTK_LIST_BOX (self->categories));
  g_signal_emit (self, signals[SIGNAL_FINDING_SELECTED], 0, finding, self->instance);
}

void
rsp_accounting_panel_step (RspAccountingPanel *self, gint delta)
{
  g_return_if_fail (RSP_IS_ACCOUNTING_PANEL (self));
  if (rsp_analysis_n_findings (self->analysis) == 0)
    return;
  if (self->finding < 0)
    {
      show_instance (self, 0, longest_instance (self->analysis, 0));
      return;
    }
  guint n;
  rsp_analysis_finding_stretches (self->analysis, (guint) self->finding, &n);
  if (n == 0)
    return;
  show_instance (self, (guint) self->finding, (guint) (((gint64) self->instance + delta % (gint) n + n) % n));
}

static void
on_step_clicked (GtkButton *button, RspAccountingPanel *self)
{
  guint finding = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "finding"));
  gint delta = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "delta"));
  if (self->finding != (gint) finding)
    show_instance (self, finding, longest_instance (self->analysis, finding));
  else
    rsp_accounting_panel_step (self, delta);
}

static GtkWidget *
step_button (RspAccountingPanel *self, guint finding, gint delta)
{
  GtkWidget *button = gtk_button_new_from_icon_name (delta < 0 ? "go-previous-symbolic" : "go-next-symbolic");
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_tooltip_text (button, delta < 0 ? _("Previous time it happened ([)") : _("Next time it happened (])"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  delta < 0 ? _("Previous instance") : _("Next instance"), -1);
  g_object_set_data (G_OBJECT (button), "finding", GUINT_TO_POINTER (finding));
  g_object_set_data (G_OBJECT (button), "delta", GINT_TO_POINTER (delta));
  g_signal_connect (button, "clicked", G_CALLBACK (on_step_clicked), self);
  return button;
}

/* "N times:  ◀ k of N ▶" under a finding that happened more than once. */
static GtkWidget *
instance_stepper (RspAccountingPanel *self, guint finding, guint n)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  g_autofree char *times = g_strdup_printf (ngettext ("%u time", "%u times", n), n);
  GtkWidget *count = gtk_label_new (times);
  gtk_widget_add_css_class (count, "dim-label");
  gtk_widget_set_hexpand (count, TRUE);
  gtk_label_set_xalign (GTK_LABEL (count), 0);
  GtkWidget *position = gtk_label_new ("");
  gtk_widget_add_css_class (position, "numeric");
  g_ptr_array_index (self->instance_labels, finding) = position;
  gtk_box_append (GTK_BOX (box), count);
  gtk_box_append (GTK_BOX (box), step_button (self, finding, -1));
  gtk_box_append (GTK_BOX (box), position);
  gtk_box_append (GTK_BOX (box), step_button (self, finding, +1));
  return box;
}

static void
on_category_row (GtkListBox *box, GtkListBoxRow *row, RspAccountingPanel *self)
{
  gint category = -1;
  if (row != NULL)
    {
      GtkWidget *child = gtk_list_box_row_get_child (row);
      category = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (child), "category")) - 1;
      /* a category, not a finding, is selected now */
      if (self->finding >= 0)
        {
          clear_position (self);
          self->finding = -1;
          gtk_list_box_unselect_all (GTK_LIST_BOX (self->findings));
        }
    }
  g_signal_emit (self, signals[SIGNAL_CATEGORY_SELECTED], 0, category);
}

/* Every click, also on the finding already selected: show it (again). */
static void
on_finding_row (GtkListBox *box, GtkListBoxRow *row, RspAccountingPanel *self)
{
  guint finding = (guint) gtk_list_box_row_get_index (row);
  show_instance (self, finding,
                 self->finding == (gint) finding ? self->instance : longest_instance (self->analysis, finding));
}

static void
rsp_accounting_panel_finalize (GObject *object)
{
  RspAccountingPanel *self = RSP_ACCOUNTING_PANEL (object);
  g_ptr_array_unref (self->instance_labels);
  G_OBJECT_CLASS (rsp_accounting_panel_parent_class)->finalize (object);
}

static void
rsp_accounting_panel_class_init (RspAccountingPanelClass *klass)
{
  signals[SIGNAL_CATEGORY_SELECTED] = g_signal_new ("category-selected", G_TYPE_FROM_CLASS (klass),
                                                    G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
  signals[SIGNAL_FINDING_SELECTED] = g_signal_new ("finding-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                   0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);
  G_OBJECT_CLASS (klass)->finalize = rsp_accounting_panel_finalize;
}

static GtkWidget *
section (const char *title, GtkWidget *list)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *label = gtk_label_new (title);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "heading");
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), list);
  return box;
}

static void
rsp_accounting_panel_init (RspAccountingPanel *self)
{
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 12);
  gtk_widget_set_margin_start (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (self), 12);
  self->categories = gtk_list_box_new ();
  gtk_widget_add_css_class (self->categories, "boxed-list");
  g_signal_connect (self->categories, "row-selected", G_CALLBACK (on_category_row), self);
  self->findings = gtk_list_box_new ();
  gtk_widget_add_css_class (self->findings, "boxed-list");
  g_signal_connect (self->findings, "row-activated", G_CALLBACK (on_finding_row), self);
  self->instance_labels = g_ptr_array_new ();
  self->finding = -1;
  gtk_box_append (GTK_BOX (self), section (_("Where the time went"), self->categories));
  gtk_box_append (GTK_BOX (self), section (_("Why it took so long"), self->findings));
}

GtkWidget *
rsp_accounting_panel_new (const RspAnalysis *analysis)
{
  RspAccountingPanel *self = g_object_new (RSP_TYPE_ACCOUNTING_PANEL, NULL);
  self->analysis = analysis;
  fill (self);
  return GTK_WIDGET (self);
}
