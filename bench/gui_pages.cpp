#include "bench/gui_pages.h"

#include "ui/audit/auditpage.h"
#include "ui/batch/partitionsmodel.h"
#include "ui/batch/partitionspage.h"
#include "ui/batch/partitionsproxymodel.h"
#include "ui/batch/previewpage.h"
#include "ui/batch/runreportview.h"
#include "ui/batch/runspage.h"
#include "ui/dlq/dlqpage.h"
#include "ui/lateness/lagpage.h"
#include "ui/recovery/recoverpage.h"
#include "ui/streams/streampage.h"
#include "ui/window/mainwindow.h"

#include <QAction>
#include <QComboBox>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QTableView>

namespace guibench {

namespace {

constexpr int kPollMs = 5;
constexpr int kSettleMs = 300;   // a step's phase runs on this long after its data is shown
constexpr int kKeystrokeMs = 40; // a fast typist

} // namespace

PagesScenario::PagesScenario(rw::MainWindow &window, StallMeter &meter, QString db, QString spec,
                             QString dataset, QString launchPage, int rangeSize, bool previewAll,
                             std::function<void()> finish)
    : m_window(window)
    , m_meter(meter)
    , m_db(std::move(db))
    , m_spec(std::move(spec))
    , m_dataset(std::move(dataset))
    , m_launchPage(std::move(launchPage))
    , m_rangeSize(std::max(1, rangeSize))
    , m_previewAll(previewAll)
    , m_finish(std::move(finish)) {
    for (const QString &name : rw::MainWindow::availablePages())
        if (rw::Page *p = page(name))
            QObject::connect(p, &rw::Page::pageLoaded, this, [this, p] { ++m_loads[p]; });
}

rw::Page *PagesScenario::page(const QString &name) const {
    if (name == QLatin1String("partitions"))
        return m_window.partitionsPage();
    if (name == QLatin1String("preview"))
        return m_window.previewPage();
    if (name == QLatin1String("runs"))
        return m_window.runsPage();
    if (name == QLatin1String("audit"))
        return m_window.auditPage();
    if (name == QLatin1String("lag"))
        return m_window.lagPage();
    if (name == QLatin1String("streams"))
        return m_window.streamPage();
    if (name == QLatin1String("dlq"))
        return m_window.dlqPage();
    if (name == QLatin1String("recover"))
        return m_window.recoverPage();
    return nullptr;
}

int PagesScenario::loads(const QString &name) const {
    const auto it = m_loads.find(page(name));
    return it == m_loads.end() ? 0 : it->second;
}

bool PagesScenario::shows(const QString &name, int since) const {
    rw::Page *p = page(name);
    if (!p || loads(name) <= since || p->isLoading() || m_window.currentPage() != p)
        return false;
    if (name == QLatin1String("runs")) {
        const rw::RunsPage *runs = m_window.runsPage();
        return runs->reportView()->runId() == runs->selectedRunId() &&
               !runs->reportView()->isLoading();
    }
    if (name == QLatin1String("preview"))
        return m_window.previewPage()->result().has_value();
    return true;
}

void PagesScenario::start() {
    if (!m_launchPage.isEmpty()) {
        // A launch straight onto one page, timed from the process start.
        Step launch{QStringLiteral("launch: ") + m_launchPage, {}, {}};
        launch.act = [this] {
            rw::MainWindow::Selection selection;
            selection.kind = rw::Navigator::Kind::Dataset;
            selection.name = m_dataset;
            selection.page = m_launchPage;
            m_window.openWorkspace(m_db, m_spec, selection);
        };
        launch.done = [this] { return shows(m_launchPage, 0); };
        m_steps.push_back(std::move(launch));
    } else {
        addWalk();
    }
    runStep(0);
}

void PagesScenario::addWalk() {
    rw::PartitionsPage *partitions = m_window.partitionsPage();
    Step launch{QStringLiteral("launch: partitions"), {}, {}};
    launch.act = [this] {
        rw::MainWindow::Selection selection;
        selection.kind = rw::Navigator::Kind::Dataset;
        selection.name = m_dataset;
        selection.page = QStringLiteral("partitions");
        m_window.openWorkspace(m_db, m_spec, selection);
    };
    launch.done = [this, partitions] {
        if (!shows(QStringLiteral("partitions"), 0))
            return false;
        // The filter: the oldest partitions, m_rangeSize of them, as a range.
        const auto &rows = partitions->model()->snapshot();
        std::vector<QString> labels;
        for (const rw::PartitionInfo &p : rows)
            if (p.partition)
                labels.push_back(*p.partition);
        std::sort(labels.begin(), labels.end());
        if (!labels.empty())
            m_filter = labels.front() % QStringLiteral("..") %
                       labels[std::min<std::size_t>(labels.size(), std::size_t(m_rangeSize)) - 1];
        m_steps[0].note = QStringLiteral("%1 partitions").arg(rows.size());
        return true;
    };
    m_steps.push_back(std::move(launch));

    // Typed a key at a time: every keystroke filters the 10,000 rows again.
    auto typed = std::make_shared<int>(0);
    Step filter{QStringLiteral("partitions: type a range"), {}, {}};
    filter.act = [this, partitions, typed] {
        auto *timer = new QTimer(this);
        QObject::connect(timer, &QTimer::timeout, this, [this, partitions, typed, timer] {
            if (*typed >= m_filter.size())
                return timer->deleteLater();
            partitions->filterEdit()->setText(m_filter.left(++*typed));
        });
        timer->start(kKeystrokeMs);
    };
    filter.done = [this, partitions, typed] {
        if (m_filter.isEmpty() || *typed < m_filter.size())
            return m_filter.isEmpty();
        m_steps[1].note = QStringLiteral("\"%1\": %2 rows shown")
                              .arg(m_filter)
                              .arg(partitions->proxy()->rowCount());
        return true;
    };
    m_steps.push_back(std::move(filter));

    const auto selectAll = [this, partitions](const QString &name) {
        Step select{name, [partitions] { partitions->view()->selectAll(); }, {}};
        const std::size_t index = m_steps.size();
        select.done = [this, partitions, index] {
            m_steps[index].note = partitions->selectionText();
            return partitions->hasSelection();
        };
        m_steps.push_back(std::move(select));
    };
    selectAll(QStringLiteral("partitions: select the range"));
    addPreview(QStringLiteral("partitions: preview the range"));
    addSwitch(QStringLiteral("partitions"), QStringLiteral("back to partitions"));
    m_steps.push_back({QStringLiteral("partitions: needs attention"),
                       [partitions] { partitions->statusFilter()->setCurrentIndex(1); },
                       [] { return true; }});
    m_steps.push_back({QStringLiteral("partitions: clear filters"),
                       [partitions] {
                           partitions->statusFilter()->setCurrentIndex(0);
                           partitions->filterEdit()->clear();
                       },
                       [] { return true; }});
    selectAll(QStringLiteral("partitions: select all"));
    if (m_previewAll)
        addPreview(QStringLiteral("partitions: preview all"));

    for (const QString &name :
         {QStringLiteral("runs"), QStringLiteral("audit"), QStringLiteral("lag"),
          QStringLiteral("dlq"), QStringLiteral("recover"), QStringLiteral("streams"),
          QStringLiteral("partitions")})
        addSwitch(name);

    Step refresh{QStringLiteral("partitions: refresh"), {}, {}};
    auto before = std::make_shared<int>(0);
    refresh.act = [this, before] {
        *before = loads(QStringLiteral("partitions"));
        m_window.refresh();
    };
    refresh.done = [this, before] { return shows(QStringLiteral("partitions"), *before); };
    m_steps.push_back(std::move(refresh));
}

void PagesScenario::addPreview(const QString &name) {
    auto before = std::make_shared<int>(0);
    const std::size_t index = m_steps.size();
    Step preview{name, {}, {}};
    preview.act = [this, before] {
        *before = loads(QStringLiteral("preview"));
        m_window.partitionsPage()->previewAction()->trigger();
    };
    preview.done = [this, before, index] {
        if (!shows(QStringLiteral("preview"), *before))
            return false;
        m_steps[index].note =
            QStringLiteral("%1 partitions previewed; the core's preview runs off the GUI thread")
                .arg(m_window.previewPage()->result()->partitions.size());
        return true;
    };
    m_steps.push_back(std::move(preview));
}

void PagesScenario::addSwitch(const QString &name, const QString &stepName) {
    auto before = std::make_shared<int>(0);
    auto shown = std::make_shared<bool>(true);
    const std::size_t index = m_steps.size();
    Step step{stepName.isEmpty() ? QStringLiteral("switch: ") + name : stepName, {}, {}};
    step.act = [this, name, before, shown, index] {
        *before = loads(name);
        *shown = m_window.showNamedPage(name);
        if (!*shown)
            m_steps[index].note = QStringLiteral("not in this workspace");
    };
    step.done = [this, name, before, shown] { return !*shown || shows(name, *before); };
    m_steps.push_back(std::move(step));
}

void PagesScenario::runStep(std::size_t i) {
    if (i >= m_steps.size()) {
        m_finish();
        return;
    }
    Step &step = m_steps[i];
    m_meter.begin(step.name);
    step.startedMs = i == 0 ? 0 : m_meter.elapsedMs(); // the first from the process start
    QTimer::singleShot(0, this, [this, i] {
        m_steps[i].act();
        auto *poll = new QTimer(this);
        QObject::connect(poll, &QTimer::timeout, this, [this, i, poll] {
            if (!m_steps[i].done())
                return;
            poll->deleteLater();
            m_steps[i].doneMs = m_meter.elapsedMs();
            // As it goes, so that a step that never ends leaves the others.
            out() << QStringLiteral("step done: %1 %2 s%3\n")
                         .arg(m_steps[i].name)
                         .arg((m_steps[i].doneMs - m_steps[i].startedMs) / 1000.0, 0, 'f', 2)
                         .arg(m_steps[i].note.isEmpty()
                                  ? QString()
                                  : QStringLiteral("  (") + m_steps[i].note + u')');
            out().flush();
            QTimer::singleShot(kSettleMs, this, [this, i] { runStep(i + 1); });
        });
        poll->start(kPollMs);
    });
}

bool PagesScenario::report() const {
    out() << QStringLiteral("per step: time to data (the first from the process start), longest "
                            "gap between 10 ms ticks "
                            "(its phase runs %1 ms past the data), gaps over %2 ms:\n")
                 .arg(kSettleMs)
                 .arg(kStallMs);
    bool complete = true;
    qint64 worst = 0;
    for (const Step &s : m_steps) {
        const StallMeter::Phase *p = m_meter.phase(s.name);
        const bool finished = s.doneMs >= 0;
        complete = complete && finished;
        const qint64 longest = p ? p->longestMs : 0;
        worst = std::max(worst, longest);
        out() << QStringLiteral("  %1 %2  longest stall %3 ms  over %4 ms: %5%6\n")
                     .arg(s.name, -30)
                     .arg(finished ? QStringLiteral("%1 s").arg((s.doneMs - s.startedMs) / 1000.0,
                                                                6, 'f', 2)
                                   : QStringLiteral("NOT DONE"),
                          9)
                     .arg(longest, 4)
                     .arg(kStallMs)
                     .arg(p ? p->over50 : 0)
                     .arg(s.note.isEmpty() ? QString() : QStringLiteral("  (") + s.note + u')');
    }
    out() << QStringLiteral("longest stall over all steps: %1 ms (target: none over %2 ms: %3)\n")
                 .arg(worst)
                 .arg(kStallMs)
                 .arg(verdict(worst <= kStallMs));
    return complete;
}

} // namespace guibench
