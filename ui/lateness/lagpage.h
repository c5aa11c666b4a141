#pragma once

#include "core/batch/batch.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"
#include "ui/common/page.h"
#include "ui/lateness/latenesssnapshot.h"

#include <QPointer>
#include <functional>
#include <optional>

class QLabel;
class QPushButton;
class QSlider;
class QStackedWidget;
class QTableView;
class QVBoxLayout;

namespace rw {

class LagPartitionsModel;
class LatenessChart;
class LatenessStrip;
class LaunchDialog;
class LiveRunWidget;
class RunManager;
class StatTile;

// Late data of one dataset: the lateness histogram (log buckets, cumulative
// share, p50/p90/p99/p99.9), a watermark slider answering "what if the
// allowed lateness were X" from the loaded distribution (no query per move),
// a per-partition heat strip, and partition statuses with Finalize and
// Backfill stale, each previewed and confirmed in the launch dialog, then
// run by the RunManager with progress and Cancel shown here.
class LagPage : public Page {
    Q_OBJECT
public:
    explicit LagPage(QWidget *parent = nullptr);

    void setRunManager(RunManager *runs);
    // Shows `dataset` and loads its lateness in the background.
    void setDataset(const Database &db, const DatasetSpec &dataset);
    QString datasetName() const { return m_dataset ? m_dataset->name : QString(); }
    // A dataset the page can show: it has event_time and ingest_time.
    static bool hasLateness(const DatasetSpec &dataset);

    void refresh() override;
    void clear() override;
    QString title() const override;
    QString statusText() const override;

    // The slider's allowed lateness (seconds) and what it implies, from the
    // loaded snapshot.
    void setAllowedLateness(qint64 seconds); // the nearest slider step at or above
    qint64 whatIfSeconds() const;
    qint64 whatIfLate() const;
    double whatIfLateFraction() const;
    QString whatIfText() const;
    QString finalizationText() const;
    // What holds the watermark back (a lagging group of a feeding stream),
    // one line each; empty when nothing does.
    QString heldText() const;

    // Previews what Finalize / Backfill stale would run, then opens the
    // launch dialog (returned through launchDialog() once the preview is in).
    void startFinalize();
    void startBackfill();
    LaunchDialog *launchDialog() const;

    const std::optional<LatenessSnapshot> &snapshot() const { return m_snapshot; }
    QSlider *slider() const { return m_slider; }
    LagPartitionsModel *model() const { return m_model; }
    LatenessChart *chart() const { return m_chart; }
    LatenessStrip *strip() const { return m_strip; }
    QTableView *view() const { return m_view; }
    QPushButton *finalizeButton() const { return m_finalize; }
    QPushButton *backfillButton() const { return m_backfill; }
    LiveRunWidget *liveRun() const { return m_live; }

Q_SIGNALS:
    // The launch dialog for a finalize or backfill is open.
    void launchDialogOpened();
    // A run this page launched has finished (the page reloads itself).
    void runFinished(int liveRunId);

private:
    // The what-if point the slider stands on, or none before a report.
    const LatenessCandidate *whatIfPoint() const;
    void showSnapshot(LatenessSnapshot snapshot);
    void onSlider(int step);
    void updateActions();
    // The plan a launch dialog opens on, previewed off the GUI thread.
    using LaunchWork = std::function<Result<RunResult>(const Database &, const DatasetSpec &)>;
    // Runs `work` on a worker, saying `progress` meanwhile; opens the launch
    // dialog on its plan, or says why there is none.
    void prepareLaunch(const QString &progress, LaunchWork work, bool finalizing);
    void openLaunch(const RunResult &plan, bool finalizing);
    void watchRun(int id, QPointer<LaunchDialog> dialog);

    std::optional<Database> m_db;
    std::optional<DatasetSpec> m_dataset;
    std::optional<LatenessSnapshot> m_snapshot;
    RunManager *m_runs = nullptr;
    QPointer<LaunchDialog> m_dialog;
    bool m_preparing = false;
    int m_liveId = 0;

    QLabel *m_title;
    QLabel *m_subtitle;
    QLabel *m_held;
    QStackedWidget *m_stack;
    QLabel *m_empty;
    StatTile *m_events;
    StatTile *m_p50;
    StatTile *m_p99;
    StatTile *m_p999;
    StatTile *m_max;
    StatTile *m_late;
    StatTile *m_odd;
    QSlider *m_slider;
    QLabel *m_sliderValue;
    QLabel *m_whatIf;
    QLabel *m_finalization;
    QPushButton *m_specButton;
    QPushButton *m_suggestButton;
    LatenessChart *m_chart;
    LatenessStrip *m_strip;
    QLabel *m_stripLabel = nullptr;
    QTableView *m_view;
    LagPartitionsModel *m_model;
    QLabel *m_statusSummary;
    QPushButton *m_finalize;
    QPushButton *m_backfill;
    QLabel *m_actionState;
    QVBoxLayout *m_liveBox;
    LiveRunWidget *m_live = nullptr;
};

} // namespace rw
