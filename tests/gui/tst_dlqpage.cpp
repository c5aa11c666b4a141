// The DLQ page driven as an on-call engineer does: pick a record, fix its
// JSON in the panel (the parse error's line and column shown while typing),
// replay it and find it replayed in the database with its history; validate
// a selection, set a JSON path on several records, discard with a reason,
// cancel a throttled replay; open a million-record DLQ with one page loaded;
// the demo's malformed events through the main window. Every model runs
// under QAbstractItemModelTester.
#include "core/dlq/dlq.h"
#include "core/dlq/dlqdialect.h"
#include "core/sql/timejson.h"
#include "core/streams/replay.h"
#include "core/workspace/workspace.h"
#include "tests/gui/guitest.h"
#include "tests/testsupport.h"
#include "ui/common/format.h"
#include "ui/common/jsoneditor.h"
#include "ui/common/settings.h"
#include "ui/dlq/dlqactionbar.h"
#include "ui/dlq/dlqgroupsmodel.h"
#include "ui/dlq/dlqhistorymodel.h"
#include "ui/dlq/dlqpage.h"
#include "ui/dlq/dlqpayloadpanel.h"
#include "ui/dlq/dlqrecordsmodel.h"
#include "ui/window/mainwindow.h"
#include "ui/window/navigator.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <QTreeWidget>

using namespace rw;

namespace {

constexpr int kTimeoutMs = 120000;

const QByteArray kSpec = R"({"streams": {"ev": {"log": "ev_log", "sink": "ev_sink",
    "fields": {"order_id": "$.order_id", "amount": "$.amount"}, "required": ["order_id", "amount"]}}})";

// A stream whose replay dead-letters: b and d miss their amount, c is cut short.
const QStringList kLog = {
    QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, event_id TEXT, "
                   "record_ts TEXT, payload TEXT)"),
    QStringLiteral("INSERT INTO ev_log VALUES "
                   "(0, 0, 'a', '2025-05-06T10:00:00Z', '{\"order_id\": 1, \"amount\": 10}'),"
                   "(0, 1, 'b', '2025-05-06T10:01:00Z', '{\"order_id\": 2}'),"
                   "(0, 2, 'c', '2025-05-06T10:02:00Z', '{\"order_id\": 3, \"amount\": '),"
                   "(0, 3, 'd', '2025-05-06T10:03:00Z', '{\"order_id\": 4, \"amount\": null}')"),
};

struct Fixture : testsupport::WorkspaceFixture {
    explicit Fixture(const QStringList &setup = kLog)
        : WorkspaceFixture(setup, kSpec, QStringLiteral("d.db"), QStringLiteral("s.json")) {
        ReplayOptions o;
        o.execute = true;
        auto r = replay(ws->db, *ws->spec.stream(QStringLiteral("ev")), QStringLiteral("g"), o);
        if (!r)
            qFatal("%s", qPrintable(r.error().message));
    }
    QVariant value(const QString &sql, const QVariantList &binds = {}) const {
        auto v = db().scalar(sql, binds);
        if (!v)
            qFatal("%s", qPrintable(v.error().message));
        return *v;
    }
    qint64 id(const QString &eventId) const {
        return value(QStringLiteral("SELECT dlq_id FROM rewind_dlq WHERE event_id = ?"), {eventId})
            .toLongLong();
    }
    QString status(const QString &eventId) const {
        return value(QStringLiteral("SELECT status FROM rewind_dlq WHERE event_id = ?"), {eventId})
            .toString();
    }
    QStringList history(const QString &eventId) const {
        auto q =
            db().exec(QStringLiteral("SELECT h.action || ':' || COALESCE(h.to_status, '') FROM "
                                     "rewind_dlq_history h JOIN rewind_dlq d "
                                     "USING (dlq_id) WHERE d.event_id = ? ORDER BY h.history_id"),
                      {eventId});
        QStringList out;
        while (q && q->next())
            out << q->value(0).toString();
        return out;
    }
};

