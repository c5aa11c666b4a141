#include "core/streams/replayscratch.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringBuilder>
#include <QTemporaryDir>
#include <cerrno>
#include <signal.h>

namespace rw {

namespace {

// The schema name a staged batch's scratch file is attached under, and its table.
const QString kStageSchema = QStringLiteral("rewind_replay_stage");
const QString kBatchTable = QStringLiteral("rewind_replay_batch");

// A staged batch is a table in a scratch database file of its own, written
// by the stager and then attached to the writer for the batch's
// transaction: two files, so neither connection ever waits on the other's
// lock. The stager reads only the log (a WAL snapshot).
class SqliteReplayScratch final : public ReplayScratch {
public:
    SqliteReplayScratch(const Database &db, const QString &folderTemplate)
        : m_db(db)
        , m_folder(folderTemplate) {}
    bool isValid() const { return m_folder.isValid(); }

    QString stagedTable() const override { return kStageSchema % u'.' % kBatchTable; }
    QString createTable() const override { return QStringLiteral("CREATE TABLE"); }
    QString workSchema() const override { return kStageSchema; }
    bool checkpointsAside() const override { return true; }

    Status stage(std::size_t k, const std::function<Status()> &body) override {
        const QString file = scratchFile(k);
        QFile::remove(file);
        if (auto r = m_db.exec(QStringLiteral("ATTACH DATABASE ? AS ") % kStageSchema, {file}); !r)
            return fail(r.error());
        const Status staged = [&]() -> Status {
            // Scratch: nothing to roll back, nothing to make durable.
            if (auto r = m_db.execAll({QStringLiteral("PRAGMA ") % kStageSchema %
                                           QStringLiteral(".journal_mode = OFF"),
                                       QStringLiteral("PRAGMA ") % kStageSchema %
                                           QStringLiteral(".synchronous = OFF")});
                !r)
                return r;
            // One transaction for the batch's writes to its scratch file (a
            // Kafka batch's records are many inserts); deferred, so the
            // workspace's own file is only read, never locked against the writer.
            if (auto r = m_db.exec(QStringLiteral("BEGIN")); !r)
                return fail(r.error());
            const Status s = body();
            if (auto r = m_db.exec(s ? QStringLiteral("COMMIT") : QStringLiteral("ROLLBACK"));
                !r && s)
                return fail(r.error());
            return s;
        }();
        m_db.exec(QStringLiteral("DETACH DATABASE ") % kStageSchema);
        if (staged) // passive: copies what the WAL holds so far, never waits on the writer
            m_db.exec(QStringLiteral("PRAGMA wal_checkpoint(PASSIVE)"));
        return staged;
    }

    // Attached outside any transaction, as SQLite requires.
    Status attach(std::size_t k) override {
        if (auto r =
                m_db.exec(QStringLiteral("ATTACH DATABASE ? AS ") % kStageSchema, {scratchFile(k)});
            !r)
            return fail(r.error());
        return {};
    }
    Status enter(std::size_t) override { return {}; }
    void release(std::size_t k) override {
        m_db.exec(QStringLiteral("DETACH DATABASE ") % kStageSchema);
        QFile::remove(scratchFile(k));
    }

private:
    QString scratchFile(std::size_t k) const {
        return m_folder.filePath(QStringLiteral("batch-%1.db").arg(k));
    }

    Database m_db;
    QTemporaryDir m_folder; // removed with its files when the scratch goes
};

} // namespace

std::unique_ptr<ReplayScratch> sqliteReplayScratch(const Database &db) {
    if (!db.sharedAcrossConnections())
        return nullptr;
    // Scratch folders are named for their process; a replay killed
    // before removing its own leaves one, removed here once that
    // process is gone (another user's stay: kill() is refused).
    const QString prefix = QStringLiteral("rewind-replay-");
    const QDir temp(QDir::tempPath());
    for (const QFileInfo &left :
         temp.entryInfoList({prefix % u'*'}, QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool ok = false;
        const qint64 pid = left.fileName().mid(prefix.size()).section(u'-', 0, 0).toLongLong(&ok);
        if (ok && pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH)
            QDir(left.filePath()).removeRecursively();
    }
    auto scratch = std::make_unique<SqliteReplayScratch>(
        db, temp.filePath(prefix % QString::number(QCoreApplication::applicationPid()) %
                          QStringLiteral("-XXXXXX")));
    if (!scratch->isValid())
        return nullptr;
    return scratch;
}

} // namespace rw
