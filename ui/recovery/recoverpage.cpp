#include "ui/recovery/recoverpage.h"

#include "core/batch/partitions.h"
#include "ui/batch/previewdiffmodel.h"
#include "ui/common/confirmdialog.h"
#include "ui/common/errorbanner.h"
#include "ui/common/format.h"
#include "ui/common/markdownview.h"
#include "ui/common/style.h"
#include "ui/recovery/duplicatesmodel.h"
#include "ui/recovery/totalsmodel.h"

#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QStackedWidget>
#include <QStringBuilder>
#include <QTableView>
#include <QVBoxLayout>

namespace rw {

namespace {

// The core's step names, in the wizard's order (unfreeze goes with the index).
// The core step each page of the step list shows (the report page has none).
const RecoveryStep kCoreSteps[] = {RecoveryStep::Freeze, RecoveryStep::Identify,
                                   RecoveryStep::Rerun, RecoveryStep::Totals,
                                   RecoveryStep::UniqueIndex};

QTableView *table(QWidget *parent, const QString &objectName) {
    auto *view = new QTableView(parent);
    view->setObjectName(objectName);
    view->setSelectionMode(QAbstractItemView::NoSelection);
    style::setupTable(view, 8, true);
    return view;
}

QWidget *stepPage(const QString &heading, const QString &explanation, QVBoxLayout *&layout) {
    auto *page = new QWidget;
    layout = new QVBoxLayout(page);
    layout->setContentsMargins(12, 0, 0, 0);
    layout->setSpacing(8);
    auto *h = new QLabel(heading, page);
    style::makeTitle(h, 1.25);
    layout->addWidget(h);
    QLabel *e = style::richLabel(page);
    e->setText(explanation);
    e->setStyleSheet(style::textColour(style::Colour::Subtitle));
    layout->addWidget(e);
    return page;
}

QString partitionsText(const QStringList &labels) {
    if (labels.size() <= 6)
        return labels.join(QStringLiteral(", "));
    return QObject::tr("%1 partitions, %2 \u2026 %3")
        .arg(labels.size())
        .arg(labels.first(), labels.last());
}

QString plain(const QString &html) {
    QString text = html;
    text.replace(QRegularExpression(QStringLiteral("<(br|/p|/tr|/h\\d)[^>]*>")),
                 QStringLiteral("\n"));
    text.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    return text.replace(QStringLiteral("&nbsp;"), QStringLiteral(" ")).trimmed();
}

} // namespace

RecoverPage::RecoverPage(QWidget *parent)
    : Page(parent)
    , m_title(new QLabel(this))
    , m_subtitle(new QLabel(this))
    , m_banner(new ErrorBanner(this))
    , m_steps(new QListWidget(this))
    , m_pages(new QStackedWidget(this))
    , m_incident(nullptr)
    , m_plan(nullptr)
    , m_identifyCaption(nullptr)
    , m_duplicatesView(nullptr)
    , m_samples(nullptr)
    , m_rerunSummary(nullptr)
    , m_rerunView(nullptr)
    , m_totalsCaption(nullptr)
    , m_totalsView(nullptr)
    , m_indexText(nullptr)
    , m_report(nullptr)
    , m_saveReport(nullptr)
    , m_back(new QPushButton(tr("Back to partitions"), this))
    , m_progress(new QProgressBar(this))
    , m_progressText(new QLabel(this))
    , m_action(new QPushButton(this))
    , m_next(new QPushButton(this))
    , m_duplicatesModel(new DuplicatesModel(this))
    , m_rerunModel(new PreviewDiffModel(this))
    , m_totalsModel(new TotalsModel(this)) {
    setObjectName(QStringLiteral("recoverPage"));
    style::makeTitle(m_title);
    m_subtitle->setStyleSheet(style::textColour(style::Colour::Subtitle));
    m_banner->setObjectName(QStringLiteral("recoverBanner"));

    m_steps->setObjectName(QStringLiteral("recoverSteps"));
    m_steps->setFixedWidth(250);
    m_steps->setSpacing(3);
    m_steps->setStyleSheet(
        QStringLiteral("QListWidget { border: 1px solid %1; background: %2; padding: 4px; }"
                       "QListWidget::item { padding: 6px 4px; }"
                       "QListWidget::item:selected { background: %3; color: %4; }")
            .arg(style::colour(style::Colour::Border), style::colour(style::Colour::Panel),
                 style::colour(style::Colour::Selection), style::colour(style::Colour::Text)));
    const QString labels[] = {tr("1  Freeze writers"),
                              tr("2  Identify duplicates"),
                              tr("3  Re-run affected partitions"),
                              tr("4  Check business totals"),
                              tr("5  Unique index, unfreeze"),
                              tr("Report")};
    for (const QString &label : labels) {
        auto *item = new QListWidgetItem(label, m_steps);
        item->setData(Qt::UserRole, label);
    }
    connect(m_steps, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0 && row < StepCount && Step(row) != m_shown)
            showStep(Step(row));
    });

    m_pages->addWidget(buildFreezePage());
    m_pages->addWidget(buildIdentifyPage());
    m_pages->addWidget(buildRerunPage());
    m_pages->addWidget(buildTotalsPage());
    m_pages->addWidget(buildIndexPage());
    m_pages->addWidget(buildReportPage());

    m_progress->setObjectName(QStringLiteral("recoverProgress"));
    m_progress->setMaximumWidth(240);
    m_progress->setTextVisible(false);
    m_progress->hide();
    m_progressText->setObjectName(QStringLiteral("recoverProgressText"));
    m_progressText->setStyleSheet(style::textColour(style::Colour::Subtitle));
    m_action->setObjectName(QStringLiteral("recoverAction"));
    m_action->setStyleSheet(
        QStringLiteral("QPushButton { font-weight: bold; padding: 4px 14px; }"));
    m_next->setObjectName(QStringLiteral("recoverNext"));
    m_back->setObjectName(QStringLiteral("recoverBack"));
    connect(m_action, &QPushButton::clicked, this, &RecoverPage::runNextStep);
    connect(m_next, &QPushButton::clicked, this, &RecoverPage::goNext);
    connect(m_back, &QPushButton::clicked, this, &RecoverPage::backRequested);

    auto *bottom = new QHBoxLayout;
    bottom->addWidget(m_back);
    bottom->addSpacing(12);
    bottom->addWidget(m_progress);
    bottom->addWidget(m_progressText, 1);
    bottom->addWidget(m_action);
    bottom->addWidget(m_next);

    auto *body = new QHBoxLayout;
    body->addWidget(m_steps);
    body->addWidget(m_pages, 1);

    auto *layout = style::pageLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_subtitle);
    layout->addWidget(m_banner);
    layout->addLayout(body, 1);
    layout->addLayout(bottom);
    clear();
}

