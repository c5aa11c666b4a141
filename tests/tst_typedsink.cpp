// Stream replay into a sink the user made beforehand with typed columns
// (numeric(12,2), integer, timestamptz, boolean): an event whose value the
// column's type does not take goes to the DLQ as bad_value, naming the field,
// its path, the type and the value; every other event lands, the offsets
// reach the log end, the dry run counts the same, a second replay changes
// nothing, and dlq replay judges a fixed record by the same rule. Driven
// through rewindctl. PostgreSQL checks every typed column; SQLite stores
// anything anywhere, so there only a numeric type name is checked (a text
// that is no number), and the expectations say which engine does what; a
// SQLite STRICT sink is checked as strictly as the engine stores.
#include "tests/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTest>
#include <limits>

using testsupport::runCli;

namespace {

QJsonObject json(const QString &out) {
    return QJsonDocument::fromJson(out.toUtf8()).object();
}

qint64 scalar(const QString &db, const QString &sql) {
    auto d = rw::Database::open(db);
    if (!d)
        qFatal("%s", qPrintable(d.error().message));
    auto v = d->scalar(sql);
    if (!v)
        qFatal("%s", qPrintable(v.error().message));
    return v->toLongLong();
}

// event_id -> the first column of `sql`'s rows (event_id, value), in order.
QMap<QString, QString> pairs(const QString &db, const QString &sql) {
    auto d = rw::Database::open(db);
    auto q = d->exec(sql);
    if (!q)
        qFatal("%s", qPrintable(q.error().message));
    QMap<QString, QString> out;
    while (q->next())
        out.insert(q->value(0).toString(), q->value(1).toString());
    return out;
}

const QByteArray kSpec = R"({"streams": {"ts": {"log": "typed_log", "sink": "typed_sink",
    "fields": {"amount": "$.amount", "qty": "$.qty", "at": "$.at", "flag": "$.flag", "note": "$.note"},
    "required": ["amount"]}}})";
const QByteArray kMadeSpec =
    R"({"streams": {"made": {"log": "made_log", "sink": "made_sink", "fields": {"amount": "$.amount"}, "required": []}}})";

struct Event {
    QString id;
    QString payload;
    QString pg;     // where it goes on PostgreSQL: "sink" or the DLQ error class
    QString sqlite; // and on SQLite
};

