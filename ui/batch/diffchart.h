#pragma once

#include "core/batch/batch.h"

#include <QChartView>

namespace rw {

// A stacked bar per partition: inserted, updated, deleted, unchanged and
// duplicates dropped, as a preview (or run) computed them.
class DiffChart : public QChartView {
    Q_OBJECT
public:
    explicit DiffChart(QWidget *parent = nullptr);

    void setPartitions(const std::vector<PartitionResult> &partitions);
    void clear();
    // Bars drawn (one per partition); for tests.
    int barCount() const { return m_bars; }

    // Category names and colours, in stacking order.
    static QStringList categories();

private:
    int m_bars = 0;
};

} // namespace rw
