// gui_stall: how responsive the console stays under load (issue 12).
//
//   gui_stall --db DB --spec SPEC --scenario backfill --dataset D --from DAY --to DAY
//   gui_stall --db DB --spec SPEC --scenario dlq
//   gui_stall --db DB --spec SPEC --scenario pages --dataset D
//   gui_stall --db DB --spec SPEC --scenario launch --dataset D --page PAGE
//
// Opens the real console window (MainWindow; the offscreen platform unless
// QT_QPA_PLATFORM says otherwise) and, while a 10 ms timer ticks on the GUI
// thread, either
//   - backfill: previews the days FROM..TO on the Preview page, confirms the
//     launch dialog as an operator would and lets the RunManager execute the
//     plan, exactly the path of Preview > Run; or
//   - dlq: opens the dead-letter queue page, timing its first rows and its
//     full load (counts, signatures, first record), with peak RSS; or
//   - pages: launches on D's partitions page, types a range into its filter,
//     selects the range, filters by status, selects all, previews them, then
//     shows every other page and refreshes the partitions (bench/gui_pages.cpp),
//     timing each step from its start (the launch: from the process start) to
//     its data shown; or
//   - launch: opens straight onto one page (--page) and times it the same way.
// It prints, per phase, the longest gap between timer ticks (a stall of the
// event loop) and how many gaps exceeded 50 ms. Exit 0 when the scenario ran,
// whatever the numbers; 1 when it could not run; 2 for bad usage.
//
// Built by `cmake --build build --target gui_stall` (not part of `all`);
// bench/gui builds the data and runs both scenarios.
#include "bench/gui_pages.h"
#include "bench/guibench.h"
#include "core/util/cpustate.h"
#include "ui/batch/launchdialog.h"
#include "ui/batch/previewpage.h"
#include "ui/batch/runmanager.h"
#include "ui/dlq/dlqgroupsmodel.h"
#include "ui/dlq/dlqpage.h"
#include "ui/dlq/dlqrecordsmodel.h"
#include "ui/window/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDate>
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QTextStream>
#include <QThreadPool>
#include <QTimer>
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <vector>

using namespace guibench;

