#pragma once

#include "ui/common/format.h"

#include <QAbstractTableModel>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

namespace rw {

// One column of a table model: its header title, the alignment of its
// header and cells (0: left to the view) and a header tooltip.
struct TableColumn {
    QString title;
    Qt::Alignment alignment = {};
    QString toolTip = {};
};

// Whether a table's headers take their columns' alignment or leave it to the
// view (the cells are aligned either way).
enum class HeaderAlignment { AsCells, View };

// Qt::FontRole for a cell set in bold when `on`: the default font, bold; else none.
QVariant boldIf(bool on);

// Qt::ForegroundRole and Qt::BackgroundRole of a cell in a table of pass/fail
// rows: the verdict column in the success or error colour, every cell of a
// failed row on the error tint; none for other roles.
QVariant verdictColours(int role, bool verdictColumn, bool passed);

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
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

protected:
    explicit TableModel(std::vector<TableColumn> columns, QObject *parent = nullptr,
                        HeaderAlignment headers = HeaderAlignment::AsCells);
    // Replaces the column table, for a model whose columns follow its data;
    // call between beginResetModel() and endResetModel().
    void setColumns(std::vector<TableColumn> columns) { m_columns = std::move(columns); }
    // A column's alignment for Qt::TextAlignmentRole of its cells.
    QVariant alignment(int column) const;
    const TableColumn &column(int section) const { return m_columns[std::size_t(section)]; }
    // True for an index of this table (valid, in range, no parent).
    bool isCell(const QModelIndex &index) const {
        return checkIndex(index,
                          CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid);
    }

private:
    std::vector<TableColumn> m_columns;
    HeaderAlignment m_headers;
};

// One column of a ColumnTableModel: its header and alignment, the text of
// its cells (Qt::DisplayRole) and their raw value (SortRole; the text when
// there is none).
template <typename Row> struct ModelColumn {
    using Value = std::function<QVariant(const Row &)>;
    ModelColumn(QString title, Qt::Alignment alignment, Value display, Value sort = nullptr,
                QString toolTip = QString())
        : title(std::move(title))
        , alignment(alignment)
        , display(std::move(display))
        , sort(std::move(sort))
        , toolTip(std::move(toolTip)) {}
    QString title;
    Qt::Alignment alignment;
    Value display;
    Value sort;
    QString toolTip;
};

// A column of a whole-number member: grouped digits ("41,230"), sorted by the number.
template <typename Row, typename N>
ModelColumn<Row> numberColumn(QString title, N Row::*member, QString toolTip = {}) {
    return {std::move(title), kAlignNumber,
            [member](const Row &r) { return fmt::number(qint64(r.*member)); },
            [member](const Row &r) { return r.*member; }, std::move(toolTip)};
}

// A column of a whole-number id (a log partition): plain digits, sorted by the number.
template <typename Row, typename N> ModelColumn<Row> idColumn(QString title, N Row::*member) {
    return {std::move(title), kAlignNumber,
            [member](const Row &r) { return QString::number(r.*member); },
            [member](const Row &r) { return r.*member; }};
}

// rw::partitionLabel (core/batch/partitions.h): "(all)" for the unpartitioned whole.
QString partitionText(const std::optional<QString> &partition);

// A column of a partition (std::optional<QString>): "(all)" for the whole
// table; sorted by the value, the whole table (null) first.
template <typename Row>
ModelColumn<Row> partitionColumn(QString title, std::optional<QString> Row::*member,
                                 Qt::Alignment alignment = kAlignText) {
    return {std::move(title), alignment,
            [member](const Row &r) { return partitionText(r.*member); },
            [member](const Row &r) { return r.*member ? QVariant(*(r.*member)) : QVariant(); }};
}

// A table model declared by its columns: each says once its header, its
// alignment, its text and its sort value, and data() answers those roles
// from them; the other roles of a cell (colours, fonts, tooltips, a model's
// own roles) come from cellData(). Subclasses provide the rows (rowCount,
// rowAt).
template <typename Row> class ColumnTableModel : public TableModel {
public:
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override {
        const Row *r = rowAt(index);
        if (!r)
            return {};
        const int c = index.column();
        switch (role) {
        case Qt::DisplayRole:
            return text(*r, c);
        case SortRole:
            return value(*r, c);
        case Qt::TextAlignmentRole:
            return alignment(c);
        default:
            return cellData(*r, c, role);
        }
    }

protected:
    explicit ColumnTableModel(std::vector<ModelColumn<Row>> columns, QObject *parent = nullptr,
                              HeaderAlignment headers = HeaderAlignment::AsCells)
        : TableModel(headersOf(columns), parent, headers)
        , m_values(std::move(columns)) {}
    // The row of a valid index of this table; nullptr for any other.
    virtual const Row *rowAt(const QModelIndex &index) const = 0;
    // Any role but display, sort and alignment of a cell of `row`; none by default.
    virtual QVariant cellData(const Row &row, int column, int role) const {
        Q_UNUSED(row);
        Q_UNUSED(column);
        Q_UNUSED(role);
        return {};
    }
    // The text of a cell, as Qt::DisplayRole gives it.
    QVariant text(const Row &row, int column) const {
        const auto &display = m_values[std::size_t(column)].display;
        return display ? display(row) : QVariant();
    }
    // The raw value of a cell, as SortRole gives it.
    QVariant value(const Row &row, int column) const {
        const auto &sort = m_values[std::size_t(column)].sort;
        return sort ? sort(row) : text(row, column);
    }

private:
    static std::vector<TableColumn> headersOf(const std::vector<ModelColumn<Row>> &columns) {
        std::vector<TableColumn> headers;
        for (const ModelColumn<Row> &c : columns)
            headers.push_back({c.title, c.alignment, c.toolTip});
        return headers;
    }

    std::vector<ModelColumn<Row>> m_values;
};

// A table of `Row` values held as an immutable snapshot, replaced whole by
// resetData() (built off the GUI thread, handed over by value); one row a
// table row.
template <typename Row> class SnapshotTableModel : public ColumnTableModel<Row> {
public:
    void resetData(std::vector<Row> rows) {
        this->beginResetModel();
        m_rows = std::move(rows);
        this->endResetModel();
    }
    const std::vector<Row> &snapshot() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override {
        return parent.isValid() ? 0 : int(m_rows.size());
    }

protected:
    using ColumnTableModel<Row>::ColumnTableModel;
    const Row *rowAt(const QModelIndex &index) const override {
        return this->isCell(index) ? &m_rows[std::size_t(index.row())] : nullptr;
    }

    std::vector<Row> m_rows;
};

} // namespace rw
