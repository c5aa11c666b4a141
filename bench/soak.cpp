// soak: the console left running (issue 45). Opens the real console window
// (MainWindow; offscreen unless QT_QPA_PLATFORM says otherwise) on a
// workspace and, for --minutes, alternates every --refresh-ms between a
// stream's page (its consumer groups, offsets and lag, read from the cluster
// and sampled) and a dataset's partitions page, refreshing each, as an
// operator who leaves the console on a wall screen would. Every --sample-s
// it prints the process's resident memory, open file descriptors, the Qt SQL
// connections it holds and the database sessions the server (PostgreSQL) or
// the file (SQLite: descriptors on it) counts. At the end it compares the
// last quarter of the samples with the first quarter after the warm-up (the
// first fifth of the run): memory by its median, counts by their highest;
// each must stay within 10%.
//
//   soak --db DB --spec SPEC --dataset D --stream S [--minutes 60]
//        [--refresh-ms 2000] [--sample-s 30]
//
// Exit 0 when every measure stayed flat, 3 when one grew more than 10%,
// 1 when the run could not be made, 2 for bad usage. Built by
// `cmake --build build --target soak`; bench/soak makes the workspace.
#include "core/sql/database.h"
#include "core/util/allocator.h"
#include "ui/common/jobtracker.h"
#include "ui/common/page.h"
#include "ui/window/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QStringBuilder>
#include <QTextStream>
#include <QTimer>
#include <algorithm>
#include <optional>
#include <vector>

namespace {

QTextStream &out() {
    static QTextStream s(stdout);
    return s;
}

double memoryMb(const char *field) {
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith(field))
            return line.mid(qsizetype(qstrlen(field)) + 1).trimmed().split(' ').front().toDouble() /
                   1024.0;
    return -1;
}

// Descriptors open, and how many of them are on `file` (or its -wal/-shm).
std::pair<int, int> descriptors(const QString &file) {
    const QString target = file.isEmpty() ? QString() : QFileInfo(file).absoluteFilePath();
    int all = 0, onFile = 0;
    const QDir fds(QStringLiteral("/proc/self/fd"));
    for (const QString &fd :
         fds.entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System)) {
        ++all;
        const QString link = QFile::symLinkTarget(fds.filePath(fd));
        if (!target.isEmpty() && link.startsWith(target))
            ++onFile;
    }
    return {all, onFile};
}

struct Sample {
    qint64 atS;
    double rssMb;
    int fds;
    int qtConnections;
    int sessions; // server sessions (PostgreSQL) or descriptors on the file (SQLite)
};

} // namespace