QWidget *RecoverPage::buildFreezePage() {
    QVBoxLayout *l = nullptr;
    QWidget *page = stepPage(tr("1. Freeze writers"),
                             tr("Stops Rewind's own writers (runs, resumes, rollbacks, replays) "
                                "from touching the dataset while it "
                                "is repaired, so the duplicates stop moving. Previews still work. "
                                "Every step is recorded in the audit log."),
                             l);
    m_incident = style::richLabel(page, QStringLiteral("recoverIncident"));
    m_plan = style::richLabel(page, QStringLiteral("recoverPlan"));
    m_state[FreezeStep] = style::richLabel(page);
    l->addWidget(m_incident);
    l->addWidget(m_plan);
    l->addWidget(m_state[FreezeStep]);
    l->addStretch(1);
    return page;
}

QWidget *RecoverPage::buildIdentifyPage() {
    QVBoxLayout *l = nullptr;
    QWidget *page = stepPage(tr("2. Identify duplicates"),
                             tr("Finds the keys that have more than one row per partition (NULL "
                                "keys match NULL keys) in one grouped "
                                "query, now that the dataset is frozen, and records them. The "
                                "partitions listed here are the ones step 3 re-runs."),
                             l);
    m_identifyCaption = style::richLabel(page, QStringLiteral("identifyCaption"));
    m_duplicatesView = table(page, QStringLiteral("duplicatesView"));
    m_duplicatesView->setModel(m_duplicatesModel);
    m_samples = new QPlainTextEdit(page);
    m_samples->setObjectName(QStringLiteral("duplicateSamples"));
    m_samples->setReadOnly(true);
    m_samples->setFont(QFont(QStringLiteral("monospace")));
    m_samples->setMaximumHeight(110);
    m_state[IdentifyStep] = style::richLabel(page);
    l->addWidget(m_identifyCaption);
    l->addWidget(m_duplicatesView, 1);
    l->addWidget(new QLabel(tr("Example keys (partition, key, rows):"), page));
    l->addWidget(m_samples);
    l->addWidget(m_state[IdentifyStep]);
    return page;
}

QWidget *RecoverPage::buildRerunPage() {
    QVBoxLayout *l = nullptr;
    QWidget *page = stepPage(
        tr("3. Re-run the affected partitions"),
        tr("Replaces each affected partition whole (overwrite) with the deduped source, through "
           "the batch core: "
           "one transaction per partition with its checkpoint and before-images, so the run can be "
           "rolled back. "
           "The run executes exactly this preview, and is refused if the source changed since."),
        l);
    m_rerunSummary = style::richLabel(page, QStringLiteral("rerunSummary"));
    m_rerunView = table(page, QStringLiteral("rerunView"));
    m_rerunView->setModel(m_rerunModel);
    m_state[RerunStep] = style::richLabel(page);
    l->addWidget(m_rerunSummary);
    l->addWidget(m_rerunView, 1);
    l->addWidget(m_state[RerunStep]);
    return page;
}

