#include "ui/lateness/latenesschart.h"

#include "ui/common/style.h"
#include "ui/lateness/latenesssnapshot.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QValueAxis>
#include <cmath>

namespace rw {

namespace {

// A bucket edge, as short as a narrow bar allows: "0", "850ms", "45s",
// "12m", "3h", "2d" (rounded: the exact bounds are in the CLI's lag).
QString edge(qint64 ms) {
    if (ms == 0)
        return QStringLiteral("0");
    if (ms < 1000)
        return QStringLiteral("%1ms").arg(ms);
    const double s = double(ms) / 1000.0;
    if (s < 60)
        return QStringLiteral("%1s").arg(std::llround(s));
    if (s < 3600)
        return QStringLiteral("%1m").arg(std::llround(s / 60));
    if (s < 86400)
        return QStringLiteral("%1h").arg(std::llround(s / 3600));
    return QStringLiteral("%1d").arg(std::llround(s / 86400));
}

} // namespace

LatenessChart::LatenessChart(QWidget *parent)
    : QChartView(parent) {
    setObjectName(QStringLiteral("latenessChart"));
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(260);
    clear();
}

void LatenessChart::clear() {
    setReport(LatenessReport{});
}

double LatenessChart::xOf(qint64 ms) const {
    if (m_lo.isEmpty())
        return 0;
    if (ms < 0)
        return m_negative ? 0.0 : -0.5;
    const int first = m_negative ? 1 : 0;
    for (int i = first; i < m_lo.size(); ++i) {
        if (ms < m_hi[i]) {
            const double lo = std::log1p(double(m_lo[i]) / 1000.0),
                         hi = std::log1p(double(m_hi[i]) / 1000.0);
            const double v = std::log1p(double(std::max(ms, m_lo[i])) / 1000.0);
            return i - 0.5 + (hi > lo ? (v - lo) / (hi - lo) : 0.0);
        }
    }
    return m_lo.size() - 0.5;
}

QList<QPointF> LatenessChart::cumulativePoints() const {
    return m_cumulative ? m_cumulative->points() : QList<QPointF>{};
}

QStringList LatenessChart::markerNames() const {
    QStringList out;
    for (const QLineSeries *s : m_markers)
        out << s->name();
    return out;
}

void LatenessChart::setReport(const LatenessReport &report) {
    auto *chart = style::newChart();
    chart->setTitle(
        report.count > 0
            ? tr("Lateness of %1 events (ingest time \u2212 event time), log-scaled buckets")
                  .arg(QLocale().toString(report.count))
            : tr("Lateness (no events with both timestamps)"));

    m_lo.clear();
    m_hi.clear();
    m_markers.clear();
    m_negative = false;
    auto *bars = new QBarSet(tr("events"));
    bars->setColor(style::qcolor(style::Colour::Accent));
    bars->setBorderColor(style::qcolor(style::Colour::Accent).darker(115));
    QStringList labels;
    qint64 peak = 0;
    QList<qint64> counts;
    for (const LatenessBucket &b : report.histogram) {
        if (b.kind == QLatin1String("unparseable"))
            continue;
        if (b.kind == QLatin1String("negative")) {
            if (b.count == 0)
                continue;
            m_negative = true;
            m_lo << b.loMs.value_or(0);
            m_hi << 0;
            labels << tr("< 0");
        } else {
            m_lo << b.loMs.value_or(0);
            m_hi << b.hiMs.value_or(0);
            labels << edge(b.loMs.value_or(0));
        }
        counts << b.count;
        bars->append(qreal(b.count));
        peak = std::max(peak, b.count);
    }
    auto *series = new QBarSeries;
    series->append(bars);
    series->setBarWidth(0.92);
    chart->addSeries(series);
    auto *x = new QBarCategoryAxis;
    x->append(labels.isEmpty() ? QStringList{QStringLiteral(" ")} : labels);
    x->setTitleText(tr("lateness, from each bucket's lower edge"));
    QFont axisFont = x->labelsFont();
    axisFont.setPointSizeF(axisFont.pointSizeF() * 0.8);
    x->setLabelsFont(axisFont);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    auto *y = new QValueAxis;
    m_top = peak > 0 ? double(peak) * 1.08 : 1.0;
    y->setRange(0, m_top);
    y->setLabelFormat(QStringLiteral("%.0f"));
    y->applyNiceNumbers();
    m_top = y->max();
    y->setTitleText(tr("events"));
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);

