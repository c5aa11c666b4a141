// The recovery wizard's pages (one per step) and what they show: built once,
// filled from the recovery's result by updateViews(). The steps themselves
// and their background work are in recoverpage.cpp.
#include "core/batch/partitions.h"
#include "ui/batch/previewdiffmodel.h"
#include "ui/common/confirmdialog.h"
#include "ui/common/errorbanner.h"
#include "ui/common/format.h"
#include "ui/common/markdownview.h"
#include "ui/common/style.h"
#include "ui/recovery/duplicatesmodel.h"
#include "ui/recovery/recoverpage.h"
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

QTableView *table(QWidget *parent, const QString &objectName) {
    auto *view = new QTableView(parent);
    view->setObjectName(objectName);
    view->setSelectionMode(QAbstractItemView::NoSelection);
    style::setupTable(view, 8, true);
    return view;
}

QWidget *stepPage(const QString &heading, const QString &explanation, QVBoxLayout *&layout,
                  QLabel **explanationLabel = nullptr) {
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
    if (explanationLabel)
        *explanationLabel = e;
    return page;
}

} // namespace

using namespace recoverpage_detail;

QString recoverpage_detail::partitionsText(const QStringList &labels) {
    if (labels.size() <= 6)
        return labels.join(QStringLiteral(", "));
    return QObject::tr("%1 partitions, %2 \u2026 %3")
        .arg(labels.size())
        .arg(labels.first(), labels.last());
}

bool RecoverPage::onIceberg() const {
    return m_db && m_db->dialect().keepsControlApart();
}

QString RecoverPage::freezeExplanation() const {
    if (onIceberg())
        return tr("Freezes the dataset while it is repaired: Rewind's runs, resumes, rollbacks and "
                  "replays refuse it; the recovery's own writes go through. Iceberg tables have "
                  "no triggers, so writers outside Rewind (the loader still running, dbt) are "
                  "not stopped: pause them. Previews still work. Every step is recorded in the "
                  "audit log.");
    return tr("Freezes the target while it is repaired, so the duplicates stop "
              "moving: the database refuses every other writer (the loader "
              "still running, dbt, psql) and Rewind's runs, resumes, rollbacks "
              "and replays refuse it; the recovery's own writes go through. "
              "Previews still work. Every step is recorded in the audit log.");
}

QString RecoverPage::indexExplanation() const {
    if (onIceberg())
        return tr("Iceberg tables have no unique indexes: checks that no key repeats after the "
                  "re-run, then lifts the freeze. rewindctl duplicates checks it later.");
    return tr("Adds a unique index on (partition, key) so the database itself "
              "refuses a second row for a key, "
              "whoever writes it, then lifts the freeze. Refused if a key column "
              "holds NULL (a unique index treats "
              "NULLs as distinct) or duplicates remain.");
}

QWidget *RecoverPage::buildFreezePage() {
    QVBoxLayout *l = nullptr;
    QWidget *page = stepPage(tr("1. Freeze writers"), freezeExplanation(), l, &m_freezeExplanation);
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

QWidget *RecoverPage::buildTablePage(const QString &heading, const QString &explanation,
                                     const QString &name, QLabel *&caption, QTableView *&view,
                                     QAbstractItemModel *model, Step step) {
    QVBoxLayout *l = nullptr;
    QWidget *page = stepPage(heading, explanation, l);
    caption = style::richLabel(page, name + QStringLiteral("Caption"));
    view = table(page, name + QStringLiteral("View"));
    view->setModel(model);
    m_state[step] = style::richLabel(page);
    l->addWidget(caption);
    l->addWidget(view, 1);
    l->addWidget(m_state[step]);
    return page;
}

QWidget *RecoverPage::buildRerunPage() {
    return buildTablePage(
        tr("3. Re-run the affected partitions"),
        tr("Replaces each affected partition whole (overwrite) with the deduped source, through "
           "the batch core: "
           "one transaction per partition with its checkpoint and before-images, so the run can be "
           "rolled back. "
           "The run executes exactly this preview, and is refused if the source changed since."),
        QStringLiteral("rerun"), m_rerunSummary, m_rerunView, m_rerunModel, RerunStep);
}

QWidget *RecoverPage::buildTotalsPage() {
    return buildTablePage(tr("4. Check business totals"),
                          tr("Compares, per affected partition, the row count and the sum of "
                             "every numeric column of the target with "
                             "the deduped source (what a clean load holds). A mismatch stops "
                             "the recovery with the dataset still frozen."),
                          QStringLiteral("totals"), m_totalsCaption, m_totalsView, m_totalsModel,
                          TotalsStep);
}

QWidget *RecoverPage::buildIndexPage() {
    QVBoxLayout *l = nullptr;
    QWidget *page = stepPage(tr("5. Prevent a recurrence, then unfreeze"), indexExplanation(), l,
                             &m_indexExplanation);
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
            : tr("<p>Not frozen: any writer, Rewind's or another, may write to it right "
                 "now.</p>");
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
        m_rerunSummary->setText(
            tr("<b>Run %1 overwrote %2 partition(s):</b> %3 rows written, %4 "
               "inserted, %5 updated, %6 deleted.")
                .arg(r.rerunId.toString())
                .arg(r.rerun->partitions.size())
                .arg(fmt::number(t.stagedRows), fmt::number(t.inserted), fmt::number(t.updated),
                     fmt::number(t.deleted)) +
            (r.rerun->planColumns.empty()
                 ? QString()
                 : tr("<br>Columns, as its preview said: %1.")
                       .arg(columnsInBrief(r.rerun->planColumns).toHtmlEscaped())));
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
                               fmt::number(t.unchanged)) +
                      (t.columns.empty() ? QString()
                                         : tr("<br>Columns: %1.")
                                               .arg(columnsInBrief(t.columns).toHtmlEscaped())));
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

} // namespace rw
