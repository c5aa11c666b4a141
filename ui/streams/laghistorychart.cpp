#include "ui/streams/laghistorychart.h"

#include "ui/common/style.h"

#include <QChart>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QLegend>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>

namespace rw {

LagHistoryChart::LagHistoryChart(QWidget *parent)
    : QChartView(parent) {
    setObjectName(QStringLiteral("lagHistoryChart"));
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(180);
    clear();
}

void LagHistoryChart::setHistory(const QString &group, const std::vector<LagPoint> &points) {
    auto *chart = style::newChart({});
    chart->setTitle(group.isEmpty()     ? tr("Lag over time")
                    : points.size() < 2 ? tr("Lag of %1 over time (sampled every 10 s while this "
                                             "page is open; %n sample(s) so far)",
                                             nullptr, int(points.size()))
                                              .arg(group)
                                        : tr("Lag of %1 over time").arg(group));
    const QColor colour = style::qcolor(style::Colour::Lag);
    auto *line = new QLineSeries;
    line->setColor(colour);
    QPen pen = line->pen();
    pen.setWidthF(2.0);
    line->setPen(pen);
    auto *dots = new QScatterSeries; // a lone sample still shows
    dots->setColor(colour);
    dots->setBorderColor(colour);
    dots->setMarkerSize(5);
    qint64 max = 0;
    for (const LagPoint &p : points) {
        line->append(qreal(p.sampledMs), qreal(p.lag));
        dots->append(qreal(p.sampledMs), qreal(p.lag));
        max = std::max(max, p.lag);
    }
    chart->addSeries(line);
    chart->addSeries(dots);
    auto *x = new QDateTimeAxis;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const qint64 first = points.empty() ? now - 60000 : points.front().sampledMs;
    const qint64 last = points.empty() ? now : std::max(points.back().sampledMs, first + 60000);
    x->setRange(QDateTime::fromMSecsSinceEpoch(first), QDateTime::fromMSecsSinceEpoch(last));
    x->setFormat(last - first > 86400000 ? QStringLiteral("MM-dd HH:mm") : QStringLiteral("HH:mm"));
    x->setTickCount(4);
    chart->addAxis(x, Qt::AlignBottom);
    line->attachAxis(x);
    dots->attachAxis(x);
    auto *y = new QValueAxis;
    y->setRange(0, max > 0 ? double(max) * 1.1 : 1.0);
    y->setLabelFormat(QStringLiteral("%.0f"));
    y->applyNiceNumbers();
    y->setTitleText(tr("events behind"));
    chart->addAxis(y, Qt::AlignLeft);
    line->attachAxis(y);
    dots->attachAxis(y);

    QChart *old = this->chart();
    setChart(chart);
    delete old;
    m_points = int(points.size());
}

} // namespace rw
