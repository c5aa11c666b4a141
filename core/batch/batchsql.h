#pragma once

#include "core/batch/batch.h"
#include "core/batch/batchdialect.h"
#include "core/batch/catalog.h"
#include "core/batch/columnchange.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <QHash>

namespace rw {

// How one scope's statements read the target and find the staged rows:
// decided by stageAndDiff (batchdiff.cpp) before it writes anything, and kept
// by the publish that follows.
struct BatchStrategy {
    enum class Match {
        ByKey,              // rewind_stage, matched to the target on partition and key
        ByIdentity,         // rewind_match beside it: per staged row, its target row's identity
                            // (createMatches)
        StagedWithIdentity, // rewind_match holds the staged rows themselves, no rewind_stage
                            // (createStageWithMatches)
    };
    std::vector<PartitionRef> scope; // the partitions the target is read in
    bool targetDirect = false; // the diff reads the target table itself, not its copy rewind_tgt
    Match match = Match::ByKey;
    // No staged row has a NULL partition or key: keys match on plain `=`
    // (see stageKeyMatch). Set first, cleared when a count says otherwise.
    bool stageKeysNotNull = false;
};

// Builds the set-based SQL of a batch operation for one dataset. Every
// identifier is quoted; partition values are bound (see partitionBinds()).
//
// Working tables are per-connection temporaries:
//   rewind_stage  the scoped source, deduped to one row per (partition, key)
//   rewind_tgt    the scoped target, as it was before the write
// Rows are matched on the partition and the key with null-safe equality.
class BatchSql {
public:
    // `catalog` resolved for `dataset` (or a variant of it with another
    // write mode) in this operation.
    BatchSql(const Database &db, const DatasetSpec &dataset, DatasetCatalog catalog)
        : m_db(db)
        , m_dataset(&dataset)
        , m_cat(std::move(catalog)) {}
    // Resolves the catalog, for an operation that makes one BatchSql
    // (`compareTypes`: DatasetCatalog::resolve).
    static Result<BatchSql> make(const Database &db, const DatasetSpec &dataset,
                                 bool compareTypes = false);

    const DatasetCatalog &catalog() const { return m_cat; }
    const QStringList &columns() const { return m_cat.columns; }
    const QStringList &keyColumns() const { return m_cat.key; }
    const QStringList &valueColumns() const { return m_cat.values; }
    bool targetExists() const { return m_cat.targetExists; }
    void setTargetExists(bool exists) { m_cat.targetExists = exists; }

    // The strategy of `scope` for `match`: the target read directly when it
    // exists and an index serves key lookups. ByIdentity and
    // StagedWithIdentity need such a target.
    BatchStrategy strategyFor(const std::vector<PartitionRef> &scope,
                              BatchStrategy::Match match) const;
    void setStrategy(BatchStrategy strategy) { m_strategy = std::move(strategy); }
    // A scope of this many partitions holds every partition of the source
    // (a preview of the whole dataset): its filter is left out, so that the
    // engine reads the source and the target in index order rather than
    // probing them with a list of every value. Only for reads whose results
    // are looked up by the scope's partitions (a partition that appeared
    // since is then read and ignored); 0: always filter.
    void setWholeSourceScope(std::size_t partitions) { m_wholeSourceScope = partitions; }
    const BatchStrategy &strategy() const { return m_strategy; }
    void setStageKeysNotNull(bool on) { m_strategy.stageKeysNotNull = on; }

    // `WHERE`-clause predicate on the partition column for `scope`, with
    // its bound values appended to `binds`. TRUE for an unpartitioned dataset.
    QString scopePredicate(const QString &qualifier, const std::vector<PartitionRef> &scope,
                           QVariantList &binds) const;

    // SELECT of the scoped source rows (all columns).
    QString scopedSource(const std::vector<PartitionRef> &scope, QVariantList &binds) const;

    // Per partition: label, is-null, source rows, fingerprint.
    QString sourceStats(const std::vector<PartitionRef> &scope, QVariantList &binds) const;
    QString fingerprintExpr() const;

