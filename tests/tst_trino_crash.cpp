// The batch crash matrix on a Trino warehouse over Apache Iceberg: rewindctl
// killed with SIGKILL at every failpoint a batch run passes (the list
// tst_crash kills SQLite and PostgreSQL runs at, testsupport's
// batchRunFailpoints), for each write a chunk publishes in one Iceberg commit
// (merge, overwrite_partition, append, delete_insert), then resumed: the
// target equals the hand-written result of an uninterrupted run, each of
// the six days committed once (one snapshot a day, never two: an append
// applied twice would double its rows), and the control store's ledger
// whole. SCD2 and the other operations are killed in tst_trino_writes.
#include "core/sql/database.h"
#include "tests/testsupport.h"
#include "tests/trinosupport.h"
#include "tests/trinowarehouse.h"

#include <QJsonArray>
#include <QScopeGuard>
#include <QStringBuilder>
#include <QTest>

using namespace rw;
using namespace testsupport;
using namespace trinotest;

namespace {

// Six days from 2025-05-11. Each day d brings keys 10d+1 (sent twice: a
// retry, the later row wins), 10d+2 and 10d+3 at the source; the target
// holds 10d+1 with an old amount, 10d+2 as the source has it and 10d+4,
// which the source no longer has: every write changes every day.
QStringList sixDays(const QString &src, const QString &tgt) {
    QStringList source, target;
    for (int d = 0; d < 6; ++d) {
        const QString day = QStringLiteral("DATE '2025-05-%1'").arg(11 + d);
        const auto row = [&](int key, int amount, const char *region, int hour) {
            return QStringLiteral("(%1, %2, %3, %4, TIMESTAMP '2025-05-%5 %6:00:00')")
                .arg(10 * d + key)
                .arg(day)
                .arg(amount)
                .arg(region ? QStringLiteral("'%1'").arg(QLatin1String(region))
                            : QStringLiteral("NULL"))
                .arg(11 + d)
                .arg(hour, 2, 10, QLatin1Char('0'));
        };
        source << row(1, 20, "EU", 9) << row(1, 10, "EU", 12) << row(2, 5, "US", 10)
               << row(3, 7, nullptr, 10);
        target << row(1, 20, "EU", 9) << row(2, 5, "US", 10) << row(4, 3, "US", 8);
    }
    return {QStringLiteral("CREATE TABLE %1 %2").arg(src, kColumns),
            QStringLiteral("CREATE TABLE %1 %2").arg(tgt, kColumns),
            QStringLiteral("INSERT INTO %1 VALUES ").arg(src) + source.join(QStringLiteral(", ")),
            QStringLiteral("INSERT INTO %1 VALUES ").arg(tgt) + target.join(QStringLiteral(", "))};
}

// A six-day warehouse with a dataset per write mode and a control store of
// its own.
struct SixDays : IcebergWorkspace {
    SixDays()
        : IcebergWorkspace("csrc", "ctgt", sixDays, [](const QString &s, const QString &t) {
            return fourWritesSpec(s, t,
                                  {"merge", "overwrite_partition", "append", "delete_insert"});
        }) {}
    qint64 scalar(const QString &sql) const { return scalarOf(*db, sql); }

    // What an uninterrupted run of `mode` leaves, by hand, from the target
    // as of snapshot `start`.
    QString hand(const QString &mode, const QString &start) const {
        const QString before = tgt % QStringLiteral(" FOR VERSION AS OF ") % start;
        if (mode == QLatin1String("merge"))
            return handMerge(src, before);
        if (mode == QLatin1String("overwrite_partition"))
            return handOverwrite(src, before);
        if (mode == QLatin1String("append"))
            return handAppend(src, before);
        return handDeleteInsert(src, before);
    }
};

} // namespace

class TestTrinoCrash : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void killedAtEveryFailpoint_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("failpoint");
        QTest::addColumn<int>("committed");
        for (const char *mode : {"merge", "overwrite_partition", "append", "delete_insert"})
            for (const auto &[label, point, committed] : batchRunFailpoints())
                QTest::newRow(qPrintable(
                    QStringLiteral("%1: %2").arg(QLatin1String(mode), QLatin1String(label))))
                    << QString::fromLatin1(mode) << QString::fromLatin1(point) << committed;
    }
    // A run of the six days, a day a chunk, killed at `failpoint` with
    // `committed` days recorded done, then resumed: the target equals the
    // hand result, the six days took six commits, the ledger is whole.
    void killedAtEveryFailpoint() {
        REQUIRE_TRINO();
        QFETCH(QString, mode);
        QFETCH(QString, failpoint);
        QFETCH(int, committed);
        SixDays w;
        const QString start = w.current();
        const qint64 snapshotsBefore =
            w.scalar(QStringLiteral("SELECT count(*) FROM \"%1$snapshots\"").arg(w.tgt));
        qputenv("REWIND_CHUNK_ROWS", "1");
        const auto unset = qScopeGuard([] { qunsetenv("REWIND_CHUNK_ROWS"); });
        const Resumed resumed =
            killThenResume(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"), mode,
                                       QStringLiteral("--execute"), QStringLiteral("--json")},
                           w.args(), failpoint, committed);
        QVERIFY2(resumed.problem.isEmpty(), qPrintable(resumed.problem));
        QCOMPARE(resumed.result[QStringLiteral("partitions")].toArray().size(), 6);
        const QString hand = w.hand(mode, start);
        QCOMPARE(difference(*w.db, all(w.tgt), hand), 0LL);
        QCOMPARE(w.scalar(QStringLiteral("SELECT count(*) FROM %1").arg(w.tgt)),
                 w.scalar(QStringLiteral("SELECT count(*) FROM (%1)").arg(hand)));
        QCOMPARE(w.scalar(QStringLiteral("SELECT count(*) FROM \"%1$snapshots\"").arg(w.tgt)),
                 snapshotsBefore + 6);
        const QString ledger = ledgerProblems(controlStore(w.args()), mode, resumed.runId, 6);
        QVERIFY2(ledger.isEmpty(), qPrintable(ledger));
    }
};

QTEST_GUILESS_MAIN(TestTrinoCrash)
#include "tst_trino_crash.moc"
