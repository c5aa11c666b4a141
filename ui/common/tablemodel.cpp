#include "ui/common/tablemodel.h"

#include <QFont>

namespace rw {

QVariant boldIf(bool on)
{
    if (!on)
        return {};
    QFont f;
    f.setBold(true);
    return f;
}

TableModel::TableModel(std::vector<TableColumn> columns, QObject *parent) : QAbstractTableModel(parent), m_columns(std::move(columns)) {}

int TableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_columns.size()); }

QVariant TableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= int(m_columns.size()))
        return {};
    const TableColumn &c = column(section);
    switch (role) {
    case Qt::DisplayRole: return c.title;
    case Qt::TextAlignmentRole: return alignment(section);
    case Qt::ToolTipRole: return c.toolTip.isEmpty() ? QVariant() : QVariant(c.toolTip);
    default: return {};
    }
}

QVariant TableModel::alignment(int section) const
{
    if (section < 0 || section >= int(m_columns.size()) || !column(section).alignment)
        return {};
    return QVariant::fromValue(column(section).alignment);
}

} // namespace rw
