/* rsp-application.h — the GtkApplication: actions, shortcuts, windows. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RSP_APPLICATION_ID "io.github.rsp.Profiler"
#define RSP_TYPE_APPLICATION (rsp_application_get_type ())
G_DECLARE_FINAL_TYPE (RspApplication, rsp_application, RSP, APPLICATION, GtkApplication)

RspApplication *rsp_application_new (void);

G_END_DECLS
