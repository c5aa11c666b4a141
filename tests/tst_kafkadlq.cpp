// Dead-letter topics (issue 31) on the real Kafka cluster (tests/kafkacluster.h): a Kafka
// Connect dead-letter topic with Connect's own header names imported into
// the DLQ byte for byte, fixed, and redriven to its original topic; checked
// with python3-kafka, an independent client; a redrive SIGKILLed between the
// broker's acknowledgement and the DLQ's update.
#include "core/dlq/kafkadlq.h"
#include "core/workspace/workspace.h"
#include "tests/kafkacluster.h"
#include "tests/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStringBuilder>
#include <QTest>

using namespace kafkatest;

namespace {

// The test's dead-letter topic.
QString dlqTopic(const Cluster &cluster) {
    return cluster.topic(QStringLiteral("payments.dlq"));
}

// The stream "payments" on the test's topic, dead letters on dlqTopic(), or on `dlq`.
QByteArray kafkaSpec(const Cluster &cluster, const std::optional<QString> &dlq = std::nullopt) {
    return spec(cluster.bootstrap(), cluster.payments(), QStringLiteral("{}"),
                dlq ? *dlq : dlqTopic(cluster));
}

QJsonObject json(const QString &text) {
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

QByteArray h(const char *text) {
    return QByteArray(text);
}

// Connect's headers for a record of `topic` partition/offset that failed
// with `cls`: what DeadLetterQueueReporter adds (errors.deadletterqueue.
// context.headers.enable=true).
std::vector<std::pair<QByteArray, QByteArray>> connectHeaders(const QString &topic, int partition,
                                                              int offset, const char *cls,
                                                              const char *message) {
    return {{h("__connect.errors.topic"), topic.toUtf8()},
            {h("__connect.errors.partition"), QByteArray::number(partition)},
            {h("__connect.errors.offset"), QByteArray::number(offset)},
            {h("__connect.errors.connector.name"), h("payments-jdbc-sink")},
            {h("__connect.errors.task.id"), h("0")},
            {h("__connect.errors.stage"), h("VALUE_CONVERTER")},
            {h("__connect.errors.class.name"), h("org.apache.kafka.connect.json.JsonConverter")},
            {h("__connect.errors.exception.class.name"), h(cls)},
            {h("__connect.errors.exception.message"), h(message)},
            {h("__connect.errors.exception.stacktrace"),
             h("org.apache.kafka.connect.errors.DataException: ...\n\tat ...")}};
}

// Three dead-lettered records: two from Connect (one with a header
// appended twice, one with a binary key and a value that is not UTF-8), one
// without Connect's headers.
void produceDeadLetters(Cluster &cluster) {
    cluster.createTopic(dlqTopic(cluster), 2);
    auto first =
        connectHeaders(cluster.payments(), 1, 7, "org.apache.kafka.connect.errors.DataException",
                       "Converting byte[] to Kafka Connect data failed");
    first.insert(first.begin(), {h("trace-id"), h("abc-123")});
    first.push_back(
        {h("__connect.errors.exception.message"), h("appended: amount is not a number")});
    cluster.produce(dlqTopic(cluster),
                    {{0, h("p1-7"), h(R"({"id": "p1-7", "amount": "ten"})"), first},
                     {0, QByteArray("\x00\xff\x10", 3), QByteArray("\xff\xfe{not utf-8", 12),
                      connectHeaders(cluster.payments(), 0, 3,
                                     "org.apache.kafka.common.errors.SerializationException",
                                     "Unknown magic byte!")},
                     {1, std::nullopt, h(R"({"id": "x-1", "amount": 5})"), {}}});
}

// What python3-kafka reads from `topic`: per record partition, offset, key,
// value (hex) and headers ([name, hex]).
QJsonArray independentRecords(const QString &bootstrap, const QString &topic) {
    const QString script = QStringLiteral(R"(
import json, sys
from kafka import KafkaConsumer, TopicPartition
c = KafkaConsumer(bootstrap_servers=sys.argv[1], enable_auto_commit=False, api_version_auto_timeout_ms=10000, consumer_timeout_ms=3000)
parts = [TopicPartition(sys.argv[2], p) for p in sorted(c.partitions_for_topic(sys.argv[2]))]
c.assign(parts)
c.seek_to_beginning(*parts)
ends = c.end_offsets(parts)
out = []
while any(c.position(tp) < ends[tp] for tp in parts):
    for tp, msgs in c.poll(timeout_ms=2000).items():
        for m in msgs:
            out.append({'partition': m.partition, 'offset': m.offset, 'key': None if m.key is None else m.key.hex(),
                        'value': None if m.value is None else m.value.hex(), 'headers': [[k, v.hex()] for k, v in m.headers]})
print(json.dumps(sorted(out, key=lambda r: (r['partition'], r['offset']))))
c.close()
)");
    QProcess py;
    py.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), script, bootstrap, topic});
    if (!py.waitForFinished(60000) || py.exitCode() != 0)
        qFatal("python3-kafka failed: %s", py.readAllStandardError().constData());
    return QJsonDocument::fromJson(py.readAllStandardOutput()).array();
}

