#pragma once

#include "core/sql/database.h"
#include "core/streams/lag.h"
#include "core/streams/offsets.h"
#include "core/streams/replay.h"
#include "core/workspace/spec.h"
#include "ui/common/page.h"

#include <QPointer>
#include <atomic>
#include <memory>
#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace rw {

class ConsumerGroupsModel;
class ErrorBanner;
class GroupOffsetsModel;
class LagHistoryChart;
class OffsetsChart;
class ReplayDialog;
class ResetOffsetsDialog;
class StatTile;
class StreamPartitionsModel;

// One stream: the extent of each log partition, what the sink holds, its
// consumer groups with each group's offsets per partition (table and bar
// chart), offset resets (ResetOffsetsDialog: dry run, then a typed
// confirmation) and replay into the sink with progress, Cancel and result.
// While the page is shown it reads the groups again every 10 s
// (REWIND_STREAMS_SAMPLE_MS), which records lag samples: the lag-over-time
// chart and the groups' Burrow status grow from them. A log that cannot be
// read (a Kafka cluster that is down) is a banner on the page, retried at
// each tick; the window never waits for it.
//
// Threading: loads, resets and replays run on worker threads; a replay's
// progress reaches the page through queued calls, and the destructor
// cancels a running replay and waits for it.
class StreamPage : public Page {
    Q_OBJECT
public:
    explicit StreamPage(QWidget *parent = nullptr);

    // Shows `stream` and starts loading its log extents and groups in the background.
    void setStream(const Database &db, const StreamSpec &stream);
    QString streamName() const;

    void refresh() override;
    void clear() override;
    QString title() const override;
    QString statusText() const override;

    // The consumer group shown (by default the one with the most lag).
    bool selectGroup(const QString &group);
    QString currentGroup() const { return m_group; }

    // Opens the reset dialog for the current group (nullptr without one).
    ResetOffsetsDialog *openResetDialog();
    // Dry-runs a replay of the current group, then opens the confirmation
    // (replayDialog() once it is in; replayDialogOpened() is emitted).
    void startReplay();
    ReplayDialog *replayDialog() const;
    // Runs the replay now (what confirming the dialog does).
    void runReplay(qint64 maxEvents, qint64 batchSize);
    void cancelReplay();
    bool isReplaying() const { return m_replaying; }
    const std::optional<ReplayResult> &replayResult() const { return m_replayResult; }
    QString replayStatusText() const;

    QTableView *view() const { return m_view; }
    StreamPartitionsModel *model() const { return m_model; }
    ConsumerGroupsModel *groupsModel() const { return m_groupsModel; }
    GroupOffsetsModel *offsetsModel() const { return m_offsetsModel; }
    QTableView *groupsView() const { return m_groupsView; }
    OffsetsChart *offsetsChart() const { return m_chart; }
    LagHistoryChart *lagHistoryChart() const { return m_history; }
    ErrorBanner *banner() const { return m_banner; }
    // One tick of the sampler (what the timer does every 10 s while shown).
    void sampleNow();
    QPushButton *resetButton() const { return m_resetButton; }
    QPushButton *replayButton() const { return m_replayButton; }
    QPushButton *cancelButton() const { return m_cancelButton; }
    QProgressBar *replayProgress() const { return m_progress; }
    qint64 sinkRows() const { return m_sinkRows; }

Q_SIGNALS:
    void groupLoaded();
    void replayDialogOpened();
    void replayFinished();
    void offsetsReset();

private:
    // Empties the tables and charts and forgets the group shown and a failed load.
    void clearViews();
    void updateHeader();
    // `quiet`: a sampler tick, which keeps the title and reports a failure
    // on the page's banner only.
    void loadGroup(const QString &group, bool quiet = false);
    void showLoadError(const QString &message);
    // The groups table's columns for what the stream has (a log table's
    // groups have no coordinator: no state, no members), and wide enough to
    // show them all.
    void fitGroups();
    void showGroupOffsets(const QString &group, std::vector<PartitionOffsets> offsets,
                          const std::vector<LagPoint> &history);
    void updateActions();
    void onReplayProgress(const ReplayProgress &progress);

    std::optional<Database> m_db;
    std::optional<StreamSpec> m_stream;
    qint64 m_sinkRows = -1; // -1: unknown
    QString m_group;
    QString m_resetRefusal; // this role may not reset the group's offsets: why
    QString m_replayRefusal;
    QString m_replayTip;
    JobTracker m_groupJobs{this};

    // Replay state.
    bool m_replaying = false;
    bool m_preparingReplay = false;
    // Its tracker's destructor cancels a replay in flight (at its next batch
    // boundary) and drops its reports: the page does not wait for it.
    JobTracker m_replayJobs{this};
    std::optional<ReplayResult> m_replayResult;
    QPointer<ReplayDialog> m_replayDialog;
    QPointer<ResetOffsetsDialog> m_resetDialog;

    QLabel *m_title;
    QLabel *m_subtitle;
    StatTile *m_partitionsTile;
    StatTile *m_eventsTile;
    StatTile *m_rangeTile;
    StatTile *m_sinkTile;
    QTableView *m_view;
    StreamPartitionsModel *m_model;
    QSortFilterProxyModel *m_proxy;

    QTableView *m_groupsView;
    ConsumerGroupsModel *m_groupsModel;
    QSortFilterProxyModel *m_groupsProxy;
    QLabel *m_groupTitle;
    QTableView *m_offsetsView;
    GroupOffsetsModel *m_offsetsModel;
    OffsetsChart *m_chart;
    LagHistoryChart *m_history;
    ErrorBanner *m_banner;
    QTimer *m_sampler;
    bool m_loadFailed = false;
    QPushButton *m_resetButton;
    QPushButton *m_replayButton;
    QProgressBar *m_progress;
    QPushButton *m_cancelButton;
    QLabel *m_replayStatus;
    QLabel *m_resultLabel = nullptr;
    StatTile *m_consumedTile;
    StatTile *m_insertedTile;
    StatTile *m_duplicatesTile;
    StatTile *m_deadTile;
};

} // namespace rw