int main(int argc, char *argv[]) {
    benchClock();                   // the launch is timed from here
    rw::avoidDirtyUpperRegisters(); // as the console does (cpustate.h)
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    TimedApplication app(argc, argv);
    // Its own settings: the harness must not change an operator's recent workspaces.
    QApplication::setOrganizationName(QStringLiteral("Rewind"));
    QApplication::setApplicationName(QStringLiteral("rewind-gui-stall"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Measures how long the console's event loop stalls during a backfill, "
                       "and how fast the dead-letter queue page opens."));
    parser.addHelpOption();
    const QCommandLineOption dbOption(QStringLiteral("db"), QStringLiteral("Database."),
                                      QStringLiteral("DB"));
    const QCommandLineOption specOption(QStringLiteral("spec"), QStringLiteral("Spec."),
                                        QStringLiteral("SPEC"));
    const QCommandLineOption scenarioOption(QStringLiteral("scenario"),
                                            QStringLiteral("backfill, dlq, pages or launch."),
                                            QStringLiteral("S"));
    const QCommandLineOption datasetOption(QStringLiteral("dataset"),
                                           QStringLiteral("backfill, pages, launch: the dataset."),
                                           QStringLiteral("D"));
    const QCommandLineOption pageOption(QStringLiteral("page"),
                                        QStringLiteral("launch: the page to open on."),
                                        QStringLiteral("PAGE"));
    const QCommandLineOption rangeOption(QStringLiteral("range"),
                                         QStringLiteral("pages: the partitions typed as a range, "
                                                        "selected and previewed (default 100)."),
                                         QStringLiteral("N"), QStringLiteral("100"));
    const QCommandLineOption previewAllOption(
        QStringLiteral("preview-all"), QStringLiteral("pages: preview every partition too."));
    const QCommandLineOption fromOption(QStringLiteral("from"),
                                        QStringLiteral("backfill: first day (YYYY-MM-DD)."),
                                        QStringLiteral("DAY"));
    const QCommandLineOption toOption(QStringLiteral("to"),
                                      QStringLiteral("backfill: last day (YYYY-MM-DD)."),
                                      QStringLiteral("DAY"));
    const QCommandLineOption timeoutOption(
        QStringLiteral("timeout"), QStringLiteral("Give up after S seconds (default 3600)."),
        QStringLiteral("S"), QStringLiteral("3600"));
    parser.addOptions({dbOption, specOption, scenarioOption, datasetOption, pageOption, rangeOption,
                       previewAllOption, fromOption, toOption, timeoutOption});
    parser.process(app);

    const QString db = parser.value(dbOption), spec = parser.value(specOption),
                  scenario = parser.value(scenarioOption);
    const QString dataset = parser.value(datasetOption);
    const QDate from = QDate::fromString(parser.value(fromOption), Qt::ISODate);
    const QDate to = QDate::fromString(parser.value(toOption), Qt::ISODate);
    const auto usage = [](const QString &message) {
        QTextStream(stderr) << "gui_stall: " << message << '\n';
        return 2;
    };
    if (db.isEmpty() || spec.isEmpty())
        return usage(QStringLiteral("--db and --spec are required"));
    const QStringList scenarios{QStringLiteral("backfill"), QStringLiteral("dlq"),
                                QStringLiteral("pages"), QStringLiteral("launch")};
    if (!scenarios.contains(scenario))
        return usage(QStringLiteral("--scenario must be one of: ") +
                     scenarios.join(QStringLiteral(", ")));
    const QString launchPage = parser.value(pageOption);
    if ((scenario == QLatin1String("pages") || scenario == QLatin1String("launch")) &&
        dataset.isEmpty())
        return usage(QStringLiteral("%1 needs --dataset").arg(scenario));
    if (scenario == QLatin1String("launch") &&
        !rw::MainWindow::availablePages().contains(launchPage))
        return usage(QStringLiteral("launch needs --page, one of: ") +
                     rw::MainWindow::availablePages().join(QStringLiteral(", ")));
    if (scenario == QLatin1String("backfill") &&
        (dataset.isEmpty() || !from.isValid() || !to.isValid() || to < from))
        return usage(QStringLiteral(
            "backfill needs --dataset and --from DAY --to DAY (YYYY-MM-DD, from <= to)"));
    QStringList days;
    for (QDate d = from; d.isValid() && d <= to; d = d.addDays(1))
        days << d.toString(Qt::ISODate);

    rw::MainWindow window;
    window.resize(1400, 860);
    window.show();
    StallMeter meter;
    bool done = false;
    double firstRowsS = -1, loadedS = -1, rssAtFirstRows = -1;
    qint64 dlqClickMs = 0;
    const rw::LiveRun *finishedRun = nullptr;

    QObject::connect(&window, &rw::MainWindow::workspaceFailed, &app,
                     [](int, const QString &message) {
                         failed(QStringLiteral("cannot open the workspace: ") + message);
                     });
    QObject::connect(&window, &rw::MainWindow::pageFailed, &app, [](const QString &message) {
        failed(QStringLiteral("a page failed to load: ") + message);
    });
    QTimer::singleShot(parser.value(timeoutOption).toInt() * 1000, &app, [&done] {
        if (!done)
            failed(QStringLiteral("timed out"));
    });

    const auto finish = [&] {
        done = true;
        meter.end();
        QApplication::exit(0);
    };

    // State the scenarios' handlers share: it must outlive the branches
    // below, since the handlers run in app.exec().
    rw::PreviewPage *preview = window.previewPage();
    rw::RunManager *runs = window.runManager();
    bool previewing = false, launched = false, clicked = false;
    std::function<void()> launch;
    std::unique_ptr<PagesScenario> pages;
    if (scenario == QLatin1String("pages") || scenario == QLatin1String("launch")) {
        pages = std::make_unique<PagesScenario>(
            window, meter, db, spec, dataset,
            scenario == QLatin1String("launch") ? launchPage : QString(),
            parser.value(rangeOption).toInt(), parser.isSet(previewAllOption), finish);
        pages->start();
    } else if (scenario == QLatin1String("backfill")) {
        // 1. The workspace opens on the dataset's partitions page.
        QObject::connect(&window, &rw::MainWindow::pageLoaded, &app, [&] {
            if (previewing || window.currentPageName() != QLatin1String("partitions"))
                return;
            previewing = true;
            meter.begin(QStringLiteral("preview"));
            window.previewPartitions(days); // as Partitions > Preview does
        });
        // 2. The preview is in: Run, confirm the dialog as the operator would.
        QObject::connect(preview, &rw::Page::pageLoaded, &app, [&] {
            if (!previewing || launched)
                return;
            launched = true;
            // The operator reads the preview, then clicks Run (300 ms later
            // here): the preview's own handling and the launch are separate
            // stretches of the GUI thread, as they are for a person.
            QTimer::singleShot(300, &app, [&] { launch(); });
        });
        launch = [&] {
            meter.begin(QStringLiteral("confirm"));
            rw::LaunchDialog *dialog = preview->launch();
            if (!dialog)
                return void(failed(QStringLiteral("the preview did not give a plan to run")));
            if (dialog->destructive())
                dialog->confirmEdit()->setText(dataset);
            if (!dialog->canConfirm())
                return void(failed(QStringLiteral("the launch dialog cannot be confirmed")));
            meter.begin(QStringLiteral("run"));
            dialog->runButton()->click();
        };
        // 3. The run ends: keep ticking a little to see the page settle.
        QObject::connect(runs, &rw::RunManager::runFinished, &app, [&](int id) {
            finishedRun = runs->run(id);
            meter.begin(QStringLiteral("after run"));
            QTimer::singleShot(1000, &app, finish);
        });
        meter.begin(QStringLiteral("open"));
        rw::MainWindow::Selection selection;
        selection.kind = rw::Navigator::Kind::Dataset;
        selection.name = dataset;
        selection.page = QStringLiteral("partitions");
        window.openWorkspace(db, spec, selection);
    } else {
        rw::DlqPage *page = window.dlqPage();
        // 1. The workspace opens on its first page; 2. the operator opens the DLQ.
        QObject::connect(&window, &rw::MainWindow::workspaceOpened, &app, [&] {
            QTimer::singleShot(500, &app, [&] { // let the first page settle
                clicked = true;
                meter.begin(QStringLiteral("dlq open"));
                dlqClickMs = meter.elapsedMs();
                window.showNamedPage(QStringLiteral("dlq"));
            });
        });
        QObject::connect(page->recordsModel(), &rw::DlqRecordsModel::pageFetched, &app,
                         [&](int rows) {
                             if (!clicked || firstRowsS >= 0 || rows <= 0)
                                 return;
                             firstRowsS = (meter.elapsedMs() - dlqClickMs) / 1000.0;
                             rssAtFirstRows = memoryMb("VmHWM");
                         });
        QObject::connect(page, &rw::Page::pageLoaded, &app, [&] {
            if (!clicked || loadedS >= 0)
                return;
            loadedS = (meter.elapsedMs() - dlqClickMs) / 1000.0;
            meter.begin(QStringLiteral("dlq idle"));
            QTimer::singleShot(1000, &app, finish);
        });
        meter.begin(QStringLiteral("open"));
        window.openWorkspace(db, spec);
    }

    const int code = app.exec();
    // As the console does: no background task may outlive the application
    // (Qt closes every database connection when it goes).
    rw::JobTracker::waitForAll();
    if (code != 0 || !done)
        return code ? code : 1;

    out() << QStringLiteral("gui_stall %1: %2 (%3)\n")
                 .arg(scenario, db, QString::fromLatin1(qgetenv("QT_QPA_PLATFORM")));
    meter.report();
    app.report();
    if (pages) {
        out() << QStringLiteral("peak RSS: %1 MB\n").arg(memoryMb("VmHWM"), 0, 'f', 0);
        if (!pages->report())
            return failed(QStringLiteral("a step did not finish"));
    } else if (scenario == QLatin1String("backfill")) {
        if (!finishedRun)
            return failed(QStringLiteral("no run finished"));
        if (finishedRun->error)
            return failed(QStringLiteral("the run failed: ") + finishedRun->error->message);
        const rw::PartitionResult t = finishedRun->result->totals();
        out() << QStringLiteral("run: %1 days %2..%3, status %4, %5 source rows, %6 staged, %7 "
                                "inserted, %8 updated, %9 s\n")
                     .arg(days.size())
                     .arg(days.constFirst(), days.constLast(),
                          rw::enumName(finishedRun->result->status))
                     .arg(t.sourceRows)
                     .arg(t.stagedRows)
                     .arg(t.inserted)
                     .arg(t.updated)
                     .arg(finishedRun->clock.elapsed() / 1000.0, 0, 'f', 2);
        const qint64 worst = std::max(
            {meter.longest(QStringLiteral("preview")), meter.longest(QStringLiteral("run"))});
        out() << QStringLiteral(
                     "longest stall during preview and run: %1 ms (target: none over %2 ms: %3)\n")
                     .arg(worst)
                     .arg(kStallMs)
                     .arg(verdict(worst <= kStallMs));
        out() << QStringLiteral("peak RSS: %1 MB\n").arg(memoryMb("VmHWM"), 0, 'f', 0);
        if (finishedRun->result->status != rw::RunStatus::Succeeded)
            return failed(QStringLiteral("the run ended ") +
                          rw::enumName(finishedRun->result->status));
    } else {
        if (firstRowsS < 0 || loadedS < 0)
            return failed(QStringLiteral("the DLQ page did not load"));
        const rw::DlqPage *page = window.dlqPage();
        out() << QStringLiteral("dlq page: %1 records in the queue, %2 rows shown; first rows %3 s "
                                "after opening the page, "
                                "fully loaded (counts, signatures, first record) %4 s\n")
                     .arg(page->groupsModel()->total())
                     .arg(page->recordsModel()->rowCount())
                     .arg(firstRowsS, 0, 'f', 3)
                     .arg(loadedS, 0, 'f', 3);
        const double peak = memoryMb("VmHWM");
        out() << QStringLiteral("peak RSS: %1 MB at first rows, %2 MB at the end (target: open "
                                "under 1 s: %3; under 300 MB: %4)\n")
                     .arg(rssAtFirstRows, 0, 'f', 0)
                     .arg(peak, 0, 'f', 0)
                     .arg(verdict(firstRowsS < 1.0), verdict(peak < 300));
        out() << QStringLiteral("longest stall while opening: %1 ms\n")
                     .arg(meter.longest(QStringLiteral("dlq open")));
    }
    return 0;
}
