// The Streams page on a Kafka stream (issue 30), against librdkafka's mock
// cluster in this process: groups with status and state, offsets per
// partition, lag over time from the samples the page records, a broker
// that goes down shown as a banner while the window keeps answering, and a
// reset and a replay through the page.
#include "tests/gui/guitest.h"
#include "tests/kafkamock.h"
#include "tests/testsupport.h"
#include "ui/common/errorbanner.h"
#include "ui/streams/consumergroupsmodel.h"
#include "ui/streams/groupoffsetsmodel.h"
#include "ui/streams/laghistorychart.h"
#include "ui/streams/replaydialog.h"
#include "ui/streams/resetoffsetsdialog.h"
#include "ui/streams/resetplanmodel.h"
#include "ui/streams/streampage.h"

#include <QElapsedTimer>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace kafkamock;

namespace {

constexpr int kTimeoutMs = 60000;

QString groupCell(const rw::StreamPage &page, int column)
{
    const int row = page.groupsModel()->rowOf(QStringLiteral("loader"));
    return row < 0 ? QStringLiteral("(no loader row)") : page.groupsModel()->index(row, column).data().toString();
}

} // namespace

class TestKafkaPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        guitest::useTestSettings(QStringLiteral("tst_kafkapage"), false);
        qputenv("REWIND_KAFKA_TIMEOUT_MS", "3000");
    }
    void cleanup() { guitest::waitForBackgroundWork(); }

    void groupsLagOverTimeAndABrokerDown()
    {
        MockCluster cluster;
        testsupport::WorkspaceFixture f({}, kafkaSpec(cluster.bootstrap()));
        rw::StreamPage page;
        page.resize(1200, 800);
        page.show();
        QSignalSpy loaded(&page, &rw::Page::pageLoaded);
        page.setStream(f.db(), *f.ws->spec.stream(QStringLiteral("payments")));
        QVERIFY(loaded.wait(kTimeoutMs));

        // The spec's groups, read from the cluster: idle never committed, so
        // it is furthest behind (all 18 events) and shown first.
        QCOMPARE(page.currentGroup(), QStringLiteral("idle"));
        QCOMPARE(page.groupsModel()->rowCount(), 2);
        // loader: 3 + 2 + 7 events behind; its first sample only.
        {
            QSignalSpy shown(&page, &rw::StreamPage::groupLoaded);
            QVERIFY(page.selectGroup(QStringLiteral("loader")));
            QVERIFY(shown.wait(kTimeoutMs));
        }
        QCOMPARE(groupCell(page, rw::ConsumerGroupsModel::LagColumn), QStringLiteral("12"));
        QCOMPARE(groupCell(page, rw::ConsumerGroupsModel::StatusColumn), QStringLiteral("unknown"));
        QCOMPARE(groupCell(page, rw::ConsumerGroupsModel::StateColumn), QStringLiteral("\u2014")); // the mock cannot list groups
        QCOMPARE(page.offsetsModel()->rowCount(), kPartitions);
        QCOMPARE(page.lagHistoryChart()->pointCount(), 1);

        // Samples a minute and half a minute old with the same offsets: the
        // next tick records one more, and the group has not moved: STOP.
        QVERIFY(f.db().exec(QStringLiteral("INSERT INTO rewind_lag_samples SELECT stream, group_id, partition_id, sampled_ms - 60000, committed_offset, "
                                           "log_end, lag FROM rewind_lag_samples UNION ALL SELECT stream, group_id, partition_id, sampled_ms - 30000, "
                                           "committed_offset, log_end, lag FROM rewind_lag_samples")));
        QTest::qWait(1100);
        QSignalSpy group(&page, &rw::StreamPage::groupLoaded);
        page.sampleNow();
        QVERIFY(group.wait(kTimeoutMs));
        QCOMPARE(page.lagHistoryChart()->pointCount(), 4);
        QCOMPARE(groupCell(page, rw::ConsumerGroupsModel::StatusColumn), QStringLiteral("STOP"));

        // The broker goes down: a banner names the cluster; the GUI thread
        // keeps turning meanwhile (a 50 ms timer keeps firing).
        cluster.down();
        int ticks = 0;
        QTimer heartbeat;
        connect(&heartbeat, &QTimer::timeout, [&] { ++ticks; });
        heartbeat.start(50);
        QElapsedTimer waited;
        waited.start();
        page.sampleNow();
        QTRY_VERIFY_WITH_TIMEOUT(page.banner()->isVisible(), kTimeoutMs);
        QVERIFY2(page.banner()->message().contains(cluster.bootstrap()), qPrintable(page.banner()->message()));
        QVERIFY2(page.banner()->message().contains(QStringLiteral("Retrying")), qPrintable(page.banner()->message()));
        QVERIFY2(ticks >= waited.elapsed() / 50 / 2, qPrintable(QStringLiteral("%1 ticks in %2 ms").arg(ticks).arg(waited.elapsed())));

        // Up again: the next tick loads the page, and the banner goes.
        cluster.up();
        QSignalSpy again(&page, &rw::Page::pageLoaded);
        page.sampleNow();
        QVERIFY(again.wait(kTimeoutMs));
        QVERIFY(!page.banner()->isVisible());
        QCOMPARE(groupCell(page, rw::ConsumerGroupsModel::LagColumn), QStringLiteral("12"));
    }

    // Reset by time through the dialog (its dry run shows the boundary the
    // record search found; the group's name typed), then replay through the
    // page: the cluster's offsets move, and each event lands once.
    void resetAndReplayThroughThePage()
    {
        MockCluster cluster;
        testsupport::WorkspaceFixture f({}, kafkaSpec(cluster.bootstrap()));
        rw::StreamPage page;
        QSignalSpy loaded(&page, &rw::Page::pageLoaded);
        page.setStream(f.db(), *f.ws->spec.stream(QStringLiteral("payments")));
        QVERIFY(loaded.wait(kTimeoutMs));
        {
            QSignalSpy shown(&page, &rw::StreamPage::groupLoaded);
            QVERIFY(page.selectGroup(QStringLiteral("loader")));
            QVERIFY(shown.wait(kTimeoutMs));
        }
        rw::ResetOffsetsDialog *dialog = page.openResetDialog();
        QVERIFY(dialog);
        dialog->setMethod(rw::ResetOffsetsDialog::Method::ToDatetime);
        dialog->setValue(QStringLiteral("2000-01-01T00:00:00Z"));
        QSignalSpy done(dialog, &rw::ResetOffsetsDialog::dryRunFinished);
        dialog->dryRun();
        QVERIFY(done.wait(kTimeoutMs));
        QVERIFY(dialog->dryRunPlan());
        const rw::ResetPlanModel *plan = dialog->planModel();
        QCOMPARE(plan->rowCount(), kPartitions);
        const QString note = plan->index(0, rw::ResetPlanModel::NoteColumn).data().toString();
        QVERIFY2(note.contains(QStringLiteral("found by a search of the records")) && note.contains(QStringLiteral("the one before none")), qPrintable(note));
        QTest::keyClicks(dialog->confirmEdit(), QStringLiteral("loader"));
        QVERIFY(dialog->applyButton()->isEnabled());
        QSignalSpy reset(&page, &rw::StreamPage::offsetsReset);
        QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
        QVERIFY(reset.wait(kTimeoutMs));
        const auto offsets = f.cli({QStringLiteral("offsets"), QStringLiteral("--stream"), QStringLiteral("payments"), QStringLiteral("--group"),
                                    QStringLiteral("loader"), QStringLiteral("--json")});
        QVERIFY2(offsets.exitCode == 0, qPrintable(offsets.err));
        QVERIFY2(offsets.out.count(QStringLiteral("\"committed\": 0")) == kPartitions, qPrintable(offsets.out)); // read from the cluster

        guitest::waitForBackgroundWork();
        QSignalSpy opened(&page, &rw::StreamPage::replayDialogOpened);
        page.startReplay();
        QVERIFY(opened.wait(kTimeoutMs));
        QVERIFY(page.replayDialog());
        QSignalSpy finished(&page, &rw::StreamPage::replayFinished);
        page.runReplay(0, 4);
        QVERIFY(finished.wait(kTimeoutMs));
        QVERIFY(page.replayResult());
        QCOMPARE(page.replayResult()->consumed, 18);
        QCOMPARE(page.replayResult()->inserted, 18);
        QCOMPARE(f.db().scalar(QStringLiteral("SELECT COUNT(DISTINCT event_id) * 1000 + COUNT(*) FROM payment_events"))->toLongLong(), 18018);
    }
};

QTEST_MAIN(TestKafkaPage)
#include "tst_kafkapage.moc"
