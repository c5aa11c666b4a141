// Lateness distributions (rewindctl lag), checked against answers computed
// here independently of core: plain sorting of the values the test inserted.
#include "core/lateness/lateness.h"
#include "core/sql/controlschema.h"
#include "core/sql/sqliteepoch.h"
#include "core/sql/timejson.h"
#include "core/util/timeutil.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QDateTime>
#include <QTest>
#include <QUrl>
#include <algorithm>
#include <nlohmann/json.hpp>

using namespace rw;
using Json = nlohmann::json;

namespace {

constexpr qint64 kDay0 = 1746057600; // 2025-05-01T00:00:00Z

// "2025-05-01T10:20:00Z", or in `format` (then with `suffix` appended).
QString iso(qint64 epochSeconds, const QString &format = QString(),
            const QString &suffix = QString()) {
    const QDateTime t = QDateTime::fromSecsSinceEpoch(epochSeconds, Qt::UTC);
    return format.isEmpty() ? t.toString(Qt::ISODate) : t.toString(format) + suffix;
}

// The nearest-rank percentile by its definition: the smallest value v with at
// least p% of the values <= v. `perMille` is p * 10.
qint64 nearestRank(std::vector<qint64> values, int perMille) {
    std::sort(values.begin(), values.end());
    const auto n = qint64(values.size());
    for (const qint64 v : values) {
        const qint64 atOrBelow =
            qint64(std::upper_bound(values.begin(), values.end(), v) - values.begin());
        if (atOrBelow * 1000 >= perMille * n)
            return v;
    }
    return values.back();
}

struct Row {
    QString dt;
    QVariant event;
    QVariant ingest;
};

QString untyped() {
    return testsupport::onPostgres() ? QStringLiteral("TEXT") : QString();
}

Database makeEvents(const QTemporaryDir &dir, const std::vector<Row> &rows,
                    const QString &file = QStringLiteral("l.db")) {
    auto db = testsupport::makeDatabase(
        dir, file,
        {
            // Untyped timestamp columns keep integers integers and text text
            // (SQLite); PostgreSQL holds both as text, which reads the same way.
            QStringLiteral("CREATE TABLE ev (id INTEGER, dt TEXT, event_ts %1, ingested_at %1)")
                .arg(untyped()),
            QStringLiteral(
                "CREATE TABLE ev_epoch (id INTEGER, dt TEXT, event_ts %1, ingested_at %1)")
                .arg(untyped()),
        });
    const Status inserted = db.writeTransaction([&]() -> Status {
        qint64 id = 0;
        for (const Row &r : rows)
            if (auto q = db.exec(QStringLiteral("INSERT INTO ev VALUES (?, ?, ?, ?)"),
                                 {++id, r.dt, r.event, r.ingest});
                !q)
                return fail(q.error());
        return {};
    });
    if (!inserted)
        qFatal("%s", qPrintable(inserted.error().message));
    return db;
}

const QByteArray kSpec = R"({"datasets": {
    "events": {"source": "ev", "target": "ev_out", "partition_column": "dt", "key": ["id"],
               "event_time": "event_ts", "ingest_time": "ingested_at", "allowed_lateness": "2h"},
    "epoch": {"source": "ev_epoch", "target": "ev_epoch_out", "partition_column": "dt", "key": ["id"],
              "event_time": "event_ts", "ingest_time": "ingested_at", "allowed_lateness": "5m"},
    "plain": {"source": "ev", "target": "ev_plain", "key": ["id"], "event_time": "event_ts", "ingest_time": "ingested_at"},
    "no_times": {"source": "ev", "target": "ev_none", "key": ["id"]}}})";

Result<LatenessReport> lag(const Workspace &ws, const QString &dataset,
                           LatenessOptions options = {}) {
    return lateness(ws.db, *ws.spec.dataset(dataset), options);
}

} // namespace