QWidget *RecoverPage::buildTotalsPage() {
    QVBoxLayout *l = nullptr;
    QWidget *page = stepPage(tr("4. Check business totals"),
                             tr("Compares, per affected partition, the row count and the sum of "
                                "every numeric column of the target with "
                                "the deduped source (what a clean load holds). A mismatch stops "
                                "the recovery with the dataset still frozen."),
                             l);
    m_totalsCaption = style::richLabel(page, QStringLiteral("totalsCaption"));
    m_totalsView = table(page, QStringLiteral("totalsView"));
    m_totalsView->setModel(m_totalsModel);
    m_state[TotalsStep] = style::richLabel(page);
    l->addWidget(m_totalsCaption);
    l->addWidget(m_totalsView, 1);
    l->addWidget(m_state[TotalsStep]);
    return page;
}

QWidget *RecoverPage::buildIndexPage() {
    QVBoxLayout *l = nullptr;
    QWidget *page = stepPage(tr("5. Prevent a recurrence, then unfreeze"),
                             tr("Adds a unique index on (partition, key) so the database itself "
                                "refuses a second row for a key, "
                                "whoever writes it, then lifts the freeze. Refused if a key column "
                                "holds NULL (a unique index treats "
                                "NULLs as distinct) or duplicates remain."),
                             l);
    m_indexText = style::richLabel(page, QStringLiteral("indexText"));
    m_state[IndexStep] = style::richLabel(page);
    l->addWidget(m_indexText);
    l->addWidget(m_state[IndexStep]);
    l->addStretch(1);
    return page;
}

QWidget *RecoverPage::buildReportPage() {
    QVBoxLayout *l = nullptr;
    QWidget *page = stepPage(tr("Recovery report"),
                             tr("What happened, the steps, counts before and after, totals, and "
                                "what now prevents a recurrence."),
                             l);
    m_report = new MarkdownView(page);
    m_report->setObjectName(QStringLiteral("recoveryReport"));
    m_saveReport = new QPushButton(tr("Save as\u2026"), page);
    m_saveReport->setObjectName(QStringLiteral("saveReport"));
    m_saveReport->setToolTip(tr("Save the report as Markdown"));
    connect(m_saveReport, &QPushButton::clicked, this, [this] {
        if (!m_result)
            return;
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save recovery report"),
            QStringLiteral("recovery-%1.md").arg(m_result->dataset), tr("Markdown (*.md)"));
        if (!path.isEmpty() && saveReport(path))
            m_banner->showMessage(ErrorBanner::Level::Info, tr("Report saved to %1").arg(path));
    });
    auto *row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(m_saveReport);
    l->addWidget(m_report, 1);
    l->addLayout(row);
    return page;
}

void RecoverPage::setDataset(const Database &db, const DatasetSpec &dataset) {
    m_db = db;
    m_dataset = dataset;
    m_recovery.reset();
    m_result.reset();
    m_planned.clear();
    m_freezeAtPlan.reset();
    m_rerunPreview.reset();
    m_outcome = {};
    m_stepJobs.cancel();
    m_busy = false;
    m_banner->dismiss();
    m_title->setText(tr("Recover duplicates: %1").arg(dataset.name));
    QStringList facts{tr("target %1").arg(dataset.target),
                      tr("key %1").arg(dataset.key.join(QStringLiteral(", "))),
                      dataset.partitioned() ? tr("partitioned by %1").arg(dataset.partitionColumn)
                                            : tr("unpartitioned"),
                      tr("mode %1").arg(enumName(dataset.write))};
    m_subtitle->setText(facts.join(QStringLiteral("  \u00b7  ")));
    updateViews();
    showStep(FreezeStep);
    refresh();
}

QString RecoverPage::datasetName() const {
    return m_dataset ? m_dataset->name : QString();
}

QString RecoverPage::title() const {
    return m_dataset ? tr("Recover %1").arg(m_dataset->name) : tr("Recover");
}

QString RecoverPage::statusText() const {
    if (!m_result)
        return title();
    const RecoveryResult &r = *m_result;
    return tr("%1: %2 duplicate keys, %3 extra rows in %4 partition(s)%5")
        .arg(r.dataset, fmt::number(r.before.duplicateKeys), fmt::number(r.before.extraRows))
        .arg(r.before.partitions.size())
        .arg(r.status == RecoveryStatus::Planned ? QString()
                                                 : QStringLiteral(" \u00b7 ") % enumName(r.status));
}

