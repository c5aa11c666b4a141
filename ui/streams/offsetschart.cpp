#include "ui/streams/offsetschart.h"

#include "ui/common/style.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QValueAxis>

namespace rw {

OffsetsChart::OffsetsChart(QWidget *parent)
    : QChartView(parent) {
    setObjectName(QStringLiteral("offsetsChart"));
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(200);
    clear();
}

void OffsetsChart::setOffsets(const QString &group, const std::vector<PartitionOffsets> &offsets) {
    auto *chart = style::newChart();
    chart->setTitle(group.isEmpty() ? tr("Offsets per partition")
                                    : tr("Offsets of %1 per partition").arg(group));

    const struct {
        QString name;
        QColor color;
    } sets[] = {{tr("committed"), style::qcolor(style::Colour::Accent)},
                {tr("log end"), style::qcolor(style::Colour::LogEnd)},
                {tr("lag"), style::qcolor(style::Colour::Lag)}};
    auto *series = new QBarSeries;
    QList<QBarSet *> bars;
    for (const auto &s : sets) {
        auto *set = new QBarSet(s.name);
        set->setColor(s.color);
        set->setBorderColor(s.color.darker(115));
        bars << set;
    }
    QStringList labels;
    qint64 max = 0;
    for (const PartitionOffsets &p : offsets) {
        labels << QString::number(p.partition);
        bars[0]->append(qreal(p.committed));
        bars[1]->append(qreal(p.logEnd));
        bars[2]->append(qreal(p.lag));
        max = std::max({max, p.committed, p.logEnd, p.lag});
    }
    series->append(bars);
    series->setBarWidth(0.8);
    chart->addSeries(series);
    auto *x = new QBarCategoryAxis;
    x->append(labels.isEmpty() ? QStringList{QStringLiteral(" ")} : labels);
    x->setTitleText(tr("partition"));
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    auto *y = new QValueAxis;
    y->setRange(0, max > 0 ? double(max) * 1.05 : 1.0);
    y->setLabelFormat(QStringLiteral("%.0f"));
    y->applyNiceNumbers();
    y->setTitleText(tr("offset / events"));
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);

    QChart *old = this->chart();
    setChart(chart);
    delete old;
    m_bars = int(offsets.size());
}

} // namespace rw
