/* rsp-accounting-panel.h — the accounting table (the paper's categories, ms
 * and percent, total and per control path, percent accounted) and the
 * ranked findings, beside the flame views.
 *
 * Signals: "category-selected" (gint category, -1 for none) when a row of
 * the table is chosen; "finding-selected" (guint finding, guint instance)
 * when a finding is clicked (again: it is shown again) or stepped to
 * another of its instances (rsp_analysis_finding_stretches: instance K is
 * its K-th stretch in time order).  A click on a finding starts at its
 * longest instance.  Choosing a category clears the finding's selection
 * and the other way round. */
#pragma once

#include <gtk/gtk.h>

#include "rsp-analysis.h"

G_BEGIN_DECLS

#define RSP_TYPE_ACCOUNTING_PANEL (rsp_accounting_panel_get_type ())
G_DECLARE_FINAL_TYPE (RspAccountingPanel, rsp_accounting_panel, RSP, ACCOUNTING_PANEL, GtkBox)

GtkWidget *rsp_accounting_panel_new (const RspAnalysis *analysis);
/* Steps the selected finding (the first one when none is) DELTA instances
 * on, wrapping around; emits "finding-selected". */
void rsp_accounting_panel_step (RspAccountingPanel *self, gint delta);

G_END_DECLS
