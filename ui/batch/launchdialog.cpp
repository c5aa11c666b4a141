#include "ui/batch/launchdialog.h"

#include "core/batch/partitions.h"
#include "ui/batch/runmanager.h"
#include "ui/common/format.h"
#include "ui/common/style.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QStringBuilder>
#include <QVBoxLayout>

namespace rw {

namespace {

QString scopeText(const RunResult &plan) {
    QStringList labels;
    for (const PartitionResult &p : plan.partitions)
        labels << partitionLabel(p.partition);
    if (labels.size() <= 6)
        return labels.join(QStringLiteral(", "));
    return QObject::tr("%1 partitions, %2 \u2026 %3")
        .arg(labels.size())
        .arg(labels.first(), labels.last());
}

} // namespace

bool LaunchDialog::isDestructive(const RunResult &plan) {
    return plan.totals().deleted > 0 || plan.mode == WriteMode::OverwritePartition;
}

LaunchDialog::LaunchDialog(const RunResult &plan, QWidget *parent)
    : QDialog(parent)
    , m_dataset(plan.dataset)
    , m_destructive(isDestructive(plan))
    , m_summary(new QLabel(this))
    , m_state(new QLabel(this))
    , m_confirm(new QLineEdit(this))
    , m_run(nullptr)
    , m_previewAgain(nullptr)
    , m_buttons(new QDialogButtonBox(this)) {
    setObjectName(QStringLiteral("launchDialog"));
    setWindowTitle(tr("Run plan %1").arg(plan.planId));
    setMinimumWidth(560);

    const PartitionResult t = plan.totals();
    // The first failed gates by name; thousands would make a label that
    // takes seconds to lay out.
    constexpr int kNamedFailures = 10;
    int failed = 0;
    QStringList failedNames;
    for (const CheckResult &c : plan.checks)
        if (!c.passed && ++failed <= kNamedFailures)
            failedNames << (c.partition ? c.name % QStringLiteral(" (") % *c.partition % u')'
                                        : c.name);
    if (failed > kNamedFailures)
        failedNames << tr("and %1 more").arg(failed - kNamedFailures);
    const QString row =
        QStringLiteral("<tr><td style='color:%1; padding-right:14px'>%2</td><td>%3</td></tr>")
            .arg(style::colour(style::Colour::Muted), QStringLiteral("%1"), QStringLiteral("%2"));
    QString html = QStringLiteral("<h3>Re-run %1</h3><table cellspacing='3'>")
                       .arg(plan.dataset.toHtmlEscaped());
    html += row.arg(tr("Dataset"), plan.dataset.toHtmlEscaped());
    html += row.arg(tr("Scope"), scopeText(plan).toHtmlEscaped());
    html +=
        row.arg(tr("Write mode"),
                enumName(plan.mode).toHtmlEscaped() +
                    (plan.mode == WriteMode::OverwritePartition
                         ? style::themed(tr(
                               " <b style='color:{error}'>(each partition is replaced whole)</b>"))
                         : QString()));
    if (!plan.schemaChange.empty())
        html += row.arg(tr("Schema"),
                        style::themed(tr("<b style='color:{warning}'>%1</b>, in the first "
                                         "publish's transaction"))
                            .arg(plan.schemaChange.describe().toHtmlEscaped()));
    html += row.arg(tr("Locked plan"), plan.planId.toHtmlEscaped());
    html +=
        row.arg(tr("Rows"),
                plan.mode == WriteMode::DeleteInsert
                    ? tr("%1 staged, every row of %2 keys replaced")
                          .arg(fmt::number(t.stagedRows), fmt::number(t.keysTouched.value_or(0)))
                : plan.mode == WriteMode::Append
                    ? tr("%1 staged, every one appended").arg(fmt::number(t.stagedRows))
                    : tr("%1 staged, %2 duplicates dropped")
                          .arg(fmt::number(t.stagedRows), fmt::number(t.duplicatesDropped)));
    html += row.arg(tr("Changes"), tr("<b>%1</b> inserted, <b>%2</b> updated, <b "
                                      "style='color:%5'>%3</b> deleted, %4 unchanged")
                                       .arg(fmt::number(t.inserted), fmt::number(t.updated),
                                            fmt::number(t.deleted), fmt::number(t.unchanged),
                                            t.deleted > 0 ? style::colour(style::Colour::Error)
                                                          : QStringLiteral("inherit")));
    html += row.arg(
        tr("Gates"),
        failed == 0
            ? style::themed(tr("<span style='color:{ok}'>all %1 passed</span>"))
                  .arg(plan.checks.size())
            : style::themed(
                  tr("<span style='color:{error}'><b>%1 of %2 failed</b>: %3. Those partitions "
                     "will not be published.</span>"))
                  .arg(failed)
                  .arg(plan.checks.size())
                  .arg(failedNames.join(QStringLiteral(", ")).toHtmlEscaped()));
    html += QStringLiteral(
        "</table><p><b>Nothing is written until you confirm.</b> Each partition is published in "
        "its own "
        "transaction; a run refuses to start if the source changed since this preview.</p>");
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_summary->setText(html);
    m_summary->setObjectName(QStringLiteral("launchSummary"));

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);

