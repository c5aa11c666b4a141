#pragma once

#include "core/lateness/lateness.h"

#include <QChartView>

class QLineSeries;
class QValueAxis;

namespace rw {

// The lateness histogram: one bar per log-scaled bucket (and one for
// negative lateness when there is any), the cumulative share of events as a
// line on a 0-100 % axis, vertical markers at p50, p90, p99 and p99.9, and
// one for the watermark slider's allowed lateness, moved without rebuilding.
class LatenessChart : public QChartView {
    Q_OBJECT
public:
    explicit LatenessChart(QWidget *parent = nullptr);

    void setReport(const LatenessReport &report);
    void clear();
    // Moves the allowed-lateness marker; nullopt hides it.
    void setAllowedLateness(std::optional<qint64> seconds);

    // For tests: bars drawn, the x position of a lateness on the category
    // axis (bucket i spans [i - 0.5, i + 0.5)), the cumulative line's points.
    int barCount() const { return m_lo.size(); }
    double xOf(qint64 ms) const;
    QList<QPointF> cumulativePoints() const;
    QStringList markerNames() const;

private:
    QList<qint64> m_lo, m_hi; // bucket bounds in ms (negative bucket: lo = min, hi = 0)
    bool m_negative = false;
    double m_top = 1;
    QLineSeries *m_cumulative = nullptr;
    QLineSeries *m_watermark = nullptr;
    QList<QLineSeries *> m_markers;
};

} // namespace rw
