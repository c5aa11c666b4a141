// DLQ paging for the console: keyset pages walk the whole selection in id
// order without gaps or repeats, honour filters, and a page deep in a large
// DLQ costs what the first one does. Rows are made by SQL written here.
#include "core/dlq/dlq.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QElapsedTimer>
#include <QTest>

using namespace rw;

namespace {

const QByteArray kSpec = R"({"streams": {"ev": {"log": "ev_log", "sink": "ev_sink",
    "fields": {"order_id": "$.order_id", "amount": "$.amount"}, "required": ["order_id", "amount"]}}})";

// `n` records: every third one is missing_field with a record-specific
// number in its message, the rest invalid_json; every tenth is failed.
QString fill(qint64 n) {
    return QStringLiteral(
               "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < %1) "
               "INSERT INTO rewind_dlq (source_kind, source_name, part, log_offset, event_id, "
               "error_class, error, original_payload, payload, "
               "status, attempts, first_seen) "
               "SELECT 'stream', 'ev', CAST(i % 4 AS TEXT), i, 'ev-' || i, "
               "CASE WHEN i % 3 = 0 THEN 'missing_field' ELSE 'invalid_json' END, "
               "CASE WHEN i % 3 = 0 THEN 'order ' || i || ' has no amount' ELSE 'unexpected end of "
               "input' END, "
               "'{\"order_id\": ' || i || '}', '{\"order_id\": ' || i || '}', "
               "CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'new' END, 0, '2025-05-06T10:00:00Z' FROM "
               "g")
        .arg(n);
}

struct Fixture : testsupport::WorkspaceFixture {
    explicit Fixture(qint64 n)
        : WorkspaceFixture(
              {QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                              "event_id TEXT, record_ts TEXT, payload TEXT)")},
              kSpec, QStringLiteral("d.db"), QStringLiteral("s.json")) {
        if (auto r = ws->db.exec(fill(n)); !r)
            qFatal("%s", qPrintable(r.error().message));
    }
};

QList<qint64> walk(const Database &db, const DlqSelection &selection, int pageSize) {
    QList<qint64> ids;
    qint64 after = 0;
    for (;;) {
        auto page = pageDlq(db, selection, after, pageSize);
        if (!page)
            qFatal("%s", qPrintable(page.error().message));
        if (page->empty())
            return ids;
        for (const DlqRecord &r : *page)
            ids << r.id;
        after = page->back().id;
    }
}

} // namespace

