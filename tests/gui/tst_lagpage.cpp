// The lag page on the demo warehouse: the watermark slider against core's
// lag, the chart, the heat strip, and Backfill stale / Finalize driven
// through the launch dialog to the statuses they change.
#include "core/batch/partitions.h"
#include "core/workspace/workspace.h"
#include "tests/gui/guitest.h"
#include "tests/testsupport.h"
#include "ui/batch/launchdialog.h"
#include "ui/batch/runmanager.h"
#include "ui/common/settings.h"
#include "ui/lateness/lagpage.h"
#include "ui/lateness/lagpartitionsmodel.h"
#include "ui/lateness/latenesschart.h"
#include "ui/lateness/latenessstrip.h"
#include "ui/window/mainwindow.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QStringBuilder>
#include <QTest>

namespace {

constexpr int kTimeoutMs = 120000;

QMap<QString, rw::PartitionStatus> statuses(const rw::Workspace &ws, const QString &dataset) {
    QMap<QString, rw::PartitionStatus> out;
    auto parts = rw::listPartitions(ws.db, *ws.spec.dataset(dataset));
    if (!parts)
        qFatal("%s", qPrintable(parts.error().message));
    for (const auto &p : *parts)
        out.insert(rw::partitionLabel(p.partition), p.status);
    return out;
}

} // namespace

class TestLagPage : public QObject {
    Q_OBJECT

private:
    guitest::DemoFixture m_demo;

    // A lag page on `dataset` of the workspace, loaded.
    static bool load(rw::LagPage &page, const rw::Workspace &ws, const QString &dataset) {
        QSignalSpy loaded(&page, &rw::Page::pageLoaded);
        page.setDataset(ws.db, *ws.spec.dataset(dataset));
        return loaded.count() > 0 || loaded.wait(kTimeoutMs);
    }

private Q_SLOTS:
    void cleanup() { guitest::waitForBackgroundWork(); }

    void initTestCase() {
        guitest::useTestSettings(QStringLiteral("tst_lagpage"), false);
        REWIND_REQUIRE_ENGINE();
        QVERIFY(m_demo.build());
    }