class TestLateness : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::optional<Database> m_engine;
    // A database with the control schema: the engine's own timestamp
    // function (SQLite: registered from this process; PostgreSQL: rewind.epoch_ms).
    const Database &engine() {
        if (!m_engine) {
            m_engine = testsupport::makeDatabase(m_dir, QStringLiteral("parse.db"), {});
            if (auto s = controlschema::migrate(*m_engine); !s)
                qFatal("%s", qPrintable(s.error().message));
        }
        return *m_engine;
    }

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void parsesEveryTimestampForm_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("ms");                            // -1: unparseable
        const qint64 t = kDay0 * 1000 + 10 * 3600000 + 20 * 60000; // 2025-05-01T10:20:00Z
        QTest::newRow("Z") << QStringLiteral("2025-05-01T10:20:00Z") << t;
        QTest::newRow("space, no zone") << QStringLiteral("2025-05-01 10:20:00") << t;
        QTest::newRow("lower t z") << QStringLiteral("2025-05-01t10:20:00z") << t;
        QTest::newRow("minutes only") << QStringLiteral("2025-05-01T10:20") << t;
        QTest::newRow("offset") << QStringLiteral("2025-05-01T12:20:00+02:00") << t;
        QTest::newRow("offset no colon") << QStringLiteral("2025-05-01T05:20:00-0500") << t;
        QTest::newRow("offset hours") << QStringLiteral("2025-05-01T11:20:00+01") << t;
        QTest::newRow("fraction") << QStringLiteral("2025-05-01T10:20:00.250Z") << t + 250;
        QTest::newRow("comma fraction") << QStringLiteral("2025-05-01T10:20:00,5") << t + 500;
        QTest::newRow("micro fraction truncates")
            << QStringLiteral("2025-05-01T10:20:00.1236Z") << t + 123;
        QTest::newRow("date only") << QStringLiteral("2025-05-01") << kDay0 * 1000;
        QTest::newRow("padded") << QStringLiteral("  2025-05-01T10:20:00Z ") << t;
        QTest::newRow("epoch") << QString::number(t / 1000) << t;
        QTest::newRow("epoch fraction") << QStringLiteral("1746094800.5") << t + 500;
        QTest::newRow("leap day") << QStringLiteral("2024-02-29T00:00:00Z")
                                  << qint64(1709164800000);
        QTest::newRow("bad month") << QStringLiteral("2025-13-01T00:00:00Z") << qint64(-1);
        QTest::newRow("bad day") << QStringLiteral("2025-02-29") << qint64(-1);
        QTest::newRow("bad hour") << QStringLiteral("2025-05-01T24:00:00Z") << qint64(-1);
        QTest::newRow("garbage") << QStringLiteral("yesterday") << qint64(-1);
        QTest::newRow("empty") << QString() << qint64(-1);
        QTest::newRow("trailing junk") << QStringLiteral("2025-05-01T10:20:00Zx") << qint64(-1);
        QTest::newRow("epoch dot") << QStringLiteral("12.") << qint64(-1);
        // Where PostgreSQL's rewind.epoch_ms and this parser once differed.
        QTest::newRow("hour 24") << QStringLiteral("2025-05-01T24:00:00Z") << qint64(-1);
        QTest::newRow("leap second") << QStringLiteral("2025-05-01T23:59:60Z") << qint64(-1);
        QTest::newRow("year 0000") << QStringLiteral("0000-01-01") << qint64(-1);
        QTest::newRow("year 0001") << QStringLiteral("0001-01-01") << qint64(-62135596800000);
        QTest::newRow("year 9999")
            << QStringLiteral("9999-12-31T23:59:59.999Z") << qint64(253402300799999);
        QTest::newRow("date and zone") << QStringLiteral("2025-05-01Z") << kDay0 * 1000;
        QTest::newRow("space before offset") << QStringLiteral("2025-05-01T12:20:00 +02:00") << t;
        QTest::newRow("half-hour offset") << QStringLiteral("2025-05-01T15:50:00+05:30") << t;
        QTest::newRow("offset 15:59") << QStringLiteral("2025-05-02T02:19:00+15:59") << t;
        QTest::newRow("offset 16") << QStringLiteral("2025-05-01T10:20:00+16:00") << qint64(-1);
        QTest::newRow("offset minutes 75")
            << QStringLiteral("2025-05-01T10:20:00+01:75") << qint64(-1);
        QTest::newRow("offset colon alone")
            << QStringLiteral("2025-05-01T11:20:00+01:") << qint64(-1);
        QTest::newRow("fraction and offset")
            << QStringLiteral("2025-05-01T12:20:00.5+02:00") << t + 500;
        QTest::newRow("fraction, offset no colon")
            << QStringLiteral("2025-05-01T12:20:00.5+0200") << t + 500;
        QTest::newRow("lower z, minutes only") << QStringLiteral("2025-05-01 10:20z") << t;
        QTest::newRow("tab and newline") << QStringLiteral("\t2025-05-01\n") << kDay0 * 1000;
        QTest::newRow("two spaces") << QStringLiteral("2025-05-01  10:20:00") << qint64(-1);
        QTest::newRow("fraction without seconds")
            << QStringLiteral("2025-05-01T10:20.5") << qint64(-1);
        QTest::newRow("seven fraction digits")
            << QStringLiteral("2025-05-01T10:20:00.9999999Z") << t + 999;
        QTest::newRow("seven digits, offset")
            << QStringLiteral("2025-05-01T12:20:00,1239996+02:00") << t + 123;
        QTest::newRow("negative epoch") << QStringLiteral("-1.5") << qint64(-1500);
        QTest::newRow("plus epoch") << QStringLiteral("+1746094800") << qint64(-1);
        QTest::newRow("epoch exponent") << QStringLiteral("1.7e9") << qint64(-1);
        QTest::newRow("epoch milliseconds") << QStringLiteral("1746094800000") << qint64(-1);
        QTest::newRow("last epoch second")
            << QStringLiteral("253402300799.9999") << qint64(253402300799999);
        QTest::newRow("first epoch second")
            << QStringLiteral("-62167219200") << qint64(-62167219200000);
        QTest::newRow("before the first") << QStringLiteral("-62167219200.5") << qint64(-1);
    }

    void parsesEveryTimestampForm() {
        QFETCH(QString, text);
        QFETCH(qint64, ms);
        const QByteArray bytes = text.toUtf8();
        // This process's parser (SQLite's rewind_epoch_ms, the watermark) and
        // the engine's: on PostgreSQL, rewind.epoch_ms is SQL of its own.
        QCOMPARE(parseEpochMs(bytes.constData(), bytes.size()).value_or(-1), ms);
        // As an operator types it (--to-datetime, --since): the same instant, or refused.
        const auto typed = timeutil::parseTimestamp(text);
        QCOMPARE(typed ? typed->toMSecsSinceEpoch() : qint64(-1), ms);
        const Database &db = engine();
        const auto read =
            db.scalar(QStringLiteral("SELECT ") %
                          TimeJson::of(db.dialect()).epochMs(QStringLiteral("CAST(? AS TEXT)")),
                      {text});
        QVERIFY2(read, read ? "" : qPrintable(read.error().message));
        QCOMPARE(read->isNull() ? qint64(-1) : read->toLongLong(), ms);
    }

    // A Kafka record's timestamp as the replay writes it (isoUtcMsUtf8, by
    // arithmetic) is QDateTime's ISO text: every edge of a day, month, leap
    // year and century, the last millisecond of 9999, outside that range
    // (QDateTime's own text), and a spread of instants in between.
    void recordTimestampsAsQDateTimeWritesThem() {
        std::vector<qint64> instants{0,
                                     1,
                                     999,
                                     86399999,
                                     86400000,
                                     951782400000,  // 2000-02-29
                                     951868799999,  // its last millisecond
                                     4107542400000, // 2100-03-01 (2100: no leap day)
                                     1700000000123,
                                     253402300799999,
                                     253402300800000,
                                     -1,
                                     -86400001};
        quint64 x = 88172645463325252ull;
        for (int i = 0; i < 20000; ++i) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            instants.push_back(qint64(x % 253402300800000ull));
        }
        std::array<char, 48> buf{};
        for (const qint64 ms : instants) {
            const std::string_view fast = timeutil::isoUtcMsUtf8(ms, buf);
            QCOMPARE(QString::fromUtf8(fast.data(), qsizetype(fast.size())),
                     timeutil::isoUtcMs(ms));
        }
    }

    void percentilesMatchAKnownDistribution() {
        // A skewed distribution over three days with many ties, ISO text in
        // mixed zone forms; expected answers from sorting the values here.
        std::vector<Row> rows;
        std::vector<qint64> values;
        quint32 x = 12345;
        for (int i = 0; i < 5000; ++i) {
            x = x * 1103515245u + 12345u;
            const quint32 r = (x >> 8) % 1000;
            const qint64 lateness = r < 900   ? qint64(r % 97)
                                    : r < 990 ? 100 + qint64(r) * 7
                                              : 7000 + qint64(r) * 97;
            const qint64 event = kDay0 + (i % 3) * 86400 + (i * 37) % 86400;
            values.push_back(lateness);
            const QString eventText = i % 2
                                          ? iso(event)
                                          : iso(event + 7200, QStringLiteral("yyyy-MM-dd HH:mm:ss"),
                                                QStringLiteral("+02:00"));
            rows.push_back(
                {iso(event, QStringLiteral("yyyy-MM-dd")), eventText, iso(event + lateness)});
        }
        QTemporaryDir dir;
        auto db = makeEvents(dir, rows);
        const QString spec = testsupport::writeFile(dir, QStringLiteral("s.json"), kSpec);
        auto ws = openWorkspace(db.url().text, spec);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        auto r = lag(*ws, QStringLiteral("events"));
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));

        QCOMPARE(r->count, qint64(values.size()));
        QCOMPARE(r->unparseable, 0);
        QCOMPARE(r->negative, 0);
        QCOMPARE(r->percentiles.p50.value_or(-1), nearestRank(values, 500) * 1000);
        QCOMPARE(r->percentiles.p90.value_or(-1), nearestRank(values, 900) * 1000);
        QCOMPARE(r->percentiles.p99.value_or(-1), nearestRank(values, 990) * 1000);
        QCOMPARE(r->percentiles.p999.value_or(-1), nearestRank(values, 999) * 1000);
        QCOMPARE(r->percentiles.max.value_or(-1),
                 *std::max_element(values.begin(), values.end()) * 1000);
        const qint64 late =
            std::count_if(values.begin(), values.end(), [](qint64 v) { return v > 7200; });
        QCOMPARE(r->late, late);
        QCOMPARE(r->lateFraction.value_or(-1), double(late) / double(values.size()));

        // The histogram covers every row exactly once, each value in its bucket.
        qint64 sum = 0;
        for (const auto &b : r->histogram) {
            sum += b.count;
            if (b.kind != QLatin1String("lateness"))
                continue;
            const qint64 expected = std::count_if(values.begin(), values.end(), [&](qint64 v) {
                return v * 1000 >= *b.loMs && v * 1000 < *b.hiMs;
            });
            QCOMPARE(b.count, expected);
        }
        QCOMPARE(sum, qint64(values.size()));
        QCOMPARE(r->histogram.size(), std::size_t(16 + 2)); // 16 log buckets, negative, unparseable

        // Per partition: three days, each with its own exact percentiles.
        QCOMPARE(r->partitions.size(), std::size_t(3));
        for (int day = 0; day < 3; ++day) {
            std::vector<qint64> own;
            for (std::size_t i = 0; i < values.size(); ++i)
                if (int(i % 3) == day)
                    own.push_back(values[i]);
            const auto &p = r->partitions[std::size_t(day)];
            QCOMPARE(p.partition.value_or(QString()),
                     iso(kDay0 + day * 86400, QStringLiteral("yyyy-MM-dd")));
            QCOMPARE(p.count, qint64(own.size()));
            QCOMPARE(p.percentiles.p99.value_or(-1), nearestRank(own, 990) * 1000);
            qint64 strip = 0;
            for (qint64 c : p.histogram)
                strip += c;
            QCOMPARE(strip, qint64(own.size()));
        }

        // A range covers only its partitions.
        LatenessOptions range;
        range.from = iso(kDay0 + 86400, QStringLiteral("yyyy-MM-dd"));
        range.to = iso(kDay0 + 2 * 86400, QStringLiteral("yyyy-MM-dd"));
        auto ranged = lag(*ws, QStringLiteral("events"), range);
        QVERIFY(ranged);
        std::vector<qint64> inRange;
        for (std::size_t i = 0; i < values.size(); ++i)
            if (i % 3 != 0)
                inRange.push_back(values[i]);
        QCOMPARE(ranged->count, qint64(inRange.size()));
        QCOMPARE(ranged->percentiles.p90.value_or(-1), nearestRank(inRange, 900) * 1000);
        QCOMPARE(ranged->partitions.size(), std::size_t(2));
    }

    // PostgreSQL may run the lateness query in parallel workers, which
    // cannot read a text timestamp that needs the exception block: forced
    // parallel plans must still count every row.
    void postgresParallelPlans() {
        if (!testsupport::onPostgres())
            QSKIP("PostgreSQL's parallel query");
        const QString d = QStringLiteral("2025-05-01");
        QTemporaryDir dir;
        auto db = makeEvents(
            dir,
            {{d, QStringLiteral("2025-05-01T10:00:00Z"), QStringLiteral("2025-05-01T10:00:30Z")},
             {d, QStringLiteral("2025-05-01T10:00:00Z"), QStringLiteral("2025-02-30T10:00:00Z")},
             {d, QStringLiteral("1746093600"), QStringLiteral("2025-05-01T10:01:00Z")}});
        QUrl url(db.url().text);
        url.setQuery(QStringLiteral("options=-c%20force_parallel_mode%3Don"));
        const QString spec = testsupport::writeFile(dir, QStringLiteral("s.json"), kSpec);
        auto ws = openWorkspace(url.toString(QUrl::FullyEncoded), spec);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        QCOMPARE(ws->db.scalar(QStringLiteral("SHOW force_parallel_mode"))->toString(),
                 QStringLiteral("on"));
        auto r = lag(*ws, QStringLiteral("events"));
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->count, 2);
        QCOMPARE(r->unparseable, 1);
        QCOMPARE(r->percentiles.max.value_or(0), 60000);
    }

    void negativeAndUnparseableTimestamps() {
        const QString d = QStringLiteral("2025-05-01");
        std::vector<Row> rows = {
            {d, QStringLiteral("2025-05-01T10:00:00Z"),
             QStringLiteral("2025-05-01T10:00:30Z")}, // 30
            {d, QStringLiteral("2025-05-01T10:00:00Z"),
             QStringLiteral("2025-05-01T10:01:00Z")}, // 60
            {d, QStringLiteral("2025-05-01T10:00:00Z"),
             QStringLiteral("2025-05-01T09:59:50Z")}, // -10: clock skew
            {d, QStringLiteral("2025-05-01T10:00:00Z"),
             QStringLiteral("2025-05-01T09:00:00Z")}, // -3600
            {d, QStringLiteral("2025-05-01T10:00:00Z"),
             QStringLiteral("2025-05-01T10:00:00.5Z")}, // 0.5
            {d, QStringLiteral("not a time"), QStringLiteral("2025-05-01T10:00:00Z")},
            {d, QStringLiteral("2025-05-01T10:00:00Z"), QStringLiteral("2025-02-30T10:00:00Z")},
            {d, QVariant(), QStringLiteral("2025-05-01T10:00:00Z")},
            {d, QStringLiteral("2025-05-01T10:00:00Z"), QVariant()},
            {d, QStringLiteral(""), QStringLiteral("")},
        };
        QTemporaryDir dir;
        auto db = makeEvents(dir, rows);
        const QString spec = testsupport::writeFile(dir, QStringLiteral("s.json"), kSpec);
        auto ws = openWorkspace(db.url().text, spec);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        auto r = lag(*ws, QStringLiteral("events"));
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->count, 5);
        QCOMPARE(r->negative, 2);
        QCOMPARE(r->unparseable, 5);
        QCOMPARE(r->missing, 2);
        QCOMPARE(r->rows, 10);
        // Sorted: -3600, -10, 0.5, 30, 60. Nearest rank: p50 is the 3rd, p90 the 5th.
        QCOMPARE(r->percentiles.min.value_or(0), -3600000);
        QCOMPARE(r->percentiles.p50.value_or(0), 500);
        QCOMPARE(r->percentiles.p90.value_or(0), 60000);
        QCOMPARE(r->percentiles.max.value_or(0), 60000);
        QCOMPARE(r->histogram.front().kind, QStringLiteral("negative"));
        QCOMPARE(r->histogram.front().count, 2);
        QCOMPARE(r->histogram.back().kind, QStringLiteral("unparseable"));
        QCOMPARE(r->histogram.back().count, 5);
        QCOMPARE(r->histogram[1].count, 1); // [0, 1): the half second

        // In JSON: the contract's fields, fractions as numbers, explicit buckets.
        const Json j = Json::parse(toJson(*r).dump());
        QCOMPARE(j["count"].get<qint64>(), 5);
        QCOMPARE(j["percentiles_seconds"]["p50"].get<double>(), 0.5);
        QCOMPARE(j["negative_count"].get<qint64>(), 2);
        QCOMPARE(j["unparseable_count"].get<qint64>(), 5);
        QCOMPARE(j["histogram"].back()["kind"].get<std::string>(), std::string("unparseable"));
        QCOMPARE(j["histogram"].front()["lo_seconds"].get<qint64>(), -3600);
    }

    void suggestsTheSmallestRoundDuration_data() {
        QTest::addColumn<QList<qint64>>("lateness"); // pairs: value, count
        QTest::addColumn<qint64>("suggested");       // -1: none
        QTest::addColumn<qint64>("late");
        // 98.5% within 10 s, 1% at 20 min: 30m is the first to keep 99%.
        QTest::newRow("30m") << QList<qint64>{10, 985, 1200, 10, 10800, 5} << qint64(1800)
                             << qint64(5);
        // Exactly 99% within a minute: 1m qualifies (at least 99%).
        QTest::newRow("1m at the boundary")
            << QList<qint64>{60, 990, 172800, 10} << qint64(60) << qint64(10);
        // 2% later than a week: nothing qualifies.
        QTest::newRow("none") << QList<qint64>{5, 98, 700000, 2} << qint64(-1) << qint64(0);
        // Just past 2h: 6h.
        QTest::newRow("6h") << QList<qint64>{7201, 100} << qint64(21600) << qint64(0);
    }

    void suggestsTheSmallestRoundDuration() {
        QFETCH(QList<qint64>, lateness);
        QFETCH(qint64, suggested);
        QFETCH(qint64, late);
        std::vector<Row> rows;
        for (qsizetype i = 0; i + 1 < lateness.size(); i += 2)
            for (qint64 k = 0; k < lateness[i + 1]; ++k)
                rows.push_back(
                    {QStringLiteral("2025-05-01"), iso(kDay0 + k), iso(kDay0 + k + lateness[i])});
        QTemporaryDir dir;
        auto db = makeEvents(dir, rows);
        const QString spec = testsupport::writeFile(dir, QStringLiteral("s.json"), kSpec);
        auto ws = openWorkspace(db.url().text, spec);
        QVERIFY(ws);
        auto r = lag(*ws, QStringLiteral("events"));
        QVERIFY(r);
        QCOMPARE(r->suggestion ? r->suggestion->seconds : qint64(-1), suggested);
        if (r->suggestion) {
            QCOMPARE(r->suggestion->late, late);
            QCOMPARE(r->suggestion->lateFraction, double(late) / double(r->count));
        }
        const Json j = Json::parse(toJson(*r).dump());
        if (suggested < 0)
            QVERIFY(j["suggested_allowed_lateness_seconds"].is_null());
        else
            QCOMPARE(j["suggested_allowed_lateness_seconds"].get<qint64>(), suggested);
    }

    void epochAndIsoMixedAcrossDatasets() {
        // The same events twice: as ISO text (with offsets and fractions) in
        // one dataset, as epoch seconds (integers, reals and text) in another.
        std::vector<Row> rows;
        QTemporaryDir dir;
        std::vector<qint64> values;
        for (int i = 0; i < 300; ++i) {
            const qint64 event = kDay0 + i * 600;
            const qint64 lateness = (i * i) % 5000 - 50;
            values.push_back(lateness);
            rows.push_back(
                {iso(event, QStringLiteral("yyyy-MM-dd")),
                 i % 3 ? iso(event)
                       : iso(event + 3600, QStringLiteral("yyyy-MM-dd"),
                             QStringLiteral("T") + iso(event + 3600, QStringLiteral("HH:mm:ss")) +
                                 QStringLiteral(".000+01:00")),
                 iso(event + lateness)});
        }
        auto db = makeEvents(dir, rows);
        for (int i = 0; i < 300; ++i) {
            const qint64 event = kDay0 + i * 600;
            const QVariant ev = i % 3 == 0   ? QVariant(event)
                                : i % 3 == 1 ? QVariant(double(event))
                                             : QVariant(QString::number(event));
            QVERIFY(db.exec(
                QStringLiteral("INSERT INTO ev_epoch VALUES (?, ?, ?, ?)"),
                {i, iso(event, QStringLiteral("yyyy-MM-dd")), ev, event + values[std::size_t(i)]}));
        }
        const QString spec = testsupport::writeFile(dir, QStringLiteral("s.json"), kSpec);
        auto ws = openWorkspace(db.url().text, spec);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        auto isoReport = lag(*ws, QStringLiteral("events"));
        auto epochReport = lag(*ws, QStringLiteral("epoch"));
        QVERIFY(isoReport && epochReport);
        QCOMPARE(isoReport->count, 300);
        QCOMPARE(epochReport->count, 300);
        QCOMPARE(epochReport->unparseable, 0);
        for (int pm : {500, 900, 990, 999}) {
            const qint64 expected = nearestRank(values, pm) * 1000;
            const auto pick = [pm](const LatenessPercentiles &p) {
                return pm == 500 ? p.p50 : pm == 900 ? p.p90 : pm == 990 ? p.p99 : p.p999;
            };
            QCOMPARE(pick(isoReport->percentiles).value_or(-1), expected);
            QCOMPARE(pick(epochReport->percentiles).value_or(-1), expected);
        }
        QCOMPARE(isoReport->negative, epochReport->negative);
        // Different allowed lateness, different late counts.
        QCOMPARE(epochReport->late,
                 std::count_if(values.begin(), values.end(), [](qint64 v) { return v > 300; }));
        QCOMPARE(isoReport->late,
                 std::count_if(values.begin(), values.end(), [](qint64 v) { return v > 7200; }));

        // An unpartitioned dataset: one partition, null.
        auto plain = lag(*ws, QStringLiteral("plain"));
        QVERIFY(plain);
        QCOMPARE(plain->partitions.size(), std::size_t(1));
        QVERIFY(!plain->partitions.front().partition.has_value());
        QVERIFY(!plain->lateFraction.has_value()); // no allowed_lateness
    }

    // The what-if counts (the console's watermark slider) are exactly what a
    // spec with that allowed_lateness would report, overall and per partition.
    void whatIfMatchesTheSpecsAllowedLateness() {
        std::vector<Row> rows;
        std::vector<qint64> values;
        quint32 x = 777;
        for (int i = 0; i < 3000; ++i) {
            x = x * 1103515245u + 12345u;
            const qint64 lateness = qint64((x >> 8) % 20000) - 50; // a few negative, up to ~5.5h
            const qint64 event = kDay0 + (i % 4) * 86400 + (i * 13) % 86400;
            values.push_back(lateness);
            rows.push_back(
                {iso(event, QStringLiteral("yyyy-MM-dd")), iso(event), iso(event + lateness)});
        }
        QTemporaryDir dir;
        auto db = makeEvents(dir, rows);
        const QString spec = testsupport::writeFile(dir, QStringLiteral("s.json"), kSpec);
        auto ws = openWorkspace(db.url().text, spec);
        QVERIFY(ws);
        LatenessOptions options;
        options.whatIfSeconds = {0, 1, 59, 60, 600, 3600, 7200, 18000, 100000};
        auto r = lag(*ws, QStringLiteral("events"), options);
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->whatIf.size(), options.whatIfSeconds.size());
        for (std::size_t i = 0; i < options.whatIfSeconds.size(); ++i) {
            const qint64 w = options.whatIfSeconds[i];
            const qint64 expected =
                std::count_if(values.begin(), values.end(), [w](qint64 v) { return v > w; });
            QCOMPARE(r->whatIf[i].seconds, w);
            QCOMPARE(r->whatIf[i].late, expected);
            QCOMPARE(r->whatIf[i].lateFraction, double(expected) / double(values.size()));
            // The same figures as a spec saying allowed_lateness = w.
            DatasetSpec changed = *ws->spec.dataset(QStringLiteral("events"));
            changed.allowedLatenessSeconds = w;
            auto same = lateness(ws->db, changed, {});
            QVERIFY(same);
            QCOMPARE(same->late, r->whatIf[i].late);
            QCOMPARE(same->lateFraction.value_or(-1), r->whatIf[i].lateFraction);
            qint64 perPartition = 0;
            for (std::size_t p = 0; p < r->partitions.size(); ++p) {
                QCOMPARE(r->partitions[p].whatIfLate.size(), options.whatIfSeconds.size());
                QCOMPARE(r->partitions[p].whatIfLate[i], same->partitions[p].late);
                perPartition += r->partitions[p].whatIfLate[i];
            }
            QCOMPARE(perPartition, expected);
        }

        // The CLI twin: lag --what-if.
        auto cli = testsupport::runCli(
            {QStringLiteral("lag"), QStringLiteral("--db"), db.url().text, QStringLiteral("--spec"),
             spec, QStringLiteral("--dataset"), QStringLiteral("events"),
             QStringLiteral("--what-if"), QStringLiteral("1h"), QStringLiteral("--what-if"),
             QStringLiteral("90s"), QStringLiteral("--json")});
        QCOMPARE(cli.exitCode, 0);
        const Json j = Json::parse(cli.out.toStdString());
        QCOMPARE(j["what_if"].size(), 2u);
        QCOMPARE(j["what_if"][0]["allowed_lateness_seconds"].get<qint64>(), 3600);
        QCOMPARE(
            j["what_if"][0]["late_count"].get<qint64>(),
            qint64(std::count_if(values.begin(), values.end(), [](qint64 v) { return v > 3600; })));
        QCOMPARE(
            j["what_if"][1]["late_count"].get<qint64>(),
            qint64(std::count_if(values.begin(), values.end(), [](qint64 v) { return v > 90; })));
        auto bad = testsupport::runCli({QStringLiteral("lag"), QStringLiteral("--db"),
                                        db.url().text, QStringLiteral("--spec"), spec,
                                        QStringLiteral("--dataset"), QStringLiteral("events"),
                                        QStringLiteral("--what-if"), QStringLiteral("soon")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("--what-if")), qPrintable(bad.err));
    }

    void cliContractAndBadInput() {
        std::vector<Row> rows;
        for (int i = 0; i < 10; ++i)
            rows.push_back({i < 5 ? QStringLiteral("2025-05-01") : QStringLiteral("2025-05-02"),
                            iso(kDay0 + i), iso(kDay0 + i * 2)});
        QTemporaryDir dir;
        auto db = makeEvents(dir, rows);
        const QString spec = testsupport::writeFile(dir, QStringLiteral("s.json"), kSpec);
        const QStringList base{QStringLiteral("--db"), db.url().text, QStringLiteral("--spec"),
                               spec};

        auto ok =
            testsupport::runCli(QStringList{QStringLiteral("lag")} + base +
                                QStringList{QStringLiteral("--dataset"), QStringLiteral("events"),
                                            QStringLiteral("--buckets"), QStringLiteral("4"),
                                            QStringLiteral("--json")});
        QCOMPARE(ok.exitCode, 0);
        const Json j = Json::parse(ok.out.toStdString());
        for (const char *key :
             {"dataset", "count", "percentiles_seconds", "histogram", "allowed_lateness_seconds",
              "late_fraction", "suggested_allowed_lateness_seconds"})
            QVERIFY2(j.contains(key), key);
        for (const char *key : {"p50", "p90", "p99", "p999", "max"})
            QVERIFY2(j["percentiles_seconds"].contains(key), key);
        QCOMPARE(j["count"].get<int>(), 10);
        QCOMPARE(j["allowed_lateness_seconds"].get<int>(), 7200);
        QVERIFY(j["histogram"].size() <= 4 + 2);
        for (const auto &b : j["histogram"])
            QVERIFY(b.contains("lo_seconds") && b.contains("hi_seconds") && b.contains("count"));

        auto ranged =
            testsupport::runCli(QStringList{QStringLiteral("lag")} + base +
                                QStringList{QStringLiteral("--dataset"), QStringLiteral("events"),
                                            QStringLiteral("--from"), QStringLiteral("2025-05-02"),
                                            QStringLiteral("--to"), QStringLiteral("2025-05-02"),
                                            QStringLiteral("--json")});
        QCOMPARE(ranged.exitCode, 0);
        QCOMPARE(Json::parse(ranged.out.toStdString())["count"].get<int>(), 5);

        struct Bad {
            QStringList args;
            QString culprit;
        };
        const std::vector<Bad> bad = {
            {{QStringLiteral("--dataset"), QStringLiteral("nope")}, QStringLiteral("nope")},
            {{QStringLiteral("--dataset"), QStringLiteral("no_times")},
             QStringLiteral("event_time")},
            {{QStringLiteral("--dataset"), QStringLiteral("events"), QStringLiteral("--from"),
              QStringLiteral("2025-05-02"), QStringLiteral("--to"), QStringLiteral("2025-05-01")},
             QStringLiteral("2025-05-02")},
            {{QStringLiteral("--dataset"), QStringLiteral("events"), QStringLiteral("--from"),
              QStringLiteral("2026-01-01"), QStringLiteral("--to"), QStringLiteral("2026-01-02")},
             QStringLiteral("2026-01-01")},
            {{QStringLiteral("--dataset"), QStringLiteral("events"), QStringLiteral("--from"),
              QStringLiteral("2025-05-01")},
             QStringLiteral("--to")},
            {{QStringLiteral("--dataset"), QStringLiteral("events"), QStringLiteral("--buckets"),
              QStringLiteral("0")},
             QStringLiteral("--buckets")},
        };
        for (const Bad &b : bad) {
            auto r = testsupport::runCli(QStringList{QStringLiteral("lag")} + base + b.args);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(b.culprit), qPrintable(r.err));
        }
    }
};

QTEST_GUILESS_MAIN(TestLateness)
#include "tst_lateness.moc"
