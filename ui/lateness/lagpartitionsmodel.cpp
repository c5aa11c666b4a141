#include "ui/lateness/lagpartitionsmodel.h"

#include "ui/common/format.h"
#include "ui/common/statusstyle.h"

#include <QBrush>

namespace rw {

namespace {

bool numeric(int column) { return column >= LagPartitionsModel::EventsColumn; }

} // namespace

LagPartitionsModel::LagPartitionsModel(QObject *parent) : QAbstractTableModel(parent) {}

void LagPartitionsModel::resetData(std::vector<LagPartitionRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_whatIf = -1;
    endResetModel();
}

void LagPartitionsModel::setWhatIf(int index, qint64 seconds)
{
    m_whatIf = index;
    m_whatIfSeconds = seconds;
    Q_EMIT headerDataChanged(Qt::Horizontal, LateColumn, LateShareColumn);
    if (!m_rows.empty())
        Q_EMIT dataChanged(this->index(0, LateColumn), this->index(rowCount() - 1, LateShareColumn));
}

qint64 LagPartitionsModel::lateAt(int row) const
{
    if (row < 0 || row >= rowCount() || m_whatIf < 0)
        return 0;
    const auto &late = m_rows[std::size_t(row)].lateness.whatIfLate;
    return std::size_t(m_whatIf) < late.size() ? late[std::size_t(m_whatIf)] : 0;
}

int LagPartitionsModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int LagPartitionsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LagPartitionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::Alignment((numeric(section) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    if (role == Qt::ToolTipRole && (section == LateColumn || section == LateShareColumn))
        return tr("Events whose lateness (ingest time \u2212 event time) exceeds the slider's allowed lateness");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case PartitionColumn: return tr("Partition");
    case StatusColumn: return tr("Status");
    case EventsColumn: return tr("Events");
    case P50Column: return tr("p50");
    case P99Column: return tr("p99");
    case MaxColumn: return tr("Max");
    case LateColumn: return m_whatIf >= 0 ? tr("> %1").arg(durationLabel(m_whatIfSeconds)) : tr("Late");
    case LateShareColumn: return tr("late %");
    default: return {};
    }
}

QVariant LagPartitionsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const LagPartitionRow &r = m_rows[std::size_t(index.row())];
    const PartitionLateness &l = r.lateness;
    const int column = index.column();
    const qint64 late = lateAt(index.row());
    const double share = l.count > 0 ? double(late) / double(l.count) : 0.0;
    const auto ms = [](const std::optional<qint64> &v) -> QVariant {
        return v ? QVariant(latenessText(*v)) : QVariant(QStringLiteral("\u2014"));
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case PartitionColumn: return partitionLabel(r.partition);
        case StatusColumn: return r.status;
        case EventsColumn: return fmt::number(l.count);
        case P50Column: return ms(l.percentiles.p50);
        case P99Column: return ms(l.percentiles.p99);
        case MaxColumn: return ms(l.percentiles.max);
        case LateColumn: return m_whatIf >= 0 ? QVariant(fmt::number(late)) : QVariant(QStringLiteral("\u2014"));
        case LateShareColumn: return m_whatIf >= 0 && l.count > 0 ? QVariant(percentText(share)) : QVariant(QStringLiteral("\u2014"));
        default: return {};
        }
    case SortRole:
        switch (column) {
        case PartitionColumn: return r.partition ? QVariant(*r.partition) : QVariant();
        case StatusColumn: return StatusStyle::severity(r.status);
        case EventsColumn: return l.count;
        case P50Column: return l.percentiles.p50 ? QVariant(*l.percentiles.p50) : QVariant();
        case P99Column: return l.percentiles.p99 ? QVariant(*l.percentiles.p99) : QVariant();
        case MaxColumn: return l.percentiles.max ? QVariant(*l.percentiles.max) : QVariant();
        case LateColumn: return late;
        case LateShareColumn: return share;
        default: return {};
        }
    case Qt::DecorationRole:
        if (column == StatusColumn)
            return StatusStyle::icon(r.status);
        return {};
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::Alignment((numeric(column) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if ((column == LateColumn || column == LateShareColumn) && late > 0)
            return QBrush(QColor(0xb3, 0x4a, 0x00));
        return {};
    case Qt::ToolTipRole:
        if (column == StatusColumn)
            return StatusStyle::description(r.status);
        if (l.unparseable > 0 || l.negative > 0)
            return tr("%1 events with an unparseable or missing timestamp; %2 ingested before their event time")
                .arg(fmt::number(l.unparseable), fmt::number(l.negative));
        return {};
    default: return {};
    }
}

} // namespace rw
