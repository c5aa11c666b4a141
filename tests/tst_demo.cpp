// The demo generator: determinism, the staged incidents as an operator sees
// them, the orders stream, and refusals, on SQLite and (tst_demo_pg) on
// PostgreSQL, where it also must write the same values as on SQLite.
// Expectations are plain SQL written here (portable, or spelled per engine
// where the engines differ), independent of core.
#include "core/batch/partitions.h"
#include "core/demo/demo.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

using namespace rw;

namespace {

QString message(const Error &e) {
    return e.message;
}

// A value as text, the same on both engines for the same value: integers
// in decimal, doubles with every significant digit, NULL apart from ''.
QString valueText(const QVariant &v) {
    if (v.isNull())
        return QStringLiteral("\\N");
    switch (v.typeId()) {
    case QMetaType::Int:
    case QMetaType::LongLong:
    case QMetaType::UInt:
    case QMetaType::ULongLong:
        return QString::number(v.toLongLong());
    case QMetaType::Double:
        return QString::number(v.toDouble(), 'g', 17);
    default:
        return v.toString();
    }
}

enum class Digest { SameEngine, AcrossEngines };

// A digest of every user table (sorted by name, rows sorted) plus the control
// rows the demo writes that carry no wall-clock time. Across engines it
// leaves out the source fingerprints (each engine hashes rows its own way)
// and the value types.
QByteArray contentDigest(const QString &path, Digest kind = Digest::SameEngine) {
    auto db = Database::open(path);
    if (!db)
        qFatal("cannot open %s", qPrintable(path));
    QStringList tables;
    const auto relations = db->relations();
    if (!relations)
        qFatal("%s", qPrintable(relations.error().message));
    for (const QString &name : *relations)
        if (!name.startsWith(QLatin1String("rewind")))
            tables << name;
    tables.sort();
    tables << QStringLiteral("rewind_offsets") << QStringLiteral("rewind_partition_state")
           << QStringLiteral("rewind_runs");

    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const QString &table : std::as_const(tables)) {
        hash.addData(table.toUtf8());
        QStringList columns;
        const auto info = db->columns(table);
        if (!info)
            qFatal("%s", qPrintable(info.error().message));
        for (const auto &c : *info)
            if (kind == Digest::SameEngine || c.name != QLatin1String("source_sig"))
                columns << db->quote(c.name);
        auto rows = db->exec(QStringLiteral("SELECT ") + columns.join(u',') +
                             QStringLiteral(" FROM ") + db->quote(table));
        if (!rows)
            qFatal("%s", qPrintable(rows.error().message));
        QStringList lines;
        while (rows->next()) {
            QString line;
            for (int i = 0; i < columns.size(); ++i) {
                const QVariant v = rows->value(i);
                if (kind == Digest::SameEngine)
                    line += QString::number(v.isNull() ? -1 : v.typeId()) + u'\x1d';
                line += valueText(v) + u'\x1f';
            }
            lines << line;
        }
        lines.sort();
        hash.addData(QByteArray::number(lines.size()));
        for (const QString &line : std::as_const(lines))
            hash.addData(QByteArray(line.toUtf8() + '\x1e'));
    }
    return hash.result().toHex();
}

// Where a demo goes: a new file name on SQLite, a new empty database on the
// PostgreSQL test server.
QString demoTarget(const QTemporaryDir &dir, const QString &name) {
    if (testsupport::onPostgres())
        return testsupport::makeDatabase(dir, name, {}).url().text;
    return dir.filePath(name);
}

// Engine-specific spellings the expectations need.
QString epochOf(const QString &isoText) {
    if (testsupport::onPostgres())
        return QStringLiteral("CAST(extract(epoch FROM CAST(") + isoText +
               QStringLiteral(" AS timestamptz)) AS BIGINT)");
    return QStringLiteral("unixepoch(") + isoText + u')';
}
QString notIsoSeconds(const QString &column) {
    if (testsupport::onPostgres())
        return column +
               QStringLiteral(" !~ '^2025-05-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z$'");
    return column +
           QStringLiteral(" NOT GLOB '2025-05-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'");
}

