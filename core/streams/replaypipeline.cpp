#include "core/streams/replaypipeline.h"

#include "core/streams/streamsdialect.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringBuilder>
#include <cerrno>
#include <signal.h>

namespace rw {

namespace {

// The schema name a staged batch's scratch file is attached under, and its table.
const QString kStageSchema = QStringLiteral("rewind_replay_stage");
const QString kBatchTable = QStringLiteral("rewind_replay_batch");

} // namespace

std::unique_ptr<ReplayPipeline> ReplayPipeline::open(const Database &db, std::size_t batches,
                                                     Stage stage, bool inOrder) {
    if (!StreamsDialect::of(db).stagesBatchesAside() || qgetenv("REWIND_REPLAY_PIPELINE") == "0")
        return nullptr;
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
    std::unique_ptr<ReplayPipeline> pipeline(new ReplayPipeline(
        db, batches, std::move(stage), inOrder,
        temp.filePath(prefix % QString::number(QCoreApplication::applicationPid()) %
                      QStringLiteral("-XXXXXX"))));
    if (!pipeline->m_scratch.isValid())
        return nullptr;
    return pipeline;
}

ReplayPipeline::ReplayPipeline(const Database &db, std::size_t batches, Stage stage, bool inOrder,
                               const QString &scratchTemplate)
    : m_db(db)
    , m_stage(std::move(stage))
    , m_inOrder(inOrder)
    , m_scratch(scratchTemplate)
    , m_ready(batches, false) {}

ReplayPipeline::~ReplayPipeline() {
    // However the replay ends, the stager stops before the scratch files go.
    if (!m_stager.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_stager.join();
}

QString ReplayPipeline::stageSchema() {
    return kStageSchema;
}

QString ReplayPipeline::stagedTable() {
    return kStageSchema % u'.' % kBatchTable;
}

QString ReplayPipeline::scratchFile(std::size_t k) const {
    return m_scratch.filePath(QStringLiteral("batch-%1.db").arg(k));
}

void ReplayPipeline::start() {
    m_stager = std::thread([this] { stageAhead(); });
    if (m_inOrder)
        return;
    // The first batch is staged here while the stager does the second.
    const Status first = stageToFile(0);
    std::lock_guard lock(m_mutex);
    if (!first)
        m_error = first.error();
    else
        m_ready[0] = true;
}

// The stager's thread: stages batch after batch from the second (in order:
// the first), at most one ahead of the batch being written; stops at the
// first error (kept for the writer to report).
void ReplayPipeline::stageAhead() {
    for (std::size_t k = m_inOrder ? 0 : 1; k < m_ready.size(); ++k) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || k <= m_consumed + 1; });
            if (m_stop)
                return;
        }
        const Status s = stageToFile(k);
        if (s) // passive: copies what the WAL holds so far, never waits on the writer
            m_db.exec(QStringLiteral("PRAGMA wal_checkpoint(PASSIVE)"));
        {
            std::lock_guard lock(m_mutex);
            if (!s)
                m_error = s.error();
            else
                m_ready[k] = true;
        }
        m_wake.notify_all();
        if (!s)
            return;
    }
}

Status ReplayPipeline::stageToFile(std::size_t k) {
    const QString file = scratchFile(k);
    QFile::remove(file);
    if (auto r = m_db.exec(QStringLiteral("ATTACH DATABASE ? AS ") % kStageSchema, {file}); !r)
        return fail(r.error());
    const Status staged = [&]() -> Status {
        // Scratch: nothing to roll back, nothing to make durable.
        if (auto r = m_db.execAll(
                {QStringLiteral("PRAGMA ") % kStageSchema % QStringLiteral(".journal_mode = OFF"),
                 QStringLiteral("PRAGMA ") % kStageSchema % QStringLiteral(".synchronous = OFF")});
            !r)
            return r;
        // One transaction for the batch's writes to its scratch file (a Kafka
        // batch's records are many inserts); deferred, so the workspace's
        // own file is only read, never locked against the writer.
        if (auto r = m_db.exec(QStringLiteral("BEGIN")); !r)
            return fail(r.error());
        const Status s = m_stage(k, stagedTable());
        if (auto r = m_db.exec(s ? QStringLiteral("COMMIT") : QStringLiteral("ROLLBACK")); !r && s)
            return fail(r.error());
        return s;
    }();
    m_db.exec(QStringLiteral("DETACH DATABASE ") % kStageSchema);
    return staged;
}

Status ReplayPipeline::attach(std::size_t k) {
    {
        std::unique_lock lock(m_mutex);
        m_wake.wait(lock, [&] { return m_ready[k] || m_error; });
        if (!m_ready[k])
            return fail(*m_error);
    }
    if (auto r =
            m_db.exec(QStringLiteral("ATTACH DATABASE ? AS ") % kStageSchema, {scratchFile(k)});
        !r)
        return fail(r.error());
    return {};
}

void ReplayPipeline::release(std::size_t k) {
    m_db.exec(QStringLiteral("DETACH DATABASE ") % kStageSchema);
    QFile::remove(scratchFile(k));
    {
        std::lock_guard lock(m_mutex);
        m_consumed = k + 1;
    }
    m_wake.notify_all();
}

} // namespace rw