    QStringList createStage(const std::vector<PartitionRef> &scope,
                            QVariantList &binds) const; // last one takes binds
    QString stageSelect(const std::vector<PartitionRef> &scope,
                        QVariantList &binds) const; // the staged rows
    // The staged rows' (partition, key) index: lookups from the target into
    // the stage (before-images, publish, deleted samples, gates, scd2) need it;
    // the diff, which probes the target, does not.
    QString indexStage() const;
    // The target as the strategy's scope reads it: nothing to write when it
    // reads the table itself, else the indexed copy rewind_tgt.
    QStringList createTargetCopy(QVariantList &binds) const;
    // `keepTargetCopy`: rewind_tgt stays (a run's copy, below).
    QStringList dropWorkTables(bool keepTargetCopy = false) const;
    // A run's copy of the target (SQLite, a target no index serves: the
    // copy of each chunk's partitions is a scan of the whole table, which
    // grows as the run loads it: 0.9 s of a 5.7 s backfill of 10,000
    // partitions). The run's remaining scope is copied once and read by
    // later chunks while no other connection has committed since (the
    // caller compares PRAGMA data_version in each chunk's write
    // transaction; its own commits change only partitions already
    // published, which later chunks never read). Each statement on the
    // copy then names its chunk's partitions.
    bool runCopyPossible() const;
    // The partition values a run copy's JSON list names exactly: integers,
    // finite numbers, text, NULL (not a BLOB).
    static bool runCopyFits(const std::vector<PartitionRef> &scope);
    // `scope` empty: no run copy (each chunk copies its own partitions);
    // `reuse`: the copy made earlier holds; else createTargetCopy copies `scope`.
    void setRunCopy(std::vector<PartitionRef> scope, bool reuse) {
        m_runCopyScope = std::move(scope);
        m_runCopyReuse = reuse;
    }
    // True when the diff can read the target table itself (it exists, an
    // index serves key lookups, and rows have an identity).
    // Not while columns are still to be added to it (before the publish
    // adds them, a preview reads the target through a copy that has them, NULL).
    bool readsTargetDirectly() const {
        return m_cat.targetExists && m_cat.targetIndexed && m_cat.schemaChange.empty();
    }

    // The schema change still to apply to the target (on_schema_change):
    // the statements that apply it, in order, and, once they ran in the
    // publish's transaction, the catalog told so (the added columns are the
    // target's now, the dropped ones gone, the widened ones wider).
    // restoreCatalog() puts it back when that transaction rolled back.
    const SchemaChange &schemaChange() const { return m_cat.schemaChange; }
    // For run `runId`, on the target holding `targetColumns` (as the
    // catalog lists them inside the publish's transaction), with the
    // before-images table made and holding `imagesColumns`: a drop first
    // copies the whole target into the
    // before-images (rewind_op 'dropped'; columns it lacks added), then
    // DROP COLUMN, ADD COLUMN, ALTER COLUMN ... TYPE (the before-images
    // widened with the target).
    std::vector<std::pair<QString, QVariantList>>
    applySchemaChange(const QVariant &runId, const std::vector<ColumnInfo> &targetColumns,
                      const std::vector<ColumnInfo> &imagesColumns) const;
    // The columns the existing before-images table (`imagesColumns`, as the
    // catalog lists them) lacks of those a publish writes, added; those a
    // widening made wider in the target, widened.
    QStringList alignImages(const std::vector<ColumnInfo> &imagesColumns) const;
    void schemaChangeApplied();
    // The statements that undo `change` (a rollback of run `runId`, which
    // made it), in its last transaction: added columns dropped from the
    // target and, when `imagesExist`, from the before-images table; dropped
    // ones added back, and the whole table put back as the run found it
    // (the before-images' 'dropped' rows: `columns` are the target's
    // without the added ones); widened ones narrowed back.
    std::vector<std::pair<QString, QVariantList>>
    revertSchemaChange(const SchemaChange &change, const QVariant &runId, bool imagesExist,
                       const QStringList &columns) const;
    // The source's columns the target has: all of them, but for those a
    // pending schema change would add, and, once setImagesColumns() said
    // which the before-images hold, those they do not (what a rollback restores).
    QStringList targetHeldColumns() const;
    void setImagesColumns(QStringList columns) { m_imagesColumns = std::move(columns); }
    // A partition's value as bound in a statement (BatchDialect::storedPartitionBind).
    QVariant bindOf(const PartitionRef &p) const;
    // The staged rows' work table as a statement names it (rewind_stage; on
    // Trino, in the session's scratch schema).
    QString workStage() const { return w(kStage); }

