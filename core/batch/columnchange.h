#pragma once

#include <QJsonValue>
#include <QString>
#include <QVariant>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace rw {

// What a preview's write would do to one column of one partition (or of
// them all): the per-column change summary. Counted in the diff's own join
// of staged rows and target rows (BatchSql::diffCountsWithColumns), with
// the target's figures before the write from one read of its partitions
// (BatchSql::targetColumnStats).
enum class ColumnKind {
    Number,  // sums, minima, maxima, the size of each change
    Time,    // a date or timestamp: as Other, and the most common shift
    Other,   // text and the rest: counts of changes and of NULLs, value pairs
    Skipped, // cannot be compared (a BLOB): named, no figures
};
ColumnKind columnKindOf(const QString &declaredType);

// One before -> after pair of a column's changed values (as text, none for
// NULL) and the changed rows holding it.
struct ValuePair {
    std::optional<QString> before, after;
    qint64 rows = 0;
};

// What the figures of a column's changes cannot sum over partitions (the
// most common pairs and shift, example keys: read for each partition of a
// preview, up to kDetailedPartitions with changes, and for all of them
// together; distinct values, per partition only).
struct ColumnDetail {
    // Time and Other columns a change touches: the partition's distinct
    // values before and after the write (NULL no value; per partition only,
    // none in the totals of several).
    std::optional<qint64> distinctBefore, distinctAfter;
    std::vector<ValuePair> pairs; // Time and Other: the five most common
    // Time: the most common shift (after - before, seconds) and its rows.
    std::optional<double> shift;
    qint64 shiftRows = 0;
    // Up to three changed rows' keys, each (column, value) in key order.
    std::vector<std::vector<std::pair<QString, QJsonValue>>> examples;
};

struct ColumnChange {
    QString column;
    QString type; // the target's, as declared
    ColumnKind kind = ColumnKind::Other;
    qint64 matched = 0;         // staged rows whose key the target holds
    qint64 changed = 0;         // of those, the rows whose value differs (NULL-safe)
    qint64 onlyThisChanged = 0; // changed rows in which no other column changed
    qint64 fromNull = 0;        // changed from NULL to a value
    qint64 toNull = 0;          // changed from a value to NULL
    qint64 nullsBefore = 0;     // in the target's rows of the partition
    qint64 nullsAfter = 0;      // in its rows after the write
    // Numbers (NULLs left out, as SUM does).
    std::optional<double> sumBefore, sumAfter, minBefore, minAfter, maxBefore, maxAfter;
    double sumInserted = 0; // the change in the sum: rows added,
    double sumDeleted = 0;  // rows removed (an overwrite's unmatched target rows),
    double sumUpdated = 0;  // and changed values (a NULL counted as 0)
    qint64 increases = 0, decreases = 0;
    std::optional<double> largestChange; // the largest |after - before| of a changed value
    // Every change (before and after non-NULL) the one ratio after / before,
    // or the one offset after - before: the extremes of each over the
    // changes, equal when there is one.
    std::optional<double> ratioMin, ratioMax, offsetMin, offsetMax;
    qint64 ratioUndefined = 0; // changes with a NULL or a zero before: no ratio
    ColumnDetail detail;

    std::optional<double> ratio() const;
    std::optional<double> offset() const;
    double changedPct() const {
        return matched > 0 ? 100.0 * double(changed) / double(matched) : 0;
    }
    // Adds another partition's figures of the same column (totals); the
    // detail, which does not add up, is cleared.
    void add(const ColumnChange &other);
};

// The sum of each column's figures over `parts` (one list per partition,
// columns in the same order), with `details` (of all partitions, read
// together) where given.
std::vector<ColumnChange> totalColumns(const std::vector<std::vector<ColumnChange>> &parts,
                                       const std::vector<ColumnDetail> &details = {});

// A preview reads each partition's detail up to this many partitions with
// changes (their JSON stays bounded); beyond it, the totals' only.
constexpr std::size_t kDetailedPartitions = 100;

// A figure of the summary as people read it: whole numbers grouped
// (2,538,221), others to twelve significant digits (a REAL column's sum
// without its float dust); "-" for none.
QString figureText(const std::optional<double> &value);

// The shape of a column's change in a few words, for tables: every change
// one ratio ("x0.5") or one offset ("+3"), else the most common shift of a
// time ("+3600 s on 9,500 rows") or before -> after pair of other values
// ("EU -> EMEA on 9,500 rows", NULL as NULL); empty when nothing says more.
QString changeShape(const ColumnChange &change);

// The columns that change, in a line: "amount 9,500 (x0.5), region 120 (EU
// -> EMEA on 100 rows)", or that no value changes.
QString columnsInBrief(const std::vector<ColumnChange> &columns);

nlohmann::ordered_json columnsJson(const std::vector<ColumnChange> &columns);
std::vector<ColumnChange> columnsFromJson(const nlohmann::ordered_json &json);

} // namespace rw
