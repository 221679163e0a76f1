/* rsp-accounting-panel.h — the accounting table (the paper's categories, ms
 * and percent, total and per control path, percent accounted) and the
 * ranked findings, beside the flame views.
 *
 * Signals: "category-selected" (gint category, -1 for none) when a row of
 * the table is chosen; "finding-selected" (guint index) for a finding. */
#pragma once

#include <gtk/gtk.h>

#include "rsp-analysis.h"

G_BEGIN_DECLS

#define RSP_TYPE_ACCOUNTING_PANEL (rsp_accounting_panel_get_type ())
G_DECLARE_FINAL_TYPE (RspAccountingPanel, rsp_accounting_panel, RSP, ACCOUNTING_PANEL, GtkBox)

GtkWidget *rsp_accounting_panel_new (const RspAnalysis *analysis);

G_END_DECLS
