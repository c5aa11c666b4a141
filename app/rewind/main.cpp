// rewind: the desktop console. Parses the command line, opens the window
// and, for --screenshot, saves the window once its data has loaded.
#include "core/util/allocator.h"
#include "core/util/cpustate.h"
#include "ui/common/page.h"
#include "ui/common/settings.h"
#include "ui/common/style.h"
#include "ui/window/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QPixmap>
#include <QTextStream>
#include <QThreadPool>
#include <QTimer>
#include <memory>
#include <string_view>

namespace {

constexpr int kScreenshotTimeoutMs = 120000;

int usageError(const QString &message) {
    QTextStream(stderr) << "rewind: " << message << '\n';
    return 2;
}

// Whether the command line asks only for the help or the version: answered
// without a display (QApplication would need one to start).
bool answersWithoutDisplay(int argc, char *argv[]) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "-h" || a == "-?" || a == "--help" || a == "--help-all" || a == "-v" ||
            a == "--version")
            return true;
    }
    return false;
}

} // namespace

int main(int argc, char *argv[]) {
    rw::avoidDirtyUpperRegisters(); // before any QHash: see cpustate.h
    rw::limitAllocatorArenas();     // before any thread: see allocator.h
    const bool headless = answersWithoutDisplay(argc, argv);
    const std::unique_ptr<QCoreApplication> app =
        headless ? std::make_unique<QCoreApplication>(argc, argv)
                 : std::make_unique<QApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("rewind"));
    QCoreApplication::setOrganizationName(QStringLiteral("Rewind"));
    QCoreApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    if (!headless) {
        // resources/rewind.qrc; the desktop entry names the same icon for the shell.
        QApplication::setDesktopFileName(QStringLiteral("rewind"));
        QIcon icon;
        for (const int size : {16, 32, 48, 64, 128, 256})
            icon.addFile(QStringLiteral(":/icons/rewind-%1.png").arg(size), QSize(size, size));
        QApplication::setWindowIcon(icon);
    }

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Rewind: operator console for reprocessing data pipelines."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption dbOption(
        QStringLiteral("db"),
        QStringLiteral(
            "Database: a SQLite path, sqlite:PATH, or "
            "postgresql://user@host[:port]/dbname[?sslmode=...], or service=NAME (passwords: "
            "~/.pgpass, PGPASSWORD; docs/security.md)."),
        QStringLiteral("DB"));
    const QCommandLineOption specOption(
        QStringLiteral("spec"), QStringLiteral("Pipeline spec (JSON)."), QStringLiteral("SPEC"));
    const QCommandLineOption pageOption(
        QStringLiteral("page"),
        QStringLiteral("Open on a page: %1.").arg(rw::MainWindow::plannedPages().join(u", ")),
        QStringLiteral("NAME"));
    const QCommandLineOption datasetOption(
        QStringLiteral("dataset"), QStringLiteral("Select this dataset."), QStringLiteral("D"));
    const QCommandLineOption streamOption(
        QStringLiteral("stream"), QStringLiteral("Select this stream."), QStringLiteral("S"));
    const QCommandLineOption partitionOption(
        QStringLiteral("partition"),
        QStringLiteral("With --page preview: preview this partition (repeatable); without it, the "
                       "preview covers the "
                       "dataset's partition that most needs attention (failed, then stale, then "
                       "duplicate keys). "
                       "With --page partitions: select it."),
        QStringLiteral("P"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral("Render the window with its data loaded, save it as PNG and exit."),
        QStringLiteral("FILE.png"));
    const QCommandLineOption paletteOption(
        QStringLiteral("palette"),
        QStringLiteral("light or dark: the Fusion style with the console's own palette "
                       "(default: the desktop's style and palette)."),
        QStringLiteral("light|dark"));
    parser.addOptions({dbOption, specOption, pageOption, datasetOption, streamOption,
                       partitionOption, screenshotOption, paletteOption});
    if (!parser.parse(QCoreApplication::arguments()))
        return usageError(parser.errorText());
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(0);
    if (parser.isSet(QStringLiteral("version")))
        parser.showVersion();
    if (!parser.positionalArguments().isEmpty())
        return usageError(QStringLiteral("unexpected argument %1")
                              .arg(parser.positionalArguments().constFirst()));
    if (parser.isSet(paletteOption)) {
        const QString palette = parser.value(paletteOption);
        if (palette != QLatin1String("light") && palette != QLatin1String("dark"))
            return usageError(QStringLiteral("--palette %1: say light or dark").arg(palette));
        rw::style::usePalette(palette == QLatin1String("dark"));
    }

    // Which page, and which dataset or stream on it.
    using Kind = rw::Navigator::Kind;
    rw::MainWindow::Selection selection;
    const QString page = parser.value(pageOption);
    const QString dataset = parser.value(datasetOption);
    const QString stream = parser.value(streamOption);
    if (!page.isEmpty() && !rw::MainWindow::availablePages().contains(page)) {
        const QString available = rw::MainWindow::availablePages().join(u", ");
        if (rw::MainWindow::plannedPages().contains(page))
            return usageError(
                QStringLiteral("--page %1: this page is not built yet; available pages: %2")
                    .arg(page, available));
        return usageError(
            QStringLiteral("--page %1: unknown page; available pages: %2").arg(page, available));
    }
    if (page == QLatin1String("streams") ||
        (page.isEmpty() && !stream.isEmpty() && dataset.isEmpty())) {
        selection = {Kind::Stream, stream};
        if (stream.isEmpty())
            selection.kind = Kind::None; // first stream, chosen below once the spec is known
    } else if (page.isEmpty() && !stream.isEmpty() && !dataset.isEmpty()) {
        return usageError(QStringLiteral(
            "both --dataset and --stream given: add --page partitions or --page streams"));
    } else if (!dataset.isEmpty()) {
        selection = {Kind::Dataset, dataset};
    }
    const bool wantStreamPage = page == QLatin1String("streams") || selection.kind == Kind::Stream;
    selection.page = page;
    selection.partitions = parser.values(partitionOption);
    if (!selection.partitions.isEmpty() && page != QLatin1String("preview") &&
        page != QLatin1String("partitions"))
        return usageError(QStringLiteral("--partition is for --page preview or --page partitions"));

    // Which workspace.
    QString db = parser.value(dbOption);
    QString spec = parser.value(specOption);
    if (db.isEmpty() != spec.isEmpty())
        return usageError(db.isEmpty() ? QStringLiteral("--spec given without --db")
                                       : QStringLiteral("--db given without --spec"));
    if (db.isEmpty()) {
        const auto recents = rw::Settings().recentWorkspaces();
        if (!recents.empty()) {
            db = recents.front().db;
            spec = recents.front().spec;
        }
    }
    const QString screenshot = parser.value(screenshotOption);
    if (!screenshot.isEmpty() && selection.page.isEmpty() && !wantStreamPage)
        selection.page = QStringLiteral("partitions"); // not the page the last session ended on
    if (!screenshot.isEmpty() && db.isEmpty())
        return usageError(QStringLiteral("--screenshot needs a workspace: give --db and --spec"));

    rw::MainWindow window;
    if (screenshot.isEmpty()) {
        window.restoreLayout();
    } else {
        window.resize(1400, 860);
        window.setPasswordPrompts(false); // nobody to answer: the open fails saying why
        const auto finish = [&window](int code, const QString &message) {
            if (!message.isEmpty())
                QTextStream(stderr) << "rewind: " << message << '\n';
            window.hide();
            QApplication::exit(code);
        };
        QObject::connect(&window, &rw::MainWindow::workspaceFailed, &window,
                         [finish](int code, const QString &message) { finish(code, message); });
        // A page that cannot load is shot too (its banner says why), and exits 1.
        QObject::connect(&window, &rw::MainWindow::pageFailed, &window,
                         [&window, screenshot, finish](const QString &message) {
                             QTimer::singleShot(100, &window,
                                                [&window, screenshot, finish, message] {
                                                    window.grab().save(screenshot, "PNG");
                                                    finish(1, message);
                                                });
                         });
        // A dataset or stream the spec has but that cannot be used: shot with
        // the banner saying why, exit 2 as rewindctl refuses it.
        static bool unusable = false; // the shot is the broken one's page: not "nothing to show"
        QObject::connect(&window, &rw::MainWindow::selectionBroken, &window,
                         [&window, screenshot, finish](const QString &message) {
                             unusable = true;
                             QTimer::singleShot(100, &window,
                                                [&window, screenshot, finish, message] {
                                                    window.grab().save(screenshot, "PNG");
                                                    finish(2, message);
                                                });
                         });
        QObject::connect(
            &window, &rw::MainWindow::workspaceOpened, &window,
            [&window, selection, wantStreamPage, finish] {
                const rw::Spec &s = window.workspace()->spec;
                if (selection.kind == Kind::Dataset && !s.dataset(selection.name))
                    return finish(2, s.requireDataset(selection.name).error().message);
                if (selection.kind == Kind::Stream && !s.stream(selection.name))
                    return finish(2, s.requireStream(selection.name).error().message);
                if (wantStreamPage && selection.kind == Kind::None) {
                    if (s.streams.empty())
                        return finish(
                            2, QStringLiteral("--page streams: the spec defines no streams"));
                    window.selectStream(s.streams.front().name);
                }
                if (!window.currentPage() && !unusable)
                    return finish(2, QStringLiteral("the spec defines nothing to show"));
            });
        QObject::connect(
            &window, &rw::MainWindow::pageLoaded, &window, [&window, screenshot, finish] {
                // Let the views lay out and paint the new rows first.
                QTimer::singleShot(100, &window, [&window, screenshot, finish] {
                    const QPixmap shot = window.grab();
                    if (!shot.save(screenshot, "PNG"))
                        return finish(1, QStringLiteral("cannot write %1").arg(screenshot));
                    QTextStream(stdout) << screenshot << '\n';
                    finish(0, QString());
                });
            });
        QTimer::singleShot(kScreenshotTimeoutMs, &window, [finish] {
            finish(1, QStringLiteral("timed out waiting for the data to load"));
        });
    }
    window.show();
    if (!db.isEmpty())
        window.openWorkspace(db, spec, selection);
    const int code = QApplication::exec();
    // Background loads may still be running (e.g. after an early exit): let
    // them finish before their database connections are torn down.
    rw::JobTracker::waitForAll();
    return code;
}