    // Trino over Iceberg (batchsql_iceberg.cpp). A chunk's publish as one
    // statement, one snapshot: a MERGE of the staged rows (merge; overwrite
    // and delete_insert, whose deletes go by marker rows) or an INSERT
    // (append). `chunk`: the staged partitions.
    std::pair<QString, QVariantList> icebergPublish(const std::vector<PartitionRef> &chunk) const;
    // A rollback's restore, one MERGE for all `parts`: each partition's
    // `columns` as the target held them at its snapshot (the second of each
    // pair), every row it holds now removed.
    std::pair<QString, QVariantList>
    icebergRestore(const std::vector<std::pair<PartitionRef, QString>> &parts,
                   const QStringList &columns) const;
    // How many rows of each of the partitions `parts` of relation `from` (a
    // table, or one as of a snapshot) `other` has not, as multisets of
    // `columns`: one row per partition that has any (partLabelColumns,
    // then the count).
    std::pair<QString, QVariantList> icebergRowsOnlyIn(const QString &from, const QString &other,
                                                       const std::vector<PartitionRef> &parts,
                                                       const QStringList &columns) const;
    // The catalog as it was before an attempt whose transaction rolled back.
    void restoreCatalog(DatasetCatalog catalog) { m_cat = std::move(catalog); }

    // Merge publish by row identity. Work table rewind_match: per staged row
    // its identity, the matching target row's identity (NULL: an insert) and
    // whether they differ; then counts, before-images and the write are
    // identity lookups instead of key probes. Match::ByIdentity.
    QStringList createMatches(QVariantList &binds) const; // last one takes binds
    QString matchCounts(bool targetKeysRepeat) const;     // like diffCounts
    // The same in one statement with the stage: rewind_match holds the staged
    // rows themselves (each numbered 1..n as rewind_sid) joined to their
    // target rows, whose values it keeps for the before-images (rewind_o1,
    // ... in column order), and no rewind_stage is written (one write and one read of
    // the staged rows less). For a one-partition merge publish with no gates
    // and no samples (which read rewind_stage): Match::StagedWithIdentity.
    // Its counts come from matchSummary.
    QStringList createStageWithMatches(const std::vector<PartitionRef> &scope,
                                       QVariantList &binds) const; // last one takes binds
    // One row, from one read of that rewind_match: staged rows (the highest
    // row number), join rows (more: the target repeats a key, ask again with
    // targetKeysRepeat), inserted, updated, and 1 when a staged partition or
    // key is NULL (then write it again null-safe).
    QString matchSummary(bool targetKeysRepeat) const;

    // The counts below (diffCounts, matchCounts, targetCounts, and
    // sourceStats of a one-partition scope) come per partition: label,
    // is-null, then the counts. For a scope of one partition they come as one
    // row of counts alone, under no GROUP BY (SQLite sorts every counted row
    // for one: 20,000 rows, the diff took 24 ms against 11 ms without); the
    // caller knows the label: this key (partitionKey), for the scope of the
    // strategy's scope, or none.
    std::optional<QString> countedPartition() const;
    static std::optional<QString> onePartitionKey(const std::vector<PartitionRef> &scope);

    // Per partition (label, is-null): staged rows.
    QString stagedCounts() const;
    QString stagedTotal() const; // all partitions together
    // Per partition (label, is-null): join rows, inserted, updated staged
    // rows, and 1 when a staged partition or key is NULL. With `only`, of
    // those staged partitions alone.
    QString diffCounts(bool targetKeysRepeat, QVariantList &binds,
                       const std::vector<PartitionRef> *only = nullptr) const;
    // Per partition (label, is-null): target rows in scope.
    QString targetCounts(QVariantList &binds) const;

