#include "ui/recovery/totalsmodel.h"

#include "core/batch/partitions.h"
#include "ui/common/format.h"

#include <QLocale>
#include <algorithm>
#include <cmath>

namespace rw {

namespace {

bool same(const QVariant &a, const QVariant &b) {
    const double x = a.isNull() ? 0.0 : a.toDouble(), y = b.isNull() ? 0.0 : b.toDouble();
    return std::fabs(x - y) <= 1e-9 * std::max({1.0, std::fabs(x), std::fabs(y)});
}

QString show(const QVariant &v) {
    if (v.isNull())
        return QStringLiteral("\u2014");
    if (v.typeId() == QMetaType::Double) {
        QLocale locale;
        locale.setNumberOptions(locale.numberOptions() & ~QLocale::OmitGroupSeparator);
        return locale.toString(v.toDouble(), 'f', 2);
    }
    bool ok = false;
    const qint64 n = v.toLongLong(&ok);
    return ok ? fmt::number(n) : v.toString();
}

} // namespace

TotalsModel::TotalsModel(QObject *parent)
    : SnapshotTableModel(
          {
              {tr("Partition"), kAlignText, [](const TotalsLine &r) { return r.partition; }},
              {tr("Measure"), kAlignText, [](const TotalsLine &r) { return r.measure; }},
              {tr("Source (deduped)"), kAlignNumber,
               [](const TotalsLine &r) { return show(r.source); },
               [](const TotalsLine &r) { return r.source; }},
              {tr("Target"), kAlignNumber, [](const TotalsLine &r) { return show(r.target); },
               [](const TotalsLine &r) { return r.target; }},
              {tr("Match"), kAlignText,
               [](const TotalsLine &r) { return r.match ? tr("\u2714 yes") : tr("\u2718 no"); },
               [](const TotalsLine &r) { return r.match ? 1 : 0; }},
          },
          parent, HeaderAlignment::View) {}

void TotalsModel::resetData(const std::vector<TotalsRow> &totals) {
    std::vector<TotalsLine> lines;
    for (const TotalsRow &t : totals) {
        const QString part = partitionLabel(t.partition);
        lines.push_back(
            {part, tr("rows"), t.sourceRows, t.targetRows, t.sourceRows == t.targetRows});
        for (const auto &[column, source, target] : t.sums)
            lines.push_back(
                {part, tr("sum(%1)").arg(column), source, target, same(source, target)});
    }
    SnapshotTableModel::resetData(std::move(lines));
}

int TotalsModel::mismatches() const {
    return int(
        std::count_if(m_rows.begin(), m_rows.end(), [](const TotalsLine &r) { return !r.match; }));
}

QVariant TotalsModel::cellData(const TotalsLine &r, int column, int role) const {
    switch (role) {
    case MatchRole:
        return r.match;
    case Qt::ForegroundRole:
    case Qt::BackgroundRole:
        return verdictColours(role, column == MatchColumn, r.match);
    default:
        return {};
    }
}

} // namespace rw
