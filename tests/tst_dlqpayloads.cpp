// DLQ payloads byte for byte: what a capture keeps (invalid UTF-8, NULs),
// and payloads of tens of MB fixed, replayed and listed. Triage is tst_dlq
// (tests/dlqfixture.h).
#include "tests/dlqfixture.h"

#include <QTest>

class TestDlqpayloads : public DlqFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void captureKeepsEveryByte() {
        if (testsupport::onPostgres())
            QSKIP("invalid UTF-8 payloads: PostgreSQL text cannot hold them (and dead-lettering "
                  "them is stream replay's part)");
        Fixture f(true);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'new'")), 5);
        // Invalid UTF-8: the stored bytes, the API, show --json and --original-out all give the
        // same bytes.
        auto d = showDlq(f.db(), f.id(QStringLiteral("e")));
        QVERIFY(d);
        QCOMPARE(*d->originalPayload, kBadUtf8);
        QCOMPARE(*d->payload, kBadUtf8);
        const QString out = f.dir.filePath(QStringLiteral("orig.bin"));
        auto r = runCli(f.cli(QStringLiteral("show"),
                              {QStringLiteral("--id"), QString::number(f.id(QStringLiteral("e"))),
                               QStringLiteral("--original-out"), out}));
        QCOMPARE(r.exitCode, 0);
        const QJsonObject rec = json(r.out).value(QStringLiteral("record")).toObject();
        QVERIFY(rec.value(QStringLiteral("original_payload")).isNull());
        QCOMPARE(QByteArray::fromBase64(
                     rec.value(QStringLiteral("original_payload_base64")).toString().toLatin1()),
                 kBadUtf8);
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), kBadUtf8);

        // 20 MB, byte for byte.
        auto big = showDlq(f.db(), f.id(QStringLiteral("f")));
        QVERIFY(big);
        QCOMPARE(big->record.originalBytes, qint64(bigInvalid().size()));
        QVERIFY(*big->originalPayload == bigInvalid());

        // The seed the other tests start from is what replay dead-letters.
        Fixture seeded;
        const QString records = QStringLiteral(
            "SELECT dlq_id, source_kind, source_name, part, log_offset, event_id, record_key, "
            "error_class, error, "
            "original_payload, payload, status, attempts FROM rewind_dlq ORDER BY dlq_id");
        QCOMPARE(rows(seeded.db(), records), rows(f.db(), records));
        const QString history = QStringLiteral("SELECT dlq_id, os_user, action, from_status, "
                                               "to_status, reason, payload_before, payload_after "
                                               "FROM rewind_dlq_history ORDER BY history_id");
        QCOMPARE(rows(seeded.db(), history), rows(f.db(), history));
        const QString sink =
            QStringLiteral("SELECT event_id, order_id, amount FROM ev_sink ORDER BY event_id");
        QCOMPARE(rows(seeded.db(), sink), rows(f.db(), sink));
    }

    void twentyMegabytePayloadIsFixedAndReplayed() {
        Fixture f;
        const qint64 id = f.id(QStringLiteral("f"));
        QByteArray fixed = "{\"order_id\": 10, \"amount\": 1, \"blob\": \"";
        fixed += QByteArray(20 * 1024 * 1024, 'y');
        fixed += "\"}";
        const QString file = testsupport::writeFile(f.dir, QStringLiteral("big.json"), fixed);
        auto r = runCli(f.cli(QStringLiteral("fix"), {QStringLiteral("--id"), QString::number(id),
                                                      QStringLiteral("--payload-file"), file,
                                                      QStringLiteral("--execute")}));
        QCOMPARE(r.exitCode, 0);
        auto d = showDlq(f.db(), id);
        QVERIFY(*d->payload == fixed);
        QVERIFY(*d->originalPayload == bigInvalid());
        QVERIFY(*d->history.back().payloadBefore == bigInvalid());
        QVERIFY(*d->history.back().payloadAfter == fixed);
        auto replayed =
            runCli(f.cli(QStringLiteral("replay"), {QStringLiteral("--id"), QString::number(id),
                                                    QStringLiteral("--execute")}));
        QCOMPARE(json(replayed.out).value(QStringLiteral("replayed")).toInt(), 1);
        QCOMPARE(f.n(QStringLiteral(
                     "SELECT COUNT(*) FROM ev_sink WHERE event_id = 'f' AND order_id = 10")),
                 1);
    }

    // 100 MB payloads, built and compared in SQL: a valid one reaches the
    // sink through replay, a cut-short one is dead-lettered byte for byte.
    void hundredMegabytePayloadsThroughReplayAndTheDlq() {
        Fixture f(true);
        const qint64 size = 100LL * 1024 * 1024;
        const QString zs = testsupport::onPostgres()
                               ? QStringLiteral("repeat('z', CAST(? AS INTEGER))")
                               : QStringLiteral("printf('%.*c', ?, 'z')");
        QVERIFY(f.db().exec(
            QStringLiteral("INSERT INTO ev_log VALUES (2, 0, 'h', '2025-05-06T11:00:00Z', "
                           "'{\"order_id\": 20, \"amount\": 5, \"blob\": \"' || ") %
                zs %
                QStringLiteral(" || '\"}'), "
                               "(2, 1, 'i', '2025-05-06T11:01:00Z', '{\"order_id\": 21, "
                               "\"amount\": 6, \"blob\": \"' || ") %
                zs % u')',
            {size, size}));
        ReplayOptions o;
        o.execute = true;
        auto r = replay(f.db(), *f.ws->spec.stream(QStringLiteral("ev")), QStringLiteral("g"), o);
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->consumed, qint64(2));
        QCOMPARE(r->inserted, qint64(1));
        QCOMPARE(r->deadLettered, qint64(1));
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM ev_sink WHERE event_id = 'h' AND "
                                    "order_id = 20 AND amount = 5")),
                 1);
        QCOMPARE(f.db()
                     .scalar(QStringLiteral(
                                 "SELECT COUNT(*) FROM rewind_dlq AS d JOIN ev_log AS l ON "
                                 "l.event_id = d.event_id "
                                 "WHERE d.event_id = 'i' AND d.error_class = 'invalid_json' AND "
                                 "d.original_payload = l.payload "
                                 "AND d.payload = l.payload AND length(d.original_payload) > ?"),
                             {size})
                     ->toLongLong(),
                 1);
    }
};

QTEST_GUILESS_MAIN(TestDlqpayloads)
#include "tst_dlqpayloads.moc"
