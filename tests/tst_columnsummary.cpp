// A preview's per-column change summary, figure by figure against the same
// figure computed by a hand query on data whose answer is known: a column
// halved, one nulled, one shifted by a constant, one text column remapped,
// one untouched, a BLOB skipped; over an overwrite and a merge, one
// partition and two.
#include "core/batch/batch.h"
#include "core/batch/batchjson.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QTest>
#include <QTimeZone>
#include <cmath>

using namespace rw;

namespace {

QString binaryType() {
    return testsupport::onPostgres() ? QStringLiteral("BYTEA") : QStringLiteral("BLOB");
}

// d1: 100 target rows; the source halves every amount, nulls cust for ids
// 1-10, remaps note for ids 1-20 ('n' -> 'm'), leaves qty and raw alone,
// drops id 100 and adds ids 101-105. d2: 50 rows, the source adds 3600 to
// every ts_s (a time shifted an hour, in seconds) and nothing else.
QStringList warehouse(bool indexed = false) {
    const QString columns =
        QStringLiteral("(id INTEGER, dt TEXT, amount DOUBLE PRECISION, qty INTEGER, cust INTEGER, "
                       "note TEXT, ts_s INTEGER, raw %1)")
            .arg(binaryType());
    QStringList target, source;
    for (int id = 1; id <= 100; ++id) {
        target << QStringLiteral("(%1, 'd1', %2, %3, %4, 'n%1', 1000, NULL)")
                      .arg(id)
                      .arg(id * 10)
                      .arg(id % 9)
                      .arg(id % 7);
        if (id == 100)
            continue;
        source << QStringLiteral("(%1, 'd1', %2, %3, %4, '%5', 1000, NULL)")
                      .arg(id)
                      .arg(id * 5)
                      .arg(id % 9)
                      .arg(id <= 10 ? QStringLiteral("NULL") : QString::number(id % 7))
                      .arg((id <= 20 ? QStringLiteral("m") : QStringLiteral("n")) +
                           QString::number(id));
    }
    for (int id = 101; id <= 105; ++id)
        source << QStringLiteral("(%1, 'd1', 1000, 1, 1, 'new', 1000, NULL)").arg(id);
    for (int id = 1; id <= 50; ++id) {
        target << QStringLiteral("(%1, 'd2', 7, 2, 3, 'same', %2, NULL)").arg(id).arg(id * 60);
        source
            << QStringLiteral("(%1, 'd2', 7, 2, 3, 'same', %2, NULL)").arg(id).arg(id * 60 + 3600);
    }
    QStringList out = {
        QStringLiteral("CREATE TABLE src ") % columns,
        QStringLiteral("CREATE TABLE tgt ") % columns,
        QStringLiteral("INSERT INTO src VALUES ") % source.join(QStringLiteral(", ")),
        QStringLiteral("INSERT INTO tgt VALUES ") % target.join(QStringLiteral(", "))};
    // Indexed on (partition, key): the diff reads the target itself, not a copy.
    if (indexed)
        out << QStringLiteral("CREATE INDEX tgt_key ON tgt (dt, id)");
    return out;
}

QByteArray spec(const QString &write, const QString &checks = QStringLiteral("[]")) {
    return QStringLiteral(
               R"({"datasets": {"sales": {"source": "src", "target": "tgt",
                   "partition_column": "dt", "key": ["id"], "write": "%1", "checks": %2}}})")
        .arg(write, checks)
        .toUtf8();
}

const CheckResult &gate(const RunResult &r, const QString &name, const QString &partition) {
    for (const CheckResult &c : r.checks)
        if (c.name == name && c.partition == partition)
            return c;
    qFatal("no gate %s on %s", qPrintable(name), qPrintable(partition));
}

const ColumnChange &column(const std::vector<ColumnChange> &columns, const QString &name) {
    for (const ColumnChange &c : columns)
        if (c.column == name)
            return c;
    qFatal("no column %s in the summary", qPrintable(name));
}

// What a user checks by hand: the same figure by its own query.
double hand(const Database &db, const QString &sql) {
    auto v = db.scalar(sql);
    if (!v)
        qFatal("%s: %s", qPrintable(sql), qPrintable(v.error().message));
    return v->toDouble();
}

// Matched rows of a partition: the source and the target joined on the key.
QString matched(const QString &dt, const QString &where) {
    return QStringLiteral("FROM src AS s JOIN tgt AS t ON s.id = t.id AND s.dt = t.dt WHERE "
                          "s.dt = '%1' AND (%2)")
        .arg(dt, where);
}

RunResult previewOf(const testsupport::WorkspaceFixture &f, const QStringList &partitions) {
    BatchOptions o;
    o.scope.partitions = partitions;
    auto r = preview(f.db(), f.dataset(), o);
    if (!r)
        qFatal("preview: %s", qPrintable(r.error().message));
    return *r;
}

} // namespace

