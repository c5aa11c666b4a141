#pragma once

#include "core/batch/batch.h"
#include "ui/common/tablemodel.h"

#include <QJsonObject>
#include <QStringList>
#include <vector>

namespace rw {

// Example rows of one diff category across the previewed partitions. For
// "updated" each column appears twice, before and after side by side, and
// the cells whose value changed are highlighted (ChangedRole is true).
class SamplesModel : public TableModel {
    Q_OBJECT
public:
    enum class Category { Inserted, Updated, Deleted, Unchanged };
    enum Role { ChangedRole = FirstCustomRole };

    explicit SamplesModel(QObject *parent = nullptr);

    // At most this many rows are held: a preview of 10,000 partitions has
    // up to 20 samples of each per partition, and a table of a million
    // examples helps no one (and held the GUI thread for seconds).
    static constexpr int kMaxRows = 1000;

    // `keyColumns` come first; the other columns follow by name. Takes the
    // samples of the first partitions, up to kMaxRows rows.
    void resetData(const std::vector<PartitionResult> &partitions, Category category,
                   const QStringList &keyColumns);
    Category category() const { return m_category; }
    // A column chosen in the preview's column summary: the Updated rows
    // narrowed to those where it changed, only its cells highlighted; empty
    // for every row. Applies from the next resetData() on; to Updated alone.
    void setFocusColumn(const QString &column) { m_focus = column; }
    const QString &focusColumn() const { return m_focus; }
    // Every sample of the category in the partitions given, shown or not
    // (where it changed, with a focus column).
    qint64 availableRows() const { return m_available; }
    // The data column behind a view column ("" for the partition column).
    QString columnName(int section) const;
    // For Updated: whether `section` shows the after image.
    bool isAfterColumn(int section) const;

    static QString categoryName(Category category);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString partition;
        QJsonObject before; // Updated only
        QJsonObject row;    // the row, or the after image
    };
    QVariant cell(const QJsonObject &o, const QString &column) const;

    Category m_category = Category::Inserted;
    QStringList m_columns;
    std::vector<Row> m_rows;
    qint64 m_available = 0;
    QString m_focus;
};

} // namespace rw