    // The per-column change summary of a preview (columnchange.h). Its
    // columns: the staged ones the target has, in the source's order.
    struct SummaryColumn {
        QString name;
        QString type; // the target's
        ColumnKind kind = ColumnKind::Other;
        bool compared = false; // among the columns the write compares and changes
    };
    std::vector<SummaryColumn> summaryColumns() const;
    // Work table rewind_changes: the staged rows the write inserts or
    // changes (a few of the staged rows, as a rule), each with its
    // partition's label, its partition and key, its identity in the stage,
    // whether it matched a target row, and per summary column its value, the
    // target's and whether it changed; after createTargetCopy, matched as
    // diffCounts matches (stageKeyMatch). The last
    // statement takes binds. A preview's diff counts come from it
    // (changeStats) instead of diffCounts: one join of the staged rows less.
    QStringList createChanges(QVariantList &binds) const;
    // Per partition (label, is-null, as diffCounts): the diff's inserted and
    // updated rows (each staged row once), 1 when a staged partition or key
    // is NULL (matched on plain `=`, it was taken for an insert: create the
    // table again null-safe), then per summary column
    // changeValues(kind) figures of rewind_changes (batchdiff.cpp reads them
    // in this order). No row for a partition without changes.
    QString changeStats() const;
    static int changeValues(ColumnKind kind);
    // The figures of rewind_changes that do not add up over partitions,
    // per partition (leading label, is-null) or, `whole`, of them all; each
    // row names its summary column by index (rewind_i). Empty where no
    // column has such a figure.
    //   changePairs: Time and Other columns' five most common before ->
    //     after pairs (as text) of changed values, with their rows;
    //   changeShifts: Time columns' most common shift (after - before, epoch
    //     milliseconds) and its rows;
    //   changeExamples: three keys of changed rows of each compared column
    //     (per partition the first in key order; of them all the first the
    //     diff wrote; no key: empty).

    QString changePairs(bool whole) const;
    QString changeShifts(bool whole) const;
    QString changeExamples(bool whole) const;
    // Per partition (label, is-null, as targetCounts): rows, then per summary
    // column statValues(kind) plain aggregates (non-NULL values, and for
    // numbers their sum, minimum and maximum) of the target's rows in scope
    // (`ofStage` false) or of the staged rows.
    // `withKept` (of the target): then per number column the minimum and
    // maximum of the rows rewind_changes does not change (a merge keeps
    // them), in the same read. Last, per summary column index in
    // `distinct`: its distinct values (as text), and of the target's, also
    // those of the rows the write keeps and of those among the values
    // rewind_changes puts in (the partition's after: kept + put in - shared).
    QString columnStats(bool ofStage, QVariantList &binds, bool withKept = false,
                        const std::vector<std::size_t> &distinct = {}) const;
    static int statValues(ColumnKind kind);
    // Per partition (as targetCounts): the minimum and maximum of each
    // number column over the target's rows in scope that rewind_changes does
    // not change (a merge keeps them as they are). The changed rows' index
    // first; the last statement takes binds.
    QStringList keptExtremes(QVariantList &binds) const;
    // One row when the target holds any row in the strategy's scope, none
    // when it does not (an index probe where the target has one).
    QString targetRowProbe(QVariantList &binds) const;

    // Samples of the partitions `parts`, LIMIT (rows a partition) bound as
    // the last value. For one partition the columns alone, in key order; for
    // many, each row led by its partition's label and is-null columns.
    QString sampleInserted(const std::vector<PartitionRef> &parts, QVariantList &binds) const;
    QString sampleUpdated(const std::vector<PartitionRef> &parts,
                          QVariantList &binds) const; // after columns, then before columns
    QString sampleUnchanged(const std::vector<PartitionRef> &parts, QVariantList &binds) const;
    QString sampleDeleted(const std::vector<PartitionRef> &parts, QVariantList &binds) const;