class TestColumnSummary : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() {
        if (!testsupport::engineUnavailable().isEmpty())
            QSKIP(qPrintable(testsupport::engineUnavailable()));
    }

    // Every figure the columns of the bad day d1 get on an overwrite.
    void overwriteMatchesHandQueries_data() {
        QTest::addColumn<bool>("indexed");
        QTest::newRow("target copied") << false;
        QTest::newRow("target indexed") << true;
    }
    void overwriteMatchesHandQueries() {
        QFETCH(bool, indexed);
        testsupport::WorkspaceFixture f(warehouse(indexed),
                                        spec(QStringLiteral("overwrite_partition")));
        const RunResult r = previewOf(f, {QStringLiteral("d1")});
        QCOMPARE(r.partitions.size(), std::size_t(1));
        const PartitionResult &p = r.partitions.front();
        const Database &db = f.db();
        QCOMPARE(p.inserted, 5);
        QCOMPARE(p.deleted, 1);

        const ColumnChange &amount = column(p.columns, QStringLiteral("amount"));
        QCOMPARE(amount.kind, ColumnKind::Number);
        QCOMPARE(amount.matched,
                 qint64(hand(db, QStringLiteral("SELECT COUNT(*) ") %
                                     matched(QStringLiteral("d1"), QStringLiteral("1 = 1")))));
        QCOMPARE(amount.changed,
                 qint64(hand(db, QStringLiteral("SELECT COUNT(*) ") %
                                     matched(QStringLiteral("d1"),
                                             QStringLiteral("s.amount <> t.amount")))));
        QCOMPARE(amount.changed, 99);
        QCOMPARE(amount.changedPct(), 100.0);
        // Ids 21-99 changed their amount alone (1-20 their note too).
        QCOMPARE(amount.onlyThisChanged, 79);
        QCOMPARE(*amount.sumBefore,
                 hand(db, QStringLiteral("SELECT SUM(amount) FROM tgt WHERE dt = 'd1'")));
        QCOMPARE(*amount.sumAfter,
                 hand(db, QStringLiteral("SELECT SUM(amount) FROM src WHERE dt = 'd1'")));
        QCOMPARE(*amount.minAfter,
                 hand(db, QStringLiteral("SELECT MIN(amount) FROM src WHERE dt = 'd1'")));
        QCOMPARE(*amount.maxBefore,
                 hand(db, QStringLiteral("SELECT MAX(amount) FROM tgt WHERE dt = 'd1'")));
        QCOMPARE(*amount.maxAfter,
                 hand(db, QStringLiteral("SELECT MAX(amount) FROM src WHERE dt = 'd1'")));
        // The change in the sum, split: 5 rows of 1000 added, id 100's
        // 1000 gone, and the halving.
        QCOMPARE(amount.sumInserted, 5000.0);
        QCOMPARE(amount.sumDeleted, 1000.0);
        QCOMPARE(amount.sumUpdated,
                 hand(db, QStringLiteral("SELECT SUM(s.amount - t.amount) ") %
                              matched(QStringLiteral("d1"), QStringLiteral("1 = 1"))));
        QCOMPARE(*amount.sumBefore + amount.sumInserted - amount.sumDeleted + amount.sumUpdated,
                 *amount.sumAfter);
        QCOMPARE(amount.decreases, 99);
        QCOMPARE(amount.increases, 0);
        QCOMPARE(*amount.largestChange,
                 hand(db, QStringLiteral("SELECT MAX(t.amount - s.amount) ") %
                              matched(QStringLiteral("d1"), QStringLiteral("1 = 1"))));
        QVERIFY(amount.ratio());
        QCOMPARE(*amount.ratio(), 0.5);
        QVERIFY(!amount.offset()); // halving is no one offset

        const ColumnChange &cust = column(p.columns, QStringLiteral("cust"));
        QCOMPARE(cust.changed, 10);
        QCOMPARE(cust.toNull, qint64(hand(db, QStringLiteral("SELECT COUNT(*) ") %
                                                  matched(QStringLiteral("d1"),
                                                          QStringLiteral("s.cust IS NULL AND "
                                                                         "t.cust IS NOT NULL")))));
        QCOMPARE(cust.toNull, 10);
        QCOMPARE(cust.fromNull, 0);
        QCOMPARE(cust.onlyThisChanged, 0); // each also halved its amount
        QCOMPARE(cust.nullsBefore, 0);
        QCOMPARE(
            cust.nullsAfter,
            qint64(hand(
                db, QStringLiteral("SELECT COUNT(*) FROM src WHERE dt = 'd1' AND cust IS NULL"))));
        QVERIFY(!cust.ratio()); // a value to NULL is no ratio

        const ColumnChange &note = column(p.columns, QStringLiteral("note"));
        QCOMPARE(note.kind, ColumnKind::Other);
        QCOMPARE(note.changed, qint64(hand(db, QStringLiteral("SELECT COUNT(*) ") %
                                                   matched(QStringLiteral("d1"),
                                                           QStringLiteral("s.note <> t.note")))));
        QCOMPARE(note.changed, 20);
        QCOMPARE(note.changedPct(), 100.0 * 20 / 99);
        // An overwrite deleting a row: the distinct values after are the
        // staged rows'.
        QCOMPARE(note.detail.distinctBefore.value_or(-1),
                 qint64(hand(
                     db, QStringLiteral("SELECT COUNT(DISTINCT note) FROM tgt WHERE dt = 'd1'"))));
        QCOMPARE(note.detail.distinctAfter.value_or(-1),
                 qint64(hand(
                     db, QStringLiteral("SELECT COUNT(DISTINCT note) FROM src WHERE dt = 'd1'"))));

        const ColumnChange &qty = column(p.columns, QStringLiteral("qty")); // untouched
        QCOMPARE(qty.changed, 0);
        QCOMPARE(*qty.sumBefore,
                 hand(db, QStringLiteral("SELECT SUM(qty) FROM tgt WHERE dt = 'd1'")));
        QCOMPARE(*qty.sumAfter,
                 hand(db, QStringLiteral("SELECT SUM(qty) FROM src WHERE dt = 'd1'")));

        const ColumnChange &raw = column(p.columns, QStringLiteral("raw"));
        QCOMPARE(raw.kind, ColumnKind::Skipped);
        QCOMPARE(raw.type.toUpper(), binaryType());
    }

    // A merge keeps the target's rows no staged row matches: its figures
    // after are those of the target as the run would leave it.
    void mergeMatchesHandQueries_data() {
        QTest::addColumn<bool>("indexed");
        QTest::newRow("target copied") << false;
        QTest::newRow("target indexed") << true;
    }
    void mergeMatchesHandQueries() {
        QFETCH(bool, indexed);
        testsupport::WorkspaceFixture f(warehouse(indexed), spec(QStringLiteral("merge")));
        const RunResult r = previewOf(f, {QStringLiteral("d1")});
        const PartitionResult &p = r.partitions.front();
        const Database &db = f.db();
        QCOMPARE(p.deleted, 0);
        const QString after = QStringLiteral(
            "(SELECT amount, cust, note FROM src WHERE dt = 'd1' UNION ALL SELECT amount, cust, "
            "note FROM tgt AS t WHERE dt = 'd1' AND NOT EXISTS (SELECT 1 FROM src AS s WHERE s.id "
            "= t.id AND s.dt = t.dt)) AS a");
        // The rows it keeps (id 100) with those it puts in.
        const ColumnChange &note = column(p.columns, QStringLiteral("note"));
        QCOMPARE(note.detail.distinctAfter.value_or(-1),
                 qint64(hand(db, QStringLiteral("SELECT COUNT(DISTINCT note) FROM ") % after)));
        QCOMPARE(note.detail.distinctBefore.value_or(-1),
                 qint64(hand(
                     db, QStringLiteral("SELECT COUNT(DISTINCT note) FROM tgt WHERE dt = 'd1'"))));
        const ColumnChange &amount = column(p.columns, QStringLiteral("amount"));
        QCOMPARE(*amount.sumAfter, hand(db, QStringLiteral("SELECT SUM(amount) FROM ") % after));
        QCOMPARE(*amount.maxAfter, hand(db, QStringLiteral("SELECT MAX(amount) FROM ") % after));
        QCOMPARE(*amount.maxAfter, 1000.0); // id 100, kept, and the new rows
        QCOMPARE(*amount.minAfter, hand(db, QStringLiteral("SELECT MIN(amount) FROM ") % after));
        QCOMPARE(amount.sumDeleted, 0.0);
        QCOMPARE(*amount.sumBefore + amount.sumInserted + amount.sumUpdated, *amount.sumAfter);
        const ColumnChange &cust = column(p.columns, QStringLiteral("cust"));
        QCOMPARE(cust.nullsAfter, qint64(hand(db, QStringLiteral("SELECT COUNT(*) FROM ") % after %
                                                      QStringLiteral(" WHERE cust IS NULL"))));
    }

    // A merge whose changes lower the target's maximum: the rows it keeps
    // give the maximum after, read apart for a change or two, in the same
    // read as the figures before for many (1% of the rows or more).
    void keptExtremesSparseAndDense_data() {
        QTest::addColumn<int>("changedFrom");
        QTest::newRow("one row of 200 changed") << 200;
        QTest::newRow("11 rows of 200 changed") << 190;
    }
    void keptExtremesSparseAndDense() {
        QFETCH(int, changedFrom);
        QStringList target, source;
        for (int id = 1; id <= 200; ++id) {
            target << QStringLiteral("(%1, 'd1', %1)").arg(id);
            source << QStringLiteral("(%1, 'd1', %2)").arg(id).arg(id >= changedFrom ? -id : id);
        }
        testsupport::WorkspaceFixture f(
            {QStringLiteral("CREATE TABLE src (id INTEGER, dt TEXT, amount INTEGER)"),
             QStringLiteral("CREATE TABLE tgt (id INTEGER, dt TEXT, amount INTEGER)"),
             QStringLiteral("INSERT INTO src VALUES ") % source.join(QStringLiteral(", ")),
             QStringLiteral("INSERT INTO tgt VALUES ") % target.join(QStringLiteral(", "))},
            spec(QStringLiteral("merge")));
        const RunResult r = previewOf(f, {QStringLiteral("d1")});
        const ColumnChange &amount = column(r.partitions.front().columns, QStringLiteral("amount"));
        QCOMPARE(amount.changed, qint64(201 - changedFrom));
        QCOMPARE(*amount.maxAfter, hand(f.db(), QStringLiteral("SELECT MAX(amount) FROM src")));
        QCOMPARE(*amount.maxAfter, double(changedFrom - 1));
        QCOMPARE(*amount.minAfter, hand(f.db(), QStringLiteral("SELECT MIN(amount) FROM src")));
        QCOMPARE(*amount.minBefore, 1.0);
    }

    // A NULL partition beside another, its text changed: its distinct values
    // after count the values its kept rows share with those it puts in once.
    void distinctValuesOfANullPartition() {
        testsupport::WorkspaceFixture f(
            {QStringLiteral("CREATE TABLE src (id INTEGER, dt TEXT, region TEXT)"),
             QStringLiteral("CREATE TABLE tgt (id INTEGER, dt TEXT, region TEXT)"),
             QStringLiteral("INSERT INTO tgt VALUES (1, NULL, 'a'), (2, NULL, 'b'), (3, NULL, "
                            "'c'), (4, 'd1', 'a'), (5, 'd1', 'b')"),
             // id 1 becomes b (which id 2 keeps), id 4 becomes c.
             QStringLiteral("INSERT INTO src VALUES (1, NULL, 'b'), (2, NULL, 'b'), (3, NULL, "
                            "'c'), (4, 'd1', 'c'), (5, 'd1', 'b')")},
            spec(QStringLiteral("merge")));
        BatchOptions o;
        auto r = preview(f.db(), f.dataset(), o);
        QVERIFY2(r.has_value(), r ? "" : qPrintable(r.error().message));
        QCOMPARE(r->partitions.size(), std::size_t(2));
        for (const PartitionResult &p : r->partitions) {
            const QString where = p.partition ? QStringLiteral("dt = '%1'").arg(*p.partition)
                                              : QStringLiteral("dt IS NULL");
            const ColumnChange &c = column(p.columns, QStringLiteral("region"));
            QCOMPARE(c.changed, 1);
            QCOMPARE(c.detail.distinctBefore.value_or(-1),
                     qint64(hand(f.db(), QStringLiteral("SELECT COUNT(DISTINCT region) FROM tgt "
                                                        "WHERE ") %
                                             where)));
            QCOMPARE(c.detail.distinctAfter.value_or(-1),
                     qint64(hand(f.db(), QStringLiteral("SELECT COUNT(DISTINCT region) FROM src "
                                                        "WHERE ") %
                                             where)));
        }
    }

    // A constant shift is the one offset; totals over two partitions are the
    // partitions' figures added.
    void offsetAndTotals() {
        testsupport::WorkspaceFixture f(warehouse(), spec(QStringLiteral("merge")));
        const RunResult r = previewOf(f, {QStringLiteral("d1"), QStringLiteral("d2")});
        QCOMPARE(r.partitions.size(), std::size_t(2));
        const PartitionResult *d2 = nullptr;
        for (const PartitionResult &p : r.partitions)
            if (p.partition == QStringLiteral("d2"))
                d2 = &p;
        QVERIFY(d2);
        const ColumnChange &ts = column(d2->columns, QStringLiteral("ts_s"));
        QCOMPARE(ts.changed, 50);
        QCOMPARE(ts.onlyThisChanged, 50);
        QVERIFY(ts.offset());
        QCOMPARE(*ts.offset(), 3600.0);
        QCOMPARE(ts.increases, 50);
        QCOMPARE(column(d2->columns, QStringLiteral("amount")).changed, 0);

        const PartitionResult t = r.totals();
        const Database &db = f.db();
        QCOMPARE(
            column(t.columns, QStringLiteral("ts_s")).changed,
            qint64(hand(db, QStringLiteral("SELECT COUNT(*) FROM src AS s JOIN tgt AS t ON "
                                           "s.id = t.id AND s.dt = t.dt WHERE s.ts_s <> t.ts_s"))));
        QCOMPARE(*column(t.columns, QStringLiteral("amount")).sumBefore,
                 hand(db, QStringLiteral("SELECT SUM(amount) FROM tgt")));
        // d1 changed no ts_s: over both, still the one offset; and amount's
        // one ratio of d1 stands over both (d2 changed no amount).
        QCOMPARE(column(t.columns, QStringLiteral("ts_s")).offset().value_or(0), 3600.0);
        QCOMPARE(column(t.columns, QStringLiteral("amount")).ratio().value_or(0), 0.5);
    }

    // A staged NULL key matches the target's NULL key (null-safe, as every
    // diff of Rewind): an update of its amount, not an insert.
    void nullKeysMatchTheirRows() {
        testsupport::WorkspaceFixture f(
            {QStringLiteral(
                 "CREATE TABLE src (id INTEGER, sub TEXT, dt TEXT, amount DOUBLE PRECISION)"),
             QStringLiteral(
                 "CREATE TABLE tgt (id INTEGER, sub TEXT, dt TEXT, amount DOUBLE PRECISION)"),
             QStringLiteral("INSERT INTO src VALUES (1, 'a', 'd1', 10), (2, NULL, 'd1', 40), (3, "
                            "'c', 'd1', 5)"),
             QStringLiteral("INSERT INTO tgt VALUES (1, 'a', 'd1', 10), (2, NULL, 'd1', 20)")},
            QByteArrayLiteral(R"({"datasets": {"sales": {"source": "src", "target": "tgt",
                "partition_column": "dt", "key": ["id", "sub"], "write": "merge"}}})"));
        const RunResult r = previewOf(f, {QStringLiteral("d1")});
        const PartitionResult &p = r.partitions.front();
        QCOMPARE(p.inserted, 1);
        QCOMPARE(p.updated, 1);
        QCOMPARE(p.unchanged, 1);
        const ColumnChange &amount = column(p.columns, QStringLiteral("amount"));
        QCOMPARE(amount.changed, 1);
        QCOMPARE(amount.matched, 2);
        QCOMPARE(*amount.sumAfter, 55.0);
        QCOMPARE(amount.sumUpdated, 20.0);
        QCOMPARE(amount.sumInserted, 5.0);
        QCOMPARE(*amount.ratio(), 2.0);
    }

    // Gates on the size of a change, in a preview and in the run that
    // publishes: d1 (every amount halved, 10 customers nulled, 20 notes
    // remapped) fails those on amount and cust; d2 (a time shifted) passes.
    void changeSizeGates() {
        const QString checks = QStringLiteral(
            R"([{"type": "unchanged", "columns": ["qty"]},
                {"type": "unchanged", "name": "customers kept", "columns": ["cust", "qty"]},
                {"type": "max_changed", "column": "note", "max_pct": 25},
                {"type": "max_changed", "column": "amount", "max_pct": 50},
                {"type": "delta", "column": "amount", "max_pct": 1}])");
        testsupport::WorkspaceFixture f(warehouse(), spec(QStringLiteral("merge"), checks));
        const RunResult r = previewOf(f, {QStringLiteral("d1"), QStringLiteral("d2")});
        const QString d1 = QStringLiteral("d1"), d2 = QStringLiteral("d2");
        QVERIFY(gate(r, QStringLiteral("unchanged"), d1).passed);
        const CheckResult &kept = gate(r, QStringLiteral("customers kept"), d1);
        QVERIFY(!kept.passed);
        QVERIFY2(kept.detail.contains(QStringLiteral("cust in 10 rows")), qPrintable(kept.detail));
        QVERIFY(gate(r, QStringLiteral("customers kept"), d2).passed);
        const CheckResult &note = gate(r, QStringLiteral("max_changed:note"), d1);
        QVERIFY2(note.passed, qPrintable(note.detail)); // 20 of 99: 20.2%
        QVERIFY(note.detail.contains(QStringLiteral("20 of 99")));
        QVERIFY(!gate(r, QStringLiteral("max_changed:amount"), d1).passed);
        QVERIFY(gate(r, QStringLiteral("max_changed:amount"), d2).passed);
        // d1's total moves from 50,500 to 24,750 + 5,000 + 1,000 kept.
        const CheckResult &delta = gate(r, QStringLiteral("delta:amount"), d1);
        QVERIFY(!delta.passed);
        QVERIFY2(delta.detail.contains(QStringLiteral("50,500 -> 30,750")),
                 qPrintable(delta.detail));
        QVERIFY(gate(r, QStringLiteral("delta:amount"), d2).passed);

        // The run publishes d2 and leaves d1 as it was.
        const Database &db = f.db();
        const double d1Before =
            hand(db, QStringLiteral("SELECT SUM(amount) FROM tgt WHERE dt = 'd1'"));
        BatchOptions o;
        o.execute = true;
        o.scope.partitions = {d1, d2};
        auto run = rw::run(db, f.dataset(), o);
        QVERIFY2(run.has_value(), qPrintable(run ? QString() : run.error().message));
        QCOMPARE(run->status, RunStatus::CheckFailed);
        QCOMPARE(hand(db, QStringLiteral("SELECT SUM(amount) FROM tgt WHERE dt = 'd1'")), d1Before);
        QCOMPARE(
            hand(db, QStringLiteral(
                         "SELECT COUNT(*) FROM tgt WHERE dt = 'd2' AND ts_s = id * 60 + 3600")),
            50.0);
    }

    // A gate spec that cannot hold is refused before anything runs, naming
    // the dataset, the gate and the field.
    void badGateSpecsAreRefused_data() {
        QTest::addColumn<QString>("write");
        QTest::addColumn<QString>("checks");
        QTest::addColumn<QString>("message");
        QTest::newRow("delta of text")
            << QStringLiteral("merge")
            << QStringLiteral(R"([{"type": "delta", "column": "note", "max_pct": 1}])")
            << QStringLiteral("\"note\" is %1: a delta compares the column's totals")
                   .arg(testsupport::onPostgres() ? QStringLiteral("text")
                                                  : QStringLiteral("TEXT"));
        QTest::newRow("unknown column")
            << QStringLiteral("merge")
            << QStringLiteral(R"([{"type": "max_changed", "column": "amt", "max_pct": 5}])")
            << QStringLiteral("checks[0] \"column\": column \"amt\" is not in");
        QTest::newRow("no max_pct")
            << QStringLiteral("merge")
            << QStringLiteral(R"([{"type": "max_changed", "column": "amount"}])")
            << QStringLiteral("\"max_pct\": is required");
        QTest::newRow("a share over 100")
            << QStringLiteral("merge")
            << QStringLiteral(R"([{"type": "max_changed", "column": "amount", "max_pct": 150}])")
            << QStringLiteral("\"max_pct\": is a share of the matched rows");
        QTest::newRow("the key") << QStringLiteral("merge")
                                 << QStringLiteral(R"([{"type": "unchanged", "columns": ["id"]}])")
                                 << QStringLiteral("\"id\" is part of the key");
        QTest::newRow("no key") << QStringLiteral("overwrite_partition without a key")
                                << QStringLiteral(R"([{"type": "unchanged", "columns": ["qty"]}])")
                                << QStringLiteral("needs the dataset's \"key\"");
        QTest::newRow("append") << QStringLiteral("append")
                                << QStringLiteral(R"([{"type": "unchanged", "columns": ["qty"]}])")
                                << QStringLiteral(
                                       "only for write \"merge\" or \"overwrite_partition\"");
    }
    void badGateSpecsAreRefused() {
        QFETCH(QString, write);
        QFETCH(QString, checks);
        QFETCH(QString, message);
        // A workspace with a good spec, then the bad one in its place (some
        // are refused as the spec loads, some as the dataset is checked).
        testsupport::WorkspaceFixture f(warehouse(), spec(QStringLiteral("merge")));
        const QString before =
            QString::number(hand(f.db(), QStringLiteral("SELECT SUM(amount) FROM tgt")));
        QFile file(f.specPath);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QByteArray text = spec(write.section(u' ', 0, 0), checks);
        if (write.endsWith(QLatin1String("without a key")))
            text.replace(R"("key": ["id"], )", "");
        file.write(text);
        file.close();
        const auto r = f.cli({QStringLiteral("run"), QStringLiteral("--dataset"),
                              QStringLiteral("sales"), QStringLiteral("--execute")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("dataset \"sales\"")), qPrintable(r.err));
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QCOMPARE(QString::number(hand(f.db(), QStringLiteral("SELECT SUM(amount) FROM tgt"))),
                 before);
    }

    // The demo's bad day: its fix (amounts halved) passes the demo's
    // unchanged gate; a wrong fix that also rewrites customer_id fails it
    // and publishes nothing.
    void theDemosWrongFixFailsItsGate() {
        QTemporaryDir dir;
        const testsupport::Demo demo = testsupport::buildDemo(dir, QStringLiteral("gates"));
        const QString badDay = QStringLiteral("2025-05-14");
        const QStringList args = {QStringLiteral("--db"), demo.db, QStringLiteral("--spec"),
                                  demo.spec};
        // `command` of the bad day of fact_sales.
        const auto onBadDay = [&](const QString &command, const QString &flag) {
            return testsupport::runCli(QStringList{command, QStringLiteral("--dataset"),
                                                   QStringLiteral("fact_sales"),
                                                   QStringLiteral("--partition"), badDay, flag} +
                                       args);
        };
        const auto right = onBadDay(QStringLiteral("preview"), QStringLiteral("--json"));
        QCOMPARE(right.exitCode, 0);
        QVERIFY2(right.out.contains(QStringLiteral("no matched row changes customer_id")),
                 qPrintable(right.out));

        QFile file(demo.spec);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
        file.close();
        QJsonObject datasets = root.value(QStringLiteral("datasets")).toObject();
        QJsonObject sales = datasets.value(QStringLiteral("fact_sales")).toObject();
        sales.insert(
            QStringLiteral("transform"),
            QStringLiteral("SELECT order_id, item_id, dt, customer_id + 1 AS customer_id, amount, "
                           "updated_at FROM raw_sales"));
        datasets.insert(QStringLiteral("fact_sales"), sales);
        root.insert(QStringLiteral("datasets"), datasets);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(QJsonDocument(root).toJson());
        file.close();
        auto ws = openWorkspace(demo.db, demo.spec);
        QVERIFY(ws.has_value());
        const auto customers = [&] {
            return hand(ws->db,
                        QStringLiteral("SELECT SUM(customer_id) FROM fact_sales WHERE dt = '%1'")
                            .arg(badDay));
        };
        const double before = customers();
        const auto wrong = onBadDay(QStringLiteral("run"), QStringLiteral("--execute"));
        QCOMPARE(wrong.exitCode, 3);
        QVERIFY2(wrong.out.contains(QStringLiteral("unchanged: changes customer_id in")),
                 qPrintable(wrong.out));
        QCOMPARE(customers(), before);
    }

    // Figures that do not add up over partitions, against hand queries: the
    // most common before -> after pairs of a text column, its distinct
    // changed values, a timestamp's most common shift, example keys; per
    // partition and over both (whose top pairs no partition has alone).
    void pairsShiftsAndExamples() {
        // d1 (ids 1-40): 6 EU -> EMEA, 5 US -> AMER; ts +1 h on ids 1-30,
        // -60 s on 31-35. d2 (ids 41-80): 4 US -> AMER, 7 APAC -> ASIA,
        // one EU -> NULL; no ts changed.
        const QDateTime base(QDate(2025, 5, 14), QTime(10, 0), QTimeZone::utc());
        const auto at = [&](qint64 seconds) {
            return base.addSecs(seconds).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        };
        QStringList target, source;
        for (int id = 1; id <= 80; ++id) {
            const QString dt = id <= 40 ? QStringLiteral("d1") : QStringLiteral("d2");
            QString before = QStringLiteral("'X'"), after = QStringLiteral("'X'");
            const auto pair = [&](const char *b, const char *a) {
                before = QStringLiteral("'%1'").arg(QLatin1String(b));
                after = a ? QStringLiteral("'%1'").arg(QLatin1String(a)) : QStringLiteral("NULL");
            };
            if (id <= 6)
                pair("EU", "EMEA");
            else if (id <= 11)
                pair("US", "AMER");
            else if (id >= 41 && id <= 44)
                pair("US", "AMER");
            else if (id >= 45 && id <= 51)
                pair("APAC", "ASIA");
            else if (id == 52)
                pair("EU", nullptr);
            const qint64 shift = id <= 30 ? 3600 : id <= 35 ? -60 : 0;
            target << QStringLiteral("(%1, '%2', %3, '%4')").arg(id).arg(dt, before, at(id * 60));
            source << QStringLiteral("(%1, '%2', %3, '%4')")
                          .arg(id)
                          .arg(dt, after, at(id * 60 + shift));
        }
        const QString columns = QStringLiteral("(id INTEGER, dt TEXT, region TEXT, ts TIMESTAMP)");
        testsupport::WorkspaceFixture f(
            {QStringLiteral("CREATE TABLE src ") % columns,
             QStringLiteral("CREATE TABLE tgt ") % columns,
             QStringLiteral("INSERT INTO src VALUES ") % source.join(QStringLiteral(", ")),
             QStringLiteral("INSERT INTO tgt VALUES ") % target.join(QStringLiteral(", "))},
            spec(QStringLiteral("merge")));
        const Database &db = f.db();
        const RunResult r = previewOf(f, {QStringLiteral("d1"), QStringLiteral("d2")});
        QCOMPARE(r.partitions.size(), std::size_t(2));

        // The hand query's five most common pairs of region, in `where`.
        const auto handPairs = [&](const QString &where) {
            auto q = db.exec(
                QStringLiteral("SELECT t.region, s.region, COUNT(*) FROM src AS s JOIN tgt AS t "
                               "ON s.id = t.id AND s.dt = t.dt WHERE (%1) AND (s.region <> "
                               "t.region OR s.region IS NULL) GROUP BY t.region, s.region "
                               "ORDER BY COUNT(*) DESC, t.region LIMIT 5")
                    .arg(where));
            if (!q)
                qFatal("%s", qPrintable(q.error().message));
            QStringList out;
            while (q->next())
                out << QStringLiteral("%1 -> %2: %3")
                           .arg(q->value(0).isNull() ? QStringLiteral("NULL")
                                                     : q->value(0).toString(),
                                q->value(1).isNull() ? QStringLiteral("NULL")
                                                     : q->value(1).toString())
                           .arg(q->value(2).toLongLong());
            return out;
        };
        const auto pairsOf = [](const ColumnChange &c) {
            QStringList out;
            for (const ValuePair &p : c.detail.pairs)
                out << QStringLiteral("%1 -> %2: %3")
                           .arg(p.before.value_or(QStringLiteral("NULL")),
                                p.after.value_or(QStringLiteral("NULL")))
                           .arg(p.rows);
            return out;
        };
        const PartitionResult t = r.totals();
        const ColumnChange &region = column(t.columns, QStringLiteral("region"));
        QCOMPARE(region.changed, 23);
        QCOMPARE(pairsOf(region), handPairs(QStringLiteral("1 = 1")));
        QCOMPARE(pairsOf(region).value(0), QStringLiteral("US -> AMER: 9")); // 5 + 4
        for (const PartitionResult &p : r.partitions)
            QCOMPARE(pairsOf(column(p.columns, QStringLiteral("region"))),
                     handPairs(QStringLiteral("s.dt = '%1'").arg(*p.partition)));
        // Distinct values of each partition's region, before and after (the
        // rows it keeps share X with the rows it puts in): by hand, the
        // target's and the source's (a merge matching every row).
        for (const PartitionResult &p : r.partitions) {
            const ColumnChange &c = column(p.columns, QStringLiteral("region"));
            const auto distinct = [&](const QString &table) {
                return qint64(hand(db, QStringLiteral("SELECT COUNT(DISTINCT region) FROM %1 "
                                                      "WHERE dt = '%2'")
                                           .arg(table, *p.partition)));
            };
            QCOMPARE(c.detail.distinctBefore.value_or(-1), distinct(QStringLiteral("tgt")));
            QCOMPARE(c.detail.distinctAfter.value_or(-1), distinct(QStringLiteral("src")));
        }
        QCOMPARE(column(r.partitions.back().columns, QStringLiteral("region"))
                     .detail.distinctBefore.value_or(-1),
                 4); // US, APAC, EU, X
        QCOMPARE(column(r.partitions.back().columns, QStringLiteral("region"))
                     .detail.distinctAfter.value_or(-1),
                 3);                            // AMER, ASIA, X (and a NULL)
        QVERIFY(!region.detail.distinctBefore); // no sum of two partitions'
        QCOMPARE(changeShape(region), QStringLiteral("US -> AMER on 9 rows"));

        const ColumnChange &ts = column(t.columns, QStringLiteral("ts"));
        QCOMPARE(ts.kind, ColumnKind::Time);
        QCOMPARE(ts.changed, 35);
        const QString shift = testsupport::onPostgres()
                                  ? QStringLiteral("EXTRACT(EPOCH FROM s.ts - t.ts)")
                                  : QStringLiteral("CAST(ROUND((julianday(s.ts) - "
                                                   "julianday(t.ts)) * 86400) AS INTEGER)");
        const QString common =
            QStringLiteral("SELECT %1 FROM src AS s JOIN tgt AS t ON s.id = t.id WHERE s.ts <> "
                           "t.ts GROUP BY %1 ORDER BY COUNT(*) DESC LIMIT 1")
                .arg(shift);
        QCOMPARE(ts.detail.shift.value_or(0), hand(db, common));
        QCOMPARE(ts.detail.shift.value_or(0), 3600.0);
        QCOMPARE(ts.detail.shiftRows, 30);
        QCOMPARE(changeShape(ts), QStringLiteral("+3,600 s on 30 rows"));
        QCOMPARE(column(r.partitions.back().columns, QStringLiteral("ts")).detail.shift,
                 std::nullopt); // d2 shifted none

        // Three keys of rows whose region changed: per partition the first
        // in key order, over both any three.
        const auto ids = [](const ColumnChange &c) {
            QList<int> out;
            for (const auto &key : c.detail.examples)
                out << key.at(0).second.toInt();
            return out;
        };
        const QList<int> changedRegion = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 41,
                                          42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52};
        const QList<int> anyThree = ids(region);
        QCOMPARE(QSet<int>(anyThree.cbegin(), anyThree.cend()).size(), 3);
        for (const int id : anyThree)
            QVERIFY2(changedRegion.contains(id), qPrintable(QString::number(id)));
        QCOMPARE(region.detail.examples.at(0).at(0).first, QStringLiteral("id"));
        QCOMPARE(ids(column(r.partitions.front().columns, QStringLiteral("region"))),
                 (QList<int>{1, 2, 3}));
        QCOMPARE(ids(column(r.partitions.back().columns, QStringLiteral("region"))),
                 (QList<int>{41, 42, 43}));

        // The plan keeps the totals' summary, and a run of the plan carries
        // it: what the run was locked to.
        BatchOptions o;
        o.planId = r.planId;
        o.execute = true;
        auto run = rw::run(db, f.dataset(), o);
        QVERIFY2(run.has_value(), run ? "" : qPrintable(run.error().message));
        QCOMPARE(run->status, RunStatus::Succeeded);
        QCOMPARE(pairsOf(column(run->planColumns, QStringLiteral("region"))), pairsOf(region));
        QCOMPARE(column(run->planColumns, QStringLiteral("ts")).detail.shift.value_or(0), 3600.0);
        const QJsonObject json =
            QJsonDocument::fromJson(QByteArray::fromStdString(toJson(*run).dump())).object();
        QVERIFY(json.value(QStringLiteral("plan_columns")).isArray());
        auto report =
            f.cli({QStringLiteral("run-report"), QStringLiteral("--run"), run->runId.toString()});
        QCOMPARE(report.exitCode, 0);
        QVERIFY2(report.out.contains(QStringLiteral("| region | 23 |")), qPrintable(report.out));
        QVERIFY2(report.out.contains(QStringLiteral("US -> AMER on 9 rows")),
                 qPrintable(report.out));
    }

    // What the command line shows: the JSON's "columns" in each partition
    // and the totals, and the text's table.
    void cliShowsTheColumns() {
        testsupport::WorkspaceFixture f(warehouse(), spec(QStringLiteral("overwrite_partition")));
        const auto json =
            f.cli({QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("sales"),
                   QStringLiteral("--partition"), QStringLiteral("d1"), QStringLiteral("--json")});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        const QJsonArray totals =
            o.value(QStringLiteral("totals")).toObject().value(QStringLiteral("columns")).toArray();
        QJsonObject amount;
        for (const auto &c : totals)
            if (c.toObject().value(QStringLiteral("column")).toString() == QStringLiteral("amount"))
                amount = c.toObject();
        QCOMPARE(amount.value(QStringLiteral("changed")).toInt(), 99);
        QCOMPARE(amount.value(QStringLiteral("ratio")).toDouble(), 0.5);
        QCOMPARE(amount.value(QStringLiteral("sum_after")).toDouble(),
                 hand(f.db(), QStringLiteral("SELECT SUM(amount) FROM src WHERE dt = 'd1'")));
        QVERIFY(o.value(QStringLiteral("partitions"))
                    .toArray()
                    .at(0)
                    .toObject()
                    .value(QStringLiteral("columns"))
                    .isArray());

        const auto text =
            f.cli({QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("sales"),
                   QStringLiteral("--partition"), QStringLiteral("d1")});
        QCOMPARE(text.exitCode, 0);
        static const QRegularExpression amountLine(
            QStringLiteral("\\namount +99 +100\\.00 +79 +0 -> 0 +50,500 -> 29,750 +x0\\.5\\n"));
        QVERIFY2(amountLine.match(text.out).hasMatch(), qPrintable(text.out));
    }
};

QTEST_GUILESS_MAIN(TestColumnSummary)
#include "tst_columnsummary.moc"
