#include "ui/batch/runreportview.h"

#include "ui/batch/checksmodel.h"
#include "ui/batch/runreportmodel.h"
#include "ui/common/format.h"
#include "ui/common/page.h"
#include "ui/common/stattile.h"
#include "ui/common/style.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QStringBuilder>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace rw {

namespace {

QTableView *reportTable(QAbstractItemModel *model, const QString &name, QWidget *parent) {
    auto *view = new QTableView(parent);
    view->setObjectName(name);
    view->setModel(model);
    view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    style::setupTable(view, 6);
    measureFirstRowsOnly(view);
    return view;
}

QString orDash(const QString &text) {
    return text.isEmpty() ? QStringLiteral("\u2014") : text;
}

} // namespace

RunReportView::RunReportView(QWidget *parent)
    : QWidget(parent)
    , m_stack(new QStackedWidget(this))
    , m_message(new QLabel(this))
    , m_heading(new QLabel(this))
    , m_facts(new QLabel(this))
    , m_error(new QLabel(this))
    , m_totals(new QLabel(this))
    , m_inserted(new StatTile(tr("rows inserted"), this))
    , m_updated(new StatTile(tr("rows updated"), this))
    , m_deleted(new StatTile(tr("rows deleted"), this))
    , m_gatesTile(new StatTile(tr("gates failed"), this))
    , m_filter(new QComboBox(this))
    , m_shown(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_model(new RunReportModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_gates(new ChecksModel(this)) {
    setObjectName(QStringLiteral("runReport"));
    m_message->setObjectName(QStringLiteral("runReportMessage"));
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(style::textColour(style::Colour::Muted));
    style::makeTitle(m_heading, 1.1);
    m_heading->setObjectName(QStringLiteral("runReportHeading"));
    m_heading->setTextInteractionFlags(Qt::TextSelectableByMouse);
    style::makeSubtitle(m_facts);
    m_facts->setObjectName(QStringLiteral("runReportFacts"));
    m_facts->setWordWrap(true);
    m_error->setObjectName(QStringLiteral("runReportError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(style::textColour(style::Colour::Error));
    m_totals->setObjectName(QStringLiteral("runReportTotals"));
    m_totals->setWordWrap(true);
    m_totals->setTextInteractionFlags(Qt::TextSelectableByMouse);

    static const char *const captions[kPartitionOutcomes] = {
        QT_TR_NOOP("partitions failed"), QT_TR_NOOP("changed"), QT_TR_NOOP("not published"),
        QT_TR_NOOP("unchanged")};
    auto *tiles = new QHBoxLayout;
    tiles->setSpacing(8);
    for (int i = 0; i < kPartitionOutcomes; ++i) {
        m_outcomeTiles[i] = new StatTile(tr(captions[i]), this);
        tiles->addWidget(m_outcomeTiles[i]);
    }
    for (StatTile *tile : {m_inserted, m_updated, m_deleted, m_gatesTile})
        tiles->addWidget(tile);
    tiles->addStretch(1);

    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterRole(RunReportModel::OutcomeRole);
    m_proxy->setFilterKeyColumn(RunReportModel::OutcomeColumn);
    m_partitionsView = reportTable(m_proxy, QStringLiteral("runReportPartitions"), this);
    m_gatesView = reportTable(m_gates, QStringLiteral("runReportGates"), this);

    m_filter->setObjectName(QStringLiteral("runReportFilter"));
    connect(m_filter, &QComboBox::currentIndexChanged, this, [this] {
        const QVariant outcome = m_filter->currentData();
        setOutcomeFilter(outcome.isValid() ? std::optional(PartitionOutcome(outcome.toInt()))
                                           : std::nullopt);
    });
    auto *partitionsPage = new QWidget(this);
    auto *filterRow = new QHBoxLayout;
    filterRow->addWidget(new QLabel(tr("Show:"), partitionsPage));
    filterRow->addWidget(m_filter);
    filterRow->addStretch(1);
    filterRow->addWidget(m_shown);
    auto *partitionsLayout = new QVBoxLayout(partitionsPage);
    partitionsLayout->setContentsMargins(0, 6, 0, 0);
    partitionsLayout->addLayout(filterRow);
    partitionsLayout->addWidget(m_partitionsView, 1);
    m_tabs->setObjectName(QStringLiteral("runReportTabs"));
    m_tabs->addTab(partitionsPage, tr("Partitions"));
    m_tabs->addTab(m_gatesView, tr("Gates"));

    auto *content = new QWidget(this);
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);
    layout->addWidget(m_heading);
    layout->addWidget(m_facts);
    layout->addWidget(m_error);
    layout->addLayout(tiles);
    layout->addWidget(m_totals);
    layout->addWidget(m_tabs, 1);

    m_stack->addWidget(m_message);
    m_stack->addWidget(content);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_stack);
    showMessage(QString());
}

void RunReportView::setPlaceholderText(const QString &text) {
    m_placeholder = text;
    if (m_stack->currentWidget() == m_message && !m_snapshot)
        m_message->setText(text);
}

void RunReportView::showMessage(const QString &message) {
    m_jobs.cancel();
    m_snapshot.reset();
    m_model->resetData({});
    m_gates->resetData({});
    m_message->setText(message.isEmpty() ? m_placeholder : message);
    m_stack->setCurrentWidget(m_message);
}

void RunReportView::showRun(const RunInfo &info, const RunResult &result) {
    if (runId() != info.runId) {
        // Another run: say so while its report is built, rather than show the last one.
        m_snapshot.reset();
        m_message->setText(tr("Loading the report of run %1\u2026").arg(info.runId));
        m_stack->setCurrentWidget(m_message);
    }
    m_jobs.start(
        [info, result]() -> Result<RunReportSnapshot> { return buildRunReport(info, result); },
        [this](Result<RunReportSnapshot> snapshot) {
            if (snapshot)
                apply(std::move(*snapshot));
        });
}

void RunReportView::showRun(const RunInfo &info, const Database &db) {
    if (runId() != info.runId) {
        m_snapshot.reset();
        m_message->setText(tr("Loading the report of run %1\u2026").arg(info.runId));
        m_stack->setCurrentWidget(m_message);
    }
    m_jobs.start(
        [info, db]() -> Result<RunReportSnapshot> {
            auto result = runResult(db.control(), info.runId);
            if (!result)
                return fail(result.error());
            result->status = info.status; // "interrupted" is derived in listRuns
            return buildRunReport(info, *result);
        },
        [this, id = info.runId](Result<RunReportSnapshot> snapshot) {
            if (snapshot) {
                apply(std::move(*snapshot));
            } else {
                m_message->setText(tr("Could not load the report of run %1: %2")
                                       .arg(id)
                                       .arg(snapshot.error().message));
                m_stack->setCurrentWidget(m_message);
            }
        });
}

void RunReportView::apply(RunReportSnapshot snapshot) {
    m_snapshot = std::move(snapshot);
    const RunReportSnapshot &s = *m_snapshot;
    const RunInfo &info = s.info;
    const RunResult &r = s.result;
    const qint64 partitions = qint64(s.partitions.size());

    m_heading->setText(tr("Run %1 of %2: %3").arg(info.runId).arg(r.dataset, enumName(r.status)));
    const QString started = r.startedAt.isEmpty() ? info.startedAt : r.startedAt;
    const QString finished = r.finishedAt.isEmpty() ? info.finishedAt : r.finishedAt;
    QStringList facts{
        tr("kind %1").arg(enumName(info.kind)),
        tr("mode %1").arg(enumName(r.mode)),
        tr("plan %1").arg(orDash(r.planId)),
        tr("by %1 on %2").arg(orDash(info.osUser), orDash(info.host)),
        tr("started %1").arg(fmt::timestamp(started)),
        tr("finished %1")
            .arg(finished.isEmpty() ? QStringLiteral("\u2014") : fmt::timestamp(finished))};
    if (const double s = fmt::secondsBetween(started, finished); s >= 0)
        facts << tr("took %1").arg(fmt::duration(s));
    m_facts->setText(facts.join(QStringLiteral("  \u00b7  ")));
    m_error->setText(r.error.isEmpty() ? QString() : tr("Error: %1").arg(r.error));
    m_error->setVisible(!r.error.isEmpty());

    for (int i = 0; i < kPartitionOutcomes; ++i)
        m_outcomeTiles[i]->setValue(fmt::number(s.outcomeCounts[i]));
    m_outcomeTiles[int(PartitionOutcome::Failed)]->setAlert(s.count(PartitionOutcome::Failed) > 0);
    m_outcomeTiles[int(PartitionOutcome::NotPublished)]->setAlert(
        s.count(PartitionOutcome::NotPublished) > 0);
    const PartitionResult &t = s.totals;
    m_inserted->setValue(fmt::number(t.inserted));
    m_updated->setValue(fmt::number(t.updated));
    m_deleted->setValue(fmt::number(t.deleted));
    m_deleted->setAlert(t.deleted > 0);
    m_gatesTile->setValue(QStringLiteral("%1 / %2").arg(s.gatesFailed).arg(s.gates.size()));
    m_gatesTile->setAlert(s.gatesFailed > 0);
    m_totals->setText(tr("Totals of %1 partition(s), %2 published: %3 source rows, %4 staged, %5 "
                         "duplicates dropped, "
                         "%6 inserted, %7 updated, %8 deleted, %9 unchanged.")
                          .arg(fmt::number(partitions), fmt::number(s.published),
                               fmt::number(t.sourceRows), fmt::number(t.stagedRows),
                               fmt::number(t.duplicatesDropped), fmt::number(t.inserted),
                               fmt::number(t.updated), fmt::number(t.deleted),
                               fmt::number(t.unchanged)));

    m_model->resetData(s.partitions);
    m_gates->resetData(s.gates);
    m_tabs->setTabText(0, tr("Partitions (%1)").arg(fmt::number(partitions)));
    m_tabs->setTabText(1, s.gatesFailed
                              ? tr("Gates (%1 failed of %2)").arg(s.gatesFailed).arg(s.gates.size())
                              : tr("Gates (%1)").arg(s.gates.size()));
    updateFilterChoices();
    m_partitionsView->resizeColumnsToContents();
    m_gatesView->resizeColumnsToContents();
    m_stack->setCurrentIndex(1);
    Q_EMIT reportShown(info.runId);
}

void RunReportView::updateFilterChoices() {
    const QVariant keep = m_filter->currentData();
    const QSignalBlocker block(m_filter);
    m_filter->clear();
    m_filter->addItem(
        tr("All partitions (%1)")
            .arg(fmt::number(m_snapshot ? qint64(m_snapshot->partitions.size()) : 0)));
    for (int i = 0; i < kPartitionOutcomes; ++i) {
        const int n = m_snapshot ? m_snapshot->outcomeCounts[i] : 0;
        QString label = enumName(PartitionOutcome(i));
        label[0] = label[0].toUpper();
        m_filter->addItem(QStringLiteral("%1 (%2)").arg(label, fmt::number(n)), i);
    }
    const int index = keep.isValid() ? m_filter->findData(keep) : 0;
    m_filter->setCurrentIndex(std::max(0, index));
    const QVariant outcome = m_filter->currentData();
    setOutcomeFilter(outcome.isValid() ? std::optional(PartitionOutcome(outcome.toInt()))
                                       : std::nullopt);
}

void RunReportView::setOutcomeFilter(std::optional<PartitionOutcome> outcome) {
    if (outcome)
        m_proxy->setFilterRegularExpression(
            QRegularExpression(QStringLiteral("^%1$").arg(int(*outcome))));
    else
        m_proxy->setFilterRegularExpression(QRegularExpression());
    const int index = outcome ? m_filter->findData(int(*outcome)) : 0;
    if (m_filter->currentIndex() != index) {
        const QSignalBlocker block(m_filter);
        m_filter->setCurrentIndex(index);
    }
    const int total = m_model->rowCount(), shown = m_proxy->rowCount();
    m_shown->setText(shown == total
                         ? tr("%1 shown").arg(fmt::number(total))
                         : tr("%1 of %2 shown").arg(fmt::number(shown), fmt::number(total)));
}

QString RunReportView::text() const {
    if (m_stack->currentWidget() == m_message)
        return m_message->text();
    QStringList parts{m_heading->text(), m_facts->text()};
    if (m_snapshot && !m_snapshot->result.error.isEmpty())
        parts << m_error->text();
    parts << m_totals->text();
    return parts.join(u'\n');
}

} // namespace rw