    // Cumulative share, at each bucket's upper edge.
    auto *pct = new QValueAxis;
    pct->setRange(0, 100);
    pct->setLabelFormat(QStringLiteral("%.0f%%"));
    pct->setTitleText(tr("cumulative share (green line)"));
    pct->setGridLineVisible(false);
    chart->addAxis(pct, Qt::AlignRight);
    m_cumulative = new QLineSeries;
    m_cumulative->setName(tr("cumulative"));
    m_cumulative->setPen(QPen(style::qcolor(style::Colour::Ok), 2));
    if (report.count > 0 && !counts.isEmpty()) {
        qint64 running = 0;
        m_cumulative->append(-0.5, 0);
        for (int i = 0; i < counts.size(); ++i) {
            running += counts[i];
            m_cumulative->append(i + 0.5, 100.0 * double(running) / double(report.count));
        }
    }
    chart->addSeries(m_cumulative);
    m_cumulative->attachAxis(x);
    m_cumulative->attachAxis(pct);

    // Percentile markers.
    const LatenessPercentiles &p = report.percentiles;
    const struct {
        QString name;
        std::optional<qint64> ms;
        QColor color;
    } marks[] = {{QStringLiteral("p50"), p.p50, style::qcolor(style::Colour::Muted)},
                 {QStringLiteral("p90"), p.p90, style::qcolor(style::Colour::Percentile90)},
                 {QStringLiteral("p99"), p.p99, style::qcolor(style::Colour::Percentile99)},
                 {QStringLiteral("p99.9"), p.p999, style::qcolor(style::Colour::Percentile999)}};
    if (report.count > 0) {
        for (const auto &m : marks) {
            if (!m.ms)
                continue;
            auto *line = new QLineSeries;
            line->setName(QStringLiteral("%1 %2").arg(m.name, latenessText(*m.ms)));
            line->setPen(QPen(m.color, 1.6, Qt::DashLine));
            const double at = xOf(*m.ms);
            line->append(at, 0);
            line->append(at, m_top);
            chart->addSeries(line);
            line->attachAxis(x);
            line->attachAxis(y);
            m_markers << line;
        }
    }
    m_watermark = new QLineSeries;
    m_watermark->setName(tr("allowed"));
    m_watermark->setPen(QPen(style::qcolor(style::Colour::Watermark), 2.4));
    chart->addSeries(m_watermark);
    m_watermark->attachAxis(x);
    m_watermark->attachAxis(y);
    m_watermark->setVisible(false);

    // The axes name the bars and the line: the legend is for the markers.
    for (QLegendMarker *marker : chart->legend()->markers(series))
        marker->setVisible(false);
    for (QLegendMarker *marker : chart->legend()->markers(m_cumulative))
        marker->setVisible(false);

    QChart *old = this->chart();
    setChart(chart);
    delete old;
}

void LatenessChart::setAllowedLateness(std::optional<qint64> seconds) {
    if (!m_watermark)
        return;
    if (!seconds || m_lo.isEmpty()) {
        m_watermark->setVisible(false);
        return;
    }
    const double at = std::min(xOf(*seconds * 1000), m_lo.size() - 0.5);
    m_watermark->replace(QList<QPointF>{QPointF(at, 0), QPointF(at, m_top)});
    m_watermark->setName(tr("allowed %1").arg(durationLabel(*seconds)));
    m_watermark->setVisible(true);
}

} // namespace rw
