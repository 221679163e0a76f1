/* rsp-requests-page.h — the requests view: the latency histogram of the
 * requests of a recording (rsp-requests.h) with selectable bars, the
 * requests of the selected bars in a list, and the consolidated flame of
 * the selected requests, or their differential flame against the others.
 * Until bars are selected, the selection is the slow tail.
 *
 * Mouse: a click on a bar selects it, Shift+click or a drag selects a run
 * of bars.  Keys (rsp_requests_page_handle_key): Left/Right move the
 * selection a bar, Shift+Left/Right widen it, Escape goes back to the slow
 * tail.  Activating a request in the list emits "request-activated"
 * (guint index into rsp_requests_get), for its own flame views. */
#pragma once

#include <gtk/gtk.h>

#include "rsp-requests.h"

G_BEGIN_DECLS

#define RSP_TYPE_REQUESTS_PAGE (rsp_requests_page_get_type ())
G_DECLARE_FINAL_TYPE (RspRequestsPage, rsp_requests_page, RSP, REQUESTS_PAGE, GtkBox)

/* Takes REQUESTS, which must keep its analyses (rsp_requests_new_full). */
GtkWidget *rsp_requests_page_new (RspRequests *requests);
const RspRequests *rsp_requests_page_get_requests (RspRequestsPage *self);
/* Selects bins FIRST..LAST (inclusive), or the slow tail with FIRST < 0. */
void rsp_requests_page_select_bins (RspRequestsPage *self, gint first, gint last);
gboolean rsp_requests_page_handle_key (RspRequestsPage *self, guint keyval, GdkModifierType state);
/* The histogram, or the flame shown, to a PNG, SVG or PDF file. */
gboolean rsp_requests_page_export (RspRequestsPage *self, const char *path, GError **error);

G_END_DECLS
