// Hostile input that looks fuzzed: payloads (truncated, nested 10,000 deep,
// 1e400, duplicate keys, a BOM, invalid UTF-8, a NUL byte, a lone surrogate)
// through stream replay, DLQ fix and validate; timestamps in the future,
// negative lateness and epoch milliseconds among seconds through lag. Each
// has one defined outcome, asserted here; none crashes (the sanitizer stage
// of scripts/test runs this under ASan and UBSan).
#include "core/dlq/dlq.h"
#include "core/dlq/dlqdialect.h"
#include "core/lateness/lateness.h"
#include "core/sql/sqliteepoch.h"
#include "core/sql/timejson.h"
#include "core/streams/replay.h"
#include "core/util/timeutil.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QDateTime>
#include <QStringDecoder>
#include <QTest>
#include <cmath>

using namespace rw;

namespace {

// Whether a PostgreSQL text column can hold these bytes: valid UTF-8, no NUL.
bool textHolds(const QByteArray &bytes) {
    QStringDecoder decode(QStringDecoder::Utf8, QStringDecoder::Flag::ConvertInitialBom);
    const QString text = decode(bytes);
    return !decode.hasError() && !bytes.contains('\0');
}

QByteArray nested(int depth) {
    return QByteArray("{\"order_id\": 5, \"amount\": 1, \"note\": ") + QByteArray(depth, '[') +
           QByteArray(depth, ']') + '}';
}

const QByteArray kStreamSpec =
    "{\"streams\": {\"ev\": {\"log\": \"ev_log\", \"sink\": \"ev_sink\","
    "    \"fields\": {\"order_id\": \"$.order_id\", \"amount\": \"$.amount\", \"note\": "
    "\"$.note\"}, \"required\": [\"order_id\", \"amount\"]}}}";

// One stream log, replayed once: each event lands in the sink or the DLQ.
struct Stream {
    QTemporaryDir dir;
    std::optional<Workspace> ws;

    explicit Stream(const std::vector<QByteArray> &payloads) {
        auto db = testsupport::makeDatabase(
            dir, QStringLiteral("h.db"),
            {
                QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                               "event_id TEXT, record_ts TEXT, payload TEXT)"),
            });
        qint64 offset = 0;
        for (const QByteArray &p : payloads) {
            // SQLite: bound as bytes (a BLOB), as a log written by another
            // system may hold them. PostgreSQL: as text (the log's payload
            // column is TEXT there).
            if (!db.exec(QStringLiteral(
                             "INSERT INTO ev_log VALUES (0, ?, ?, '2025-05-06T10:00:00Z', ?)"),
                         {offset, QStringLiteral("e%1").arg(offset),
                          DlqDialect::of(db.dialect()).payloadValue(p)}))
                qFatal("insert");
            ++offset;
        }
        auto opened = openWorkspace(
            db.url().text, testsupport::writeFile(dir, QStringLiteral("s.json"), kStreamSpec));
        if (!opened)
            qFatal("%s", qPrintable(opened.error().message));
        ws = std::move(*opened);
        ReplayOptions o;
        o.execute = true;
        if (auto r = replay(ws->db, *ws->spec.stream(QStringLiteral("ev")), QStringLiteral("g"), o);
            !r)
            qFatal("%s", qPrintable(r.error().message));
    }

    const Database &db() const { return ws->db; }
    QVariant value(const QString &sql, const QVariantList &binds = {}) const {
        return *db().scalar(sql, binds);
    }
    QVariant dlqId(const QString &eventId) const {
        return value(QStringLiteral("SELECT dlq_id FROM rewind_dlq WHERE event_id = ?"), {eventId});
    }
    // Every DLQ record's id, status and payload, and the length of the history.
    QString state() const {
        return testsupport::digest(
                   db().url().text,
                   QStringLiteral("SELECT dlq_id, status, payload FROM rewind_dlq")) +
               value(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq_history")).toString();
    }
    // validate (a dry-run replay) of one record: "valid" or its error class.
    QString verdict(qint64 id) const {
        DlqSelection s;
        s.ids = {id};
        auto r = replayDlq(db(), ws->spec, s, {});
        if (!r)
            return QStringLiteral("error: ") + r.error().message;
        if (r->records.size() != 1)
            return QStringLiteral("no verdict");
        return r->records[0].valid ? QStringLiteral("valid") : r->records[0].errorClass;
    }
};

} // namespace

