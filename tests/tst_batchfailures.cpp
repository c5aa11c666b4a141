// The batch core when the database fails it: a write it refuses, a lost
// connection mid-publish, a busy database, a full disk (a size limit, a full
// tmpfs, a full PostgreSQL tablespace). Each time nothing of the partition is
// published, the run says why, and the same run succeeds (or resumes) once
// the cause is gone. The warehouse is tst_batch's (batchfixture.h).
#include "core/batch/partitions.h"
#include "core/util/failpoint.h"
#include "tests/batchfixture.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUrl>
#include <atomic>
#include <memory>
#include <optional>
#include <unistd.h>

using namespace rw;
using namespace batchtest;

// Another writer holding the write lock, on a thread of its own, until
// `holdMs` has passed (0: until release()); its transaction then ends
// having written nothing.
class LockHolder {
public:
    LockHolder(const QString &url, int holdMs) {
        m_thread.reset(QThread::create([this, url, holdMs] {
            auto mine = Database::open(url);
            (void)mine->exec(mine->dialect().beginWrite());
            (void)mine->execAll(mine->dialect().afterBeginWrite());
            m_locked = true;
            QElapsedTimer held;
            held.start();
            while (holdMs > 0 ? held.elapsed() < holdMs : !m_release.load())
                QThread::msleep(5);
            (void)mine->exec(QStringLiteral("ROLLBACK"));
        }));
        m_thread->start();
        while (!m_locked.load())
            QThread::msleep(5);
    }
    ~LockHolder() {
        release();
        m_thread->wait();
    }
    void release() { m_release = true; }

private:
    std::atomic<bool> m_locked{false};
    std::atomic<bool> m_release{false};
    std::unique_ptr<QThread> m_thread;
};