QString hex(const QByteArray &bytes) {
    return QString::fromLatin1(bytes.toHex());
}

QStringList headerNames(const QJsonObject &record) {
    QStringList names;
    for (const auto &hdr : record.value(QStringLiteral("headers")).toArray())
        names << hdr.toArray().at(0).toString();
    return names;
}

QString headerValue(const QJsonObject &record, const QString &name) {
    for (const auto &hdr : record.value(QStringLiteral("headers")).toArray())
        if (hdr.toArray().at(0).toString() == name)
            return QString::fromUtf8(
                QByteArray::fromHex(hdr.toArray().at(1).toString().toLatin1()));
    return QStringLiteral("(absent)");
}

} // namespace

class TestKafkaDlq : public QObject {
    Q_OBJECT

    static QStringList importArgs(bool execute) {
        QStringList a{QStringLiteral("dlq"), QStringLiteral("import"), QStringLiteral("--stream"),
                      QStringLiteral("payments"), QStringLiteral("--json")};
        if (execute)
            a << QStringLiteral("--execute");
        return a;
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_KAFKA();
        qputenv("REWIND_KAFKA_TIMEOUT_MS", "8000");
    }

    // Connect's records keep value, key and headers byte for byte; the last
    // occurrence of a header counts; a record without Connect's headers is
    // its own origin, class unknown; importing twice adds nothing.
    void importKeepsBytesAndConnectsOrigin() {
        Cluster cluster;
        produceDeadLetters(cluster);
        testsupport::WorkspaceFixture f({}, kafkaSpec(cluster));
        const auto dry = f.cli(importArgs(false));
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        QCOMPARE(json(dry.out).value(QStringLiteral("imported")).toInteger(), 3);
        QCOMPARE(json(dry.out).value(QStringLiteral("executed")).toBool(), false);
        QCOMPARE(f.db().scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq"))->toInt(), 0);

        const auto run = f.cli(importArgs(true));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject r = json(run.out);
        QCOMPARE(r.value(QStringLiteral("topic")).toString(), dlqTopic(cluster));
        QCOMPARE(r.value(QStringLiteral("imported")).toInteger(), 3);
        QCOMPARE(r.value(QStringLiteral("already_imported")).toInteger(), 0);
        QCOMPARE(r.value(QStringLiteral("partitions")).toArray().size(), 2);

        auto q = f.db().exec(
            QStringLiteral("SELECT kafka_topic, part, log_offset, error_class, error, kafka_key, "
                           "payload, original_payload, kafka_headers, "
                           "status, dlq_partition, dlq_offset, event_id, source_name, kafka_value "
                           "FROM rewind_dlq ORDER BY dlq_partition, dlq_offset"));
        // The value's bytes: in the payload, or where its column cannot hold
        // them (TEXT on PostgreSQL, for bytes that are not UTF-8) in kafka_value.
        const auto value = [&] {
            return q->value(14).isNull() ? q->value(6).toByteArray() : q->value(14).toByteArray();
        };
        QVERIFY(q && q->next());
        QCOMPARE(q->value(0).toString(), cluster.payments());
        QCOMPARE(q->value(1).toString(), QStringLiteral("1"));
        QCOMPARE(q->value(2).toLongLong(), 7);
        QCOMPARE(q->value(3).toString(),
                 QStringLiteral("org.apache.kafka.connect.errors.DataException"));
        QCOMPARE(q->value(4).toString(),
                 QStringLiteral("appended: amount is not a number")); // the last occurrence
        QCOMPARE(q->value(5).toByteArray(), h("p1-7"));
        QCOMPARE(value(), h(R"({"id": "p1-7", "amount": "ten"})"));
        QCOMPARE(q->value(7).toByteArray(), q->value(6).toByteArray());
        const QJsonArray headers = QJsonDocument::fromJson(q->value(8).toString().toUtf8()).array();
        QCOMPARE(headers.size(), 12); // trace-id, Connect's ten, and the appended message
        QCOMPARE(headers.at(0).toArray().at(0).toString(), QStringLiteral("trace-id"));
        QCOMPARE(QByteArray::fromBase64(headers.at(0).toArray().at(1).toString().toLatin1()),
                 h("abc-123"));
        QCOMPARE(q->value(9).toString(), QStringLiteral("new"));
        QCOMPARE(q->value(12).toString(),
                 QStringLiteral("p1-7")); // event_id: the key, as the stream says
        QCOMPARE(q->value(13).toString(), QStringLiteral("payments"));

        QVERIFY(q->next()); // the binary key and the value that is not UTF-8, byte for byte
        QCOMPARE(q->value(0).toString(), cluster.payments());
        QCOMPARE(q->value(3).toString(),
                 QStringLiteral("org.apache.kafka.common.errors.SerializationException"));
        QCOMPARE(q->value(5).toByteArray(), QByteArray("\x00\xff\x10", 3));
        QCOMPARE(value(), QByteArray("\xff\xfe{not utf-8", 12));

        QVERIFY(q->next()); // no Connect headers: its own origin
        QCOMPARE(q->value(0).toString(), dlqTopic(cluster));
        QCOMPARE(q->value(1).toString(), QStringLiteral("1"));
        QCOMPARE(q->value(2).toLongLong(), 0);
        QCOMPARE(q->value(3).toString(), QStringLiteral("unknown"));
        QVERIFY(q->value(5).isNull());
        QVERIFY(!q->next());
        q->finish();
        // dlq show: the Kafka record, its headers in order, binary bytes as base64.
        const qint64 binaryId =
            f.db()
                .scalar(QStringLiteral(
                    "SELECT dlq_id FROM rewind_dlq WHERE dlq_partition = 0 AND dlq_offset = 1"))
                ->toLongLong();
        const auto show =
            f.cli({QStringLiteral("dlq"), QStringLiteral("show"), QStringLiteral("--id"),
                   QString::number(binaryId), QStringLiteral("--json")});
        QVERIFY2(show.exitCode == 0, qPrintable(show.err));
        const QJsonObject kafka = json(show.out)
                                      .value(QStringLiteral("record"))
                                      .toObject()
                                      .value(QStringLiteral("kafka"))
                                      .toObject();
        QCOMPARE(kafka.value(QStringLiteral("topic")).toString(), cluster.payments());
        QCOMPARE(kafka.value(QStringLiteral("partition")).toInteger(), 0);
        QCOMPARE(kafka.value(QStringLiteral("offset")).toInteger(), 3);
        QCOMPARE(kafka.value(QStringLiteral("dlq_topic")).toString(), dlqTopic(cluster));
        QCOMPARE(kafka.value(QStringLiteral("dlq_offset")).toInteger(), 1);
        QCOMPARE(
            QByteArray::fromBase64(kafka.value(QStringLiteral("key_base64")).toString().toLatin1()),
            QByteArray("\x00\xff\x10", 3));
        QCOMPARE(kafka.value(QStringLiteral("headers")).toArray().size(), 10);
        QCOMPARE(testsupport::jsonAt(kafka, "headers/7/value").toString(),
                 QStringLiteral("org.apache.kafka.common.errors.SerializationException"));
        QCOMPARE(QByteArray::fromBase64(json(show.out)
                                            .value(QStringLiteral("record"))
                                            .toObject()
                                            .value(QStringLiteral("original_payload_base64"))
                                            .toString()
                                            .toLatin1()),
                 QByteArray("\xff\xfe{not utf-8", 12));
        // Each with its history, and the import audited.
        QCOMPARE(
            f.db()
                .scalar(
                    QStringLiteral(
                        "SELECT COUNT(*) FROM rewind_dlq_history WHERE action = 'quarantined' AND "
                        "reason LIKE ?"),
                    {QVariant(
                        QString(QStringLiteral("imported from ") % dlqTopic(cluster) % u'%'))})
                ->toInt(),
            3);
        QCOMPARE(f.db()
                     .scalar(QStringLiteral(
                         "SELECT COUNT(*) FROM rewind_audit WHERE action = 'dlq-import'"))
                     ->toInt(),
                 1);

        // Again: nothing new. Then one more record arrives: only it.
        const auto again = f.cli(importArgs(true));
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(json(again.out).value(QStringLiteral("imported")).toInteger(), 0);
        QCOMPARE(json(again.out).value(QStringLiteral("already_imported")).toInteger(), 3);
        cluster.produce(
            dlqTopic(cluster),
            {{1, h("late"), h("{}"),
              connectHeaders(cluster.payments(), 2, 9, "java.lang.NullPointerException", "")}});
        const auto more = f.cli(importArgs(true));
        QCOMPARE(json(more.out).value(QStringLiteral("imported")).toInteger(), 1);
        QCOMPARE(f.db().scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq"))->toInt(), 4);

        // A stream without a dlq_topic, and a dlq_topic that does not exist: exit 2.
        testsupport::WorkspaceFixture missing({}, kafkaSpec(cluster, QStringLiteral("nope.dlq")));
        const auto absent = missing.cli(importArgs(true));
        QCOMPARE(absent.exitCode, 2);
        QVERIFY2(absent.err.contains(QStringLiteral("\"nope.dlq\" does not exist")),
                 qPrintable(absent.err));
    }

    // Fixed, then produced to its original topic: key and headers kept,
    // Connect's dropped, rewind.dlq.id added; replayed only once acknowledged,
    // with where it landed in its history. A topic that does not exist: exit
    // 2, nothing produced.
    void redriveToTheOriginalTopic() {
        Cluster cluster;
        produceDeadLetters(cluster);
        testsupport::WorkspaceFixture f({}, kafkaSpec(cluster));
        QCOMPARE(f.cli(importArgs(true)).exitCode, 0);
        const qint64 id =
            f.db()
                .scalar(QStringLiteral("SELECT dlq_id FROM rewind_dlq WHERE kafka_key = ?"),
                        {h("p1-7")})
                ->toLongLong();
        const auto fix =
            f.cli({QStringLiteral("dlq"), QStringLiteral("fix"), QStringLiteral("--id"),
                   QString::number(id), QStringLiteral("--set"), QStringLiteral("$.amount=10"),
                   QStringLiteral("--reason"), QStringLiteral("amount as a number"),
                   QStringLiteral("--execute")});
        QVERIFY2(fix.exitCode == 0, qPrintable(fix.err));
        const QByteArray fixed =
            f.db()
                .scalar(QStringLiteral("SELECT payload FROM rewind_dlq WHERE dlq_id = ?"), {id})
                ->toByteArray();
        const int before = independentRecords(cluster.bootstrap(), cluster.payments()).size();

        const QStringList redrive{QStringLiteral("dlq"), QStringLiteral("replay"),
                                  QStringLiteral("--id"), QString::number(id),
                                  QStringLiteral("--to-topic")};
        const auto nope =
            f.cli(redrive + QStringList{QStringLiteral("nope"), QStringLiteral("--execute")});
        QCOMPARE(nope.exitCode, 2);
        QVERIFY2(nope.err.contains(QStringLiteral("\"nope\" does not exist")) &&
                     nope.err.contains(QStringLiteral("nothing produced")),
                 qPrintable(nope.err));
        const auto dry = f.cli(redrive + QStringList{QStringLiteral("--json")});
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        QCOMPARE(json(dry.out)
                     .value(QStringLiteral("topics"))
                     .toObject()
                     .value(cluster.payments())
                     .toInteger(),
                 1);
        QCOMPARE(independentRecords(cluster.bootstrap(), cluster.payments()).size(), before);

        const auto run =
            f.cli(redrive + QStringList{QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject r = json(run.out);
        QCOMPARE(r.value(QStringLiteral("replayed")).toInteger(), 1);
        const QJsonObject produced = testsupport::jsonAt(r, "records/0").toObject();
        const QJsonArray records = independentRecords(cluster.bootstrap(), cluster.payments());
        QCOMPARE(records.size(), before + 1);
        QJsonObject landed;
        for (const auto &v : records)
            if (v.toObject().value(QStringLiteral("partition")).toInteger() ==
                    produced.value(QStringLiteral("partition")).toInteger() &&
                v.toObject().value(QStringLiteral("offset")).toInteger() ==
                    produced.value(QStringLiteral("offset")).toInteger())
                landed = v.toObject();
        QVERIFY2(!landed.isEmpty(), QJsonDocument(records).toJson().constData());
        QCOMPARE(landed.value(QStringLiteral("key")).toString(), hex(h("p1-7")));
        QCOMPARE(landed.value(QStringLiteral("value")).toString(), hex(fixed));
        QCOMPARE(headerNames(landed),
                 (QStringList{QStringLiteral("trace-id"), QStringLiteral("rewind.dlq.id")}));
        QCOMPARE(headerValue(landed, QStringLiteral("trace-id")), QStringLiteral("abc-123"));
        QCOMPARE(headerValue(landed, QStringLiteral("rewind.dlq.id")), QString::number(id));
        QCOMPARE(f.db()
                     .scalar(QStringLiteral("SELECT status FROM rewind_dlq WHERE dlq_id = ?"), {id})
                     ->toString(),
                 QStringLiteral("replayed"));
        const QString where = QStringLiteral("produced to %3 [%1] @%2")
                                  .arg(produced.value(QStringLiteral("partition")).toInteger())
                                  .arg(produced.value(QStringLiteral("offset")).toInteger())
                                  .arg(cluster.payments());
        QCOMPARE(f.db()
                     .scalar(QStringLiteral("SELECT reason FROM rewind_dlq_history WHERE dlq_id = "
                                            "? ORDER BY history_id DESC"),
                             {id})
                     ->toString(),
                 where);
    }

    // Killed after the broker acknowledged batch 2, before the DLQ marked
    // it: nothing is lost; the next redrive produces only what is not marked
    // (batch 2 again, which consumers tell by rewind.dlq.id) and the rest.
    void redriveKilledAfterTheAcknowledgement() {
        Cluster cluster;
        produceDeadLetters(cluster);
        testsupport::WorkspaceFixture f({}, kafkaSpec(cluster));
        QCOMPARE(f.cli(importArgs(true)).exitCode, 0);
        const QStringList redrive{QStringLiteral("dlq"),          QStringLiteral("replay"),
                                  QStringLiteral("--to-topic"),   cluster.payments(),
                                  QStringLiteral("--batch-size"), QStringLiteral("1"),
                                  QStringLiteral("--execute"),    QStringLiteral("--json")};
        const int before = independentRecords(cluster.bootstrap(), cluster.payments()).size();
        const auto killed = testsupport::runRewindctl(redrive + f.args(),
                                                      QStringLiteral("dlq-produce-after-ack:2"));
        QVERIFY2(killed.crashed && killed.err.contains("failpoint dlq-produce-after-ack:2 reached"),
                 killed.err.constData());
        auto statuses = [&] {
            QStringList out;
            auto q = f.db().exec(QStringLiteral("SELECT status FROM rewind_dlq ORDER BY dlq_id"));
            while (q && q->next())
                out << q->value(0).toString();
            return out.join(u',');
        };
        QCOMPARE(statuses(), QStringLiteral("replayed,new,new"));
        QCOMPARE(independentRecords(cluster.bootstrap(), cluster.payments()).size(), before + 2);

        const auto resumed = testsupport::runRewindctl(redrive + f.args());
        QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
        QCOMPARE(QJsonDocument::fromJson(resumed.out)
                     .object()
                     .value(QStringLiteral("replayed"))
                     .toInteger(),
                 2);
        QCOMPARE(statuses(), QStringLiteral("replayed,replayed,replayed"));
        // Every record on the topic; the second twice, with the same rewind.dlq.id.
        QMap<QString, int> copies;
        const QString binary =
            f.db()
                .scalar(QStringLiteral(
                    "SELECT dlq_id FROM rewind_dlq WHERE dlq_partition = 0 AND dlq_offset = 1"))
                ->toString();
        for (const auto &v : independentRecords(cluster.bootstrap(), cluster.payments()))
            if (const QString id = headerValue(v.toObject(), QStringLiteral("rewind.dlq.id"));
                id != QStringLiteral("(absent)")) {
                ++copies[id];
                if (id ==
                    binary) { // the key and value that are not text, byte for byte on both engines
                    QCOMPARE(v.toObject().value(QStringLiteral("key")).toString(),
                             QStringLiteral("00ff10"));
                    QCOMPARE(v.toObject().value(QStringLiteral("value")).toString(),
                             hex(QByteArray("\xff\xfe{not utf-8", 12)));
                }
            }
        QCOMPARE(copies.size(), 3);
        const QList<int> counts = copies.values();
        QCOMPARE(std::count(counts.begin(), counts.end(), 2), 1);
        QCOMPARE(std::count(counts.begin(), counts.end(), 1), 2);
    }

    // A record Rewind's own Kafka replay dead-letters keeps its key, headers
    // and topic: fixed, it goes back to that topic as it was, plus the fix.
    void replayDeadLettersKeepTheirKafkaRecord() {
        Cluster cluster;
        cluster.produce(cluster.payments(),
                        {{2, h("bad-1"), h("{not json"), {{h("trace-id"), h("t-9")}}}});
        testsupport::WorkspaceFixture f({}, kafkaSpec(cluster));
        const auto replay =
            f.cli({QStringLiteral("replay"), QStringLiteral("--stream"), QStringLiteral("payments"),
                   QStringLiteral("--group"), QStringLiteral("loader"), QStringLiteral("--execute"),
                   QStringLiteral("--json")});
        QVERIFY2(replay.exitCode == 0, qPrintable(replay.err));
        QCOMPARE(json(replay.out).value(QStringLiteral("dead_lettered")).toInteger(), 1);
        auto q = f.db().exec(QStringLiteral(
            "SELECT dlq_id, kafka_topic, kafka_key, kafka_headers, error_class FROM rewind_dlq"));
        QVERIFY(q && q->next());
        const qint64 id = q->value(0).toLongLong();
        QCOMPARE(q->value(1).toString(), cluster.payments());
        QCOMPARE(q->value(2).toByteArray(), h("bad-1"));
        QVERIFY2(q->value(3).toString().contains(QStringLiteral("trace-id")),
                 qPrintable(q->value(3).toString()));
        QCOMPARE(q->value(4).toString(), QStringLiteral("invalid_json"));
        q->finish();
        QCOMPARE(f.cli({QStringLiteral("dlq"), QStringLiteral("fix"), QStringLiteral("--id"),
                        QString::number(id), QStringLiteral("--payload-file"),
                        testsupport::writeFile(f.dir, QStringLiteral("fixed.json"),
                                               R"({"id": "bad-1", "amount": 1})"),
                        QStringLiteral("--reason"), QStringLiteral("hand-fixed"),
                        QStringLiteral("--execute")})
                     .exitCode,
                 0);
        const auto redrive =
            f.cli({QStringLiteral("dlq"), QStringLiteral("replay"), QStringLiteral("--id"),
                   QString::number(id), QStringLiteral("--to-topic"), QStringLiteral("--execute"),
                   QStringLiteral("--json")});
        QVERIFY2(redrive.exitCode == 0, qPrintable(redrive.err));
        const QJsonObject landed =
            json(redrive.out).value(QStringLiteral("records")).toArray().at(0).toObject();
        QCOMPARE(landed.value(QStringLiteral("topic")).toString(), cluster.payments());
        for (const auto &v : independentRecords(cluster.bootstrap(), cluster.payments()))
            if (v.toObject().value(QStringLiteral("partition")).toInteger() ==
                    landed.value(QStringLiteral("partition")).toInteger() &&
                v.toObject().value(QStringLiteral("offset")).toInteger() ==
                    landed.value(QStringLiteral("offset")).toInteger()) {
                QCOMPARE(v.toObject().value(QStringLiteral("key")).toString(), hex(h("bad-1")));
                QCOMPARE(v.toObject().value(QStringLiteral("value")).toString(),
                         hex(h(R"({"id": "bad-1", "amount": 1})")));
                QCOMPARE(headerValue(v.toObject(), QStringLiteral("trace-id")),
                         QStringLiteral("t-9"));
                return;
            }
        QFAIL("the redriven record is not on the topic");
    }

    // replay --dlq-to-topic: what the replay dead-letters is also produced
    // to the stream's dlq_topic with Connect's headers, once; an import of
    // that topic then adds nothing for them, and still imports the records
    // others put there before.
    void replayPublishesItsDeadLetters() {
        Cluster cluster;
        produceDeadLetters(cluster); // Connect's three, not imported yet
        cluster.produce(cluster.payments(),
                        {{2, h("bad-2"), h("{oops"), {{h("trace-id"), h("t-2")}}}});
        testsupport::WorkspaceFixture f({}, kafkaSpec(cluster));
        const QStringList replay{QStringLiteral("replay"),    QStringLiteral("--stream"),
                                 QStringLiteral("payments"),  QStringLiteral("--group"),
                                 QStringLiteral("loader"),    QStringLiteral("--dlq-to-topic"),
                                 QStringLiteral("--execute"), QStringLiteral("--json")};
        const auto r = f.cli(replay);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(json(r.out).value(QStringLiteral("dead_lettered")).toInteger(), 1);
        QCOMPARE(json(r.out).value(QStringLiteral("published_dead_letters")).toInteger(), 1);
        const qint64 id =
            f.db()
                .scalar(QStringLiteral("SELECT dlq_id FROM rewind_dlq WHERE kafka_key = ?"),
                        {h("bad-2")})
                ->toLongLong();
        QJsonObject published;
        for (const auto &v : independentRecords(cluster.bootstrap(), dlqTopic(cluster)))
            if (headerValue(v.toObject(), QStringLiteral("rewind.dlq.id")) == QString::number(id))
                published = v.toObject();
        QVERIFY(!published.isEmpty());
        QCOMPARE(published.value(QStringLiteral("key")).toString(), hex(h("bad-2")));
        QCOMPARE(published.value(QStringLiteral("value")).toString(), hex(h("{oops")));
        QCOMPARE(headerValue(published, QStringLiteral("__connect.errors.topic")),
                 cluster.payments());
        QCOMPARE(headerValue(published, QStringLiteral("__connect.errors.partition")),
                 QStringLiteral("2"));
        QCOMPARE(headerValue(published, QStringLiteral("__connect.errors.exception.class.name")),
                 QStringLiteral("invalid_json"));
        QCOMPARE(headerValue(published, QStringLiteral("trace-id")), QStringLiteral("t-2"));
        // Again: nothing more published.
        const auto again = f.cli(replay);
        QCOMPARE(json(again.out).value(QStringLiteral("published_dead_letters")).toInteger(), 0);
        // The import takes Connect's three and skips Rewind's own.
        const auto imported = f.cli(importArgs(true));
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        QCOMPARE(json(imported.out).value(QStringLiteral("imported")).toInteger(), 3);
        QCOMPARE(f.db().scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq"))->toInt(), 4);
        // A stream without a dlq_topic: refused before anything is read.
        testsupport::WorkspaceFixture none({}, kafkaSpec(cluster, QString()));
        const auto refused = none.cli(replay);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("names no kafka.dlq_topic")),
                 qPrintable(refused.err));
    }

    // Dead letters are published page by page: five of them in pages of
    // two are three transactions (three dlq-publish audit rows), each record
    // on the topic once, and a second call publishes nothing.
    void deadLettersPublishedInPages() {
        Cluster cluster;
        cluster.createTopic(dlqTopic(cluster), 1);
        std::vector<Record> bad;
        for (int i = 0; i < 5; ++i)
            bad.push_back({i % 2,
                           QByteArray("bad-page-") + QByteArray::number(i),
                           QByteArray("{not json ") + QByteArray::number(i),
                           {}});
        cluster.produce(cluster.payments(), bad);
        testsupport::WorkspaceFixture f({}, kafkaSpec(cluster));
        const auto r =
            f.cli({QStringLiteral("replay"), QStringLiteral("--stream"), QStringLiteral("payments"),
                   QStringLiteral("--group"), QStringLiteral("loader"), QStringLiteral("--execute"),
                   QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(json(r.out).value(QStringLiteral("dead_lettered")).toInteger(), 5);
        auto ws = rw::openWorkspace(f.dbPath, f.specPath);
        QVERIFY(ws);
        auto published =
            rw::publishDeadLetters(ws->db, *ws->spec.stream(QStringLiteral("payments")), 2);
        QVERIFY2(published, qPrintable(published ? QString() : published.error().message));
        QCOMPARE(*published, 5);
        QCOMPARE(f.db()
                     .scalar(QStringLiteral(
                         "SELECT COUNT(*) FROM rewind_audit WHERE action = 'dlq-publish'"))
                     ->toInt(),
                 3);
        QCOMPARE(f.db()
                     .scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE dlq_source = "
                                            "'published' AND dlq_offset IS NOT NULL"))
                     ->toInt(),
                 5);
        QSet<QString> ids;
        int onTopic = 0;
        for (const auto &v : independentRecords(cluster.bootstrap(), dlqTopic(cluster)))
            if (const QString id = headerValue(v.toObject(), QStringLiteral("rewind.dlq.id"));
                !id.isEmpty()) {
                ids.insert(id);
                ++onTopic;
            }
        QCOMPARE(onTopic, 5);
        QCOMPARE(ids.size(), 5);
        auto again =
            rw::publishDeadLetters(ws->db, *ws->spec.stream(QStringLiteral("payments")), 2);
        QVERIFY(again);
        QCOMPARE(*again, 0);
    }
};

QTEST_GUILESS_MAIN(TestKafkaDlq)
#include "tst_kafkadlq.moc"
