// The demo generator: determinism, the staged incidents as an operator sees
// them, the orders stream, and refusals. Expectations are plain SQL written
// here, independent of core.
#include "demo.h"
#include "partitions.h"
#include "testsupport.h"
#include "workspace.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>

using namespace rw;

namespace {

QString message(const Error &e) { return e.message; }

// A digest of every user table (sorted by name, rows sorted by every column)
// plus the control rows the demo writes that carry no wall-clock time.
QByteArray contentDigest(const QString &path)
{
    auto db = Database::open(path);
    if (!db)
        qFatal("cannot open %s", qPrintable(path));
    QStringList tables;
    auto names = db->exec(QStringLiteral("SELECT name FROM sqlite_schema WHERE type = 'table' "
                                         "AND name NOT LIKE 'sqlite%' AND name NOT LIKE 'rewind%' ORDER BY name"));
    while (names->next())
        tables << names->value(0).toString();
    tables << QStringLiteral("rewind_offsets") << QStringLiteral("rewind_partition_state") << QStringLiteral("rewind_runs");

    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const QString &table : tables) {
        hash.addData(table.toUtf8());
        auto cols = db->scalar(QStringLiteral("SELECT COUNT(*) FROM pragma_table_info(?)"), {table});
        const int n = cols->toInt();
        QStringList order;
        for (int i = 1; i <= n; ++i)
            order << QString::number(i);
        auto rows = db->exec(QStringLiteral("SELECT * FROM \"") + table + QStringLiteral("\" ORDER BY ") + order.join(u','));
        if (!rows)
            qFatal("%s", qPrintable(rows.error().message));
        while (rows->next()) {
            for (int i = 0; i < n; ++i) {
                const QVariant v = rows->value(i);
                hash.addData(QByteArray::number(v.isNull() ? -1 : v.typeId()));
                hash.addData(v.toString().toUtf8());
                hash.addData("\x1f");
            }
            hash.addData("\x1e");
        }
    }
    return hash.result().toHex();
}

qint64 count(const Database &db, const QString &sql)
{
    auto v = db.scalar(sql);
    if (!v)
        qFatal("%s", qPrintable(v.error().message));
    return v->toLongLong();
}

double real(const Database &db, const QString &sql)
{
    auto v = db.scalar(sql);
    if (!v)
        qFatal("%s", qPrintable(v.error().message));
    return v->toDouble();
}

QMap<QString, PartitionInfo> byPartition(const std::vector<PartitionInfo> &parts)
{
    QMap<QString, PartitionInfo> out;
    for (const auto &p : parts)
        out.insert(partitionLabel(p.partition), p);
    return out;
}

QString day(int d) { return QStringLiteral("2025-05-%1").arg(d, 2, 10, QLatin1Char('0')); }

} // namespace

