/* rsp-record-dialog.h — the Record… dialog (see rsp-record-dialog.c).
 * Emits "recorded" (GFile *file) when a recording was written. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RSP_TYPE_RECORD_DIALOG (rsp_record_dialog_get_type ())
G_DECLARE_FINAL_TYPE (RspRecordDialog, rsp_record_dialog, RSP, RECORD_DIALOG, GtkWindow)

RspRecordDialog *rsp_record_dialog_new (GtkWindow *parent);

G_END_DECLS
