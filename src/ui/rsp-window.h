/* rsp-window.h — the main window: header bar, the load of a recording off
 * the main loop (progress, Cancel), and the views of the loaded model. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RSP_TYPE_WINDOW (rsp_window_get_type ())
G_DECLARE_FINAL_TYPE (RspWindow, rsp_window, RSP, WINDOW, GtkApplicationWindow)

RspWindow *rsp_window_new (GtkApplication *app);
/* Loads FILE in a worker thread; the window shows progress and can cancel. */
void rsp_window_open (RspWindow *self, GFile *file);

/* Starts loading PATH on a thread of its own before any window exists
 * (main(), for the file named on the command line): the first window that
 * opens the same path takes the load over. */
void rsp_window_preload (const char *path);
/* Cancels and frees a preload no window took. */
void rsp_window_preload_discard (void);

G_END_DECLS