class TestDemo : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_db;   // seed 7, scale 0.02
    QString m_spec;
    demo::Summary m_summary;
    QString m_tinyDb; // seed 3, scale 0.01: every incident must survive the minimums
    QString m_tinySpec;

    // The incident checks run on both fixtures.
    void fixtures()
    {
        QTest::addColumn<QString>("dbPath");
        QTest::addColumn<QString>("specPath");
        QTest::newRow("seed 7, scale 0.02") << m_db << m_spec;
        QTest::newRow("seed 3, scale 0.01") << m_tinyDb << m_tinySpec;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("demo.db"));
        m_spec = m_dir.filePath(QStringLiteral("demo.json"));
        auto summary = demo::generate({m_db, m_spec, 7, 0.02, false});
        QVERIFY2(summary, qPrintable(summary ? QString() : message(summary.error())));
        m_summary = *summary;
        m_tinyDb = m_dir.filePath(QStringLiteral("tiny.db"));
        m_tinySpec = m_dir.filePath(QStringLiteral("tiny.json"));
        auto tiny = demo::generate({m_tinyDb, m_tinySpec, 3, 0.01, false});
        QVERIFY2(tiny, qPrintable(tiny ? QString() : message(tiny.error())));
    }

    void summaryCountsTheTables()
    {
        auto db = Database::open(m_db);
        QVERIFY(db);
        qint64 total = 0;
        QStringList seen;
        for (const auto &t : m_summary.tables) {
            QCOMPARE(t.rows, count(*db, QStringLiteral("SELECT COUNT(*) FROM ") + t.table));
            QVERIFY2(t.rows > 0, qPrintable(t.table));
            total += t.rows;
            seen << t.table;
        }
        QCOMPARE(m_summary.totalRows, total);
        for (const char *name : {"customers", "raw_sales", "fact_sales", "raw_events", "events", "customer_tier_monthly",
                                 "orders_log", "orders_events"})
            QVERIFY2(seen.contains(QLatin1String(name)), name);
    }

    void sameSeedSameContent()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath(QStringLiteral("a.db"));
        const QString b = dir.filePath(QStringLiteral("b.db"));
        const QString c = dir.filePath(QStringLiteral("c.db"));
        QVERIFY(demo::generate({a, dir.filePath(QStringLiteral("a.json")), 7, 0.02, false}));
        QVERIFY(demo::generate({b, dir.filePath(QStringLiteral("b.json")), 7, 0.02, false}));
        QVERIFY(demo::generate({c, dir.filePath(QStringLiteral("c.json")), 8, 0.02, false}));
        const QByteArray da = contentDigest(a);
        QCOMPARE(contentDigest(b), da);
        QCOMPARE(contentDigest(m_db), da); // the fixture used the same seed and scale
        QVERIFY(contentDigest(c) != da);
    }

    void specOpensAsWorkspace()
    {
        auto ws = openWorkspace(m_db, m_spec);
        QVERIFY2(ws, qPrintable(ws ? QString() : message(ws.error())));
        QVERIFY(ws->spec.dataset(QStringLiteral("fact_sales")));
        QVERIFY(ws->spec.dataset(QStringLiteral("events")));
        QVERIFY(ws->spec.dataset(QStringLiteral("customer_tiers")));
        QVERIFY(ws->spec.stream(QStringLiteral("orders")));
        const auto *events = ws->spec.dataset(QStringLiteral("events"));
        QCOMPARE(events->allowedLatenessSeconds.value_or(0), qint64(7200));
        QCOMPARE(ws->spec.dataset(QStringLiteral("fact_sales"))->checks.size(), std::size_t(6));
    }

    void salesIncidents_data() { fixtures(); }
    void salesIncidents()
    {
        QFETCH(QString, dbPath);
        QFETCH(QString, specPath);
        auto ws = openWorkspace(dbPath, specPath);
        QVERIFY(ws);
        const Database &db = ws->db;
        auto parts = listPartitions(db, *ws->spec.dataset(QStringLiteral("fact_sales")));
        QVERIFY2(parts, qPrintable(parts ? QString() : message(parts.error())));
        QCOMPARE(parts->size(), std::size_t(30));
        const auto p = byPartition(*parts);
        for (int d = 1; d <= 30; ++d) {
            const PartitionInfo &info = p.value(day(d));
            QString want = QStringLiteral("loaded");
            if (d == 27)
                want = QStringLiteral("stale");
            else if (d == 29)
                want = QStringLiteral("failed");
            else if (d == 30)
                want = QStringLiteral("unloaded");
            QVERIFY2(info.status == want, qPrintable(day(d) + QStringLiteral(": ") + info.status));
            const bool storm = d == 21 || d == 22;
            QVERIFY2((info.duplicateKeys > 0) == storm, qPrintable(day(d)));
            QVERIFY(info.sourceRows > 0);
            if (d >= 29)
                QCOMPARE(info.targetRows, qint64(0));
        }
        QVERIFY(p.value(day(29)).lastRunId.isValid() && !p.value(day(29)).lastRunId.isNull());
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM rewind_runs WHERE status = 'failed' AND error <> ''")), qint64(1));

        // About 1% of source keys carry two versions; the later one wins.
        const qint64 keys = count(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT DISTINCT order_id, item_id FROM raw_sales)"));
        const qint64 versioned = count(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT 1 FROM raw_sales "
                                                          "GROUP BY order_id, item_id HAVING COUNT(*) = 2)"));
        QVERIFY(versioned > 0);
        QVERIFY2(versioned * 100 <= keys * 3, qPrintable(QString::number(versioned)));
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT 1 FROM raw_sales GROUP BY order_id, item_id "
                                          "HAVING COUNT(*) > 2 OR COUNT(DISTINCT updated_at) < COUNT(*))")),
                 qint64(0));

        // A clean day equals the deduped source exactly.
        const QString latest = QStringLiteral(
            "SELECT * FROM raw_sales s WHERE NOT EXISTS (SELECT 1 FROM raw_sales n WHERE n.dt = s.dt AND n.order_id = s.order_id "
            "AND n.item_id = s.item_id AND n.updated_at > s.updated_at)");
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT order_id, item_id, dt, customer_id, amount, updated_at "
                                          "FROM (") + latest + QStringLiteral(") WHERE dt = '2025-05-10' EXCEPT "
                                          "SELECT order_id, item_id, dt, customer_id, amount, updated_at FROM fact_sales)")),
                 qint64(0));
        QCOMPARE(p.value(day(10)).targetRows,
                 count(db, QStringLiteral("SELECT COUNT(*) FROM (") + latest + QStringLiteral(") WHERE dt = '2025-05-10'")));

        // The 14th: amounts doubled and some rows missing.
        const double source14 = real(db, QStringLiteral("SELECT SUM(amount) FROM (") + latest + QStringLiteral(") WHERE dt = '2025-05-14'"));
        const double target14 = real(db, QStringLiteral("SELECT SUM(amount) FROM fact_sales WHERE dt = '2025-05-14'"));
        QVERIFY2(target14 > 1.7 * source14 && target14 < 2.0 * source14,
                 qPrintable(QStringLiteral("%1 vs %2").arg(target14).arg(source14)));
        QVERIFY(p.value(day(14)).targetRows < count(db, QStringLiteral("SELECT COUNT(*) FROM (") + latest
                                                         + QStringLiteral(") WHERE dt = '2025-05-14'")));
        // Retry storm: about 30% of the day's rows twice.
        const qint64 storm = p.value(day(21)).duplicateKeys;
        const qint64 day21Keys = p.value(day(21)).targetRows - storm;
        QVERIFY2(storm * 100 >= day21Keys * 20 && storm * 100 <= day21Keys * 40, qPrintable(QString::number(storm)));

        // Referential integrity and money.
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM raw_sales WHERE customer_id NOT IN (SELECT customer_id FROM customers)")),
                 qint64(0));
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM raw_sales WHERE amount <= 0 OR amount <> ROUND(amount, 2) "
                                          "OR typeof(amount) <> 'real'")),
                 qint64(0));
        // The 27th changed after it was published.
        QVERIFY(count(db, QStringLiteral("SELECT COUNT(*) FROM raw_sales WHERE dt = '2025-05-27' AND updated_at > "
                                         "(SELECT published_at FROM rewind_partition_state WHERE dataset = 'fact_sales' "
                                         "AND part = '2025-05-27')")) > 0);
    }

    void eventIncidents_data() { fixtures(); }
    void eventIncidents()
    {
        QFETCH(QString, dbPath);
        QFETCH(QString, specPath);
        auto ws = openWorkspace(dbPath, specPath);
        QVERIFY(ws);
        const Database &db = ws->db;
        auto parts = listPartitions(db, *ws->spec.dataset(QStringLiteral("events")));
        QVERIFY2(parts, qPrintable(parts ? QString() : message(parts.error())));
        QCOMPARE(parts->size(), std::size_t(14));
        const auto p = byPartition(*parts);
        for (int d = 1; d <= 14; ++d) {
            QString want = QStringLiteral("final");
            if (d == 3 || d == 7)
                want = QStringLiteral("stale");
            else if (d == 14)
                want = QStringLiteral("provisional");
            QVERIFY2(p.value(day(d)).status == want, qPrintable(day(d) + QStringLiteral(": ") + p.value(day(d)).status));
        }
        // The stale days got rows ingested on the 15th and 16th.
        QVERIFY(count(db, QStringLiteral("SELECT COUNT(*) FROM raw_events WHERE dt = '2025-05-03' AND ingested_at >= '2025-05-15'")) > 0);
        QVERIFY(count(db, QStringLiteral("SELECT COUNT(*) FROM raw_events WHERE dt = '2025-05-07' AND ingested_at >= '2025-05-15'")) > 0);
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM raw_events WHERE dt <> substr(event_ts, 1, 10)")), qint64(0));
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) - COUNT(DISTINCT event_id) FROM raw_events")), qint64(0));
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM raw_events WHERE event_ts NOT GLOB "
                                          "'2025-05-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'")),
                 qint64(0));

        // Lateness shape over the regular rows (late arrivals excluded).
        const QString lateness = QStringLiteral(
            "SELECT SUM(l <= 120), SUM(l > 120 AND l <= 3600), SUM(l > 3600 AND l <= 7200), SUM(l > 7200), COUNT(*), MIN(l) "
            "FROM (SELECT unixepoch(ingested_at) - unixepoch(event_ts) AS l FROM events)");
        auto q = db.exec(lateness);
        QVERIFY(q && q->next());
        const double n = q->value(4).toDouble();
        QVERIFY(q->value(5).toLongLong() >= 0);
        QVERIFY2(q->value(0).toDouble() / n > 0.85, qPrintable(q->value(0).toString()));
        QVERIFY(q->value(1).toDouble() / n > 0.04 && q->value(1).toDouble() / n < 0.12);
        QVERIFY(q->value(2).toLongLong() > 0);
        QVERIFY(q->value(3).toLongLong() > 0); // past the 2h watermark
    }

    void tiersAreUnloaded_data() { fixtures(); }
    void tiersAreUnloaded()
    {
        QFETCH(QString, dbPath);
        QFETCH(QString, specPath);
        auto ws = openWorkspace(dbPath, specPath);
        QVERIFY(ws);
        const Database &db = ws->db;
        auto parts = listPartitions(db, *ws->spec.dataset(QStringLiteral("customer_tiers")));
        QVERIFY2(parts, qPrintable(parts ? QString() : message(parts.error())));
        QCOMPARE(parts->size(), std::size_t(12));
        for (const auto &p : *parts)
            QCOMPARE(p.status, QStringLiteral("unloaded"));
        QVERIFY(!*db.hasRelation(QStringLiteral("dim_customer_tier")));
        const qint64 customers = count(db, QStringLiteral("SELECT COUNT(*) FROM customers"));
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM customer_tier_monthly")), customers * 12);
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(DISTINCT customer_id || month) FROM customer_tier_monthly")), customers * 12);
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM customer_tier_monthly "
                                          "WHERE customer_tier NOT IN ('bronze','silver','gold','platinum')")),
                 qint64(0));
        // Some customers change tier during the year, most keep it from month to month.
        const qint64 changes = count(db, QStringLiteral(
            "SELECT COUNT(*) FROM customer_tier_monthly a JOIN customer_tier_monthly b "
            "ON b.customer_id = a.customer_id AND b.month = date(a.month, '+1 month') WHERE a.customer_tier <> b.customer_tier"));
        QVERIFY(changes > 0);
        QVERIFY2(changes < customers * 11 / 4, qPrintable(QString::number(changes)));
    }

    void ordersStream_data() { fixtures(); }
    void ordersStream()
    {
        QFETCH(QString, dbPath);
        QFETCH(QString, specPath);
        auto ws = openWorkspace(dbPath, specPath);
        QVERIFY(ws);
        const Database &db = ws->db;
        QVERIFY(count(db, QStringLiteral("SELECT COUNT(*) FROM orders_log WHERE json_valid(payload) = 0")) > 0);
        QVERIFY(count(db, QStringLiteral("SELECT COUNT(*) FROM orders_log WHERE json_valid(payload) "
                                         "AND json_type(payload, '$.amount') IS NULL")) > 0);
        QVERIFY(count(db, QStringLiteral("SELECT COUNT(*) - COUNT(DISTINCT event_id) FROM orders_log")) > 0);
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(DISTINCT partition_id) FROM orders_log")), qint64(4));
        QVERIFY(count(db, QStringLiteral("SELECT MIN(log_offset) FROM orders_log WHERE partition_id = 2")) > 0);
        QCOMPARE(count(db, QStringLiteral("SELECT MAX(log_offset) FROM (SELECT MIN(log_offset) AS log_offset FROM orders_log "
                                          "WHERE partition_id <> 2 GROUP BY partition_id)")),
                 qint64(0));
        // Offsets grow by one and record_ts never goes back.
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM orders_log a JOIN orders_log b ON b.partition_id = a.partition_id "
                                          "AND b.log_offset = a.log_offset + 1 WHERE b.record_ts < a.record_ts")),
                 qint64(0));
        QCOMPARE(count(db, QStringLiteral("SELECT SUM(c) FROM (SELECT MAX(log_offset) - MIN(log_offset) + 1 - COUNT(*) AS c "
                                          "FROM orders_log GROUP BY partition_id)")),
                 qint64(0));

        // orders-loader committed at 10:15, below the log end of every partition.
        auto q = db.exec(QStringLiteral(
            "SELECT o.partition_id, o.committed_offset, "
            "(SELECT MAX(log_offset) + 1 FROM orders_log l WHERE l.partition_id = o.partition_id), "
            "(SELECT MIN(log_offset) FROM orders_log l WHERE l.partition_id = o.partition_id AND record_ts >= '2025-05-06T10:15:00Z') "
            "FROM rewind_offsets o WHERE stream = 'orders' AND group_id = 'orders-loader' ORDER BY 1"));
        QVERIFY(q);
        int partitions = 0;
        while (q->next()) {
            ++partitions;
            QVERIFY(q->value(1).toLongLong() < q->value(2).toLongLong());
            QCOMPARE(q->value(1).toLongLong(), q->value(3).toLongLong());
        }
        QCOMPARE(partitions, 4);
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM rewind_offsets o WHERE group_id = 'orders-audit' AND committed_offset = "
                                          "(SELECT MAX(log_offset) + 1 FROM orders_log l WHERE l.partition_id = o.partition_id)")),
                 qint64(4));

        // The sink holds each valid event read before the 10:20 crash, once.
        const qint64 expected = count(db, QStringLiteral(
            "SELECT COUNT(DISTINCT event_id) FROM orders_log WHERE record_ts < '2025-05-06T10:20:00Z' "
            "AND CASE WHEN json_valid(payload) THEN json_type(payload, '$.amount') IS NOT NULL ELSE 0 END"));
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM orders_events")), expected);
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM orders_events e WHERE NOT EXISTS (SELECT 1 FROM orders_log l "
                                          "WHERE l.event_id = e.event_id AND l.record_ts < '2025-05-06T10:20:00Z')")),
                 qint64(0));
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM orders_events WHERE amount IS NULL OR order_id IS NULL")), qint64(0));
        QVERIFY(count(db, QStringLiteral("SELECT COUNT(*) FROM orders_log l WHERE record_ts >= '2025-05-06T10:20:00Z' "
                                         "AND EXISTS (SELECT 1 FROM orders_events e WHERE e.event_id = l.event_id)"))
                == 0);
    }

    void auditRecordsTheDemo()
    {
        auto db = Database::open(m_db);
        QVERIFY(db);
        auto q = db->exec(QStringLiteral("SELECT action, detail_json FROM rewind_audit"));
        QVERIFY(q && q->next());
        QCOMPARE(q->value(0).toString(), QStringLiteral("demo"));
        QVERIFY(q->value(1).toString().contains(QLatin1String("\"seed\":7")));
        QVERIFY(q->value(1).toString().contains(QLatin1String("\"scale\"")));
        QVERIFY(!q->next());
    }

    void refusesBadScale_data()
    {
        QTest::addColumn<double>("scale");
        QTest::newRow("zero") << 0.0;
        QTest::newRow("negative") << -1.0;
        QTest::newRow("too large") << 51.0;
    }

    void refusesBadScale()
    {
        QFETCH(double, scale);
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("x.db"));
        auto r = demo::generate({db, dir.filePath(QStringLiteral("x.json")), 1, scale, false});
        QVERIFY(!r);
        QCOMPARE(r.error().code, Error::Code::BadInput);
        QVERIFY(r.error().message.contains(QLatin1String("scale")));
        QVERIFY(!QFile::exists(db));
    }

    void refusesExistingDatabase()
    {
        QTemporaryDir dir;
        const QByteArray sentinel("not a demo database\n");
        const QString db = testsupport::writeFile(dir, QStringLiteral("taken.db"), sentinel);
        const QString spec = dir.filePath(QStringLiteral("taken.json"));
        for (double scale : {0.0, 0.01}) {
            auto r = demo::generate({db, spec, 1, scale, false});
            QVERIFY(!r);
            QCOMPARE(r.error().code, Error::Code::BadInput);
            if (scale > 0)
                QVERIFY2(r.error().message.contains(db), qPrintable(r.error().message));
            QFile f(db);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QCOMPARE(f.readAll(), sentinel);
            QVERIFY(!QFile::exists(spec));
        }
        // With overwrite the file is replaced.
        auto r = demo::generate({db, spec, 1, 0.01, true});
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QVERIFY(openWorkspace(db, spec));
    }

    // Not a correctness test: REWIND_DEMO_BENCH=1 times the full-size demo.
    void fullScaleTiming()
    {
        if (!qEnvironmentVariableIsSet("REWIND_DEMO_BENCH"))
            QSKIP("set REWIND_DEMO_BENCH=1 to time the scale-1 demo");
        QTemporaryDir dir;
        QElapsedTimer timer;
        timer.start();
        auto r = demo::generate({dir.filePath(QStringLiteral("full.db")), dir.filePath(QStringLiteral("full.json")), 1, 1.0, false});
        const qint64 ms = timer.elapsed();
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        for (const auto &t : r->tables)
            qInfo("%-24s %9lld", qPrintable(t.table), t.rows);
        qInfo("total %lld rows in %lld ms", r->totalRows, ms);
    }
};

QTEST_GUILESS_MAIN(TestDemo)
#include "tst_demo.moc"
