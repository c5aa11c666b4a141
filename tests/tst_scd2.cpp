// The scd2 write mode: a monthly backfill builds exactly the history a
// gaps-and-islands query computes on its own, killed at every failpoint of a
// batch run and resumed ends exactly as an uninterrupted run, changes nothing
// when re-run, refuses an out-of-order month, and rolls back.
#include "core/batch/batch.h"
#include "core/batch/rollback.h"
#include "core/util/timeutil.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlRecord>
#include <QTest>

using namespace rw;

namespace {

// 60 customers over 6 months; tiers move now and then, some customers join
// late or skip a month, one has a NULL id, and some months were sent twice
// (the later send wins).
const QStringList kWarehouse = {
    QStringLiteral("CREATE TABLE tiers (customer_id INTEGER, month TEXT, customer_tier TEXT, "
                   "updated_at TEXT)"),
    QStringLiteral(
        "WITH RECURSIVE c(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM c WHERE id < 60), "
        "m(k, month) AS (VALUES (0, '2025-01-01'), (1, '2025-02-01'), (2, '2025-03-01'), (3, "
        "'2025-04-01'), "
        "(4, '2025-05-01'), (5, '2025-06-01')) "
        "INSERT INTO tiers SELECT id, month, "
        "CASE (id * 7 + (k + id % 3) / 2 * (id % 4)) % 4 WHEN 0 THEN 'bronze' WHEN 1 THEN 'silver' "
        "WHEN 2 THEN 'gold' ELSE 'platinum' END, "
        "month || 'T01:00:00Z' FROM c, m "
        "WHERE NOT (id % 10 = 3 AND k < 2) AND NOT (id % 13 = 5 AND k = 3)"),
    QStringLiteral("INSERT INTO tiers SELECT NULL, month, CASE WHEN month < '2025-04-01' THEN "
                   "'gold' ELSE 'silver' END, month || 'T01:00:00Z' "
                   "FROM (SELECT DISTINCT month FROM tiers) AS months"),
    QStringLiteral("INSERT INTO tiers SELECT customer_id, month, 'resent', month || 'T00:30:00Z' "
                   "FROM tiers WHERE customer_id % 9 = 2"),
    QStringLiteral(
        "INSERT INTO tiers SELECT customer_id, month, 'corrected', month || 'T02:00:00Z' FROM "
        "tiers "
        "WHERE customer_id % 11 = 4 AND month = '2025-03-01' AND customer_tier <> 'resent'"),
};

const QByteArray kSpec =
    R"({"datasets": {"customer_tiers": {"source": "tiers", "target": "dim", "partition_column": "month",
    "key": ["customer_id"], "order_by": "updated_at", "write": "scd2",
    "scd2": {"tracked": ["customer_tier"], "valid_from": "effective_from", "valid_to": "effective_to", "current": "is_current"}}}})";

const QStringList kMonths = {QStringLiteral("2025-01-01"), QStringLiteral("2025-02-01"),
                             QStringLiteral("2025-03-01"), QStringLiteral("2025-04-01"),
                             QStringLiteral("2025-05-01"), QStringLiteral("2025-06-01")};

// The expected dimension, computed independently: dedupe each month, then
// gaps and islands: a version starts where the tier differs from the key's
// previous month present; it ends where the next one starts.
QString expectedHistory(const QString &upTo) {
    return QStringLiteral("WITH d AS (SELECT customer_id, month, customer_tier FROM (SELECT *, "
                          "ROW_NUMBER() OVER (PARTITION BY customer_id, month "
                          "ORDER BY updated_at DESC) AS rn FROM tiers WHERE month <= '%1') AS "
                          "ranked WHERE rn = 1), "
                          "c AS (SELECT *, CASE WHEN LAG(month) OVER w IS NOT NULL AND "
                          "COALESCE(LAG(customer_tier) OVER w, '<null>') = COALESCE(customer_tier, "
                          "'<null>') THEN 0 ELSE 1 END AS starts "
                          "FROM d WINDOW w AS (PARTITION BY customer_id ORDER BY month)), "
                          "s AS (SELECT customer_id, month, customer_tier FROM c WHERE starts = 1) "
                          "SELECT customer_id, customer_tier, month AS effective_from, LEAD(month) "
                          "OVER (PARTITION BY customer_id ORDER BY month) AS effective_to, "
                          "CASE WHEN LEAD(month) OVER (PARTITION BY customer_id ORDER BY month) IS "
                          "NULL THEN 1 ELSE 0 END AS is_current FROM s")
        .arg(upTo);
}

