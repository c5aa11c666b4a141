#pragma once

#include "core/batch/batch.h"
#include "core/batch/partitions.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"
#include "ui/common/page.h"

#include <atomic>
#include <memory>
#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTabBar;
class QTableView;

namespace rw {

class ChecksModel;
class ColumnsModel;
class DiffChart;
class LaunchDialog;
class PreviewDiffModel;
class RunManager;
class SamplesModel;
class StatTile;

// What a re-run would change, before anything is written: runs
// rw::preview on a worker (progress bar, Cancel), then shows the
// per-partition diff, a stacked bar chart, what each column would change
// (choosing one narrows the updated samples to the rows where it changed),
// sample rows per category (updates before/after with changed cells
// highlighted) and the gates. "Run this
// plan" opens the LaunchDialog for the plan the preview locked.
class PreviewPage : public Page {
    Q_OBJECT
public:
    static constexpr int kSamples = 20;

    explicit PreviewPage(QWidget *parent = nullptr);

    void setRunManager(RunManager *runs) { m_runs = runs; }

    // Previews `partitions` of `dataset` (empty: the whole dataset). With
    // `launchAfter`, the launch dialog opens once the preview is in.
    void preview(const Database &db, const DatasetSpec &dataset, const QStringList &partitions,
                 bool launchAfter = false);
    // Previews the partition that most needs attention (see mostUrgentPartition).
    void previewMostUrgent(const Database &db, const DatasetSpec &dataset);
    // Sets the cancel flag of the preview in flight; the worker stops at its
    // next check and the page shows "cancelled".
    void cancel();
    // A worker is still busy (a cancelled one included, until it returns).
    bool isRunning() const { return m_previewJobs.isRunning(); }

    // Failed first, then stale, duplicate keys, more target than source rows,
    // then unloaded; ties go to the latest partition. nullopt for none.
    static std::optional<QString> mostUrgentPartition(const std::vector<PartitionInfo> &partitions);

    // Opens the launch dialog for the current plan (nullptr without one).
    LaunchDialog *launch();

    void refresh() override; // previews the same scope again
    void clear() override;
    QString title() const override;
    QString statusText() const override;

    const std::optional<RunResult> &result() const { return m_result; }
    QString datasetName() const { return m_dataset ? m_dataset->name : QString(); }
    PreviewDiffModel *diffModel() const { return m_diffModel; }
    ChecksModel *checksModel() const { return m_checksModel; }
    SamplesModel *samplesModel() const { return m_samplesModel; }
    ColumnsModel *columnsModel() const { return m_columnsModel; }
    QTableView *columnsView() const { return m_columnsView; }
    DiffChart *chart() const { return m_chart; }
    QTabBar *sampleTabs() const { return m_sampleTabs; }
    QPushButton *cancelButton() const { return m_cancel; }
    QPushButton *runButton() const { return m_runButton; }
    QString messageText() const;

Q_SIGNALS:
    // A run was confirmed and has started; `liveRunId` is RunManager's id.
    void runLaunched(int liveRunId);

private:
    void start(const Database &db, const DatasetSpec &dataset, const QStringList &partitions,
               bool autoPick, bool launchAfter);
    void showResult(RunResult result);
    void showSamples(int tab);
    // The column chosen in the column summary (empty: none): the Updated
    // samples narrowed to the rows where it changed.
    void focusColumn(const QString &column);
    void setRunning(bool running, const QString &what = {});
    void showEmpty(const QString &message);
    // The plan's schema change under the title, or nothing when it has none.
    void showSchemaChange(const RunResult &r);

    std::optional<Database> m_db;
    std::optional<DatasetSpec> m_dataset;
    QStringList m_partitions;
    std::optional<RunResult> m_result;
    // Why this role may not run the plan (core/batch/batchprivileges.h), empty when it may.
    QString m_runRefusal;
    struct Previewed {
        RunResult result;
        QString runRefusal;
    };
    // The preview in flight; its tracker's destructor cancels it, nothing waits.
    JobTracker m_previewJobs{this};
    bool m_cancelRequested = false;
    RunManager *m_runs = nullptr;

    QStackedWidget *m_stack;
    QLabel *m_empty;
    QLabel *m_title;
    QLabel *m_subtitle;
    QLabel *m_schemaChange;
    QProgressBar *m_progress;
    QLabel *m_phase;
    QPushButton *m_cancel;
    QPushButton *m_againButton;
    QPushButton *m_runButton;
    StatTile *m_staged;
    StatTile *m_duplicates;
    StatTile *m_inserted;
    StatTile *m_updated;
    StatTile *m_deleted;
    StatTile *m_unchanged;
    StatTile *m_gates;
    QTableView *m_diffView;
    QTableView *m_checksView;
    QTableView *m_samplesView;
    QTableView *m_columnsView;
    QLabel *m_columnDetails = nullptr; // the chosen column's figures
    QWidget *m_columnsPanel;
    QTabBar *m_sampleTabs;
    QLabel *m_samplesNote;
    DiffChart *m_chart;
    PreviewDiffModel *m_diffModel;
    ChecksModel *m_checksModel;
    SamplesModel *m_samplesModel;
    ColumnsModel *m_columnsModel;
};

} // namespace rw