// The orders log as a consumer parses it (Qt's JSON parser, not the engine's).
struct LogRecord {
    qint64 partition = 0;
    qint64 offset = 0;
    QString eventId;
    QString recordTs;
    bool valid = false;
    QJsonObject payload;
};
std::vector<LogRecord> readLog(const Database &db) {
    std::vector<LogRecord> out;
    auto q = db.exec(QStringLiteral("SELECT partition_id, log_offset, event_id, record_ts, payload "
                                    "FROM orders_log ORDER BY 1, 2"));
    if (!q)
        qFatal("%s", qPrintable(q.error().message));
    while (q->next()) {
        LogRecord r{q->value(0).toLongLong(),
                    q->value(1).toLongLong(),
                    q->value(2).toString(),
                    q->value(3).toString(),
                    false,
                    {}};
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(q->value(4).toString().toUtf8(), &error);
        r.valid = error.error == QJsonParseError::NoError && doc.isObject();
        r.payload = doc.object();
        out.push_back(std::move(r));
    }
    return out;
}

qint64 count(const Database &db, const QString &sql) {
    auto v = db.scalar(sql);
    if (!v)
        qFatal("%s", qPrintable(v.error().message));
    return v->toLongLong();
}

double real(const Database &db, const QString &sql) {
    auto v = db.scalar(sql);
    if (!v)
        qFatal("%s", qPrintable(v.error().message));
    return v->toDouble();
}

QMap<QString, PartitionInfo> byPartition(const std::vector<PartitionInfo> &parts) {
    QMap<QString, PartitionInfo> out;
    for (const auto &p : parts)
        out.insert(partitionLabel(p.partition), p);
    return out;
}

QString day(int d) {
    return QStringLiteral("2025-05-%1").arg(d, 2, 10, QLatin1Char('0'));
}

} // namespace

