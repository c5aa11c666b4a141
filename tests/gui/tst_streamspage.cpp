// The streams page on the demo: the crashed consumer group, an offsets reset
// through the dialog (its dry run against offsets-reset, then applied and
// committed), and a replay through the page into the sink.
#include "core/streams/offsets.h"
#include "core/workspace/workspace.h"
#include "tests/gui/guitest.h"
#include "tests/testsupport.h"
#include "ui/common/settings.h"
#include "ui/streams/consumergroupsmodel.h"
#include "ui/streams/groupoffsetsmodel.h"
#include "ui/streams/offsetschart.h"
#include "ui/streams/replaydialog.h"
#include "ui/streams/resetoffsetsdialog.h"
#include "ui/streams/resetplanmodel.h"
#include "ui/streams/streampage.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using Method = rw::ResetOffsetsDialog::Method;

namespace {

constexpr int kTimeoutMs = 120000;
const QString kStream = QStringLiteral("orders");
const QString kCrashed = QStringLiteral("orders-loader");

// partition -> committed offset in rewind_offsets.
QMap<qint64, qint64> committed(const rw::Database &db, const QString &group) {
    QMap<qint64, qint64> out;
    auto q = db.exec(QStringLiteral("SELECT partition_id, committed_offset FROM rewind_offsets "
                                    "WHERE stream = ? AND group_id = ?"),
                     {kStream, group});
    if (!q)
        qFatal("%s", qPrintable(q.error().message));
    while (q->next())
        out.insert(q->value(0).toLongLong(), q->value(1).toLongLong());
    return out;
}

qint64 count(const rw::Database &db, const QString &sql) {
    return db.scalar(sql)->toLongLong();
}

} // namespace

Q_DECLARE_METATYPE(Method)

class TestStreamsPage : public QObject {
    Q_OBJECT

private:
    guitest::DemoFixture m_demo;

    static bool load(rw::StreamPage &page, const rw::Workspace &ws) {
        QSignalSpy loaded(&page, &rw::Page::pageLoaded);
        page.setStream(ws.db, *ws.spec.stream(kStream));
        return loaded.count() > 0 || loaded.wait(kTimeoutMs);
    }

private Q_SLOTS:
    void cleanup() { guitest::waitForBackgroundWork(); }

    void initTestCase() {
        guitest::useTestSettings(QStringLiteral("tst_streamspage"), false);
        REWIND_REQUIRE_ENGINE();
        QVERIFY(m_demo.build());
    }