qint64 count(const Database &db, const QString &sql) {
    auto v = db.scalar(sql);
    return v ? v->toLongLong() : -1;
}

// Rows of the dimension not in the expected history and back (0 and 0: equal).
QString differences(const Database &db, const QString &upTo = QStringLiteral("9999")) {
    const QString dim = QStringLiteral(
        "SELECT customer_id, customer_tier, effective_from, effective_to, is_current FROM dim");
    const qint64 extra = count(db, QStringLiteral("SELECT COUNT(*) FROM (") + dim +
                                       QStringLiteral(" EXCEPT SELECT * FROM (") +
                                       expectedHistory(upTo) + QStringLiteral(") AS e) AS x"));
    const qint64 missing =
        count(db, QStringLiteral("SELECT COUNT(*) FROM (") + expectedHistory(upTo) +
                      QStringLiteral(" EXCEPT ") + dim + QStringLiteral(") AS x"));
    const qint64 rows = count(db, QStringLiteral("SELECT COUNT(*) FROM dim"));
    const qint64 expected = count(db, QStringLiteral("SELECT COUNT(*) FROM (") +
                                          expectedHistory(upTo) + QStringLiteral(") AS x"));
    return QStringLiteral("extra %1 missing %2 rows %3/%4")
        .arg(extra)
        .arg(missing)
        .arg(rows)
        .arg(expected);
}
bool same(const QString &differencesText) {
    const QStringList w = differencesText.split(u' ');
    const QStringList rows = w.value(5).split(u'/');
    return w.value(1) == QLatin1String("0") && w.value(3) == QLatin1String("0") &&
           rows.value(0) == rows.value(1);
}

struct Fixture : testsupport::WorkspaceFixture {
    Fixture()
        : WorkspaceFixture(kWarehouse, kSpec) {}
};

BatchOptions scope(QStringList partitions = {}, bool execute = true) {
    BatchOptions o;
    o.execute = execute;
    o.scope.partitions = std::move(partitions);
    return o;
}

BatchOptions range(const QString &from, const QString &to) {
    BatchOptions o;
    o.execute = true;
    o.scope.from = from;
    o.scope.to = to;
    return o;
}

// The uninterrupted backfill's outcome, each as a digest of its rows: the
// dimension, the before-images rollback restores from, the checkpoints with
// their per-month counts, and the partition states.
struct Outcome {
    QString dimension, images, checkpoints, states;
};

Outcome outcomeOf(const QString &dbPath) {
    return {
        testsupport::digest(dbPath, QStringLiteral("SELECT * FROM dim")),
        testsupport::digest(dbPath, QStringLiteral("SELECT * FROM rewind_images_customer_tiers")),
        testsupport::digest(
            dbPath,
            QStringLiteral(
                "SELECT run_id, part, part_is_null, status, counts_json FROM rewind_checkpoints")),
        testsupport::digest(
            dbPath,
            QStringLiteral(
                "SELECT dataset, part, part_is_null, status, source_rows, source_sig, last_run_id "
                "FROM rewind_partition_state"))};
}

// Versions per key that break the SCD2 shape: a second version starting in
// the same month, a version not ending where the next one starts (a gap or
// an overlap), a current flag on anything but the open-ended last version.
qint64 brokenVersions(const Database &db) {
    return count(
        db, QStringLiteral(
                "SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM dim GROUP BY customer_id, "
                "effective_from HAVING COUNT(*) > 1) AS doubled) + "
                "(SELECT COUNT(*) FROM (SELECT effective_to, is_current, LEAD(effective_from) OVER "
                "(PARTITION BY customer_id ORDER BY effective_from) AS next_from FROM dim) AS v "
                "WHERE COALESCE(effective_to, '') <> COALESCE(next_from, '') "
                "OR is_current <> CASE WHEN next_from IS NULL THEN 1 ELSE 0 END)"));
}

const QStringList kRun = {QStringLiteral("run"), QStringLiteral("--dataset"),
                          QStringLiteral("customer_tiers"), QStringLiteral("--execute"),
                          QStringLiteral("--json")};

} // namespace

class TestScd2 : public QObject {
    Q_OBJECT