void RecoverPage::clear() {
    cancelLoad();
    m_stepJobs.cancel();
    m_db.reset();
    m_dataset.reset();
    m_recovery.reset();
    m_result.reset();
    m_planned.clear();
    m_freezeAtPlan.reset();
    m_rerunPreview.reset();
    m_outcome = {};
    m_busy = false;
    m_banner->dismiss();
    m_title->setText(tr("Recover duplicates"));
    m_subtitle->setText(
        tr("Open a dataset and choose Recover duplicates\u2026 on its partitions page."));
    m_progress->hide();
    m_progressText->clear();
    updateViews();
    showStep(FreezeStep);
}

void RecoverPage::refresh() {
    if (!m_db || !m_dataset || m_busy)
        return;
    if (m_result && m_result->executed) {
        if (nextStep() == RerunStep && m_shown == RerunStep)
            previewRerun();
        return;
    }
    startLoad(
        tr("Looking for duplicates in %1\u2026").arg(m_dataset->name),
        [db = *m_db, dataset = *m_dataset]() -> Result<Plan> {
            auto recovery = Recovery::open(db, dataset);
            if (!recovery)
                return fail(recovery.error());
            if (auto s = recovery->plan(10); !s)
                return fail(s.error());
            auto steps = recovery->plannedSteps();
            if (!steps)
                return fail(steps.error());
            auto frozen = freezeInfo(db, dataset.name);
            if (!frozen)
                return fail(frozen.error());
            return Plan{std::move(*recovery), std::move(*steps), *frozen};
        },
        [this](Result<Plan> plan) {
            setBusy(false, QString());
            if (!plan) {
                Q_EMIT loadFailed(tr("Could not plan the recovery of %1: %2")
                                      .arg(datasetName(), plan.error().message));
                updateButtons();
                return;
            }
            m_recovery = std::move(plan->recovery);
            m_result = m_recovery->result();
            m_planned = std::move(plan->steps);
            m_freezeAtPlan = plan->freeze;
            updateViews();
            showStep(FreezeStep);
            Q_EMIT pageLoaded();
        });
    setBusy(true, tr("Looking for duplicate keys in %1\u2026").arg(m_dataset->target));
}

RecoverPage::Step RecoverPage::nextStep() const {
    if (!m_result || m_result->failed())
        return ReportStep;
    for (int s = FreezeStep; s < ReportStep; ++s)
        if (!stepStatus(Step(s)))
            return Step(s);
    return ReportStep;
}

std::optional<RecoveryStepStatus> RecoverPage::stepStatus(Step step) const {
    if (!m_result || !m_result->executed || step >= ReportStep)
        return std::nullopt;
    const RecoveryStepResult *s = m_result->step(kCoreSteps[step]);
    return s && s->status != RecoveryStepStatus::Planned ? std::optional(s->status) : std::nullopt;
}

void RecoverPage::showStep(Step step) {
    m_shown = step;
    if (step == ReportStep)
        m_report->showMarkdown(reportMarkdown(kReportPartitionsShown));
    m_pages->setCurrentIndex(int(step));
    {
        const QSignalBlocker block(m_steps);
        m_steps->setCurrentRow(int(step));
    }
    if (step == RerunStep && nextStep() == RerunStep && !m_rerunPreview && !m_busy)
        previewRerun();
    updateSteps();
    updateButtons();
}

void RecoverPage::updateSteps() {
    const Step next = nextStep();
    for (int s = 0; s < StepCount; ++s) {
        QListWidgetItem *item = m_steps->item(s);
        const std::optional<RecoveryStepStatus> status = stepStatus(Step(s));
        QString glyph = QStringLiteral("\u25cb");
        QColor color = style::qcolor(style::Colour::Muted);
        if (status == RecoveryStepStatus::Done) {
            glyph = QStringLiteral("\u2714");
            color = style::qcolor(style::Colour::Ok);
        } else if (status == RecoveryStepStatus::Skipped) {
            glyph = QStringLiteral("\u2013");
        } else if (status == RecoveryStepStatus::Failed) {
            glyph = QStringLiteral("\u2718");
            color = style::qcolor(style::Colour::Error);
        } else if (Step(s) == next && m_result) {
            glyph = QStringLiteral("\u25b6");
            color = style::qcolor(style::Colour::Text);
        }
        item->setText(glyph % QStringLiteral("  ") % item->data(Qt::UserRole).toString());
        item->setForeground(color);
        QFont f = item->font();
        f.setBold(Step(s) == next && m_result);
        item->setFont(f);
        // Steps not reached yet cannot be opened.
        const bool reachable =
            m_result && (s <= int(next) || (s == ReportStep && m_result->executed));
        item->setFlags(reachable ? Qt::ItemIsEnabled | Qt::ItemIsSelectable : Qt::NoItemFlags);
    }
}

