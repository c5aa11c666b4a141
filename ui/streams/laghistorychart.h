#pragma once

#include "core/streams/lag.h"

#include <QChartView>

namespace rw {

// A consumer group's total lag over time, from its lag samples
// (rw::lagHistory): a line over a time axis.
class LagHistoryChart : public QChartView {
    Q_OBJECT
public:
    explicit LagHistoryChart(QWidget *parent = nullptr);

    void setHistory(const QString &group, const std::vector<LagPoint> &points);
    void clear() { setHistory({}, {}); }
    int pointCount() const { return m_points; }

private:
    int m_points = 0;
};

} // namespace rw
