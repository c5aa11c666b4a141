#pragma once

// The console on a workspace of many partitions (issue 29): time from launch
// (or from a page switch, a filter, a selection) to the data shown, and the
// longest stall of the GUI thread meanwhile, page by page. Driven by
// gui_stall --scenario pages / --scenario launch.
#include "bench/guibench.h"

#include <QObject>
#include <QString>
#include <functional>
#include <map>
#include <vector>

namespace rw {
class MainWindow;
class Page;
} // namespace rw

namespace guibench {

class PagesScenario : public QObject {
public:
    // `launchPage` empty: the whole walk (launch on the partitions page,
    // type a range of the oldest `rangeSize` partitions into the filter,
    // select it, preview it, back to the partitions, status filter, select
    // all, with `previewAll` preview them all, then every other page and a
    // refresh of the partitions); else a launch straight onto that page
    // only. `finish` is called when the last step has settled.
    PagesScenario(rw::MainWindow &window, StallMeter &meter, QString db, QString spec,
                  QString dataset, QString launchPage, int rangeSize, bool previewAll,
                  std::function<void()> finish);

    void start();
    // Prints one line per step: time to data, longest stall, gaps over 50 ms.
    // False when a step did not finish.
    bool report() const;

private:
    struct Step {
        QString name;
        std::function<void()> act;
        std::function<bool()> done;
        qint64 startedMs = -1;
        qint64 doneMs = -1;
        QString note = {};
    };

    void addWalk();
    void addSwitch(const QString &page, const QString &stepName = QString());
    void addPreview(const QString &name);
    void runStep(std::size_t i);
    rw::Page *page(const QString &name) const;
    // The page's data is shown: a load finished since `since` loads, and
    // (runs) the selected run's report is built.
    bool shows(const QString &name, int since) const;
    int loads(const QString &name) const;

    rw::MainWindow &m_window;
    StallMeter &m_meter;
    QString m_db, m_spec, m_dataset, m_launchPage;
    int m_rangeSize;
    bool m_previewAll;
    std::function<void()> m_finish;
    std::vector<Step> m_steps;
    std::map<rw::Page *, int> m_loads;
    QString m_filter;
};

} // namespace guibench
