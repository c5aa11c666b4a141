#include "core/streams/replaylock.h"

#include "core/sql/timejson.h"
#include "core/workspace/workspace.h"

#include <QCoreApplication>
#include <QStringBuilder>
#include <QSysInfo>
#include <cerrno>
#include <signal.h>

namespace rw {

namespace {

bool processAlive(qint64 pid, const QString &host) {
    if (host != QSysInfo::machineHostName())
        return pid > 0; // another machine's replay: trust its status
    if (pid <= 0)
        return false;
    return ::kill(pid_t(pid), 0) == 0 || errno == EPERM;
}

} // namespace

QString RunningReplay::describe() const {
    return QStringLiteral("replay %1 (pid %2 on %3, started at %4 by %5)")
        .arg(replayId)
        .arg(pid)
        .arg(host, startedAt, osUser);
}

Result<std::optional<RunningReplay>> runningReplay(const Database &db, const QString &stream,
                                                   const QString &group) {
    auto q = db.exec(
        QStringLiteral("SELECT replay_id, pid, host, started_at, os_user FROM rewind_replays "
                       "WHERE stream = ? AND group_id = ? AND status = ? ORDER BY replay_id"),
        {stream, group, enumName(ReplayStatus::Running)});
    if (!q)
        return fail(q.error());
    while (q->next()) {
        RunningReplay r{q->value(0).toLongLong(), q->value(1).toLongLong(), q->value(2).toString(),
                        q->value(3).toString(), q->value(4).toString()};
        if (processAlive(r.pid, r.host))
            return std::optional<RunningReplay>(r);
    }
    return std::optional<RunningReplay>();
}

Result<qint64> beginReplay(const Database &db, const QString &stream, const QString &group) {
    qint64 id = 0;
    const Status s = db.writeTransaction([&]() -> Status {
        auto live = runningReplay(db, stream, group);
        if (!live)
            return fail(live.error());
        if (*live)
            return badInput(QStringLiteral("refused: %1 of group \"%2\" on stream \"%3\" is still "
                                           "running; wait for it or stop it")
                                .arg((*live)->describe(), group, stream));
        if (auto r = db.exec(
                QStringLiteral(
                    "UPDATE rewind_replays SET status = ?, finished_at = COALESCE(finished_at, ") %
                    TimeJson::of(db.dialect()).nowUtcText() %
                    QStringLiteral(") WHERE stream = ? AND group_id = ? AND status = ?"),
                {enumName(ReplayStatus::Interrupted), stream, group,
                 enumName(ReplayStatus::Running)});
            !r)
            return fail(r.error());
        auto ins =
            db.exec(QStringLiteral("INSERT INTO rewind_replays (stream, group_id, status, "
                                   "started_at, os_user, pid, host) "
                                   "VALUES (?, ?, ?, ") %
                        TimeJson::of(db.dialect()).nowUtcText() % QStringLiteral(", ?, ?, ?)"),
                    {stream, group, enumName(ReplayStatus::Running), osUser(),
                     QCoreApplication::applicationPid(), QSysInfo::machineHostName()});
        if (!ins)
            return fail(ins.error());
        // Inside the write lock no other writer inserts: the newest id is ours
        // (PostgreSQL's driver has no last insert id for identity columns).
        auto newest = db.scalar(QStringLiteral("SELECT MAX(replay_id) FROM rewind_replays"));
        if (!newest)
            return fail(newest.error());
        id = newest->toLongLong();
        return {};
    });
    if (!s)
        return fail(s.error());
    return id;
}

Status finishReplay(const Database &db, qint64 replayId, ReplayStatus status,
                    const QString &error) {
    auto r = db.exec(QStringLiteral("UPDATE rewind_replays SET status = ?, finished_at = ") %
                         TimeJson::of(db.dialect()).nowUtcText() %
                         QStringLiteral(", error = ? WHERE replay_id = ?"),
                     {enumName(status), error.isEmpty() ? QVariant() : QVariant(error), replayId});
    if (!r)
        return fail(r.error());
    return {};
}

Status recordReplayBatch(const Database &db, qint64 replayId, qint64 consumed, qint64 inserted,
                         qint64 duplicates, qint64 deadLettered) {
    auto r =
        db.exec(QStringLiteral(
                    "UPDATE rewind_replays SET consumed = consumed + ?, inserted = inserted + ?, "
                    "duplicates = duplicates + ?, dead_lettered = dead_lettered + ?, "
                    "batches = batches + 1 WHERE replay_id = ?"),
                {consumed, inserted, duplicates, deadLettered, replayId});
    if (!r)
        return fail(r.error());
    return {};
}

} // namespace rw
