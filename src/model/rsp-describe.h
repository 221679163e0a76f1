/* rsp-describe.h — the plain-words sentence of a finding, composed where it
 * is shown: the analysis keeps findings as data (category, task, frame,
 * file, endpoint, nanoseconds) and the CLI, the JSON report and the GUI ask
 * for the sentence here.
 *
 * RSP_DESCRIBE_LOCAL speaks the user's language and writes numbers the
 * locale's way (the text report, the GUI); RSP_DESCRIBE_PLAIN is English
 * with a decimal point whatever the locale (the JSON report, for scripts),
 * without touching the process's locale.
 */
#pragma once

#include "rsp-analysis.h"

G_BEGIN_DECLS

typedef enum {
  RSP_DESCRIBE_LOCAL,
  RSP_DESCRIBE_PLAIN,
} RspDescribeMode;

char *rsp_finding_describe (const RspModel *model, const RspFinding *finding, RspDescribeMode mode);

G_END_DECLS
