#include "ui/common/tablemodel.h"

#include "core/batch/partitions.h"
#include "ui/common/style.h"

#include <QBrush>
#include <QFont>

namespace rw {

QVariant boldIf(bool on) {
    if (!on)
        return {};
    QFont f;
    f.setBold(true);
    return f;
}

QVariant verdictColours(int role, bool verdictColumn, bool passed) {
    if (role == Qt::ForegroundRole && verdictColumn)
        return QBrush(style::qcolor(passed ? style::Colour::Ok : style::Colour::Error));
    if (role == Qt::BackgroundRole && !passed)
        return QBrush(style::qcolor(style::Colour::ErrorTint));
    return {};
}

QString partitionText(const std::optional<QString> &partition) {
    return partitionLabel(partition);
}

TableModel::TableModel(std::vector<TableColumn> columns, QObject *parent, HeaderAlignment headers)
    : QAbstractTableModel(parent)
    , m_columns(std::move(columns))
    , m_headers(headers) {}

int TableModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant TableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= int(m_columns.size()))
        return {};
    const TableColumn &c = column(section);
    switch (role) {
    case Qt::DisplayRole:
        return c.title;
    case Qt::TextAlignmentRole:
        return m_headers == HeaderAlignment::AsCells ? alignment(section) : QVariant();
    case Qt::ToolTipRole:
        return c.toolTip.isEmpty() ? QVariant() : QVariant(c.toolTip);
    default:
        return {};
    }
}

QVariant TableModel::alignment(int section) const {
    if (section < 0 || section >= int(m_columns.size()) || !column(section).alignment)
        return {};
    return QVariant::fromValue(column(section).alignment);
}

} // namespace rw