// Good events of every kind a typed column takes, and one bad value per type.
const QList<Event> &events() {
    static const QList<Event> list = {
        {QStringLiteral("good-1"),
         QStringLiteral(
             R"({"amount": 10.5, "qty": 3, "at": "2025-05-06T10:00:00Z", "flag": true, "note": "ok"})"),
         QStringLiteral("sink"), QStringLiteral("sink")},
        {QStringLiteral("good-text"),
         QStringLiteral(
             R"({"amount": "12.25", "qty": " 7 ", "at": "2025-05-06 12:01:00+02", "flag": "false"})"),
         QStringLiteral("sink"), QStringLiteral("sink")},
        {QStringLiteral("good-edge"),
         QStringLiteral(
             R"({"amount": 99999999.99, "qty": -2147483648, "at": "2024-02-29T23:59:59.5Z", "flag": null})"),
         QStringLiteral("sink"), QStringLiteral("sink")},
        {QStringLiteral("good-nulls"), QStringLiteral(R"({"amount": 0, "qty": null})"),
         QStringLiteral("sink"), QStringLiteral("sink")},
        {QStringLiteral("bad-amount"), QStringLiteral(R"({"amount": "abc", "qty": 1})"),
         QStringLiteral("bad_value"), QStringLiteral("bad_value")},
        {QStringLiteral("bad-qty-text"), QStringLiteral(R"({"amount": 1, "qty": "lots"})"),
         QStringLiteral("bad_value"), QStringLiteral("bad_value")},
        {QStringLiteral("bad-both"), QStringLiteral(R"({"amount": "abc", "qty": "lots"})"),
         QStringLiteral("bad_value"), QStringLiteral("bad_value")},
        {QStringLiteral("bad-long"),
         QStringLiteral(R"({"amount": ")") + QString(100, u'x') + QStringLiteral(R"("})"),
         QStringLiteral("bad_value"), QStringLiteral("bad_value")},
        // What SQLite stores without a word: a fraction or a huge number in
        // an INTEGER column, an overflowing NUMERIC(12,2), any date or boolean.
        {QStringLiteral("bad-qty-fraction"), QStringLiteral(R"({"amount": 1, "qty": 1.5})"),
         QStringLiteral("bad_value"), QStringLiteral("sink")},
        {QStringLiteral("bad-qty-range"),
         QStringLiteral(R"({"amount": 1, "qty": 99999999999999999999})"),
         QStringLiteral("bad_value"), QStringLiteral("sink")},
        {QStringLiteral("bad-amount-overflow"), QStringLiteral(R"({"amount": 12345678901.5})"),
         QStringLiteral("bad_value"), QStringLiteral("sink")},
        {QStringLiteral("bad-at"), QStringLiteral(R"({"amount": 1, "at": "yesterday-ish"})"),
         QStringLiteral("bad_value"), QStringLiteral("sink")},
        {QStringLiteral("bad-at-day"),
         QStringLiteral(R"({"amount": 1, "at": "2025-02-30T10:00:00Z"})"),
         QStringLiteral("bad_value"), QStringLiteral("sink")},
        {QStringLiteral("bad-flag"), QStringLiteral(R"({"amount": 1, "flag": "maybe"})"),
         QStringLiteral("bad_value"), QStringLiteral("sink")},
        // Earlier classes win over bad_value.
        {QStringLiteral("missing-and-bad"), QStringLiteral(R"({"qty": "lots"})"),
         QStringLiteral("missing_field"), QStringLiteral("missing_field")},
        {QStringLiteral("not-json"), QStringLiteral(R"({"amount": )"),
         QStringLiteral("invalid_json"), QStringLiteral("invalid_json")},
    };
    return list;
}

QString literal(const QString &text) {
    QString t = text;
    return u'\'' + t.replace(u'\'', QStringLiteral("''")) + u'\'';
}

} // namespace