void RecoverPage::updateButtons() {
    const Step next = nextStep();
    const bool ready = m_result.has_value() && !m_busy;
    const bool actionable = ready && m_shown == next && next < ReportStep;
    switch (m_shown) {
    case FreezeStep:
        m_action->setText(tr("Freeze %1").arg(datasetName()));
        break;
    case IdentifyStep:
        m_action->setText(tr("Identify duplicates"));
        break;
    case RerunStep:
        m_action->setText(m_result && m_result->scope.empty()
                              ? tr("Skip the re-run")
                              : tr("Re-run %1 partition(s)\u2026")
                                    .arg(qsizetype(m_result ? m_result->scope.size() : 0)));
        break;
    case TotalsStep:
        m_action->setText(tr("Check totals"));
        break;
    default:
        m_action->setText(tr("Add unique index and unfreeze"));
        break;
    }
    m_action->setVisible(m_shown < ReportStep);
    m_action->setEnabled(actionable && (m_shown != RerunStep || m_rerunPreview.has_value() ||
                                        (m_result && m_result->scope.empty())));
    if (m_result && m_result->failed())
        m_next->setText(tr("View report \u203a"));
    else if (m_shown == IndexStep)
        m_next->setText(tr("Show report \u203a"));
    else
        m_next->setText(tr("Next \u203a"));
    m_next->setVisible(m_shown < ReportStep);
    m_next->setEnabled(ready && m_shown < ReportStep &&
                       (stepStatus(m_shown) || m_result->failed()));
    m_saveReport->setEnabled(m_result.has_value());
}

void RecoverPage::setBusy(bool busy, const QString &what) {
    m_busy = busy;
    m_progress->setVisible(busy);
    if (busy) {
        m_progress->setRange(0, 0);
        m_progressText->setText(what);
    } else {
        m_progressText->clear();
    }
    updateButtons();
}

bool RecoverPage::goNext() {
    if (m_busy || !m_result || m_shown >= ReportStep)
        return false;
    if (m_result->failed()) {
        showStep(ReportStep);
        return true;
    }
    if (!stepStatus(m_shown))
        return false;
    showStep(Step(int(m_shown) + 1));
    return true;
}

bool RecoverPage::runNextStep() {
    const Step next = nextStep();
    if (m_busy || !m_result || next >= ReportStep || m_shown != next)
        return false;
    if (next == RerunStep && !m_result->scope.empty()) {
        if (!m_rerunPreview)
            return false;
        confirmRerun();
        return true;
    }
    executeStep(next);
    return true;
}

void RecoverPage::previewRerun() {
    if (!m_db || !m_dataset || !m_result)
        return;
    m_rerunPreview.reset();
    setBusy(true, tr("Previewing the re-run of %1 partition(s)\u2026").arg(m_result->scope.size()));
    m_stepJobs.start(
        [recovery = *m_recovery] { return recovery.previewRerun(0); },
        [this](Result<RunResult> preview) {
            setBusy(false, QString());
            if (!preview) {
                m_banner->showError(
                    tr("Could not preview the re-run: %1").arg(preview.error().message));
                updateViews();
                return;
            }
            m_rerunPreview = std::move(*preview);
            updateViews();
            updateButtons();
            Q_EMIT rerunPreviewed();
        });
}

