#pragma once

#include "core/batch/batch.h"
#include "core/recovery/recovery.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"
#include "ui/common/page.h"

#include <QPointer>
#include <array>
#include <optional>
#include <vector>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QAbstractItemModel;
class QTableView;

namespace rw {

class ConfirmDialog;
class MarkdownView;
class DuplicatesModel;
class ErrorBanner;
class PreviewDiffModel;
class TotalsModel;

// The guided recovery of a duplicate incident, as a page with a step list:
// the core's five steps (freeze; identify; re-run the affected partitions by
// overwrite from the deduped source; check business totals; unique index and
// unfreeze), then the Markdown report with Save as.
//
// Each step shows what it will do before it runs (the core's dry-run
// figures: duplicate keys, extra rows, affected partitions, samples; the
// re-run's per-partition diff; totals source against target) and what it did
// after. Every step runs in the background on a copy of the recovery so far
// and hands the updated copy back; the re-run is confirmed by typing the
// dataset name and executes the previewed plan (refused if the source
// changed meanwhile). A failed step shows the banner, leaves the dataset
// frozen (as the core does) and offers the report.
class RecoverPage : public Page {
    Q_OBJECT
public:
    enum Step { FreezeStep, IdentifyStep, RerunStep, TotalsStep, IndexStep, ReportStep, StepCount };

    explicit RecoverPage(QWidget *parent = nullptr);

    // Starts over for `dataset`: plans in the background (writes nothing).
    void setDataset(const Database &db, const DatasetSpec &dataset);
    QString datasetName() const;

    // Before the first step: plans again. Later: previews the re-run again
    // when it is the next step; otherwise does nothing (the wizard keeps its state).
    void refresh() override;
    void clear() override;
    QString title() const override;
    QString statusText() const override;

    // The step on show, and the first one not yet run (ReportStep when all ran or one failed).
    Step shownStep() const { return m_shown; }
    Step nextStep() const;
    // Done, skipped or failed once the step ran; nullopt before.
    std::optional<RecoveryStepStatus> stepStatus(Step step) const;
    // Runs the next step; the re-run first asks for the typed confirmation.
    bool runNextStep();
    // Shows the step after the one on show, once that one has run.
    bool goNext();
    bool isBusy() const { return m_busy; }
    bool isPlanned() const { return m_result.has_value(); }
    const std::optional<RecoveryResult> &result() const { return m_result; }
    const std::optional<RunResult> &rerunPreview() const { return m_rerunPreview; }

    ErrorBanner *banner() const { return m_banner; }
    QPushButton *actionButton() const { return m_action; }
    QPushButton *nextButton() const { return m_next; }
    QListWidget *stepList() const { return m_steps; }
    ConfirmDialog *confirmDialog() const;
    DuplicatesModel *duplicatesModel() const { return m_duplicatesModel; }
    PreviewDiffModel *rerunModel() const { return m_rerunModel; }
    TotalsModel *totalsModel() const { return m_totalsModel; }
    // The shown step's preview or outcome, as plain text.
    QString stepText() const;
    // The report as Markdown; the view shows each per-partition table up to
    // kReportPartitionsShown partitions, a saved report all of them.
    static constexpr std::size_t kReportPartitionsShown = 50;
    QString reportMarkdown(std::size_t partitionsShown = std::size_t(-1)) const;
    QString reportText() const;
    bool saveReport(const QString &path);

Q_SIGNALS:
    // A step ran (done, skipped or failed), or failed to run (the banner says why).
    void stepFinished(int step);
    // The re-run's preview is in.
    void rerunPreviewed();
    // The recovery changed the dataset (freeze, data, index).
    void datasetChanged(const QString &dataset);
    void backRequested();

private:
    // Forgets the recovery in hand (its steps, result, outcome), cancelling its jobs.
    void resetRecovery();
    struct Plan {
        Recovery recovery;
        std::vector<RecoveryStepResult> steps;
        std::optional<FreezeInfo> freeze;
        QString refused;
    };

    // A Trino warehouse (Iceberg): a freeze binds Rewind only, and step 5
    // checks the keys instead of adding an index.
    bool onIceberg() const;
    QString freezeExplanation() const;
    QString indexExplanation() const;
    QWidget *buildFreezePage();
    QWidget *buildIdentifyPage();
    QWidget *buildRerunPage();
    QWidget *buildTotalsPage();
    // A step's page of a caption (<name>Caption), a table (<name>View) over
    // `model` and the step's state line.
    QWidget *buildTablePage(const QString &heading, const QString &explanation, const QString &name,
                            QLabel *&caption, QTableView *&view, QAbstractItemModel *model,
                            Step step);
    QWidget *buildIndexPage();
    QWidget *buildReportPage();
    void showStep(Step step);
    void updateSteps();
    void updateViews();
    void updateButtons();
    void setBusy(bool busy, const QString &what);
    void previewRerun();
    void confirmRerun();
    void executeStep(Step step, const QString &planId = QString());
    void onProgress(const Progress &p);

    std::optional<Database> m_db;
    std::optional<DatasetSpec> m_dataset;
    std::optional<Recovery> m_recovery;     // the engine's state, copied into each step's worker
    std::optional<RecoveryResult> m_result; // what the views show: m_recovery's result
    std::vector<RecoveryStepResult> m_planned;
    std::optional<FreezeInfo> m_freezeAtPlan;
    QString m_refused; // why this role may not recover the dataset, asked with each plan
    std::optional<RunResult> m_rerunPreview;
    std::array<QString, StepCount> m_outcome; // per step: what it did, or why it failed
    Step m_shown = FreezeStep;
    bool m_busy = false;
    JobTracker m_stepJobs{this};

    QLabel *m_title;
    QLabel *m_subtitle;
    ErrorBanner *m_banner;
    QListWidget *m_steps;
    QStackedWidget *m_pages;
    std::array<QLabel *, StepCount> m_state{};
    QLabel *m_incident;
    QLabel *m_plan;
    QLabel *m_identifyCaption;
    QTableView *m_duplicatesView;
    QPlainTextEdit *m_samples;
    QLabel *m_rerunSummary;
    QTableView *m_rerunView;
    QLabel *m_totalsCaption;
    QTableView *m_totalsView;
    QLabel *m_indexText;
    QLabel *m_freezeExplanation = nullptr;
    QLabel *m_indexExplanation = nullptr;
    MarkdownView *m_report;
    QPushButton *m_saveReport;
    QPushButton *m_back;
    QProgressBar *m_progress;
    QLabel *m_progressText;
    QPushButton *m_action;
    QPushButton *m_next;
    DuplicatesModel *m_duplicatesModel;
    PreviewDiffModel *m_rerunModel;
    TotalsModel *m_totalsModel;
    QPointer<ConfirmDialog> m_confirm;
};

} // namespace rw