class TestTypedSink : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_spec;
    QString m_madeSpec;
    int m_copies = 0;
    bool m_pg = false;

    QString expected(const Event &e) const { return m_pg ? e.pg : e.sqlite; }
    QString type(const QString &pg, const QString &sqlite) const { return m_pg ? pg : sqlite; }

    // The events in two partitions (alternating), and the typed sink.
    QString typedDb() {
        QStringList rows;
        for (qsizetype i = 0; i < events().size(); ++i)
            rows << QStringLiteral("(%1, %2, %3, '2025-05-06T10:00:00Z', %4)")
                        .arg(i % 2)
                        .arg(i / 2)
                        .arg(literal(events()[i].id), literal(events()[i].payload));
        return testsupport::makeDatabase(
                   m_dir, QStringLiteral("typed-%1.db").arg(++m_copies),
                   {
                       QStringLiteral("CREATE TABLE typed_log (partition_id INTEGER, log_offset "
                                      "INTEGER, event_id TEXT, record_ts TEXT, payload TEXT)"),
                       QStringLiteral("INSERT INTO typed_log VALUES ") +
                           rows.join(QStringLiteral(", ")),
                       QStringLiteral(
                           "CREATE TABLE typed_sink (event_id TEXT PRIMARY KEY, amount "
                           "NUMERIC(12,2), qty INTEGER, \"at\" TIMESTAMP WITH TIME ZONE, "
                           "flag BOOLEAN, note TEXT)"),
                   })
            .url()
            .text;
    }

    QStringList replay(const QString &db, const QString &stream,
                       const QStringList &more = {}) const {
        return QStringList{QStringLiteral("replay"),
                           QStringLiteral("--db"),
                           db,
                           QStringLiteral("--spec"),
                           stream == QLatin1String("made") ? m_madeSpec : m_spec,
                           QStringLiteral("--stream"),
                           stream,
                           QStringLiteral("--group"),
                           QStringLiteral("g"),
                           QStringLiteral("--json")} +
               more;
    }

    QStringList dlq(const QString &db, const QString &command, const QStringList &more = {}) const {
        return QStringList{QStringLiteral("dlq"),    command, QStringLiteral("--db"),  db,
                           QStringLiteral("--spec"), m_spec,  QStringLiteral("--json")} +
               more;
    }

    static void verifyAtLogEnd(const QString &db, const QString &stream, const QString &log) {
        QCOMPARE(
            scalar(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT partition_id, MAX(log_offset) "
                                      "+ 1 AS e FROM %1 GROUP BY partition_id) AS l "
                                      "JOIN rewind_offsets AS o ON o.partition_id = l.partition_id "
                                      "AND o.stream = '%2' AND o.group_id = 'g' "
                                      "AND o.committed_offset = l.e")
                           .arg(log, stream)),
            scalar(db, QStringLiteral("SELECT COUNT(DISTINCT partition_id) FROM %1").arg(log)));
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        QVERIFY(m_dir.isValid());
        m_pg = testsupport::onPostgres();
        m_spec = testsupport::writeFile(m_dir, QStringLiteral("spec.json"), kSpec);
        m_madeSpec = testsupport::writeFile(m_dir, QStringLiteral("made.json"), kMadeSpec);
    }

    void badValuesGoToTheDlq() {
        const QString db = typedDb();
        QStringList sink, dead;
        for (const Event &e : events())
            (expected(e) == QLatin1String("sink") ? sink : dead) << e.id;
        QVERIFY(dead.size() > 3);
        const qint64 all = events().size();

        // The dry run counts what the replay does, and writes nothing.
        const auto dry = runCli(replay(db, QStringLiteral("ts"),
                                       {QStringLiteral("--batch-size"), QStringLiteral("5")}));
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        const QJsonObject d = json(dry.out);
        QCOMPARE(d.value(QStringLiteral("consumed")).toInteger(), all);
        QCOMPARE(d.value(QStringLiteral("inserted")).toInteger(), sink.size());
        QCOMPARE(d.value(QStringLiteral("dead_lettered")).toInteger(), dead.size());
        QCOMPARE(d.value(QStringLiteral("duplicates")).toInteger(), 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM typed_sink")), 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")), 0);

        const auto run = runCli(replay(
            db, QStringLiteral("ts"),
            {QStringLiteral("--execute"), QStringLiteral("--batch-size"), QStringLiteral("5")}));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject r = json(run.out);
        QCOMPARE(r.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(r.value(QStringLiteral("consumed")).toInteger(), all);
        QCOMPARE(r.value(QStringLiteral("inserted")).toInteger(), sink.size());
        QCOMPARE(r.value(QStringLiteral("dead_lettered")).toInteger(), dead.size());
        QCOMPARE(r.value(QStringLiteral("duplicates")).toInteger(), 0);
        QVERIFY(r.value(QStringLiteral("batches")).toInteger() > 1);
        for (const QString &key : {QStringLiteral("consumed"), QStringLiteral("inserted"),
                                   QStringLiteral("dead_lettered"), QStringLiteral("duplicates")})
            QCOMPARE(d.value(key).toInteger(), r.value(key).toInteger());

        // Exactly the good events in the sink, with their values; exactly the bad ones in the DLQ.
        QStringList landed = pairs(db, QStringLiteral("SELECT event_id, 1 FROM typed_sink")).keys();
        sink.sort();
        QCOMPARE(landed, sink);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM typed_sink WHERE event_id = "
                                           "'good-text' AND amount = 12.25 AND qty = 7")),
                 1);
        QCOMPARE(
            scalar(db, QStringLiteral("SELECT COUNT(*) FROM typed_sink WHERE event_id = 'good-1' "
                                      "AND amount = 10.5 AND qty = 3 AND note = 'ok'")),
            1);
        const QMap<QString, QString> classes = pairs(
            db, QStringLiteral(
                    "SELECT event_id, error_class FROM rewind_dlq WHERE source_kind = 'stream' "
                    "AND source_name = 'ts' AND status = 'new'"));
        QCOMPARE(classes.size(), dead.size());
        for (const Event &e : events())
            if (expected(e) != QLatin1String("sink"))
                QCOMPARE(classes.value(e.id), expected(e));
        QCOMPARE(scalar(db, QStringLiteral(
                                "SELECT COUNT(*) FROM rewind_dlq_history WHERE to_status = 'new'")),
                 dead.size());

        // The message names the field, its path, the column's type and the value (cut when long).
        const QMap<QString, QString> errors =
            pairs(db, QStringLiteral("SELECT event_id, error FROM rewind_dlq"));
        const QString numeric =
            type(QStringLiteral("numeric(12,2)"), QStringLiteral("NUMERIC(12,2)"));
        const QString integer = type(QStringLiteral("integer"), QStringLiteral("INTEGER"));
        QCOMPARE(errors.value(QStringLiteral("bad-amount")),
                 QStringLiteral("field amount ($.amount) is not a valid %1: \"abc\"").arg(numeric));
        QCOMPARE(errors.value(QStringLiteral("bad-qty-text")),
                 QStringLiteral("field qty ($.qty) is not a valid %1: \"lots\"").arg(integer));
        QCOMPARE(errors.value(QStringLiteral("bad-both")),
                 QStringLiteral("field amount ($.amount) is not a valid %1: \"abc\"; "
                                "field qty ($.qty) is not a valid %2: \"lots\"")
                     .arg(numeric, integer));
        QCOMPARE(errors.value(QStringLiteral("bad-long")),
                 QStringLiteral("field amount ($.amount) is not a valid %1: \"%2...\"")
                     .arg(numeric, QString(60, u'x')));
        QCOMPARE(errors.value(QStringLiteral("missing-and-bad")),
                 QStringLiteral("required field missing or null: amount ($.amount)"));
        if (m_pg) {
            QCOMPARE(errors.value(QStringLiteral("bad-qty-fraction")),
                     QStringLiteral("field qty ($.qty) is not a valid integer: \"1.5\""));
            QCOMPARE(errors.value(QStringLiteral("bad-qty-range")),
                     QStringLiteral(
                         "field qty ($.qty) is not a valid integer: \"99999999999999999999\""));
            QCOMPARE(
                errors.value(QStringLiteral("bad-amount-overflow")),
                QStringLiteral(
                    "field amount ($.amount) is not a valid numeric(12,2): \"12345678901.5\""));
            QCOMPARE(
                errors.value(QStringLiteral("bad-at")),
                QStringLiteral(
                    "field at ($.at) is not a valid timestamp with time zone: \"yesterday-ish\""));
            QCOMPARE(errors.value(QStringLiteral("bad-at-day")),
                     QStringLiteral("field at ($.at) is not a valid timestamp with time zone: "
                                    "\"2025-02-30T10:00:00Z\""));
            QCOMPARE(errors.value(QStringLiteral("bad-flag")),
                     QStringLiteral("field flag ($.flag) is not a valid boolean: \"maybe\""));
        }
        verifyAtLogEnd(db, QStringLiteral("ts"), QStringLiteral("typed_log"));

        // Read again from the start: nothing new lands, nothing is dead-lettered twice.
        QVERIFY(runCli({QStringLiteral("offsets-reset"), QStringLiteral("--db"), db,
                        QStringLiteral("--spec"), m_spec, QStringLiteral("--stream"),
                        QStringLiteral("ts"), QStringLiteral("--group"), QStringLiteral("g"),
                        QStringLiteral("--to-earliest"), QStringLiteral("--execute")})
                    .exitCode == 0);
        const QJsonObject againDry = json(runCli(replay(db, QStringLiteral("ts"))).out);
        const auto again = runCli(replay(db, QStringLiteral("ts"), {QStringLiteral("--execute")}));
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        const QJsonObject a = json(again.out);
        QCOMPARE(a.value(QStringLiteral("consumed")).toInteger(), all);
        QCOMPARE(a.value(QStringLiteral("inserted")).toInteger(), 0);
        QCOMPARE(a.value(QStringLiteral("dead_lettered")).toInteger(), 0);
        QCOMPARE(a.value(QStringLiteral("already_dead_lettered")).toInteger(), dead.size());
        QCOMPARE(a.value(QStringLiteral("duplicates")).toInteger(), sink.size());
        for (const QString &key :
             {QStringLiteral("inserted"), QStringLiteral("dead_lettered"),
              QStringLiteral("already_dead_lettered"), QStringLiteral("duplicates")})
            QCOMPARE(againDry.value(key).toInteger(), a.value(key).toInteger());
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM typed_sink")), sink.size());
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")), dead.size());
        verifyAtLogEnd(db, QStringLiteral("ts"), QStringLiteral("typed_log"));
    }

    // dlq validate and replay judge a record by the same rule: a fixed value
    // lands, a value still bad fails as bad_value, and nothing aborts.
    void dlqReplayOfBadValues() {
        const QString db = typedDb();
        QVERIFY(runCli(replay(db, QStringLiteral("ts"), {QStringLiteral("--execute")})).exitCode ==
                0);
        const QString fixedId = QString::number(scalar(
            db, QStringLiteral("SELECT dlq_id FROM rewind_dlq WHERE event_id = 'bad-amount'")));
        const QString badId = QString::number(scalar(
            db, QStringLiteral("SELECT dlq_id FROM rewind_dlq WHERE event_id = 'bad-qty-text'")));

        // Unfixed: validate says why.
        const QJsonObject before = json(
            runCli(dlq(db, QStringLiteral("validate"), {QStringLiteral("--id"), fixedId})).out);
        QCOMPARE(before.value(QStringLiteral("invalid")).toInteger(), 1);
        const QJsonObject verdict = testsupport::jsonAt(before, "records/0").toObject();
        QCOMPARE(verdict.value(QStringLiteral("error_class")).toString(),
                 QStringLiteral("bad_value"));
        QCOMPARE(verdict.value(QStringLiteral("error")).toString(),
                 QStringLiteral("field amount ($.amount) is not a valid %1: \"abc\"")
                     .arg(type(QStringLiteral("numeric(12,2)"), QStringLiteral("NUMERIC(12,2)"))));

        const auto fix = runCli(dlq(db, QStringLiteral("fix"),
                                    {QStringLiteral("--id"), fixedId, QStringLiteral("--set"),
                                     QStringLiteral("$.amount=5"), QStringLiteral("--execute")}));
        QVERIFY2(fix.exitCode == 0, qPrintable(fix.err));
        QCOMPARE(
            json(runCli(dlq(db, QStringLiteral("validate"), {QStringLiteral("--id"), fixedId})).out)
                .value(QStringLiteral("valid"))
                .toInteger(),
            1);

        // Every record new or fixed: the fixed one lands, the rest fail with their class.
        const auto replayed =
            runCli(dlq(db, QStringLiteral("replay"), {QStringLiteral("--execute")}));
        QVERIFY2(replayed.exitCode == 0, qPrintable(replayed.err));
        const QJsonObject r = json(replayed.out);
        QCOMPARE(r.value(QStringLiteral("replayed")).toInteger(), 1);
        QCOMPARE(r.value(QStringLiteral("inserted")).toInteger(), 1);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM typed_sink WHERE event_id = "
                                           "'bad-amount' AND amount = 5 AND qty = 1")),
                 1);
        QCOMPARE(
            scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'replayed'")),
            1);
        QCOMPARE(
            scalar(db, QStringLiteral(
                           "SELECT COUNT(*) FROM rewind_dlq WHERE dlq_id = %1 AND status = "
                           "'failed' AND last_error_class = 'bad_value' "
                           "AND last_error = 'field qty ($.qty) is not a valid %2: \"lots\"'")
                           .arg(badId, type(QStringLiteral("integer"), QStringLiteral("INTEGER")))),
            1);
        qint64 badValues = 0;
        for (const Event &e : events())
            badValues += expected(e) == QLatin1String("bad_value") ? 1 : 0;
        QCOMPARE(testsupport::jsonAt(r, "failures_by_class/bad_value").toInteger(), badValues - 1);
        QCOMPARE(r.value(QStringLiteral("failed")).toInteger(),
                 scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")) - 1);
    }

    // A SQLite STRICT table refuses what its column type does not take (1.5
    // in INTEGER, 'x' in REAL, any non-blob in BLOB). The check for a STRICT
    // column says "fits" exactly when the engine takes the value: every value
    // below (boundaries of the 64-bit range, blanks, exponents, and 4,000
    // random strings of number characters) is inserted on its own into a
    // STRICT table and the predicate's answer compared with the outcome.
    void strictColumnCheckMatchesSqlite() {
        if (m_pg)
            QSKIP("STRICT tables are SQLite's");
        auto db =
            testsupport::makeDatabase(m_dir, QStringLiteral("strict-probe.db"),
                                      {
                                          QStringLiteral("CREATE TABLE probe (v ANY) STRICT"),
                                          QStringLiteral("CREATE TABLE v_int (v INTEGER) STRICT"),
                                          QStringLiteral("CREATE TABLE v_real (v REAL) STRICT"),
                                          QStringLiteral("CREATE TABLE v_blob (v BLOB) STRICT"),
                                      });
        QVariantList values{1,
                            1.5,
                            3.0,
                            0.0,
                            -0.0,
                            9.3e18,
                            -9.223372036854775808e18,
                            9.223372036854775807e18,
                            -9.2233720368547748e18,
                            qint64(std::numeric_limits<qint64>::max()),
                            qint64(std::numeric_limits<qint64>::min()),
                            1e300,
                            QVariant()};
        for (const char *text : {"7",
                                 "7.0",
                                 "7.5",
                                 "1e3",
                                 " 7 ",
                                 "\t7\n",
                                 "x",
                                 "",
                                 "9223372036854775807",
                                 "9223372036854775808",
                                 "-9223372036854775808",
                                 "-9223372036854775809",
                                 "0x10",
                                 "+5",
                                 "-0",
                                 "1.",
                                 ".5",
                                 "1e400",
                                 ".",
                                 "1e",
                                 "e5",
                                 "+",
                                 "1e+",
                                 "1e-5",
                                 "1E18",
                                 "1e19",
                                 "123456789012345678.0",
                                 "-.5e1",
                                 "1..2",
                                 "[1]",
                                 "{\"a\": 1}",
                                 "true",
                                 "Infinity",
                                 "NaN",
                                 "07",
                                 "1_0"})
            values << QString::fromUtf8(text);
        values << QString(QStringLiteral("7") + QChar(0));
        const QString chars = QStringLiteral("0123456789.eE+- \t");
        quint32 seed = 12345;
        auto next = [&seed] { return seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff; };
        for (int i = 0; i < 4000; ++i) {
            QString text;
            for (int n = int(next() % 7); n > 0; --n)
                text += chars.at(int(next() % chars.size()));
            values << text;
        }
        const struct {
            QString table, type;
        } columns[] = {{QStringLiteral("v_int"), QStringLiteral("INTEGER")},
                       {QStringLiteral("v_real"), QStringLiteral("REAL")},
                       {QStringLiteral("v_blob"), QStringLiteral("BLOB")}};
        for (const auto &column : columns) {
            const QString fits =
                db.dialect().valueFitsType(QStringLiteral("p.v"), column.type, true);
            QVERIFY(!fits.isEmpty());
            for (const QVariant &value : values) {
                QVERIFY(db.exec(QStringLiteral("DELETE FROM probe")));
                QVERIFY(db.exec(QStringLiteral("INSERT INTO probe VALUES (?)"), {value}));
                const bool taken = bool(db.exec(
                    QStringLiteral("INSERT INTO %1 SELECT v FROM probe").arg(column.table)));
                auto said = db.scalar(
                    QStringLiteral("SELECT CASE WHEN %1 THEN 1 ELSE 0 END FROM probe AS p")
                        .arg(fits));
                QVERIFY(said);
                QVERIFY2(said->toInt() == (taken ? 1 : 0),
                         qPrintable(QStringLiteral("%1 %2: the engine %3 it")
                                        .arg(column.type, value.toString(),
                                             taken ? QStringLiteral("takes")
                                                   : QStringLiteral("refuses"))));
            }
        }
        // TEXT and ANY take every value JSON gives: no check.
        QVERIFY(db.dialect()
                    .valueFitsType(QStringLiteral("p.v"), QStringLiteral("TEXT"), true)
                    .isEmpty());
        QVERIFY(db.dialect()
                    .valueFitsType(QStringLiteral("p.v"), QStringLiteral("ANY"), true)
                    .isEmpty());
    }

    // Replay into a STRICT sink: an event the sink would refuse is bad_value
    // in the DLQ instead of failing the batch (which would stop the consumer
    // on every retry); the rest land, the offsets reach the log end, and a
    // fixed record replays.
    void strictSinkOnSqlite() {
        if (m_pg)
            QSKIP("STRICT tables are SQLite's");
        const QString db =
            testsupport::makeDatabase(
                m_dir, QStringLiteral("strict-%1.db").arg(++m_copies),
                {
                    QStringLiteral("CREATE TABLE typed_log (partition_id INTEGER, log_offset "
                                   "INTEGER, event_id TEXT, record_ts TEXT, payload TEXT)"),
                    QStringLiteral("INSERT INTO typed_log VALUES "
                                   "(0, 0, 'ok-int', '2025-05-06T10:00:00Z', '{\"amount\": 2.5, "
                                   "\"qty\": 3, \"note\": \"a\"}'), "
                                   "(0, 1, 'ok-whole', '2025-05-06T10:00:00Z', '{\"amount\": "
                                   "\"4\", \"qty\": 3.0}'), "
                                   "(0, 2, 'ok-text', '2025-05-06T10:00:00Z', '{\"amount\": 1, "
                                   "\"qty\": \" 7 \"}'), "
                                   "(1, 0, 'bad-fraction', '2025-05-06T10:00:00Z', '{\"amount\": "
                                   "1, \"qty\": 1.5}'), "
                                   "(1, 1, 'bad-range', '2025-05-06T10:00:00Z', '{\"amount\": 1, "
                                   "\"qty\": 9223372036854775808}'), "
                                   "(1, 2, 'bad-real', '2025-05-06T10:00:00Z', '{\"amount\": "
                                   "\"abc\", \"qty\": 1}'), "
                                   "(1, 3, 'bad-array', '2025-05-06T10:00:00Z', '{\"amount\": 1, "
                                   "\"qty\": [1]}')"),
                    QStringLiteral("CREATE TABLE typed_sink (event_id TEXT PRIMARY KEY, amount "
                                   "REAL, qty INTEGER, \"at\" TEXT, flag ANY, note TEXT) STRICT"),
                })
                .url()
                .text;
        const auto run = runCli(replay(
            db, QStringLiteral("ts"),
            {QStringLiteral("--execute"), QStringLiteral("--batch-size"), QStringLiteral("3")}));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject r = json(run.out);
        QCOMPARE(r.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(r.value(QStringLiteral("inserted")).toInteger(), 3);
        QCOMPARE(r.value(QStringLiteral("dead_lettered")).toInteger(), 4);
        QCOMPARE(pairs(db, QStringLiteral("SELECT event_id, qty FROM typed_sink")),
                 (QMap<QString, QString>{{QStringLiteral("ok-int"), QStringLiteral("3")},
                                         {QStringLiteral("ok-whole"), QStringLiteral("3")},
                                         {QStringLiteral("ok-text"), QStringLiteral("7")}}));
        const QMap<QString, QString> errors = pairs(
            db, QStringLiteral(
                    "SELECT event_id, error FROM rewind_dlq WHERE error_class = 'bad_value'"));
        QCOMPARE(errors.size(), 4);
        QCOMPARE(errors.value(QStringLiteral("bad-fraction")),
                 QStringLiteral("field qty ($.qty) is not a valid INTEGER: \"1.5\""));
        QCOMPARE(errors.value(QStringLiteral("bad-real")),
                 QStringLiteral("field amount ($.amount) is not a valid REAL: \"abc\""));
        QCOMPARE(errors.value(QStringLiteral("bad-array")),
                 QStringLiteral("field qty ($.qty) is not a valid INTEGER: \"[1]\""));
        QVERIFY(errors.contains(QStringLiteral("bad-range")));
        verifyAtLogEnd(db, QStringLiteral("ts"), QStringLiteral("typed_log"));

        // Fixed, the record lands; the others fail again with bad_value.
        const QString id = QString::number(scalar(
            db, QStringLiteral("SELECT dlq_id FROM rewind_dlq WHERE event_id = 'bad-fraction'")));
        QVERIFY(runCli(dlq(db, QStringLiteral("fix"),
                           {QStringLiteral("--id"), id, QStringLiteral("--set"),
                            QStringLiteral("$.qty=2"), QStringLiteral("--execute")}))
                    .exitCode == 0);
        const auto replayed =
            runCli(dlq(db, QStringLiteral("replay"), {QStringLiteral("--execute")}));
        QVERIFY2(replayed.exitCode == 0, qPrintable(replayed.err));
        QCOMPARE(json(replayed.out).value(QStringLiteral("replayed")).toInteger(), 1);
        QCOMPARE(json(replayed.out).value(QStringLiteral("failed")).toInteger(), 3);
        QCOMPARE(scalar(db, QStringLiteral(
                                "SELECT qty FROM typed_sink WHERE event_id = 'bad-fraction'")),
                 2);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = "
                                           "'failed' AND last_error_class = 'bad_value'")),
                 3);
    }

    // A sink Rewind makes takes its types from the first batch's values
    // (PostgreSQL: amount numeric): a later event that contradicts them is
    // bad_value there, not a failed replay. SQLite's sink has no types.
    void createdSinkContradictedLater() {
        const QString db =
            testsupport::makeDatabase(
                m_dir, QStringLiteral("made-%1.db").arg(++m_copies),
                {
                    QStringLiteral("CREATE TABLE made_log (partition_id INTEGER, log_offset "
                                   "INTEGER, event_id TEXT, record_ts TEXT, payload TEXT)"),
                    QStringLiteral("INSERT INTO made_log VALUES (0, 0, 'm0', "
                                   "'2025-05-06T10:00:00Z', '{\"amount\": 1}'), "
                                   "(0, 1, 'm1', '2025-05-06T10:00:00Z', '{\"amount\": 2.5}'), (0, "
                                   "2, 'm2', '2025-05-06T10:00:00Z', '{\"amount\": \"abc\"}'), "
                                   "(0, 3, 'm3', '2025-05-06T10:00:00Z', '{\"amount\": 4}')"),
                })
                .url()
                .text;
        const QStringList batches{QStringLiteral("--batch-size"), QStringLiteral("2")};
        const QJsonObject dry = json(runCli(replay(db, QStringLiteral("made"), batches)).out);
        const auto run = runCli(
            replay(db, QStringLiteral("made"), batches + QStringList{QStringLiteral("--execute")}));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject r = json(run.out);
        QCOMPARE(r.value(QStringLiteral("sink_created")).toBool(), true);
        const qint64 bad = m_pg ? 1 : 0;
        QCOMPARE(r.value(QStringLiteral("inserted")).toInteger(), 4 - bad);
        QCOMPARE(r.value(QStringLiteral("dead_lettered")).toInteger(), bad);
        QCOMPARE(dry.value(QStringLiteral("inserted")).toInteger(), 4 - bad);
        QCOMPARE(dry.value(QStringLiteral("dead_lettered")).toInteger(), bad);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM made_sink WHERE event_id = 'm2'")),
                 1 - bad);
        if (m_pg)
            QCOMPARE(pairs(db, QStringLiteral("SELECT event_id, error FROM rewind_dlq"))
                         .value(QStringLiteral("m2")),
                     QStringLiteral("field amount ($.amount) is not a valid numeric: \"abc\""));
        verifyAtLogEnd(db, QStringLiteral("made"), QStringLiteral("made_log"));
    }
};

QTEST_GUILESS_MAIN(TestTypedSink)
#include "tst_typedsink.moc"
