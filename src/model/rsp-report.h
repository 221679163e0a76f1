/* rsp-report.h — the report of an analysis: text in the paper's layout and
 * the JSON of "rsp report --json" (docs/REPORT-JSON.md). */
#pragma once

#include "rsp-analysis.h"

G_BEGIN_DECLS

#define RSP_REPORT_MAX_FINDINGS 10

char *rsp_report_text (const RspAnalysis *analysis, const char *path);
char *rsp_report_json (const RspAnalysis *analysis, const char *path);
/* The accounting table and the findings as CSV (RFC 4180, numbers with a
 * '.' whatever the locale), for spreadsheets: the table (one row per
 * category, with its id, its label in the local language, ms, percent,
 * inferred ms and ms per control path), an empty line, the findings (rank,
 * category, ms, percent, instances, the longest instance, task, frame,
 * file, endpoint, the sentence in the local language). */
char *rsp_report_csv (const RspAnalysis *analysis);

G_END_DECLS
