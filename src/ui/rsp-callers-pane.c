/* rsp-callers-pane.c — see rsp-callers-pane.h.  Layout and input only. */
#include "rsp-callers-pane.h"

#include <glib/gi18n.h>

#include "rsp-time-axis.h"

#define MAX_ROWS 200 /* per list; the rest are summed in one row */

struct _RspCallersPane {
  GtkBox parent_instance;
  GtkWidget *title;
  GtkWidget *callers;
  GtkWidget *callees;
};

enum {
  SIGNAL_NAME_ACTIVATED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (RspCallersPane, rsp_callers_pane, GTK_TYPE_BOX)

static GtkWidget *
cell (const char *text, gboolean numeric)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0 : 0.0);
  if (numeric)
    {
      gtk_widget_add_css_class (label, "numeric");
      gtk_widget_set_size_request (label, 64, -1);
    }
  else
    {
      gtk_widget_set_hexpand (label, TRUE);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
    }
  return label;
}

static GtkWidget *
row (const char *name, guint64 ns, guint64 of_ns)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  g_autofree char *dur = rsp_format_duration (ns);
  g_autofree char *pct = g_strdup_printf ("%.1f%%", of_ns > 0 ? 100.0 * ns / of_ns : 0.0);
  GtkWidget *label = cell (name, FALSE);
  gtk_widget_set_tooltip_text (label, name);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), cell (dur, TRUE));
  gtk_box_append (GTK_BOX (box), cell (pct, TRUE));
  GtkWidget *r = gtk_list_box_row_new ();
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (r), box);
  g_object_set_data_full (G_OBJECT (r), "name", g_strdup (name), g_free);
  g_autofree char *a11y = g_strdup_printf ("%s, %s, %s", name, dur, pct);
  gtk_accessible_update_property (GTK_ACCESSIBLE (r), GTK_ACCESSIBLE_PROPERTY_LABEL, a11y, -1);
  return r;
}

static void
fill (GtkWidget *list, const GArray *calls, guint64 of_ns, const char *none)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (list), child);
  if (calls == NULL)
    return;
  if (calls->len == 0)
    {
      GtkWidget *r = gtk_list_box_row_new ();
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (r), cell (none, FALSE));
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (r), FALSE);
      gtk_widget_add_css_class (r, "dim-label");
      gtk_list_box_append (GTK_LIST_BOX (list), r);
      return;
    }
  guint64 rest = 0;
  for (guint k = 0; k < calls->len; k++)
    {
      const RspCallTotal *c = &g_array_index (calls, RspCallTotal, k);
      if (k < MAX_ROWS)
        gtk_list_box_append (GTK_LIST_BOX (list), row (c->name, c->ns, of_ns));
      else
        rest += c->ns;
    }
  if (calls->len > MAX_ROWS)
    {
      g_autofree char *text = g_strdup_printf (ngettext ("%u more", "%u more", calls->len - MAX_ROWS),
                                               calls->len - MAX_ROWS);
      GtkWidget *r = row (text, rest, of_ns);
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (r), FALSE);
      gtk_list_box_append (GTK_LIST_BOX (list), r);
    }
}

void
rsp_callers_pane_show (RspCallersPane *self, const RspCallers *c)
{
  g_return_if_fail (RSP_IS_CALLERS_PANE (self));
  if (c == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->title), "");
      fill (self->callers, NULL, 0, NULL);
      fill (self->callees, NULL, 0, NULL);
      return;
    }
  g_autofree char *total = rsp_format_duration (c->total_ns);
  g_autofree char *own = rsp_format_duration (c->self_ns);
  g_autofree char *name = g_markup_escape_text (c->name, -1);
  /* TRANSLATORS: a frame's name, its total time and percent, its own time and percent */
  g_autofree char *title = g_strdup_printf (_("<b>%s</b>: %s in all (%.1f%%), %s itself (%.1f%%)"), name, total,
                                            c->all_ns > 0 ? 100.0 * c->total_ns / c->all_ns : 0.0, own,
                                            c->all_ns > 0 ? 100.0 * c->self_ns / c->all_ns : 0.0);
  gtk_label_set_markup (GTK_LABEL (self->title), title);
  /* percentages of the frame's time: how it splits between callers and callees */
  fill (self->callers, c->callers, c->total_ns, _("No caller: it is at the bottom of its stacks"));
  fill (self->callees, c->callees, c->total_ns, _("Calls nothing: all its time is its own"));
}

static void
on_row_activated (GtkListBox *list, GtkListBoxRow *r, RspCallersPane *self)
{
  const char *name = g_object_get_data (G_OBJECT (r), "name");
  if (name != NULL)
    g_signal_emit (self, signals[SIGNAL_NAME_ACTIVATED], 0, name);
}

static GtkWidget *
column (RspCallersPane *self, const char *heading, GtkWidget **list)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *label = gtk_label_new (heading);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_set_margin_start (label, 6);
  *list = gtk_list_box_new ();
  gtk_list_box_set_activate_on_single_click (GTK_LIST_BOX (*list), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (*list), GTK_ACCESSIBLE_PROPERTY_LABEL, heading, -1);
  g_signal_connect (*list, "row-activated", G_CALLBACK (on_row_activated), self);
  GtkWidget *scroll = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), *list);
  gtk_widget_set_vexpand (scroll, TRUE);
  gtk_widget_set_hexpand (scroll, TRUE);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), scroll);
  return box;
}

static void
rsp_callers_pane_class_init (RspCallersPaneClass *klass)
{
  signals[SIGNAL_NAME_ACTIVATED] = g_signal_new ("name-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                                 NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
rsp_callers_pane_init (RspCallersPane *self)
{
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 4);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_start (header, 6);
  gtk_widget_set_margin_top (header, 4);
  self->title = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->title), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->title), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_hexpand (self->title, TRUE);
  gtk_box_append (GTK_BOX (header), self->title);
  GtkWidget *columns = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_box_set_homogeneous (GTK_BOX (columns), TRUE);
  gtk_box_append (GTK_BOX (columns), column (self, _("Callers"), &self->callers));
  gtk_box_append (GTK_BOX (columns), column (self, _("Callees"), &self->callees));
  gtk_widget_set_vexpand (columns, TRUE);
  gtk_box_append (GTK_BOX (self), header);
  gtk_box_append (GTK_BOX (self), columns);
}

GtkWidget *
rsp_callers_pane_new (void)
{
  return g_object_new (RSP_TYPE_CALLERS_PANE, NULL);
}
