// DLQ triage as an operator does it: records captured by a stream replay
// (bad JSON, missing fields, invalid UTF-8, a 20 MB payload), listed,
// grouped, shown byte for byte, fixed one by one or by JSON path in bulk,
// refused when the fix is not JSON, discarded with a reason; every
// transition with its history row. Checked with SQL written here.
#include "tests/dlqfixture.h"

#include <QTest>

class TestDlq : public DlqFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void listFiltersCountsAndGroups() {
        Fixture f;
        auto all = listDlq(f.db(), {}, 100);
        QVERIFY(all);
        QCOMPARE(all->total, 5);
        DlqSelection missing;
        missing.errorClasses = {QStringLiteral("missing_field")};
        auto m = listDlq(f.db(), missing, 100);
        QCOMPARE(m->total, 2);
        // One signature for both missing_field records, one for the three invalid_json.
        QCOMPARE(all->groups.size(), std::size_t(2));
        QCOMPARE(all->groups[0].count, 3);
        QCOMPARE(all->groups[0].errorClass, QStringLiteral("invalid_json"));

        auto r = runCli(f.cli(QStringLiteral("list"),
                              {QStringLiteral("--status"), QStringLiteral("new"),
                               QStringLiteral("--source"), QStringLiteral("stream:ev")}));
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = json(r.out);
        QCOMPARE(doc.value(QStringLiteral("records")).toArray().size(), 5);
        const QJsonObject first = testsupport::jsonAt(doc, "records/0").toObject();
        for (const char *key : {"id", "source", "event_id", "key", "error_class", "error", "status",
                                "attempts", "first_seen"})
            QVERIFY2(first.contains(QLatin1String(key)), key);
        QCOMPARE(testsupport::jsonAt(doc, "by_status/new").toInt(), 5);
        QCOMPARE(json(runCli(f.cli(QStringLiteral("list"),
                                   {QStringLiteral("--source"), QStringLiteral("dataset:ev")}))
                          .out)
                     .value(QStringLiteral("total"))
                     .toInt(),
                 0);
        QCOMPARE(json(runCli(f.cli(QStringLiteral("list"),
                                   {QStringLiteral("--since"), QStringLiteral("2999-01-01")}))
                          .out)
                     .value(QStringLiteral("total"))
                     .toInt(),
                 0);
        QCOMPARE(
            json(runCli(f.cli(QStringLiteral("list"),
                              {QStringLiteral("--until"), QStringLiteral("2999-01-01T00:00:00Z")}))
                     .out)
                .value(QStringLiteral("total"))
                .toInt(),
            5);
        QCOMPARE(runCli(f.cli(QStringLiteral("list"),
                              {QStringLiteral("--since"), QStringLiteral("yesterday-ish")}))
                     .exitCode,
                 2);
        QCOMPARE(runCli(f.cli(QStringLiteral("list"),
                              {QStringLiteral("--status"), QStringLiteral("lost")}))
                     .exitCode,
                 2);
        // By signature, as list prints it.
        const QString sig = all->groups[1].signature;
        QCOMPARE(
            json(runCli(f.cli(QStringLiteral("list"), {QStringLiteral("--signature"), sig})).out)
                .value(QStringLiteral("total"))
                .toInt(),
            2);
    }

    void signaturesNormaliseNumbersAndIds() {
        QCOMPARE(
            errorSignature(QStringLiteral("x"), QStringLiteral("order 123 not found at offset 77")),
            errorSignature(QStringLiteral("x"),
                           QStringLiteral("order 9 not found at offset 1000001")));
        QCOMPARE(
            errorSignature(QStringLiteral("x"),
                           QStringLiteral("customer 0b8e2f1c-9a9e-4c5b-8d0a-1f2e3d4c5b6a unknown")),
            errorSignature(
                QStringLiteral("x"),
                QStringLiteral("customer 5f0e0c1a-1111-4222-8333-944455556666 unknown")));
        QCOMPARE(errorSignature(QStringLiteral("x"), QStringLiteral("key 'ab-1' rejected")),
                 errorSignature(QStringLiteral("x"), QStringLiteral("key 'zz' rejected")));
        QVERIFY(errorSignature(QStringLiteral("x"), QStringLiteral("NULL in amount2")) !=
                errorSignature(QStringLiteral("x"), QStringLiteral("NULL in amount3")));
        QVERIFY(errorSignature(QStringLiteral("a"), QStringLiteral("m")) !=
                errorSignature(QStringLiteral("b"), QStringLiteral("m")));
    }

    void fixOneRecordWithHistory() {
        Fixture f;
        const QString id = QString::number(f.id(QStringLiteral("b")));
        const QString before = f.state();
        // A dry run shows the change and changes nothing.
        auto dry = runCli(
            f.cli(QStringLiteral("fix"), {QStringLiteral("--id"), id, QStringLiteral("--set"),
                                          QStringLiteral("$.amount=12.5")}));
        QCOMPARE(dry.exitCode, 0);
        QCOMPARE(json(dry.out).value(QStringLiteral("executed")).toBool(), false);
        // Compared as JSON: PostgreSQL's jsonb orders and spaces keys its own way.
        const QJsonObject fixedPayload{{QStringLiteral("order_id"), 2},
                                       {QStringLiteral("amount"), 12.5}};
        QCOMPARE(parsed(json(dry.out)
                            .value(QStringLiteral("samples"))
                            .toArray()
                            .at(0)
                            .toObject()
                            .value(QStringLiteral("after"))
                            .toString()),
                 fixedPayload);
        QCOMPARE(f.state(), before);

        auto r = runCli(f.cli(QStringLiteral("fix"),
                              {QStringLiteral("--id"), id, QStringLiteral("--set"),
                               QStringLiteral("$.amount=12.5"), QStringLiteral("--reason"),
                               QStringLiteral("producer bug 42"), QStringLiteral("--execute")}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(f.text(QStringLiteral("SELECT status FROM rewind_dlq WHERE dlq_id = ") + id),
                 QStringLiteral("fixed"));
        QCOMPARE(f.payload(id.toLongLong()).value(QStringLiteral("amount")).toDouble(), 12.5);
        // The original stays as captured.
        QCOMPARE(
            f.text(QStringLiteral(
                       "SELECT CAST(original_payload AS TEXT) FROM rewind_dlq WHERE dlq_id = ") +
                   id),
            QStringLiteral("{\"order_id\": 2}"));

        auto d = showDlq(f.db(), id.toLongLong());
        QCOMPARE(d->history.size(), std::size_t(2));
        const DlqHistoryEntry &q = d->history[0];
        QCOMPARE(q.action, QStringLiteral("quarantined"));
        QCOMPARE(q.toStatus.value_or(QString()), QStringLiteral("new"));
        const DlqHistoryEntry &h = d->history[1];
        QCOMPARE(h.action, QStringLiteral("fixed"));
        QCOMPARE(h.fromStatus.value_or(QString()), QStringLiteral("new"));
        QCOMPARE(h.toStatus.value_or(QString()), QStringLiteral("fixed"));
        QCOMPARE(h.osUser, osUser());
        QVERIFY(!h.at.isEmpty());
        QVERIFY2(h.reason.value_or(QString()).contains(QStringLiteral("producer bug 42")),
                 qPrintable(h.reason.value_or(QString())));
        QCOMPARE(*h.payloadBefore, QByteArray("{\"order_id\": 2}"));
        QCOMPARE(QJsonDocument::fromJson(*h.payloadAfter).object(), fixedPayload);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = 'dlq-fix'")),
                 1);

        // show --json carries both payloads and the history.
        const QJsonObject rec =
            json(runCli(f.cli(QStringLiteral("show"), {QStringLiteral("--id"), id})).out)
                .value(QStringLiteral("record"))
                .toObject();
        QCOMPARE(rec.value(QStringLiteral("original_payload")).toString(),
                 QStringLiteral("{\"order_id\": 2}"));
        QCOMPARE(parsed(rec.value(QStringLiteral("payload")).toString()), fixedPayload);
        QCOMPARE(rec.value(QStringLiteral("history")).toArray().size(), 2);
        QCOMPARE(testsupport::jsonAt(rec, "history/1/payload_before").toString(),
                 QStringLiteral("{\"order_id\": 2}"));
    }

    void bulkFixByJsonPath() {
        Fixture f;
        auto r = runCli(
            f.cli(QStringLiteral("fix"),
                  {QStringLiteral("--error-class"), QStringLiteral("missing_field"),
                   QStringLiteral("--set"), QStringLiteral("$.amount=0"), QStringLiteral("--set"),
                   QStringLiteral("$.note=checked by ops"), QStringLiteral("--set"),
                   QStringLiteral("$.tags=[1,\"x\"]"), QStringLiteral("--execute")}));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(json(r.out).value(QStringLiteral("fixed")).toInt(), 2);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'fixed'")), 2);
        // Numbers and arrays as JSON, text that does not parse as a string.
        for (const QString &e : {QStringLiteral("b"), QStringLiteral("d")}) {
            const qint64 id = f.id(e);
            QCOMPARE(
                f.text(QStringLiteral("SELECT status FROM rewind_dlq WHERE dlq_id = %1").arg(id)),
                QStringLiteral("fixed"));
            auto d = showDlq(f.db(), id);
            QVERIFY(d && d->payload);
            QVERIFY2(d->payload->contains("\"amount\": 0") || d->payload->contains("\"amount\":0"),
                     d->payload->constData()); // an integer
            const QJsonObject o = f.payload(id);
            QCOMPARE(o.value(QStringLiteral("amount")), QJsonValue(0));
            QCOMPARE(o.value(QStringLiteral("note")), QJsonValue(QStringLiteral("checked by ops")));
            QCOMPARE(o.value(QStringLiteral("tags")).toArray(),
                     (QJsonArray{1, QStringLiteral("x")}));
            QCOMPARE(o.value(QStringLiteral("order_id")).toInt(), e == QLatin1String("b") ? 2 : 4);
        }
        QCOMPARE(
            f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq_history WHERE action = 'fixed' AND "
                               "payload_before IS NOT NULL AND payload_after IS NOT NULL")),
            2);
        // The other records are untouched.
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'new' AND "
                                    "payload = original_payload")),
                 3);
    }

    // A --set that leaves the JSON value as it was changes no byte of the
    // payload (the engine's JSON text would respace it: "a payload never
    // fixed keeps its bytes"), and counts as unchanged on both engines.
    void setToTheSameValueKeepsTheBytes() {
        Fixture f;
        const qint64 b = f.id(QStringLiteral("b")), d = f.id(QStringLiteral("d"));
        const QString before =
            f.text(QStringLiteral("SELECT CAST(payload AS TEXT) FROM rewind_dlq WHERE dlq_id = %1")
                       .arg(b));
        QCOMPARE(before, QStringLiteral("{\"order_id\": 2}"));
        // order_id set to what each holds: b 2, d 4 (two runs, one id each).
        for (const auto &[id, value] : {std::pair{b, 2}, std::pair{d, 4}}) {
            const auto dry =
                runCli(f.cli(QStringLiteral("fix"),
                             {QStringLiteral("--id"), QString::number(id), QStringLiteral("--set"),
                              QStringLiteral("$.order_id=%1").arg(value)}));
            QCOMPARE(dry.exitCode, 0);
            QCOMPARE(json(dry.out).value(QStringLiteral("changed")).toInt(), 0);
            const QJsonObject sample =
                json(dry.out).value(QStringLiteral("samples")).toArray().at(0).toObject();
            QCOMPARE(sample.value(QStringLiteral("after")), sample.value(QStringLiteral("before")));
            const auto run = runCli(
                f.cli(QStringLiteral("fix"),
                      {QStringLiteral("--id"), QString::number(id), QStringLiteral("--set"),
                       QStringLiteral("$.order_id=%1").arg(value), QStringLiteral("--execute")}));
            QCOMPARE(run.exitCode, 0);
            QCOMPARE(json(run.out).value(QStringLiteral("changed")).toInt(), 0);
        }
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE dlq_id IN (%1, %2) AND "
                                    "payload = original_payload")
                         .arg(b)
                         .arg(d)),
                 2);
        QCOMPARE(
            f.text(QStringLiteral("SELECT CAST(payload AS TEXT) FROM rewind_dlq WHERE dlq_id = %1")
                       .arg(b)),
            before);
        // A value that differs is a change, and is written.
        const auto changed =
            runCli(f.cli(QStringLiteral("fix"),
                         {QStringLiteral("--id"), QString::number(d), QStringLiteral("--set"),
                          QStringLiteral("$.amount=7"), QStringLiteral("--execute")}));
        QCOMPARE(changed.exitCode, 0);
        QCOMPARE(json(changed.out).value(QStringLiteral("changed")).toInt(), 1);
        QCOMPARE(f.payload(d).value(QStringLiteral("amount")), QJsonValue(7));
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE dlq_id = %1 AND payload "
                                    "= original_payload")
                         .arg(d)),
                 0);
    }

    // The path $ is the whole payload: set to JSON it becomes that JSON, set to
    // text that does not parse it becomes a JSON string, on both engines
    // (SQLite's json_set alone left such text unquoted, and the fix failed).
    void setAtTheRootReplacesThePayload() {
        Fixture f;
        const qint64 b = f.id(QStringLiteral("b")), d = f.id(QStringLiteral("d"));
        const auto obj = runCli(f.cli(
            QStringLiteral("fix"),
            {QStringLiteral("--id"), QString::number(b), QStringLiteral("--set"),
             QStringLiteral("$={\"order_id\": 2, \"amount\": 3}"), QStringLiteral("--execute")}));
        QCOMPARE(obj.exitCode, 0);
        QCOMPARE(json(obj.out).value(QStringLiteral("changed")).toInt(), 1);
        QCOMPARE(f.payload(b),
                 (QJsonObject{{QStringLiteral("order_id"), 2}, {QStringLiteral("amount"), 3}}));
        const auto text =
            runCli(f.cli(QStringLiteral("fix"),
                         {QStringLiteral("--id"), QString::number(d), QStringLiteral("--set"),
                          QStringLiteral("$=items[#-1]=\"x\""), QStringLiteral("--execute")}));
        QCOMPARE(text.exitCode, 0);
        QCOMPARE(json(text.out).value(QStringLiteral("changed")).toInt(), 1);
        QCOMPARE(
            f.text(QStringLiteral("SELECT CAST(payload AS TEXT) FROM rewind_dlq WHERE dlq_id = %1")
                       .arg(d)),
            QStringLiteral("\"items[#-1]=\\\"x\\\"\""));
        QCOMPARE(
            f.n(QStringLiteral(
                    "SELECT COUNT(*) FROM rewind_dlq WHERE dlq_id IN (%1, %2) AND status = 'fixed'")
                    .arg(b)
                    .arg(d)),
            2);
    }

    // A --set path follows SQLite's json_set on both engines (PostgreSQL runs
    // an emulation): what is created on the way, and when nothing changes
    // (the same JSON value, however spelled, counts as unchanged).
    // One record, its payload replaced before each case.
    void setFollowsOnePathRuleOnBothEngines() {
        struct Case {
            const char *what, *doc, *path, *value,
                *after; // after nullptr: the payload stays as it was
        };
        const char *obj = R"({"a": 1})", *nested = R"({"a": {"b": [1, 2]}})";
        const Case cases[] = {
            {"missing object created", obj, "$.x.y", "5", R"({"a": 1, "x": {"y": 5}})"},
            {"missing array created for [0]", obj, "$.x[0]", "5", R"({"a": 1, "x": [5]})"},
            {"arrays in arrays for [0][0]", obj, "$.x[0][0]", "5", R"({"a": 1, "x": [[5]]})"},
            {"object in a new array", obj, "$.x[0].y", "5", R"({"a": 1, "x": [{"y": 5}]})"},
            {"no array created for [#]", obj, "$.x[#]", "5", nullptr},
            {"no array created for [#-1]", obj, "$.items[#-1]", "5", nullptr},
            {"nothing half-created", obj, "$.x.y[2]", "5", nullptr},
            {"append", nested, "$.a.b[#]", "3", R"({"a": {"b": [1, 2, 3]}})"},
            {"last element", nested, "$.a.b[#-1]", "x", R"({"a": {"b": [1, "x"]}})"},
            {"index past the end", nested, "$.a.b[5]", "9", nullptr},
            {"through a scalar", nested, "$.a.b.c", "9", nullptr},
            {"top-level array", "[1, 2]", "$[#]", R"({"k": 2})", R"([1, 2, {"k": 2}])"},
            // The same value spelled otherwise is no change, on both engines
            // (jsonb's equality): the payload keeps its bytes.
            {"same number, no fraction", R"({"a": 1.0})", "$.a", "1", nullptr},
            {"same number, exponent", R"({"a": 100})", "$.a", "1e2", nullptr},
            {"same string, escaped", R"({"a": "A"})", "$.a", R"("\u0041")", nullptr},
            {"same object, keys reordered", R"({"a": {"x": 1, "y": 2}})", "$.a",
             R"({"y": 2, "x": 1})", nullptr},
            {"same number, trailing zeros", R"({"a": 1.50})", "$.a", "15e-1", nullptr},
            {"same zero", R"({"a": -0.0})", "$.a", "0", nullptr},
            {"another number", R"({"a": 1.0})", "$.a", "1.5", R"({"a": 1.5})"},
            // Numbers a double cannot tell apart are still two values.
            {"integers past a double's digits", R"({"a": 12345678901234567890123})", "$.a",
             "12345678901234567890124", R"({"a": 12345678901234567890124})"},
            {"a fraction past a double's digits", R"({"a": 0.1})", "$.a", "0.10000000000000000001",
             R"({"a": 0.10000000000000000001})"},
            {"a number for a string", R"({"a": "1"})", "$.a", "1", R"({"a": 1})"},
        };
        Fixture f;
        const qint64 id = f.id(QStringLiteral("b"));
        for (const Case &c : cases) {
            DlqFixRequest replace;
            replace.selection.ids = {id};
            replace.payload = QByteArray(c.doc);
            replace.execute = true;
            QVERIFY2(fixDlq(f.db(), replace), c.what);
            DlqFixRequest set;
            set.selection.ids = {id};
            set.sets = {{QString::fromUtf8(c.path), QString::fromUtf8(c.value)}};
            set.execute = true;
            const auto fixed = fixDlq(f.db(), set);
            QVERIFY2(fixed, qPrintable(QString::fromUtf8(c.what) % QStringLiteral(": ") %
                                       (fixed ? QString() : fixed.error().message)));
            QVERIFY2(fixed->changed == (c.after ? 1 : 0), c.what);
            const auto shown = showDlq(f.db(), id);
            QVERIFY2(shown && shown->payload, c.what);
            QVERIFY2(QJsonDocument::fromJson(*shown->payload) ==
                         QJsonDocument::fromJson(c.after ? c.after : c.doc),
                     qPrintable(QString::fromUtf8(c.what) % QStringLiteral(": ") %
                                QString::fromUtf8(*shown->payload)));
            if (!c.after) // unchanged: not one byte rewritten
                QVERIFY2(*shown->payload == QByteArray(c.doc),
                         qPrintable(QString::fromUtf8(c.what) % QStringLiteral(": ") %
                                    QString::fromUtf8(*shown->payload)));
        }
        // A repeated key: each engine compares the value it reads, SQLite the
        // first (which --set sets), PostgreSQL's jsonb the last.
        DlqFixRequest replace;
        replace.selection.ids = {id};
        replace.payload = QByteArray(R"({"a": 1, "a": 2})");
        replace.execute = true;
        QVERIFY(fixDlq(f.db(), replace));
        DlqFixRequest set;
        set.selection.ids = {id};
        set.sets = {{QStringLiteral("$.a"), QStringLiteral("2")}};
        const auto repeated = fixDlq(f.db(), set);
        QVERIFY(repeated);
        QCOMPARE(repeated->changed, testsupport::onPostgres() ? 0 : 1);
        // A payload the strict parser refuses (a number past double's range,
        // as replay may quarantine it): the same value is still no change.
        // Spacing inside a string, after an escaped quote, still counts.
        const QByteArray huge = "{\"a\": 1e400, \"b\": 1, \"c\": \"x\\\" y\"}";
        QVERIFY(f.db().exec(QStringLiteral("UPDATE rewind_dlq SET payload = ? WHERE dlq_id = ?"),
                            {DlqDialect::of(f.db().dialect()).payloadValue(huge), id}));
        struct Set {
            const char *path, *value;
            int changed;
        };
        for (const Set &c : {Set{"$.b", "1", 0}, Set{"$.b", "2", 1}, Set{"$.c", "\"x\\\" y\"", 0},
                             Set{"$.c", "\"x\\\"y\"", 1}}) {
            DlqFixRequest b;
            b.selection.ids = {id};
            b.sets = {{QString::fromLatin1(c.path), QString::fromLatin1(c.value)}};
            const auto fixed = fixDlq(f.db(), b);
            QVERIFY(fixed);
            QVERIFY2(fixed->changed == c.changed, c.value);
        }
    }

    void badFixesAreRefusedAndChangeNothing() {
        Fixture f;
        const QString before = f.state();
        const QString b = QString::number(f.id(QStringLiteral("b")));
        const QString bad = testsupport::writeFile(f.dir, QStringLiteral("bad.json"),
                                                   "{\"order_id\": 2,\n \"amount\": 12,,}");
        auto r = runCli(f.cli(QStringLiteral("fix"),
                              {QStringLiteral("--id"), b, QStringLiteral("--payload-file"), bad,
                               QStringLiteral("--execute")}));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("not valid JSON")) &&
                     r.err.contains(QStringLiteral("line 2, column")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("at byte ")), qPrintable(r.err));
        // Invalid UTF-8 is not JSON either.
        const QString latin =
            testsupport::writeFile(f.dir, QStringLiteral("latin.json"), "{\"note\": \"caf\xe9\"}");
        QCOMPARE(runCli(f.cli(QStringLiteral("fix"),
                              {QStringLiteral("--id"), b, QStringLiteral("--payload-file"), latin,
                               QStringLiteral("--execute")}))
                     .exitCode,
                 2);
        // --set on a payload that is not JSON, a malformed path, a path without $.
        const QString c = QString::number(f.id(QStringLiteral("c")));
        auto notJson = runCli(f.cli(QStringLiteral("fix"),
                                    {QStringLiteral("--id"), c, QStringLiteral("--set"),
                                     QStringLiteral("$.amount=1"), QStringLiteral("--execute")}));
        QCOMPARE(notJson.exitCode, 2);
        QVERIFY2(notJson.err.contains(QStringLiteral("--payload-file")), qPrintable(notJson.err));
        QCOMPARE(runCli(f.cli(QStringLiteral("fix"),
                              {QStringLiteral("--status"), QStringLiteral("new"),
                               QStringLiteral("--set"), QStringLiteral("$.amount=1"),
                               QStringLiteral("--execute")}))
                     .exitCode,
                 2); // the selection holds c: all or nothing
        QCOMPARE(runCli(f.cli(QStringLiteral("fix"),
                              {QStringLiteral("--id"), b, QStringLiteral("--set"),
                               QStringLiteral("$.a[=1"), QStringLiteral("--execute")}))
                     .exitCode,
                 2);
        QCOMPARE(runCli(f.cli(QStringLiteral("fix"),
                              {QStringLiteral("--id"), b, QStringLiteral("--set"),
                               QStringLiteral("amount=1"), QStringLiteral("--execute")}))
                     .exitCode,
                 2);
        QCOMPARE(
            runCli(f.cli(QStringLiteral("fix"),
                         {QStringLiteral("--id"), QStringLiteral("999"), QStringLiteral("--set"),
                          QStringLiteral("$.a=1"), QStringLiteral("--execute")}))
                .exitCode,
            2);
        QCOMPARE(
            runCli(f.cli(QStringLiteral("fix"), {QStringLiteral("--set"), QStringLiteral("$.a=1"),
                                                 QStringLiteral("--execute")}))
                .exitCode,
            2); // no selection
        QCOMPARE(f.state(), before);
    }

    void discardNeedsAReasonAndKeepsTheRecord() {
        Fixture f;
        const QString d = QString::number(f.id(QStringLiteral("d")));
        const QString before = f.state();
        QCOMPARE(runCli(f.cli(QStringLiteral("discard"),
                              {QStringLiteral("--id"), d, QStringLiteral("--execute")}))
                     .exitCode,
                 2);
        auto dry = runCli(
            f.cli(QStringLiteral("discard"), {QStringLiteral("--id"), d, QStringLiteral("--reason"),
                                              QStringLiteral("test order")}));
        QCOMPARE(dry.exitCode, 0);
        QCOMPARE(f.state(), before);
        auto r = runCli(f.cli(QStringLiteral("discard"),
                              {QStringLiteral("--id"), d, QStringLiteral("--reason"),
                               QStringLiteral("test order"), QStringLiteral("--execute")}));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(json(r.out).value(QStringLiteral("discarded")).toInt(), 1);
        QCOMPARE(f.text(QStringLiteral("SELECT status FROM rewind_dlq WHERE dlq_id = ") + d),
                 QStringLiteral("discarded"));
        QCOMPARE(
            f.text(QStringLiteral("SELECT reason || '|' || from_status || '|' || to_status || '|' "
                                  "|| os_user FROM rewind_dlq_history WHERE action = 'discarded'")),
            QStringLiteral("test order|new|discarded|") + osUser());
        // Discarded records cannot be discarded again, fixed, or replayed.
        QCOMPARE(runCli(f.cli(QStringLiteral("discard"),
                              {QStringLiteral("--id"), d, QStringLiteral("--reason"),
                               QStringLiteral("again"), QStringLiteral("--execute")}))
                     .exitCode,
                 2);
        QCOMPARE(runCli(f.cli(QStringLiteral("fix"),
                              {QStringLiteral("--id"), d, QStringLiteral("--set"),
                               QStringLiteral("$.amount=1"), QStringLiteral("--execute")}))
                     .exitCode,
                 2);
        auto replayed = runCli(f.cli(QStringLiteral("replay"),
                                     {QStringLiteral("--id"), d, QStringLiteral("--execute")}));
        QCOMPARE(json(replayed.out).value(QStringLiteral("skipped")).toInt(), 1);
        QCOMPARE(f.text(QStringLiteral("SELECT status FROM rewind_dlq WHERE dlq_id = ") + d),
                 QStringLiteral("discarded"));
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")), 5);
    }

    // new -> failed -> fixed -> replayed, new -> fixed -> replayed, failed -> discarded; with
    // history.
    void everyTransition() {
        Fixture f;
        const qint64 b = f.id(QStringLiteral("b")), d = f.id(QStringLiteral("d")),
                     c = f.id(QStringLiteral("c"));
        // Replay as captured: all fail; attempts and last error kept.
        auto first = runCli(f.cli(QStringLiteral("replay"), {QStringLiteral("--execute")}));
        QCOMPARE(first.exitCode, 0);
        QCOMPARE(json(first.out).value(QStringLiteral("failed")).toInt(), 5);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'failed' AND "
                                    "attempts = 1 AND last_attempt_at IS NOT NULL "
                                    "AND last_error IS NOT NULL")),
                 5);
        QCOMPARE(
            f.text(QStringLiteral("SELECT last_error FROM rewind_dlq WHERE dlq_id = %1").arg(b)),
            QStringLiteral("required field missing or null: amount ($.amount)"));
        // The default selection (new, fixed) no longer holds them.
        QCOMPARE(json(runCli(f.cli(QStringLiteral("replay"), {QStringLiteral("--execute")})).out)
                     .value(QStringLiteral("selected"))
                     .toInt(),
                 0);
        // failed -> fixed -> replayed
        QCOMPARE(runCli(f.cli(QStringLiteral("fix"),
                              {QStringLiteral("--id"), QString::number(b), QStringLiteral("--set"),
                               QStringLiteral("$.amount=5"), QStringLiteral("--execute")}))
                     .exitCode,
                 0);
        // failed, named explicitly, replayed again: still failing, attempts 2.
        QCOMPARE(runCli(f.cli(QStringLiteral("replay"), {QStringLiteral("--id"), QString::number(d),
                                                         QStringLiteral("--execute")}))
                     .exitCode,
                 0);
        QCOMPARE(f.n(QStringLiteral(
                         "SELECT attempts FROM rewind_dlq WHERE dlq_id = %1 AND status = 'failed'")
                         .arg(d)),
                 2);
        auto r = runCli(f.cli(QStringLiteral("replay"), {QStringLiteral("--execute")}));
        QCOMPARE(json(r.out).value(QStringLiteral("replayed")).toInt(), 1);
        QCOMPARE(
            f.n(QStringLiteral("SELECT COUNT(*) FROM ev_sink WHERE event_id = 'b' AND amount = 5")),
            1);
        // failed -> discarded
        QCOMPARE(
            runCli(f.cli(QStringLiteral("discard"),
                         {QStringLiteral("--id"), QString::number(c), QStringLiteral("--reason"),
                          QStringLiteral("garbage"), QStringLiteral("--execute")}))
                .exitCode,
            0);
        auto hist =
            f.db().exec(QStringLiteral("SELECT action, from_status, to_status FROM "
                                       "rewind_dlq_history WHERE dlq_id = ? ORDER BY history_id"),
                        {b});
        QStringList steps;
        while (hist->next())
            steps << hist->value(0).toString() + u':' + hist->value(1).toString() + u'>' +
                         hist->value(2).toString();
        QCOMPARE(steps, (QStringList{QStringLiteral("quarantined:>new"),
                                     QStringLiteral("replay_failed:new>failed"),
                                     QStringLiteral("fixed:failed>fixed"),
                                     QStringLiteral("replayed:fixed>replayed")}));
        QCOMPARE(f.text(QStringLiteral("SELECT status FROM rewind_dlq WHERE dlq_id = %1").arg(b)),
                 QStringLiteral("replayed"));
        QCOMPARE(f.text(QStringLiteral("SELECT status FROM rewind_dlq WHERE dlq_id = %1").arg(c)),
                 QStringLiteral("discarded"));
        QCOMPARE(f.text(QStringLiteral("SELECT status FROM rewind_dlq WHERE dlq_id = %1").arg(d)),
                 QStringLiteral("failed"));
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'failed'")), 3);
        // A replayed record cannot be fixed or discarded; nothing was ever deleted.
        QCOMPARE(runCli(f.cli(QStringLiteral("fix"),
                              {QStringLiteral("--id"), QString::number(b), QStringLiteral("--set"),
                               QStringLiteral("$.amount=6"), QStringLiteral("--execute")}))
                     .exitCode,
                 2);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")), 5);
        QVERIFY(f.n(QStringLiteral(
                    "SELECT COUNT(*) FROM rewind_audit WHERE action = 'dlq-replay-batch'")) >= 3);
    }
};

QTEST_GUILESS_MAIN(TestDlq)
#include "tst_dlq.moc"
