#pragma once

#include "core/batch/runs.h"

namespace rw {

// A run report for people, in Markdown: what was run (dataset, mode, plan,
// scope), by whom and when, the per-partition counts and totals, and every
// gate with its detail. `info` gives the who and where; `result` the counts.
QString runReportMarkdown(const RunInfo &info, const RunResult &result);

} // namespace rw