class TestBatchFailures : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        // Short lock waits, so the retry tests take a second, not minutes.
        qputenv("REWIND_BUSY_TIMEOUT_MS", "50");
    }

    // A write the database refuses (here a trigger) fails the run at that
    // partition: nothing of it is published, and `partitions` shows it
    // failed by this run, as a failed check is shown. Once the cause is
    // gone, resume publishes it.
    void refusedWriteMarksThePartitionFailed() {
        Fixture f(spec(QStringLiteral("merge")));
        const QString d2Before = digest(f.db(), QStringLiteral("tgt"), QStringLiteral("dt = 'd2'"));
        const QStringList block =
            testsupport::onPostgres()
                ? QStringList{QStringLiteral("CREATE FUNCTION block_d2() RETURNS trigger LANGUAGE "
                                             "plpgsql AS $$ BEGIN "
                                             "IF NEW.dt = 'd2' THEN RAISE EXCEPTION 'blocked by "
                                             "the test'; END IF; RETURN NEW; END $$"),
                              QStringLiteral("CREATE TRIGGER block_d2 BEFORE INSERT OR UPDATE ON "
                                             "tgt FOR EACH ROW EXECUTE FUNCTION block_d2()")}
                : QStringList{
                      QStringLiteral(
                          "CREATE TRIGGER block_d2_i BEFORE INSERT ON tgt WHEN NEW.dt = 'd2' BEGIN "
                          "SELECT RAISE(ABORT, 'blocked by the test'); END"),
                      QStringLiteral(
                          "CREATE TRIGGER block_d2_u BEFORE UPDATE ON tgt WHEN NEW.dt = 'd2' BEGIN "
                          "SELECT RAISE(ABORT, 'blocked by the test'); END")};
        for (const QString &statement : block)
            QVERIFY(f.db().exec(statement));
        BatchOptions once = execute();
        once.maxAttempts = 1;
        auto r = run(f.db(), f.dataset(), once);
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Failed);
        QVERIFY2(r->error.contains(QStringLiteral("partition d2")) &&
                     r->error.contains(QStringLiteral("blocked by the test")),
                 qPrintable(r->error));
        QCOMPARE(digest(f.db(), QStringLiteral("tgt"), QStringLiteral("dt = 'd2'")), d2Before);
        auto parts = listPartitions(f.db(), f.dataset());
        QVERIFY(parts);
        QCOMPARE(parts->at(0).status, PartitionStatus::Loaded);
        QCOMPARE(parts->at(1).status, PartitionStatus::Failed);
        QCOMPARE(parts->at(1).lastRunId, r->runId);

        for (const QString &drop : testsupport::onPostgres()
                                       ? QStringList{QStringLiteral("DROP TRIGGER block_d2 ON tgt")}
                                       : QStringList{QStringLiteral("DROP TRIGGER block_d2_i"),
                                                     QStringLiteral("DROP TRIGGER block_d2_u")})
            QVERIFY(f.db().exec(drop));
        auto resumed = resume(f.db(), f.ws->spec, r->runId.toLongLong(), execute());
        QVERIFY2(resumed, qPrintable(resumed ? QString() : resumed.error().message));
        QCOMPARE(resumed->status, RunStatus::Succeeded);
        parts = listPartitions(f.db(), f.dataset());
        QCOMPARE(parts->at(1).status, PartitionStatus::Loaded);
    }

    // The server ends the run's session after chunk 2's data is written,
    // before its checkpoint: that transaction is lost whole, and the run
    // reconnects and publishes the partition again, once.
    void lostConnectionMidPublishIsRetried_data() {
        QTest::addColumn<QString>("write");
        QTest::newRow("merge") << QStringLiteral("merge");
        QTest::newRow("overwrite") << QStringLiteral("overwrite_partition");
    }

    void lostConnectionMidPublishIsRetried() {
        if (!testsupport::onPostgres())
            QSKIP("needs a server that can end the session (PostgreSQL); SQLite has no connection "
                  "to lose");
        QFETCH(QString, write);
        qputenv("REWIND_CHUNK_ROWS", "1"); // one partition per chunk: chunk 2 is d2
        const auto oneByOne = qScopeGuard([] { qunsetenv("REWIND_CHUNK_ROWS"); });
        Fixture reference(spec(write));
        QVERIFY(run(reference.db(), reference.dataset(), execute()));

        Fixture f(spec(write));
        auto other = Database::open(f.db().url().text);
        QVERIFY(other);
        const QVariant pid = *f.db().scalar(QStringLiteral("SELECT pg_backend_pid()"));
        int writes = 0;
        bool ended = false;
        setFailpointHook([&](const char *name) {
            if (qstrcmp(name, "after-write") == 0 && ++writes == 2)
                ended = other->scalar(QStringLiteral("SELECT pg_terminate_backend(?)"), {pid})
                            .value_or(false)
                            .toBool();
        });
        const auto unhook = qScopeGuard([] { setFailpointHook({}); });
        auto r = run(f.db(), f.dataset(), execute());
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QVERIFY(ended);
        QCOMPARE(r->status, RunStatus::Succeeded);
        QCOMPARE(writes, 4); // chunk 2 wrote twice
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")),
                 digest(reference.db(), QStringLiteral("tgt")));
        QCOMPARE(
            count(f.db(),
                  QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE status = 'done'")),
            3);
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT COUNT(*) FROM rewind_audit WHERE action = 'publish'")),
                 3);
        QVERIFY(*f.db().scalar(QStringLiteral("SELECT pg_backend_pid()")) != pid);
    }

    // With no attempt left the run stops like a killed one: chunk 1 stays
    // published, chunk 2 is not, and resume finishes with nothing doubled.
    void lostConnectionWithoutRetryResumes() {
        if (!testsupport::onPostgres())
            QSKIP("needs a server that can end the session (PostgreSQL); SQLite has no connection "
                  "to lose");
        Fixture reference(spec(QStringLiteral("merge")));
        QVERIFY(run(reference.db(), reference.dataset(), execute()));

        Fixture f(spec(QStringLiteral("merge")));
        const QString d2Before = digest(f.db(), QStringLiteral("tgt"), QStringLiteral("dt = 'd2'"));
        auto other = Database::open(f.db().url().text);
        QVERIFY(other);
        const QVariant pid = *f.db().scalar(QStringLiteral("SELECT pg_backend_pid()"));
        int writes = 0;
        setFailpointHook([&](const char *name) {
            if (qstrcmp(name, "after-write") == 0 && ++writes == 2)
                other->scalar(QStringLiteral("SELECT pg_terminate_backend(?)"), {pid});
        });
        const auto unhook = qScopeGuard([] { setFailpointHook({}); });
        BatchOptions once = execute();
        once.maxAttempts = 1;
        auto r = run(f.db(), f.dataset(), once);
        setFailpointHook({});
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QVERIFY2(r->status != RunStatus::Succeeded, qPrintable(rw::enumName(r->status)));
        QCOMPARE(
            count(f.db(),
                  QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE status = 'done'")),
            1);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt"), QStringLiteral("dt = 'd2'")), d2Before);

        auto resumed = resume(f.db(), f.ws->spec, r->runId.toLongLong(), execute());
        QVERIFY2(resumed, qPrintable(resumed ? QString() : resumed.error().message));
        QCOMPARE(resumed->status, RunStatus::Succeeded);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")),
                 digest(reference.db(), QStringLiteral("tgt")));
        QCOMPARE(
            count(f.db(),
                  QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE status = 'done'")),
            3);
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT COUNT(*) FROM rewind_audit WHERE action = 'publish'")),
                 3);
    }

    void busyDatabaseIsRetriedWithBackoff() {
        Fixture f(spec(QStringLiteral("merge")));
        // Another writer holds the write lock for a while; our busy timeout is short.
        std::optional<LockHolder> holder(std::in_place, f.db().url().text, 700);
        auto r = run(f.db(), f.dataset(), execute({QStringLiteral("d2")}));
        holder.reset();
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Succeeded);
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT SUM(amount) FROM tgt WHERE dt = 'd2' AND id IN (1, 2)")),
                 30 + 40 + 40);
    }

    void busyDatabaseGivesUpClearly() {
        Fixture f(spec(QStringLiteral("merge")));
        std::optional<LockHolder> holder(std::in_place, f.db().url().text, 0);
        BatchOptions o = execute({QStringLiteral("d2")});
        o.maxAttempts = 3;
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        auto r = run(f.db(), f.dataset(), o);
        holder.reset();
        // The run could not even record its start: a clear error, nothing written.
        if (r) {
            QCOMPARE(r->status, RunStatus::Failed);
            QVERIFY2(r->error.contains(QStringLiteral("busy after 3 attempts")),
                     qPrintable(r->error));
        } else {
            QVERIFY2(r.error().message.contains(QStringLiteral("locked")) ||
                         r.error().message.contains(QStringLiteral("busy after 3 attempts")),
                     qPrintable(r.error().message));
        }
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
    }

    // A full disk (here the database's size limit, PRAGMA max_page_count, on
    // the connection the run uses): a clean failure saying so, nothing
    // half-written, a sound file; once space is freed the run succeeds.
    void fullDiskFailsCleanlyThenSucceeds() {
        if (testsupport::onPostgres())
            QSKIP(
                "SQLite's size limit; PostgreSQL's disk_full (53100) is fullTablespaceOnPostgres");
        Fixture f(spec(QStringLiteral("merge")));
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        const qint64 pages = count(f.db(), QStringLiteral("PRAGMA page_count"));
        QVERIFY(f.db().exec(QStringLiteral("PRAGMA max_page_count = %1").arg(pages)));
        auto full = run(f.db(), f.dataset(), execute());
        const QString message = full ? full->error : full.error().message;
        QVERIFY2(message.contains(QStringLiteral("the disk is full")), qPrintable(message));
        QVERIFY(!full || full->status == RunStatus::Failed);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints")), 0);
        QCOMPARE(f.db().scalar(QStringLiteral("PRAGMA integrity_check"))->toString(),
                 QStringLiteral("ok"));

        QVERIFY(f.db().exec(QStringLiteral("PRAGMA max_page_count = 1000000")));
        auto ok = run(f.db(), f.dataset(), execute());
        QVERIFY2(ok, qPrintable(ok ? QString() : ok.error().message));
        QCOMPARE(ok->status, RunStatus::Succeeded);
        QVERIFY(digest(f.db(), QStringLiteral("tgt")) != before);
    }

    // The same on a real full file system: as root, the workspace is copied
    // onto a small tmpfs, opened, and the rest of the tmpfs filled, so the
    // run's writes meet ENOSPC; then the filler is deleted (space freed) and
    // the run succeeds.
    void fullTmpfsFailsCleanlyThenSucceeds() {
        if (testsupport::onPostgres())
            QSKIP("a SQLite file on a tmpfs");
        if (::geteuid() != 0)
            QSKIP("mounting a tmpfs needs root; fullDiskFailsCleanlyThenSucceeds covers a full "
                  "disk with PRAGMA max_page_count");
        Fixture f(spec(QStringLiteral("merge")));
        QVERIFY(f.db().exec(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)")));
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        QTemporaryDir mnt;
        QProcess mount;
        mount.start(QStringLiteral("mount"),
                    {QStringLiteral("-t"), QStringLiteral("tmpfs"), QStringLiteral("-o"),
                     QStringLiteral("size=4m"), QStringLiteral("tmpfs"), mnt.path()});
        mount.waitForFinished(30000);
        if (mount.exitStatus() != QProcess::NormalExit || mount.exitCode() != 0)
            QSKIP(qPrintable(
                QStringLiteral("mount -t tmpfs refused (%1); fullDiskFailsCleanlyThenSucceeds "
                               "covers a full disk with "
                               "PRAGMA max_page_count")
                    .arg(QString::fromLocal8Bit(mount.readAllStandardError()).trimmed())));
        // Declared before the workspace: unmounts after its connection closes.
        const auto unmount = qScopeGuard([&] {
            QProcess::execute(QStringLiteral("umount"), {QStringLiteral("-l"), mnt.path()});
        });
        const QString dbPath = mnt.filePath(QStringLiteral("w.db"));
        QVERIFY(QFile::copy(f.db().url().path, dbPath));
        const QString specPath = testsupport::writeFile(f.dir, QStringLiteral("tmpfs.json"),
                                                        spec(QStringLiteral("merge")));
        auto ws = openWorkspace(dbPath, specPath);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        const DatasetSpec &dataset = *ws->spec.dataset(QStringLiteral("sales"));
        QVERIFY(
            listPartitions(ws->db, dataset)); // the WAL and its index exist before the disk fills

        QFile filler(mnt.filePath(QStringLiteral("filler")));
        QVERIFY(filler.open(QIODevice::WriteOnly));
        const QByteArray chunk(4096, 'x');
        while (filler.write(chunk) == chunk.size() && filler.flush()) {
        }
        filler.close();
        auto full = run(ws->db, dataset, execute());
        const QString message = full ? full->error : full.error().message;
        QVERIFY2(message.contains(QStringLiteral("the disk is full")), qPrintable(message));
        QVERIFY(!full || full->status == RunStatus::Failed);
        QCOMPARE(digest(ws->db, QStringLiteral("tgt")), before);
        QCOMPARE(
            count(ws->db,
                  QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE status = 'done'")),
            0);
        QCOMPARE(ws->db.scalar(QStringLiteral("PRAGMA integrity_check"))->toString(),
                 QStringLiteral("ok"));

        QVERIFY(filler.remove());
        auto ok = run(ws->db, dataset, execute());
        QVERIFY2(ok, qPrintable(ok ? QString() : ok.error().message));
        QVERIFY2(ok->status == RunStatus::Succeeded,
                 qPrintable(rw::enumName(ok->status) + u' ' + ok->error));
        QVERIFY(digest(ws->db, QStringLiteral("tgt")) != before);
        QCOMPARE(ws->db.scalar(QStringLiteral("PRAGMA integrity_check"))->toString(),
                 QStringLiteral("ok"));
    }

    // PostgreSQL's disk_full (53100) on a real full file system: the
    // checkpoint table is moved to a tablespace on a small tmpfs, which is
    // then filled, so the publish transaction's checkpoint insert cannot
    // extend its file after the target rows were written. The whole
    // transaction rolls back: the target is as before, no checkpoint, the
    // run failed with the disk-full message. Space freed, the run succeeds.
    // Needs root and the test server on this machine (scripts/test's).
    void fullTablespaceOnPostgres() {
        if (!testsupport::onPostgres())
            QSKIP("PostgreSQL's tablespaces; fullTmpfsFailsCleanlyThenSucceeds is SQLite's");
        if (::geteuid() != 0)
            QSKIP("mounting a tmpfs needs root");
        const QString host = QUrl(qEnvironmentVariable("REWIND_TEST_PG_URL")).host();
        if (host != QLatin1String("127.0.0.1") && host != QLatin1String("localhost"))
            QSKIP("the test server is not on this machine: its tablespace directory cannot be made "
                  "here");
        Fixture f(spec(QStringLiteral("merge")));
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        QTemporaryDir mnt;
        QVERIFY(mnt.isValid());
        if (QProcess::execute(QStringLiteral("mount"),
                              {QStringLiteral("-t"), QStringLiteral("tmpfs"), QStringLiteral("-o"),
                               QStringLiteral("size=2m"), QStringLiteral("tmpfs"), mnt.path()}) !=
            0)
            QSKIP("mount -t tmpfs refused");
        const auto unmount = qScopeGuard([&] {
            QProcess::execute(QStringLiteral("umount"), {QStringLiteral("-l"), mnt.path()});
        });
        if (QProcess::execute(QStringLiteral("chown"), {QStringLiteral("postgres:"), mnt.path()}) !=
            0)
            QSKIP("no postgres user to own the tablespace directory");
        const QString space = QStringLiteral("rw_full_%1").arg(QCoreApplication::applicationPid());
        QVERIFY(f.db().exec(
            QStringLiteral("CREATE TABLESPACE %1 LOCATION '%2'").arg(space, mnt.path())));
        const auto dropSpace = qScopeGuard([&] {
            (void)f.db().exec(
                QStringLiteral("ALTER TABLE rewind_checkpoints SET TABLESPACE pg_default"));
            (void)f.db().exec(QStringLiteral("DROP TABLESPACE %1").arg(space));
        });
        QVERIFY(f.db().exec(
            QStringLiteral("ALTER TABLE rewind_checkpoints SET TABLESPACE %1").arg(space)));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints")), 0);

        QFile filler(mnt.filePath(QStringLiteral("filler")));
        QVERIFY(filler.open(QIODevice::WriteOnly));
        const QByteArray chunk(4096, 'x');
        while (filler.write(chunk) == chunk.size() && filler.flush()) {
        }
        filler.close();
        BatchOptions once = execute({QStringLiteral("d2")});
        once.maxAttempts = 1;
        auto full = run(f.db(), f.dataset(), once);
        const QString message = full ? full->error : full.error().message;
        QVERIFY2(message.contains(QStringLiteral("the disk is full")), qPrintable(message));
        QVERIFY(!full || full->status == RunStatus::Failed);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints")), 0);
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT COUNT(*) FROM rewind_audit WHERE action = 'publish'")),
                 0);

        QVERIFY(filler.remove());
        auto ok = run(f.db(), f.dataset(), execute({QStringLiteral("d2")}));
        QVERIFY2(ok, qPrintable(ok ? QString() : ok.error().message));
        QVERIFY2(ok->status == RunStatus::Succeeded,
                 qPrintable(rw::enumName(ok->status) + u' ' + ok->error));
        QVERIFY(digest(f.db(), QStringLiteral("tgt")) != before);
        QCOMPARE(
            count(f.db(),
                  QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE status = 'done'")),
            1);
    }
};

QTEST_GUILESS_MAIN(TestBatchFailures)
#include "tst_batchfailures.moc"
