/* rsp-report-private.h — what the reports of one analysis (rsp-report.c)
 * and of many requests (rsp-requests-report.c) share: units and the JSON
 * members in one style. */
#pragma once

#include "rsp-model.h"

#include "rsp-json.h"

static inline gdouble
ms (guint64 ns)
{
  return ns / 1e6;
}

/* Milliseconds from the recording's start. */
static inline gdouble
rel_ms (const RspModel *m, guint64 t)
{
  guint64 origin = rsp_model_start_time (m);
  return t > origin ? (t - origin) / 1e6 : 0.0;
}

static inline const char *
task_comm (const RspTask *t)
{
  return t != NULL && t->comm != NULL ? t->comm : "?";
}

/* A number with three decimals (stable output for scripts and tests). */
void rsp_json_member_double (RspJsonWriter *b, const char *name, gdouble v);
void rsp_json_member_int (RspJsonWriter *b, const char *name, gint64 v);
/* A string, or null. */
void rsp_json_member_string (RspJsonWriter *b, const char *name, const char *v);
/* Opens an object with the task's pid, tid and comm (and FRAME when
 * WITH_FRAME); the caller adds members and closes it. */
void rsp_json_add_task (RspJsonWriter *b, const RspTask *t, const char *frame, gboolean with_frame);
/* The finished object as pretty-printed text (g_free it). */
char *rsp_json_to_text (RspJsonWriter *b);
/* The "recording" member: path, duration, events, losses, anomalies, command. */
void rsp_json_add_recording (RspJsonWriter *b, const RspModel *m, const char *path);
