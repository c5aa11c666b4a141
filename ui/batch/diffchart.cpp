#include "ui/batch/diffchart.h"

#include "core/batch/partitions.h"
#include "ui/common/style.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <algorithm>

namespace rw {

namespace {

const style::Colour kColours[] = {style::Colour::Inserted, style::Colour::Updated,
                                  style::Colour::Deleted, style::Colour::Unchanged,
                                  style::Colour::Moved};

} // namespace

QStringList DiffChart::categories() {
    return {tr("inserted"), tr("updated"), tr("deleted"), tr("unchanged"), tr("dupes dropped")};
}

DiffChart::DiffChart(QWidget *parent)
    : QChartView(parent) {
    setObjectName(QStringLiteral("diffChart"));
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(220);
    clear();
}

void DiffChart::clear() {
    setPartitions({});
}

void DiffChart::setPartitions(const std::vector<PartitionResult> &partitions) {
    // The legend on the right, one entry per line: in one row below the bars
    // the five names were cut to "inser...", "upda...".
    auto *chart = style::newChart(Qt::AlignRight);
    chart->setTitle(tr("Rows per partition"));

    auto *series = new QStackedBarSeries;
    const QStringList names = categories();
    QList<QBarSet *> sets;
    for (int i = 0; i < names.size(); ++i) {
        auto *set = new QBarSet(names[i]);
        set->setColor(style::qcolor(kColours[i]));
        set->setBorderColor(style::qcolor(kColours[i]).darker(115));
        sets << set;
    }
    const int n = int(partitions.size());
    const int perBar = n > kMaxBars ? (n + kMaxBars - 1) / kMaxBars : 1;
    QStringList labels;
    qreal max = 0;
    for (int first = 0; first < n; first += perBar) {
        const int last = std::min(n, first + perBar) - 1;
        // A bar of several partitions is named after its first one.
        labels << (first == last ? partitionLabel(partitions[std::size_t(first)].partition)
                                 : partitionLabel(partitions[std::size_t(first)].partition) +
                                       QStringLiteral(" \u2026"));
        qreal values[5] = {};
        for (int i = first; i <= last; ++i) {
            const PartitionResult &p = partitions[std::size_t(i)];
            values[0] += qreal(p.inserted);
            values[1] += qreal(p.updated);
            values[2] += qreal(p.deleted);
            values[3] += qreal(p.unchanged);
            values[4] += qreal(p.duplicatesDropped);
        }
        qreal sum = 0;
        for (int i = 0; i < 5; ++i) {
            sets[i]->append(values[i]);
            sum += values[i];
        }
        max = std::max(max, sum);
    }
    if (perBar > 1)
        chart->setTitle(
            tr("Rows per partition: %1 partitions, up to %2 per bar").arg(n).arg(perBar));
    series->append(sets);
    series->setBarWidth(labels.size() == 1 ? 0.35 : 0.7);
    chart->addSeries(series);

    // Under many bars, every step-th named, the others left blank (each
    // blank its own category: a run of zero-width spaces): 60 names on their
    // side in a chart a third of the window wide were one black smudge.
    const qsizetype step = (labels.size() + kMaxLabels - 1) / kMaxLabels;
    for (qsizetype i = 0; step > 1 && i < labels.size(); ++i)
        if (i % step != 0)
            labels[i] = QString(i, QChar(0x200B));
    auto *x = new QBarCategoryAxis;
    x->append(labels);
    // A partition's name in full, as in the table: upright under one bar,
    // turned on its side under several (side by side they overlapped).
    x->setTruncateLabels(false);
    if (labels.size() > 1)
        x->setLabelsAngle(-90);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    auto *y = new QValueAxis;
    y->setLabelFormat(QStringLiteral("%.0f"));
    y->setRange(0, max > 0 ? max * 1.05 : 1);
    y->applyNiceNumbers();
    y->setTitleText(tr("rows"));
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    if (partitions.empty())
        chart->setTitle(tr("Rows per partition (nothing previewed)"));

    QChart *old = this->chart();
    setChart(chart);
    delete old;
    m_bars = int(labels.size());
    m_perBar = perBar;
}

} // namespace rw