class TestDemo : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_db; // seed 7, scale 0.02 (a file, or a postgresql:// URL)
    QString m_spec;
    demo::Summary m_summary;
    QString m_tinyDb; // seed 3, scale 0.01: every incident must survive the minimums
    QString m_tinySpec;

    // The incident checks run on both fixtures.
    void fixtures() {
        QTest::addColumn<QString>("dbPath");
        QTest::addColumn<QString>("specPath");
        QTest::newRow("seed 7, scale 0.02") << m_db << m_spec;
        QTest::newRow("seed 3, scale 0.01") << m_tinyDb << m_tinySpec;
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        QVERIFY(m_dir.isValid());
        m_db = demoTarget(m_dir, QStringLiteral("demo.db"));
        m_spec = m_dir.filePath(QStringLiteral("demo.json"));
        auto summary = demo::generate({m_db, m_spec, 7, 0.02, false});
        QVERIFY2(summary, qPrintable(summary ? QString() : message(summary.error())));
        m_summary = *summary;
        m_tinyDb = demoTarget(m_dir, QStringLiteral("tiny.db"));
        m_tinySpec = m_dir.filePath(QStringLiteral("tiny.json"));
        auto tiny = demo::generate({m_tinyDb, m_tinySpec, 3, 0.01, false});
        QVERIFY2(tiny, qPrintable(tiny ? QString() : message(tiny.error())));
    }

    void summaryCountsTheTables() {
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
        for (const char *name : {"customers", "raw_sales", "fact_sales", "raw_events", "events",
                                 "customer_tier_monthly", "orders_log", "orders_events"})
            QVERIFY2(seen.contains(QLatin1String(name)), name);
    }

    void sameSeedSameContent() {
        QTemporaryDir dir;
        const QString a = demoTarget(dir, QStringLiteral("a.db"));
        const QString b = demoTarget(dir, QStringLiteral("b.db"));
        const QString c = demoTarget(dir, QStringLiteral("c.db"));
        QVERIFY(demo::generate({a, dir.filePath(QStringLiteral("a.json")), 7, 0.02, false}));
        QVERIFY(demo::generate({b, dir.filePath(QStringLiteral("b.json")), 7, 0.02, false}));
        QVERIFY(demo::generate({c, dir.filePath(QStringLiteral("c.json")), 8, 0.02, false}));
        const QByteArray da = contentDigest(a);
        QCOMPARE(contentDigest(b), da);
        QCOMPARE(contentDigest(m_db), da); // the fixture used the same seed and scale
        QVERIFY(contentDigest(c) != da);
    }

    // The PostgreSQL demo holds the values the SQLite demo of the same seed
    // and scale holds: every user table, offsets, partition states (but
    // their engine-specific fingerprints) and runs.
    void sameValuesAsSqlite() {
        if (!testsupport::onPostgres())
            QSKIP("compares the PostgreSQL demo with the SQLite one: runs in tst_demo_pg");
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("sqlite.db"));
        auto r =
            demo::generate({file, dir.filePath(QStringLiteral("sqlite.json")), 7, 0.02, false});
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(contentDigest(m_db, Digest::AcrossEngines),
                 contentDigest(file, Digest::AcrossEngines));
        for (std::size_t i = 0; i < r->tables.size(); ++i) {
            QCOMPARE(m_summary.tables.at(i).table, r->tables.at(i).table);
            QCOMPARE(m_summary.tables.at(i).rows, r->tables.at(i).rows);
        }
        // The payloads are the very same text (compact JSON, same key order).
        auto pg = Database::open(m_db);
        auto lite = Database::open(file);
        QVERIFY(pg && lite);
        const QString payloads = QStringLiteral(
            "SELECT payload FROM orders_log WHERE partition_id = 1 AND log_offset = 7");
        QCOMPARE(pg->scalar(payloads)->toString(), lite->scalar(payloads)->toString());
        QVERIFY(pg->scalar(payloads)->toString().startsWith(QLatin1String("{\"order_id\":")));
    }

    void specOpensAsWorkspace() {
        auto ws = openWorkspace(m_db, m_spec);
        QVERIFY2(ws, qPrintable(ws ? QString() : message(ws.error())));
        QVERIFY(ws->spec.dataset(QStringLiteral("fact_sales")));
        QVERIFY(ws->spec.dataset(QStringLiteral("events")));
        QVERIFY(ws->spec.dataset(QStringLiteral("customer_tiers")));
        QVERIFY(ws->spec.stream(QStringLiteral("orders")));
        const auto *events = ws->spec.dataset(QStringLiteral("events"));
        QCOMPARE(events->allowedLatenessSeconds.value_or(0), qint64(7200));
        QCOMPARE(ws->spec.dataset(QStringLiteral("fact_sales"))->checks.size(), std::size_t(7));
    }

    void salesIncidents_data() { fixtures(); }
    void salesIncidents() {
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
            PartitionStatus want = PartitionStatus::Loaded;
            if (d == 27)
                want = PartitionStatus::Stale;
            else if (d == 29)
                want = PartitionStatus::Failed;
            else if (d == 30)
                want = PartitionStatus::Unloaded;
            QVERIFY2(info.status == want,
                     qPrintable(day(d) + QStringLiteral(": ") + enumName(info.status)));
            const bool storm = d == 21 || d == 22;
            QVERIFY2((info.duplicateKeys > 0) == storm, qPrintable(day(d)));
            QVERIFY(info.sourceRows > 0);
            if (d >= 29)
                QCOMPARE(info.targetRows, qint64(0));
        }
        QVERIFY(p.value(day(29)).lastRunId.isValid() && !p.value(day(29)).lastRunId.isNull());
        QCOMPARE(
            count(db,
                  QStringLiteral(
                      "SELECT COUNT(*) FROM rewind_runs WHERE status = 'failed' AND error <> ''")),
            qint64(1));

        // About 1% of source keys carry two versions; the later one wins.
        const qint64 keys = count(
            db,
            QStringLiteral(
                "SELECT COUNT(*) FROM (SELECT DISTINCT order_id, item_id FROM raw_sales) AS k"));
        const qint64 versioned =
            count(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT 1 AS one FROM raw_sales "
                                     "GROUP BY order_id, item_id HAVING COUNT(*) = 2) AS k"));
        QVERIFY(versioned > 0);
        QVERIFY2(versioned * 100 <= keys * 3, qPrintable(QString::number(versioned)));
        QCOMPARE(
            count(db, QStringLiteral(
                          "SELECT COUNT(*) FROM (SELECT 1 AS one FROM raw_sales GROUP BY order_id, "
                          "item_id "
                          "HAVING COUNT(*) > 2 OR COUNT(DISTINCT updated_at) < COUNT(*)) AS k")),
            qint64(0));

        // A clean day equals the deduped source exactly.
        const QString latest =
            QStringLiteral("SELECT * FROM raw_sales s WHERE NOT EXISTS (SELECT 1 FROM raw_sales n "
                           "WHERE n.dt = s.dt AND n.order_id = s.order_id "
                           "AND n.item_id = s.item_id AND n.updated_at > s.updated_at)");
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT order_id, item_id, dt, "
                                          "customer_id, amount, updated_at "
                                          "FROM (") +
                               latest +
                               QStringLiteral(") AS l WHERE dt = '2025-05-10' EXCEPT "
                                              "SELECT order_id, item_id, dt, customer_id, amount, "
                                              "updated_at FROM fact_sales) AS d")),
                 qint64(0));
        QCOMPARE(p.value(day(10)).targetRows,
                 count(db, QStringLiteral("SELECT COUNT(*) FROM (") + latest +
                               QStringLiteral(") AS l WHERE dt = '2025-05-10'")));

        // The 14th: amounts doubled and some rows missing.
        const double source14 = real(db, QStringLiteral("SELECT SUM(amount) FROM (") + latest +
                                             QStringLiteral(") AS l WHERE dt = '2025-05-14'"));
        const double target14 =
            real(db, QStringLiteral("SELECT SUM(amount) FROM fact_sales WHERE dt = '2025-05-14'"));
        QVERIFY2(target14 > 1.7 * source14 && target14 < 2.0 * source14,
                 qPrintable(QStringLiteral("%1 vs %2").arg(target14).arg(source14)));
        QVERIFY(p.value(day(14)).targetRows <
                count(db, QStringLiteral("SELECT COUNT(*) FROM (") + latest +
                              QStringLiteral(") AS l WHERE dt = '2025-05-14'")));
        // Retry storm: about 30% of the day's rows twice.
        const qint64 storm = p.value(day(21)).duplicateKeys;
        const qint64 day21Keys = p.value(day(21)).targetRows - storm;
        QVERIFY2(storm * 100 >= day21Keys * 20 && storm * 100 <= day21Keys * 40,
                 qPrintable(QString::number(storm)));

        // Referential integrity and money.
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM raw_sales WHERE customer_id NOT IN "
                                          "(SELECT customer_id FROM customers)")),
                 qint64(0));
        QCOMPARE(
            count(db, QStringLiteral("SELECT COUNT(*) FROM raw_sales WHERE amount <= 0 "
                                     "OR amount <> CAST(ROUND(amount * 100) AS BIGINT) / 100.0")),
            qint64(0));
        if (testsupport::onPostgres())
            QCOMPARE(db.columns(QStringLiteral("raw_sales"))->at(4).type,
                     QStringLiteral("double precision"));
        else
            QCOMPARE(
                count(db, QStringLiteral(
                              "SELECT COUNT(*) FROM raw_sales WHERE typeof(amount) <> 'real'")),
                qint64(0));
        // The 27th changed after it was published.
        QVERIFY(
            count(
                db,
                QStringLiteral(
                    "SELECT COUNT(*) FROM raw_sales WHERE dt = '2025-05-27' AND updated_at > "
                    "(SELECT published_at FROM rewind_partition_state WHERE dataset = 'fact_sales' "
                    "AND part = '2025-05-27')")) > 0);
    }

    void eventIncidents_data() { fixtures(); }
    void eventIncidents() {
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
            PartitionStatus want = PartitionStatus::Final;
            if (d == 3 || d == 7)
                want = PartitionStatus::Stale;
            else if (d == 14)
                want = PartitionStatus::Provisional;
            QVERIFY2(p.value(day(d)).status == want,
                     qPrintable(day(d) + QStringLiteral(": ") + enumName(p.value(day(d)).status)));
        }
        // The stale days got rows ingested on the 15th and 16th.
        QVERIFY(count(db, QStringLiteral("SELECT COUNT(*) FROM raw_events WHERE dt = '2025-05-03' "
                                         "AND ingested_at >= '2025-05-15'")) > 0);
        QVERIFY(count(db, QStringLiteral("SELECT COUNT(*) FROM raw_events WHERE dt = '2025-05-07' "
                                         "AND ingested_at >= '2025-05-15'")) > 0);
        QCOMPARE(
            count(db, QStringLiteral(
                          "SELECT COUNT(*) FROM raw_events WHERE dt <> substr(event_ts, 1, 10)")),
            qint64(0));
        QCOMPARE(
            count(db, QStringLiteral("SELECT COUNT(*) - COUNT(DISTINCT event_id) FROM raw_events")),
            qint64(0));
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM raw_events WHERE ") +
                               notIsoSeconds(QStringLiteral("event_ts"))),
                 qint64(0));

        // Lateness shape over the regular rows (late arrivals excluded).
        const QString lateness =
            QStringLiteral("SELECT SUM(CASE WHEN l <= 120 THEN 1 ELSE 0 END), SUM(CASE WHEN l > "
                           "120 AND l <= 3600 THEN 1 ELSE 0 END), "
                           "SUM(CASE WHEN l > 3600 AND l <= 7200 THEN 1 ELSE 0 END), SUM(CASE WHEN "
                           "l > 7200 THEN 1 ELSE 0 END), COUNT(*), MIN(l) "
                           "FROM (SELECT ") +
            epochOf(QStringLiteral("ingested_at")) + QStringLiteral(" - ") +
            epochOf(QStringLiteral("event_ts")) + QStringLiteral(" AS l FROM events) AS e");
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
    void tiersAreUnloaded() {
        QFETCH(QString, dbPath);
        QFETCH(QString, specPath);
        auto ws = openWorkspace(dbPath, specPath);
        QVERIFY(ws);
        const Database &db = ws->db;
        auto parts = listPartitions(db, *ws->spec.dataset(QStringLiteral("customer_tiers")));
        QVERIFY2(parts, qPrintable(parts ? QString() : message(parts.error())));
        QCOMPARE(parts->size(), std::size_t(12));
        for (const auto &p : *parts)
            QCOMPARE(p.status, PartitionStatus::Unloaded);
        QVERIFY(!*db.hasRelation(QStringLiteral("dim_customer_tier")));
        const qint64 customers = count(db, QStringLiteral("SELECT COUNT(*) FROM customers"));
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM customer_tier_monthly")),
                 customers * 12);
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT DISTINCT customer_id, "
                                          "month FROM customer_tier_monthly) AS k")),
                 customers * 12);
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(DISTINCT month) FROM customer_tier_monthly "
                                          "WHERE month LIKE '2025-__-01' AND substr(updated_at, 1, "
                                          "7) = substr(month, 1, 7)")),
                 qint64(12));
        QCOMPARE(count(db, QStringLiteral(
                               "SELECT COUNT(*) FROM customer_tier_monthly "
                               "WHERE customer_tier NOT IN ('bronze','silver','gold','platinum')")),
                 qint64(0));
        // Some customers change tier during the year, most keep it from month to month.
        const qint64 changes = count(
            db, QStringLiteral("SELECT COUNT(*) FROM (SELECT customer_tier, LAG(customer_tier) "
                               "OVER (PARTITION BY customer_id ORDER BY month) AS before "
                               "FROM customer_tier_monthly) AS t WHERE before IS NOT NULL AND "
                               "before <> customer_tier"));
        QVERIFY(changes > 0);
        QVERIFY2(changes < customers * 11 / 4, qPrintable(QString::number(changes)));
    }

    void ordersStream_data() { fixtures(); }
    void ordersStream() {
        QFETCH(QString, dbPath);
        QFETCH(QString, specPath);
        auto ws = openWorkspace(dbPath, specPath);
        QVERIFY(ws);
        const Database &db = ws->db;
        const std::vector<LogRecord> log = readLog(db);
        QCOMPARE(qint64(log.size()), count(db, QStringLiteral("SELECT COUNT(*) FROM orders_log")));
        auto usable = [](const LogRecord &r) {
            return r.valid && r.payload.contains(u"order_id") && r.payload.contains(u"amount");
        };
        QVERIFY(std::count_if(log.begin(), log.end(), [](const LogRecord &r) { return !r.valid; }) >
                0);
        QVERIFY(std::count_if(log.begin(), log.end(), [](const LogRecord &r) {
                    return r.valid && !r.payload.contains(u"amount");
                }) > 0);
        QVERIFY(count(db, QStringLiteral(
                              "SELECT COUNT(*) - COUNT(DISTINCT event_id) FROM orders_log")) > 0);
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(DISTINCT partition_id) FROM orders_log")),
                 qint64(4));
        QVERIFY(count(db, QStringLiteral(
                              "SELECT MIN(log_offset) FROM orders_log WHERE partition_id = 2")) >
                0);
        QCOMPARE(count(db, QStringLiteral("SELECT MAX(log_offset) FROM (SELECT MIN(log_offset) AS "
                                          "log_offset FROM orders_log "
                                          "WHERE partition_id <> 2 GROUP BY partition_id) AS m")),
                 qint64(0));
        // Offsets grow by one and record_ts never goes back.
        QCOMPARE(
            count(db, QStringLiteral(
                          "SELECT COUNT(*) FROM orders_log a JOIN orders_log b ON b.partition_id = "
                          "a.partition_id "
                          "AND b.log_offset = a.log_offset + 1 WHERE b.record_ts < a.record_ts")),
            qint64(0));
        QCOMPARE(count(db, QStringLiteral("SELECT SUM(c) FROM (SELECT MAX(log_offset) - "
                                          "MIN(log_offset) + 1 - COUNT(*) AS c "
                                          "FROM orders_log GROUP BY partition_id) AS g")),
                 qint64(0));

        // orders-loader committed at 10:15, below the log end of every partition.
        auto q = db.exec(QStringLiteral(
            "SELECT o.partition_id, o.committed_offset, "
            "(SELECT MAX(log_offset) + 1 FROM orders_log l WHERE l.partition_id = o.partition_id), "
            "(SELECT MIN(log_offset) FROM orders_log l WHERE l.partition_id = o.partition_id AND "
            "record_ts >= '2025-05-06T10:15:00Z') "
            "FROM rewind_offsets o WHERE stream = 'orders' AND group_id = 'orders-loader' ORDER BY "
            "1"));
        QVERIFY(q);
        int partitions = 0;
        while (q->next()) {
            ++partitions;
            QVERIFY(q->value(1).toLongLong() < q->value(2).toLongLong());
            QCOMPARE(q->value(1).toLongLong(), q->value(3).toLongLong());
        }
        QCOMPARE(partitions, 4);
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM rewind_offsets o WHERE group_id = "
                                          "'orders-audit' AND committed_offset = "
                                          "(SELECT MAX(log_offset) + 1 FROM orders_log l WHERE "
                                          "l.partition_id = o.partition_id)")),
                 qint64(4));

        // The sink holds each valid event read before the 10:20 crash, once.
        QSet<QString> expected;
        for (const LogRecord &r : log)
            if (r.recordTs < QLatin1String("2025-05-06T10:20:00Z") && usable(r))
                expected.insert(r.eventId);
        QVERIFY(!expected.isEmpty());
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM orders_events")),
                 qint64(expected.size()));
        // Each sink row carries its payload's fields.
        QMap<QString, QJsonObject> payloadOf;
        for (const LogRecord &r : log)
            if (usable(r))
                payloadOf.insert(r.eventId, r.payload);
        auto sink = db.exec(
            QStringLiteral("SELECT event_id, order_id, amount, event_time FROM orders_events"));
        QVERIFY(sink);
        while (sink->next()) {
            const QString id = sink->value(0).toString();
            QVERIFY2(expected.contains(id), qPrintable(id));
            const QJsonObject o = payloadOf.value(id);
            QCOMPARE(sink->value(1).toLongLong(), o.value(u"order_id").toInteger());
            QCOMPARE(sink->value(2).toDouble(), o.value(u"amount").toDouble());
            QCOMPARE(sink->value(3).toString(), o.value(u"event_time").toString());
        }
        QCOMPARE(
            count(db,
                  QStringLiteral(
                      "SELECT COUNT(*) FROM orders_events e WHERE NOT EXISTS (SELECT 1 FROM "
                      "orders_log l "
                      "WHERE l.event_id = e.event_id AND l.record_ts < '2025-05-06T10:20:00Z')")),
            qint64(0));
        QCOMPARE(
            count(
                db,
                QStringLiteral(
                    "SELECT COUNT(*) FROM orders_events WHERE amount IS NULL OR order_id IS NULL")),
            qint64(0));
        QVERIFY(
            count(
                db,
                QStringLiteral(
                    "SELECT COUNT(*) FROM orders_log l WHERE record_ts >= '2025-05-06T10:20:00Z' "
                    "AND EXISTS (SELECT 1 FROM orders_events e WHERE e.event_id = l.event_id)")) ==
            0);
    }

    void auditRecordsTheDemo() {
        auto db = Database::open(m_db);
        QVERIFY(db);
        auto q = db->exec(QStringLiteral("SELECT action, detail_json FROM rewind_audit"));
        QVERIFY(q && q->next());
        QCOMPARE(q->value(0).toString(), QStringLiteral("demo"));
        QVERIFY(q->value(1).toString().contains(QLatin1String("\"seed\":7")));
        QVERIFY(q->value(1).toString().contains(QLatin1String("\"scale\"")));
        QVERIFY(!q->next());
    }

    void refusesBadScale_data() {
        QTest::addColumn<double>("scale");
        QTest::newRow("zero") << 0.0;
        QTest::newRow("negative") << -1.0;
        QTest::newRow("too large") << 51.0;
    }

    void refusesBadScale() {
        QFETCH(double, scale);
        QTemporaryDir dir;
        const QString db = demoTarget(dir, QStringLiteral("x.db"));
        auto r = demo::generate({db, dir.filePath(QStringLiteral("x.json")), 1, scale, false});
        QVERIFY(!r);
        QCOMPARE(r.error().code, Error::Code::BadInput);
        QVERIFY(r.error().message.contains(QLatin1String("scale")));
        if (testsupport::onPostgres())
            QCOMPARE(Database::open(db)->relations()->size(), qsizetype(0));
        else
            QVERIFY(!QFile::exists(db));
    }

    void refusesExistingDatabase() {
        if (testsupport::onPostgres())
            QSKIP("a SQLite target is a file; refusesDatabaseHoldingADemo is the PostgreSQL "
                  "counterpart");
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

    // On PostgreSQL the target is an existing database: one that already
    // holds a table of the demo (or a Rewind control schema) is refused, as
    // an existing SQLite file is, and replaced when overwriting is allowed.
    void refusesDatabaseHoldingADemo() {
        if (!testsupport::onPostgres())
            QSKIP("a PostgreSQL target is an existing database: runs in tst_demo_pg");
        QTemporaryDir dir;
        const Database taken = testsupport::makeDatabase(
            dir, QStringLiteral("taken.db"),
            {QStringLiteral("CREATE TABLE customers (note TEXT)"),
             QStringLiteral("INSERT INTO customers VALUES ('not a demo table')"),
             QStringLiteral("CREATE TABLE mine (n INTEGER)"),
             QStringLiteral("INSERT INTO mine VALUES (42)")});
        const QString db = taken.url().text;
        const QString spec = dir.filePath(QStringLiteral("taken.json"));
        auto r = demo::generate({db, spec, 1, 0.01, false});
        QVERIFY(!r);
        QCOMPARE(r.error().code, Error::Code::BadInput);
        QVERIFY2(r.error().message.contains(taken.url().display()) &&
                     r.error().message.contains(QLatin1String("customers")),
                 qPrintable(r.error().message));
        QCOMPARE(
            count(taken,
                  QStringLiteral("SELECT COUNT(*) FROM customers WHERE note = 'not a demo table'")),
            qint64(1));
        QVERIFY(!*taken.hasRelation(QStringLiteral("raw_sales")));
        QVERIFY(!*taken.hasRelation(QStringLiteral("rewind_meta")));
        QVERIFY(!QFile::exists(spec));

        // With overwrite the demo's tables are replaced; the user's own stay.
        r = demo::generate({db, spec, 1, 0.01, true});
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QVERIFY(openWorkspace(db, spec));
        QCOMPARE(count(taken, QStringLiteral("SELECT COUNT(*) FROM customers")),
                 r->tables.at(0).rows);
        QCOMPARE(count(taken, QStringLiteral("SELECT n FROM mine")), qint64(42));

        // A schema rewind of the user's own is never dropped without --force.
        const Database schemaOnly =
            testsupport::makeDatabase(dir, QStringLiteral("schema.db"),
                                      {QStringLiteral("CREATE SCHEMA rewind"),
                                       QStringLiteral("CREATE TABLE rewind.notes (n INTEGER)")});
        auto refused = demo::generate(
            {schemaOnly.url().text, dir.filePath(QStringLiteral("schema.json")), 1, 0.01, false});
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.contains(QLatin1String("the schema rewind")),
                 qPrintable(refused.error().message));
        QCOMPARE(count(schemaOnly, QStringLiteral("SELECT COUNT(*) FROM rewind.notes")), qint64(0));
        QVERIFY(!*schemaOnly.hasRelation(QStringLiteral("customers")));

        // A second demo into it is refused: it names the tables it found.
        auto again =
            demo::generate({db, dir.filePath(QStringLiteral("again.json")), 1, 0.01, false});
        QVERIFY(!again);
        QVERIFY2(again.error().message.contains(QLatin1String("raw_sales")),
                 qPrintable(again.error().message));
        // Overwriting a finished demo gives the same demo again, with one audit row.
        QVERIFY(demo::generate({db, spec, 1, 0.01, true}));
        QCOMPARE(count(taken, QStringLiteral("SELECT COUNT(*) FROM rewind_audit")), qint64(1));
        QCOMPARE(count(taken, QStringLiteral("SELECT COUNT(*) FROM customers")),
                 r->tables.at(0).rows);
    }

    // Not a correctness test: REWIND_DEMO_BENCH=1 times the full-size demo.
    void fullScaleTiming() {
        if (!qEnvironmentVariableIsSet("REWIND_DEMO_BENCH"))
            QSKIP("set REWIND_DEMO_BENCH=1 to time the scale-1 demo");
        QTemporaryDir dir;
        QElapsedTimer timer;
        timer.start();
        auto r = demo::generate({demoTarget(dir, QStringLiteral("full.db")),
                                 dir.filePath(QStringLiteral("full.json")), 1, 1.0, false});
        const qint64 ms = timer.elapsed();
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        for (const auto &t : r->tables)
            qInfo("%-24s %9lld", qPrintable(t.table), t.rows);
        qInfo("total %lld rows in %lld ms", r->totalRows, ms);
    }
};

QTEST_GUILESS_MAIN(TestDemo)
#include "tst_demo.moc"