    // The page opens on the group furthest behind: the demo's crashed loader.
    void showsTheCrashedGroup() {
        auto ws = rw::openWorkspace(m_demo.db(), m_demo.spec());
        QVERIFY(ws);
        rw::StreamPage page;
        QAbstractItemModelTester groupsTester(
            page.groupsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester offsetsTester(
            page.offsetsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(load(page, *ws));
        QCOMPARE(page.groupsModel()->rowCount(), 2);
        QCOMPARE(page.currentGroup(), kCrashed);
        auto expected = rw::listOffsets(ws->db, *ws->spec.stream(kStream), kCrashed);
        QVERIFY(expected);
        QCOMPARE(page.offsetsModel()->rowCount(), int(expected->size()));
        qint64 lag = 0;
        for (std::size_t i = 0; i < expected->size(); ++i) {
            const auto &p = page.offsetsModel()->snapshot()[i];
            QCOMPARE(p.committed, (*expected)[i].committed);
            QCOMPARE(p.logEnd, (*expected)[i].logEnd);
            QCOMPARE(p.lag, (*expected)[i].lag);
            lag += p.lag;
        }
        QVERIFY(lag > 0);
        QCOMPARE(
            page.groupsModel()->snapshot()[std::size_t(page.groupsModel()->rowOf(kCrashed))].lag,
            lag);
        QCOMPARE(page.offsetsChart()->barCount(), int(expected->size()));
        QVERIFY(page.resetButton()->isEnabled());
        QVERIFY(page.replayButton()->isEnabled());

        // A log table's groups have no coordinator: no state or members
        // column; the ones shown fit in the pane, none scrolled off.
        auto *groups = page.findChild<QTableView *>(QStringLiteral("groupsView"));
        QVERIFY(groups);
        QVERIFY(groups->isColumnHidden(rw::ConsumerGroupsModel::StateColumn));
        QVERIFY(groups->isColumnHidden(rw::ConsumerGroupsModel::MembersColumn));
        QVERIFY(!groups->isColumnHidden(rw::ConsumerGroupsModel::LastCommitColumn));
        int shown = 0;
        for (int c = 0; c < rw::ConsumerGroupsModel::ColumnCount; ++c)
            if (!groups->isColumnHidden(c))
                shown += groups->columnWidth(c);
        QVERIFY2(groups->minimumWidth() >= shown,
                 qPrintable(QStringLiteral("%1 < %2").arg(groups->minimumWidth()).arg(shown)));

        // The other group, at the log end.
        QSignalSpy group(&page, &rw::StreamPage::groupLoaded);
        QVERIFY(page.selectGroup(QStringLiteral("orders-audit")));
        QVERIFY(group.count() > 0 || group.wait(kTimeoutMs));
        for (const auto &p : page.offsetsModel()->snapshot())
            QCOMPARE(p.lag, 0);
    }

    void resetDryRunMatchesCli_data() {
        QTest::addColumn<Method>("method");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QStringList>("partitions");
        QTest::addColumn<QStringList>("cli");
        QTest::newRow("to-earliest") << Method::ToEarliest << QString() << QStringList()
                                     << QStringList{QStringLiteral("--to-earliest")};
        QTest::newRow("to-latest, partition 1")
            << Method::ToLatest << QString() << QStringList{QStringLiteral("1")}
            << QStringList{QStringLiteral("--to-latest"), QStringLiteral("--partition"),
                           QStringLiteral("1")};
        QTest::newRow("to-current") << Method::ToCurrent << QString() << QStringList()
                                    << QStringList{QStringLiteral("--to-current")};
        QTest::newRow("to-offset")
            << Method::ToOffset << QStringLiteral("100") << QStringList()
            << QStringList{QStringLiteral("--to-offset"), QStringLiteral("100")};
        QTest::newRow("shift-by -250, partitions 0 and 2")
            << Method::ShiftBy << QStringLiteral("-250")
            << QStringList{QStringLiteral("0"), QStringLiteral("2")}
            << QStringList{QStringLiteral("--shift-by=-250"), QStringLiteral("--partition"),
                           QStringLiteral("0"), QStringLiteral("--partition"), QStringLiteral("2")};
        QTest::newRow("to-datetime")
            << Method::ToDatetime << QStringLiteral("2025-05-06T10:00:00Z") << QStringList()
            << QStringList{QStringLiteral("--to-datetime"), QStringLiteral("2025-05-06T10:00:00Z")};
        QTest::newRow("by-duration (long ago)")
            << Method::ByDuration << QStringLiteral("P36500D") << QStringList()
            << QStringList{QStringLiteral("--by-duration"), QStringLiteral("P36500D")};
    }

    // Every reset kind: the dialog's dry-run table is what offsets-reset's dry run says.
    void resetDryRunMatchesCli() {
        QFETCH(Method, method);
        QFETCH(QString, value);
        QFETCH(QStringList, partitions);
        QFETCH(QStringList, cli);
        auto ws = rw::openWorkspace(m_demo.db(), m_demo.spec());
        QVERIFY(ws);
        rw::StreamPage page;
        QVERIFY(load(page, *ws));
        rw::ResetOffsetsDialog *dialog = page.openResetDialog();
        QVERIFY(dialog);
        QAbstractItemModelTester tester(dialog->planModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        dialog->setMethod(method);
        dialog->setValue(value);
        std::vector<qint64> chosen;
        for (const QString &p : partitions)
            chosen.push_back(p.toLongLong());
        dialog->setPartitions(chosen);
        QVERIFY(!dialog->applyButton()->isEnabled());
        QSignalSpy done(dialog, &rw::ResetOffsetsDialog::dryRunFinished);
        QTest::mouseClick(dialog->dryRunButton(), Qt::LeftButton);
        QVERIFY(done.count() > 0 || done.wait(kTimeoutMs));

        const auto r = testsupport::runCli(
            QStringList{QStringLiteral("offsets-reset"), QStringLiteral("--db"), m_demo.db(),
                        QStringLiteral("--spec"), m_demo.spec(), QStringLiteral("--stream"),
                        kStream, QStringLiteral("--group"), kCrashed, QStringLiteral("--json")} +
            cli);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonArray expected = QJsonDocument::fromJson(r.out.toUtf8())
                                        .object()[QStringLiteral("partitions")]
                                        .toArray();
        const rw::ResetPlanModel *model = dialog->planModel();
        QCOMPARE(model->rowCount(), expected.size());
        for (int i = 0; i < expected.size(); ++i) {
            const QJsonObject e = expected[i].toObject();
            const rw::ResetPartition &row = model->snapshot()[std::size_t(i)];
            QCOMPARE(row.partition, e[QStringLiteral("partition")].toInteger());
            QCOMPARE(row.current, e[QStringLiteral("current")].toInteger());
            QCOMPARE(row.newOffset, e[QStringLiteral("new")].toInteger());
            // Shown in the table: partition, current, new, events to replay.
            QCOMPARE(model->index(i, rw::ResetPlanModel::NewColumn)
                         .data(rw::ResetPlanModel::SortRole)
                         .toLongLong(),
                     e[QStringLiteral("new")].toInteger());
            QCOMPARE(model->index(i, rw::ResetPlanModel::ReplayColumn)
                         .data(rw::ResetPlanModel::SortRole)
                         .toLongLong(),
                     std::max<qint64>(0, e[QStringLiteral("log_end")].toInteger() -
                                             std::max(e[QStringLiteral("new")].toInteger(),
                                                      e[QStringLiteral("log_start")].toInteger())));
        }
        // A dry run changes nothing.
        QCOMPARE(committed(ws->db, kCrashed),
                 committed(rw::openWorkspace(m_demo.db(), m_demo.spec())->db, kCrashed));
        dialog->reject();
    }

    // Applying after the typed confirmation commits exactly the dry run's offsets.
    void resetAppliesAfterConfirmation() {
        const auto [db, spec] = m_demo.copy();
        auto ws = rw::openWorkspace(db, spec);
        QVERIFY(ws);
        const auto before = committed(ws->db, kCrashed);
        const qint64 audits = count(ws->db, QStringLiteral("SELECT COUNT(*) FROM rewind_audit"));
        rw::StreamPage page;
        QVERIFY(load(page, *ws));
        rw::ResetOffsetsDialog *dialog = page.openResetDialog();
        QVERIFY(dialog);
        dialog->setMethod(Method::ToDatetime);
        dialog->setValue(QStringLiteral("2025-05-06T10:00:00Z"));
        dialog->setPartitions({0, 1});
        QSignalSpy done(dialog, &rw::ResetOffsetsDialog::dryRunFinished);
        dialog->dryRun();
        QVERIFY(done.count() > 0 || done.wait(kTimeoutMs));
        const rw::ResetPlan plan = *dialog->dryRunPlan();
        QCOMPARE(plan.partitions.size(), std::size_t(2));
        QVERIFY(plan.partitions[0].newOffset < plan.partitions[0].current); // rewinds 15 minutes
        QCOMPARE(committed(ws->db, kCrashed), before);                      // still nothing changed

        // Changing an input voids the dry run; the confirmation needs the group's name.
        dialog->setValue(QStringLiteral("2025-05-06T10:00:01Z"));
        QVERIFY(!dialog->dryRunPlan());
        dialog->setValue(QStringLiteral("2025-05-06T10:00:00Z"));
        dialog->dryRun();
        QVERIFY(done.count() > 1 || done.wait(kTimeoutMs));
        QVERIFY(!dialog->applyButton()->isEnabled());
        QTest::keyClicks(dialog->confirmEdit(), QStringLiteral("orders-audit"));
        QVERIFY(!dialog->applyButton()->isEnabled());
        dialog->confirmEdit()->clear();
        QTest::keyClicks(dialog->confirmEdit(), kCrashed);
        QVERIFY(dialog->applyButton()->isEnabled());

        QSignalSpy reset(&page, &rw::StreamPage::offsetsReset);
        QSignalSpy group(&page, &rw::StreamPage::groupLoaded);
        QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
        QVERIFY(reset.count() > 0 || reset.wait(kTimeoutMs));
        const auto after = committed(ws->db, kCrashed);
        QCOMPARE(after.value(0), plan.partitions[0].newOffset);
        QCOMPARE(after.value(1), plan.partitions[1].newOffset);
        QCOMPARE(after.value(2), before.value(2)); // not selected
        QCOMPARE(count(ws->db, QStringLiteral("SELECT COUNT(*) FROM rewind_audit")), audits + 1);
        // The page shows the new offsets.
        QVERIFY(group.count() > 0 || group.wait(kTimeoutMs));
        QCOMPARE(page.offsetsModel()->snapshot()[0].committed, plan.partitions[0].newOffset);
    }

    // Replay through the page: the dry run in the dialog, then the sink and
    // the committed offsets as core says.
    void replayThroughThePage() {
        const auto [db, spec] = m_demo.copy();
        auto ws = rw::openWorkspace(db, spec);
        QVERIFY(ws);
        const rw::StreamSpec &orders = *ws->spec.stream(kStream);
        const qint64 sinkBefore =
            count(ws->db, QStringLiteral("SELECT COUNT(*) FROM orders_events"));
        const qint64 dlqBefore = count(ws->db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq"));
        auto dry = rw::replay(ws->db, orders, kCrashed, {});
        QVERIFY(dry && dry->consumed > 0);

        rw::StreamPage page;
        QVERIFY(load(page, *ws));
        QSignalSpy opened(&page, &rw::StreamPage::replayDialogOpened);
        QTest::mouseClick(page.replayButton(), Qt::LeftButton);
        QVERIFY(opened.count() > 0 || opened.wait(kTimeoutMs));
        rw::ReplayDialog *dialog = page.replayDialog();
        QVERIFY(dialog);
        QVERIFY2(dialog->summaryText().contains(QLocale().toString(dry->consumed)),
                 qPrintable(dialog->summaryText()));
        dialog->setBatchSize(200); // several batches, several progress reports
        QSignalSpy finished(&page, &rw::StreamPage::replayFinished);
        QTest::mouseClick(dialog->replayButton(), Qt::LeftButton);
        QVERIFY(page.isReplaying());
        QVERIFY(page.cancelButton()->isVisible() || !page.isVisible());
        QVERIFY(finished.count() > 0 || finished.wait(kTimeoutMs));
        QVERIFY(page.replayResult().has_value());
        const rw::ReplayResult &r = *page.replayResult();
        QCOMPARE(r.status, rw::ReplayStatus::Succeeded);
        QCOMPARE(r.consumed, dry->consumed);
        QCOMPARE(r.inserted, dry->inserted);
        QCOMPARE(r.duplicates, dry->duplicates);
        QCOMPARE(r.deadLettered, dry->deadLettered);
        QVERIFY(r.batches > 1);
        // The sink grew by what was inserted; the DLQ by what was dead-lettered.
        QCOMPARE(count(ws->db, QStringLiteral("SELECT COUNT(*) FROM orders_events")),
                 sinkBefore + r.inserted);
        QCOMPARE(count(ws->db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")),
                 dlqBefore + r.deadLettered);
        // The group is at the log end in every partition.
        auto offsets = rw::listOffsets(ws->db, orders, kCrashed);
        QVERIFY(offsets);
        const auto stored = committed(ws->db, kCrashed);
        for (const auto &p : *offsets) {
            QCOMPARE(p.lag, 0);
            QCOMPARE(stored.value(p.partition), p.logEnd);
        }
        QVERIFY(page.replayStatusText().contains(QStringLiteral("succeeded")));
        QTRY_VERIFY_WITH_TIMEOUT(!page.offsetsModel()->snapshot().empty() &&
                                     page.offsetsModel()->snapshot()[0].lag == 0,
                                 kTimeoutMs);
    }

    // Cancel stops at a batch boundary; a second replay finishes the job and
    // every valid event is in the sink once.
    void cancelThenContinue() {
        const auto [db, spec] = m_demo.copy();
        auto ws = rw::openWorkspace(db, spec);
        QVERIFY(ws);
        const rw::StreamSpec &orders = *ws->spec.stream(kStream);
        auto dry = rw::replay(ws->db, orders, kCrashed, {});
        QVERIFY(dry);
        const qint64 sinkBefore =
            count(ws->db, QStringLiteral("SELECT COUNT(*) FROM orders_events"));
        rw::StreamPage page;
        QVERIFY(load(page, *ws));
        QSignalSpy finished(&page, &rw::StreamPage::replayFinished);
        page.runReplay(0, 1);
        page.cancelReplay();
        QVERIFY(finished.count() > 0 || finished.wait(kTimeoutMs));
        QVERIFY(page.replayResult());
        const rw::ReplayResult first = *page.replayResult();
        QCOMPARE(first.status, rw::ReplayStatus::Cancelled);
        QVERIFY(first.consumed < dry->consumed);
        QVERIFY(page.replayStatusText().contains(QStringLiteral("cancelled")));
        QCOMPARE(count(ws->db, QStringLiteral("SELECT COUNT(*) FROM orders_events")),
                 sinkBefore + first.inserted);

        QTRY_VERIFY_WITH_TIMEOUT(page.replayButton()->isEnabled(), kTimeoutMs);
        page.runReplay(0, 5000);
        QVERIFY(finished.count() > 1 || finished.wait(kTimeoutMs));
        const rw::ReplayResult second = *page.replayResult();
        QCOMPARE(second.status, rw::ReplayStatus::Succeeded);
        QCOMPARE(first.consumed + second.consumed, dry->consumed);
        QCOMPARE(first.inserted + second.inserted, dry->inserted);
        QCOMPARE(count(ws->db, QStringLiteral("SELECT COUNT(*) FROM orders_events")),
                 sinkBefore + dry->inserted);
    }
};

QTEST_MAIN(TestStreamsPage)
#include "tst_streamspage.moc"
