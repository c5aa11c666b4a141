// The console's background-job tracker: results come back on the owner's
// thread, a superseded job's answer is dropped, cancellation reaches the
// work, and an owner can go while its work still runs without waiting for it.
#include "tests/gui/guitest.h"
#include "ui/common/jobtracker.h"

#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <memory>
#include <stdexcept>

using rw::JobToken;
using rw::JobTracker;
using rw::Result;

namespace {

constexpr int kTimeoutMs = 10000;

// Blocks a job until the test lets it go; shared so that it outlives a test's owner.
struct Gate {
    QSemaphore entered;
    QSemaphore release;
};

} // namespace

class TestJobTracker : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cleanup() { guitest::waitForBackgroundWork(); }

    void deliversOnTheOwnersThread() {
        QObject owner;
        JobTracker jobs(&owner);
        QThread *worker = nullptr;
        int answer = 0;
        QThread *deliveredOn = nullptr;
        jobs.start(
            [&worker]() -> Result<int> {
                worker = QThread::currentThread();
                return 42;
            },
            [&](Result<int> r) {
                answer = r.value_or(-1);
                deliveredOn = QThread::currentThread();
            });
        QVERIFY(jobs.isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(answer, 42, kTimeoutMs);
        QCOMPARE(deliveredOn, QThread::currentThread());
        QVERIFY(worker != QThread::currentThread());
        QVERIFY(!jobs.isRunning());
    }

    void supersededAnswerIsDropped() {
        QObject owner;
        JobTracker jobs(&owner);
        auto gate = std::make_shared<Gate>();
        auto firstCancelled = std::make_shared<std::atomic<bool>>(false);
        QStringList delivered;
        const quint64 first = jobs.start(
            [gate, firstCancelled](const JobToken &job) -> Result<QString> {
                gate->entered.release();
                gate->release.acquire();
                firstCancelled->store(job.isCancelled());
                return QStringLiteral("first");
            },
            [&delivered](Result<QString> r) { delivered << *r; });
        QVERIFY(gate->entered.tryAcquire(1, kTimeoutMs));
        const quint64 second =
            jobs.start([]() -> Result<QString> { return QStringLiteral("second"); },
                       [&delivered](Result<QString> r) { delivered << *r; });
        QVERIFY(second != first);
        QVERIFY(!jobs.isCurrent(first));
        gate->release.release();
        QTRY_COMPARE_WITH_TIMEOUT(delivered, QStringList{QStringLiteral("second")}, kTimeoutMs);
        guitest::waitForBackgroundWork();
        QCoreApplication::processEvents();
        QCOMPARE(delivered, QStringList{QStringLiteral("second")});
        QVERIFY(firstCancelled->load()); // the superseded work saw its flag
    }

    void requestCancelStillDelivers() {
        QObject owner;
        JobTracker jobs(&owner);
        auto gate = std::make_shared<Gate>();
        QString outcome;
        jobs.start(
            [gate](const JobToken &job) -> Result<QString> {
                gate->entered.release();
                gate->release.acquire();
                return job.isCancelled() ? QStringLiteral("stopped early")
                                         : QStringLiteral("ran to the end");
            },
            [&outcome](Result<QString> r) { outcome = *r; });
        QVERIFY(gate->entered.tryAcquire(1, kTimeoutMs));
        jobs.requestCancel();
        gate->release.release();
        QTRY_COMPARE_WITH_TIMEOUT(outcome, QStringLiteral("stopped early"), kTimeoutMs);
    }

    void progressComesBackWhileCurrent() {
        QObject owner;
        JobTracker jobs(&owner);
        QList<int> steps;
        bool done = false;
        jobs.start(
            [&steps](const JobToken &job) -> Result<int> {
                for (int i = 1; i <= 3; ++i)
                    job.post([&steps, i] { steps << i; });
                return 3;
            },
            [&done](Result<int>) { done = true; });
        QTRY_VERIFY_WITH_TIMEOUT(done, kTimeoutMs);
        QCOMPARE(steps, (QList<int>{1, 2, 3})); // in order, before the result
    }

    void ownerGoesWithoutWaiting() {
        auto gate = std::make_shared<Gate>();
        auto sawCancel = std::make_shared<std::atomic<bool>>(false);
        bool delivered = false;
        bool progressed = false;
        {
            QObject owner;
            JobTracker jobs(&owner);
            jobs.start(
                [gate, sawCancel, &progressed](const JobToken &job) -> Result<int> {
                    gate->entered.release();
                    gate->release.acquire();
                    sawCancel->store(job.isCancelled());
                    job.post([&progressed] { progressed = true; });
                    return 1;
                },
                [&delivered](Result<int>) { delivered = true; });
            QVERIFY(gate->entered.tryAcquire(1, kTimeoutMs));
            // The tracker and its owner go here, with the work still blocked:
            // leaving this scope would hang if anything waited for it.
        }
        gate->release.release();
        guitest::waitForBackgroundWork();
        QCoreApplication::processEvents();
        QVERIFY(sawCancel->load());
        QVERIFY(!delivered);
        QVERIFY(!progressed);
    }

    void concurrentJobsEachDeliver() {
        QObject owner;
        JobTracker jobs(&owner, JobTracker::Policy::Concurrent);
        auto gate = std::make_shared<Gate>();
        QStringList delivered;
        const quint64 slow = jobs.start(
            [gate](const JobToken &job) -> Result<QString> {
                gate->entered.release();
                gate->release.acquire();
                return job.isCancelled() ? QStringLiteral("slow cancelled")
                                         : QStringLiteral("slow");
            },
            [&delivered](Result<QString> r) { delivered << *r; });
        QVERIFY(gate->entered.tryAcquire(1, kTimeoutMs));
        jobs.start([]() -> Result<QString> { return QStringLiteral("fast"); },
                   [&delivered](Result<QString> r) { delivered << *r; });
        QVERIFY(jobs.isCurrent(slow));
        QTRY_COMPARE_WITH_TIMEOUT(delivered, QStringList{QStringLiteral("fast")}, kTimeoutMs);
        jobs.requestCancel(slow);
        gate->release.release();
        QTRY_COMPARE_WITH_TIMEOUT(delivered.size(), 2, kTimeoutMs);
        QCOMPARE(delivered.last(), QStringLiteral("slow cancelled"));
    }

    void exceptionsBecomeErrors() {
        QObject owner;
        JobTracker jobs(&owner);
        std::optional<Result<int>> outcome;
        jobs.start([]() -> Result<int> { throw std::runtime_error("boom"); },
                   [&outcome](Result<int> r) { outcome = std::move(r); });
        QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), kTimeoutMs);
        QVERIFY(!outcome->has_value());
        QCOMPARE(outcome->error().code, rw::Error::Code::Internal);
        QVERIFY(outcome->error().message.contains(QStringLiteral("boom")));
    }
};

QTEST_MAIN(TestJobTracker)
#include "tst_jobtracker.moc"
