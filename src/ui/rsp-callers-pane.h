/* rsp-callers-pane.h — who called the selected frame and what it called,
 * with totals, as Sysprof's and Hotspot's callers/callees tables: two
 * lists under the flame views.  The numbers are rsp_call_graph_callers'. */
#pragma once

#include <gtk/gtk.h>

#include "rsp-consolidated-view.h"

G_BEGIN_DECLS

#define RSP_TYPE_CALLERS_PANE (rsp_callers_pane_get_type ())
G_DECLARE_FINAL_TYPE (RspCallersPane, rsp_callers_pane, RSP, CALLERS_PANE, GtkBox)

/* Emits "name-activated" (const char *name) when a caller or callee row is
 * activated. */
GtkWidget *rsp_callers_pane_new (void);
/* Shows CALLERS (copied from; NULL empties the pane). */
void rsp_callers_pane_show (RspCallersPane *self, const RspCallers *callers);

G_END_DECLS
