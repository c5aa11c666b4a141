#include "core/streams/replaypipeline.h"

#include "core/streams/streamsdialect.h"

#include <QStringBuilder>

namespace rw {

std::unique_ptr<ReplayPipeline> ReplayPipeline::open(const Database &db, std::size_t batches,
                                                     Stage stage, bool inOrder) {
    if (qgetenv("REWIND_REPLAY_PIPELINE") == "0")
        return nullptr;
    auto scratch = StreamsDialect::of(db).replayScratch(db, inOrder);
    if (!scratch)
        return nullptr;
    return std::unique_ptr<ReplayPipeline>(
        new ReplayPipeline(db, batches, std::move(stage), inOrder, std::move(scratch)));
}

ReplayPipeline::ReplayPipeline(const Database &db, std::size_t batches, Stage stage, bool inOrder,
                               std::unique_ptr<ReplayScratch> scratch)
    : m_db(db)
    , m_stage(std::move(stage))
    , m_inOrder(inOrder)
    , m_scratch(std::move(scratch))
    , m_ready(batches, false) {}

ReplayPipeline::~ReplayPipeline() {
    // However the replay ends, the stager stops before the scratch goes.
    if (!m_stager.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_stager.join();
}

void ReplayPipeline::start() {
    m_stager = std::thread([this] {
        stageAhead();
        m_db.closeThreadConnection(); // a thread of its own: its session ends with it
    });
    if (m_inOrder)
        return;
    // The first batch is staged here while the stager does the second.
    const Status first = stageOne(0);
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
    // The stream SQL's helpers, on this thread's own connection.
    Status session = prepareStreamSession(m_db);
    for (std::size_t k = m_inOrder ? 0 : 1; k < m_ready.size(); ++k) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || k <= m_consumed + 1; });
            if (m_stop)
                return;
        }
        const Status s = session ? stageOne(k) : session;
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

Status ReplayPipeline::stageOne(std::size_t k) {
    return m_scratch->stage(
        k, [&] { return m_stage(k, m_scratch->createTable() % u' ' % m_scratch->stagedTable()); });
}

Status ReplayPipeline::attach(std::size_t k) {
    {
        std::unique_lock lock(m_mutex);
        m_wake.wait(lock, [&] { return m_ready[k] || m_error; });
        if (!m_ready[k])
            return fail(*m_error);
    }
    return m_scratch->attach(k);
}

void ReplayPipeline::release(std::size_t k) {
    m_scratch->release(k);
    {
        std::lock_guard lock(m_mutex);
        m_consumed = k + 1;
    }
    m_wake.notify_all();
}

} // namespace rw
