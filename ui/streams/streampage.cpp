#include "ui/streams/streampage.h"

#include "core/sql/privileges.h"
#include "core/streams/streams.h"
#include "ui/common/errorbanner.h"
#include "ui/common/format.h"
#include "ui/common/stattile.h"
#include "ui/common/style.h"
#include "ui/streams/consumergroupsmodel.h"
#include "ui/streams/groupoffsetsmodel.h"
#include "ui/streams/laghistorychart.h"
#include "ui/streams/offsetschart.h"
#include "ui/streams/replaydialog.h"
#include "ui/streams/resetoffsetsdialog.h"
#include "ui/streams/streampartitionsmodel.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

namespace rw {

namespace {

// What one background load of a stream returns.
struct StreamSnapshot {
    std::vector<StreamPartitionInfo> partitions;
    qint64 sinkRows = 0;
    std::vector<ConsumerGroupInfo> groups;
    QString group; // the group whose offsets are loaded
    std::vector<PartitionOffsets> offsets;
    std::vector<LagPoint> history;
    // Why this role may not reset or replay the group (empty: it may).
    QString resetRefusal = {};
    QString replayRefusal = {};
};

struct GroupSnapshot {
    std::vector<PartitionOffsets> offsets;
    std::vector<ConsumerGroupInfo> groups;
    qint64 sinkRows = 0;
    std::vector<LagPoint> history;
    // Why this role may not reset or replay the group (empty: it may).
    QString resetRefusal;
    QString replayRefusal;
};

// The lag-over-time chart's span.
constexpr qint64 kHistoryMs = 3600 * 1000;

int sampleIntervalMs() {
    bool ok = false;
    const int ms = qEnvironmentVariableIntValue("REWIND_STREAMS_SAMPLE_MS", &ok);
    return ok && ms > 0 ? ms : 10000;
}

} // namespace

StreamPage::StreamPage(QWidget *parent)
    : Page(parent)
    , m_title(new QLabel(this))
    , m_subtitle(new QLabel(this))
    , m_partitionsTile(new StatTile(tr("log partitions"), this))
    , m_eventsTile(new StatTile(tr("events in log"), this))
    , m_rangeTile(new StatTile(tr("offsets removed by retention"), this))
    , m_sinkTile(new StatTile(tr("sink rows"), this))
    , m_view(new QTableView(this))
    , m_model(new StreamPartitionsModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_groupsView(new QTableView(this))
    , m_groupsModel(new ConsumerGroupsModel(this))
    , m_groupsProxy(new QSortFilterProxyModel(this))
    , m_groupTitle(new QLabel(this))
    , m_offsetsView(new QTableView(this))
    , m_offsetsModel(new GroupOffsetsModel(this))
    , m_chart(new OffsetsChart(this))
    , m_history(new LagHistoryChart(this))
    , m_banner(new ErrorBanner(this))
    , m_sampler(new QTimer(this))
    , m_resetButton(new QPushButton(tr("Reset offsets\u2026"), this))
    , m_replayButton(new QPushButton(tr("Replay\u2026"), this))
    , m_progress(new QProgressBar(this))
    , m_cancelButton(new QPushButton(tr("Cancel"), this))
    , m_replayStatus(new QLabel(this))
    , m_consumedTile(new StatTile(tr("consumed"), this))
    , m_insertedTile(new StatTile(tr("inserted"), this))
    , m_duplicatesTile(new StatTile(tr("duplicates"), this))
    , m_deadTile(new StatTile(tr("dead-lettered"), this)) {
    setObjectName(QStringLiteral("streamPage"));
    setProperty("ownLoadBanner", true); // load failures: m_banner, not the window's
    style::makeTitle(m_title);
    m_subtitle->setObjectName(QStringLiteral("streamHeader"));
    m_subtitle->setStyleSheet(style::textColour(style::Colour::Subtitle));
    m_subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_subtitle->setWordWrap(true);

    auto *tiles = new QHBoxLayout;
    tiles->setSpacing(8);
    for (StatTile *tile : {m_partitionsTile, m_eventsTile, m_rangeTile, m_sinkTile})
        tiles->addWidget(tile);
    tiles->addStretch(1);

    // Log partitions.
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(StreamPartitionsModel::SortRole);
    m_view->setObjectName(QStringLiteral("streamView"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(StreamPartitionsModel::PartitionColumn, Qt::AscendingOrder);
    style::setupTable(m_view, 10);

    // Consumer groups.
    m_groupsProxy->setSourceModel(m_groupsModel);
    m_groupsProxy->setSortRole(ConsumerGroupsModel::SortRole);
    m_groupsView->setObjectName(QStringLiteral("groupsView"));
    m_groupsView->setModel(m_groupsProxy);
    m_groupsView->setSortingEnabled(true);
    m_groupsView->sortByColumn(ConsumerGroupsModel::GroupColumn, Qt::AscendingOrder);
    m_groupsView->setSelectionMode(QAbstractItemView::SingleSelection);
    style::setupTable(m_groupsView, 10);
    m_groupsView->setColumnHidden(ConsumerGroupsModel::PartitionsColumn, true); // in the tooltip
    m_groupsView->setMinimumWidth(330);
    connect(m_groupsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (!current.isValid())
                    return;
                const QModelIndex source = m_groupsProxy->mapToSource(current);
                const QString group = m_groupsModel->snapshot()[std::size_t(source.row())].group;
                if (group != m_group)
                    loadGroup(group);
            });

    m_offsetsView->setObjectName(QStringLiteral("offsetsView"));
    auto *offsetsProxy = new QSortFilterProxyModel(this);
    offsetsProxy->setSourceModel(m_offsetsModel);
    offsetsProxy->setSortRole(GroupOffsetsModel::SortRole);
    m_offsetsView->setModel(offsetsProxy);
    m_offsetsView->setSortingEnabled(true);
    m_offsetsView->sortByColumn(GroupOffsetsModel::PartitionColumn, Qt::AscendingOrder);
    style::setupTable(m_offsetsView, 10);

    QFont groupFont = m_groupTitle->font();
    groupFont.setPointSizeF(groupFont.pointSizeF() * 1.15);
    groupFont.setBold(true);
    m_groupTitle->setFont(groupFont);
    m_resetButton->setObjectName(QStringLiteral("resetOffsetsButton"));
    m_resetButton->setToolTip(tr("Move the group's committed offsets (dry run first)"));
    m_replayButton->setObjectName(QStringLiteral("replayButton"));
    m_replayTip = tr("Read from the committed offsets to the log end into the sink, each "
                     "event_id once (dry run first)");
    m_replayButton->setToolTip(m_replayTip);
    connect(m_resetButton, &QPushButton::clicked, this, [this] { openResetDialog(); });
    connect(m_replayButton, &QPushButton::clicked, this, &StreamPage::startReplay);

    m_progress->setObjectName(QStringLiteral("replayProgress"));
    m_progress->setTextVisible(true);
    m_progress->setFormat(tr("%v of %m offsets"));
    m_progress->hide();
    m_cancelButton->setObjectName(QStringLiteral("cancelReplay"));
    m_cancelButton->setToolTip(
        tr("Stop at the next batch boundary; everything before it stays committed"));
    m_cancelButton->hide();
    connect(m_cancelButton, &QPushButton::clicked, this, &StreamPage::cancelReplay);
    m_replayStatus->setObjectName(QStringLiteral("replayStatus"));
    m_replayStatus->setWordWrap(true);
    m_replayStatus->setStyleSheet(style::textColour(style::Colour::Subtitle));

    auto *groupHeader = new QHBoxLayout;
    groupHeader->addWidget(m_groupTitle, 1);
    groupHeader->addWidget(m_resetButton);
    groupHeader->addWidget(m_replayButton);
    auto *progressRow = new QHBoxLayout;
    progressRow->addWidget(m_progress, 1);
    progressRow->addWidget(m_cancelButton);
    auto *resultTiles = new QHBoxLayout;
    resultTiles->setSpacing(8);
    m_resultLabel = new QLabel(tr("Last replay:"), this);
    resultTiles->addWidget(m_resultLabel);
    for (StatTile *t : {m_consumedTile, m_insertedTile, m_duplicatesTile, m_deadTile})
        resultTiles->addWidget(t);
    resultTiles->addWidget(m_replayStatus, 1);

    auto *charts = style::splitter(Qt::Vertical, {{m_chart, 0}, {m_history, 0}}, this);
    auto *groupDetail = style::splitter(Qt::Horizontal, {{m_offsetsView, 0}, {charts, 1}}, this);
    m_offsetsView->setMinimumWidth(460);
    m_offsetsView->horizontalHeader()->setStretchLastSection(false);

    auto *groupPane = new QWidget(this);
    auto *groupLayout = new QVBoxLayout(groupPane);
    groupLayout->setContentsMargins(0, 0, 0, 0);
    groupLayout->setSpacing(6);
    groupLayout->addLayout(groupHeader);
    groupLayout->addWidget(groupDetail, 1);
    groupLayout->addLayout(progressRow);
    groupLayout->addLayout(resultTiles);

    auto *groupsSplit = style::splitter(
        Qt::Horizontal,
        {{style::titledPane(tr("Consumer groups"), m_groupsView, this), 0}, {groupPane, 1}}, this);
    auto *vertical = style::splitter(
        Qt::Vertical,
        {{groupsSplit, 3}, {style::titledPane(tr("Log partitions"), m_view, this), 1}}, this);

    auto *layout = style::pageLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_subtitle);
    m_banner->setObjectName(QStringLiteral("streamBanner"));
    layout->addWidget(m_banner);
    layout->addLayout(tiles);
    layout->addWidget(vertical, 1);

    m_sampler->setObjectName(QStringLiteral("lagSampler"));
    m_sampler->setInterval(sampleIntervalMs());
    connect(m_sampler, &QTimer::timeout, this, [this] {
        if (isVisible())
            sampleNow();
    });
    m_sampler->start();
    clear();
}

void StreamPage::sampleNow() {
    if (!m_db || !m_stream || isLoading() || m_groupJobs.isRunning() || m_replaying)
        return;
    if (m_loadFailed || m_group.isEmpty())
        refresh(); // after a failure (the cluster down): try the whole page again
    else
        loadGroup(m_group, true);
}

void StreamPage::showLoadError(const QString &message) {
    m_loadFailed = true;
    m_banner->showError(m_stream && m_stream->kafka
                            ? tr("%1. Retrying every %2 s while this page is open.")
                                  .arg(message)
                                  .arg(m_sampler->interval() / 1000)
                            : message);
}

void StreamPage::clearViews() {
    m_group.clear();
    m_model->resetData({});
    m_groupsModel->resetData({});
    m_offsetsModel->resetData({});
    m_chart->clear();
    m_history->clear();
    m_loadFailed = false;
    m_banner->dismiss();
}

void StreamPage::setStream(const Database &db, const StreamSpec &stream) {
    const bool same = m_stream && m_stream->name == stream.name;
    m_db = db;
    m_stream = stream;
    m_sinkRows = -1;
    if (!same) {
        clearViews();
        m_replayResult.reset();
        m_replayStatus->clear();
    }
    refresh();
}

QString StreamPage::streamName() const {
    return m_stream ? m_stream->name : QString();
}

QString StreamPage::title() const {
    return m_stream ? tr("Stream %1").arg(m_stream->name) : tr("Stream");
}

QString StreamPage::statusText() const {
    if (m_group.isEmpty())
        return title();
    qint64 lag = 0;
    for (const PartitionOffsets &p : m_offsetsModel->snapshot())
        lag += p.lag;
    return tr("%1: group %2 is %3 events behind").arg(title(), m_group, fmt::number(lag));
}

void StreamPage::clear() {
    cancelLoad();
    m_groupJobs.cancel();
    m_db.reset();
    m_stream.reset();
    m_sinkRows = -1;
    clearViews();
    for (StatTile *t : {m_consumedTile, m_insertedTile, m_duplicatesTile, m_deadTile})
        t->setValue(QStringLiteral("\u2014"));
    updateHeader();
    updateActions();
}

void StreamPage::refresh() {
    if (!m_db || !m_stream)
        return;
    startLoad(
        tr("Loading stream %1\u2026").arg(m_stream->name),
        [db = *m_db, stream = *m_stream, wanted = m_group]() -> Result<StreamSnapshot> {
            auto partitions = listStreamPartitions(db, stream);
            if (!partitions)
                return fail(partitions.error());
            auto sink = sinkRowCount(db, stream);
            if (!sink)
                return fail(sink.error());
            auto groups = listConsumerGroups(db, stream);
            if (!groups)
                return fail(groups.error());
            StreamSnapshot snap{std::move(*partitions), *sink, std::move(*groups), {}, {}, {}};
            // Keep the group on show; else the one furthest behind (the crashed consumer).
            for (const ConsumerGroupInfo &g : snap.groups)
                if (g.group == wanted)
                    snap.group = wanted;
            if (snap.group.isEmpty()) {
                qint64 most = -1;
                for (const ConsumerGroupInfo &g : snap.groups)
                    if (g.lag > most) {
                        most = g.lag;
                        snap.group = g.group;
                    }
            }
            for (const ConsumerGroupInfo &g : snap.groups)
                if (g.group == snap.group)
                    snap.offsets = g.offsets; // as read (and sampled) for the list
            if (!snap.group.isEmpty()) {
                auto history = lagHistory(db, stream.name, snap.group,
                                          QDateTime::currentMSecsSinceEpoch() - kHistoryMs);
                if (!history)
                    return fail(history.error());
                snap.history = std::move(*history);
                snap.resetRefusal =
                    privileges::refusalOf(requireResetPrivileges(db, stream, snap.group, true));
                snap.replayRefusal =
                    privileges::refusalOf(requireReplayPrivileges(db, stream, snap.group, true));
            }
            return snap;
        },
        [this](Result<StreamSnapshot> result) {
            if (!result) {
                updateHeader();
                updateActions();
                showLoadError(
                    tr("Could not load stream %1: %2").arg(streamName(), result.error().message));
                Q_EMIT loadFailed(
                    tr("Could not load stream %1: %2").arg(streamName(), result.error().message));
                return;
            }
            m_loadFailed = false;
            m_banner->dismiss();
            m_sinkRows = result->sinkRows;
            m_model->resetData(std::move(result->partitions));
            style::fitColumns(m_view, StreamPartitionsModel::ColumnCount);
            m_groupsModel->resetData(std::move(result->groups));
            fitGroups();
            m_resetRefusal = result->resetRefusal;
            m_replayRefusal = result->replayRefusal;
            showGroupOffsets(result->group, std::move(result->offsets), result->history);
            updateHeader();
            Q_EMIT pageLoaded();
        });
    m_groupJobs.cancel();
    updateHeader();
    updateActions();
}

bool StreamPage::selectGroup(const QString &group) {
    if (m_groupsModel->rowOf(group) < 0)
        return false;
    loadGroup(group);
    return true;
}

void StreamPage::loadGroup(const QString &group, bool quiet) {
    if (!m_db || !m_stream)
        return;
    m_group = group;
    if (!quiet)
        m_groupTitle->setText(tr("Group %1 \u00b7 loading\u2026").arg(group));
    updateActions();
    m_groupJobs.start(
        [db = *m_db, stream = *m_stream, group]() -> Result<GroupSnapshot> {
            auto groups = listConsumerGroups(db, stream);
            if (!groups)
                return fail(groups.error());
            const auto listed =
                std::find_if(groups->begin(), groups->end(),
                             [&](const ConsumerGroupInfo &g) { return g.group == group; });
            auto offsets = listed != groups->end()
                               ? Result<std::vector<PartitionOffsets>>(listed->offsets)
                               : listOffsets(db, stream, group);
            if (!offsets)
                return fail(offsets.error());
            auto sink = sinkRowCount(db, stream);
            if (!sink)
                return fail(sink.error());
            auto history = lagHistory(db, stream.name, group,
                                      QDateTime::currentMSecsSinceEpoch() - kHistoryMs);
            if (!history)
                return fail(history.error());
            return GroupSnapshot{
                std::move(*offsets),
                std::move(*groups),
                *sink,
                std::move(*history),
                privileges::refusalOf(requireResetPrivileges(db, stream, group, true)),
                privileges::refusalOf(requireReplayPrivileges(db, stream, group, true))};
        },
        [this, group, quiet](Result<GroupSnapshot> result) {
            if (!result) {
                showLoadError(tr("Could not load the offsets of group %1: %2")
                                  .arg(group, result.error().message));
                if (!quiet)
                    Q_EMIT loadFailed(tr("Could not load the offsets of group %1: %2")
                                          .arg(group, result.error().message));
                return;
            }
            m_loadFailed = false;
            m_banner->dismiss();
            m_sinkRows = result->sinkRows;
            m_resetRefusal = result->resetRefusal;
            m_replayRefusal = result->replayRefusal;
            m_groupsModel->resetData(std::move(result->groups));
            fitGroups();
            showGroupOffsets(group, std::move(result->offsets), result->history);
            updateHeader();
        });
}

void StreamPage::fitGroups() {
    const bool coordinated =
        std::any_of(m_groupsModel->snapshot().begin(), m_groupsModel->snapshot().end(),
                    [](const ConsumerGroupInfo &g) { return g.state.has_value(); });
    m_groupsView->setColumnHidden(ConsumerGroupsModel::StateColumn, !coordinated);
    m_groupsView->setColumnHidden(ConsumerGroupsModel::MembersColumn, !coordinated);
    // A Kafka group's commit time is not known (OffsetFetch has none).
    m_groupsView->setColumnHidden(ConsumerGroupsModel::LastCommitColumn,
                                  m_stream && m_stream->kafka.has_value());
    // Sized to its text, the last column too (a stretched one would be as
    // wide as the pane, which is what is being sized).
    m_groupsView->horizontalHeader()->setStretchLastSection(false);
    m_groupsView->resizeColumnsToContents();
    int width =
        2 * m_groupsView->frameWidth() + m_groupsView->verticalScrollBar()->sizeHint().width();
    for (int c = 0; c < ConsumerGroupsModel::ColumnCount; ++c)
        if (!m_groupsView->isColumnHidden(c)) {
            m_groupsView->setColumnWidth(c, m_groupsView->columnWidth(c) + 8);
            width += m_groupsView->columnWidth(c);
        }
    // The pane beside it gives way (up to a point: a long group name scrolls).
    m_groupsView->setMinimumWidth(std::clamp(width, 330, 600));
}

void StreamPage::showGroupOffsets(const QString &group, std::vector<PartitionOffsets> offsets,
                                  const std::vector<LagPoint> &history) {
    m_group = group;
    qint64 lag = 0;
    for (const PartitionOffsets &p : offsets)
        lag += p.lag;
    m_chart->setOffsets(group, offsets);
    m_history->setHistory(group, history);
    m_offsetsModel->resetData(std::move(offsets));
    style::fitColumns(m_offsetsView, GroupOffsetsModel::ColumnCount, 12);
    if (group.isEmpty())
        m_groupTitle->setText(tr("No consumer group has committed offsets on this stream"));
    else
        m_groupTitle->setText(
            tr("Group %1 \u00b7 %2 events behind the log end").arg(group, fmt::number(lag)));
    {
        const QSignalBlocker block(m_groupsView->selectionModel());
        const int row = m_groupsModel->rowOf(group);
        if (row >= 0)
            m_groupsView->setCurrentIndex(
                m_groupsProxy->mapFromSource(m_groupsModel->index(row, 0)));
    }
    updateActions();
    Q_EMIT groupLoaded();
}

void StreamPage::updateActions() {
    const bool ready = m_db && m_stream && !m_group.isEmpty() && !isLoading();
    m_resetButton->setEnabled(ready && !m_replaying && !m_preparingReplay &&
                              m_resetRefusal.isEmpty());
    m_replayButton->setEnabled(ready && !m_replaying && !m_preparingReplay &&
                               m_replayRefusal.isEmpty());
    // Disabled for this role: the tooltip says which privilege it lacks.
    m_resetButton->setToolTip(m_resetRefusal.isEmpty()
                                  ? tr("Move the group's committed offsets (dry run first)")
                                  : m_resetRefusal);
    m_replayButton->setToolTip(m_replayRefusal.isEmpty() ? m_replayTip : m_replayRefusal);
    m_progress->setVisible(m_replaying);
    m_cancelButton->setVisible(m_replaying);
    const bool result = m_replayResult.has_value();
    m_resultLabel->setVisible(result);
    for (StatTile *t : {m_consumedTile, m_insertedTile, m_duplicatesTile, m_deadTile})
        t->setVisible(result);
}

ResetOffsetsDialog *StreamPage::openResetDialog() {
    if (!m_db || !m_stream || m_group.isEmpty() || m_replaying)
        return nullptr;
    if (m_resetDialog)
        m_resetDialog->close();
    auto *dialog =
        new ResetOffsetsDialog(*m_db, *m_stream, m_group, m_offsetsModel->snapshot(), this);
    connect(dialog, &QDialog::finished, dialog, &QObject::deleteLater);
    connect(dialog, &ResetOffsetsDialog::applied, this, [this](const ResetPlan &plan) {
        m_replayStatus->setText(tr("Offsets of %1 reset (%2).").arg(plan.group, plan.request));
        loadGroup(plan.group);
        Q_EMIT offsetsReset();
    });
    m_resetDialog = dialog;
    dialog->open();
    return dialog;
}

void StreamPage::startReplay() {
    if (!m_db || !m_stream || m_group.isEmpty() || m_replaying || m_preparingReplay)
        return;
    m_preparingReplay = true;
    updateActions();
    m_replayStatus->setText(tr("Dry run of the replay\u2026"));
    const QString group = m_group;
    tasks().start(
        [db = *m_db, stream = *m_stream, group]() {
            ReplayOptions options; // a dry run
            return replay(db, stream, group, options);
        },
        [this](Result<ReplayResult> dry) {
            m_preparingReplay = false;
            updateActions();
            if (!dry) {
                m_replayStatus->setText(tr("Replay dry run failed: %1").arg(dry.error().message));
                return;
            }
            m_replayStatus->setText(
                dry->consumed > 0
                    ? QString()
                    : tr("Nothing to replay: group %1 is at the log end.").arg(dry->group));
            if (m_replayDialog)
                m_replayDialog->close();
            auto *dialog = new ReplayDialog(*dry, m_stream->sink, this);
            connect(dialog, &QDialog::finished, dialog, &QObject::deleteLater);
            connect(dialog, &ReplayDialog::confirmed, this, &StreamPage::runReplay);
            m_replayDialog = dialog;
            dialog->open();
            Q_EMIT replayDialogOpened();
        });
}

void StreamPage::runReplay(qint64 maxEvents, qint64 batchSize) {
    if (!m_db || !m_stream || m_group.isEmpty() || m_replaying)
        return;
    m_replaying = true;
    m_progress->setRange(0, 0);
    m_progress->setValue(0);
    m_cancelButton->setEnabled(true);
    m_replayStatus->setText(tr("Replaying %1 for group %2\u2026").arg(m_stream->name, m_group));
    updateActions();
    ReplayOptions options;
    options.execute = true;
    if (maxEvents > 0)
        options.maxEvents = maxEvents;
    options.batchSize = std::max<qint64>(1, batchSize);
    m_replayJobs.start(
        [this, db = *m_db, stream = *m_stream, group = m_group, options](const JobToken &job) {
            // Worker thread: `this` is only captured by the reports posted
            // back, which run only while this replay is current.
            ReplayOptions o = options;
            o.cancel = job.cancelFlag();
            o.progress = [this, job](const ReplayProgress &p) {
                job.post([this, p] { onReplayProgress(p); });
            };
            return replay(db, stream, group, o);
        },
        [this](Result<ReplayResult> result) {
            m_replaying = false;
            updateActions();
            if (!result) {
                m_replayStatus->setText(tr("Replay failed: %1").arg(result.error().message));
                Q_EMIT loadFailed(
                    tr("Replay of %1 failed: %2").arg(streamName(), result.error().message));
                Q_EMIT replayFinished();
                return;
            }
            m_replayResult = *result;
            updateActions();
            const ReplayResult &r = *result;
            m_consumedTile->setValue(fmt::number(r.consumed));
            m_insertedTile->setValue(fmt::number(r.inserted));
            m_duplicatesTile->setValue(fmt::number(r.duplicates),
                                       tr("Valid events whose event_id the sink already had"));
            m_deadTile->setValue(
                fmt::number(r.deadLettered),
                r.alreadyDeadLettered
                    ? tr("%1 more were already in the DLQ").arg(fmt::number(r.alreadyDeadLettered))
                    : QString());
            m_deadTile->setAlert(r.deadLettered > 0);
            m_replayStatus->setText(r.status == ReplayStatus::Cancelled
                                        ? tr("Replay #%1 cancelled after %2 batches: what it "
                                             "committed stays; replay again to continue.")
                                              .arg(r.replayId)
                                              .arg(r.batches)
                                        : tr("Replay #%1 %2: %3 batches in %4.")
                                              .arg(r.replayId)
                                              .arg(enumName(r.status))
                                              .arg(r.batches)
                                              .arg(fmt::duration(r.seconds)));
            loadGroup(r.group);
            Q_EMIT replayFinished();
        });
}

void StreamPage::onReplayProgress(const ReplayProgress &p) {
    if (!m_replaying)
        return;
    m_progress->setRange(0, int(std::min<qint64>(p.offsetsTotal, std::numeric_limits<int>::max())));
    m_progress->setValue(int(std::min<qint64>(p.consumed, std::numeric_limits<int>::max())));
    m_replayStatus->setText(
        tr("Batch %1 of %2: %3 consumed, %4 inserted, %5 duplicates, %6 dead-lettered")
            .arg(p.batchesDone)
            .arg(p.batchesTotal)
            .arg(fmt::number(p.consumed), fmt::number(p.inserted), fmt::number(p.duplicates),
                 fmt::number(p.deadLettered)));
}

void StreamPage::cancelReplay() {
    if (!m_replaying)
        return;
    m_replayJobs.requestCancel();
    m_cancelButton->setEnabled(false);
    m_replayStatus->setText(tr("Cancelling: the replay stops after the batch in progress\u2026"));
}

ReplayDialog *StreamPage::replayDialog() const {
    return m_replayDialog.data();
}

QString StreamPage::replayStatusText() const {
    return m_replayStatus->text();
}

void StreamPage::updateHeader() {
    if (!m_stream) {
        m_title->setText(tr("No stream selected"));
        m_subtitle->clear();
        m_groupTitle->clear();
        for (StatTile *tile : {m_partitionsTile, m_eventsTile, m_rangeTile, m_sinkTile})
            tile->setValue(QStringLiteral("\u2014"));
        return;
    }
    const StreamSpec &s = *m_stream;
    m_title->setText(s.name);
    QStringList fields;
    for (const auto &[column, path] : s.fields)
        fields << column;
    QStringList facts{tr("%1 %2 \u2192 sink %3").arg(s.sourceKind(), s.source(), s.sink)};
    if (s.kafka)
        facts << tr("cluster %1").arg(s.kafka->bootstrap);
    if (!fields.isEmpty())
        facts << tr("fields: %1").arg(fields.join(QStringLiteral(", ")));
    if (!s.required.isEmpty())
        facts << tr("required: %1").arg(s.required.join(QStringLiteral(", ")));
    if (isLoading())
        facts << tr("loading\u2026");
    m_subtitle->setText(facts.join(QStringLiteral("  \u00b7  ")));

    const bool known = !isLoading() && m_sinkRows >= 0;
    qint64 events = 0, removed = 0;
    for (const StreamPartitionInfo &p : m_model->snapshot()) {
        events += p.events;
        removed += p.logEnd -
                   p.events; // offsets start at 0: below log start or inside gaps, they are gone
    }
    const QString dash = QStringLiteral("\u2014");
    m_partitionsTile->setValue(known ? fmt::number(qint64(m_model->snapshot().size())) : dash);
    m_eventsTile->setValue(known ? fmt::number(events) : dash);
    m_rangeTile->setValue(known ? fmt::number(removed) : dash,
                          tr("Offsets below the log start or missing inside the log: removed by "
                             "retention or compaction"));
    m_sinkTile->setValue(known ? fmt::number(m_sinkRows) : dash);
}

} // namespace rw
