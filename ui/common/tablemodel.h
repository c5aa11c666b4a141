#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <vector>

namespace rw {

// One column of a table model: its header title, the alignment of its
// header and cells (0: the header leaves it to the view) and a header tooltip.
struct TableColumn {
    QString title;
    Qt::Alignment alignment = {};
    QString toolTip = {};
};

// Qt::FontRole for a cell set in bold when `on`: the default font, bold; else none.
QVariant boldIf(bool on);

// Column alignments, as the console's tables use them.
inline const Qt::Alignment kAlignText = Qt::AlignLeft | Qt::AlignVCenter;
inline const Qt::Alignment kAlignNumber = Qt::AlignRight | Qt::AlignVCenter;

// What the console's table models share: a column table (columnCount and
// headerData come from it) and SortRole, under which every model returns the
// raw value (a number, a timestamp string) that proxies sort by. GUI thread
// only.
class TableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum BaseRole {
        SortRole = Qt::UserRole + 1,
        FirstCustomRole // a subclass's own roles start here
    };

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
    explicit TableModel(std::vector<TableColumn> columns, QObject *parent = nullptr);
    // A column's alignment for Qt::TextAlignmentRole, as headerData gives it.
    QVariant alignment(int column) const;
    const TableColumn &column(int section) const { return m_columns[std::size_t(section)]; }
    // True for an index of this table (valid, in range, no parent).
    bool isCell(const QModelIndex &index) const { return checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid); }

private:
    std::vector<TableColumn> m_columns;
};

// A table of `Row` values held as an immutable snapshot, replaced whole by
// resetData() (built off the GUI thread, handed over by value); one row a
// table row. Subclasses provide data().
template <typename Row>
class SnapshotTableModel : public TableModel {
public:
    void resetData(std::vector<Row> rows)
    {
        beginResetModel();
        m_rows = std::move(rows);
        endResetModel();
    }
    const std::vector<Row> &snapshot() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : int(m_rows.size()); }

protected:
    using TableModel::TableModel;
    // The row of a valid index; nullptr for any other.
    const Row *rowAt(const QModelIndex &index) const { return isCell(index) ? &m_rows[std::size_t(index.row())] : nullptr; }

    std::vector<Row> m_rows;
};

} // namespace rw
