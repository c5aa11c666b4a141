#pragma once

#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace rw {

// Lateness of a dataset's events: ingest_time - event_time, from the
// dataset's source (or transform), over every partition or a range.
//
// One pass in the engine: the rewind_lateness() aggregate counts rows per
// distinct (partition, lateness in milliseconds) in a hash map, without
// sorting rows; percentiles, histogram and suggestion come from walking those
// counts. Rows whose event or ingest time is NULL or cannot be parsed are
// counted apart ("unparseable") and take no part in percentiles or fractions.
//
// Threading: runs on the calling thread with that thread's connection.

struct LatenessOptions {
    std::optional<QString> from; // inclusive; with `to`, as for run --from/--to
    std::optional<QString> to;
    int buckets = 16; // log-scaled buckets for lateness >= 0
    // Allowed latenesses to answer "how many events would be late" for, in
    // seconds (the console's watermark slider): LatenessReport::whatIf and
    // PartitionLateness::whatIfLate, exact, from the same pass.
    std::vector<qint64> whatIfSeconds;
};

// Nearest-rank percentiles in milliseconds: the smallest value with at least
// p% of values at or below it. Empty when there is no value.
struct LatenessPercentiles {
    std::optional<qint64> p50, p90, p99, p999, max, min;
};

struct LatenessBucket {
    QString kind;               // negative, lateness, unparseable
    std::optional<qint64> loMs; // inclusive
    std::optional<qint64> hiMs; // exclusive
    qint64 count = 0;
};

// The share of events a candidate allowed lateness would keep on time: the
// what-if table behind the suggestion.
struct LatenessCandidate {
    qint64 seconds = 0;
    qint64 late = 0; // events later than `seconds`
    double lateFraction = 0;
};

struct PartitionLateness {
    std::optional<QString> partition; // as text; nullopt for NULL / unpartitioned
    qint64 count = 0;
    qint64 negative = 0;
    qint64 unparseable = 0;
    qint64 late = 0; // later than allowed_lateness
    LatenessPercentiles percentiles;
    std::vector<qint64> histogram;  // counts aligned with LatenessReport::histogram
    std::vector<qint64> whatIfLate; // events later than each LatenessOptions::whatIfSeconds
};

struct LatenessReport {
    QString dataset;
    qint64 rows = 0;        // rows scanned: count + unparseable
    qint64 count = 0;       // rows with both timestamps parsed
    qint64 negative = 0;    // of count, ingest before event (clock skew)
    qint64 unparseable = 0; // rows with a NULL or unparseable timestamp
    qint64 missing = 0;     // of unparseable, rows with a NULL timestamp
    LatenessPercentiles percentiles;
    std::vector<LatenessBucket> histogram; // negative, then lateness buckets, then unparseable
    std::optional<qint64> allowedLatenessSeconds;
    qint64 late = 0;
    std::optional<double> lateFraction; // late / count; empty without allowed_lateness or values
    std::vector<LatenessCandidate> candidates;
    std::vector<LatenessCandidate> whatIf; // one per LatenessOptions::whatIfSeconds, in its order
    std::optional<LatenessCandidate> suggestion; // smallest candidate keeping >= 99% on time
    std::vector<PartitionLateness> partitions;   // sorted as partitions are
};

// The round durations a suggestion picks from: 1m ... 7d.
const std::vector<qint64> &latenessCandidatesSeconds();

// BadInput when the dataset has no event_time or ingest_time, the range is
// bad, or buckets is out of 1..200.
Result<LatenessReport> lateness(const Database &db, const DatasetSpec &dataset,
                                const LatenessOptions &options);

// The contract's `lag` JSON, plus the extra fields documented in docs/cli.md.
nlohmann::ordered_json toJson(const LatenessReport &report);

// Milliseconds as JSON seconds: an integer when whole.
nlohmann::ordered_json secondsJson(qint64 ms);

} // namespace rw
