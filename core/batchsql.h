#pragma once

#include "batch.h"
#include "database.h"
#include "spec.h"

namespace rw {

// Builds the set-based SQL of a batch operation for one dataset. Every
// identifier is quoted; partition values are bound (see partitionBinds()).
//
// Working tables are per-connection temporaries:
//   rewind_stage  the scoped source, deduped to one row per (partition, key)
//   rewind_tgt    the scoped target, as it was before the write
// Rows are matched on the partition and the key with null-safe equality.
class BatchSql {
public:
    // Resolves the dataset's columns from the catalog.
    static Result<BatchSql> make(const Database &db, const DatasetSpec &dataset);

    const QStringList &columns() const { return m_columns; }
    const QStringList &keyColumns() const { return m_key; }
    const QStringList &valueColumns() const { return m_values; }
    bool targetExists() const { return m_targetExists; }
    void setTargetExists(bool exists) { m_targetExists = exists; }

    // `WHERE`-clause predicate on the partition column for `scope`, with
    // its bound values appended to `binds`. TRUE for an unpartitioned dataset.
    QString scopePredicate(const QString &qualifier, const std::vector<PartitionRef> &scope, QVariantList &binds) const;

    // SELECT of the scoped source rows (all columns).
    QString scopedSource(const std::vector<PartitionRef> &scope, QVariantList &binds) const;

    // Per partition: label, is-null, source rows, fingerprint.
    QString sourceStats(const std::vector<PartitionRef> &scope, QVariantList &binds) const;
    QString fingerprintExpr() const;

    QStringList createStage(const std::vector<PartitionRef> &scope, QVariantList &binds) const; // last one takes binds
    QStringList createTargetCopy(const std::vector<PartitionRef> &scope, QVariantList &binds) const;
    QStringList dropWorkTables() const;

    // Per partition (label, is-null): staged rows.
    QString stagedCounts() const;
    // Per partition (label, is-null): inserted, updated staged rows.
    QString diffCounts() const;
    // Per partition (label, is-null): target rows in scope.
    QString targetCounts(QVariantList &binds) const;

    // Samples, LIMIT bound as the last value.
    QString sampleInserted(const PartitionRef &p, QVariantList &binds) const;
    QString sampleUpdated(const PartitionRef &p, QVariantList &binds) const; // after columns, then before columns
    QString sampleUnchanged(const PartitionRef &p, QVariantList &binds) const;
    QString sampleDeleted(const PartitionRef &p, QVariantList &binds) const;

    // Publish statements for the one partition in the work tables.
    QString imagesTable() const;
    QStringList createTargetIfMissing() const;
    QStringList createImagesIfMissing() const;
    // `binds` starts with the run id; the statement may append the scope's values.
    QString saveImagesUpdated(QVariantList &binds) const;
    QString saveImagesInserted() const; // bind: run id
    QString saveImagesReplaced(QVariantList &binds) const;
    QString mergeUpdate(const PartitionRef &p, QVariantList &binds) const;
    QString mergeInsert() const;
    QString overwriteDelete(const PartitionRef &p, QVariantList &binds) const;
    QString overwriteInsert() const;

    QString keyMatch(const QString &a, const QString &b) const; // partition + key, null-safe
    QString rowsDiffer(const QString &a, const QString &b) const;
    QString partExpr(const QString &qualifier) const;      // the partition column or NULL
    QString partLabelColumns(const QString &qualifier) const; // label text, is-null flag

private:
    BatchSql(const Database &db, const DatasetSpec &dataset) : m_db(db), m_dataset(&dataset) {}
    QString q(const QString &identifier) const { return m_db.quote(identifier); }
    QString columnList(const QString &qualifier, const QStringList &columns) const;
    QString partitionFilter(const QString &qualifier, const PartitionRef &p, QVariantList &binds) const;

    // The target as the diff reads it: the table itself when an index
    // serves key lookups, else the per-connection copy rewind_tgt.
    QString tgt() const;
    QString tgtScope(const QString &qualifier, QVariantList &binds) const;

    Database m_db;
    const DatasetSpec *m_dataset;
    bool m_targetIndexed = false;                  // an index leads with a key column (or partition, key)
    mutable bool m_direct = false;                 // this scope reads the target directly
    mutable std::vector<PartitionRef> m_tgtScope; // the scope of the last createTargetCopy
    QStringList m_columns; // as the source / transform yields them
    QStringList m_key;     // dataset key, or every column when it has none
    QStringList m_values;  // columns that are neither key nor partition
    bool m_targetExists = false;
};

} // namespace rw
