#include "ui/common/jobtracker.h"

#include <algorithm>

namespace rw {

JobTracker::JobTracker(QObject *owner, Policy policy)
    : m_mailbox(std::make_shared<jobdetail::Mailbox>()), m_owner(owner), m_policy(policy)
{
    m_mailbox->receiver = owner;
}

JobTracker::~JobTracker()
{
    {
        // After this no worker can queue a call to the owner.
        QMutexLocker lock(&m_mailbox->mutex);
        m_mailbox->receiver = nullptr;
    }
    cancel();
}

std::shared_ptr<jobdetail::JobState> JobTracker::add()
{
    if (m_policy == Policy::Latest)
        cancel();
    prune();
    auto state = std::make_shared<jobdetail::JobState>();
    state->id = ++m_lastId;
    m_jobs.push_back(state);
    return state;
}

quint64 JobTracker::begin()
{
    auto state = add();
    state->pending = false; // nothing runs for it
    return state->id;
}

bool JobTracker::isCurrent(quint64 id) const
{
    return std::any_of(m_jobs.cbegin(), m_jobs.cend(), [id](const auto &job) { return job->id == id && job->current; });
}

void JobTracker::cancel()
{
    for (const auto &job : m_jobs) {
        job->cancelled.store(true);
        job->current = job->pending = false;
    }
    m_jobs.clear();
}

void JobTracker::requestCancel()
{
    for (const auto &job : m_jobs)
        job->cancelled.store(true);
}

void JobTracker::requestCancel(quint64 id)
{
    for (const auto &job : m_jobs)
        if (job->id == id)
            job->cancelled.store(true);
}

bool JobTracker::isRunning() const
{
    return std::any_of(m_jobs.cbegin(), m_jobs.cend(), [](const auto &job) { return job->pending; });
}

void JobTracker::prune()
{
    // Delivered jobs need no bookkeeping.
    std::erase_if(m_jobs, [](const auto &job) { return !job->current && !job->pending; });
}

} // namespace rw
