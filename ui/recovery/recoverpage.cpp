#include "ui/recovery/recoverpage.h"

#include "core/batch/partitions.h"
#include "core/sql/privileges.h"
#include "ui/batch/previewdiffmodel.h"
#include "ui/common/confirmdialog.h"
#include "ui/common/errorbanner.h"
#include "ui/common/format.h"
#include "ui/common/markdownview.h"
#include "ui/common/style.h"
#include "ui/recovery/duplicatesmodel.h"
#include "ui/recovery/recoverpagedetail.h"
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

QString plain(const QString &html) {
    QString text = html;
    text.replace(QRegularExpression(QStringLiteral("<(br|/p|/tr|/h\\d)[^>]*>")),
                 QStringLiteral("\n"));
    text.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    return text.replace(QStringLiteral("&nbsp;"), QStringLiteral(" ")).trimmed();
}

} // namespace

using namespace recoverpage_detail;

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

void RecoverPage::resetRecovery() {
    m_stepJobs.cancel();
    m_recovery.reset();
    m_result.reset();
    m_planned.clear();
    m_freezeAtPlan.reset();
    m_rerunPreview.reset();
    m_outcome = {};
    m_busy = false;
    m_banner->dismiss();
}

void RecoverPage::setDataset(const Database &db, const DatasetSpec &dataset) {
    resetRecovery();
    m_db = db;
    m_dataset = dataset;
    m_title->setText(tr("Recover duplicates: %1").arg(dataset.name));
    QStringList facts{tr("target %1").arg(dataset.target),
                      tr("key %1").arg(dataset.key.join(QStringLiteral(", "))),
                      dataset.partitioned() ? tr("partitioned by %1").arg(dataset.partitionColumn)
                                            : tr("unpartitioned"),
                      tr("mode %1").arg(enumName(dataset.write))};
    m_subtitle->setText(facts.join(QStringLiteral("  \u00b7  ")));
    // What a freeze and step 5 do depends on the engine (Iceberg: no
    // triggers, no indexes).
    m_freezeExplanation->setText(freezeExplanation());
    m_indexExplanation->setText(indexExplanation());
    const QString fifth =
        onIceberg() ? tr("5  Check keys, unfreeze") : tr("5  Unique index, unfreeze");
    m_steps->item(IndexStep)->setData(Qt::UserRole, fifth);
    m_steps->item(IndexStep)->setText(fifth);
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
    resetRecovery();
    m_db.reset();
    m_dataset.reset();
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
            // Whether this role may carry it out: else its first step is
            // disabled, saying why.
            QString refused = privileges::refusalOf(
                requireRecoverPrivileges(db, dataset, tr("The recovery of %1").arg(dataset.name)));
            return Plan{std::move(*recovery), std::move(*steps), *frozen, std::move(refused)};
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
            m_refused = plan->refused;
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
        m_action->setText(onIceberg() ? tr("Check keys and unfreeze")
                                      : tr("Add unique index and unfreeze"));
        break;
    }
    m_action->setVisible(m_shown < ReportStep);
    // Checked before the first step changes anything: nothing to try before then.
    const QString refused = m_result && !m_result->executed ? m_refused : QString();
    m_action->setEnabled(actionable && refused.isEmpty() &&
                         (m_shown != RerunStep || m_rerunPreview.has_value() ||
                          (m_result && m_result->scope.empty())));
    m_action->setToolTip(refused);
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
    setBusy(
        true,
        step == IndexStep && onIceberg()
            ? tr("Checking %1 for repeated keys\u2026").arg(m_dataset->target)
            : tr(busyTexts[step]).arg(step == FreezeStep ? m_dataset->name : m_dataset->target));
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
                m_banner->showMessage(
                    ErrorBanner::Level::Info,
                    m_result->uniqueIndexAdded
                        ? tr("%1 is recovered: duplicates removed, totals match, "
                             "unique index %2 in place, "
                             "writers may publish again.")
                              .arg(m_result->dataset, m_result->uniqueIndex)
                        : tr("%1 is recovered: duplicates removed, totals match, no key "
                             "repeats, writers may publish again.")
                              .arg(m_result->dataset));
            updateViews();
            updateSteps();
            updateButtons();
            Q_EMIT datasetChanged(m_result->dataset);
            Q_EMIT stepFinished(int(step));
        });
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