#include "ui/recovery/totalsmodel.h"

#include "ui/common/style.h"
#include "ui/common/format.h"
#include "core/batch/partitions.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

#include <algorithm>
#include <cmath>

namespace rw {

namespace {

bool same(const QVariant &a, const QVariant &b)
{
    const double x = a.isNull() ? 0.0 : a.toDouble(), y = b.isNull() ? 0.0 : b.toDouble();
    return std::fabs(x - y) <= 1e-9 * std::max({1.0, std::fabs(x), std::fabs(y)});
}

QString show(const QVariant &v)
{
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
    : TableModel({
        {tr("Partition")},
        {tr("Measure")},
        {tr("Source (deduped)")},
        {tr("Target")},
        {tr("Match")},
    }, parent)
{
}

void TotalsModel::resetData(const std::vector<TotalsRow> &totals)
{
    beginResetModel();
    m_rows.clear();
    for (const TotalsRow &t : totals) {
        const QString part = partitionLabel(t.partition);
        m_rows.push_back({part, tr("rows"), t.sourceRows, t.targetRows, t.sourceRows == t.targetRows});
        for (const auto &[column, source, target] : t.sums)
            m_rows.push_back({part, tr("sum(%1)").arg(column), source, target, same(source, target)});
    }
    endResetModel();
}

int TotalsModel::mismatches() const
{
    return int(std::count_if(m_rows.begin(), m_rows.end(), [](const Row &r) { return !r.match; }));
}

int TotalsModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

QVariant TotalsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case PartitionColumn: return r.partition;
        case MeasureColumn: return r.measure;
        case SourceColumn: return show(r.source);
        case TargetColumn: return show(r.target);
        case MatchColumn: return r.match ? tr("\u2714 yes") : tr("\u2718 no");
        default: return {};
        }
    case SortRole:
        switch (index.column()) {
        case SourceColumn: return r.source;
        case TargetColumn: return r.target;
        case MatchColumn: return r.match ? 1 : 0;
        default: return data(index, Qt::DisplayRole);
        }
    case MatchRole: return r.match;
    case Qt::TextAlignmentRole:
        return index.column() == SourceColumn || index.column() == TargetColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                                                : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == MatchColumn)
            return QBrush(r.match ? style::qcolor(style::Colour::Ok) : style::qcolor(style::Colour::Error));
        return {};
    case Qt::BackgroundRole:
        if (!r.match)
            return QBrush(style::qcolor(style::Colour::ErrorTint));
        return {};
    default: return {};
    }
}

} // namespace rw
