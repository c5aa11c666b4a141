#pragma once

#include "core/batch/batch.h"

#include <QChartView>

namespace rw {

// A stacked bar per partition: inserted, updated, deleted, unchanged and
// duplicates dropped, as a preview (or run) computed them. Past kMaxBars
// partitions a bar sums a run of neighbouring partitions (in the order
// given), so that a preview of 10,000 partitions draws 60 bars, not 10,000.
class DiffChart : public QChartView {
    Q_OBJECT
public:
    static constexpr int kMaxBars = 60;
    static constexpr int kMaxLabels = 12; // bars named under the axis; the others blank

    explicit DiffChart(QWidget *parent = nullptr);

    void setPartitions(const std::vector<PartitionResult> &partitions);
    void clear();
    // Bars drawn, and the partitions each sums (1: one bar per partition).
    int barCount() const { return m_bars; }
    int partitionsPerBar() const { return m_perBar; }

    // Category names and colours, in stacking order.
    static QStringList categories();

private:
    int m_bars = 0;
    int m_perBar = 1;
};

} // namespace rw
