/* rsp-report.h — the report of an analysis: text in the paper's layout and
 * the JSON of "rsp report --json" (docs/REPORT-JSON.md). */
#pragma once

#include "rsp-analysis.h"

G_BEGIN_DECLS

#define RSP_REPORT_MAX_FINDINGS 10

char *rsp_report_text (const RspAnalysis *analysis, const char *path);
char *rsp_report_json (const RspAnalysis *analysis, const char *path);

G_END_DECLS
