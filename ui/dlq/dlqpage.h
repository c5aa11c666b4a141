#pragma once

#include "core/dlq/dlq.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"
#include "ui/common/page.h"

#include <QPointer>
#include <atomic>
#include <memory>
#include <optional>

class QComboBox;
class QPlainTextEdit;
class QPushButton;
class QLabel;
class QListView;
class QTabWidget;
class QTableView;

namespace rw {

class DlqActionBar;
class ImportTopicDialog;
class RedriveDialog;
class DlqGroupsModel;
class DlqHistoryModel;
class DlqPayloadPanel;
class DlqRecordsModel;
class StatTile;

// DLQ triage: error signatures with counts on the left; the records of the
// chosen signature and status, paged lazily; the selected record's original
// and current payloads (editable, validated as typed) and its history; and
// actions on the selection (or on every record of the filter): set a JSON
// path, validate (dry run per record), replay with batch size, velocity,
// progress and Cancel, discard with a reason.
//
// Everything touching the database runs off the GUI thread through core
// (pageDlq, listDlq, showDlq, fixDlq, replayDlq, discardDlq). One operation
// runs at a time; a replay is cancelled (at a batch boundary) when the page
// is destroyed.
class DlqPage : public Page {
    Q_OBJECT
public:
    explicit DlqPage(QWidget *parent = nullptr);

    // Forgets the previous workspace; loads when shown (refresh()).
    void setWorkspace(const Database &db, const Spec &spec);

    void refresh() override;
    void clear() override;
    QString title() const override { return tr("Dead-letter queue"); }
    QString statusText() const override;

    // Filters (empty: all). Reload the records from their first page.
    void setStatusFilter(const QString &status);
    void setSignatureFilter(const QString &signature);
    // What the actions apply to: the selected rows, or every record of the filter.
    void setApplyToAllMatching(bool all);
    DlqSelection actionSelection() const;
    QList<qint64> selectedIds() const;
    // Selects the row of record `id` (loaded rows only) and shows it.
    bool selectRecord(qint64 id);

    // The actions, as the buttons run them. Each ends with operationFinished().
    void validateSelection();
    void replaySelection();
    // Opens the dialog that produces the selection back to Kafka (its dry
    // run first); the import of a dead-letter topic.
    RedriveDialog *openRedriveDialog();
    ImportTopicDialog *openImportDialog();
    QPushButton *importButton() const { return m_import; }
    QPlainTextEdit *kafkaView() const { return m_kafka; }
    void cancelReplay();
    void discardSelection();
    void saveFix(qint64 id, const QByteArray &payload);
    // Dry run first: shows what would change and waits for applyPendingSet().
    void previewSetPath(const QString &path, const QString &value);
    void applyPendingSet();
    bool isBusy() const { return m_busy; }

    DlqRecordsModel *recordsModel() const { return m_records; }
    DlqGroupsModel *groupsModel() const { return m_groups; }
    DlqHistoryModel *historyModel() const { return m_history; }
    QTableView *recordsView() const { return m_recordsView; }
    QListView *groupsView() const { return m_groupsView; }
    DlqPayloadPanel *payloadPanel() const { return m_payload; }
    DlqActionBar *actionBar() const { return m_actions; }
    bool showsEmptyState() const;
    // The last replay or validation, for the operator (and tests).
    const std::optional<DlqReplayResult> &lastReplay() const { return m_lastReplay; }

Q_SIGNALS:
    // An action ended; `message` is what the result line says.
    void operationFinished(const QString &operation, bool ok, const QString &message);
    // The record's payloads and history are shown.
    void recordShown(qint64 id);
    // A replay reported a committed batch.
    void replayProgressed(qint64 processed, qint64 selected);

private:
    struct Summary {
        DlqCounts all;
        DlqListResult filtered;
        QString writeRefused, importRefused; // why this role may not change or import records
    };

    void applyFilter(bool reloadGroups);
    void loadSummary();
    void loadDetail(qint64 id);
    void onFirstPage();
    void maybeLoaded();
    void updateActions();
    void showKafka(const DlqDetail &detail);
    void onReplayProgress(const DlqReplayProgress &progress);
    void updateCount();
    void setBusy(bool busy);
    void finishOperation(const QString &operation, bool ok, const QString &message,
                         const QList<qint64> &touched);
    void showResult(bool ok, const QString &message);
    qint64 selectionSize() const;

    std::optional<Database> m_db;
    std::optional<Spec> m_spec;
    QString m_statusFilter;
    QString m_signatureFilter;
    qint64 m_filteredTotal = -1;
    // Why this role may not change records (fix, discard, replay, redrive) or
    // import them, asked with each summary; empty: it may.
    QString m_writeRefused, m_importRefused;
    bool m_busy = false;
    bool m_waitFirstPage = false;
    bool m_waitSummary = false;
    bool m_waitDetail = false;
    // The record whose detail was asked for last: the one on show, or the
    // one selected while its detail is still loading.
    qint64 m_detailId = 0;
    // A load is the first page of records, the summary and the first
    // record's detail: the page is loaded when all three are in.
    quint64 m_loadId = 0;
    JobTracker m_summaryJobs{this};
    JobTracker m_detailJobs{this};
    // Its tracker's destructor cancels a replay in flight (at its next batch
    // boundary) and drops its reports: the page does not wait for it.
    JobTracker m_replayJobs{this};
    std::optional<DlqReplayResult> m_lastReplay;
    std::optional<DlqFixRequest> m_pendingSet;

    StatTile *m_totalTile;
    StatTile *m_newTile;
    StatTile *m_failedTile;
    StatTile *m_fixedTile;
    StatTile *m_replayedTile;
    StatTile *m_discardedTile;
    QListView *m_groupsView;
    DlqGroupsModel *m_groups;
    QComboBox *m_status;
    QLabel *m_count;
    QTableView *m_recordsView;
    DlqRecordsModel *m_records;
    QLabel *m_empty;
    QWidget *m_recordsArea;
    DlqActionBar *m_actions;
    QTabWidget *m_tabs;
    DlqPayloadPanel *m_payload;
    QTableView *m_historyView;
    DlqHistoryModel *m_history;
    QPlainTextEdit *m_kafka; // a Kafka record's origin, key and headers
    QPushButton *m_import;
    QPointer<RedriveDialog> m_redrive;
    QPointer<ImportTopicDialog> m_importDialog;
};

} // namespace rw