    // Moving the slider shows what `lag` reports for a spec with that
    // allowed_lateness, without asking the database again.
    void sliderMatchesLag() {
        auto ws = rw::openWorkspace(m_demo.db(), m_demo.spec());
        QVERIFY(ws);
        rw::RunManager runs;
        rw::LagPage page;
        page.setRunManager(&runs);
        QAbstractItemModelTester tester(page.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(load(page, *ws, QStringLiteral("events")));
        QVERIFY(page.snapshot().has_value());
        const rw::LatenessSnapshot &snap = *page.snapshot();
        QVERIFY(snap.report.count > 0);
        QVERIFY(page.model()->rowCount() > 0);
        QCOMPARE(page.strip()->cellCount(), page.model()->rowCount());
        // Starts at the spec's allowed lateness (2h), as lag reports it.
        QCOMPARE(page.whatIfSeconds(), 7200);
        QCOMPARE(page.whatIfLate(), snap.report.late);

        QSignalSpy loading(&page, &rw::Page::loadingChanged);
        const rw::DatasetSpec events = *ws->spec.dataset(QStringLiteral("events"));
        const int last = page.slider()->maximum();
        QVERIFY(last > 10);
        for (int step : {0, 3, last / 3, last / 2, (2 * last) / 3, last - 1, last}) {
            page.slider()->setValue(step);
            const qint64 seconds = page.whatIfSeconds();
            QCOMPARE(seconds, snap.grid[std::size_t(step)]);
            // Core: the same dataset with allowed_lateness = the slider's value.
            rw::DatasetSpec changed = events;
            changed.allowedLatenessSeconds = seconds;
            auto expected = rw::lateness(ws->db, changed, {});
            QVERIFY(expected);
            QCOMPARE(page.whatIfLate(), expected->late);
            QCOMPARE(page.whatIfLateFraction(), expected->lateFraction.value_or(-1));
            QVERIFY2(page.whatIfText().contains(rw::percentText(*expected->lateFraction)),
                     qPrintable(page.whatIfText()));
            QVERIFY2(page.finalizationText().contains(rw::durationLabel(seconds)),
                     qPrintable(page.finalizationText()));
            // The table and the strip move with it, partition by partition.
            qint64 sum = 0;
            for (int row = 0; row < page.model()->rowCount(); ++row) {
                QCOMPARE(page.model()->lateAt(row), expected->partitions[std::size_t(row)].late);
                sum += page.model()->lateAt(row);
                const qint64 count = expected->partitions[std::size_t(row)].count;
                QCOMPARE(page.strip()->lateShare(row),
                         count > 0
                             ? double(expected->partitions[std::size_t(row)].late) / double(count)
                             : 0.0);
            }
            QCOMPARE(sum, expected->late);
        }
        // Consistent with the CLI: lag --what-if for the slider's value.
        page.slider()->setValue(last / 2);
        auto cli = testsupport::runCli(
            {QStringLiteral("lag"), QStringLiteral("--db"), m_demo.db(), QStringLiteral("--spec"),
             m_demo.spec(), QStringLiteral("--dataset"), QStringLiteral("events"),
             QStringLiteral("--what-if"), QStringLiteral("%1s").arg(page.whatIfSeconds()),
             QStringLiteral("--json")});
        QCOMPARE(cli.exitCode, 0);
        const QJsonObject whatIf = QJsonDocument::fromJson(cli.out.toUtf8())
                                       .object()[QStringLiteral("what_if")]
                                       .toArray()[0]
                                       .toObject();
        QCOMPARE(whatIf[QStringLiteral("late_count")].toInteger(), page.whatIfLate());
        QCOMPARE(whatIf[QStringLiteral("late_fraction")].toDouble(), page.whatIfLateFraction());
        // No query per move: the page never went back to loading.
        QCOMPARE(loading.count(), 0);

        // Larger allowed lateness, fewer late events; the suggestion keeps 99% on time.
        qint64 previous = std::numeric_limits<qint64>::max();
        for (int step = 0; step <= last; ++step) {
            page.slider()->setValue(step);
            QVERIFY(page.whatIfLate() <= previous);
            previous = page.whatIfLate();
        }
        QCOMPARE(previous, 0); // the grid reaches past the maximum
        if (snap.report.suggestion) {
            page.setAllowedLateness(snap.report.suggestion->seconds);
            QCOMPARE(page.whatIfSeconds(), snap.report.suggestion->seconds);
            QVERIFY(page.whatIfLateFraction() <= 0.01);
        }
    }

    void chartShowsTheDistribution() {
        auto ws = rw::openWorkspace(m_demo.db(), m_demo.spec());
        QVERIFY(ws);
        rw::LagPage page;
        QVERIFY(load(page, *ws, QStringLiteral("events")));
        const rw::LatenessReport &r = page.snapshot()->report;
        const rw::LatenessChart *chart = page.chart();
        QVERIFY(chart->barCount() >= 2);
        const QStringList markers = chart->markerNames();
        QCOMPARE(markers.size(), 4);
        QVERIFY(markers[0].startsWith(QStringLiteral("p50 ")));
        QVERIFY(markers[3].startsWith(QStringLiteral("p99.9 ")));
        QVERIFY(markers[1].contains(rw::latenessText(*r.percentiles.p90)));
        // The cumulative line rises to 100% of the parsed events.
        const QList<QPointF> points = chart->cumulativePoints();
        QVERIFY(!points.isEmpty());
        for (int i = 1; i < points.size(); ++i)
            QVERIFY(points[i].y() >= points[i - 1].y());
        QCOMPARE(qRound(points.last().y() * 1000), 100000);
        // Markers sit inside their bucket, in order.
        QVERIFY(chart->xOf(*r.percentiles.p50) <= chart->xOf(*r.percentiles.p99));
        QVERIFY(chart->xOf(*r.percentiles.p99) <= chart->xOf(*r.percentiles.max));
    }

    void datasetWithoutTimestamps() {
        auto ws = rw::openWorkspace(m_demo.db(), m_demo.spec());
        QVERIFY(ws);
        rw::LagPage page;
        QVERIFY(!rw::LagPage::hasLateness(*ws->spec.dataset(QStringLiteral("fact_sales"))));
        QVERIFY(load(page, *ws, QStringLiteral("fact_sales")));
        QVERIFY(!page.snapshot().has_value());
        QVERIFY(!page.finalizeButton()->isEnabled());
        QVERIFY(!page.backfillButton()->isEnabled());
    }

    // The demo's late events made closed days stale: backfill them through
    // the preview-and-confirm flow; they are final again.
    void backfillStaleThroughTheDialog() {
        const auto [db, spec] = m_demo.copy(QStringLiteral("backfill"));
        auto ws = rw::openWorkspace(db, spec);
        QVERIFY(ws);
        QStringList stale;
        for (const auto &[p, status] : statuses(*ws, QStringLiteral("events")).asKeyValueRange())
            if (status == rw::PartitionStatus::Stale)
                stale << p;
        QVERIFY(!stale.isEmpty());

        rw::RunManager runs;
        rw::LagPage page;
        page.setRunManager(&runs);
        QVERIFY(load(page, *ws, QStringLiteral("events")));
        QCOMPARE(page.snapshot()->staleCount, stale.size());
        QVERIFY(page.backfillButton()->isEnabled());
        QSignalSpy opened(&page, &rw::LagPage::launchDialogOpened);
        QTest::mouseClick(page.backfillButton(), Qt::LeftButton);
        QVERIFY(opened.count() > 0 || opened.wait(kTimeoutMs));
        rw::LaunchDialog *dialog = page.launchDialog();
        QVERIFY(dialog);
        QVERIFY(
            dialog->summaryText().contains(QStringLiteral("Backfill stale partitions of events")));
        for (const QString &p : stale)
            QVERIFY2(dialog->summaryText().contains(p) || stale.size() > 6,
                     qPrintable(dialog->summaryText()));
        // Typed confirmation.
        QVERIFY(!dialog->runButton()->isEnabled());
        QTest::keyClicks(dialog->confirmEdit(), QStringLiteral("events"));
        QVERIFY(dialog->runButton()->isEnabled());
        QSignalSpy finished(&page, &rw::LagPage::runFinished);
        QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
        QVERIFY(finished.count() > 0 || finished.wait(kTimeoutMs));
        QVERIFY(page.liveRun());
        const rw::LiveRun *run = runs.run(finished.first().first().toInt());
        QVERIFY(run && run->result);
        QCOMPARE(run->result->status, rw::RunStatus::Succeeded);
        const auto after = statuses(*ws, QStringLiteral("events"));
        for (const QString &p : stale)
            QCOMPARE(after.value(p), rw::PartitionStatus::Final);
        // The page reloaded: nothing stale any more.
        QTRY_VERIFY_WITH_TIMEOUT(
            !page.isLoading() && page.snapshot() && page.snapshot()->staleCount == 0, kTimeoutMs);
        QVERIFY(!page.backfillButton()->isEnabled());
    }

    // New events move the watermark past the provisional day: finalize it
    // through the dialog and it is final.
    void finalizeThroughTheDialog() {
        const auto [db, spec] = m_demo.copy(QStringLiteral("finalize"));
        auto ws = rw::openWorkspace(db, spec);
        QVERIFY(ws);
        const rw::DatasetSpec &events = *ws->spec.dataset(QStringLiteral("events"));
        auto before = rw::finalize(ws->db, events, {});
        QVERIFY(before);
        // An event two days past the newest moves the watermark on.
        // (The demo's days are ISO text on both engines; date arithmetic is spelt per engine.)
        const QString later =
            testsupport::onPostgres()
                ? QStringLiteral("to_char(CAST(MAX(dt) AS date) + 2, 'YYYY-MM-DD')")
                : QStringLiteral("date(MAX(dt), '+2 days')");
        QVERIFY(ws->db.exec(QStringLiteral("INSERT INTO raw_events (event_id, dt, event_ts, "
                                           "ingested_at) SELECT 'late-watermark', %1, "
                                           "%1 || 'T12:00:00Z', %1 || 'T12:00:05Z' FROM raw_events")
                                .arg(later)));
        auto dry = rw::finalize(ws->db, events, {});
        QVERIFY(dry);
        QVERIFY2(!dry->finalized.isEmpty(), "the watermark should have passed a day");

        rw::RunManager runs;
        rw::LagPage page;
        page.setRunManager(&runs);
        QVERIFY(load(page, *ws, QStringLiteral("events")));
        QVERIFY(page.finalizeButton()->isEnabled());
        QSignalSpy opened(&page, &rw::LagPage::launchDialogOpened);
        page.startFinalize();
        QVERIFY(opened.count() > 0 || opened.wait(kTimeoutMs));
        rw::LaunchDialog *dialog = page.launchDialog();
        QVERIFY(dialog);
        QVERIFY(dialog->summaryText().contains(QStringLiteral("Finalize events")));
        QVERIFY(!dialog->runButton()->isEnabled());
        QTest::keyClicks(dialog->confirmEdit(), QStringLiteral("event")); // not yet
        QVERIFY(!dialog->runButton()->isEnabled());
        QTest::keyClicks(dialog->confirmEdit(), QStringLiteral("s"));
        QSignalSpy finished(&page, &rw::LagPage::runFinished);
        QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
        QVERIFY(finished.count() > 0 || finished.wait(kTimeoutMs));
        const auto after = statuses(*ws, QStringLiteral("events"));
        for (const QString &day : dry->finalized)
            QCOMPARE(after.value(day), rw::PartitionStatus::Final);
        auto audit = ws->db.scalar(QStringLiteral(
            "SELECT COUNT(*) FROM rewind_audit WHERE action = 'finalize' AND dataset = 'events'"));
        QVERIFY(audit && audit->toLongLong() >= 1);
    }

    // A dataset fed by a stream whose group lags (the demo's orders-loader):
    // the page says the watermark is held, by whom
    // and where, and the what-if line keeps the held point.
    void heldWatermarkIsSaid() {
        QFile in(m_demo.spec());
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject spec = QJsonDocument::fromJson(in.readAll()).object();
        QJsonObject datasets = spec.value(QStringLiteral("datasets")).toObject();
        QJsonObject events = datasets.value(QStringLiteral("events")).toObject();
        events.insert(QStringLiteral("fed_by"), QJsonArray{QStringLiteral("orders")});
        datasets.insert(QStringLiteral("events"), events);
        spec.insert(QStringLiteral("datasets"), datasets);
        const QString fed = m_demo.dir().filePath(QStringLiteral("fed.json"));
        QFile out(fed);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(spec).toJson());
        out.close();

        auto ws = rw::openWorkspace(m_demo.db(), fed);
        QVERIFY(ws);
        rw::RunManager runs;
        rw::LagPage page;
        page.setRunManager(&runs);
        QVERIFY(load(page, *ws, QStringLiteral("events")));
        const auto &finalize = page.snapshot()->finalize;
        QVERIFY(finalize && finalize->heldBy.size() == 1);
        QVERIFY(finalize->heldBy[0].lag > 0);
        QVERIFY2(page.heldText().contains(
                     QStringLiteral("by group orders-loader of stream orders, %1 events behind")
                         .arg(QLocale(QLocale::English).toString(finalize->heldBy[0].lag))),
                 qPrintable(page.heldText()));
        QVERIFY2(page.heldText().contains(
                     QStringLiteral("held at %1").arg(rw::isoUtc(*finalize->heldBy[0].heldAtMs))),
                 qPrintable(page.heldText()));
        QVERIFY2(page.finalizationText().contains(QStringLiteral("held by group orders-loader")),
                 qPrintable(page.finalizationText()));
        QVERIFY(finalize->watermarkMs && *finalize->watermarkMs < *finalize->unheldWatermarkMs);
    }

    // --page lag picks a dataset with lateness (the demo's events).
    void mainWindowOpensTheLagPage() {
        rw::MainWindow w;
        QSignalSpy opened(&w, &rw::MainWindow::workspaceOpened);
        QSignalSpy loaded(&w, &rw::MainWindow::pageLoaded);
        rw::MainWindow::Selection selection;
        selection.page = QStringLiteral("lag");
        w.openWorkspace(m_demo.db(), m_demo.spec(), selection);
        QVERIFY(opened.count() > 0 || opened.wait(kTimeoutMs));
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > 0, kTimeoutMs);
        QCOMPARE(w.currentPageName(), QStringLiteral("lag"));
        QCOMPARE(w.lagPage()->datasetName(), QStringLiteral("events"));
        QVERIFY(w.lagPage()->snapshot().has_value());
        QVERIFY(rw::MainWindow::availablePages().contains(QStringLiteral("lag")));
    }
};

QTEST_MAIN(TestLagPage)
#include "tst_lagpage.moc"