    Outcome m_uninterrupted;

private Q_SLOTS:
    // The uninterrupted backfill by rewindctl, that every killed one must equal.
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        Fixture f;
        const auto r = testsupport::runRewindctl(kRun + f.args());
        QVERIFY2(r.exitCode == 0 && !r.crashed, r.err.constData());
        QVERIFY2(same(differences(f.db())), qPrintable(differences(f.db())));
        QCOMPARE(brokenVersions(f.db()), 0);
        const QString ledger =
            testsupport::ledgerProblems(f.dbPath, QStringLiteral("customer_tiers"), 1, 6);
        QVERIFY2(ledger.isEmpty(), qPrintable(ledger));
        m_uninterrupted = outcomeOf(f.dbPath);
        // Every month after the first closes and opens versions, so a kill
        // inside any month's reconciliation interrupts a real change.
        const QJsonArray parts =
            QJsonDocument::fromJson(r.out).object()[QStringLiteral("partitions")].toArray();
        QCOMPARE(parts.size(), 6);
        for (qsizetype i = 1; i < parts.size(); ++i) {
            QVERIFY(parts[i].toObject()[QStringLiteral("versions_closed")].toInt() > 0);
            QVERIFY(parts[i].toObject()[QStringLiteral("versions_opened")].toInt() > 0);
        }
    }

    void backfillMatchesIndependentHistory() {
        Fixture f;
        // The preview simulates the months in order: per month, the
        // versions opened and closed that the expected history has.
        auto p = preview(f.db(), f.dataset(), scope({}, false));
        QVERIFY2(p, qPrintable(p ? QString() : p.error().message));
        QCOMPARE(p->partitions.size(), std::size_t(6));
        QVERIFY(!*f.db().hasRelation(QStringLiteral("dim")));
        for (const auto &part : p->partitions) {
            const QString m = *part.partition;
            QCOMPARE(part.versionsOpened.value_or(-1),
                     count(f.db(), QStringLiteral("SELECT COUNT(*) FROM (") +
                                       expectedHistory(QStringLiteral("9999")) +
                                       QStringLiteral(") AS e WHERE effective_from = '") + m +
                                       u'\''));
            QCOMPARE(part.versionsClosed.value_or(-1),
                     count(f.db(), QStringLiteral("SELECT COUNT(*) FROM (") +
                                       expectedHistory(QStringLiteral("9999")) +
                                       QStringLiteral(") AS e WHERE effective_to = '") + m +
                                       u'\''));
            QCOMPARE(part.inserted, *part.versionsOpened);
            QCOMPARE(part.unchanged, part.stagedRows - part.inserted);
        }

        auto r = run(f.db(), f.dataset(), scope());
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Succeeded);
        QVERIFY2(same(differences(f.db())), qPrintable(differences(f.db())));
        for (std::size_t i = 0; i < r->partitions.size(); ++i) {
            QCOMPARE(r->partitions[i].versionsOpened, p->partitions[i].versionsOpened);
            QCOMPARE(r->partitions[i].versionsClosed, p->partitions[i].versionsClosed);
        }
        // One current version per key, the NULL key included.
        QCOMPARE(
            count(f.db(),
                  QStringLiteral("SELECT COUNT(*) FROM (SELECT customer_id FROM dim WHERE "
                                 "is_current = 1 GROUP BY customer_id HAVING COUNT(*) > 1) AS x")),
            0);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT COUNT(*) FROM dim WHERE customer_id IS NULL")), 2);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT COUNT(*) FROM dim WHERE customer_id IS NULL AND "
                                         "is_current = 1 AND effective_from = '2025-04-01'")),
            1);
    }

    void monthByMonthThenRerunIsANoop() {
        Fixture f;
        for (const QString &m : kMonths) {
            auto r = run(f.db(), f.dataset(), scope({m}));
            QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
            QVERIFY2(same(differences(f.db(), m)), qPrintable(differences(f.db(), m)));
        }
        const qint64 rows = count(f.db(), QStringLiteral("SELECT COUNT(*) FROM dim"));
        const qint64 sum =
            count(f.db(), QStringLiteral("SELECT SUM(rowid * 7 + is_current + "
                                         "length(COALESCE(effective_to, ''))) FROM dim"));
        // The whole range again, then the last month again: nothing changes.
        for (const BatchOptions &o : {scope(), scope({kMonths.last()})}) {
            auto again = run(f.db(), f.dataset(), o);
            QVERIFY2(again, qPrintable(again ? QString() : again.error().message));
            const PartitionResult t = again->totals();
            QCOMPARE(t.inserted, 0);
            QCOMPARE(t.updated, 0);
            QCOMPARE(t.deleted, 0);
            QCOMPARE(t.unchanged, t.stagedRows);
            QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM dim")), rows);
            QCOMPARE(count(f.db(), QStringLiteral("SELECT SUM(rowid * 7 + is_current + "
                                                  "length(COALESCE(effective_to, ''))) FROM dim")),
                     sum);
        }
        // The contract's JSON carries the scd2 counts.
        const auto cli = testsupport::runCli(
            QStringList{QStringLiteral("preview"), QStringLiteral("--dataset"),
                        QStringLiteral("customer_tiers"), QStringLiteral("--partition"),
                        kMonths.last(), QStringLiteral("--json")} +
            f.args());
        QCOMPARE(cli.exitCode, 0);
        const QJsonObject part = QJsonDocument::fromJson(cli.out.toUtf8())
                                     .object()[QStringLiteral("partitions")]
                                     .toArray()
                                     .at(0)
                                     .toObject();
        QCOMPARE(part[QStringLiteral("versions_opened")].toInt(), 0);
        QCOMPARE(part[QStringLiteral("versions_closed")].toInt(), 0);
    }

    void outOfOrderMonthIsRefused() {
        Fixture f;
        QVERIFY(run(f.db(), f.dataset(), range(kMonths[0], kMonths[3])));
        const qint64 rows = count(f.db(), QStringLiteral("SELECT COUNT(*) FROM dim"));
        // Month 2 alone after months 3 and 4: refused, exit 2, naming what to do.
        const auto refused = testsupport::runCli(
            QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                        QStringLiteral("customer_tiers"), QStringLiteral("--partition"), kMonths[1],
                        QStringLiteral("--execute")} +
            f.args());
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("--from 2025-02-01 --to 2025-04-01")),
                 qPrintable(refused.err));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM dim")), rows);
        // Skipping ahead is fine; a month before the last applied one is not.
        QVERIFY(run(f.db(), f.dataset(), scope({kMonths[5]})));
        auto gap = run(f.db(), f.dataset(), scope({kMonths[4]}));
        QVERIFY(!gap);
        QCOMPARE(gap.error().code, Error::Code::BadInput);
        // The whole range from that month on is accepted.
        auto whole = run(f.db(), f.dataset(), range(kMonths[4], kMonths[5]));
        QVERIFY2(whole, qPrintable(whole ? QString() : whole.error().message));
        QVERIFY2(same(differences(f.db())), qPrintable(differences(f.db())));

        // A corrected source for month 3 onwards, re-run from month 3: the
        // history follows the new source, transitions removed included.
        QVERIFY(f.db().exec(QStringLiteral(
            "UPDATE tiers SET customer_tier = 'platinum', updated_at = updated_at || 'x' "
            "WHERE customer_id % 5 = 1 AND month >= '2025-03-01'")));
        QVERIFY(
            f.db().exec(QStringLiteral("UPDATE tiers SET customer_tier = (SELECT t2.customer_tier "
                                       "FROM tiers AS t2 WHERE t2.customer_id = tiers.customer_id "
                                       "AND t2.month = '2025-02-01' ORDER BY t2.updated_at DESC "
                                       "LIMIT 1), updated_at = updated_at || 'y' "
                                       "WHERE customer_id % 5 = 2 AND month = '2025-03-01'")));
        QVERIFY(!run(f.db(), f.dataset(), range(kMonths[2], kMonths[4])));
        auto redo = run(f.db(), f.dataset(), range(kMonths[2], kMonths[5]));
        QVERIFY2(redo, qPrintable(redo ? QString() : redo.error().message));
        QVERIFY(redo->totals().inserted + redo->totals().deleted > 0);
        QVERIFY2(same(differences(f.db())), qPrintable(differences(f.db())));
    }

    // The crash matrix of a batch run (testsupport::batchRunFailpoints, as
    // tst_crash runs it for merge and overwrite) plus the points inside an
    // scd2 month's reconciliation.
    void killedBackfillResumes_data() {
        testsupport::addBatchFailpointRows(
            {{"month 2 before-images saved", "scd2-after-images:2", 1},
             {"month 3 versions closed, successors not open", "scd2-after-close:3", 2},
             {"last month versions closed, successors not open", "scd2-after-close:6", 5}});
    }

    void killedBackfillResumes() {
        QFETCH(QString, failpoint);
        QFETCH(int, committed);
        Fixture f;
        // Dead: the months committed are published exactly, the rest untouched.
        const auto atKill = [&]() -> QString {
            if (committed == 0)
                return *f.db().hasRelation(QStringLiteral("dim"))
                           ? QStringLiteral("the dimension exists")
                           : QString();
            const QString d = differences(f.db(), kMonths[committed - 1]);
            return same(d) ? QString()
                           : QStringLiteral("history through month %1: %2").arg(committed).arg(d);
        };
        const auto resumed =
            testsupport::killThenResume(kRun, f.args(), failpoint, committed, atKill);
        QVERIFY2(resumed.problem.isEmpty(), qPrintable(resumed.problem));
        QCOMPARE(resumed.result[QStringLiteral("partitions")].toArray().size(), 6);

        // Exactly the uninterrupted run's outcome, and the independent history.
        const Outcome outcome = outcomeOf(f.dbPath);
        QCOMPARE(outcome.dimension, m_uninterrupted.dimension);
        QCOMPARE(outcome.images, m_uninterrupted.images);
        QCOMPARE(outcome.checkpoints, m_uninterrupted.checkpoints);
        QCOMPARE(outcome.states, m_uninterrupted.states);
        QVERIFY2(same(differences(f.db())), qPrintable(differences(f.db())));
        QCOMPARE(brokenVersions(f.db()), 0);
        const QString ledger = testsupport::ledgerProblems(
            f.dbPath, QStringLiteral("customer_tiers"), resumed.runId, 6);
        QVERIFY2(ledger.isEmpty(), qPrintable(ledger));
        QCOMPARE(testsupport::integrityCheck(f.dbPath), QStringLiteral("ok"));
    }

    // The matrix cannot pass vacuously: a failpoint the run never reaches
    // (there is no month 7) is reported, not taken for a kill.
    void unreachedFailpointIsReported() {
        Fixture f;
        const auto r =
            testsupport::killThenResume(kRun, f.args(), QStringLiteral("after-write:7"), 6);
        QVERIFY2(r.problem.startsWith(QStringLiteral("the run was not killed at after-write:7")),
                 qPrintable(r.problem));
    }

    void rollbackOfScd2Runs() {
        Fixture f;
        auto first = run(f.db(), f.dataset(), range(kMonths[0], kMonths[2]));
        QVERIFY(first);
        auto second = run(f.db(), f.dataset(), range(kMonths[3], kMonths[5]));
        QVERIFY(second);
        QVERIFY2(same(differences(f.db())), qPrintable(differences(f.db())));

        // The first run's history is what the second built on.
        auto refused = rollback(f.db(), f.ws->spec, first->runId.toLongLong(), true);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code, Error::Code::BadInput);
        QVERIFY2(refused.error().message.contains(
                     QStringLiteral("run %1").arg(second->runId.toLongLong())),
                 qPrintable(refused.error().message));

        auto dry = rollback(f.db(), f.ws->spec, second->runId.toLongLong(), false);
        QVERIFY(dry);
        QCOMPARE(dry->partitions.size(), std::size_t(3));
        QVERIFY2(same(differences(f.db())), qPrintable(differences(f.db())));

        auto undone = rollback(f.db(), f.ws->spec, second->runId.toLongLong(), true);
        QVERIFY2(undone, qPrintable(undone ? QString() : undone.error().message));
        QVERIFY2(same(differences(f.db(), kMonths[2])),
                 qPrintable(differences(f.db(), kMonths[2])));
        // Months 4-6 may be applied again; the result is the full history.
        QVERIFY(run(f.db(), f.dataset(), range(kMonths[3], kMonths[5])));
        QVERIFY2(same(differences(f.db())), qPrintable(differences(f.db())));
    }

    // A dimension with no current-flag column (as dbt's snapshots are): the
    // open valid_to marks the current version; the history is the same, a
    // re-run changes nothing, duplicates count current versions only, and a
    // rollback restores the months before.
    void withoutCurrentColumn() {
        QByteArray spec = kSpec;
        spec.replace(R"(, "current": "is_current")", "");
        testsupport::WorkspaceFixture f(kWarehouse, spec);
        QVERIFY(f.dataset().scd2->current.isEmpty());
        auto first = run(f.db(), f.dataset(), range(kMonths[0], kMonths[2]));
        QVERIFY2(first, qPrintable(first ? QString() : first.error().message));
        auto second = run(f.db(), f.dataset(), range(kMonths[3], kMonths[5]));
        QVERIFY2(second, qPrintable(second ? QString() : second.error().message));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM dim")),
                 count(f.db(), QStringLiteral("SELECT COUNT(*) FROM (") +
                                   expectedHistory(QStringLiteral("9999")) +
                                   QStringLiteral(") AS e")));
        const QString asExpected =
            QStringLiteral("SELECT COUNT(*) FROM (SELECT customer_id, customer_tier, "
                           "effective_from, effective_to FROM dim EXCEPT SELECT customer_id, "
                           "customer_tier, effective_from, effective_to FROM (") +
            expectedHistory(QStringLiteral("9999")) + QStringLiteral(") AS e) AS x");
        QCOMPARE(count(f.db(), asExpected), 0);
        auto columns = f.db().exec(QStringLiteral("SELECT * FROM dim WHERE 1 = 0"));
        QVERIFY(columns);
        QVERIFY(columns->record().indexOf(QStringLiteral("is_current")) < 0);

        // A second open version of a key is a duplicate; closed ones are not.
        auto parts = f.cli({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                            QStringLiteral("customer_tiers"), QStringLiteral("--json")});
        QCOMPARE(parts.exitCode, 0);
        int duplicates = 0;
        for (const auto &p : QJsonDocument::fromJson(parts.out.toUtf8())
                                 .object()[QStringLiteral("partitions")]
                                 .toArray())
            duplicates += p.toObject()[QStringLiteral("duplicate_keys")].toInt();
        QCOMPARE(duplicates, 0);
        QVERIFY(f.db().exec(QStringLiteral(
            "INSERT INTO dim (customer_id, month, customer_tier, updated_at, effective_from, "
            "effective_to) SELECT customer_id, month, 'stray', updated_at, effective_from, "
            "effective_to FROM dim WHERE customer_id = 1 AND effective_to IS NULL")));
        parts = f.cli({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                       QStringLiteral("customer_tiers"), QStringLiteral("--json")});
        duplicates = 0;
        for (const auto &p : QJsonDocument::fromJson(parts.out.toUtf8())
                                 .object()[QStringLiteral("partitions")]
                                 .toArray())
            duplicates += p.toObject()[QStringLiteral("duplicate_keys")].toInt();
        QCOMPARE(duplicates, 1);
        QVERIFY(f.db().exec(QStringLiteral("DELETE FROM dim WHERE customer_tier = 'stray'")));

        auto undone = rollback(f.db(), f.ws->spec, second->runId.toLongLong(), true);
        QVERIFY2(undone, qPrintable(undone ? QString() : undone.error().message));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM dim")),
                 count(f.db(), QStringLiteral("SELECT COUNT(*) FROM (") +
                                   expectedHistory(kMonths[2]) + QStringLiteral(") AS e")));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM (SELECT customer_id, "
                                              "customer_tier, effective_from, effective_to FROM "
                                              "dim EXCEPT SELECT customer_id, customer_tier, "
                                              "effective_from, effective_to FROM (") +
                                   expectedHistory(kMonths[2]) + QStringLiteral(") AS e) AS x")),
                 0);
        // Applied again, then re-run: the full history, and no change.
        QVERIFY(run(f.db(), f.dataset(), scope()));
        QCOMPARE(count(f.db(), asExpected), 0);
        auto again = run(f.db(), f.dataset(), scope());
        QVERIFY(again);
        QCOMPARE(again->totals().inserted, 0);
        QCOMPARE(again->totals().unchanged, again->totals().stagedRows);
    }

    // A snapshot dated by its run ({snapshot_time}, as a dbt check snapshot
    // without updated_at): the source is the dimension now; each run's one
    // partition is its time, which dates the versions it opens and closes. A
    // preview's time is its plan's: the run publishes exactly it, later.
    // hard_deletes invalidate closes the versions of keys gone from the
    // source. "tracked": "all" compares neither the partition column nor
    // not_tracked ones. Rollback restores the run before.
    void snapshotDatedByItsRun() {
        const QString at = testsupport::onPostgres()
                               ? QStringLiteral("CAST({snapshot_time} AS TIMESTAMP)")
                               : QStringLiteral("{snapshot_time}");
        const QByteArray spec =
            QStringLiteral(
                R"({"datasets": {"tiers_by_run": {"transform": "SELECT id, name, tier, %1 AS taken_at, 'x' || %1 AS stamp FROM customers",
                "target": "dim_run", "partition_column": "taken_at", "key": ["id"], "write": "scd2",
                "scd2": {"tracked": "all", "not_tracked": ["stamp"], "valid_from": "valid_from", "valid_to": "valid_to",
                         "hard_deletes": "invalidate"},
                "checks": [{"type": "sql", "name": "every tier known", "query": "SELECT COUNT(*) FROM {staged} WHERE tier IS NULL", "max": 0}]}}})")
                .arg(at)
                .toUtf8();
        testsupport::WorkspaceFixture f(
            {QStringLiteral("CREATE TABLE customers (id INTEGER, name TEXT, tier TEXT)"),
             QStringLiteral("INSERT INTO customers VALUES (1, 'ann', 'gold'), (2, 'bob', "
                            "'silver'), (3, 'cy', 'bronze')")},
            spec);
        QVERIFY(f.dataset().datedByRun());
        const QString versions = QStringLiteral(
            "SELECT id, tier, CASE WHEN valid_from = taken_at THEN 'from-run' ELSE 'other' END, "
            "CAST(valid_from AS TEXT), CAST(valid_to AS TEXT) FROM dim_run ORDER BY id, "
            "valid_from");
        auto first = run(f.db(), f.dataset(), scope());
        QVERIFY2(first, qPrintable(first ? QString() : first.error().message));
        QCOMPARE(first->partitions.size(), std::size_t(1));
        QCOMPARE(first->partitions.front().versionsOpened.value_or(-1), 3);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(DISTINCT valid_from) FROM dim_run "
                                              "WHERE valid_to IS NULL AND valid_from = taken_at")),
                 1);

        // Unchanged: a new run's time, nothing to version (the partition
        // column and the stamp differ each run, and are not compared).
        QTest::qWait(5);
        auto again = run(f.db(), f.dataset(), scope());
        QVERIFY2(again, qPrintable(again ? QString() : again.error().message));
        QVERIFY(again->partitions.front().partition != first->partitions.front().partition);
        QCOMPARE(again->totals().inserted, 0);
        QCOMPARE(again->totals().updated, 0);
        QCOMPARE(again->partitions.front().versionsInvalidated.value_or(-1), 0);
        const QString before =
            testsupport::digest(f.dbPath, QStringLiteral("SELECT * FROM dim_run"));

        // bob moves tier, cy is gone, dan joins: previewed now, run later
        // at the preview's time.
        QVERIFY(
            f.db().execAll({QStringLiteral("UPDATE customers SET tier = 'gold' WHERE id = 2"),
                            QStringLiteral("DELETE FROM customers WHERE id = 3"),
                            QStringLiteral("INSERT INTO customers VALUES (4, 'dan', 'bronze')")}));
        auto previewed = preview(f.db(), f.dataset(), scope({}, false));
        QVERIFY2(previewed, qPrintable(previewed ? QString() : previewed.error().message));
        QCOMPARE(previewed->checks.size(), std::size_t(1)); // its gate reads the run's rows
        QVERIFY(previewed->checks.front().passed);
        const PartitionResult &p = previewed->partitions.front();
        QCOMPARE(p.versionsOpened.value_or(-1), 2);
        QCOMPARE(p.versionsClosed.value_or(-1), 2);
        QCOMPARE(p.versionsInvalidated.value_or(-1), 1);
        QCOMPARE(p.unchanged, 1);
        QCOMPARE(p.stagedRows, 3);
        QTest::qWait(5);
        BatchOptions planned = scope();
        planned.planId = previewed->planId;
        auto done = run(f.db(), f.dataset(), planned);
        QVERIFY2(done, qPrintable(done ? QString() : done.error().message));
        QCOMPARE(done->partitions.front().partition, p.partition);
        const QStringList rows = testsupport::rowsAt(f.dbPath, versions);
        QCOMPARE(rows.size(), 5);
        const QString t2 = rows.value(2).section(u'|', 3, 3); // bob's new version
        QVERIFY2(timeutil::parseTimestamp(t2) &&
                     *timeutil::parseTimestamp(t2) == *timeutil::parseTimestamp(*p.partition),
                 qPrintable(t2 + QStringLiteral(" / ") + *p.partition));
        QCOMPARE(rows.value(0).section(u'|', 4), QStringLiteral("-")); // ann: open still
        QVERIFY(rows.value(0).section(u'|', 3, 3) != t2);
        QCOMPARE(rows.value(1).section(u'|', 0, 1), QStringLiteral("2|silver"));
        QCOMPARE(rows.value(1).section(u'|', 4), t2); // bob's old one, closed
        QCOMPARE(rows.value(2), QStringLiteral("2|gold|from-run|%1|-").arg(t2));
        QCOMPARE(rows.value(3).section(u'|', 0, 1), QStringLiteral("3|bronze"));
        QCOMPARE(rows.value(3).section(u'|', 4), t2); // cy's, invalidated
        QCOMPARE(rows.value(4), QStringLiteral("4|bronze|from-run|%1|-").arg(t2));

        // An earlier run's partition is history, not stale.
        const auto parts = f.cli({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                  QStringLiteral("tiers_by_run"), QStringLiteral("--json")});
        QCOMPARE(parts.exitCode, 0);
        for (const auto &v : QJsonDocument::fromJson(parts.out.toUtf8())
                                 .object()[QStringLiteral("partitions")]
                                 .toArray())
            QVERIFY2(v.toObject()[QStringLiteral("status")].toString() != QLatin1String("stale"),
                     qPrintable(parts.out));

        // Its one partition is the run's: no other scope.
        const auto named =
            f.cli({QStringLiteral("preview"), QStringLiteral("--dataset"),
                   QStringLiteral("tiers_by_run"), QStringLiteral("--partition"), *p.partition});
        QCOMPARE(named.exitCode, 2);
        QVERIFY2(named.err.contains(u"snapshot dated by its run"), qPrintable(named.err));

        auto undone = rollback(f.db(), f.ws->spec, done->runId.toLongLong(), true);
        QVERIFY2(undone, qPrintable(undone ? QString() : undone.error().message));
        QCOMPARE(testsupport::digest(f.dbPath, QStringLiteral("SELECT * FROM dim_run")), before);
    }

    // What a run-dated snapshot's spec may not say, each refused by name.
    void snapshotSpecRefusals_data() {
        QTest::addColumn<QByteArray>("dataset");
        QTest::addColumn<QString>("says");
        const QByteArray scd2 =
            R"("write": "scd2", "partition_column": "t", "key": ["id"], "target": "d", )";
        QTest::newRow("invalidate without a run's time")
            << scd2 +
                   R"("source": "s", "scd2": {"tracked": ["v"], "valid_from": "f", "valid_to": "u", "hard_deletes": "invalidate"})"
            << QStringLiteral("\"hard_deletes\": \"invalidate\" needs");
        QTest::newRow("a run's time in a merge")
            << QByteArray(
                   R"("transform": "SELECT *, {snapshot_time} AS t FROM s", "target": "d", "key": ["id"])")
            << QStringLiteral("says {snapshot_time}");
        QTest::newRow("new_record")
            << scd2 +
                   R"("transform": "SELECT *, {snapshot_time} AS t FROM s", "scd2": {"tracked": ["v"], "valid_from": "f", "valid_to": "u", "hard_deletes": "new_record"})"
            << QStringLiteral("must be \"ignore\" or \"invalidate\"");
        QTest::newRow("not_tracked with a list")
            << scd2 +
                   R"("source": "s", "scd2": {"tracked": ["v"], "not_tracked": ["w"], "valid_from": "f", "valid_to": "u"})"
            << QStringLiteral("not_tracked");
    }

    void snapshotSpecRefusals() {
        QFETCH(QByteArray, dataset);
        QFETCH(QString, says);
        auto spec =
            parseSpec(R"({"datasets": {"snap": {)" + dataset + "}}}", QStringLiteral("t.json"));
        QVERIFY(!spec);
        QVERIFY2(spec.error().message.contains(says) && spec.error().message.contains(u"snap"),
                 qPrintable(spec.error().message));
    }
};

QTEST_GUILESS_MAIN(TestScd2)
#include "tst_scd2.moc"