    // Publish statements for the partitions of the strategy's scope in the work tables.
    QString imagesTable() const;
    QStringList createTargetIfMissing() const;
    // The before-images table, typed like the stage (`beforeStage`: an scd2
    // schema change made before its first month stages: like the dimension).
    QStringList createImagesIfMissing(bool beforeStage = false) const;
    // An index on the before-images by run, kind, partition and key: what
    // a rollback's restores look rows up by.
    QString indexImages() const;
    // `binds` starts with the run id; the statement may append the scope's values.
    QString saveImagesUpdated(QVariantList &binds) const;
    // "INSERT INTO <images> (<columns>, rewind_run_id, rewind_op) SELECT ".
    QString imagesInsert() const;
    // `everyStagedRow`: the diff matched no staged row to a target row (a
    // backfill of empty partitions), so with a match by row identity every
    // staged row is an insert and none is looked up in rewind_match
    // (PostgreSQL: a TID scan per staged row, 190 of 520 ms for 95,000).
    QString saveImagesInserted(bool everyStagedRow = false) const; // bind: run id
    // `only`: of these partitions of the scope alone (the others publish by swap).
    QString saveImagesReplaced(QVariantList &binds,
                               const std::vector<PartitionRef> *only = nullptr) const;
    // The UPDATE of the changed rows, with the statements the engine needs around it, in order.
    std::vector<std::pair<QString, QVariantList>> mergeUpdate() const;
    QString mergeInsert(bool everyStagedRow = false) const; // see saveImagesInserted
    QString overwriteDelete(QVariantList &binds,
                            const std::vector<PartitionRef> *only = nullptr) const;
    QString overwriteInsert(QVariantList &binds,
                            const std::vector<PartitionRef> *only = nullptr) const;
    // INSERT of the staged rows (of `only`, when given) into `table` (quoted).
    QString insertStaged(const QString &table, const std::vector<PartitionRef> *only,
                         QVariantList &binds) const;

    // --- delete_insert and append (batchsql_rows.cpp) ---------------------------
    // The staged rows are every source row of the scope (stageSelect keeps
    // them all). Per partition (label, is-null): the staged rows' distinct
    // keys.
    bool keepsEveryRow() const { return m_dataset->keepsEveryRow(); }
    QString stagedKeyCounts() const;
    // Per partition (label, is-null, unless the strategy's scope is one
    // partition): the target rows a delete_insert deletes, those whose
    // partition and key are a staged row's. After createTargetCopy.
    QString keyedTargetCounts(QVariantList &binds) const;
    // Before-images of those rows (rewind_op 'deleted'); `binds` starts
    // with the run id.
    QString saveImagesDeletedByKey(QVariantList &binds) const;
    // Images of every staged row (rewind_op 'inserted', bind: run id): a
    // delete_insert's keep the partition and key (its rollback deletes by
    // key), an append's every column (its rollback deletes equal rows).
    QString saveImagesStaged() const;
    // The delete of a delete_insert: the target's rows of the scope whose
    // partition and key are a staged row's.
    QString deleteByStagedKeys(QVariantList &binds) const;

