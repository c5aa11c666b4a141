#pragma once

#include "ui/common/jobtracker.h"

#include <QWidget>

class QTableView;

namespace rw {

// Makes `view` fit its columns to the contents (resizeColumnsToContents) of
// its first rows only: measuring every cell of a few hundred rows held the
// GUI thread for tens of milliseconds each time.
void measureFirstRowsOnly(QTableView *view);

// A page of the console's right-hand stack. Pages load their data off the
// GUI thread through their load tracker: a new load supersedes the one in
// flight, and only the answer to the latest is shown.
class Page : public QWidget {
    Q_OBJECT
public:
    explicit Page(QWidget *parent = nullptr)
        : QWidget(parent)
        , m_loads(this)
        , m_tasks(this, JobTracker::Policy::Concurrent) {}

    // Reloads the current subject; does nothing when there is none.
    virtual void refresh() = 0;
    // Forgets the subject and its data (workspace closed).
    virtual void clear() = 0;
    virtual QString title() const = 0;
    // One line for the status bar once loaded.
    virtual QString statusText() const { return title(); }

    bool isLoading() const { return m_loading; }

Q_SIGNALS:
    // The latest request's data is shown.
    void pageLoaded();
    // The latest request failed; the message is for the operator.
    void loadFailed(const QString &message);
    void loadingChanged(bool loading, const QString &what);

protected:
    // Loads in the background (see JobTracker::start): enters the loading
    // state showing `what`; `done` runs on the GUI thread, loading ended,
    // only for the latest load. Returns the load's id.
    template <typename Work, typename Done>
    quint64 startLoad(const QString &what, Work work, Done done) {
        setLoading(true, what);
        return m_loads.start(std::move(work), [this, done = std::move(done)](auto result) mutable {
            setLoading(false, QString());
            done(std::move(result));
        });
    }
    // A load made of several parts (the DLQ page): supersedes the load in
    // flight and returns the new load's id; finishLoad ends it.
    quint64 beginLoad(const QString &what);
    // True when `id` is the latest load; ends the loading state if so.
    bool finishLoad(quint64 id);
    // Drops whatever load is in flight.
    void cancelLoad();
    // True while `id` is the latest load and not finished.
    bool isCurrentLoad(quint64 id) const { return m_loads.isCurrent(id); }
    // One-off jobs that do not supersede each other (an action's dry run, a
    // write): each delivers, unless the page is gone.
    JobTracker &tasks() { return m_tasks; }

private:
    void setLoading(bool loading, const QString &what);

    JobTracker m_loads;
    JobTracker m_tasks;
    bool m_loading = false;
};

} // namespace rw
