#include "ui/batch/partitionsmodel.h"

#include "ui/common/style.h"
#include "ui/common/statusstyle.h"

#include <QBrush>
#include <QFont>

namespace rw {

namespace {

QLocale numberLocale()
{
    QLocale locale;
    locale.setNumberOptions(locale.numberOptions() & ~QLocale::OmitGroupSeparator);
    return locale;
}

QString timestampText(const QString &iso)
{
    QString t = iso;
    t.replace(u'T', u' ');
    if (t.endsWith(u'Z'))
        t.chop(1);
    return t;
}

const QColor kMismatch(0xb3, 0x4a, 0x00);
const QColor kDuplicate(0xc0, 0x1c, 0x1c);

} // namespace

PartitionsModel::PartitionsModel(QObject *parent)
    : SnapshotTableModel({
        {tr("Partition"), kAlignText},
        {tr("Status"), kAlignText},
        {tr("Source rows"), kAlignNumber},
        {tr("Target rows"), kAlignNumber},
        {tr("Target − source"), kAlignNumber},
        {tr("Duplicate keys"), kAlignNumber},
        {tr("Last run"), kAlignNumber},
        {tr("Last published"), kAlignText},
    }, parent), m_locale(numberLocale())
{
}

bool PartitionsModel::rowCountsDisagree(const PartitionInfo &p)
{
    const bool published = p.status != PartitionStatus::Unloaded;
    return p.duplicateKeys > 0 || (published && p.targetRows != p.sourceRows);
}

bool PartitionsModel::needsAttention(const PartitionInfo &p)
{
    const bool published = p.status != PartitionStatus::Unloaded;
    return StatusStyle::needsAttention(p.status) || p.duplicateKeys > 0
           || (published && (p.targetRows > p.sourceRows || (p.targetRows == 0 && p.sourceRows > 0)));
}

QVariant PartitionsModel::display(const PartitionInfo &p, int column) const
{
    switch (column) {
    case PartitionColumn: return partitionLabel(p.partition);
    case StatusColumn: return enumName(p.status);
    case SourceRowsColumn: return m_locale.toString(p.sourceRows);
    case TargetRowsColumn: return m_locale.toString(p.targetRows);
    case DifferenceColumn: {
        if (p.status == PartitionStatus::Unloaded)
            return QStringLiteral("—");
        const qint64 d = p.targetRows - p.sourceRows;
        return d == 0 ? QStringLiteral("0") : (d > 0 ? QStringLiteral("+") : QStringLiteral("−")) + m_locale.toString(qAbs(d));
    }
    case DuplicateKeysColumn: return m_locale.toString(p.duplicateKeys);
    case LastRunColumn: return p.lastRunId.isNull() ? QStringLiteral("\u2014") : u'#' + p.lastRunId.toString();
    case LastPublishedColumn: return p.lastPublished.isEmpty() ? QStringLiteral("\u2014") : timestampText(p.lastPublished);
    default: return {};
    }
}

QVariant PartitionsModel::sortValue(const PartitionInfo &p, int column) const
{
    switch (column) {
    case PartitionColumn: return p.partition ? QVariant(*p.partition) : QVariant(); // null: the unpartitioned whole
    case StatusColumn: return StatusStyle::severity(p.status);
    case SourceRowsColumn: return p.sourceRows;
    case TargetRowsColumn: return p.targetRows;
    case DifferenceColumn: return p.targetRows - p.sourceRows;
    case DuplicateKeysColumn: return p.duplicateKeys;
    case LastRunColumn: return p.lastRunId.isNull() ? qint64(-1) : p.lastRunId.toLongLong();
    case LastPublishedColumn: return p.lastPublished;
    default: return {};
    }
}

QVariant PartitionsModel::toolTip(const PartitionInfo &p, int column) const
{
    switch (column) {
    case StatusColumn: return StatusStyle::description(p.status);
    case TargetRowsColumn:
    case DifferenceColumn:
        if (p.status != PartitionStatus::Unloaded && p.targetRows != p.sourceRows)
            return tr("Target holds %1 rows; source has %2 (difference %3)")
                .arg(m_locale.toString(p.targetRows), m_locale.toString(p.sourceRows),
                     m_locale.toString(p.targetRows - p.sourceRows));
        return {};
    case DuplicateKeysColumn:
        return p.duplicateKeys > 0 ? tr("%1 key(s) with more than one row in the target").arg(m_locale.toString(p.duplicateKeys))
                                   : QVariant();
    default: return {};
    }
}

QVariant PartitionsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const PartitionInfo &p = m_rows[std::size_t(index.row())];
    const int column = index.column();
    const bool mismatch = (column == TargetRowsColumn || column == DifferenceColumn) && p.status != PartitionStatus::Unloaded
                          && p.targetRows != p.sourceRows;
    const bool extraRows = mismatch && p.targetRows > p.sourceRows; // cannot be explained by dedupe
    const bool duplicates = column == DuplicateKeysColumn && p.duplicateKeys > 0;

    switch (role) {
    case Qt::DisplayRole: return display(p, column);
    case SortRole: return sortValue(p, column);
    case StatusRole: return QVariant::fromValue(p.status);
    case AttentionRole: return needsAttention(p);
    case Qt::ToolTipRole: return toolTip(p, column);
    case Qt::TextAlignmentRole:
        if (column == SourceRowsColumn || column == TargetRowsColumn || column == DifferenceColumn
            || column == DuplicateKeysColumn || column == LastRunColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        return QVariant::fromValue(Qt::Alignment(Qt::AlignLeft | Qt::AlignVCenter));
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
            return QBrush(kDuplicate);
        if (mismatch)
            return QBrush(kMismatch);
        if (column == DuplicateKeysColumn || column == DifferenceColumn || ((column == LastRunColumn || column == LastPublishedColumn)
                                              && display(p, column).toString() == QStringLiteral("\u2014")))
            return QBrush(style::qcolor(style::Colour::Faint)); // zeros and blanks recede
        return {};
    case Qt::FontRole:
        return boldIf(duplicates || extraRows || column == StatusColumn);
    default: return {};
    }
}

} // namespace rw
