#include "core/batch/batchdiff.h"

#include "core/batch/batchchecks.h"
#include "core/batch/batchdialect.h"
#include "core/batch/batchsql.h"
#include "core/batch/columnsummary.h"
#include "core/batch/partitions.h"
#include "core/batch/scd2.h"
#include "core/util/failpoint.h"

#include <QJsonObject>
#include <QSqlRecord>
#include <algorithm>

namespace rw {

QJsonObject recordToJson(const SqlDialect &dialect, const QSqlRecord &record, int offset,
                         int count) {
    QJsonObject o;
    for (int i = 0; i < count; ++i)
        o.insert(record.fieldName(offset + i), dialect.jsonValue(record.field(offset + i)));
    return o;
}

Result<std::vector<QJsonObject>> sampleRows(const Database &db, const QString &sql,
                                            QVariantList binds, int limit, int width) {
    binds << limit;
    auto q = db.exec(sql, binds);
    if (!q)
        return fail(q.error());
    std::vector<QJsonObject> out;
    while (q->next())
        out.push_back(recordToJson(db.dialect(), q->record(), 0, width));
    return out;
}

namespace {

// Partitions a preview or run keeps sample rows for: a scope of thousands of
// partitions gets them for the first ones with changes (then unchanged
// ones), so that their reading and the result stay bounded.
constexpr std::size_t kSamplePartitions = 100;

// Sample rows of each diff category, one statement a category over the
// sampled partitions with rows in it (the empty ones would scan their
// partition to find nothing).
Status takeSamples(const Database &db, const BatchSql &sql, const std::vector<PartitionRef> &scope,
                   int limit, std::vector<PartitionResult> &results) {
    std::vector<std::size_t> chosen;
    for (const bool changed : {true, false})
        for (std::size_t i = 0; i < results.size() && chosen.size() < kSamplePartitions; ++i) {
            const PartitionResult &r = results[i];
            if ((r.inserted + r.updated + r.deleted > 0) == changed)
                chosen.push_back(i);
        }
    std::sort(chosen.begin(), chosen.end());
    QHash<QString, std::size_t> byKey;
    for (const std::size_t i : chosen) {
        results[i].samples = Samples{};
        byKey.insert(partitionKey(scope[i].label), i);
    }
    const int width = int(sql.columns().size());
    enum class Kind { Inserted, Updated, Unchanged, Deleted };
    for (const Kind kind : {Kind::Inserted, Kind::Updated, Kind::Unchanged, Kind::Deleted}) {
        std::vector<PartitionRef> parts;
        for (const std::size_t i : chosen) {
            const PartitionResult &r = results[i];
            const qint64 n = kind == Kind::Inserted    ? r.inserted
                             : kind == Kind::Updated   ? r.updated
                             : kind == Kind::Unchanged ? r.unchanged
                                                       : r.deleted;
            if (n > 0)
                parts.push_back(scope[i]);
        }
        if (parts.empty())
            continue;
        QVariantList binds;
        const QString text = kind == Kind::Inserted    ? sql.sampleInserted(parts, binds)
                             : kind == Kind::Updated   ? sql.sampleUpdated(parts, binds)
                             : kind == Kind::Unchanged ? sql.sampleUnchanged(parts, binds)
                                                       : sql.sampleDeleted(parts, binds);
        binds << limit;
        auto q = db.exec(text, binds);
        if (!q)
            return fail(q.error());
        const int offset = parts.size() == 1 ? 0 : 2;
        while (q->next()) {
            const QSqlRecord record = q->record();
            const std::optional<QString> label =
                offset == 0               ? parts.front().label
                : record.value(1).toInt() ? std::nullopt
                                          : std::optional<QString>(record.value(0).toString());
            const auto at = byKey.constFind(partitionKey(label));
            if (at == byKey.cend())
                continue;
            Samples &s = *results[*at].samples;
            if (kind == Kind::Updated) {
                s.updated.emplace_back(recordToJson(db.dialect(), record, offset + width, width),
                                       recordToJson(db.dialect(), record, offset, width));
                continue;
            }
            std::vector<QJsonObject> &rows = kind == Kind::Inserted    ? s.inserted
                                             : kind == Kind::Unchanged ? s.unchanged
                                                                       : s.deleted;
            rows.push_back(recordToJson(db.dialect(), record, offset, width));
        }
    }
    return {};
}

// Per-partition counts of a GROUP BY query returning (label, is-null, n...),
// or, given the key of its one partition, of a query returning (n...).
Result<QHash<QString, QList<qint64>>>
countsBy(const Database &db, const QString &sql, const QVariantList &binds, int values,
         const std::optional<QString> &onePartition = std::nullopt) {
    auto read = valuesBy(db, sql, binds, onePartition);
    if (!read)
        return fail(read.error());
    QHash<QString, QList<qint64>> out;
    for (auto it = read->cbegin(); it != read->cend(); ++it) {
        QList<qint64> v;
        for (int i = 0; i < values; ++i)
            v << it.value().value(i).toLongLong();
        out.insert(it.key(), v);
    }
    return out;
}

using Counts = QHash<QString, QList<qint64>>; // per partitionKey

// Each partition's result from its counts: deduped and staged rows, the diff
// (join rows, inserted, updated) and, for an overwrite, the target's rows.
std::vector<PartitionResult> partitionResults(const std::vector<PartitionRef> &scope,
                                              const SourceStatsMap &stats, const Counts &deduped,
                                              const Counts &staged, const Counts &diff,
                                              const std::optional<Counts> &target) {
    std::vector<PartitionResult> out;
    for (const auto &p : scope) {
        const QString key = partitionKey(p.label);
        PartitionResult r;
        r.partition = p.label;
        r.sourceRows = stats.value(key).rows;
        r.fingerprint = stats.value(key).fingerprint;
        r.duplicatesDropped = r.sourceRows - deduped.value(key, {0}).value(0);
        r.stagedRows = staged.value(key, {0}).value(0);
        const QList<qint64> d = diff.value(key, {0, 0, 0});
        r.inserted = d.value(1);
        r.updated = d.value(2);
        r.unchanged = r.stagedRows - r.inserted - r.updated;
        // Overwrite: every target row not matched by a staged row goes
        // (extra copies of a duplicated key included).
        r.deleted = target ? target->value(key, {0}).value(0) - (r.stagedRows - r.inserted) : 0;
        out.push_back(std::move(r));
    }
    return out;
}

// The target's rows per partition in the scope of the last createTargetCopy.
Result<Counts> targetRowCounts(const Database &db, const BatchSql &sql) {
    QVariantList binds;
    const QString text = sql.targetCounts(binds);
    return countsBy(db, text, binds, 1, sql.countedPartition());
}

// The results of stageAndDiff from its counts: the overwrite's target rows
// and the source fingerprint read here.
Result<std::vector<PartitionResult>>
finishResults(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
              const std::vector<PartitionRef> &scope,
              const std::function<Result<SourceStatsMap>()> &sourceStats, const Counts &deduped,
              const Counts &staged, const Counts &diff,
              const std::optional<Counts> &targetRows = std::nullopt) {
    std::optional<Counts> target = targetRows;
    if (dataset.write == WriteMode::OverwritePartition && !target) {
        auto counts = targetRowCounts(db, sql);
        if (!counts)
            return fail(counts.error());
        target = std::move(*counts);
    }
    auto read = sourceStats();
    if (!read)
        return fail(read.error());
    auto out = partitionResults(scope, *read, deduped, staged, diff, target);
    if (dataset.write == WriteMode::OverwritePartition) {
        std::vector<std::optional<QString>> labels;
        for (const PartitionResult &p : out)
            if (p.updated + p.unchanged + p.deleted > 0) // a leaf with rows: a swap's candidate
                labels.push_back(p.partition);
        if (auto s = sql.catalog().layout.inspect(db, labels); !s)
            return fail(s.error());
    }
    if (dataset.write == WriteMode::OverwritePartition)
        for (PartitionResult &p : out) {
            const PublishChoice c =
                sql.catalog().layout.choose(p.partition, p.updated + p.unchanged + p.deleted);
            p.publish = enumName(c.method);
            p.publishReason = c.reason;
        }
    return out;
}

// The partitions of `scope` whose counts in `counts` say the target repeats
// a key (join rows beyond the staged ones, at `joinRows` and `stagedRows`).
std::vector<PartitionRef> partitionsWithRepeats(const std::vector<PartitionRef> &scope,
                                                const Counts &counts, const Counts &staged,
                                                int joinRows, int stagedRows) {
    std::vector<PartitionRef> out;
    for (const PartitionRef &p : scope) {
        const QString key = partitionKey(p.label);
        const auto c = counts.constFind(key);
        if (c != counts.cend() && c->value(joinRows) != staged.value(key, {0}).value(stagedRows))
            out.push_back(p);
    }
    return out;
}

// Runs `count` (per partition of the partitions given: staged rows, join
// rows, inserted, updated, 1 when a staged partition or key is NULL) until
// its answer stands: first on plain `=` over `scope`; after a NULL, again
// null-safe (`rewrite` first, where the staged rows must be written again);
// then the partitions with join rows beyond their staged ones (a key the
// target repeats), and only those, again counting each staged row's update
// once (a second pass over all of them doubled a preview's time).
// Returns the staged rows and the diff (join rows, inserted, updated).
Result<std::pair<Counts, Counts>>
countAskingAgain(BatchSql &sql, const std::vector<PartitionRef> &scope,
                 const std::function<Result<Counts>(bool targetKeysRepeat,
                                                    const std::vector<PartitionRef> &parts)> &count,
                 const std::function<Status()> &rewrite) {
    sql.setStageKeysNotNull(true);
    auto counts = count(false, scope);
    if (!counts)
        return fail(counts.error());
    if (std::any_of(counts->cbegin(), counts->cend(),
                    [](const QList<qint64> &v) { return v.value(4) != 0; })) {
        sql.setStageKeysNotNull(false);
        if (rewrite)
            if (auto s = rewrite(); !s)
                return fail(s.error());
        counts = count(false, scope);
        if (!counts)
            return fail(counts.error());
    }
    if (const auto repeated = partitionsWithRepeats(scope, *counts, *counts, 1, 0);
        !repeated.empty()) {
        auto again = count(true, repeated);
        if (!again)
            return fail(again.error());
        for (auto it = again->cbegin(); it != again->cend(); ++it)
            counts->insert(it.key(), it.value());
    }
    std::pair<Counts, Counts> out;
    for (auto it = counts->cbegin(); it != counts->cend(); ++it) {
        out.first.insert(it.key(), {it.value().value(0)});
        out.second.insert(it.key(), it.value().mid(1, 3));
    }
    return out;
}

// A scope request naming no partition: every partition of the source.
bool isWholeSource(const ScopeRequest &request) {
    return request.partitions.isEmpty() && !request.from && !request.to && !request.stale &&
           !request.schemaBehind;
}

// A merge publish of one partition into a target read directly, with no
// gates and no samples, where the engine is faster that way
// (SqlDialect::stagesJoinedToTarget): the staged rows are written once,
// already joined to their target rows (createStageWithMatches), and one read
// of them counts everything (matchSummary). Matched on plain `=` first:
// measured on PostgreSQL, 95,000 staged rows, the null-safe match sorted both
// sides on disk (about 800 ms) where `=` hashes them. A NULL partition or key
// (which `=` leaves unmatched: it would be inserted twice) writes the stage
// again, null-safe; a key the target repeats counts again, each staged row's
// update once. (Probing the source for NULL keys first cost a scan of its
// partition in every run, 110 ms of 100,000 rows, for a rare case; the NULL
// probe, the staged total and the counts as three reads, 50-60 ms.)
Result<std::vector<PartitionResult>>
diffWithMatches(const Database &db, const DatasetSpec &dataset, BatchSql &sql,
                const std::vector<PartitionRef> &scope,
                const std::function<Result<SourceStatsMap>()> &sourceStats,
                const BatchOptions &options, const std::function<void(const QString &)> &phase) {
    phase(QStringLiteral("stage"));
    const std::optional<QString> one = BatchSql::onePartitionKey(scope);
    const auto writeStage = [&]() -> Status {
        QVariantList binds;
        const QStringList stage = sql.createStageWithMatches(scope, binds);
        for (qsizetype i = 0; i < stage.size(); ++i)
            if (auto r = db.exec(stage[i], i == stage.size() - 1 ? binds : QVariantList()); !r)
                return fail(r.error());
        return {};
    };
    sql.setStageKeysNotNull(true);
    if (auto s = writeStage(); !s)
        return fail(s.error());
    auto counts = countAskingAgain(
        sql, scope,
        [&](bool targetKeysRepeat, const std::vector<PartitionRef> &) {
            return countsBy(db, sql.matchSummary(targetKeysRepeat), {}, 5, one);
        },
        writeStage);
    if (!counts)
        return fail(counts.error());
    failpoint("after-stage");
    if (cancelled(options))
        return internalError(QStringLiteral("cancelled"));
    phase(QStringLiteral("diff"));
    QVariantList binds;
    const QStringList copy =
        sql.createTargetCopy(binds); // reads the target directly: nothing to copy
    for (qsizetype i = 0; i < copy.size(); ++i)
        if (auto r = db.exec(copy[i], i == 1 ? binds : QVariantList()); !r)
            return fail(r.error());
    return finishResults(db, dataset, sql, scope, sourceStats, counts->first, counts->first,
                         counts->second);
}

// The diff of a delete_insert or an append, after its stage (every source
// row of the scope) and gates: every staged row is inserted; a
// delete_insert deletes the target rows whose partition and key a staged row
// has. Matched on plain `=` unless a staged partition or key is NULL
// (probed first: the count reads the target, not the stage).
Result<std::vector<PartitionResult>>
keptRowsDiff(const Database &db, const DatasetSpec &dataset, BatchSql &sql,
             const std::vector<PartitionRef> &scope,
             const std::function<Result<SourceStatsMap>()> &sourceStats, const Counts &staged,
             int samples) {
    const bool byKey = dataset.write == WriteMode::DeleteInsert;
    if (byKey) {
        auto nullKey = db.exec(sql.stageKeysNullProbe());
        if (!nullKey)
            return fail(nullKey.error());
        sql.setStageKeysNotNull(!nullKey->next());
    }
    QVariantList binds;
    const QStringList copy = sql.createTargetCopy(binds);
    for (qsizetype i = 0; i < copy.size(); ++i)
        if (auto r = db.exec(copy[i], i == 1 ? binds : QVariantList()); !r)
            return fail(r.error());
    Counts keys, deleted;
    if (byKey) {
        auto k = countsBy(db, sql.stagedKeyCounts(), {}, 1);
        if (!k)
            return fail(k.error());
        keys = std::move(*k);
        binds.clear();
        const QString text = sql.keyedTargetCounts(binds);
        auto d = countsBy(db, text, binds, 1, sql.countedPartition());
        if (!d)
            return fail(d.error());
        deleted = std::move(*d);
    }
    auto read = sourceStats();
    if (!read)
        return fail(read.error());
    std::vector<PartitionResult> out;
    for (const PartitionRef &p : scope) {
        const QString key = partitionKey(p.label);
        PartitionResult r;
        r.partition = p.label;
        r.sourceRows = read->value(key).rows;
        r.fingerprint = read->value(key).fingerprint;
        r.stagedRows = staged.value(key, {0}).value(0);
        r.inserted = r.stagedRows;
        if (byKey) {
            r.deleted = deleted.value(key, {0}).value(0);
            r.keysTouched = keys.value(key, {0}).value(0);
        }
        out.push_back(std::move(r));
    }
    if (samples > 0)
        if (auto s = takeSamples(db, sql, scope, samples, out); !s)
            return fail(s.error());
    return out;
}

} // namespace

Result<std::vector<PartitionResult>>
stageAndDiff(const Database &db, const DatasetSpec &dataset, BatchSql &sql,
             const std::vector<PartitionRef> &scope,
             const std::function<Result<SourceStatsMap>()> &sourceStats, const QVariant &runId,
             const BatchOptions &options, bool simulate, bool publish,
             std::vector<CheckResult> &checks, const std::function<void(const QString &)> &phase,
             std::vector<ColumnDetail> *columnTotals) {
    // A preview of the whole dataset reads the source and the target
    // without a filter listing every partition (SQLite staged 10,000 days
    // in 3.9 s with it, 2.4 s without; PostgreSQL read both in index order):
    // its counts and samples are looked up by the scope's partitions, so a
    // partition that appeared since the scope was read is read and ignored.
    // Not with gates, whose results would name it.
    struct WholeSource { // for this preview's statements only
        BatchSql &sql;
        ~WholeSource() { sql.setWholeSourceScope(0); }
    } whole{sql};
    if (!publish && dataset.checks.empty() && !sql.isScd2() && isWholeSource(options.scope))
        sql.setWholeSourceScope(scope.size());
    // A preview into a target that exists tells what each column would
    // change (addColumnSummary): it reads the staged rows, so they are
    // written (PostgreSQL counted a preview without gates or samples from
    // the deduped rows joined to the target, never written: 210-340 ms
    // against 510-530 ms for 95,000 rows; that count had nothing else to read).
    const bool columnSummary =
        !publish && !sql.isScd2() && !dataset.keepsEveryRow() && sql.targetExists();
    const bool overwrite = dataset.write == WriteMode::OverwritePartition;
    // A merge publish into an indexed target works by row identity (no stage
    // index); with no gates and no samples to read the stage, the staged
    // rows are written once, already joined to their target rows.
    const bool useMatches = publish && !overwrite && !sql.isScd2() && !dataset.keepsEveryRow() &&
                            sql.readsTargetDirectly();
    const bool stageInMatches = useMatches && dataset.checks.empty() && options.samples == 0 &&
                                scope.size() == 1 &&
                                BatchDialect::of(db.dialect()).stagesJoinedToTarget();
    using Match = BatchStrategy::Match;
    sql.setStrategy(sql.strategyFor(scope, stageInMatches ? Match::StagedWithIdentity
                                           : useMatches   ? Match::ByIdentity
                                                          : Match::ByKey));
    if (stageInMatches)
        return diffWithMatches(db, dataset, sql, scope, sourceStats, options, phase);
    phase(QStringLiteral("stage"));
    QVariantList binds;
    const QStringList stage = sql.createStage(scope, binds);
    int created = -1; // rows the stage's CREATE TABLE ... AS reported, where it does
    for (qsizetype i = 0; i < stage.size(); ++i) {
        auto r = db.exec(stage[i], i == stage.size() - 1 ? binds : QVariantList());
        if (!r)
            return fail(r.error());
        if (i == stage.size() - 1 && BatchDialect::of(db.dialect()).createdTableReportsRows())
            created = r->numRowsAffected();
    }
    failpoint("after-stage");
    // Staged rows per partition.
    auto countStage = [&]() -> Result<QHash<QString, QList<qint64>>> {
        if (scope.size() != 1)
            return countsBy(db, sql.stagedCounts(), {}, 1);
        auto n = db.scalar(sql.stagedTotal());
        if (!n)
            return fail(n.error());
        return QHash<QString, QList<qint64>>{
            {partitionKey(scope.front().label), {n->toLongLong()}}};
    };
    // One partition's count as the engine reported it writing the stage
    // (PostgreSQL: a read of 95,000 staged rows less, 30-40 ms).
    auto dedupedCounts = created >= 0 && scope.size() == 1
                             ? Result<QHash<QString, QList<qint64>>>(QHash<QString, QList<qint64>>{
                                   {partitionKey(scope.front().label), {qint64(created)}}})
                             : countStage();
    if (!dedupedCounts)
        return fail(dedupedCounts.error());
    const QHash<QString, QList<qint64>> deduped = *dedupedCounts;
    // Indexed for what looks staged rows up by key: gates, SCD2, a merge's
    // update by key match, samples. An overwrite's publish reads the stage
    // whole (its diff probes the target, not the stage).
    if (!dataset.checks.empty() || sql.isScd2() ||
        (BatchDialect::of(db.dialect()).indexesStageForJoins() &&
         dataset.write == WriteMode::DeleteInsert) ||
        (BatchDialect::of(db.dialect()).indexesStageForJoins() &&
         ((publish && !useMatches && !overwrite) || (overwrite && options.samples > 0))))
        if (auto r = db.exec(sql.indexStage()); !r)
            return fail(r.error());

    if (cancelled(options))
        return internalError(QStringLiteral("cancelled"));
    phase(QStringLiteral("checks"));
    auto results = runChecks(db, dataset, sql, scope, runId);
    if (!results)
        return fail(results.error());
    checks.insert(checks.end(), results->begin(), results->end());
    failpoint("after-checks");

    phase(QStringLiteral("diff"));
    if (dataset.keepsEveryRow()) {
        // Gates may have quarantined staged rows.
        auto stagedCounts = dataset.checks.empty() ? dedupedCounts : countStage();
        if (!stagedCounts)
            return fail(stagedCounts.error());
        return keptRowsDiff(db, dataset, sql, scope, sourceStats, *stagedCounts, options.samples);
    }
    if (sql.isScd2()) {
        auto parts = scd2Diff(db, sql, scope, simulate, options.samples, options.cancel);
        if (!parts)
            return fail(parts.error());
        auto read = sourceStats();
        if (!read)
            return fail(read.error());
        const SourceStatsMap &stats = *read;
        for (auto &r : *parts) {
            const QString key = partitionKey(r.partition);
            r.sourceRows = stats.value(key).rows;
            r.fingerprint = stats.value(key).fingerprint;
            r.duplicatesDropped = r.sourceRows - deduped.value(key, {0}).value(0);
        }
        return parts;
    }
    // Matched on plain `=` (an index probe or a hash join on every engine); a
    // staged NULL partition or key, which `=` leaves unmatched, is seen in the
    // diff's counts and asks again null-safe. (Probed for first, it cost a
    // scan of the stage: 36 ms of 95,000 rows on PostgreSQL.) rewind_match
    // keeps no keys to look at, so a match by row identity probes first.
    if (useMatches) {
        auto nullKey = db.exec(sql.stageKeysNullProbe());
        if (!nullKey)
            return fail(nullKey.error());
        sql.setStageKeysNotNull(!nullKey->next());
    } else {
        sql.setStageKeysNotNull(true);
    }
    binds.clear();
    const QStringList copy = sql.createTargetCopy(binds);
    for (qsizetype i = 0; i < copy.size(); ++i)
        if (auto r = db.exec(copy[i], i == 1 ? binds : QVariantList()); !r)
            return fail(r.error());
    // Gates may have quarantined staged rows.
    auto stagedCounts = dataset.checks.empty() ? dedupedCounts : countStage();
    if (!stagedCounts)
        return fail(stagedCounts.error());
    const QHash<QString, QList<qint64>> staged = *stagedCounts;
    if (columnSummary) {
        // The rows inserted or changed, apart: the diff's counts and the
        // figures of their changes from them (one join of the staged rows).
        // Matched on plain `=`: a staged NULL partition or key is then an
        // insert, which its figures show; then null-safe, again.
        const auto keptApart = [&]() -> Result<PartitionValues> {
            binds.clear();
            const QStringList create = sql.createChanges(binds);
            for (qsizetype i = 0; i < create.size(); ++i)
                if (auto r = db.exec(create[i], i == create.size() - 1 ? binds : QVariantList());
                    !r)
                    return fail(r.error());
            return valuesBy(db, sql.changeStats(), {}, sql.countedPartition());
        };
        auto changes = keptApart();
        if (changes && std::any_of(changes->cbegin(), changes->cend(),
                                   [](const QVariantList &v) { return v.value(2).toInt() != 0; })) {
            sql.setStageKeysNotNull(false);
            changes = keptApart();
        }
        if (!changes)
            return fail(changes.error());
        Counts diff; // join rows (the staged rows: no recount), inserted, updated
        for (auto it = staged.cbegin(); it != staged.cend(); ++it) {
            const QVariantList c = changes->value(it.key());
            diff.insert(it.key(),
                        {it.value().value(0), c.value(0).toLongLong(), c.value(1).toLongLong()});
        }
        // The target's figures before, and its rows (an overwrite deletes
        // those no staged row replaces).
        binds.clear();
        const bool keptInBefore = foldsKept(sql, *changes, staged);
        const std::vector<std::size_t> distinct = distinctColumns(sql, *changes);
        const QString stats = sql.columnStats(false, binds, keptInBefore, distinct);
        auto before = valuesBy(db, stats, binds, sql.countedPartition());
        if (!before)
            return fail(before.error());
        Counts targetRows;
        for (auto it = before->cbegin(); it != before->cend(); ++it)
            targetRows.insert(it.key(), {it.value().value(0).toLongLong()});
        auto out = finishResults(db, dataset, sql, scope, sourceStats, deduped, staged, diff,
                                 overwrite ? std::optional<Counts>(targetRows) : std::nullopt);
        if (!out)
            return fail(out.error());
        if (auto s = addColumnSummary(db, dataset, sql, *changes, *before, *out, keptInBefore,
                                      distinct, columnTotals);
            !s)
            return fail(s.error());
        if (options.samples > 0)
            if (auto s = takeSamples(db, sql, scope, options.samples, *out); !s)
                return fail(s.error());
        return out;
    }
    // A backfill of partitions the target does not hold yet: no staged row
    // can match one, so none is joined (10,000 empty days on PostgreSQL:
    // 670 ms of joins and 100 ms of counts); every staged row is an insert,
    // which the publish then writes without looking rewind_match up. Only
    // without samples, which read the matches.
    bool targetInScope = true;
    if (useMatches && options.samples == 0) {
        binds.clear();
        auto any = db.exec(sql.targetRowProbe(binds), binds);
        if (!any)
            return fail(any.error());
        targetInScope = any->next();
    }
    if (useMatches) {
        binds.clear();
        const QStringList matches = sql.createMatches(binds); // drop, then create
        for (qsizetype i = 0; i < (targetInScope ? matches.size() : 1); ++i)
            if (auto r = db.exec(matches[i], i == matches.size() - 1 ? binds : QVariantList()); !r)
                return fail(r.error());
    }
    const auto diffQuery = [&](bool targetKeysRepeat,
                               const std::vector<PartitionRef> *only = nullptr) -> Result<Counts> {
        if (!targetInScope) { // join rows, inserted, updated: one unmatched join row per staged row
            Counts none;
            for (auto it = staged.cbegin(); it != staged.cend(); ++it)
                none.insert(it.key(), {it.value().value(0), it.value().value(0), 0});
            return none;
        }
        binds.clear();
        const QString counts = useMatches ? sql.matchCounts(targetKeysRepeat)
                                          : sql.diffCounts(targetKeysRepeat, binds, only);
        return countsBy(db, counts, binds, useMatches ? 3 : 4, sql.countedPartition());
    };
    auto diff = diffQuery(false);
    if (!diff)
        return fail(diff.error());
    if (!useMatches && std::any_of(diff->cbegin(), diff->cend(),
                                   [](const QList<qint64> &v) { return v.value(3) != 0; })) {
        sql.setStageKeysNotNull(false);
        diff = diffQuery(false);
        if (!diff)
            return fail(diff.error());
    }
    // A key the target holds twice: those partitions counted again, each
    // staged row's update once (all of them, matched by row identity).
    if (const auto repeated = partitionsWithRepeats(scope, *diff, staged, 0, 0);
        !repeated.empty()) {
        auto again = useMatches ? diffQuery(true) : diffQuery(true, &repeated);
        if (!again)
            return fail(again.error());
        for (auto it = again->cbegin(); it != again->cend(); ++it)
            diff->insert(it.key(), it.value());
    }
    auto out = finishResults(db, dataset, sql, scope, sourceStats, deduped, staged, *diff);
    if (out && options.samples > 0)
        if (auto s = takeSamples(db, sql, scope, options.samples, *out); !s)
            return fail(s.error());
    return out;
}

} // namespace rw
