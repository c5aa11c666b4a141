#include "core/batch/fingerprint.h"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace rw {

namespace {

// `onePartition`: the key of the scope's only partition, whose row comes
// without label columns (BatchSql::countedPartition).
Result<SourceStatsMap> readSourceStats(const Database &db, const QString &sql,
                                       const QVariantList &binds,
                                       const std::optional<QString> &onePartition) {
    auto q = db.exec(sql, binds);
    if (!q)
        return fail(q.error());
    SourceStatsMap out;
    while (q->next()) {
        if (onePartition) {
            out.insert(*onePartition, {q->value(0).toLongLong(), q->value(1).toString()});
            continue;
        }
        const std::optional<QString> label =
            q->value(1).toInt() ? std::nullopt : std::optional<QString>(q->value(0).toString());
        out.insert(partitionKey(label), {q->value(2).toLongLong(), q->value(3).toString()});
    }
    return out;
}

} // namespace

Result<SourceStatsMap> sourceStats(const Database &db, const BatchSql &sql,
                                   const std::vector<PartitionRef> &scope) {
    QVariantList binds;
    const QString text = sql.sourceStats(scope, binds);
    return readSourceStats(db, text, binds, BatchSql::onePartitionKey(scope));
}

struct SourceStatsReader::State {
    explicit State(const Database &d)
        : db(d) {}
    Database db;
    bool side = false; // read on the thread (else in start())
    std::thread thread;
    std::mutex mutex;
    std::condition_variable wake;
    struct Job {
        QString text;
        QVariantList binds;
        std::optional<QString> onePartition;
        Result<SourceStatsMap> read(const Database &on) const {
            return readSourceStats(on, text, binds, onePartition);
        }
    };
    std::optional<Job> job;
    Job last; // the last job, read again on the caller's thread if the side read fails
    std::optional<Result<SourceStatsMap>> result;
    bool busy = false;
    bool quit = false;

    void loop() {
        for (;;) {
            std::unique_lock lock(mutex);
            wake.wait(lock, [&] { return quit || job; });
            if (quit)
                return;
            const Job next = std::move(*job);
            job.reset();
            busy = true;
            lock.unlock();
            Result<SourceStatsMap> read = next.read(db);
            lock.lock();
            result = std::move(read);
            busy = false;
            wake.notify_all();
        }
    }
};

SourceStatsReader::SourceStatsReader(const Database &db)
    : m(std::make_unique<State>(db)) {
    m->side = db.sharedAcrossConnections();
}

SourceStatsReader::~SourceStatsReader() {
    if (!m->thread.joinable())
        return;
    {
        std::lock_guard lock(m->mutex);
        m->quit = true;
    }
    m->wake.notify_all();
    m->thread.join();
}

void SourceStatsReader::start(const BatchSql &sql, const std::vector<PartitionRef> &scope) {
    State::Job next;
    next.text = sql.sourceStats(scope, next.binds);
    next.onePartition = BatchSql::onePartitionKey(scope);
    if (!m->side) {
        m->result = next.read(m->db);
        return;
    }
    if (!m->thread.joinable())
        m->thread = std::thread([state = m.get()] { state->loop(); });
    std::unique_lock lock(m->mutex);
    m->wake.wait(lock, [&] { return !m->busy && !m->job; }); // a read not taken finishes first
    m->result.reset();
    m->last = next;
    m->job = std::move(next);
    m->wake.notify_all();
}

Result<SourceStatsMap> SourceStatsReader::take() {
    std::unique_lock lock(m->mutex);
    m->wake.wait(lock, [&] { return m->result.has_value() || (!m->busy && !m->job); });
    if (!m->result)
        return internalError(QStringLiteral("no source fingerprint was started"));
    Result<SourceStatsMap> out = std::move(*m->result);
    m->result.reset();
    lock.unlock();
    // The second connection may be refused (a server at max_connections)
    // or lost: read again here, as without it; a real error repeats.
    if (!out && m->side)
        return m->last.read(m->db);
    return out;
}

} // namespace rw
