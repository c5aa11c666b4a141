#pragma once

#include "core/sql/database.h"
#include "core/streams/replay.h"

#include <optional>

namespace rw {

// The one writer of rewind_replays (scripts/check-layout refuses a write from
// anywhere else): which replays of a consumer group ran, are running, and
// what each has done so far.
//
// Which replays of a consumer group are running, kept in rewind_replays.
// A row says "running" until its replay finishes; a row whose process is
// gone (killed, crashed) counts as interrupted and blocks nothing.
struct RunningReplay {
    qint64 replayId = 0;
    qint64 pid = 0;
    QString host;
    QString startedAt;
    QString osUser;

    QString describe() const; // "replay 7 (pid 123 on host h, started at ...)"
};

// The live replay of stream/group, if any. Call inside the write transaction
// of the change it guards, so that a replay cannot start in between.
Result<std::optional<RunningReplay>> runningReplay(const Database &db, const QString &stream,
                                                   const QString &group);

// Registers this process as running a replay of stream/group, in its own
// write transaction; refused (BadInput) while another live replay runs.
// Rows of dead processes are marked interrupted on the way.
Result<qint64> beginReplay(const Database &db, const QString &stream, const QString &group);

// Adds a committed batch's counts to the replay's row; inside the batch's
// transaction.
Status recordReplayBatch(const Database &db, qint64 replayId, qint64 consumed, qint64 inserted,
                         qint64 duplicates, qint64 deadLettered);

// Closes a replay row: status succeeded, cancelled or failed.
Status finishReplay(const Database &db, qint64 replayId, ReplayStatus status, const QString &error);

} // namespace rw
