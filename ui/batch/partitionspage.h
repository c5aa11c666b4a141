#pragma once

#include "core/recovery/recovery.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"
#include "ui/common/page.h"

#include <optional>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace rw {

class PartitionsModel;
class PartitionsProxyModel;
class StatTile;

// One dataset's partitions: what the source holds, what is published and
// their status, with totals in the header.
class PartitionsPage : public Page {
    Q_OBJECT
public:
    explicit PartitionsPage(QWidget *parent = nullptr);

    // Shows `dataset` and starts loading its partitions in the background.
    void setDataset(const Database &db, const DatasetSpec &dataset);
    QString datasetName() const;

    void refresh() override;
    void clear() override;
    QString title() const override;
    QString statusText() const override;

    QTableView *view() const { return m_view; }
    PartitionsModel *model() const { return m_model; }
    PartitionsProxyModel *proxy() const { return m_proxy; }
    // The header (title, facts and figures) as one line of plain text.
    QString summaryText() const;

    std::optional<Database> database() const { return m_db; }
    const DatasetSpec *dataset() const { return m_dataset ? &*m_dataset : nullptr; }
    // The selected partitions' labels, in partition order. A selected
    // unpartitioned whole ("(all)") gives an empty list: the whole dataset.
    QStringList selectedPartitions() const;
    bool hasSelection() const;
    // Selects exactly these partitions (those present); returns how many.
    int selectPartitions(const QStringList &partitions);
    // Selects these partitions once the current load is in.
    void selectAfterLoad(const QStringList &partitions) { m_pendingSelection = partitions; }
    // "3 selected, 41,230 rows" (source rows), or empty.
    QString selectionText() const;
    // The latest run that touched a selected partition, 0 for none.
    qint64 lastRunOfSelection() const;
    QLineEdit *filterEdit() const { return m_filter; }
    QComboBox *statusFilter() const { return m_statusCombo; }
    QAction *previewAction() const { return m_previewAction; }
    QAction *runAction() const { return m_runAction; }
    QAction *openRunAction() const { return m_openRunAction; }
    QAction *recoverAction() const { return m_recoverAction; }
    // dbt's run results (its run_results.json) for a dataset imported from
    // dbt: reloads the partitions, marks those dbt's run left to redo
    // (failed batches, or every one of a model whose run or test failed)
    // and selects them, ready to preview. Kept across refreshes until
    // another dataset is shown.
    void loadDbtResults(const QString &path);
    QString dbtResultsPath() const { return m_dbtResults; }
    QLabel *dbtNote() const { return m_dbtNote; }

Q_SIGNALS:
    // The operator asked to preview (or preview then run) these partitions.
    void previewRequested(const QStringList &partitions);
    void runRequested(const QStringList &partitions);
    void openRunRequested(qint64 runId);
    // The operator asked for the guided duplicate-incident recovery of this dataset.
    void recoverRequested();

private:
    void updateHeader();
    void showFrozen(const std::optional<FreezeInfo> &frozen);
    void updateCounts();
    void applyStatusFilter(int comboIndex);
    void updateSelection();

    std::optional<Database> m_db;
    std::optional<DatasetSpec> m_dataset;
    QStringList m_pendingSelection;
    QString m_dbtResults; // loadDbtResults()

    QLabel *m_title;
    QLabel *m_subtitle;
    QLabel *m_statusChips;
    QLabel *m_frozen;  // the dataset's freeze, when it has one
    QLabel *m_dbtNote; // what dbt's run results marked
    QPushButton *m_dbtButton;
    QString m_summary; // the tiles' figures as text
    StatTile *m_partitionsTile;
    StatTile *m_sourceTile;
    StatTile *m_targetTile;
    StatTile *m_duplicatesTile;
    StatTile *m_attentionTile;
    QLineEdit *m_filter;
    QComboBox *m_statusCombo;
    QLabel *m_shownCount;
    QLabel *m_selection;
    QAction *m_previewAction;
    QAction *m_runAction;
    QAction *m_openRunAction;
    QAction *m_recoverAction;
    QPushButton *m_previewButton;
    QPushButton *m_runButton;
    QPushButton *m_openRunButton;
    QPushButton *m_recoverButton;
    QTableView *m_view;
    PartitionsModel *m_model;
    PartitionsProxyModel *m_proxy;
};

} // namespace rw
