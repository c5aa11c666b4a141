#pragma once

#include "core/util/error.h"

#include <QMutex>
#include <QObject>
#include <QPointer>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace rw {

namespace jobdetail {

// Shared by a tracker and its workers, so that a worker may outlive the
// tracker (and its page) without touching either.
struct Mailbox {
    QMutex mutex;
    QObject *receiver = nullptr; // null once the tracker is gone; guarded by `mutex`
};

struct JobState {
    quint64 id = 0;
    std::atomic<bool> cancelled{false};
    // GUI thread only.
    bool current = true; // false once delivered, superseded, cancelled or the tracker is gone
    bool pending = true; // its result is still to come
};

// What `work` returns, whether or not it takes a JobToken.
template <typename Work, typename Token, bool = std::is_invocable_v<Work &, const Token &>>
struct WorkResult {
    using type = std::invoke_result_t<Work &, const Token &>;
};
template <typename Work, typename Token> struct WorkResult<Work, Token, false> {
    using type = std::invoke_result_t<Work &>;
};

} // namespace jobdetail

// A job's handle, given to its work on the worker thread. Copyable; every
// member may be called from any thread.
class JobToken {
public:
    quint64 id() const { return m_state->id; }
    // True once the job is cancelled or its tracker is gone: the work should
    // stop at its next safe point.
    bool isCancelled() const { return m_state->cancelled.load(); }
    // The same flag, for core options that poll one (BatchOptions::cancel, ...).
    const std::atomic<bool> *cancelFlag() const { return &m_state->cancelled; }

    // Queues `f` to the tracker's thread (progress reports). It runs there
    // only while the job is current and its tracker alive; it is dropped
    // otherwise, so `f` may capture the tracker's owner.
    template <typename F> void post(F f) const {
        QMutexLocker lock(&m_mailbox->mutex);
        if (!m_mailbox->receiver)
            return;
        // The QPointer is made while the receiver is known alive (the lock
        // holds off the tracker's destructor) and read on the receiver's thread.
        QMetaObject::invokeMethod(
            m_mailbox->receiver,
            [guard = QPointer<QObject>(m_mailbox->receiver), state = m_state,
             f = std::move(f)]() mutable {
                if (guard && state->current)
                    f();
            },
            Qt::QueuedConnection);
    }

private:
    friend class JobTracker;
    JobToken(std::shared_ptr<jobdetail::JobState> state,
             std::shared_ptr<jobdetail::Mailbox> mailbox)
        : m_state(std::move(state))
        , m_mailbox(std::move(mailbox)) {}
    std::shared_ptr<jobdetail::JobState> m_state;
    std::shared_ptr<jobdetail::Mailbox> m_mailbox;
};

// Runs background jobs for one QObject (a page, a model, a dialog) and hands
// their results back on that object's thread.
//
// - Each job gets an id and a cancel flag its work may poll (JobToken).
// - Latest policy: starting a job supersedes the one in flight (its flag is
//   set and its result dropped). Concurrent policy: jobs run side by side
//   (runs, writes) and each delivers.
// - Results come back through a queued call guarded by a QPointer to the
//   owner; a superseded job's, or one whose tracker is gone, is dropped.
// - Work must capture values only (a rw::Database copy opens its own
//   connection on the worker thread) and touch no widget or model. Anything
//   it throws becomes an Internal error: exceptions never cross threads.
// - The destructor cancels what is in flight and never waits: workers keep
//   only shared state alive, never the owner. Keep the tracker a member of
//   its owner so that it dies first. (The application waits for the jobs'
//   pool once, at exit, before the database drivers go: waitForAll().)
// - Jobs run on a pool of their own, never on QThreadPool::globalInstance():
//   Qt 6.4's raster engine splits large fills over the global pool and waits
//   for them, so a page load of a few seconds holding the global pool's
//   threads (two on two cores) froze the GUI thread's painting for as long.
//
// GUI thread (the owner's) only, except JobToken.
class JobTracker {
public:
    enum class Policy { Latest, Concurrent };

    explicit JobTracker(QObject *owner, Policy policy = Policy::Latest);
    ~JobTracker();
    JobTracker(const JobTracker &) = delete;
    JobTracker &operator=(const JobTracker &) = delete;

    // Runs `work()` or `work(const JobToken &)` on the global thread pool
    // and `done(result)` on the owner's thread if the job is still current.
    // `work` returns a Result<T>. Returns the job's id.
    template <typename Work, typename Done> quint64 start(Work work, Done done);

    // A request with no work of its own (a load made of several parts, each
    // checked with isCurrent): supersedes the job in flight, returns its id.
    quint64 begin();
    // True while `id` has neither delivered nor been superseded or cancelled.
    bool isCurrent(quint64 id) const;
    // Sets every job's cancel flag and drops their results.
    void cancel();
    // Sets every job's cancel flag; results are still delivered (a run that
    // stops early still reports what it committed).
    void requestCancel();
    // The same for job `id` alone.
    void requestCancel(quint64 id);
    // True while a job's result is still to come (not superseded or cancelled).
    bool isRunning() const;

    // The pool every tracker's work runs on (see above). Any thread.
    static QThreadPool *pool();
    // Waits until no job runs: at exit, and between tests.
    static void waitForAll();
    // Called by each job first, on its worker: lowers that thread's
    // priority below the GUI thread's (Linux: nice kJobNice), so that loads
    // saturating the cores do not delay the event loop.
    static void yieldToGuiThread();
    static constexpr int kJobNice = 5;

private:
    std::shared_ptr<jobdetail::JobState> add();
    void prune();

    std::shared_ptr<jobdetail::Mailbox> m_mailbox;
    QPointer<QObject> m_owner;
    Policy m_policy;
    quint64 m_lastId = 0;
    std::vector<std::shared_ptr<jobdetail::JobState>> m_jobs; // in flight or not yet pruned
};

template <typename Work, typename Done> quint64 JobTracker::start(Work work, Done done) {
    constexpr bool takesToken = std::is_invocable_v<Work &, const JobToken &>;
    using R = typename jobdetail::WorkResult<Work, JobToken>::type;
    auto state = add();
    const JobToken token(state, m_mailbox);
    // The future is not kept: the result comes back through the mailbox.
    static_cast<void>(QtConcurrent::run(
        pool(), [token, work = std::move(work), done = std::move(done)]() mutable {
            yieldToGuiThread();
            auto result = std::make_shared<std::optional<R>>();
            try {
                if constexpr (takesToken)
                    result->emplace(work(token));
                else
                    result->emplace(work());
            } catch (const std::exception &e) {
                result->emplace(std::unexpect,
                                Error::internal(QStringLiteral("unexpected failure: %1")
                                                    .arg(QString::fromLocal8Bit(e.what()))));
            } catch (...) {
                result->emplace(std::unexpect, Error::internal(QStringLiteral(
                                                   "unexpected failure in a background task")));
            }
            token.post([state = token.m_state, result, done = std::move(done)]() mutable {
                state->current = state->pending = false; // delivered once
                done(std::move(**result));
            });
        }));
    return state->id;
}

} // namespace rw
