#include "ui/common/jobtracker.h"

#include <QThread>

#ifdef Q_OS_LINUX
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>

namespace rw {

QThreadPool *JobTracker::pool() {
    // Enough threads for a run, a page load and a dry run side by side. Never
    // deleted: idle at exit (the application waits for it), it goes with the process.
    static QThreadPool *const jobs = [] {
        auto *p = new QThreadPool;
        p->setObjectName(QStringLiteral("rewind-jobs"));
        p->setMaxThreadCount(std::max(4, QThread::idealThreadCount()));
        return p;
    }();
    return jobs;
}

void JobTracker::waitForAll() {
    pool()->waitForDone();
}

void JobTracker::yieldToGuiThread() {
#ifdef Q_OS_LINUX
    // Once per pool thread: nice 5 (a third of the GUI thread's weight), so
    // that on two cores with four loads running the GUI thread still gets a
    // core as soon as it wakes. A thread may raise its own nice value.
    thread_local bool lowered = false;
    if (!lowered) {
        lowered = true;
        setpriority(PRIO_PROCESS, pid_t(syscall(SYS_gettid)), kJobNice);
    }
#endif
}

JobTracker::JobTracker(QObject *owner, Policy policy)
    : m_mailbox(std::make_shared<jobdetail::Mailbox>())
    , m_owner(owner)
    , m_policy(policy) {
    m_mailbox->receiver = owner;
}

JobTracker::~JobTracker() {
    {
        // After this no worker can queue a call to the owner.
        QMutexLocker lock(&m_mailbox->mutex);
        m_mailbox->receiver = nullptr;
    }
    cancel();
}

std::shared_ptr<jobdetail::JobState> JobTracker::add() {
    if (m_policy == Policy::Latest)
        cancel();
    prune();
    auto state = std::make_shared<jobdetail::JobState>();
    state->id = ++m_lastId;
    m_jobs.push_back(state);
    return state;
}

quint64 JobTracker::begin() {
    auto state = add();
    state->pending = false; // nothing runs for it
    return state->id;
}

bool JobTracker::isCurrent(quint64 id) const {
    return std::any_of(m_jobs.cbegin(), m_jobs.cend(),
                       [id](const auto &job) { return job->id == id && job->current; });
}

void JobTracker::cancel() {
    for (const auto &job : m_jobs) {
        job->cancelled.store(true);
        job->current = job->pending = false;
    }
    m_jobs.clear();
}

void JobTracker::requestCancel() {
    for (const auto &job : m_jobs)
        job->cancelled.store(true);
}

void JobTracker::requestCancel(quint64 id) {
    for (const auto &job : m_jobs)
        if (job->id == id)
            job->cancelled.store(true);
}

bool JobTracker::isRunning() const {
    return std::any_of(m_jobs.cbegin(), m_jobs.cend(),
                       [](const auto &job) { return job->pending; });
}

void JobTracker::prune() {
    // Delivered jobs need no bookkeeping.
    std::erase_if(m_jobs, [](const auto &job) { return !job->current && !job->pending; });
}

} // namespace rw
