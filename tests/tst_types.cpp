// Typed columns as a warehouse declares them: `date` partitions, `timestamptz`
// order_by and event/ingest times, `numeric(12,2)` amounts, `bigint`/`text`
// keys, a `date` and a `numeric` key. Driven through rewindctl, as an operator
// (or a script) does, and checked on the tables themselves. The DDL is the
// same on both engines (SQLite accepts these type names, with NUMERIC
// affinity); where a real type changes the answer (an instant written with
// another offset is the same instant only in a real timestamptz), the test
// says which engine expects what.
#include "tests/typesfixture.h"

#include <QTest>

class TestTypes : public TypesFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        // Not UTC, so that nothing may lean on the process's zone: the
        // driver reads a timestamptz into local time.
        qputenv("TZ", "America/New_York");
        tzset();
    }

    // Date partitions are listed, and typed back, as the user writes them.
    void partitionsAsTyped() {
        fresh();
        const QJsonObject doc = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                      QStringLiteral("fact_sales")});
        const QJsonArray parts = doc.value(QStringLiteral("partitions")).toArray();
        QCOMPARE(partitionValues(parts),
                 (QStringList{QStringLiteral("2026-03-01"), QStringLiteral("2026-03-02"),
                              QStringLiteral("2026-03-03")}));
        const QJsonObject first = findPartition(parts, QStringLiteral("2026-03-01"));
        QCOMPARE(first.value(QStringLiteral("source_rows")).toInteger(), 3);
        QCOMPARE(first.value(QStringLiteral("target_rows")).toInteger(), 2);
        QCOMPARE(first.value(QStringLiteral("duplicate_keys")).toInteger(), 0);
        QCOMPARE(partitionStatus(parts, QStringLiteral("2026-03-03")), QStringLiteral("unloaded"));

        // An unknown day is refused, naming it.
        const auto bad = cli({QStringLiteral("preview"), QStringLiteral("--dataset"),
                              QStringLiteral("fact_sales"), QStringLiteral("--partition"),
                              QStringLiteral("2026-03-09"), QStringLiteral("--json")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QLatin1String("2026-03-09")), qPrintable(bad.err));
    }

    // Equal values in other spellings are unchanged: 11.0 / 11.00, 20 / 20.00
    // and (real timestamptz) the same instant written at another offset.
    void previewComparesValues() {
        fresh();
        const QJsonObject doc = json({QStringLiteral("preview"), QStringLiteral("--dataset"),
                                      QStringLiteral("fact_sales"), QStringLiteral("--partition"),
                                      QStringLiteral("2026-03-01"), QStringLiteral("--partition"),
                                      QStringLiteral("2026-03-02")});
        const QJsonArray parts = doc.value(QStringLiteral("partitions")).toArray();
        QCOMPARE(parts.size(), 2);
        const QJsonObject d1 = findPartition(parts, QStringLiteral("2026-03-01"));
        QCOMPARE(d1.value(QStringLiteral("source_rows")).toInteger(), 3);
        QCOMPARE(d1.value(QStringLiteral("staged_rows")).toInteger(), 2);
        QCOMPARE(d1.value(QStringLiteral("duplicates_dropped")).toInteger(), 1);
        QCOMPARE(d1.value(QStringLiteral("inserted")).toInteger(), 0);
        // SQLite holds the instants as the text written, so the fixture writes them alike there.
        QCOMPARE(d1.value(QStringLiteral("updated")).toInteger(), 0);
        QCOMPARE(d1.value(QStringLiteral("unchanged")).toInteger(), 2);
        const QJsonObject d2 = findPartition(parts, QStringLiteral("2026-03-02"));
        QCOMPARE(d2.value(QStringLiteral("inserted")).toInteger(), 1);
        QCOMPARE(d2.value(QStringLiteral("updated")).toInteger(), 1); // 30.20 -> 30.25
        QCOMPARE(d2.value(QStringLiteral("unchanged")).toInteger(), 0);
        // Samples show the values: the instant in UTC, the date as a date.
        const QJsonObject sampled =
            json({QStringLiteral("preview"), QStringLiteral("--dataset"),
                  QStringLiteral("fact_sales"), QStringLiteral("--partition"),
                  QStringLiteral("2026-03-02"), QStringLiteral("--samples"), QStringLiteral("5")});
        const QJsonObject samples = testsupport::jsonAt(sampled, "partitions/0/samples").toObject();
        const QJsonObject inserted = testsupport::jsonAt(samples, "inserted/0").toObject();
        QCOMPARE(inserted.value(QStringLiteral("dt")).toString(), QStringLiteral("2026-03-02"));
        QCOMPARE(inserted.value(QStringLiteral("amount")).toDouble(), 40.0);
        const QString updatedAt = inserted.value(QStringLiteral("updated_at")).toString();
        QVERIFY2(updatedAt == QLatin1String("2026-03-02T10:00:00Z") ||
                     updatedAt == QLatin1String("2026-03-02 10:00:00+00"),
                 qPrintable(updatedAt));
        const QJsonObject before = testsupport::jsonAt(samples, "updated/0/before").toObject();
        QCOMPARE(before.value(QStringLiteral("amount")).toDouble(), 30.2);
        // Nothing written by a preview.
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_sales")), 3);
    }

    // One day, then a --from/--to range: the target holds the source's values,
    // a re-run changes nothing, and rollback puts the day back.
    void runDayAndRange() {
        fresh();
        const QJsonObject one = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                      QStringLiteral("fact_sales"), QStringLiteral("--partition"),
                                      QStringLiteral("2026-03-02"), QStringLiteral("--execute")});
        QCOMPARE(one.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        const QJsonObject t1 = one.value(QStringLiteral("totals")).toObject();
        QCOMPARE(t1.value(QStringLiteral("inserted")).toInteger(), 1);
        QCOMPARE(t1.value(QStringLiteral("updated")).toInteger(), 1);
        QCOMPARE(scalar(QStringLiteral(
                     "SELECT COUNT(*) FROM fact_sales WHERE order_id = 3 AND amount = 30.25")),
                 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_sales WHERE dt = '2026-03-02'")),
                 2);
        for (const auto &c : one.value(QStringLiteral("checks")).toArray())
            QVERIFY2(c.toObject().value(QStringLiteral("passed")).toBool(),
                     qPrintable(c.toObject().value(QStringLiteral("detail")).toString()));
        const qint64 firstRun = one.value(QStringLiteral("run_id")).toInteger();

        const QJsonObject range =
            json({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact_sales"),
                  QStringLiteral("--from"), QStringLiteral("2026-03-01"), QStringLiteral("--to"),
                  QStringLiteral("2026-03-03"), QStringLiteral("--execute")});
        QCOMPARE(range.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(partitionValues(range.value(QStringLiteral("partitions")).toArray()),
                 (QStringList{QStringLiteral("2026-03-01"), QStringLiteral("2026-03-02"),
                              QStringLiteral("2026-03-03")}));
        const QJsonObject t2 = range.value(QStringLiteral("totals")).toObject();
        QCOMPARE(t2.value(QStringLiteral("inserted")).toInteger(), 1); // order 5 on 2026-03-03
        QCOMPARE(t2.value(QStringLiteral("updated")).toInteger(), 0);
        QCOMPARE(t2.value(QStringLiteral("unchanged")).toInteger(), 4);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_sales")), 5);
        QCOMPARE(scalar(QStringLiteral(
                     "SELECT COUNT(*) FROM fact_sales WHERE dt = '2026-03-03' AND amount = 50.10")),
                 1);

        // Every day published and up to date.
        const QJsonArray parts = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact_sales")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        for (const auto &p : parts) {
            const QString status = p.toObject().value(QStringLiteral("status")).toString();
            QVERIFY2(status == QLatin1String("provisional"),
                     qPrintable(p.toObject().value(QStringLiteral("partition")).toString() % u' ' %
                                status));
        }

        // Rolling back the range run takes 2026-03-03 out again; the first run
        // then rolls back to 30.20.
        const QJsonObject rb =
            json({QStringLiteral("rollback"), QStringLiteral("--run"),
                  QString::number(range.value(QStringLiteral("run_id")).toInteger()),
                  QStringLiteral("--execute")});
        Q_UNUSED(rb);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_sales WHERE dt = '2026-03-03'")),
                 0);
        json({QStringLiteral("rollback"), QStringLiteral("--run"), QString::number(firstRun),
              QStringLiteral("--execute")});
        QCOMPARE(scalar(QStringLiteral(
                     "SELECT COUNT(*) FROM fact_sales WHERE order_id = 3 AND amount = 30.20")),
                 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_sales")), 3);

        const QJsonObject audit = json({QStringLiteral("audit")});
        QVERIFY(!audit.isEmpty());
    }

    // A first run creates the target with the source's types; overwrite
    // deletes what the source no longer has; the dedupe keeps the latest
    // instant, not the latest text.
    void firstRunCreatesTypedTarget() {
        fresh();
        // Two versions of order 6 whose text order disagrees with their instants.
        QVERIFY(m_db->exec(
            QStringLiteral("INSERT INTO raw_sales VALUES "
                           "(6, 'f', '2026-03-03', 1.00, '2026-03-03 23:00:00+05', NULL, NULL),"
                           "(6, 'f', '2026-03-03', 2.00, '2026-03-03 20:00:00+00', NULL, NULL)")));
        const QJsonObject run = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                      QStringLiteral("fact_new"), QStringLiteral("--execute")});
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(testsupport::jsonAt(run, "totals/inserted").toInteger(), 6);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_new")), 6);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_new WHERE dt = '2026-03-01'")),
                 2);
        if (testsupport::onPostgres()) {
            QCOMPARE(columnType(QStringLiteral("fact_new"), QStringLiteral("dt")),
                     QStringLiteral("date"));
            QCOMPARE(columnType(QStringLiteral("fact_new"), QStringLiteral("amount")),
                     QStringLiteral("numeric(12,2)"));
            QCOMPARE(columnType(QStringLiteral("fact_new"), QStringLiteral("updated_at")),
                     QStringLiteral("timestamp with time zone"));
            QCOMPARE(columnType(QStringLiteral("fact_new"), QStringLiteral("order_id")),
                     QStringLiteral("bigint"));
            QCOMPARE(columnType(QStringLiteral("fact_new"), QStringLiteral("item_id")),
                     QStringLiteral("text"));
            // 20:00Z is later than 23:00+05 (18:00Z).
            QCOMPARE(scalar(QStringLiteral(
                         "SELECT COUNT(*) FROM fact_new WHERE order_id = 6 AND amount = 2")),
                     1);
        }
        // Again: nothing changes.
        const QJsonObject again = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                        QStringLiteral("fact_new"), QStringLiteral("--execute")});
        const QJsonObject t = again.value(QStringLiteral("totals")).toObject();
        QCOMPARE(t.value(QStringLiteral("inserted")).toInteger(), 0);
        QCOMPARE(t.value(QStringLiteral("updated")).toInteger(), 0);
        QCOMPARE(t.value(QStringLiteral("deleted")).toInteger(), 0);
        QCOMPARE(t.value(QStringLiteral("unchanged")).toInteger(), 6);

        // A row leaves the source: the day is stale, and overwriting it deletes the row.
        QVERIFY(m_db->exec(QStringLiteral("DELETE FROM raw_sales WHERE order_id = 4")));
        const QJsonArray parts = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact_new")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        QCOMPARE(partitionStatus(parts, QStringLiteral("2026-03-02")), QStringLiteral("stale"));
        QCOMPARE(partitionStatus(parts, QStringLiteral("2026-03-01")), QStringLiteral("loaded"));
        const QJsonObject stale =
            json({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact_new"),
                  QStringLiteral("--stale"), QStringLiteral("--execute")});
        QCOMPARE(partitionValues(stale.value(QStringLiteral("partitions")).toArray()),
                 QStringList{QStringLiteral("2026-03-02")});
        QCOMPARE(testsupport::jsonAt(stale, "totals/deleted").toInteger(), 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_new WHERE dt = '2026-03-02'")),
                 1);
    }

    // The total gate sums numeric amounts: equal sums pass, doubled ones fail
    // (exit 3) and publish nothing.
    void totalGateOnNumeric() {
        fresh();
        const QJsonObject failed = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                         QStringLiteral("doubled"), QStringLiteral("--partition"),
                                         QStringLiteral("2026-03-02"), QStringLiteral("--execute")},
                                        3);
        bool sawTotal = false;
        for (const auto &c : failed.value(QStringLiteral("checks")).toArray())
            if (c.toObject()
                    .value(QStringLiteral("name"))
                    .toString()
                    .contains(QLatin1String("total"))) {
                sawTotal = true;
                QVERIFY(!c.toObject().value(QStringLiteral("passed")).toBool());
            }
        QVERIFY(sawTotal);
        // Nothing published: the target the first run would have created is not there, or empty.
        auto exists = m_db->hasRelation(QStringLiteral("doubled"));
        QVERIFY(exists);
        if (*exists)
            QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM doubled")), 0);
        // The same gate passes on the untouched amounts (sums like 31.00 = 10.50 + 20.00 + ...).
        const QJsonObject passed = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                         QStringLiteral("fact_new"), QStringLiteral("--execute")});
        for (const auto &c : passed.value(QStringLiteral("checks")).toArray())
            QVERIFY2(c.toObject().value(QStringLiteral("passed")).toBool(),
                     qPrintable(c.toObject().value(QStringLiteral("detail")).toString()));
    }

    // scd2 by a date effective partition: versions keep date bounds; a re-run changes nothing.
    void scd2ByDate() {
        fresh();
        const QJsonObject run = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                      QStringLiteral("dim_customer"), QStringLiteral("--execute")});
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(partitionValues(run.value(QStringLiteral("partitions")).toArray()),
                 (QStringList{QStringLiteral("2026-01-01"), QStringLiteral("2026-02-01")}));
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer")), 3);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer WHERE customer_id = 1 "
                                       "AND tier = 'gold' AND effective_to = '2026-02-01' "
                                       "AND is_current = 0")),
                 1);
        QCOMPARE(
            scalar(QStringLiteral(
                "SELECT COUNT(*) FROM dim_customer WHERE customer_id = 1 AND tier = 'platinum' "
                "AND effective_from = '2026-02-01' AND effective_to IS NULL AND is_current = 1")),
            1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer WHERE customer_id = 2 "
                                       "AND is_current = 1 AND effective_from = '2026-01-01'")),
                 1);
        if (testsupport::onPostgres()) {
            QCOMPARE(columnType(QStringLiteral("dim_customer"), QStringLiteral("effective_from")),
                     QStringLiteral("date"));
            QCOMPARE(columnType(QStringLiteral("dim_customer"), QStringLiteral("effective_to")),
                     QStringLiteral("date"));
        }
        const QJsonObject again =
            json({QStringLiteral("run"), QStringLiteral("--dataset"),
                  QStringLiteral("dim_customer"), QStringLiteral("--execute")});
        const QJsonObject t = again.value(QStringLiteral("totals")).toObject();
        QCOMPARE(t.value(QStringLiteral("inserted")).toInteger(), 0);
        QCOMPARE(t.value(QStringLiteral("updated")).toInteger(), 0);
        QCOMPARE(t.value(QStringLiteral("deleted")).toInteger(), 0);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer")), 3);

        // A later change on a new day, run by range.
        QVERIFY(m_db->exec(QStringLiteral("INSERT INTO raw_customers VALUES (2, 'gold', "
                                          "'2026-03-01', '2026-03-01 08:00:00+00')")));
        const QJsonObject later = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                        QStringLiteral("dim_customer"), QStringLiteral("--from"),
                                        QStringLiteral("2026-03-01"), QStringLiteral("--to"),
                                        QStringLiteral("2026-03-31"), QStringLiteral("--execute")});
        QCOMPARE(partitionValues(later.value(QStringLiteral("partitions")).toArray()),
                 QStringList{QStringLiteral("2026-03-01")});
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer WHERE customer_id = 2 "
                                       "AND tier = 'silver' AND effective_to = '2026-03-01'")),
                 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer WHERE is_current = 1")),
                 2);
        // Rolled back: the silver version is current again.
        json({QStringLiteral("rollback"), QStringLiteral("--run"),
              QString::number(later.value(QStringLiteral("run_id")).toInteger()),
              QStringLiteral("--execute")});
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer WHERE customer_id = 2 "
                                       "AND tier = 'silver' AND is_current = 1 "
                                       "AND effective_to IS NULL")),
                 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer")), 3);
    }

    // A dimension made beforehand with a boolean current flag.
    void scd2BooleanCurrent() {
        fresh();
        const QJsonObject run = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                      QStringLiteral("dim_bool"), QStringLiteral("--execute")});
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_bool")), 3);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_bool WHERE customer_id = 1 AND "
                                       "tier = 'gold' AND effective_to = '2026-02-01' "
                                       "AND is_current = false")),
                 1);
        QCOMPARE(
            scalar(QStringLiteral(
                "SELECT COUNT(*) FROM dim_bool WHERE is_current = true AND effective_to IS NULL")),
            2);
        const QJsonArray parts = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("dim_bool")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        for (const auto &p : parts)
            QCOMPARE(p.toObject().value(QStringLiteral("duplicate_keys")).toInteger(), 0);
        QCOMPARE(json({QStringLiteral("duplicates"), QStringLiteral("--dataset"),
                       QStringLiteral("dim_bool")})
                     .value(QStringLiteral("duplicate_keys"))
                     .toInteger(),
                 0);
        QVERIFY(m_db->exec(QStringLiteral("INSERT INTO raw_customers VALUES (2, 'gold', "
                                          "'2026-03-01', '2026-03-01 08:00:00+00')")));
        const QJsonObject later = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                        QStringLiteral("dim_bool"), QStringLiteral("--partition"),
                                        QStringLiteral("2026-03-01"), QStringLiteral("--execute")});
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_bool WHERE customer_id = 2 AND "
                                       "tier = 'silver' AND is_current = false "
                                       "AND effective_to = '2026-03-01'")),
                 1);
        json({QStringLiteral("rollback"), QStringLiteral("--run"),
              QString::number(later.value(QStringLiteral("run_id")).toInteger()),
              QStringLiteral("--execute")});
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_bool WHERE customer_id = 2 AND "
                                       "is_current = true AND effective_to IS NULL")),
                 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_bool")), 3);
    }

    // A key of a date and a numeric: 10.5 and 10.50 are the same key.
    void dateAndNumericKey() {
        fresh();
        const QJsonObject preview = json(
            {QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("prices")});
        const QJsonArray parts = preview.value(QStringLiteral("partitions")).toArray();
        QCOMPARE(parts.size(), 1);
        QVERIFY(parts.at(0).toObject().value(QStringLiteral("partition")).isNull());
        const QJsonObject t = preview.value(QStringLiteral("totals")).toObject();
        QCOMPARE(t.value(QStringLiteral("inserted")).toInteger(), 2);
        QCOMPARE(t.value(QStringLiteral("unchanged")).toInteger(), 1);
        const QJsonObject run = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                      QStringLiteral("prices"), QStringLiteral("--execute")});
        QCOMPARE(testsupport::jsonAt(run, "totals/inserted").toInteger(), 2);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM prices")), 4);
        QCOMPARE(
            scalar(QStringLiteral("SELECT COUNT(*) FROM prices WHERE sku = 'x' AND price = 10.5")),
            2);
        const QJsonObject dups = json(
            {QStringLiteral("duplicates"), QStringLiteral("--dataset"), QStringLiteral("prices")});
        QCOMPARE(dups.value(QStringLiteral("duplicate_keys")).toInteger(), 0);
    }

    // Text in the source, real types in a target made beforehand: the
    // source's values are read as the target's types.
    void textSourceTypedTarget() {
        fresh();
        const QJsonArray parts = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("from_text")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        QCOMPARE(partitionValues(parts),
                 (QStringList{QStringLiteral("2026-03-01"), QStringLiteral("2026-03-02")}));
        QCOMPARE(findPartition(parts, QStringLiteral("2026-03-01"))
                     .value(QStringLiteral("target_rows"))
                     .toInteger(),
                 1);
        const QJsonObject preview = json(
            {QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("from_text")});
        const QJsonObject d1 = findPartition(preview.value(QStringLiteral("partitions")).toArray(),
                                             QStringLiteral("2026-03-01"));
        QCOMPARE(d1.value(QStringLiteral("inserted")).toInteger(), 1);
        QCOMPARE(d1.value(QStringLiteral("unchanged")).toInteger(), 1); // '10.5' is 10.50
        const QJsonObject run =
            json({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("from_text"),
                  QStringLiteral("--from"), QStringLiteral("2026-03-01"), QStringLiteral("--to"),
                  QStringLiteral("2026-03-02"), QStringLiteral("--execute")});
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(testsupport::jsonAt(run, "totals/inserted").toInteger(), 2);
        QCOMPARE(testsupport::jsonAt(run, "totals/duplicates_dropped").toInteger(), 1);
        for (const auto &c : run.value(QStringLiteral("checks")).toArray())
            QVERIFY2(c.toObject().value(QStringLiteral("passed")).toBool(),
                     qPrintable(c.toObject().value(QStringLiteral("detail")).toString()));
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM typed_sales")), 3);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM typed_sales WHERE order_id = 3 AND "
                                       "amount = 5.25 AND dt = '2026-03-02'")),
                 1);
        const QJsonObject again = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                        QStringLiteral("from_text"), QStringLiteral("--execute")});
        QCOMPARE(testsupport::jsonAt(again, "totals/unchanged").toInteger(), 3);
        QCOMPARE(testsupport::jsonAt(again, "totals/inserted").toInteger(), 0);
        QCOMPARE(testsupport::jsonAt(again, "totals/updated").toInteger(), 0);
    }

    // A row without an amount goes to the DLQ with its typed values; fixed
    // and replayed, it lands in the target with its types.
    void quarantineAndReplay() {
        fresh();
        QVERIFY(m_db->exec(QStringLiteral(
            "INSERT INTO raw_sales VALUES (7, 'g', '2026-03-02', NULL, '2026-03-02 11:00:00+00', "
            "'2026-03-02 10:00:00+00', '2026-03-02 10:30:00+00')")));
        const QJsonObject run = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                      QStringLiteral("quarantined"), QStringLiteral("--partition"),
                                      QStringLiteral("2026-03-02"), QStringLiteral("--execute")});
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM q_sales")), 2);
        const QJsonArray records = json({QStringLiteral("dlq"), QStringLiteral("list")})
                                       .value(QStringLiteral("records"))
                                       .toArray();
        QCOMPARE(records.size(), 1);
        const QString id =
            QString::number(records.at(0).toObject().value(QStringLiteral("id")).toInteger());
        json({QStringLiteral("dlq"), QStringLiteral("fix"), QStringLiteral("--id"), id,
              QStringLiteral("--set"), QStringLiteral("$.amount=12.5"),
              QStringLiteral("--execute")});
        const QJsonObject replayed =
            json({QStringLiteral("dlq"), QStringLiteral("replay"), QStringLiteral("--id"), id,
                  QStringLiteral("--execute")});
        QCOMPARE(replayed.value(QStringLiteral("replayed")).toInteger(), 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM q_sales WHERE order_id = 7 AND amount "
                                       "= 12.50 AND dt = '2026-03-02' "
                                       "AND updated_at IS NOT NULL")),
                 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM q_sales")), 3);
    }

    // A duplicate incident on typed tables: found, recovered, totals match.
    void recoverDuplicates() {
        fresh();
        QVERIFY(m_db->exec(
            QStringLiteral("INSERT INTO fact_sales SELECT * FROM fact_sales WHERE order_id = 3")));
        const QJsonObject dups = json({QStringLiteral("duplicates"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact_sales")});
        QCOMPARE(dups.value(QStringLiteral("duplicate_keys")).toInteger(), 1);
        QCOMPARE(dups.value(QStringLiteral("extra_rows")).toInteger(), 1);
        const QString report = m_dir.filePath(QStringLiteral("recovery.md"));
        const QJsonObject rec = json({QStringLiteral("recover"), QStringLiteral("--dataset"),
                                      QStringLiteral("fact_sales"), QStringLiteral("--report"),
                                      report, QStringLiteral("--execute")});
        QVERIFY(QFile::exists(report));
        QVERIFY2(rec.value(QStringLiteral("totals_match")).toBool(),
                 qPrintable(QString::fromUtf8(QJsonDocument(rec).toJson())));
        QVERIFY(rec.value(QStringLiteral("unique_index_added")).toBool());
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_sales WHERE order_id = 3")), 1);
        QCOMPARE(scalar(QStringLiteral(
                     "SELECT COUNT(*) FROM fact_sales WHERE order_id = 3 AND amount = 30.25")),
                 1);
        QCOMPARE(json({QStringLiteral("duplicates"), QStringLiteral("--dataset"),
                       QStringLiteral("fact_sales")})
                     .value(QStringLiteral("duplicate_keys"))
                     .toInteger(),
                 0);
    }
};

QTEST_GUILESS_MAIN(TestTypes)
#include "tst_types.moc"
