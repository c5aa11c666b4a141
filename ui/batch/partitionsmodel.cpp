#include "ui/batch/partitionsmodel.h"

#include "ui/common/format.h"
#include "ui/common/statusstyle.h"
#include "ui/common/style.h"

#include <QBrush>
#include <QFont>
#include <QStringBuilder>
#include <algorithm>
#include <numeric>

namespace rw {

namespace {

QString timestampText(const QString &iso) {
    QString t = iso;
    t.replace(u'T', u' ');
    if (t.endsWith(u'Z'))
        t.chop(1);
    return t;
}

QString difference(const PartitionInfo &p) {
    if (p.status == PartitionStatus::Unloaded)
        return QStringLiteral("—");
    const qint64 d = p.targetRows - p.sourceRows;
    return d == 0 ? QStringLiteral("0")
                  : (d > 0 ? QStringLiteral("+") : QStringLiteral("−")) + fmt::number(qAbs(d));
}

} // namespace

PartitionsModel::PartitionsModel(QObject *parent)
    : SnapshotTableModel(
          {
              partitionColumn(
                  tr("Partition"),
                  &PartitionInfo::partition), // null sorts first: the unpartitioned whole
              {tr("Status"), kAlignText, [](const PartitionInfo &p) { return enumName(p.status); },
               [](const PartitionInfo &p) { return StatusStyle::severity(p.status); }},
              numberColumn(tr("Source rows"), &PartitionInfo::sourceRows),
              numberColumn(tr("Target rows"), &PartitionInfo::targetRows),
              {tr("Target − source"), kAlignNumber, difference,
               [](const PartitionInfo &p) { return p.targetRows - p.sourceRows; }},
              numberColumn(tr("Duplicate keys"), &PartitionInfo::duplicateKeys),
              {tr("Last run"), kAlignNumber,
               [](const PartitionInfo &p) {
                   return p.lastRunId.isNull() ? QStringLiteral("\u2014")
                                               : u'#' + p.lastRunId.toString();
               },
               [](const PartitionInfo &p) {
                   return p.lastRunId.isNull() ? qint64(-1) : p.lastRunId.toLongLong();
               }},
              {tr("Last published"), kAlignText,
               [](const PartitionInfo &p) {
                   return p.lastPublished.isEmpty() ? QStringLiteral("\u2014")
                                                    : timestampText(p.lastPublished);
               },
               [](const PartitionInfo &p) { return p.lastPublished; }},
              {tr("Leaf"), kAlignText,
               [](const PartitionInfo &p) {
                   return p.leaf.isEmpty() ? QStringLiteral("\u2014") : p.leaf;
               },
               [](const PartitionInfo &p) { return p.leaf; }},
              {tr("Last snapshot"), kAlignText,
               [](const PartitionInfo &p) {
                   return p.snapshot.isEmpty() ? QStringLiteral("\u2014")
                                               : timestampText(p.snapshotAt) %
                                                     QStringLiteral(" \u00b7 ") % p.snapshotBy;
               },
               [](const PartitionInfo &p) { return p.snapshotAt; }},
              // Columns a schema change added since the partition was
              // published: NULL in its rows (run --schema-behind).
              {tr("Schema behind"), kAlignText,
               [](const PartitionInfo &p) {
                   return p.schemaBehind.isEmpty() ? QStringLiteral("\u2014")
                                                   : p.schemaBehind.join(QStringLiteral(", "));
               },
               [](const PartitionInfo &p) { return qint64(p.schemaBehind.size()); }},
              {tr("dbt"), kAlignText,
               [](const PartitionInfo &p) {
                   return p.dbtFailure ? tr("failed") : QStringLiteral("\u2014");
               },
               [](const PartitionInfo &p) { return qint64(p.dbtFailure ? 1 : 0); }},
          },
          parent) {}

std::vector<int> PartitionsModel::ranks(const std::vector<PartitionInfo> &rows) {
    std::vector<int> order(rows.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&rows](int a, int b) {
        return partitionLess(rows[std::size_t(a)].partition, rows[std::size_t(b)].partition);
    });
    std::vector<int> rank(rows.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        rank[std::size_t(order[i])] = int(i);
    return rank;
}

void PartitionsModel::resetData(std::vector<PartitionInfo> rows, std::vector<int> ranks) {
    Q_ASSERT(ranks.size() == rows.size());
    beginResetModel();
    m_rows = std::move(rows);
    m_ranks = std::move(ranks);
    m_order.assign(m_ranks.size(), 0);
    for (std::size_t row = 0; row < m_ranks.size(); ++row)
        m_order[std::size_t(m_ranks[row])] = int(row);
    ++m_generation;
    endResetModel();
}

void PartitionsModel::resetData(std::vector<PartitionInfo> rows) {
    std::vector<int> r = ranks(rows);
    resetData(std::move(rows), std::move(r));
}

int PartitionsModel::rankOf(const std::optional<QString> &bound, bool after) const {
    const auto partitionAt = [this](int rank) -> const std::optional<QString> & {
        return m_rows[std::size_t(m_order[std::size_t(rank)])].partition;
    };
    int lo = 0, hi = int(m_order.size());
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        const bool before = after ? !partitionLess(bound, partitionAt(mid))
                                  : partitionLess(partitionAt(mid), bound);
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

QVariant PartitionsModel::data(const QModelIndex &index, int role) const {
    if (role == RankRole)
        return isCell(index) ? QVariant(m_ranks[std::size_t(index.row())]) : QVariant();
    return SnapshotTableModel::data(index, role);
}

bool PartitionsModel::rowCountsDisagree(const PartitionInfo &p) {
    const bool published = p.status != PartitionStatus::Unloaded;
    return p.duplicateKeys > 0 || (published && p.targetRows != p.sourceRows);
}

bool PartitionsModel::needsAttention(const PartitionInfo &p) {
    const bool published = p.status != PartitionStatus::Unloaded;
    return StatusStyle::needsAttention(p.status) || p.duplicateKeys > 0 || p.dbtFailure ||
           (published && (p.targetRows > p.sourceRows || (p.targetRows == 0 && p.sourceRows > 0)));
}

QVariant PartitionsModel::toolTip(const PartitionInfo &p, int column) const {
    switch (column) {
    case StatusColumn:
        return StatusStyle::description(p.status);
    case TargetRowsColumn:
    case DifferenceColumn:
        if (p.status != PartitionStatus::Unloaded && p.targetRows != p.sourceRows)
            return tr("Target holds %1 rows; source has %2 (difference %3)")
                .arg(fmt::number(p.targetRows), fmt::number(p.sourceRows),
                     fmt::number(p.targetRows - p.sourceRows));
        return {};
    case SchemaBehindColumn:
        return p.schemaBehind.isEmpty()
                   ? QVariant()
                   : tr("Published before a schema change added %1: NULL there in its rows "
                        "until a run covers it (rewindctl run --schema-behind)")
                         .arg(p.schemaBehind.join(QStringLiteral(", ")));
    case LeafColumn:
        return p.leaf.isEmpty()
                   ? tr("No leaf of the partitioned target holds this value yet (a run makes one "
                        "where it can)")
                   : tr("Leaf partition %1 of the partitioned target, %2")
                         .arg(p.leaf, p.leafBounds);
    case SnapshotColumn:
        return p.snapshot.isEmpty()
                   ? QVariant()
                   : tr("Iceberg snapshot %1, committed %2 (%3): the last to write this "
                        "partition's files")
                         .arg(p.snapshot, p.snapshotAt, p.snapshotBy);
    case DbtColumn:
        return p.dbtFailure ? QVariant(*p.dbtFailure) : QVariant();
    case DuplicateKeysColumn:
        return p.duplicateKeys > 0 ? tr("%1 key(s) with more than one row in the target")
                                         .arg(fmt::number(p.duplicateKeys))
                                   : QVariant();
    default:
        return {};
    }
}

QVariant PartitionsModel::cellData(const PartitionInfo &p, int column, int role) const {
    const bool mismatch = (column == TargetRowsColumn || column == DifferenceColumn) &&
                          p.status != PartitionStatus::Unloaded && p.targetRows != p.sourceRows;
    const bool extraRows = mismatch && p.targetRows > p.sourceRows; // cannot be explained by dedupe
    const bool duplicates = (column == DuplicateKeysColumn && p.duplicateKeys > 0) ||
                            (column == DbtColumn && p.dbtFailure);

    switch (role) {
    case StatusRole:
        return QVariant::fromValue(p.status);
    case AttentionRole:
        return needsAttention(p);
    case Qt::ToolTipRole:
        return toolTip(p, column);
    case Qt::DecorationRole:
        if (column == StatusColumn)
            return StatusStyle::icon(p.status);
        return {};
    case Qt::BackgroundRole:
        if (column == StatusColumn)
            return QBrush(StatusStyle::tint(p.status));
        if (duplicates || extraRows)
            return QBrush(style::qcolor(style::Colour::ErrorTint));
        return {};
    case Qt::ForegroundRole:
        if (duplicates || extraRows)
            return QBrush(style::qcolor(style::Colour::Error));
        if (mismatch)
            return QBrush(style::qcolor(style::Colour::Warning));
        if (column == DuplicateKeysColumn || column == DifferenceColumn ||
            ((column == LastRunColumn || column == LastPublishedColumn ||
              column == SchemaBehindColumn || column == DbtColumn) &&
             text(p, column).toString() == QStringLiteral("\u2014")))
            return QBrush(style::qcolor(style::Colour::Faint)); // zeros and blanks recede
        return {};
    case Qt::FontRole:
        return boldIf(duplicates || extraRows || column == StatusColumn);
    default:
        return {};
    }
}

} // namespace rw