    // --- scd2 (the partition value is the effective date) --------------------
    // Work table rewind_scd2: per staged key of `month`, the version current
    // just before it (p_vf, p_vt) in `dim`, the start of the next later
    // version (e), and what reconciling the month does: del_c (drop a version
    // starting at the month that should not be there), ins_d (open a
    // version), close_p (close the earlier version at the month), extend_p
    // (the earlier version runs on to e). `dim` is a quoted table name.
    bool isScd2() const { return m_dataset->scd2.has_value(); }
    // A Trino warehouse: a publish is one statement (icebergPublish).
    bool publishesInOneStatement() const { return m_db.dialect().keepsControlApart(); }
    bool invalidatesHardDeletes() const {
        return isScd2() && m_dataset->scd2->invalidateHardDeletes;
    }
    QStringList createScd2Work(const QString &dim, const PartitionRef &month,
                               QVariantList &binds) const; // 2nd takes binds
    // opened, closed, extended, deleted, keys acted on, keys.
    QString scd2Counts() const;
    // Statements reconciling `dim` with the month in rewind_scd2, in order:
    // delete, close, extend, insert (run each only when its count is > 0).
    QStringList scd2Apply(const QString &dim) const;
    // The same as one MERGE (Trino, where a publish is one statement and
    // UPDATE has no FROM): each work row's delete, close, extend and insert
    // as rows of its source, every version matched by (key, valid_from).
    QString scd2Merge(const QString &dim) const;
    // Before-images of what scd2Apply changes in the target: deleted,
    // updated (closed or extended), inserted. Each binds the run id.
    QStringList scd2SaveImages() const;
    // The dimension as a preview simulates it: the target's versions of the
    // staged keys, or an empty table shaped like the target.
    QStringList createScd2Sim(bool fromTarget) const;
    QString scd2SimTable() const;
    QString quotedTarget() const { return qt(m_dataset->target); }
    // scd2 samples (LIMIT bound last): opened versions; unchanged staged rows;
    // closed versions, before then after.
    QString scd2SampleOpened() const;
    QString scd2SampleUnchanged() const;
    QString scd2SampleClosed(const QString &dim) const;
    QStringList targetColumns() const; // columns(), plus valid_from, valid_to, current for scd2
    // A SELECT list reading `columns` from the target (as `qualifier`), as
    // it is once the pending schema change is made: a column still to be
    // added NULL, of the type it is added with; one to be widened cast to
    // its new type.
    QStringList readTarget(const QString &qualifier, const QStringList &columns) const;

    // --- rollback of one partition of run `runId` (mode as the run recorded) ---
    std::vector<std::pair<QString, QVariantList>>
    rollbackStatements(WriteMode mode, const PartitionRef &p, const QVariant &runId) const;
    // Rows the rollback removes from the target, and rows it puts back.
    std::pair<QString, QVariantList> rollbackRemovedCount(WriteMode mode, const PartitionRef &p,
                                                          const QVariant &runId) const;
    std::pair<QString, QVariantList> rollbackRestoredCount(WriteMode mode, const PartitionRef &p,
                                                           const QVariant &runId) const;
    // The one statement of an append's rollback of `p` (batchsql_rollback.cpp).
    std::pair<QString, QVariantList> appendRollback(const PartitionRef &p,
                                                    const QVariant &runId) const;

    // The target's type for a source column whose values the engine would
    // neither compare with nor write to the target's column as they are
    // (text into a date on PostgreSQL); empty when none is needed. The stage
    // holds such columns cast to the target's type.
    QString targetCast(const QString &column) const { return m_cat.casts.value(column); }

