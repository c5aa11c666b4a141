#pragma once

#include <QWidget>

class QTableView;

namespace rw {

// Makes `view` fit its columns to the contents (resizeColumnsToContents) of
// its first rows only: measuring every cell of a few hundred rows held the
// GUI thread for tens of milliseconds each time.
void measureFirstRowsOnly(QTableView *view);

// A page of the console's right-hand stack. Pages load their data off the
// GUI thread; each request carries a generation and only the answer to the
// latest request is shown.
class Page : public QWidget {
    Q_OBJECT
public:
    explicit Page(QWidget *parent = nullptr) : QWidget(parent) {}

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
    // Starts a request: returns its generation.
    quint64 beginLoad(const QString &what);
    // True when `generation` is the latest request; ends the loading state if so.
    bool finishLoad(quint64 generation);
    // Drops whatever is in flight.
    void cancelLoad();
    // The latest request's generation.
    quint64 currentGeneration() const { return m_generation; }

private:
    quint64 m_generation = 0;
    bool m_loading = false;
};

} // namespace rw
