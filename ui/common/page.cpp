#include "ui/common/page.h"

#include <QHeaderView>
#include <QTableView>

namespace rw {

void measureFirstRowsOnly(QTableView *view)
{
    constexpr int kMeasuredRows = 50;
    view->horizontalHeader()->setResizeContentsPrecision(kMeasuredRows);
}

quint64 Page::beginLoad(const QString &what)
{
    ++m_generation;
    m_loading = true;
    Q_EMIT loadingChanged(true, what);
    return m_generation;
}

bool Page::finishLoad(quint64 generation)
{
    if (generation != m_generation)
        return false; // superseded: a newer request is in flight or done
    m_loading = false;
    Q_EMIT loadingChanged(false, QString());
    return true;
}

void Page::cancelLoad()
{
    ++m_generation;
    if (m_loading) {
        m_loading = false;
        Q_EMIT loadingChanged(false, QString());
    }
}

} // namespace rw