class TestHostile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Where a hostile event lands: SQLite's JSON functions judge it, as the
    // replay's validation does (docs/cli.md, dlq).
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void payloadThroughReplayFixAndValidate_data() {
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<QString>("lands");     // "sink" or the DLQ error class
        QTest::addColumn<QString>("setResult"); // fix --set $.amount=5 on its DLQ record: the
                                                // verdict after, or the refusal's text ("not ...")
        QTest::addColumn<QString>("replaceResult"); // fix --payload-file with these bytes: the
                                                    // verdict after, or the refusal's text
        const bool pg = testsupport::onPostgres();

        QTest::newRow("truncated")
            << QByteArray("{\"order_id\": 4, \"amount\": ") << QStringLiteral("invalid_json")
            << QStringLiteral("not JSON") << QStringLiteral("not valid JSON (at byte 27)");
        // Deeper than SQLite's JSON nesting limit (2000): not JSON to the
        // database. jsonb (PostgreSQL) has no such limit.
        if (pg)
            QTest::newRow("nested 10k deep")
                << nested(10000) << QStringLiteral("sink") << QString() << QStringLiteral("valid");
        else
            QTest::newRow("nested 10k deep")
                << nested(10000) << QStringLiteral("invalid_json") << QStringLiteral("not JSON")
                << QStringLiteral("not valid JSON for the database's JSON functions");
        QTest::newRow("nested 1998 deep")
            << nested(1998) << QStringLiteral("sink") << QString() << QStringLiteral("valid");
        // SQLite reads 1e400 as +Infinity (PostgreSQL as an exact NUMERIC); the strict fix parser
        // refuses it.
        QTest::newRow("1e400") << QByteArray("{\"order_id\": 7, \"amount\": 1e400}")
                               << QStringLiteral("sink") << QString()
                               << QStringLiteral("number overflow");
        // Past NUMERIC's range (an exponent over 131072): jsonb refuses it.
        QTest::newRow("1e200000") << QByteArray("{\"order_id\": 7, \"amount\": 1e200000}")
                                  << (pg ? QStringLiteral("invalid_json") : QStringLiteral("sink"))
                                  << (pg ? QStringLiteral("not JSON") : QString())
                                  << QStringLiteral("number overflow");
        QTest::newRow("-1e400 amount null")
            << QByteArray("{\"order_id\": -1e400, \"amount\": null}")
            << QStringLiteral("missing_field") << QStringLiteral("valid")
            << QStringLiteral("number overflow");
        QTest::newRow("huge integers")
            << QByteArray("{\"order_id\": 123456789012345678901234567890, \"amount\": "
                          "18446744073709551616}")
            << QStringLiteral("sink") << QString() << QStringLiteral("valid");
        // Duplicate keys: the first occurrence is the one json_extract and
        // json_set see; jsonb (PostgreSQL) keeps the last one only.
        const QString firstWins = pg ? QStringLiteral("missing_field") : QStringLiteral("sink");
        const QString firstNull = pg ? QStringLiteral("sink") : QStringLiteral("missing_field");
        const auto verdictAfterSet = [](const QString &lands) {
            return lands == QLatin1String("sink") ? QString() : QStringLiteral("valid");
        };
        const auto verdictAfterReplace = [](const QString &lands) {
            return lands == QLatin1String("sink") ? QStringLiteral("valid") : lands;
        };
        QTest::newRow("duplicate keys, first wins")
            << QByteArray("{\"order_id\": 8, \"amount\": 1, \"amount\": null}") << firstWins
            << verdictAfterSet(firstWins) << verdictAfterReplace(firstWins);
        QTest::newRow("duplicate keys, first null")
            << QByteArray("{\"order_id\": 8, \"amount\": null, \"amount\": 1}") << firstNull
            << verdictAfterSet(firstNull) << verdictAfterReplace(firstNull);
        QTest::newRow("BOM") << QByteArray("\xef\xbb\xbf{\"order_id\": 10, \"amount\": 1}")
                             << QStringLiteral("invalid_json") << QStringLiteral("not JSON")
                             << QStringLiteral("not valid JSON for the database's JSON functions");
        // Not UTF-8 inside a string: SQLite keeps the bytes; a fix must be UTF-8.
        // (A PostgreSQL text log cannot hold these bytes, nor a NUL.)
        QTest::newRow("invalid UTF-8")
            << QByteArray("{\"order_id\": 11, \"amount\": 1, \"note\": \"caf\xe9 \xff\xfe\x80\"}")
            << QStringLiteral("sink") << QString() << QStringLiteral("not valid JSON");
        QTest::newRow("invalid UTF-8, amount missing")
            << QByteArray("{\"order_id\": 11, \"note\": \"\xc3\x28\"}")
            << QStringLiteral("missing_field") << QStringLiteral("valid")
            << QStringLiteral("not valid JSON");
        QTest::newRow("NUL byte") << QByteArray(
                                         "{\"order_id\": 12, \"amount\": 1, \"note\": \"a\0b\"}",
                                         44)
                                  << QStringLiteral("invalid_json") << QStringLiteral("not JSON")
                                  << QStringLiteral("not valid JSON");
        // SQLite keeps a lone surrogate escape; jsonb refuses it.
        QTest::newRow("lone surrogate")
            << QByteArray("{\"order_id\": 13, \"amount\": 1, \"note\": \"\\ud800\"}")
            << (pg ? QStringLiteral("invalid_json") : QStringLiteral("sink"))
            << (pg ? QStringLiteral("not JSON") : QString()) << QStringLiteral("not valid JSON");
        QTest::newRow("empty") << QByteArray("") << QStringLiteral("invalid_json")
                               << QStringLiteral("not JSON") << QStringLiteral("not valid JSON");
        // $.amount does not apply to an array: the value stays as it is, and so do its bytes.
        QTest::newRow("top-level array")
            << QByteArray("[{\"order_id\": 14, \"amount\": 1}]") << QStringLiteral("missing_field")
            << QStringLiteral("missing_field") << QStringLiteral("missing_field");
    }

    void payloadThroughReplayFixAndValidate() {
        QFETCH(QByteArray, payload);
        QFETCH(QString, lands);
        QFETCH(QString, setResult);
        QFETCH(QString, replaceResult);
        // e0: the hostile event; e1: a plain missing_field record to replace the payload of.
        // A PostgreSQL text column holds valid UTF-8 without NUL only: there
        // e0 is a plain event and only the replacement below is hostile.
        const bool storable = !testsupport::onPostgres() || textHolds(payload);
        Stream s({storable ? payload : QByteArray("{\"order_id\": 0, \"amount\": 0}"),
                  QByteArray("{\"order_id\": 1}")});
        if (!storable)
            lands = QStringLiteral("sink");

        // Exactly once: in the sink or in the DLQ, with the bytes as given.
        const qint64 inSink =
            s.value(QStringLiteral("SELECT COUNT(*) FROM ev_sink WHERE event_id = 'e0'"))
                .toLongLong();
        const QVariant id = s.dlqId(QStringLiteral("e0"));
        QCOMPARE(inSink + (id.isNull() ? 0 : 1), 1);
        if (lands == QLatin1String("sink")) {
            QVERIFY(id.isNull());
            if (storable)
                QCOMPARE(
                    s.value(QStringLiteral("SELECT COUNT(*) FROM ev_sink WHERE event_id = 'e0' AND "
                                           "order_id IS NOT NULL AND amount IS NOT NULL"))
                        .toInt(),
                    1);
        } else {
            QVERIFY(!id.isNull());
            auto shown = showDlq(s.db(), id.toLongLong());
            QVERIFY(shown);
            QCOMPARE(shown->record.errorClass, lands);
            QCOMPARE(*shown->payload, payload);
            QCOMPARE(*shown->originalPayload, payload);
            QCOMPARE(s.verdict(id.toLongLong()), lands);

            DlqFixRequest fix;
            fix.selection.ids = {id.toLongLong()};
            fix.sets = {{QStringLiteral("$.amount"), QStringLiteral("5")}};
            fix.execute = true;
            const QString before = s.state();
            auto fixed = fixDlq(s.db(), fix);
            if (!setResult.startsWith(QLatin1String("not "))) {
                QVERIFY2(fixed, qPrintable(fixed ? QString() : fixed.error().message));
                const bool array = payload.startsWith('[');
                QCOMPARE(fixed->changed, array ? 0 : 1);
                if (array)
                    QCOMPARE(*showDlq(s.db(), id.toLongLong())->payload, payload);
                QCOMPARE(s.verdict(id.toLongLong()), setResult);
            } else {
                QVERIFY(!fixed);
                QCOMPARE(fixed.error().code, Error::Code::BadInput);
                QVERIFY2(fixed.error().message.contains(setResult),
                         qPrintable(fixed.error().message));
                QCOMPARE(s.state(), before); // nothing changed
            }
        }

        // The same bytes offered as an operator's replacement payload.
        const qint64 target = s.dlqId(QStringLiteral("e1")).toLongLong();
        DlqFixRequest replace;
        replace.selection.ids = {target};
        replace.payload = payload;
        replace.execute = true;
        const QString before = s.state();
        auto replaced = fixDlq(s.db(), replace);
        if (replaceResult == QLatin1String("valid") ||
            replaceResult == QLatin1String("missing_field")) {
            QVERIFY2(replaced, qPrintable(replaced ? QString() : replaced.error().message));
            QCOMPARE(showDlq(s.db(), target)->payload.value_or(QByteArray()), payload);
            QCOMPARE(s.verdict(target), replaceResult);
        } else {
            QVERIFY(!replaced);
            QCOMPARE(replaced.error().code, Error::Code::BadInput);
            QVERIFY2(replaced.error().message.contains(replaceResult),
                     qPrintable(replaced.error().message));
            QVERIFY(replaced.error().message.contains(QLatin1String("nothing changed")));
            QCOMPARE(s.state(), before);
        }
    }

    // Numbers SQLite reads beyond double range land as +/-Infinity, kept as such.
    // On PostgreSQL the sink column is NUMERIC and keeps the number exactly.
    void hugeNumberLandsAsInfinity() {
        Stream s({QByteArray("{\"order_id\": 7, \"amount\": 1e400}")});
        if (testsupport::onPostgres()) {
            QCOMPARE(s.value(QStringLiteral(
                                 "SELECT CAST(amount AS TEXT) FROM ev_sink WHERE event_id = 'e0'"))
                         .toString(),
                     QString(u'1' + QString(400, u'0')));
            return;
        }
        const double amount =
            s.value(QStringLiteral("SELECT amount FROM ev_sink WHERE event_id = 'e0'")).toDouble();
        QVERIFY(std::isinf(amount) && amount > 0);
    }

    // Epoch numbers are seconds within years 0000-9999. Epoch milliseconds
    // (13 digits) are out of range: refused where an operator types them,
    // unparseable in data, never read as a date 50,000 years ahead.
    void epochRangeAndMilliseconds_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("ms"); // -1: refused / unparseable
        QTest::newRow("seconds") << QStringLiteral("1746094800") << qint64(1746094800000);
        QTest::newRow("milliseconds") << QStringLiteral("1746094800000") << qint64(-1);
        QTest::newRow("milliseconds, fraction") << QStringLiteral("1746094800000.5") << qint64(-1);
        QTest::newRow("last second of 9999")
            << QStringLiteral("253402300799") << qint64(253402300799000);
        QTest::newRow("year 10000") << QStringLiteral("253402300800") << qint64(-1);
        QTest::newRow("year 0") << QStringLiteral("-62167219200") << qint64(-62167219200000);
        QTest::newRow("before year 0") << QStringLiteral("-62167219201") << qint64(-1);
        QTest::newRow("20 digits") << QStringLiteral("99999999999999999999") << qint64(-1);
        QTest::newRow("400 digits") << QString(400, u'9') << qint64(-1);
    }

    void epochRangeAndMilliseconds() {
        QFETCH(QString, text);
        QFETCH(qint64, ms);
        const QByteArray bytes = text.toLatin1();
        QCOMPARE(parseEpochMs(bytes.constData(), bytes.size()).value_or(-1), ms);
        auto typed = timeutil::parseTimestamp(text);
        QCOMPARE(typed ? typed->toMSecsSinceEpoch() : qint64(-1), ms);
        if (!typed)
            QCOMPARE(typed.error().code, Error::Code::BadInput);
    }

    void durationsAreBounded_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("seconds"); // -1: refused
        QTest::newRow("1h30m") << QStringLiteral("1h30m") << qint64(5400);
        QTest::newRow("100 years of days") << QStringLiteral("36600d") << qint64(36600 * 86400LL);
        QTest::newRow("past 100 years") << QStringLiteral("36601d") << qint64(-1);
        QTest::newRow("overflows seconds") << QStringLiteral("106751991167301d") << qint64(-1);
        QTest::newRow("overflows qint64") << QStringLiteral("99999999999999999999s") << qint64(-1);
        QTest::newRow("sum past the bound") << QStringLiteral("36600d36600d") << qint64(-1);
        QTest::newRow("negative") << QStringLiteral("-1h") << qint64(-1);
        QTest::newRow("no unit") << QStringLiteral("3600") << qint64(-1);
    }

    void durationsAreBounded() {
        QFETCH(QString, text);
        QFETCH(qint64, seconds);
        auto d = timeutil::parseDuration(text);
        QCOMPARE(d ? *d : qint64(-1), seconds);
        if (!d)
            QCOMPARE(d.error().code, Error::Code::BadInput);
        // In a spec, too: a clean refusal that names the field.
        const QByteArray spec =
            "{\"datasets\": {\"d\": {\"source\": \"s\", \"target\": \"t\", \"key\": [\"id\"], "
            "\"event_time\": \"ts\", \"allowed_lateness\": \"" +
            text.toLatin1() + "\"}}}";
        auto parsed = parseSpec(spec, QStringLiteral("h.json"));
        QCOMPARE(bool(parsed), seconds >= 0);
        if (parsed)
            QCOMPARE(parsed->datasets.at(0).allowedLatenessSeconds.value_or(-1), seconds);
        else
            QVERIFY2(parsed.error().message.contains(QLatin1String("allowed_lateness")),
                     qPrintable(parsed.error().message));
    }

    // lag over hostile timestamps: events from the future (ingest before
    // event) are negative lateness; epoch milliseconds among seconds are
    // unparseable; the wall clock plays no part.
    void lagOverFutureAndMixedUnits() {
        constexpr qint64 t = 1746094800;      // 2025-05-01T10:20:00Z
        constexpr qint64 future = 4102444800; // 2100-01-01T00:00:00Z
        QTemporaryDir dir;
        // SQLite columns without a type hold integers, reals and text side
        // by side. A PostgreSQL column has one type: events as TEXT, ingest
        // times as NUMERIC, so both kinds of column meet each hostile value.
        const QString columns =
            testsupport::onPostgres()
                ? QStringLiteral("(id INTEGER, dt TEXT, event_ts TEXT, ingested_at NUMERIC)")
                : QStringLiteral("(id INTEGER, dt TEXT, event_ts, ingested_at)");
        auto db =
            testsupport::makeDatabase(dir, QStringLiteral("l.db"),
                                      {
                                          QStringLiteral("CREATE TABLE ev ") + columns,
                                          QStringLiteral("CREATE TABLE ev_shifted ") + columns,
                                      });
        const QVariantList rows[] = {
            {1, t, t + 30},           // 30 s late
            {2, t, t + 90},           // 90 s late
            {3, future, t},           // event from the future: ingest 75 years before it
            {4, future, future + 60}, // both in the future: 60 s late
            {5, t, (t + 60) * 1000},  // ingest in milliseconds: unparseable
            {6, t * 1000, t + 60},    // event in milliseconds: unparseable
            {7, QString::number(t), QString::number((t + 5) * 1000)}, // as text, too
            {8, double(t) * 1000.0, t},                               // as a REAL, too
        };
        for (const QVariantList &r : rows) {
            QVERIFY(db.exec(QStringLiteral("INSERT INTO ev VALUES (?, '2025-05-01', ?, ?)"), r));
            // The same events shifted 50 years ahead, when they are numbers of seconds.
            const auto shift = [](const QVariant &v) {
                return v.typeId() == QMetaType::LongLong || v.typeId() == QMetaType::Int
                           ? QVariant(v.toLongLong() + 1577836800LL)
                           : v;
            };
            QVERIFY(db.exec(QStringLiteral("INSERT INTO ev_shifted VALUES (?, '2025-05-01', ?, ?)"),
                            {r[0], shift(r[1]), shift(r[2])}));
        }
        const QByteArray spec = "{\"datasets\": {"
                                "            \"events\": {\"source\": \"ev\", \"target\": "
                                "\"ev_out\", \"key\": [\"id\"], \"event_time\": \"event_ts\", "
                                "\"ingest_time\": \"ingested_at\", \"allowed_lateness\": \"1m\"},"
                                "            \"shifted\": {\"source\": \"ev_shifted\", \"target\": "
                                "\"ev_out2\", \"key\": [\"id\"], \"event_time\": \"event_ts\", "
                                "\"ingest_time\": \"ingested_at\", \"allowed_lateness\": \"1m\"}}}";
        auto ws = openWorkspace(db.url().text,
                                testsupport::writeFile(dir, QStringLiteral("s.json"), spec));
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        auto r = lateness(ws->db, *ws->spec.dataset(QStringLiteral("events")), {});
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->rows, 8);
        QCOMPARE(r->count, 4);
        QCOMPARE(r->unparseable, 4);
        QCOMPARE(r->missing, 0);
        QCOMPARE(r->negative, 1);
        QCOMPARE(r->percentiles.min.value_or(0), (t - future) * 1000);
        QCOMPARE(r->percentiles.max.value_or(0), 90000);
        QCOMPARE(r->late, 1); // 90 s > 1m; 60 s is not later than 1m
        QCOMPARE(r->histogram.front().kind, QStringLiteral("negative"));
        QCOMPARE(r->histogram.front().count, 1);
        QCOMPARE(r->histogram.back().kind, QStringLiteral("unparseable"));
        QCOMPARE(r->histogram.back().count, 4);

        auto shifted = lateness(ws->db, *ws->spec.dataset(QStringLiteral("shifted")), {});
        QVERIFY(shifted);
        QCOMPARE(shifted->count, r->count);
        QCOMPARE(shifted->negative, r->negative);
        QCOMPARE(shifted->unparseable, r->unparseable);
        QCOMPARE(shifted->percentiles.p50, r->percentiles.p50);
        QCOMPARE(shifted->percentiles.max, r->percentiles.max);

        // The watermark's parse agrees: a milliseconds value is no event time.
        const QString epochMs =
            QStringLiteral("SELECT ") + TimeJson::of(ws->db.dialect()).epochMs(QStringLiteral("?"));
        QVERIFY(ws->db.scalar(epochMs, {(t + 60) * 1000})->isNull());
        QCOMPARE(ws->db.scalar(epochMs, {future})->toLongLong(), future * 1000);
    }
};

QTEST_GUILESS_MAIN(TestHostile)
#include "tst_hostile.moc"
