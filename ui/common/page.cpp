#include "ui/common/page.h"

#include <QHeaderView>
#include <QTableView>

namespace rw {

void measureFirstRowsOnly(QTableView *view) {
    constexpr int kMeasuredRows = 50;
    view->horizontalHeader()->setResizeContentsPrecision(kMeasuredRows);
}

quint64 Page::beginLoad(const QString &what) {
    const quint64 id = m_loads.begin();
    setLoading(true, what);
    return id;
}

bool Page::finishLoad(quint64 id) {
    if (!m_loads.isCurrent(id))
        return false; // superseded: a newer request is in flight or done
    setLoading(false, QString());
    return true;
}

void Page::cancelLoad() {
    m_loads.cancel();
    if (m_loading)
        setLoading(false, QString());
}

void Page::setLoading(bool loading, const QString &what) {
    m_loading = loading;
    Q_EMIT loadingChanged(loading, what);
}

} // namespace rw