    QString keyMatch(const QString &a, const QString &b) const; // partition + key, null-safe
    // keyMatch of `a` with the staged row `s` (or rows of the stage's keys,
    // rewind_changes', aliased `s`): plain equality while the
    // strategy says no staged partition or key is NULL, where
    // it means the same and, unlike PostgreSQL's null-safe spelling, lets the
    // planner hash join on the columns themselves and probe their index.
    // Where the stage is written already joined to the target
    // (createStageWithMatches), no staged
    // row exists to look at first: the caller matches on `=` and, when the
    // rows it got hold a NULL partition or key, asks again null-safe.
    QString stageKeyMatch(const QString &a, const QString &s = QStringLiteral("s")) const;
    // One row when a staged row's partition or a key column is NULL (before
    // createMatches, whose table keeps no keys to look at afterwards).
    QString stageKeysNullProbe() const;
    QString keyEqual(const QString &a, const QString &b) const; // key only, null-safe
    QString rowsDiffer(const QString &a, const QString &b) const;
    QString partExpr(const QString &qualifier) const;    // the partition column or NULL
    QString groupByPart(const QString &qualifier) const; // " GROUP BY <part>", or one group
    // The label columns (with a trailing comma) and the grouping of a count
    // over `scope`: none for one partition (see countedPartition).
    QString countLabels(const QString &qualifier, const std::vector<PartitionRef> &scope) const;
    QString countGrouping(const QString &qualifier, const std::vector<PartitionRef> &scope) const;
    QString partLabelColumns(const QString &qualifier) const; // label text, is-null flag

private:
    QString q(const QString &identifier) const { return m_db.quote(identifier); }
    QString icebergInsertMatched(const QStringList &columns) const;
    QString icebergPartitionMarkers(const std::vector<PartitionRef> &parts, qsizetype columns,
                                    QVariantList &binds) const;
    QString icebergPartitionMatch(const std::vector<PartitionRef> &parts) const;
    QString icebergNullSafeEqual(const QString &a, const QString &b) const;
    QString icebergKeyMatch() const;
    // A work table of this session (kStage, kMatch, ...): SqlDialect::workTable.
    QString w(const QString &table) const { return m_db.dialect().workTable(table); }
    QString createWork(const QString &table) const {
        return m_db.dialect().createWorkTableAs(table);
    }
    const BatchDialect &engine() const { return BatchDialect::of(m_db.dialect()); }
    QString qt(const QString &table) const { return m_db.quoteTable(table); }
    QString columnList(const QString &qualifier, const QStringList &columns) const;
    QString sampleFilter(const QString &qualifier, const std::vector<PartitionRef> &parts,
                         QVariantList &binds) const;
    QString sampleSelect(const std::vector<PartitionRef> &parts, const QStringList &qualifiers,
                         const QString &fromWhere, const QString &orderQualifier) const;
    QString stagedColumnList() const; // the source's columns as the stage holds them
    // A 0/1 expression as the value of the scd2 current column: a boolean
    // where the target declares one (a dimension made beforehand), else as is.
    QString currentFlag(const QString &zeroOrOne) const;
    // ", flag", ", flag AS current" or ", current = flag" (CurrentAs) where
    // the dimension has a current flag; empty where it has none.
    enum class CurrentAs { Value, Named, Assigned };
    // "tracked": "all": every staged column but the key.
    QStringList trackedAll() const;
    QString currentItem(const QString &zeroOrOne, CurrentAs as) const;
    QString partitionFilter(const QString &qualifier, const PartitionRef &p,
                            QVariantList &binds) const;
    // The source's partition column as the target's type reads it (as the
    // stage holds it; the column itself when no cast is needed).
    QString sourcePartExpr(const QString &qualifier) const;
    QString scopeOn(const QString &partition, const std::vector<PartitionRef> &scope,
                    QVariantList &binds) const;

    // The target as the diff reads it: the table itself when an index
    // serves key lookups, else the per-connection copy rewind_tgt.
    QString tgt() const;
    QString tgtScope(const QString &qualifier, QVariantList &binds) const;
    QString runCopyPredicate(const QString &qualifier, QVariantList &binds) const;
    QString insertedByMatch() const; // staged rows (alias s) that matched no target row
    QString stageTable() const;      // rewind_stage, or rewind_match when it holds the staged rows
    // The partition column (when partitioned), then the key columns not already in it.
    QStringList partitionAndKey() const;
    bool byIdentity() const { return m_strategy.match != BatchStrategy::Match::ByKey; }
    bool stagedInMatches() const {
        return m_strategy.match == BatchStrategy::Match::StagedWithIdentity;
    }
    QString anyKeyNull(const QString &qualifier)
        const; // 1 when a row's partition or a key column is NULL, aggregated

    // The per-connection temporary tables (batchsql.cpp, batchsql_scd2.cpp).
    static inline const QString kStage = QStringLiteral("rewind_stage");
    static inline const QString kTgt = QStringLiteral("rewind_tgt");
    static inline const QString kMatch = QStringLiteral("rewind_match");
    static inline const QString kChanges = QStringLiteral("rewind_changes");

    Database m_db;
    const DatasetSpec *m_dataset;
    DatasetCatalog m_cat;
    BatchStrategy m_strategy;
    std::vector<PartitionRef> m_runCopyScope; // setRunCopy()
    bool m_runCopyReuse = false;
    std::optional<QStringList> m_imagesColumns; // setImagesColumns()
    std::size_t m_wholeSourceScope = 0;
};

} // namespace rw