// A page on the fixture's workspace with its first load done.
std::unique_ptr<DlqPage> openPage(const Fixture &f) {
    auto page = std::make_unique<DlqPage>();
    page->resize(1200, 800);
    page->show();
    QSignalSpy loaded(page.get(), &Page::pageLoaded);
    page->setWorkspace(f.db(), f.ws->spec);
    page->refresh();
    if (!loaded.wait(kTimeoutMs))
        qFatal("the DLQ page did not load");
    return page;
}

bool waitFor(QSignalSpy &spy, int count = 1) {
    QElapsedTimer t;
    t.start();
    while (spy.count() < count && t.elapsed() < kTimeoutMs)
        spy.wait(std::max<qint64>(1, std::min<qint64>(1000, kTimeoutMs - t.elapsed())));
    return spy.count() >= count;
}

QString opOk(QSignalSpy &spy) {
    const QList<QVariant> last = spy.last();
    return last.at(1).toBool() ? QString() : last.at(2).toString();
}

QStringList modelHistory(const DlqHistoryModel *m) {
    QStringList out;
    for (const DlqHistoryEntry &e : m->snapshot())
        out << e.action % u':' % e.toStatus.value_or(QString());
    return out;
}

} // namespace

class TestDlqPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanup() { guitest::waitForBackgroundWork(); }

    void initTestCase() {
        guitest::useTestSettings(QStringLiteral("tst_dlqpage"), true);
        REWIND_REQUIRE_ENGINE();
    }

    void parseErrorsGiveLineAndColumn_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::newRow("valid") << QByteArray(R"({"a": [1, 2, {"b": null}]})") << 0 << 0;
        QTest::newRow("cut short") << QByteArray(R"({"order_id": 3, "amount": )") << 1 << 27;
        QTest::newRow("third line") << QByteArray("{\n  \"a\": 1,\n  \"b\": ]\n}") << 3 << 8;
        QTest::newRow("after accents") << QByteArray("{\"caf\xc3\xa9\": x}") << 1 << 10;
        QTest::newRow("trailing comma") << QByteArray("{\n\"a\": 1,\n}") << 3 << 1;
        QTest::newRow("empty") << QByteArray() << 1 << 1;
    }

    void parseErrorsGiveLineAndColumn() {
        QFETCH(QByteArray, text);
        QFETCH(int, line);
        QFETCH(int, column);
        const auto problem = checkJson(text);
        if (line == 0) {
            QVERIFY(!problem);
            return;
        }
        QVERIFY(problem);
        QCOMPARE(problem->line, line);
        QCOMPARE(problem->column, column);
        QVERIFY(!problem->message.isEmpty());
    }

    void modelsUnderTester() {
        Fixture f;
        DlqRecordsModel records;
        QAbstractItemModelTester t1(&records,
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
        records.setPageSize(2);
        QSignalSpy fetched(&records, &DlqRecordsModel::pageFetched);
        records.setFilter(f.db(), {});
        QVERIFY(waitFor(fetched));
        QCOMPARE(records.pagesFetched(), 1);
        QCOMPARE(records.rowCount(), 2);
        QVERIFY(records.canFetchMore({}));
        records.fetchMore({});
        QVERIFY(waitFor(fetched, 2));
        QCOMPARE(records.pagesFetched(), 2);
        QCOMPARE(records.rowCount(), 3);
        QVERIFY(records.isComplete());
        QVERIFY(!records.canFetchMore({}));
        QCOMPARE(records.record(2).eventId.value_or(QString()), QStringLiteral("d"));
        // Verdicts and in-place refreshes.
        DlqVerdict v;
        v.id = f.id(QStringLiteral("b"));
        v.errorClass = QStringLiteral("missing_field");
        v.error = QStringLiteral("amount");
        records.setVerdicts({v});
        QVERIFY(records.index(records.rowOf(v.id), DlqRecordsModel::CheckColumn)
                    .data()
                    .toString()
                    .contains(QLatin1String("missing_field")));
        QVERIFY(f.db().exec(
            QStringLiteral("UPDATE rewind_dlq SET status = 'failed' WHERE event_id = 'b'")));
        QSignalSpy refreshed(&records, &DlqRecordsModel::recordsRefreshed);
        records.refreshRecords({v.id});
        QVERIFY(waitFor(refreshed));
        QCOMPARE(
            records.index(records.rowOf(v.id), DlqRecordsModel::StatusColumn).data().toString(),
            QStringLiteral("failed"));
        // A filter.
        DlqSelection failed;
        failed.statuses = {QStringLiteral("failed")};
        records.setFilter(f.db(), failed);
        QVERIFY(waitFor(fetched, 3));
        QCOMPARE(records.rowCount(), 1);
        records.clear();
        QCOMPARE(records.rowCount(), 0);

        auto list = listDlq(f.db(), {}, 0);
        QVERIFY(list);
        DlqGroupsModel groups;
        QAbstractItemModelTester t2(&groups, QAbstractItemModelTester::FailureReportingMode::Fatal);
        groups.resetData(list->groups, list->total);
        QCOMPARE(groups.rowCount(), int(list->groups.size()) + 1);
        QCOMPARE(groups.index(0, 0).data(DlqGroupsModel::CountRole).toLongLong(), 3);
        QCOMPARE(groups.rowOf(list->groups[0].signature), 1);
        groups.resetData({}, 0);

        auto shown = showDlq(f.db(), f.id(QStringLiteral("c")));
        QVERIFY(shown);
        DlqHistoryModel history;
        QAbstractItemModelTester t3(&history,
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
        history.resetData(shown->history);
        QCOMPARE(history.rowCount(), 1);
        QCOMPARE(history.index(0, DlqHistoryModel::ActionColumn).data().toString(),
                 QStringLiteral("quarantined"));
        history.resetData({});
    }

    // The issue's flow: fix one record in the JSON panel, replay it, see its status and history.
    void fixInPanelThenReplay() {
        Fixture f;
        auto page = openPage(f);
        QAbstractItemModelTester tester(page->recordsModel(),
                                        QAbstractItemModelTester::FailureReportingMode::Fatal);
        QCOMPARE(page->recordsModel()->rowCount(), 3);
        QCOMPARE(page->groupsModel()->rowCount(), 3); // All + invalid_json + missing_field

        const qint64 c = f.id(QStringLiteral("c"));
        QSignalSpy shown(page.get(), &DlqPage::recordShown);
        QVERIFY(page->selectRecord(c));
        QTRY_COMPARE_WITH_TIMEOUT(page->payloadPanel()->recordId(), c, kTimeoutMs);
        DlqPayloadPanel *panel = page->payloadPanel();
        JsonEditor *editor = panel->currentEditor();
        QCOMPARE(panel->originalEditor()->toPlainText(),
                 QStringLiteral(R"({"order_id": 3, "amount": )"));
        QVERIFY(panel->originalEditor()->isReadOnly());
        QVERIFY(!editor->isReadOnly());
        // As stored: invalid, and the label says where; the line is marked.
        QTRY_VERIFY(panel->validationLabel()->text().contains(QLatin1String("Line 1, column 27")));
        QVERIFY(!editor->extraSelections().isEmpty());
        // No record (as when the selection is cleared): empty editors, nothing marked in them.
        panel->clearRecord();
        QVERIFY(editor->toPlainText().isEmpty());
        QVERIFY(editor->extraSelections().isEmpty());
        QVERIFY(panel->originalEditor()->extraSelections().isEmpty());
        QVERIFY(page->selectRecord(f.id(QStringLiteral("b"))));
        QVERIFY(page->selectRecord(c));
        QTRY_COMPARE_WITH_TIMEOUT(panel->recordId(), c, kTimeoutMs);
        QTRY_VERIFY(!editor->extraSelections().isEmpty());
        QVERIFY(!panel->saveButton()->isEnabled());

        // Typing: still wrong on line 3, the label follows as the text changes.
        editor->selectAll();
        const QStringList typed = {QStringLiteral("{"), QStringLiteral("\"order_id\": 3,"),
                                   QStringLiteral("\"amount\": 12.5,"), QStringLiteral("}")};
        for (qsizetype i = 0; i < typed.size(); ++i) {
            if (i > 0)
                QTest::keyClick(editor, Qt::Key_Return);
            QTest::keyClicks(editor, typed[i]);
        }
        QCOMPARE(editor->toPlainText(), typed.join(u'\n'));
        QTRY_VERIFY(panel->validationLabel()->text().contains(QLatin1String("Line 4, column 1")));
        QVERIFY(!panel->saveButton()->isEnabled());
        // Remove the trailing comma: valid, and Save is offered.
        editor->setPlainText(QStringLiteral("{\n  \"order_id\": 3,\n  \"amount\": 12.5\n}"));
        QTRY_VERIFY(panel->validationLabel()->text().contains(QLatin1String("Valid JSON")));
        QVERIFY(panel->saveButton()->isEnabled());

        QSignalSpy done(page.get(), &DlqPage::operationFinished);
        QTest::mouseClick(panel->saveButton(), Qt::LeftButton);
        QVERIFY(waitFor(done));
        QCOMPARE(done.last().at(0).toString(), QStringLiteral("fix"));
        QVERIFY2(opOk(done).isEmpty(), qPrintable(opOk(done)));
        QCOMPARE(f.status(QStringLiteral("c")), QStringLiteral("fixed"));
        QCOMPARE(
            f.value(QStringLiteral("SELECT CAST(payload AS TEXT) FROM rewind_dlq WHERE dlq_id = ?"),
                    {c})
                .toString(),
            QStringLiteral("{\n  \"order_id\": 3,\n  \"amount\": 12.5\n}"));
        // The original is kept; the row and the panel show the new state.
        QCOMPARE(
            f.value(QStringLiteral(
                        "SELECT CAST(original_payload AS TEXT) FROM rewind_dlq WHERE dlq_id = ?"),
                    {c})
                .toString(),
            QStringLiteral(R"({"order_id": 3, "amount": )"));
        const int row = page->recordsModel()->rowOf(c);
        QTRY_COMPARE_WITH_TIMEOUT(
            page->recordsModel()->index(row, DlqRecordsModel::StatusColumn).data().toString(),
            QStringLiteral("fixed"), kTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(modelHistory(page->historyModel()),
                                  f.history(QStringLiteral("c")), kTimeoutMs);
        QCOMPARE(f.history(QStringLiteral("c")),
                 (QStringList{QStringLiteral("quarantined:new"), QStringLiteral("fixed:fixed")}));

        // Replay only this record, in batches of one.
        page->actionBar()->batchSize()->setValue(1);
        QCOMPARE(page->selectedIds(), QList<qint64>{c});
        QVERIFY(page->actionBar()->replayButton()->isEnabled());
        QTest::mouseClick(page->actionBar()->replayButton(), Qt::LeftButton);
        QVERIFY(waitFor(done, 2));
        QCOMPARE(done.last().at(0).toString(), QStringLiteral("replay"));
        QVERIFY2(opOk(done).isEmpty(), qPrintable(opOk(done)));
        QVERIFY(page->lastReplay());
        QCOMPARE(page->lastReplay()->replayed, 1);
        QCOMPARE(page->lastReplay()->inserted, 1);

        // In the database: replayed, landed in the sink once, with its history; the others
        // untouched.
        QCOMPARE(f.status(QStringLiteral("c")), QStringLiteral("replayed"));
        QCOMPARE(
            f.value(QStringLiteral("SELECT amount FROM ev_sink WHERE event_id = 'c'")).toDouble(),
            12.5);
        QCOMPARE(
            f.value(QStringLiteral("SELECT COUNT(*) FROM ev_sink WHERE event_id = 'c'")).toInt(),
            1);
        QCOMPARE(f.status(QStringLiteral("b")), QStringLiteral("new"));
        QCOMPARE(f.status(QStringLiteral("d")), QStringLiteral("new"));
        const QStringList history = f.history(QStringLiteral("c"));
        QCOMPARE(history.size(), 3);
        QCOMPARE(history.last(), QStringLiteral("replayed:replayed"));
        // And on the page: the row, the history tab, the read-only panel, the counts.
        QTRY_COMPARE_WITH_TIMEOUT(
            page->recordsModel()->index(row, DlqRecordsModel::StatusColumn).data().toString(),
            QStringLiteral("replayed"), kTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(modelHistory(page->historyModel()), history, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(editor->isReadOnly(), kTimeoutMs);
        QVERIFY(page->actionBar()->result()->text().contains(QLatin1String("1 replayed")));
    }

    void validateShowsADryRunPerRecord() {
        Fixture f;
        auto page = openPage(f);
        page->recordsView()->selectAll();
        QCOMPARE(page->selectedIds().size(), 3);
        QSignalSpy done(page.get(), &DlqPage::operationFinished);
        QTest::mouseClick(page->actionBar()->validateButton(), Qt::LeftButton);
        QVERIFY(waitFor(done));
        QVERIFY2(opOk(done).isEmpty(), qPrintable(opOk(done)));
        const DlqRecordsModel *m = page->recordsModel();
        for (const QString &e : {QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")}) {
            const QString verdict =
                m->index(m->rowOf(f.id(e)), DlqRecordsModel::CheckColumn).data().toString();
            QVERIFY2(verdict.startsWith(u'\u2717'), qPrintable(e + u' ' + verdict));
            QCOMPARE(m->verdict(f.id(e))->valid, false);
        }
        QVERIFY(m->index(m->rowOf(f.id(QStringLiteral("c"))), DlqRecordsModel::CheckColumn)
                    .data()
                    .toString()
                    .contains(QLatin1String("invalid_json")));
        QVERIFY(page->actionBar()->result()->text().contains(QLatin1String("Nothing was written")));
        // A dry run: nothing changed.
        QCOMPARE(
            f.value(QStringLiteral(
                        "SELECT COUNT(*) FROM rewind_dlq WHERE status = 'new' AND attempts = 0"))
                .toInt(),
            3);
        QCOMPARE(f.value(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq_history")).toInt(), 3);

        // Replaying them anyway: each becomes failed, and the rows say so.
        QTest::mouseClick(page->actionBar()->replayButton(), Qt::LeftButton);
        QVERIFY(waitFor(done, 2));
        QCOMPARE(done.last().at(1).toBool(), false); // failures are not a success
        QCOMPARE(
            f.value(QStringLiteral(
                        "SELECT COUNT(*) FROM rewind_dlq WHERE status = 'failed' AND attempts = 1"))
                .toInt(),
            3);
        for (const QString &e : {QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")})
            QTRY_COMPARE_WITH_TIMEOUT(
                m->index(m->rowOf(f.id(e)), DlqRecordsModel::StatusColumn).data().toString(),
                QStringLiteral("failed"), kTimeoutMs);
        QVERIFY(page->actionBar()->result()->text().contains(QLatin1String("3 failed")));
    }

    void setPathOnSelectionThenDiscardWithReason() {
        Fixture f;
        auto page = openPage(f);
        const qint64 b = f.id(QStringLiteral("b"));
        const qint64 d = f.id(QStringLiteral("d"));
        // Both missing-amount records, by their signature in the side list.
        const int sigRow = page->groupsModel()->rowOf(errorSignature(
            f.value(QStringLiteral("SELECT error_class FROM rewind_dlq WHERE event_id = 'b'"))
                .toString(),
            f.value(QStringLiteral("SELECT error FROM rewind_dlq WHERE event_id = 'b'"))
                .toString()));
        QVERIFY(sigRow > 0);
        QSignalSpy fetched(page->recordsModel(), &DlqRecordsModel::pageFetched);
        page->groupsView()->setCurrentIndex(page->groupsModel()->index(sigRow, 0));
        QVERIFY(waitFor(fetched));
        QCOMPARE(page->recordsModel()->rowCount(), 2);
        page->recordsView()->selectAll();
        QCOMPARE(page->selectedIds(), (QList<qint64>{b, d}));

        DlqPayloadPanel *panel = page->payloadPanel();
        panel->pathEdit()->setText(QStringLiteral("$.amount"));
        panel->valueEdit()->setText(QStringLiteral("7"));
        QVERIFY(panel->setPathButton()->isEnabled());
        QSignalSpy done(page.get(), &DlqPage::operationFinished);
        QTest::mouseClick(panel->setPathButton(), Qt::LeftButton);
        // The dry run waits for Apply; nothing changed yet.
        QTRY_VERIFY_WITH_TIMEOUT(page->actionBar()->pendingText()->isVisible(), kTimeoutMs);
        QVERIFY(page->actionBar()->pendingText()->text().contains(QLatin1String("2 would change")));
        QCOMPARE(f.status(QStringLiteral("b")), QStringLiteral("new"));
        QTest::mouseClick(page->actionBar()->applySetButton(), Qt::LeftButton);
        QVERIFY(waitFor(done));
        QVERIFY2(opOk(done).isEmpty(), qPrintable(opOk(done)));
        for (const QString &e : {QStringLiteral("b"), QStringLiteral("d")}) {
            QCOMPARE(f.status(e), QStringLiteral("fixed"));
            QCOMPARE(f.value(QStringLiteral("SELECT ") %
                                 TimeJson::of(f.db().dialect())
                                     .jsonExtract(QStringLiteral("payload"),
                                                  QStringLiteral("'$.amount'")) %
                                 QStringLiteral(" FROM rewind_dlq WHERE event_id = ?"),
                             {e})
                         .toInt(),
                     7);
        }

        // Discard needs a reason.
        page->recordsView()->clearSelection();
        QVERIFY(page->selectRecord(d));
        QVERIFY(!page->actionBar()->discardButton()->isEnabled());
        QTest::keyClicks(page->actionBar()->reason(), QStringLiteral("test order, never billed"));
        QVERIFY(page->actionBar()->discardButton()->isEnabled());
        QTest::mouseClick(page->actionBar()->discardButton(), Qt::LeftButton);
        QVERIFY(waitFor(done, 2));
        QVERIFY2(opOk(done).isEmpty(), qPrintable(opOk(done)));
        QCOMPARE(f.status(QStringLiteral("d")), QStringLiteral("discarded"));
        QCOMPARE(f.status(QStringLiteral("b")), QStringLiteral("fixed"));
        QCOMPARE(f.value(QStringLiteral("SELECT reason FROM rewind_dlq_history WHERE dlq_id = ? "
                                        "ORDER BY history_id DESC LIMIT 1"),
                         {d})
                     .toString(),
                 QStringLiteral("test order, never billed"));
        QVERIFY(page->actionBar()->reason()->text().isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(page->historyModel()->rowCount(), 3, kTimeoutMs);
    }

    void throttledReplayReportsProgressAndCancels() {
        Fixture f({QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                                  "event_id TEXT, record_ts TEXT, payload TEXT)"),
                   QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n "
                                  "WHERE i + 1 < 600) "
                                  "INSERT INTO ev_log SELECT i % 3, i / 3, 'ev-' || i, "
                                  "'2025-05-06T10:00:00Z', '{\"order_id\": ' || i || '}' FROM n")});
        DlqFixRequest fix;
        fix.selection.statuses = {QStringLiteral("new")};
        fix.sets = {{QStringLiteral("$.amount"), QStringLiteral("1")}};
        fix.execute = true;
        QVERIFY(fixDlq(f.db(), fix));
        auto page = openPage(f);
        page->setApplyToAllMatching(true);
        page->actionBar()->batchSize()->setValue(20);
        page->actionBar()->velocity()->setValue(100); // 600 records: six seconds unless cancelled
        QVERIFY(page->actionBar()->replayButton()->text().contains(QLatin1String("600")));
        QSignalSpy progressed(page.get(), &DlqPage::replayProgressed);
        QSignalSpy done(page.get(), &DlqPage::operationFinished);
        QTest::mouseClick(page->actionBar()->replayButton(), Qt::LeftButton);
        QVERIFY(page->actionBar()->cancelButton()->isVisible());
        QVERIFY(waitFor(progressed, 2));
        QVERIFY(page->actionBar()->progress()->value() > 0);
        QCOMPARE(page->actionBar()->progress()->maximum(), 600);
        QTest::mouseClick(page->actionBar()->cancelButton(), Qt::LeftButton);
        QVERIFY(waitFor(done));
        QVERIFY(page->lastReplay());
        QCOMPARE(page->lastReplay()->status, rw::DlqReplayStatus::Cancelled);
        const qint64 replayed =
            f.value(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'replayed'"))
                .toLongLong();
        QVERIFY(replayed >= 40 && replayed < 600);
        QCOMPARE(replayed, page->lastReplay()->replayed);
        QCOMPARE(f.value(QStringLiteral("SELECT COUNT(*) FROM ev_sink")).toLongLong(), replayed);
        QCOMPARE(f.value(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'fixed'"))
                     .toLongLong(),
                 600 - replayed);
        QVERIFY(page->actionBar()->result()->text().contains(QLatin1String("cancelled")));
        QVERIFY(!page->actionBar()->cancelButton()->isVisible());
    }

    void aMillionRecordsOpenWithOnePage() {
        Fixture f({QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                                  "event_id TEXT, record_ts TEXT, payload TEXT)")});
        QElapsedTimer build;
        build.start();
        const QString payload = DlqDialect::of(f.db().dialect())
                                    .payloadStored(QStringLiteral("'{\"order_id\": ' || i"));
        QVERIFY(f.db().exec(
            QStringLiteral(
                "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 1000000) "
                "INSERT INTO rewind_dlq (source_kind, source_name, part, log_offset, event_id, "
                "error_class, error, original_payload, payload, "
                "status, attempts, first_seen) "
                "SELECT 'stream', 'ev', CAST(i % 8 AS TEXT), i / 8, 'ev-' || i, "
                "CASE WHEN i % 3 = 0 THEN 'missing_field' ELSE 'invalid_json' END, "
                "CASE WHEN i % 3 = 0 THEN 'missing required field amount' ELSE 'unexpected end of "
                "input' END, "
                "%1, %1, 'new', 0, '2025-05-06T10:00:00Z' FROM g")
                .arg(payload)));
        qInfo("built 1M DLQ records in %lld ms", build.elapsed());
        QCOMPARE(f.value(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")).toLongLong(), 1000000);

        // No model tester here: it calls fetchMore after every change, which
        // would page through the million on its own.
        DlqPage page;
        page.resize(1200, 800);
        page.show();
        QSignalSpy fetched(page.recordsModel(), &DlqRecordsModel::pageFetched);
        QSignalSpy loaded(&page, &Page::pageLoaded);
        QElapsedTimer t;
        t.start();
        page.setWorkspace(f.db(), f.ws->spec);
        page.refresh();
        QVERIFY(fetched.wait(kTimeoutMs));
        const qint64 firstRowsMs = t.elapsed();
        qInfo("first rows after %lld ms", firstRowsMs);
        QVERIFY2(firstRowsMs < 1000,
                 qPrintable(QStringLiteral("first rows took %1 ms").arg(firstRowsMs)));
        QCOMPARE(page.recordsModel()->rowCount(), DlqRecordsModel::kDefaultPageSize);
        QCOMPARE(page.recordsModel()->pagesFetched(), 1);
        QCOMPARE(page.recordsModel()->record(0).id, 1);

        // Scrolling to the end fetches the next page, one at a time.
        for (int i = 0; i < 3; ++i) {
            page.recordsView()->scrollToBottom();
            QCoreApplication::processEvents();
            QTRY_COMPARE_WITH_TIMEOUT(page.recordsModel()->pagesFetched(), 2 + i, kTimeoutMs);
        }
        QTest::qWait(300); // nothing else is fetched behind the operator's back
        QCOMPARE(page.recordsModel()->pagesFetched(), 4);
        QCOMPARE(page.recordsModel()->rowCount(), 4 * DlqRecordsModel::kDefaultPageSize);
        QVERIFY(page.recordsModel()->canFetchMore({}));
        QCOMPARE(page.recordsModel()->record(page.recordsModel()->rowCount() - 1).id, 1000);

        // The summary counts everything without loading it.
        QVERIFY(loaded.count() > 0 || loaded.wait(kTimeoutMs));
        qInfo("summary after %lld ms", t.elapsed());
        QCOMPARE(page.groupsModel()->total(), 1000000);
        QCOMPARE(page.groupsModel()->rowCount(), 3);
        QCOMPARE(page.groupsModel()->index(1, 0).data(DlqGroupsModel::CountRole).toLongLong(),
                 666667);
        QVERIFY(page.statusText().contains(QStringLiteral("of %1").arg(fmt::number(1000000))));
        QVERIFY(page.recordsModel()->rowCount() < 2000);

        // A signature: its first page, quickly, and the total from the side list.
        t.restart();
        page.groupsView()->setCurrentIndex(page.groupsModel()->index(2, 0));
        QVERIFY(fetched.wait(kTimeoutMs));
        qInfo("signature's first rows after %lld ms", t.elapsed());
        QCOMPARE(page.recordsModel()->rowCount(), DlqRecordsModel::kDefaultPageSize);
        QCOMPARE(page.recordsModel()->record(0).id, 3);
        QVERIFY(page.statusText().contains(QStringLiteral("of %1").arg(fmt::number(333333))));
    }

    // Through the main window on the demo: its malformed events, after the
    // crashed loader is replayed, are on the DLQ page reached from the navigator.
    void demoMalformedEventsThroughTheMainWindow() {
        QTemporaryDir dir;
        const auto [db, spec] = testsupport::buildDemo(dir, QStringLiteral("demo"));
        qint64 expected = 0;
        {
            auto ws = openWorkspace(db, spec);
            QVERIFY(ws);
            ReplayOptions o;
            o.execute = true;
            auto r = replay(ws->db, *ws->spec.stream(QStringLiteral("orders")),
                            QStringLiteral("orders-loader"), o);
            QVERIFY(r);
            expected =
                ws->db.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq"))->toLongLong();
            QVERIFY(expected > 0);
        }
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::pageLoaded);
        QSignalSpy opened(&w, &MainWindow::workspaceOpened);
        w.openWorkspace(db, spec, {Navigator::Kind::None, QString(), QStringLiteral("dlq"), {}});
        QVERIFY(opened.wait(kTimeoutMs));
        QTRY_VERIFY_WITH_TIMEOUT(w.currentPageName() == QLatin1String("dlq") &&
                                     !w.dlqPage()->isLoading() &&
                                     w.dlqPage()->payloadPanel()->recordId() != 0,
                                 kTimeoutMs);
        QCOMPARE(w.navigator()->currentKind(), Navigator::Kind::Page);
        QCOMPARE(w.navigator()->currentName(), QStringLiteral("dlq"));
        QCOMPARE(w.dlqPage()->groupsModel()->total(), expected);
        QCOMPARE(qint64(w.dlqPage()->recordsModel()->rowCount()),
                 std::min<qint64>(expected, DlqRecordsModel::kDefaultPageSize));
        QVERIFY(w.dlqPage()->groupsModel()->rowCount() >= 3); // truncated JSON, missing amount
        QVERIFY(!w.dlqPage()->payloadPanel()->originalEditor()->toPlainText().isEmpty());
        QVERIFY(MainWindow::availablePages().contains(QStringLiteral("dlq")));
    }
};

QTEST_MAIN(TestDlqPage)
#include "tst_dlqpage.moc"