    auto *confirmLabel = m_confirmLabel = new QLabel(this);
    confirmLabel->setWordWrap(true);
    confirmLabel->setTextFormat(Qt::RichText);
    confirmLabel->setText(
        style::themed(tr("<b style='color:{error}'>This plan is destructive</b> (%1). To "
                         "confirm, type the dataset "
                         "name <code>%2</code>:"))
            .arg(plan.mode == WriteMode::OverwritePartition ? tr("overwrite mode")
                                                            : tr("it deletes rows"),
                 plan.dataset.toHtmlEscaped()));
    m_confirm->setObjectName(QStringLiteral("confirmName"));
    m_confirm->setPlaceholderText(plan.dataset);
    layout->addWidget(confirmLabel);
    layout->addWidget(m_confirm);
    confirmLabel->setVisible(m_destructive);
    m_confirm->setVisible(m_destructive);

    m_state->setObjectName(QStringLiteral("launchState"));
    m_state->setWordWrap(true);
    m_state->hide();
    layout->addWidget(m_state);

    m_run = m_buttons->addButton(tr("Run"), QDialogButtonBox::AcceptRole);
    m_run->setObjectName(QStringLiteral("launchRun"));
    m_previewAgain = m_buttons->addButton(tr("Preview again"), QDialogButtonBox::ActionRole);
    m_previewAgain->setObjectName(QStringLiteral("launchPreviewAgain"));
    m_previewAgain->hide();
    m_buttons->addButton(QDialogButtonBox::Cancel);
    m_run->setDefault(false);
    m_run->setAutoDefault(false);
    layout->addWidget(m_buttons);

    connect(m_confirm, &QLineEdit::textChanged, this, &LaunchDialog::updateButtons);
    connect(m_run, &QPushButton::clicked, this, [this] {
        if (!canConfirm())
            return;
        m_waiting = true;
        m_state->setStyleSheet(QString());
        m_state->setText(tr("Starting the run\u2026"));
        m_state->show();
        updateButtons();
        Q_EMIT confirmed();
    });
    connect(m_previewAgain, &QPushButton::clicked, this, [this] {
        Q_EMIT previewAgainRequested();
        reject();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    updateButtons();
}

bool LaunchDialog::canConfirm() const {
    if (m_waiting || m_stale)
        return false;
    return !m_destructive || m_confirm->text().trimmed() == m_dataset;
}

void LaunchDialog::updateButtons() {
    m_run->setEnabled(canConfirm());
}

QString LaunchDialog::summaryText() const {
    QString plain = m_summary->text();
    plain.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    return plain;
}

QString LaunchDialog::stateText() const {
    return m_state->isVisible() ? m_state->text() : QString();
}

void LaunchDialog::setPurpose(const QString &heading, const QString &note,
                              const QString &runLabel) {
    QString html = m_summary->text();
    const qsizetype end = html.indexOf(QStringLiteral("</h3>"));
    if (html.startsWith(QStringLiteral("<h3>")) && end > 0)
        html = QStringLiteral("<h3>") % heading.toHtmlEscaped() % QStringLiteral("</h3><p>") %
               note.toHtmlEscaped() % QStringLiteral("</p>") % html.mid(end + 5);
    m_summary->setText(html);
    setWindowTitle(heading);
    m_run->setText(runLabel);
    m_destructive = true;
    m_confirmLabel->setText(
        tr("To confirm, type the dataset name <code>%1</code>:").arg(m_dataset.toHtmlEscaped()));
    m_confirmLabel->setVisible(true);
    m_confirm->setVisible(true);
    updateButtons();
}

void LaunchDialog::runStarted() {
    m_waiting = false;
    accept();
}

void LaunchDialog::showStale(const QString &message) {
    m_waiting = false;
    m_stale = true;
    m_state->setStyleSheet(style::textColour(style::Colour::Warning));
    m_state->setText(tr("Refused: the source changed since this preview, so the plan no longer "
                        "describes what would be "
                        "written. Nothing was written.\n%1")
                         .arg(message));
    m_state->show();
    m_previewAgain->show();
    m_previewAgain->setDefault(true);
    updateButtons();
}

void LaunchDialog::showError(const QString &message) {
    m_waiting = false;
    m_state->setStyleSheet(style::textColour(style::Colour::Error));
    m_state->setText(tr("The run could not start: %1").arg(message));
    m_state->show();
    updateButtons();
}

void followLaunch(RunManager *runs, int id, QObject *context, QPointer<LaunchDialog> dialog,
                  std::function<void()> onLaunched) {
    auto *started = new QMetaObject::Connection;
    auto *finished = new QMetaObject::Connection;
    const auto disconnectBoth = [started, finished] {
        QObject::disconnect(*started);
        QObject::disconnect(*finished);
        delete started;
        delete finished;
    };
    const auto launched = [dialog, onLaunched] {
        if (dialog)
            dialog->runStarted();
        if (onLaunched)
            onLaunched();
    };
    *started = QObject::connect(runs, &RunManager::runStarted, context,
                                [id, disconnectBoth, launched](int which) {
                                    if (which != id)
                                        return;
                                    disconnectBoth();
                                    launched();
                                });
    *finished = QObject::connect(runs, &RunManager::runFinished, context,
                                 [runs, id, dialog, disconnectBoth, launched](int which) {
                                     if (which != id)
                                         return;
                                     disconnectBoth();
                                     const LiveRun *run = runs->run(id);
                                     if (!dialog || !run)
                                         return;
                                     if (run->error && run->error->code == Error::Code::StalePlan)
                                         dialog->showStale(run->error->message);
                                     else if (run->error)
                                         dialog->showError(run->error->message);
                                     else
                                         launched();
                                 });
}

} // namespace rw
