/* rsp-views.h — the views of one loaded recording: the process running
 * view (timeline) as the first tab, and one tab per process whose flame
 * views were opened (clicking a task name), each with the accounting table
 * and the findings beside the flame views. */
#pragma once

#include <gtk/gtk.h>

#include "rsp-model.h"

G_BEGIN_DECLS

#define RSP_TYPE_VIEWS (rsp_views_get_type ())
G_DECLARE_FINAL_TYPE (RspViews, rsp_views, RSP, VIEWS, GtkBox)

RspViews *rsp_views_new (void);
/* Shows MODEL (which must outlive the views or be replaced first). */
void rsp_views_set_model (RspViews *self, const RspModel *model, const char *title);
/* Opens (or focuses) the flame views of process PID; the analysis runs in a
 * worker thread and the tab appears when it is ready. */
void rsp_views_open_process (RspViews *self, gint32 pid);
/* Opens the requests view of SPEC ("runs", "tcp:PORT", "probe:FUNCTION",
 * rsp-requests.h): computed in a worker thread, shown in the second tab
 * when ready, or an error dialog naming why there are none.  A recording
 * of rsp record --repeat opens on it ("runs"). */
void rsp_views_open_requests (RspViews *self, const char *spec);
/* Compares this recording (NAME) with OTHER (OTHER_NAME): the process of
 * the tab shown, or the process of interest, against the process of
 * OTHER that matches it (rsp_diff_match_process) — a tab with the
 * differential flame, both accounting tables side by side and what changed
 * most; or an error dialog when OTHER has no such process. */
void rsp_views_compare (RspViews *self, const RspModel *other, const char *name, const char *other_name);
/* Exports the visible view to PATH (.png, .svg or .pdf), or, in a process
 * tab, its accounting table and findings (.csv, rsp_report_csv). */
/* In a process tab: steps through the instances of the selected finding
 * (rsp_accounting_panel_step); elsewhere nothing. */
void rsp_views_step_finding (RspViews *self, gint delta);
/* Closes the process tab shown (Ctrl+W); FALSE on the timeline, which stays. */
gboolean rsp_views_close_current (RspViews *self);
/* Puts the keyboard in the current tab's search entry (Ctrl+F). */
void rsp_views_focus_search (RspViews *self);
gboolean rsp_views_export (RspViews *self, const char *path, GError **error);

G_END_DECLS
