#include "ui/lateness/lagpartitionsmodel.h"

#include "ui/common/style.h"
#include "ui/common/format.h"
#include "ui/common/statusstyle.h"

#include <QBrush>

namespace rw {

namespace {

QString lateTip() { return LagPartitionsModel::tr("Events whose lateness (ingest time \u2212 event time) exceeds the slider's allowed lateness"); }

} // namespace

LagPartitionsModel::LagPartitionsModel(QObject *parent)
    : SnapshotTableModel({
        {tr("Partition"), kAlignText},
        {tr("Status"), kAlignText},
        {tr("Events"), kAlignNumber},
        {tr("p50"), kAlignNumber},
        {tr("p99"), kAlignNumber},
        {tr("Max"), kAlignNumber},
        {tr("Late"), kAlignNumber, lateTip()},
        {tr("late %"), kAlignNumber, lateTip()},
    }, parent)
{
}

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

QVariant LagPartitionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    // The late column's title follows the slider.
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole && section == LateColumn && m_whatIf >= 0)
        return tr("> %1").arg(durationLabel(m_whatIfSeconds));
    return SnapshotTableModel::headerData(section, orientation, role);
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
        case StatusColumn: return enumName(r.status);
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
        return alignment(column);
    case Qt::ForegroundRole:
        if ((column == LateColumn || column == LateShareColumn) && late > 0)
            return QBrush(style::qcolor(style::Colour::Warning));
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
