/* rsp-report.h — the report of an analysis: text in the paper's layout and
 * the JSON of "rsp report --json" (docs/REPORT-JSON.md). */
#pragma once

#include "rsp-analysis.h"
#include "rsp-describe.h"
#include "rsp-diff.h"
#include "rsp-requests.h"

G_BEGIN_DECLS

#define RSP_REPORT_MAX_FINDINGS 10

char *rsp_report_text (const RspAnalysis *analysis, const char *path);
char *rsp_report_json (const RspAnalysis *analysis, const char *path);
/* rsp report --files: the time waited for the disk per file, most first
 * (rsp_analysis_file_totals), and how much of it has its file named. */
char *rsp_report_files_text (const RspAnalysis *analysis);
/* The accounting table and the findings as CSV (RFC 4180, numbers with a
 * '.' whatever the locale), for spreadsheets: the table (one row per
 * category, with its id, its label in the local language, ms, percent,
 * inferred ms and ms per control path), an empty line, the findings (rank,
 * category, ms, percent, instances, the longest instance, task, frame,
 * file, endpoint, the sentence in the local language). */
char *rsp_report_csv (const RspAnalysis *analysis);

/* The report of many requests (rsp report --requests): the distribution,
 * the histogram, the slow tail against the others and its causes, each
 * request's accounting (docs/REQUESTS.md). */
char *rsp_requests_report_text (const RspRequests *requests, const char *path);
char *rsp_requests_report_json (const RspRequests *requests, const char *path);
/* The requests as a table (the viewer's CSV export): number, start and
 * duration in ms, slow or not, and the ms of each category by its id. */
char *rsp_requests_report_csv (const RspRequests *requests);
/* A cause's sentence: the finding sentence for the slow requests' mean
 * time, and how the others compare. */
/* What one request is, in words ("each run of the command"), how the slow
 * tail was chosen ("the slow mode of the histogram"; "" for none), and the
 * category that took most of a request: the text report's, for the viewer. */
const char *rsp_requests_kind_label (const RspRequests *requests);
const char *rsp_requests_split_label (RspSlowSplit split);
RspCategory rsp_request_top_category (const RspRequest *request);
char *rsp_requests_cause_describe (const RspRequests *requests, const RspRequestCause *cause, RspDescribeMode mode);

/* The report of two recordings compared (rsp diff A B): both accountings
 * side by side with their deltas, the changes ranked; --json for scripts. */
char *rsp_diff_report_text (const RspDiff *diff, const char *path_a, const char *path_b);
char *rsp_diff_report_json (const RspDiff *diff, const char *path_a, const char *path_b);
/* A change's sentence: the finding sentence where it is larger, and its
 * time in the other recording. */
char *rsp_diff_change_describe (const RspDiff *diff, const RspDiffChange *change, RspDescribeMode mode);

G_END_DECLS
