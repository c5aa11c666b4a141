// The Streams page on a Kafka stream (issue 30), against the real Kafka
// cluster (tests/kafkacluster.h): groups with status and the coordinator's
// state, offsets per partition, lag over time from the samples the page
// records, and a reset and a replay through the page. A broker that goes
// down and comes back, shown as a banner while the window keeps answering,
// on librdkafka's mock cluster (the real one is the other suites' too).
#include "tests/gui/guitest.h"
#include "tests/kafkacluster.h"
#include "tests/kafkamock.h"
#include "tests/testsupport.h"
#include "ui/common/errorbanner.h"
#include "ui/dlq/dlqpage.h"
#include "ui/dlq/kafkadlqdialogs.h"
#include "ui/streams/consumergroupsmodel.h"
#include "ui/streams/groupoffsetsmodel.h"
#include "ui/streams/laghistorychart.h"
#include "ui/streams/replaydialog.h"
#include "ui/streams/resetoffsetsdialog.h"
#include "ui/streams/resetplanmodel.h"
#include "ui/streams/streampage.h"

#include <QElapsedTimer>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStringBuilder>
#include <QTest>
#include <QTimer>

using namespace kafkatest;

namespace {

constexpr int kTimeoutMs = 60000;

QString groupCell(const rw::StreamPage &page, int column) {
    const int row = page.groupsModel()->rowOf(QStringLiteral("loader"));
    return row < 0 ? QStringLiteral("(no loader row)")
                   : page.groupsModel()->index(row, column).data().toString();
}

} // namespace

// Declared right after a test's cluster: its destructor runs after the
// page's and before the cluster's, and waits for the page's background
// jobs, so none is left talking to a cluster that is gone.
struct JobsEndBeforeTheCluster {
    ~JobsEndBeforeTheCluster() { guitest::waitForBackgroundWork(); }
};

class TestKafkaPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_KAFKA();
        guitest::useTestSettings(QStringLiteral("tst_kafkapage"), false);
        qputenv("REWIND_KAFKA_TIMEOUT_MS", "3000");
    }
    void cleanup() { guitest::waitForBackgroundWork(); }

    void groupsAndLagOverTime() {
        Cluster cluster;
        const JobsEndBeforeTheCluster jobsEnd;
        testsupport::WorkspaceFixture f({}, spec(cluster.bootstrap(), cluster.payments()));
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
        QCOMPARE(groupCell(page, rw::ConsumerGroupsModel::StateColumn),
                 QStringLiteral("Empty")); // the coordinator's: committed, no member
        QCOMPARE(groupCell(page, rw::ConsumerGroupsModel::MembersColumn), QStringLiteral("0"));
        QCOMPARE(page.offsetsModel()->rowCount(), kPartitions);
        QCOMPARE(page.lagHistoryChart()->pointCount(), 1);

        // Samples a minute and half a minute old with the same offsets: the
        // next tick records one more, and the group has not moved: STOP.
        QVERIFY(
            f.db().exec(QStringLiteral("INSERT INTO rewind_lag_samples SELECT stream, group_id, "
                                       "partition_id, sampled_ms - 60000, committed_offset, "
                                       "log_end, lag FROM rewind_lag_samples UNION ALL SELECT "
                                       "stream, group_id, partition_id, sampled_ms - 30000, "
                                       "committed_offset, log_end, lag FROM rewind_lag_samples")));
        QTest::qWait(1100);
        QSignalSpy group(&page, &rw::StreamPage::groupLoaded);
        page.sampleNow();
        QVERIFY(group.wait(kTimeoutMs));
        QCOMPARE(page.lagHistoryChart()->pointCount(), 4);
        QCOMPARE(groupCell(page, rw::ConsumerGroupsModel::StatusColumn), QStringLiteral("STOP"));
    }

    // The broker goes down (librdkafka's mock): a banner names the cluster,
    // the GUI thread keeps turning meanwhile (a 50 ms timer keeps firing);
    // up again, the next tick loads the page and the banner goes.
    void aBrokerDownIsABanner() {
        kafkamock::MockCluster cluster;
        const JobsEndBeforeTheCluster jobsEnd;
        testsupport::WorkspaceFixture f({}, kafkamock::kafkaSpec(cluster.bootstrap()));
        rw::StreamPage page;
        page.resize(1200, 800);
        page.show();
        QSignalSpy loaded(&page, &rw::Page::pageLoaded);
        page.setStream(f.db(), *f.ws->spec.stream(QStringLiteral("payments")));
        QVERIFY(loaded.wait(kTimeoutMs));
        {
            QSignalSpy shown(&page, &rw::StreamPage::groupLoaded);
            QVERIFY(page.selectGroup(QStringLiteral("loader")));
            QVERIFY(shown.wait(kTimeoutMs));
        }
        cluster.down();
        int ticks = 0;
        QTimer heartbeat;
        connect(&heartbeat, &QTimer::timeout, [&] { ++ticks; });
        heartbeat.start(50);
        QElapsedTimer waited;
        waited.start();
        page.sampleNow();
        QTRY_VERIFY_WITH_TIMEOUT(page.banner()->isVisible(), kTimeoutMs);
        QVERIFY2(page.banner()->message().contains(cluster.bootstrap()),
                 qPrintable(page.banner()->message()));
        QVERIFY2(page.banner()->message().contains(QStringLiteral("Retrying")),
                 qPrintable(page.banner()->message()));
        QVERIFY2(ticks >= waited.elapsed() / 50 / 2,
                 qPrintable(QStringLiteral("%1 ticks in %2 ms").arg(ticks).arg(waited.elapsed())));

        // Up again: the next tick loads the page, and the banner goes.
        cluster.up();
        QSignalSpy again(&page, &rw::Page::pageLoaded);
        page.sampleNow();
        QVERIFY(again.wait(kTimeoutMs));
        QVERIFY(!page.banner()->isVisible());
        QCOMPARE(groupCell(page, rw::ConsumerGroupsModel::LagColumn), QStringLiteral("12"));
    }

    // Reset by time through the dialog (its dry run shows the boundary the
    // broker's time index found; the group's name typed), then replay through the
    // page: the cluster's offsets move, and each event lands once.
    void resetAndReplayThroughThePage() {
        Cluster cluster;
        const JobsEndBeforeTheCluster jobsEnd;
        testsupport::WorkspaceFixture f({}, spec(cluster.bootstrap(), cluster.payments()));
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
        QVERIFY2(note.contains(QStringLiteral("found by the broker's time index")) &&
                     note.contains(QStringLiteral("the one before none")),
                 qPrintable(note));
        QTest::keyClicks(dialog->confirmEdit(), QStringLiteral("loader"));
        QVERIFY(dialog->applyButton()->isEnabled());
        QSignalSpy reset(&page, &rw::StreamPage::offsetsReset);
        QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
        QVERIFY(reset.wait(kTimeoutMs));
        const auto offsets = f.cli({QStringLiteral("offsets"), QStringLiteral("--stream"),
                                    QStringLiteral("payments"), QStringLiteral("--group"),
                                    QStringLiteral("loader"), QStringLiteral("--json")});
        QVERIFY2(offsets.exitCode == 0, qPrintable(offsets.err));
        QVERIFY2(offsets.out.count(QStringLiteral("\"committed\": 0")) == kPartitions,
                 qPrintable(offsets.out)); // read from the cluster

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
        QCOMPARE(f.db()
                     .scalar(QStringLiteral(
                         "SELECT COUNT(DISTINCT event_id) * 1000 + COUNT(*) FROM payment_events"))
                     ->toLongLong(),
                 18018);
    }

    // The DLQ page on a Kafka stream: Import from topic (count, then import),
    // a record's Kafka origin and headers, and Replay to topic (dry run, the
    // stream's name typed, produced and acknowledged).
    void dlqImportAndReplayToTopicThroughThePage() {
        Cluster cluster;
        const JobsEndBeforeTheCluster jobsEnd;
        const QString dlq = cluster.topic(QStringLiteral("payments.dlq"));
        cluster.createTopic(dlq, 1);
        cluster.produce(dlq, {{0,
                               QByteArray("k-1"),
                               QByteArray(R"({"id": "k-1", "amount": "x"})"),
                               {{"__connect.errors.topic", cluster.payments().toUtf8()},
                                {"__connect.errors.partition", "2"},
                                {"__connect.errors.offset", "4"},
                                {"__connect.errors.exception.class.name",
                                 "org.apache.kafka.connect.errors.DataException"},
                                {"__connect.errors.exception.message", "bad amount"},
                                {"trace-id", "t-1"}}}});
        testsupport::WorkspaceFixture f(
            {}, spec(cluster.bootstrap(), cluster.payments(), QStringLiteral("{}"), dlq));
        rw::DlqPage page;
        page.resize(1200, 800);
        page.show();
        {
            QSignalSpy loaded(&page, &rw::Page::pageLoaded);
            page.setWorkspace(f.db(), f.ws->spec);
            page.refresh();
            QVERIFY(loaded.wait(kTimeoutMs));
        }
        QVERIFY(page.importButton()->isVisible());
        rw::ImportTopicDialog *import = page.openImportDialog();
        QVERIFY(import);
        QSignalSpy counted(import, &rw::ImportTopicDialog::counted);
        import->count();
        QVERIFY(counted.wait(kTimeoutMs));
        QVERIFY2(import->statusText().contains(QStringLiteral("1 record(s) to read from ") % dlq),
                 qPrintable(import->statusText()));
        QSignalSpy imported(import, &rw::ImportTopicDialog::imported);
        QSignalSpy reloaded(&page, &rw::Page::pageLoaded);
        QSignalSpy shown(&page, &rw::DlqPage::recordShown); // the reload shows the first record
        QTest::mouseClick(import->importButton(), Qt::LeftButton);
        QVERIFY(imported.wait(kTimeoutMs));
        QCOMPARE(imported.at(0).at(0).toLongLong(), 1);
        QVERIFY(reloaded.count() > 0 || reloaded.wait(kTimeoutMs));
        import->close();

        const qint64 id =
            f.db().scalar(QStringLiteral("SELECT dlq_id FROM rewind_dlq"))->toLongLong();
        QVERIFY(page.selectRecord(id));
        QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && shown.last().at(0).toLongLong() == id,
                                 kTimeoutMs);
        const QString kafka = page.kafkaView()->toPlainText();
        QVERIFY2(kafka.contains(QStringLiteral("origin   ") % cluster.payments() %
                                QStringLiteral(" [2] @4")) &&
                     kafka.contains(QStringLiteral("trace-id = t-1")),
                 qPrintable(kafka));

        rw::RedriveDialog *redrive = page.openRedriveDialog();
        QVERIFY(redrive);
        QSignalSpy dry(redrive, &rw::RedriveDialog::dryRunFinished);
        QVERIFY(dry.count() > 0 || dry.wait(kTimeoutMs));
        QVERIFY2(redrive->summaryText().contains(cluster.payments() % QStringLiteral(": 1")),
                 qPrintable(redrive->summaryText()));
        QVERIFY(!redrive->replayButton()->isEnabled());
        QTest::keyClicks(redrive->confirmEdit(), QStringLiteral("payments"));
        QVERIFY(redrive->replayButton()->isEnabled());
        QSignalSpy done(redrive, &rw::RedriveDialog::replayed);
        QTest::mouseClick(redrive->replayButton(), Qt::LeftButton);
        QVERIFY(done.wait(kTimeoutMs));
        QCOMPARE(redrive->result()->produced, 1);
        QCOMPARE(f.db()
                     .scalar(QStringLiteral("SELECT status FROM rewind_dlq WHERE dlq_id = ?"), {id})
                     ->toString(),
                 QStringLiteral("replayed"));
    }
};

QTEST_MAIN(TestKafkaPage)
#include "tst_kafkapage.moc"
