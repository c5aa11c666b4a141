// Repairing: the guided recovery of a retry storm, step by step, killed and
// resumed, and its refusals. Rollback, pruning, duplicate reports and the
// freeze: tst_rollback.
#include "core/batch/batch.h"
#include "core/batch/partitions.h"
#include "core/batch/prune.h"
#include "core/batch/rollback.h"
#include "core/batch/runs.h"
#include "core/recovery/recovery.h"
#include "core/util/failpoint.h"
#include "core/workspace/workspace.h"
#include "tests/recoveryfixture.h"
#include "tests/testsupport.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSqlRecord>
#include <QTest>

using namespace rw;
using namespace recoverytest;

class TestRecovery : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void recoverRetryStorm() {
        const QStringList warehouse = retryStorm();
        Fixture f(kStormSpec, warehouse);
        const qint64 extra = count(f.db(), QStringLiteral("SELECT COUNT(*) FROM fact")) -
                             count(f.db(), QStringLiteral("SELECT COUNT(*) FROM clean"));
        QVERIFY(extra > 100);
        const QString stormy = digest(f.db(), QStringLiteral("fact"));

        // Dry run: the incident and the plan, nothing changed.
        const auto dry = f.cli({QStringLiteral("recover"), QStringLiteral("--dataset"),
                                QStringLiteral("sales"), QStringLiteral("--json")});
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        QJsonObject j = json(dry.out);
        QCOMPARE(j[QStringLiteral("executed")].toBool(), false);
        QCOMPARE(j[QStringLiteral("duplicate_keys")].toInteger(), extra);
        QCOMPARE(j[QStringLiteral("extra_rows")].toInteger(), extra);
        QCOMPARE(j[QStringLiteral("totals_match")].toBool(), false);
        QCOMPARE(j[QStringLiteral("unique_index_added")].toBool(), false);
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), stormy);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);

        // A --report that cannot be written is refused before anything is done.
        const auto badReport =
            f.cli({QStringLiteral("recover"), QStringLiteral("--dataset"), QStringLiteral("sales"),
                   QStringLiteral("--execute"), QStringLiteral("--report"),
                   f.dir.filePath(QStringLiteral("no/such/dir/r.md"))});
        QCOMPARE(badReport.exitCode, 2);
        QVERIFY2(badReport.err.contains(QStringLiteral("--report")) &&
                     badReport.err.contains(QStringLiteral("no such directory")),
                 qPrintable(badReport.err));
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), stormy);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);

        const QString report = f.dir.filePath(QStringLiteral("incident.md"));
        const auto done = f.cli({QStringLiteral("recover"), QStringLiteral("--dataset"),
                                 QStringLiteral("sales"), QStringLiteral("--execute"),
                                 QStringLiteral("--report"), report, QStringLiteral("--json")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        j = json(done.out);
        QCOMPARE(j[QStringLiteral("executed")].toBool(), true);
        QCOMPARE(j[QStringLiteral("duplicate_keys")].toInteger(), extra);
        QCOMPARE(j[QStringLiteral("totals_match")].toBool(), true);
        QCOMPARE(j[QStringLiteral("unique_index_added")].toBool(), true);
        const QJsonArray parts = j[QStringLiteral("partitions")].toArray();
        QCOMPARE(parts.size(), 2);
        QCOMPARE(parts.at(0).toObject()[QStringLiteral("partition")].toString(),
                 QStringLiteral("2025-05-03"));
        QCOMPARE(parts.at(1).toObject()[QStringLiteral("partition")].toString(),
                 QStringLiteral("2025-05-04"));
        QCOMPARE(j[QStringLiteral("report")].toString(), report);
        // Sums of integer columns are JSON integers, equal to the table's, on both engines
        // (PostgreSQL sums a bigint as numeric).
        // (Read from the text: QJsonDocument prints 15.0 as 15.)
        static const QRegularExpression qtyJson(QStringLiteral(
            "\"qty\":\\s*\\{\\s*\"source\":\\s*([^,\\s]+),\\s*\"target\":\\s*([^\\s}]+)"));
        const auto m = qtyJson.match(done.out);
        QVERIFY2(m.hasMatch(), qPrintable(done.out));
        const QString qtySum = QString::number(
            count(f.db(), QStringLiteral("SELECT SUM(qty) FROM clean WHERE dt = '2025-05-03'")));
        QCOMPARE(m.captured(1), qtySum);
        QCOMPARE(m.captured(2), qtySum);

        // The table is the clean load, row for row.
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), digest(f.db(), QStringLiteral("clean")));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        // The database now refuses a duplicate, whoever writes it.
        QVERIFY(!f.db().exec(
            QStringLiteral("INSERT INTO fact SELECT * FROM fact WHERE dt = '2025-05-01' LIMIT 1")));
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), digest(f.db(), QStringLiteral("clean")));
        for (const char *step : {"recover freeze", "recover identify", "recover rerun",
                                 "recover totals", "recover unique index", "recover unfreeze"})
            QVERIFY2(count(f.db(),
                           QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = '%1'")
                               .arg(QLatin1String(step))) == 1,
                     step);
        QFile md(report);
        QVERIFY(md.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(md.readAll());
        QVERIFY(text.contains(QStringLiteral("# Duplicate incident recovery: sales")));
        QVERIFY(text.contains(QStringLiteral("rewind_unique_fact")));

        // Rolling the re-run back would restore the duplicates the new index
        // forbids: refused up front, naming the index, nothing changed.
        const QString rerun = QString::number(j[QStringLiteral("run_id")].toInteger());
        for (const bool executed : {false, true}) {
            QStringList args{QStringLiteral("rollback"), QStringLiteral("--run"), rerun,
                             QStringLiteral("--json")};
            if (executed)
                args << QStringLiteral("--execute");
            const auto undo = f.cli(args);
            QCOMPARE(undo.exitCode, 2);
            QVERIFY2(undo.err.contains(QStringLiteral("rewind_unique_fact")), qPrintable(undo.err));
            QCOMPARE(digest(f.db(), QStringLiteral("fact")),
                     digest(f.db(), QStringLiteral("clean")));
        }
        QCOMPARE(
            count(f.db(),
                  QStringLiteral(
                      "SELECT COUNT(*) FROM rewind_audit WHERE action = 'rollback partition'")),
            0);

        // Recovering a clean dataset changes nothing more. On SQLite its
        // report goes next to the database, named by the second, never over
        // an earlier report of that second (stand-ins for the next seconds).
        QStringList args{QStringLiteral("recover"), QStringLiteral("--dataset"),
                         QStringLiteral("sales"), QStringLiteral("--execute"),
                         QStringLiteral("--json")};
        QStringList earlier;
        if (testsupport::onPostgres()) {
            args << QStringLiteral("--report") << report;
        } else {
            const QDateTime now = QDateTime::currentDateTimeUtc();
            for (int s = 0; s < 10; ++s) {
                earlier << f.dir.filePath(
                    QStringLiteral("recovery-sales-") +
                    now.addSecs(s).toString(QStringLiteral("yyyyMMdd-HHmmss")) +
                    QStringLiteral(".md"));
                testsupport::writeFile(f.dir, QFileInfo(earlier.back()).fileName(),
                                       "earlier report\n");
            }
        }
        const auto again = f.cli(args);
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(json(again.out)[QStringLiteral("duplicate_keys")].toInteger(), 0);
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), digest(f.db(), QStringLiteral("clean")));
        if (!earlier.isEmpty()) {
            const QString written = json(again.out)[QStringLiteral("report")].toString();
            QVERIFY2(written.endsWith(QStringLiteral("-2.md")) &&
                         QFileInfo(written).absolutePath() ==
                             QFileInfo(earlier.front()).absolutePath(),
                     qPrintable(written));
            QFile second(written);
            QVERIFY(second.open(QIODevice::ReadOnly));
            QVERIFY(second.readAll().startsWith("# Duplicate incident recovery: sales"));
            for (const QString &path : earlier) {
                QFile kept(path);
                QVERIFY(kept.open(QIODevice::ReadOnly));
                QCOMPARE(kept.readAll(), QByteArray("earlier report\n"));
            }
        }
    }

    // A recovery killed mid-re-run (the first partition published, the
    // second not) leaves the freeze standing: other writers and Rewind's own
    // runs are refused. `resume` on its run finishes the re-run under that
    // freeze and then the recovery: totals, unique index, unfreeze.
    void crashMidRecoveryThenResume() {
        Fixture f(kStormSpec, retryStorm());
        qputenv("REWIND_CHUNK_ROWS", "1"); // a chunk per partition, for the child
        const auto killed = testsupport::runRewindctl(
            QStringList{QStringLiteral("recover"), QStringLiteral("--dataset"),
                        QStringLiteral("sales"), QStringLiteral("--execute")} +
                f.args(),
            QStringLiteral("after-commit:1"));
        qunsetenv("REWIND_CHUNK_ROWS");
        QVERIFY2(killed.crashed, killed.err.constData());
        const QString clean03 = QStringLiteral("SELECT COUNT(*) FROM clean WHERE dt = '%1'");
        const QString fact03 = QStringLiteral("SELECT COUNT(*) FROM fact WHERE dt = '%1'");
        QCOMPARE(count(f.db(), fact03.arg(QStringLiteral("2025-05-03"))),
                 count(f.db(), clean03.arg(QStringLiteral("2025-05-03"))));
        QVERIFY(count(f.db(), fact03.arg(QStringLiteral("2025-05-04"))) >
                count(f.db(), clean03.arg(QStringLiteral("2025-05-04"))));
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT COUNT(*) FROM rewind_frozen WHERE dataset = 'sales'")),
                 1);
        auto other = f.db().exec(QStringLiteral("DELETE FROM fact WHERE dt = '2025-05-04'"));
        QVERIFY(!other);
        QVERIFY2(other.error().message.contains(QStringLiteral("fact is frozen by Rewind")),
                 qPrintable(other.error().message));
        const auto run = f.cli({QStringLiteral("run"), QStringLiteral("--dataset"),
                                QStringLiteral("sales"), QStringLiteral("--execute")});
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.err.contains(QStringLiteral("frozen")), qPrintable(run.err));

        const QJsonArray runs = json(f.cli({QStringLiteral("runs"), QStringLiteral("--json")})
                                         .out)[QStringLiteral("runs")]
                                    .toArray();
        QCOMPARE(runs.size(), 1);
        const QJsonObject cut = runs.at(0).toObject();
        QCOMPARE(cut[QStringLiteral("kind")].toString(), QStringLiteral("recover"));
        QCOMPARE(cut[QStringLiteral("status")].toString(), QStringLiteral("interrupted"));

        const auto resumed = f.cli({QStringLiteral("resume"), QStringLiteral("--run"),
                                    QString::number(cut[QStringLiteral("run_id")].toInteger()),
                                    QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err + resumed.out));
        const QJsonObject j = json(resumed.out);
        QCOMPARE(j[QStringLiteral("status")].toString(), QStringLiteral("succeeded"));
        QCOMPARE(j[QStringLiteral("mode")].toString(),
                 QStringLiteral("overwrite_partition")); // as the recovery planned it, not merge
        const QJsonObject recovery = j[QStringLiteral("recovery")].toObject();
        QCOMPARE(recovery[QStringLiteral("status")].toString(), QStringLiteral("recovered"));
        QCOMPARE(recovery[QStringLiteral("totals_match")].toBool(), true);
        QCOMPARE(recovery[QStringLiteral("unique_index_added")].toBool(), true);
        QVERIFY(QFileInfo::exists(recovery[QStringLiteral("report")].toString()));
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), digest(f.db(), QStringLiteral("clean")));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        QVERIFY(f.db().exec(QStringLiteral(
            "UPDATE fact SET qty = qty WHERE dt = '2025-05-04'"))); // the freeze is lifted
        QCOMPARE(count(f.db(),
                       QStringLiteral(
                           "SELECT COUNT(*) FROM rewind_audit WHERE action = 'recover unfreeze'")),
                 1);
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT COUNT(*) FROM rewind_runs WHERE status = 'succeeded'")),
                 1);
        // Resuming it again is refused, and changes nothing: no freeze taken, no audit row.
        const qint64 audited = count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_audit"));
        const auto twice = f.cli({QStringLiteral("resume"), QStringLiteral("--run"),
                                  QString::number(cut[QStringLiteral("run_id")].toInteger()),
                                  QStringLiteral("--execute")});
        QCOMPARE(twice.exitCode, 2);
        QVERIFY2(twice.err.contains(QStringLiteral("already succeeded")), qPrintable(twice.err));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_audit")), audited);
    }

    void recoverStepByStep() {
        // The wizard's path: plan, then each step on its own, with the
        // re-run locked to its preview.
        Fixture f(kStormSpec, retryStorm());
        const qint64 extra = count(f.db(), QStringLiteral("SELECT COUNT(*) FROM fact")) -
                             count(f.db(), QStringLiteral("SELECT COUNT(*) FROM clean"));
        const QString stormy = digest(f.db(), QStringLiteral("fact"));
        auto recovery = Recovery::open(f.db(), f.dataset());
        QVERIFY2(recovery, qPrintable(recovery ? QString() : recovery.error().message));
        QVERIFY(recovery->plan(3));
        const RecoveryResult *plan = &recovery->result();
        QCOMPARE(plan->before.extraRows, extra);
        QCOMPARE(plan->scopeLabels,
                 (QStringList{QStringLiteral("2025-05-03"), QStringLiteral("2025-05-04")}));
        QCOMPARE(plan->before.samples.size(), std::size_t(3));
        QCOMPARE(plan->totalsBefore.size(), std::size_t(2));
        QVERIFY(!plan->totalsBefore[0].match);
        auto planned = recovery->plannedSteps();
        QVERIFY(planned);
        QCOMPARE(planned->size(), std::size_t(6));
        QVERIFY(planned->at(4).detail.startsWith(
            QStringLiteral("CREATE UNIQUE INDEX rewind_unique_fact")));
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), stormy);

        const RecoveryResult &r = recovery->result();
        // Out of order is refused and changes nothing.
        QCOMPARE(recovery->rerun().error().code, Error::Code::BadInput);
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), stormy);

        QVERIFY(recovery->freeze());
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT COUNT(*) FROM rewind_frozen WHERE dataset = 'sales'")),
                 1);
        QVERIFY(recovery->identify(true, 3));
        QCOMPARE(r.before.extraRows, extra);

        auto preview = recovery->previewRerun(2);
        QVERIFY2(preview, qPrintable(preview ? QString() : preview.error().message));
        QCOMPARE(preview->partitions.size(), std::size_t(2));
        QCOMPARE(enumName(preview->mode), QStringLiteral("overwrite_partition"));
        // Staged: one row per key of the clean load; the stormy extras go.
        QCOMPARE(preview->totals().stagedRows,
                 count(f.db(),
                       QStringLiteral(
                           "SELECT COUNT(*) FROM clean WHERE dt IN ('2025-05-03', '2025-05-04')")));
        QVERIFY(preview->totals().duplicatesDropped > 0); // the re-sent versions in the source
        QVERIFY(preview->totals().deleted > 0);
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), stormy);

        // A source change after the preview: the locked re-run is refused
        // without failing the recovery; a fresh preview goes through.
        QVERIFY(
            f.db().exec(QStringLiteral("UPDATE raw SET amount = amount WHERE dt = '2025-05-03'")));
        QVERIFY(f.db().exec(QStringLiteral(
            "INSERT INTO raw VALUES (9999, 1, '2025-05-03', 5, 1, '2025-05-12T00:00:00Z')")));
        RecoveryRerunOptions locked;
        locked.planId = preview->planId;
        const Status stale = recovery->rerun(locked);
        QVERIFY(!stale);
        QCOMPARE(stale.error().code, Error::Code::StalePlan);
        QVERIFY(!r.failed());
        QVERIFY(f.db().exec(QStringLiteral("DELETE FROM raw WHERE order_id = 9999")));
        preview = recovery->previewRerun();
        QVERIFY(preview);
        locked.planId = preview->planId;
        int progressCalls = 0;
        locked.progress = [&](const Progress &) { ++progressCalls; };
        QVERIFY(recovery->rerun(locked));
        QVERIFY(progressCalls > 0);
        QVERIFY(!r.rerunId.isNull());
        QCOMPARE(r.step(RecoveryStep::Rerun)->status, RecoveryStepStatus::Done);

        QVERIFY(recovery->totals());
        QVERIFY(r.totalsMatch);
        QCOMPARE(r.totals.size(), std::size_t(2));
        QVERIFY(recovery->uniqueIndex());
        QCOMPARE(r.status, RecoveryStatus::Recovered);
        QVERIFY(r.uniqueIndexAdded);
        QCOMPARE(r.after->duplicateKeys, 0);

        QCOMPARE(digest(f.db(), QStringLiteral("fact")), digest(f.db(), QStringLiteral("clean")));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        QVERIFY(!f.db().exec(
            QStringLiteral("INSERT INTO fact SELECT * FROM fact WHERE dt = '2025-05-01' LIMIT 1")));
        for (const char *step : {"recover freeze", "recover identify", "recover rerun",
                                 "recover totals", "recover unique index", "recover unfreeze"})
            QVERIFY2(count(f.db(),
                           QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = '%1'")
                               .arg(QLatin1String(step))) == 1,
                     step);
        const QString md = recoveryReportMarkdown(r);
        QVERIFY(md.contains(QStringLiteral("| rerun | done |")));
        QVERIFY(md.contains(QString::number(extra)));
        // The console's copy stops each per-partition table after the first
        // partitions and says how many it leaves out; the saved one has all.
        QVERIFY(r.before.partitions.size() >= 2);
        const QString capped = recoveryReportMarkdown(r, 1);
        const QString second = partitionLabel(r.before.partitions.at(1).partition);
        QVERIFY(md.contains(QStringLiteral("| %1 |").arg(second)));
        QVERIFY2(!capped.contains(QStringLiteral("| %1 |").arg(second)), qPrintable(capped));
        QVERIFY(capped.contains(
            QStringLiteral("... and %1 more partition(s)").arg(r.before.partitions.size() - 1)));
        QVERIFY(!md.contains(QStringLiteral("more partition(s)")));
        QVERIFY(capped.contains(QStringLiteral("| rerun | done |")));
    }

    void recoverStepsStopAfterAFailure() {
        // A NULL key: step 5 fails, the dataset stays frozen, nothing after runs.
        Fixture f(spec(QStringLiteral("merge")));
        auto recovery = Recovery::open(f.db(), f.dataset());
        QVERIFY(recovery);
        QVERIFY(recovery->plan());
        const RecoveryResult &r = recovery->result();
        QVERIFY(recovery->freeze());
        QVERIFY(recovery->identify());
        QVERIFY(recovery->rerun());
        QVERIFY(recovery->totals());
        QVERIFY(recovery->uniqueIndex());
        QVERIFY(r.failed());
        QVERIFY(r.leftFrozen);
        QVERIFY(r.error.contains(QStringLiteral("NULL")));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 1);
        QCOMPARE(recovery->uniqueIndex().error().code, Error::Code::BadInput);
    }

    void recoverRefusesAnIneffectiveIndex() {
        // A NULL key column: a unique index would not stop duplicates of it.
        Fixture f(spec(QStringLiteral("merge")));
        const auto r =
            f.cli({QStringLiteral("recover"), QStringLiteral("--dataset"), QStringLiteral("sales"),
                   QStringLiteral("--execute"), QStringLiteral("--report"),
                   f.dir.filePath(QStringLiteral("r.md")), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        const QJsonObject j = json(r.out);
        QCOMPARE(j[QStringLiteral("unique_index_added")].toBool(), false);
        QVERIFY2(j[QStringLiteral("error")].toString().contains(QStringLiteral("NULL")),
                 qPrintable(r.out));
        // The duplicates are gone; the dataset stays frozen for the operator to decide.
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE dt = 'd2' AND id = 2")),
            1);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 1);
    }
};

QTEST_GUILESS_MAIN(TestRecovery)
#include "tst_recovery.moc"
