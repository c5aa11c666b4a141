#pragma once

#include "core/streams/offsets.h"

#include <QChartView>

namespace rw {

// One consumer group per partition: grouped bars of the committed offset,
// the log end and the lag.
class OffsetsChart : public QChartView {
    Q_OBJECT
public:
    explicit OffsetsChart(QWidget *parent = nullptr);

    void setOffsets(const QString &group, const std::vector<PartitionOffsets> &offsets);
    void clear() { setOffsets({}, {}); }
    int barCount() const { return m_bars; } // partitions drawn

private:
    int m_bars = 0;
};

} // namespace rw
