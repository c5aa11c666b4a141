#include "ui/lateness/lagpartitionsmodel.h"

#include "ui/common/format.h"
#include "ui/common/statusstyle.h"
#include "ui/common/style.h"

#include <QBrush>

namespace rw {

namespace {

QString lateTip() {
    return LagPartitionsModel::tr("Events whose lateness (ingest time \u2212 event time) exceeds "
                                  "the slider's allowed lateness");
}

// A column of one lateness percentile: its text, sorted by the value (none: null).
ModelColumn<LagPartitionRow>
percentileColumn(const QString &title, std::optional<qint64> LatenessPercentiles::*percentile) {
    return {title, kAlignNumber,
            [percentile](const LagPartitionRow &r) {
                const std::optional<qint64> &v = r.lateness.percentiles.*percentile;
                return v ? latenessText(*v) : QStringLiteral("\u2014");
            },
            [percentile](const LagPartitionRow &r) {
                const std::optional<qint64> &v = r.lateness.percentiles.*percentile;
                return v ? QVariant(*v) : QVariant();
            }};
}

} // namespace

LagPartitionsModel::LagPartitionsModel(QObject *parent)
    : SnapshotTableModel(
          {
              partitionColumn(tr("Partition"), &LagPartitionRow::partition),
              {tr("Status"), kAlignText,
               [](const LagPartitionRow &r) { return enumName(r.status); },
               [](const LagPartitionRow &r) { return StatusStyle::severity(r.status); }},
              {tr("Events"), kAlignNumber,
               [](const LagPartitionRow &r) { return fmt::number(r.lateness.count); },
               [](const LagPartitionRow &r) { return r.lateness.count; }},
              percentileColumn(tr("p50"), &LatenessPercentiles::p50),
              percentileColumn(tr("p99"), &LatenessPercentiles::p99),
              percentileColumn(tr("Max"), &LatenessPercentiles::max),
              {tr("Late"), kAlignNumber,
               [this](const LagPartitionRow &r) {
                   return m_whatIf >= 0 ? fmt::number(lateOf(r)) : QStringLiteral("\u2014");
               },
               [this](const LagPartitionRow &r) { return lateOf(r); }, lateTip()},
              {tr("late %"), kAlignNumber,
               [this](const LagPartitionRow &r) {
                   return m_whatIf >= 0 && r.lateness.count > 0 ? percentText(lateShare(r))
                                                                : QStringLiteral("\u2014");
               },
               [this](const LagPartitionRow &r) { return lateShare(r); }, lateTip()},
          },
          parent) {}

void LagPartitionsModel::resetData(std::vector<LagPartitionRow> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    m_whatIf = -1;
    endResetModel();
}

void LagPartitionsModel::setWhatIf(int index, qint64 seconds) {
    m_whatIf = index;
    m_whatIfSeconds = seconds;
    Q_EMIT headerDataChanged(Qt::Horizontal, LateColumn, LateShareColumn);
    if (!m_rows.empty())
        Q_EMIT dataChanged(this->index(0, LateColumn),
                           this->index(rowCount() - 1, LateShareColumn));
}

qint64 LagPartitionsModel::lateAt(int row) const {
    if (row < 0 || row >= rowCount())
        return 0;
    return lateOf(m_rows[std::size_t(row)]);
}

qint64 LagPartitionsModel::lateOf(const LagPartitionRow &r) const {
    const auto &late = r.lateness.whatIfLate;
    return m_whatIf >= 0 && std::size_t(m_whatIf) < late.size() ? late[std::size_t(m_whatIf)] : 0;
}

double LagPartitionsModel::lateShare(const LagPartitionRow &r) const {
    return r.lateness.count > 0 ? double(lateOf(r)) / double(r.lateness.count) : 0.0;
}

QVariant LagPartitionsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    // The late column's title follows the slider.
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole && section == LateColumn &&
        m_whatIf >= 0)
        return tr("> %1").arg(durationLabel(m_whatIfSeconds));
    return SnapshotTableModel::headerData(section, orientation, role);
}

QVariant LagPartitionsModel::cellData(const LagPartitionRow &r, int column, int role) const {
    const PartitionLateness &l = r.lateness;
    switch (role) {
    case Qt::DecorationRole:
        if (column == StatusColumn)
            return StatusStyle::icon(r.status);
        return {};
    case Qt::ForegroundRole:
        if ((column == LateColumn || column == LateShareColumn) && lateOf(r) > 0)
            return QBrush(style::qcolor(style::Colour::Warning));
        return {};
    case Qt::ToolTipRole:
        if (column == StatusColumn)
            return StatusStyle::description(r.status);
        if (l.unparseable > 0 || l.negative > 0)
            return tr("%1 events with an unparseable or missing timestamp; %2 ingested before "
                      "their event time")
                .arg(fmt::number(l.unparseable), fmt::number(l.negative));
        return {};
    default:
        return {};
    }
}

} // namespace rw