int main(int argc, char **argv) {
    rw::limitAllocatorArenas(); // as the console's main() does
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Rewind"));
    QApplication::setApplicationName(QStringLiteral("rewind-soak"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("The console left running: memory, file "
                                                    "descriptors and connections over time."));
    parser.addHelpOption();
    const QCommandLineOption dbOption(QStringLiteral("db"), QStringLiteral("Database."),
                                      QStringLiteral("DB"));
    const QCommandLineOption specOption(QStringLiteral("spec"), QStringLiteral("Spec."),
                                        QStringLiteral("SPEC"));
    const QCommandLineOption datasetOption(QStringLiteral("dataset"),
                                           QStringLiteral("The dataset whose partitions page."),
                                           QStringLiteral("D"));
    const QCommandLineOption streamOption(
        QStringLiteral("stream"), QStringLiteral("The stream whose page."), QStringLiteral("S"));
    const QCommandLineOption minutesOption(QStringLiteral("minutes"),
                                           QStringLiteral("How long (default 60)."),
                                           QStringLiteral("M"), QStringLiteral("60"));
    const QCommandLineOption refreshOption(
        QStringLiteral("refresh-ms"), QStringLiteral("Switch and refresh every (default 2000)."),
        QStringLiteral("MS"), QStringLiteral("2000"));
    const QCommandLineOption sampleOption(QStringLiteral("sample-s"),
                                          QStringLiteral("Sample every (default 30)."),
                                          QStringLiteral("S"), QStringLiteral("30"));
    parser.addOptions({dbOption, specOption, datasetOption, streamOption, minutesOption,
                       refreshOption, sampleOption});
    parser.process(app);
    const QString db = parser.value(dbOption), spec = parser.value(specOption);
    const QString dataset = parser.value(datasetOption), stream = parser.value(streamOption);
    const double minutes = parser.value(minutesOption).toDouble();
    const int refreshMs = parser.value(refreshOption).toInt();
    const int sampleS = parser.value(sampleOption).toInt();
    if (db.isEmpty() || spec.isEmpty() || dataset.isEmpty() || stream.isEmpty() || minutes <= 0 ||
        refreshMs <= 0 || sampleS <= 0) {
        QTextStream(stderr) << "soak: give --db, --spec, --dataset, --stream and positive "
                               "--minutes, --refresh-ms, --sample-s\n";
        return 2;
    }
    auto url = rw::DatabaseUrl::parse(db);
    if (!url) {
        QTextStream(stderr) << "soak: " << url.error().message << '\n';
        return 2;
    }
    // The server's count of this database's sessions, on a connection of
    // the harness's own (not counted).
    std::optional<rw::Database> probe;
    if (url->kind == rw::SqlDialect::Kind::Postgres) {
        auto opened = rw::Database::open(db);
        if (!opened) {
            QTextStream(stderr) << "soak: " << opened.error().message << '\n';
            return 1;
        }
        probe = std::move(*opened);
    }

    rw::MainWindow window;
    window.resize(1400, 860);
    window.show();
    std::vector<Sample> samples;
    QElapsedTimer clock;
    int switches = 0, failures = 0;
    QString lastFailure;
    const auto sample = [&] {
        const auto [fds, onFile] = descriptors(url->path);
        int sessions = onFile;
        if (probe)
            if (auto n = probe->scalar(QStringLiteral("SELECT COUNT(*) - 1 FROM pg_stat_activity "
                                                      "WHERE datname = current_database()")))
                sessions = n->toInt();
        samples.push_back({clock.elapsed() / 1000, memoryMb("VmRSS"), fds,
                           int(QSqlDatabase::connectionNames().size()), sessions});
        const Sample &s = samples.back();
        out() << QStringLiteral("t=%1s rss=%2MB fds=%3 qt_connections=%4 %5=%6 switches=%7 "
                                "failures=%8\n")
                     .arg(s.atS)
                     .arg(s.rssMb, 0, 'f', 1)
                     .arg(s.fds)
                     .arg(s.qtConnections)
                     .arg(probe ? QStringLiteral("server_sessions") : QStringLiteral("file_fds"))
                     .arg(s.sessions)
                     .arg(switches)
                     .arg(failures);
        out().flush();
    };
    QTimer switcher, sampler;
    QObject::connect(&window, &rw::MainWindow::pageFailed, &window, [&](const QString &message) {
        ++failures;
        lastFailure = message;
    });
    QObject::connect(&switcher, &QTimer::timeout, &window, [&] {
        if (window.isOpening() || (window.currentPage() && window.currentPage()->isLoading()))
            return; // the last load is still running: never pile them up
        const bool ok =
            switches % 2 == 0 ? window.selectStream(stream) : window.selectDataset(dataset);
        if (!ok) {
            ++failures;
            lastFailure =
                QStringLiteral("cannot select %1").arg(switches % 2 == 0 ? stream : dataset);
        }
        window.refresh();
        ++switches;
    });
    QObject::connect(&sampler, &QTimer::timeout, &window, sample);
    QObject::connect(
        &window, &rw::MainWindow::workspaceFailed, &window, [](int, const QString &message) {
            QTextStream(stderr) << "soak: cannot open the workspace: " << message << '\n';
            QApplication::exit(1);
        });
    QObject::connect(&window, &rw::MainWindow::workspaceOpened, &window, [&] {
        clock.start();
        sample();
        switcher.start(refreshMs);
        sampler.start(sampleS * 1000);
        QTimer::singleShot(qint64(minutes * 60000), &window, [&] {
            switcher.stop();
            sampler.stop();
            sample();
            QApplication::exit(0);
        });
    });
    window.openWorkspace(db, spec);
    const int ran = app.exec();
    if (ran != 0)
        return ran;
    rw::JobTracker::waitForAll();

    // Flat after the warm-up (the first fifth): the last quarter of the
    // samples against the first quarter after the warm-up. Memory by its
    // median (the allocator breathes); counts by their lowest (a worker's
    // connection comes and goes, and a sample that lands on one says
    // nothing; a leak raises the floor).
    const std::size_t warm = std::max<std::size_t>(2, samples.size() / 5);
    const std::size_t span = std::max<std::size_t>(2, (samples.size() - warm) / 4);
    if (samples.size() < warm + 2 * span) {
        QTextStream(stderr) << "soak: too few samples for a verdict (run longer, or sample more "
                               "often)\n";
        return 1;
    }
    const auto over = [&](std::size_t from, auto field, bool median) {
        std::vector<double> v;
        for (std::size_t i = from; i < from + span; ++i)
            v.push_back(double(field(samples[i])));
        std::sort(v.begin(), v.end());
        return median ? v[v.size() / 2] : v.front();
    };
    const std::size_t first = warm, lastFrom = samples.size() - span;
    const Sample &base = samples[first];
    bool flat = true;
    const auto judge = [&](const char *what, auto field, bool median) {
        const double from = over(first, field, median), to = over(lastFrom, field, median);
        const double growth = from > 0 ? (to - from) / from * 100.0 : (to > from ? 100.0 : 0.0);
        const bool ok = growth <= 10.0;
        flat = flat && ok;
        out() << QStringLiteral(
                     "%1 (%2 of %3 samples): %4 from t=%5s, %6 over the last: %7%8% %9\n")
                     .arg(QLatin1String(what),
                          median ? QStringLiteral("median") : QStringLiteral("lowest"))
                     .arg(span)
                     .arg(from, 0, 'f', 1)
                     .arg(base.atS)
                     .arg(to, 0, 'f', 1)
                     .arg(growth >= 0 ? QStringLiteral("+") : QString())
                     .arg(growth, 0, 'f', 1)
                     .arg(ok ? QStringLiteral("flat") : QStringLiteral("GREW"));
    };
    judge(
        "resident memory MB", [](const Sample &x) { return x.rssMb; }, true);
    judge(
        "open file descriptors", [](const Sample &x) { return x.fds; }, false);
    judge(
        "Qt SQL connections", [](const Sample &x) { return x.qtConnections; }, false);
    judge(
        probe ? "server sessions" : "descriptors on the database file",
        [](const Sample &x) { return x.sessions; }, false);
    out() << QStringLiteral("%1 page switches and refreshes, %2 failed%3\n")
                 .arg(switches)
                 .arg(failures)
                 .arg(lastFailure.isEmpty() ? QString()
                                            : QStringLiteral(" (last: ") % lastFailure % u')');
    return flat ? 0 : 3;
}