void RecoverPage::confirmRerun() {
    if (!m_rerunPreview || !m_result || m_confirm)
        return;
    const PartitionResult t = m_rerunPreview->totals();
    const QString html =
        style::themed(
            tr("<h3>Re-run %1 partition(s) of %2 by overwrite</h3>"
               "<p>Partitions: %3.</p>"
               "<p>Each is replaced whole by the deduped source: <b>%4</b> rows staged; <b>%5</b> "
               "inserted, <b>%6</b> updated, "
               "<b style='color:{error}'>%7</b> deleted, %8 unchanged. The run executes locked "
               "plan "
               "<code>%9</code> and is refused if "
               "the source changed since this preview. It can be rolled back from the Runs "
               "page.</p>"))
            .arg(m_rerunPreview->partitions.size())
            .arg(m_result->target.toHtmlEscaped(),
                 partitionsText(m_result->scopeLabels).toHtmlEscaped(), fmt::number(t.stagedRows),
                 fmt::number(t.inserted), fmt::number(t.updated), fmt::number(t.deleted),
                 fmt::number(t.unchanged), m_rerunPreview->planId.toHtmlEscaped());
    auto *dialog = new ConfirmDialog(tr("Re-run the partitions of %1").arg(m_result->dataset), html,
                                     m_result->dataset, tr("Re-run"), this);
    dialog->setObjectName(QStringLiteral("rerunConfirm"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_confirm = dialog;
    const QString planId = m_rerunPreview->planId;
    connect(dialog, &ConfirmDialog::confirmed, this, [this, planId] {
        if (m_confirm)
            m_confirm->finish();
        executeStep(RerunStep, planId);
    });
    dialog->open();
}

void RecoverPage::onProgress(const Progress &p) {
    if (!m_busy)
        return;
    if (p.partitionsTotal > 0) {
        m_progress->setRange(0, p.partitionsTotal);
        m_progress->setValue(p.partitionsDone);
    }
    m_progressText->setText(tr("Re-running: partition %1 of %2 (%3), %4\u2026")
                                .arg(std::min(p.partitionsDone + 1, std::max(p.partitionsTotal, 1)))
                                .arg(p.partitionsTotal)
                                .arg(p.partition, p.phase));
}

void RecoverPage::executeStep(Step step, const QString &planId) {
    if (!m_db || !m_dataset || !m_result)
        return;
    static const char *const busyTexts[] = {
        "Freezing %1\u2026", "Identifying duplicate keys in %1\u2026", "Re-running %1\u2026",
        "Comparing business totals of %1 with the source\u2026",
        "Adding the unique index to %1\u2026"};
    setBusy(true,
            tr(busyTexts[step]).arg(step == FreezeStep ? m_dataset->name : m_dataset->target));
    m_banner->dismiss();
    RecoveryRerunOptions options;
    options.planId = planId;
    m_stepJobs.start(
        [this, recovery = *m_recovery, step,
         options](const JobToken &job) mutable -> Result<Recovery> {
            // Worker thread: `this` is only captured by the reports posted
            // back, which run only while this step is current.
            if (step == RerunStep)
                options.progress = [this, job](const Progress &p) {
                    job.post([this, p] { onProgress(p); });
                };
            Status s;
            switch (step) {
            case FreezeStep:
                s = recovery.freeze();
                break;
            case IdentifyStep:
                s = recovery.identify(true, 10);
                break;
            case RerunStep:
                s = recovery.rerun(options);
                break;
            case TotalsStep:
                s = recovery.totals();
                break;
            case IndexStep:
                s = recovery.uniqueIndex(10);
                break;
            default:
                break;
            }
            if (!s)
                return fail(s.error());
            return recovery;
        },
        [this, step](Result<Recovery> result) {
            setBusy(false, QString());
            if (!result) {
                if (result.error().code == Error::Code::StalePlan) {
                    m_banner->showMessage(ErrorBanner::Level::Warning,
                                          tr("Not re-run: the source changed since the preview "
                                             "(%1). Nothing was written; the "
                                             "preview below is fresh: check it and confirm again.")
                                              .arg(result.error().message));
                    previewRerun();
                } else {
                    m_banner->showError(tr("Step %1 could not run: %2")
                                            .arg(int(step) + 1)
                                            .arg(result.error().message));
                }
                Q_EMIT stepFinished(int(step));
                return;
            }
            m_recovery = std::move(*result);
            m_result = m_recovery->result();
            if (step == RerunStep)
                m_rerunPreview.reset();
            if (m_result->failed())
                m_banner->showError(
                    tr("Step %1 failed: %2").arg(int(step) + 1).arg(m_result->error));
            else if (step == IndexStep)
                m_banner->showMessage(ErrorBanner::Level::Info,
                                      tr("%1 is recovered: duplicates removed, totals match, "
                                         "unique index %2 in place, "
                                         "writers may publish again.")
                                          .arg(m_result->dataset, m_result->uniqueIndex));
            updateViews();
            updateSteps();
            updateButtons();
            Q_EMIT datasetChanged(m_result->dataset);
            Q_EMIT stepFinished(int(step));
        });
}

void RecoverPage::updateViews() {
    for (QLabel *state : m_state)
        if (state) {
            state->clear();
            state->hide();
        }
    if (!m_result) {
        m_incident->setText(m_db ? tr("<i>Looking for duplicates\u2026</i>") : QString());
        m_plan->clear();
        m_identifyCaption->clear();
        m_duplicatesModel->resetData({});
        m_samples->clear();
        m_rerunSummary->clear();
        m_rerunModel->resetData({}, {});
        m_totalsCaption->clear();
        m_totalsModel->resetData({});
        m_indexText->clear();
        m_report->showMarkdown(QString());
        updateSteps();
        return;
    }
    const RecoveryResult &r = *m_result;

    // 1. The incident and the plan.
    QString incident;
    if (r.before.duplicateKeys == 0)
        incident = style::themed(
                       tr("<p><b style='color:{ok}'>No duplicate keys</b> in <code>%1</code>. The "
                          "recovery can still add the unique index "
                          "that prevents them.</p>"))
                       .arg(r.target.toHtmlEscaped());
    else
        incident =
            style::themed(
                tr("<p><b style='color:{error}'>%1 duplicate key(s), %2 extra row(s)</b> in "
                   "<code>%3</code>, in %4 partition(s): %5.</p>"))
                .arg(fmt::number(r.before.duplicateKeys), fmt::number(r.before.extraRows),
                     r.target.toHtmlEscaped())
                .arg(r.before.partitions.size())
                .arg(partitionsText(r.scopeLabels.isEmpty() ? QStringList{tr("the whole dataset")}
                                                            : r.scopeLabels)
                         .toHtmlEscaped());
    incident +=
        m_freezeAtPlan
            ? tr("<p>Already frozen since %1 by %2%3: the recovery adopts that freeze.</p>")
                  .arg(fmt::timestamp(m_freezeAtPlan->frozenAt),
                       m_freezeAtPlan->osUser.toHtmlEscaped(),
                       m_freezeAtPlan->reason.isEmpty()
                           ? QString()
                           : QStringLiteral(" (") % m_freezeAtPlan->reason.toHtmlEscaped() % u')')
            : tr("<p>Not frozen: Rewind's writers may publish to it right now.</p>");
    m_incident->setText(incident);
    QString plan =
        tr("<p><b>The plan</b> (a dry run; nothing has changed yet):</p><table cellspacing='4'>");
    for (const RecoveryStepResult &s : m_planned)
        plan +=
            QStringLiteral("<tr><td style='padding-right:12px'><code>%1</code></td><td "
                           "style='color:%4; padding-right:12px'>%2</td><td>%3</td></tr>")
                .arg(enumName(s.step).toHtmlEscaped(),
                     s.status == RecoveryStepStatus::Done      ? tr("found")
                     : s.status == RecoveryStepStatus::Planned ? tr("to do")
                                                               : enumName(s.status).toHtmlEscaped(),
                     s.detail.toHtmlEscaped(), style::colour(style::Colour::Muted));
    m_plan->setText(plan + QStringLiteral("</table>"));

    // 2. The duplicates: as planned, or as identified under the freeze.
    const bool identified = stepStatus(IdentifyStep).has_value();
    m_identifyCaption->setText(
        identified
            ? tr("<b>Identified under the freeze:</b> %1 duplicate key(s), %2 extra row(s) in %3 "
                 "partition(s).")
                  .arg(fmt::number(r.before.duplicateKeys), fmt::number(r.before.extraRows))
                  .arg(r.before.partitions.size())
            : tr("As found when the recovery was planned: %1 duplicate key(s), %2 extra row(s). "
                 "Identifying "
                 "looks again under the freeze.")
                  .arg(fmt::number(r.before.duplicateKeys), fmt::number(r.before.extraRows)));
    m_duplicatesModel->resetData(r.before.partitions);
    m_duplicatesView->resizeColumnsToContents();
    QStringList samples;
    for (const QJsonObject &o : r.before.samples)
        samples << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
    m_samples->setPlainText(samples.isEmpty() ? tr("(none)") : samples.join(u'\n'));

    // 3. The re-run: its preview, or what the run did.
    if (r.rerun) {
        const PartitionResult t = r.rerun->totals();
        m_rerunSummary->setText(tr("<b>Run %1 overwrote %2 partition(s):</b> %3 rows written, %4 "
                                   "inserted, %5 updated, %6 deleted.")
                                    .arg(r.rerunId.toString())
                                    .arg(r.rerun->partitions.size())
                                    .arg(fmt::number(t.stagedRows), fmt::number(t.inserted),
                                         fmt::number(t.updated), fmt::number(t.deleted)));
        m_rerunModel->resetData(r.rerun->partitions, r.rerun->checks);
    } else if (m_rerunPreview) {
        const PartitionResult t = m_rerunPreview->totals();
        m_rerunSummary->setText(
            r.scope.empty()
                ? tr("No partition to re-run: there are no duplicate keys.")
                : style::themed(tr("<b>Preview</b> (plan <code>%1</code>): overwrite %2 "
                                   "partition(s), %3 rows staged from the deduped "
                                   "source.<br><b>%4</b> inserted, <b>%5</b> updated, <b "
                                   "style='color:{error}'>%6</b> deleted, %7 unchanged."))
                      .arg(m_rerunPreview->planId.toHtmlEscaped())
                      .arg(m_rerunPreview->partitions.size())
                      .arg(fmt::number(t.stagedRows), fmt::number(t.inserted),
                           fmt::number(t.updated), fmt::number(t.deleted),
                           fmt::number(t.unchanged)));
        m_rerunModel->resetData(m_rerunPreview->partitions, m_rerunPreview->checks);
    } else {
        m_rerunSummary->setText(
            r.scope.empty()
                ? tr("No partition to re-run: there are no duplicate keys.")
                : tr("Partitions to re-run: %1. The preview is computed when this step comes up.")
                      .arg(partitionsText(r.scopeLabels).toHtmlEscaped()));
        m_rerunModel->resetData({}, {});
    }
    m_rerunView->resizeColumnsToContents();

    // 4. Totals: before the re-run, or as checked after it.
    const bool checked = stepStatus(TotalsStep).has_value();
    m_totalsModel->resetData(checked ? r.totals : r.totalsBefore);
    const int mismatches = m_totalsModel->mismatches();
    if (checked)
        m_totalsCaption->setText(
            r.totalsMatch ? style::themed(tr("<b style='color:{ok}'>After the re-run: totals match "
                                             "the source</b> in %1 partition(s)."))
                                .arg(r.totals.size())
                          : style::themed(tr("<b style='color:{error}'>After the re-run: %1 "
                                             "measure(s) differ from the source.</b>"))
                                .arg(mismatches));
    else
        m_totalsCaption->setText(
            r.totalsBefore.empty()
                ? tr("No affected partition: nothing to compare.")
                : tr("Before the re-run: %1 of %2 measure(s) differ from the deduped source. "
                     "Checking compares them again after the re-run.")
                      .arg(mismatches)
                      .arg(m_totalsModel->rowCount()));
    m_totalsView->resizeColumnsToContents();

    // 5. The index.
    QString index;
    for (const RecoveryStepResult &s : m_planned)
        if (s.step == RecoveryStep::UniqueIndex)
            index = s.detail;
    m_indexText->setText(
        tr("<p>Will run:</p><p><code>%1</code></p><p>on columns %2, then lift the freeze.</p>")
            .arg(index.toHtmlEscaped(),
                 r.uniqueIndexColumns.join(QStringLiteral(", ")).toHtmlEscaped()));

    // What each step did, or why it failed.
    for (int s = FreezeStep; s < ReportStep; ++s) {
        const RecoveryStepResult *done = r.executed ? r.step(kCoreSteps[s]) : nullptr;
        if (!done || done->status == RecoveryStepStatus::Planned)
            continue;
        QString text = done->detail.toHtmlEscaped();
        if (s == IndexStep)
            if (const RecoveryStepResult *u = r.step(RecoveryStep::Unfreeze))
                text += QStringLiteral("; ") % u->detail.toHtmlEscaped();
        const bool failed = done->status == RecoveryStepStatus::Failed;
        m_state[s]->setText(QStringLiteral("<p style='color:%1'><b>%2</b> %3</p>")
                                .arg(failed ? style::colour(style::Colour::Error)
                                            : style::colour(style::Colour::Ok),
                                     failed                                        ? tr("Failed:")
                                     : done->status == RecoveryStepStatus::Skipped ? tr("Skipped:")
                                                                                   : tr("Done:"),
                                     text));
        m_state[s]->show();
    }
    // Only once the recovery ran, and only when shown: laying out Markdown
    // tables in a browser is slow (see MarkdownView).
    if (m_shown == ReportStep)
        m_report->showMarkdown(reportMarkdown(kReportPartitionsShown));
    updateSteps();
}

QString RecoverPage::stepText() const {
    QStringList parts;
    switch (m_shown) {
    case FreezeStep:
        parts << plain(m_incident->text()) << plain(m_plan->text());
        break;
    case IdentifyStep:
        parts << plain(m_identifyCaption->text()) << m_samples->toPlainText();
        break;
    case RerunStep:
        parts << plain(m_rerunSummary->text());
        break;
    case TotalsStep:
        parts << plain(m_totalsCaption->text());
        break;
    case IndexStep:
        parts << plain(m_indexText->text());
        break;
    case ReportStep:
        parts << m_report->toPlainText();
        break;
    default:
        break;
    }
    if (m_shown < ReportStep && m_state[m_shown] && !m_state[m_shown]->isHidden())
        parts << plain(m_state[m_shown]->text());
    return parts.join(u'\n');
}

ConfirmDialog *RecoverPage::confirmDialog() const {
    return m_confirm;
}

QString RecoverPage::reportMarkdown(std::size_t shown) const {
    return m_result && m_result->executed ? recoveryReportMarkdown(*m_result, shown) : QString();
}

QString RecoverPage::reportText() const {
    return m_report->toPlainText();
}

bool RecoverPage::saveReport(const QString &path) {
    const QByteArray content = reportMarkdown().toUtf8();
    QFile file(path);
    if (content.isEmpty() || !file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        file.write(content) != content.size()) {
        m_banner->showError(
            tr("Could not write %1: %2")
                .arg(path, content.isEmpty() ? tr("no report yet") : file.errorString()));
        return false;
    }
    return true;
}

} // namespace rw