class TestDlqPaging : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void pagesCoverTheSelectionExactlyOnce_data() {
        QTest::addColumn<QStringList>("statuses");
        QTest::addColumn<bool>("bySignature");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("all") << QStringList() << false << qint64(1000);
        QTest::newRow("failed") << QStringList{QStringLiteral("failed")} << false << qint64(100);
        QTest::newRow("signature") << QStringList() << true << qint64(333);
        QTest::newRow("signature+new")
            << QStringList{QStringLiteral("new")} << true << qint64(333 - 33);
    }

    void pagesCoverTheSelectionExactlyOnce() {
        QFETCH(QStringList, statuses);
        QFETCH(bool, bySignature);
        QFETCH(qint64, expected);
        Fixture f(1000);
        DlqSelection s;
        s.statuses = statuses;
        if (bySignature)
            s.signature = errorSignature(QStringLiteral("missing_field"),
                                         QStringLiteral("order 3 has no amount"));
        const QList<qint64> ids = walk(f.db(), s, 64);
        QCOMPARE(ids.size(), expected);
        QVERIFY(std::is_sorted(ids.begin(), ids.end()));
        QCOMPARE(QSet<qint64>(ids.begin(), ids.end()).size(), ids.size());
        // The same records listDlq counts, and countDlq agrees per status.
        auto list = listDlq(f.db(), s, 0);
        QVERIFY(list);
        QCOMPARE(list->total, expected);
        auto counts = countDlq(f.db(), s);
        QVERIFY(counts);
        QCOMPARE(counts->total, expected);
        QCOMPARE(counts->byStatus, list->byStatus);
        // Each page's records are whole: the signature the side list groups by.
        auto first = pageDlq(f.db(), s, 0, 1);
        QVERIFY(first && first->size() == 1);
        auto shown = showDlq(f.db(), first->front().id);
        QVERIFY(shown);
        QCOMPARE(first->front().signature, shown->record.signature);
        QCOMPARE(first->front().status, shown->record.status);
    }

    void groupsCountEveryRecordOncePerSignature() {
        Fixture f(1000);
        auto list = listDlq(f.db(), {}, 0);
        QVERIFY(list);
        QCOMPARE(list->groups.size(), std::size_t(2));
        QCOMPARE(list->groups[0].count, 667);
        QCOMPARE(list->groups[0].signature,
                 QStringLiteral("invalid_json: unexpected end of input"));
        QCOMPARE(list->groups[1].count, 333);
        QCOMPARE(list->groups[1].signature,
                 QStringLiteral("missing_field: order <n> has no amount"));
        qint64 failed = 0;
        for (const auto &[status, n] : list->groups[1].byStatus)
            if (status == DlqStatus::Failed)
                failed = n;
        QCOMPARE(failed, 33); // multiples of 30 up to 990
    }

    void aDeepPageCostsWhatTheFirstDoes() {
        Fixture f(200000);
        QElapsedTimer t;
        t.start();
        auto first = pageDlq(f.db(), {}, 0, 250);
        const qint64 firstMs = t.restart();
        auto deep = pageDlq(f.db(), {}, 199000, 250);
        const qint64 deepMs = t.elapsed();
        QVERIFY(first && deep);
        QCOMPARE(first->size(), std::size_t(250));
        QCOMPARE(first->front().id, 1);
        QCOMPARE(deep->size(), std::size_t(250));
        QCOMPARE(deep->front().id, 199001);
        QVERIFY2(
            deepMs < 200,
            qPrintable(
                QStringLiteral("deep page took %1 ms (first %2 ms)").arg(deepMs).arg(firstMs)));
        auto last = pageDlq(f.db(), {}, 199900, 250);
        QCOMPARE(last->size(), std::size_t(100));
    }

    // The database computes signatures for grouping and filtering (SQLite: the
    // registered function; PostgreSQL: the same patterns in SQL): each
    // message's signature there is errorSignature()'s, and each record shows
    // that one (a leading byte-order mark included, which PostgreSQL's driver
    // drops from the text it reads back).
    void signaturesInTheDatabaseAreErrorSignature() {
        Fixture f(1); // and one record of the fill
        const QStringList messages = {
            QStringLiteral("order 42 missing"),
            QStringLiteral("ord-17 id=3.5e-3 amount2 x"),
            QStringLiteral("hash 0xdeadBEEF and abcdef12 and deadbeefcafe1"),
            QStringLiteral("key 'quoted 12' rejected"),
            QStringLiteral("customer 123e4567-e89b-12d3-a456-426614174000 unknown"),
            QStringLiteral("version 1.5.3 then -4 and +7.25E+3"),
            QStringLiteral("  spaced\t\tout \n message  "),
            QStringLiteral("abcdefgh deadbeef 12345678"),
            QStringLiteral("x_12 y.5 z,6 (7) [8]"),
            QStringLiteral("caf\u00e9 9\u00a0items\u2003now"),
            QStringLiteral("0x 0xZ 0x1g 1e5e5"),
            QStringLiteral("'unterminated 5"),
            QStringLiteral("it''s 'a' 'b c' 3"),
            QStringLiteral(""),
            QStringLiteral(
                "\ufeffleading byte-order mark 5")}; // SQLite drops the mark as it stores the text,
                                                     // PostgreSQL as it reads it back
        for (const QString &m : messages)
            QVERIFY(f.db().exec(
                QStringLiteral("INSERT INTO rewind_dlq (source_kind, source_name, error_class, "
                               "error, status, attempts, first_seen) "
                               "VALUES ('stream', 'ev', 'c', ?, 'new', 0, '2025-05-06T10:00:00Z')"),
                {m}));
        // Each message's errorSignature() finds as many records as share it
        // (the stored text: a leading byte-order mark is not kept everywhere).
        for (const QString &m : messages.first(messages.size() - 1)) {
            DlqSelection s;
            s.signature = errorSignature(QStringLiteral("c"), m);
            const auto sharing =
                std::count_if(messages.begin(), messages.end(), [&](const QString &o) {
                    return errorSignature(QStringLiteral("c"), o) == s.signature;
                });
            auto n = countDlq(f.db(), s);
            QVERIFY(n);
            QVERIFY2(
                n->total == sharing,
                qPrintable(QStringLiteral("\"%1\": the database's signature differs from \"%2\"")
                               .arg(m, s.signature)));
        }
        // A record shows the signature it is grouped and filtered by.
        auto all = pageDlq(f.db(), {}, 0, 100);
        QVERIFY(all);
        QCOMPARE(all->size(), std::size_t(messages.size() + 1));
        for (const DlqRecord &r : *all) {
            DlqSelection s;
            s.ids = {r.id};
            s.signature = r.signature;
            auto n = countDlq(f.db(), s);
            QVERIFY(n);
            QVERIFY2(n->total == 1,
                     qPrintable(QStringLiteral("record %1: not found by its own signature \"%2\"")
                                    .arg(r.id)
                                    .arg(r.signature)));
            auto shown = showDlq(f.db(), r.id);
            QVERIFY(shown);
            QCOMPARE(shown->record.signature, r.signature);
        }
        auto list = listDlq(f.db(), {}, 0);
        QVERIFY(list);
        // A group's signature finds its records.
        for (const DlqGroup &g : list->groups) {
            DlqSelection s;
            s.signature = g.signature;
            auto n = countDlq(f.db(), s);
            QVERIFY(n);
            QCOMPARE(n->total, g.count);
        }
    }

    void aBadFilterIsRefused() {
        Fixture f(10);
        DlqSelection s;
        s.statuses = {QStringLiteral("lost")};
        auto page = pageDlq(f.db(), s, 0, 10);
        QVERIFY(!page);
        QCOMPARE(page.error().code, Error::Code::BadInput);
        QVERIFY(!countDlq(f.db(), s));
    }
};

QTEST_GUILESS_MAIN(TestDlqPaging)
#include "tst_dlqpaging.moc"
