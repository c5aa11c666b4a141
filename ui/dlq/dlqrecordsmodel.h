#pragma once

#include "core/dlq/dlq.h"
#include "core/sql/database.h"
#include "ui/common/jobtracker.h"
#include "ui/common/tablemodel.h"

#include <QHash>
#include <optional>
#include <vector>

namespace rw {

// The DLQ records of a filter, paged lazily: the first page is fetched when
// the filter is set, the next one when the view scrolls to the end
// (canFetchMore/fetchMore). Pages are keyset reads (rw::pageDlq) run off the
// GUI thread; setting a filter drops the pages still coming for the old one, so a
// DLQ of a million records opens with one page loaded.
//
// Rows once loaded stay (a record whose status changes is updated in place,
// not removed, so the operator's selection does not jump).
class DlqRecordsModel : public ColumnTableModel<DlqRecord> {
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        StatusColumn,
        CheckColumn,
        SourceColumn,
        EventColumn,
        ErrorColumn,
        AttemptsColumn,
        FirstSeenColumn,
        ColumnCount
    };
    enum Role { IdRole = FirstCustomRole, StatusRole, SignatureRole };
    static constexpr int kDefaultPageSize = 250;

    explicit DlqRecordsModel(QObject *parent = nullptr);

    // Drops every row and loads the first page of `filter`.
    void setFilter(const Database &db, const DlqSelection &filter);
    // Drops every row and forgets the database.
    void clear();
    // Reloads from the first page with the same filter.
    void reload();
    // Reloads these records' rows in place (after a fix, replay or discard).
    void refreshRecords(const QList<qint64> &ids);

    void setPageSize(int rows) { m_pageSize = std::max(1, rows); }
    int pageSize() const { return m_pageSize; }
    const DlqSelection &filter() const { return m_filter; }
    // Pages fetched since the filter was set.
    int pagesFetched() const { return m_pagesFetched; }
    bool isFetching() const { return m_fetching; }
    // True once a page came back short: every matching record is loaded.
    bool isComplete() const { return m_complete; }

    const DlqRecord &record(int row) const { return m_rows[std::size_t(row)]; }
    // The row of record `id`, -1 when it is not loaded.
    int rowOf(qint64 id) const;

    // The dry-run verdicts of a validation, shown in the check column.
    void setVerdicts(const std::vector<DlqVerdict> &verdicts);
    void clearVerdicts();
    const DlqVerdict *verdict(qint64 id) const;
    bool hasVerdicts() const { return !m_verdicts.isEmpty(); }

    int rowCount(const QModelIndex &parent = {}) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

Q_SIGNALS:
    // A page arrived and its rows are in (possibly none).
    void pageFetched(int rows);
    void fetchFailed(const QString &message);
    // Rows of refreshRecords() were updated.
    void recordsRefreshed(const QList<qint64> &ids);

protected:
    const DlqRecord *rowAt(const QModelIndex &index) const override;
    QVariant cellData(const DlqRecord &record, int column, int role) const override;

private:
    // Drops every row and the pages still coming; without a database also the verdicts.
    void restart(std::optional<Database> db, const DlqSelection &filter);
    void fetchPage();
    QString checkText(const DlqRecord &record) const;

    std::optional<Database> m_db;
    DlqSelection m_filter;
    std::vector<DlqRecord> m_rows;
    QHash<qint64, int> m_rowOf;
    QHash<qint64, DlqVerdict> m_verdicts;
    int m_pageSize = kDefaultPageSize;
    int m_pagesFetched = 0;
    JobTracker m_jobs{this, JobTracker::Policy::Concurrent}; // this filter's page and refresh reads
    bool m_fetching = false;
    bool m_complete = true;
};

} // namespace rw
