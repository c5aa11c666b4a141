#include "ui/batch/samplesmodel.h"

#include "core/batch/partitions.h"
#include "ui/common/style.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QJsonValue>
#include <QStringBuilder>

namespace rw {

SamplesModel::SamplesModel(QObject *parent)
    : TableModel({{tr("Partition")}}, parent) {}

QString SamplesModel::categoryName(Category category) {
    switch (category) {
    case Category::Inserted:
        return tr("Inserted");
    case Category::Updated:
        return tr("Updated");
    case Category::Deleted:
        return tr("Deleted");
    case Category::Unchanged:
        return tr("Unchanged");
    }
    return {};
}

void SamplesModel::resetData(const std::vector<PartitionResult> &partitions, Category category,
                             const QStringList &keyColumns) {
    beginResetModel();
    m_category = category;
    m_rows.clear();
    QStringList others;
    const auto addColumns = [&](const QJsonObject &o) {
        for (auto it = o.begin(); it != o.end(); ++it)
            if (!keyColumns.contains(it.key()) && !others.contains(it.key()))
                others << it.key();
    };
    m_available = 0;
    for (const PartitionResult &p : partitions) {
        if (!p.samples)
            continue;
        const Samples &s = *p.samples;
        const qint64 n = category == Category::Inserted  ? qint64(s.inserted.size())
                         : category == Category::Updated ? qint64(s.updated.size())
                         : category == Category::Deleted ? qint64(s.deleted.size())
                                                         : qint64(s.unchanged.size());
        m_available += n;
        if (n == 0 || (m_rows.size() >= std::size_t(kMaxRows) && category != Category::Updated))
            continue;
        const QString label = partitionLabel(p.partition);
        switch (category) {
        case Category::Inserted:
        case Category::Deleted:
        case Category::Unchanged: {
            const auto &list = category == Category::Inserted  ? s.inserted
                               : category == Category::Deleted ? s.deleted
                                                               : s.unchanged;
            for (const QJsonObject &o : list) {
                if (m_rows.size() >= std::size_t(kMaxRows))
                    break;
                addColumns(o);
                m_rows.push_back({label, {}, o});
            }
            break;
        }
        case Category::Updated:
            for (const auto &[before, after] : s.updated) {
                if (!m_focus.isEmpty() && before.value(m_focus) == after.value(m_focus)) {
                    --m_available; // not where the focus column changed
                    continue;
                }
                if (m_rows.size() >= std::size_t(kMaxRows))
                    continue;
                addColumns(after);
                m_rows.push_back({label, before, after});
            }
            break;
        }
    }
    others.sort();
    m_columns = keyColumns;
    // Key columns the rows do not hold (a transform may rename) are dropped.
    if (!m_rows.empty())
        m_columns.removeIf([&](const QString &c) { return !m_rows.front().row.contains(c); });
    m_columns << others;
    // The view's columns: the partition, then each data column (twice for
    // Updated: before and after).
    std::vector<TableColumn> header{{tr("Partition")}};
    for (const QString &c : std::as_const(m_columns)) {
        if (category != Category::Updated) {
            header.push_back({c});
            continue;
        }
        header.push_back(
            {QString(c % tr(" \u2190 before")), {}, tr("The row as it is in the target now")});
        header.push_back(
            {QString(c % tr(" \u2192 after")), {}, tr("The row as the re-run would write it")});
    }
    setColumns(std::move(header));
    endResetModel();
}

int SamplesModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

QString SamplesModel::columnName(int section) const {
    if (section <= 0)
        return {};
    const int i = m_category == Category::Updated ? (section - 1) / 2 : section - 1;
    return m_columns.value(i);
}

bool SamplesModel::isAfterColumn(int section) const {
    return m_category == Category::Updated && section > 0 && (section - 1) % 2 == 1;
}

QVariant SamplesModel::cell(const QJsonObject &o, const QString &column) const {
    const QJsonValue v = o.value(column);
    if (v.isNull() || v.isUndefined())
        return QVariant();
    return v.toVariant();
}

QVariant SamplesModel::data(const QModelIndex &index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows[std::size_t(index.row())];
    const int column = index.column();
    if (column == 0) {
        if (role == Qt::DisplayRole || role == SortRole)
            return r.partition;
        return {};
    }
    const QString name = columnName(column);
    const bool updated = m_category == Category::Updated;
    const bool after = isAfterColumn(column);
    const QVariant value = cell(updated && !after ? r.before : r.row, name);
    const bool changed = updated && (m_focus.isEmpty() || name == m_focus) &&
                         r.before.value(name) != r.row.value(name);
    switch (role) {
    case Qt::DisplayRole:
        return value.isNull() ? QStringLiteral("NULL") : value.toString();
    case SortRole:
        return value;
    case ChangedRole:
        return changed;
    case Qt::TextAlignmentRole:
        if (value.typeId() == QMetaType::Double || value.typeId() == QMetaType::LongLong ||
            value.typeId() == QMetaType::Int)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        return QVariant::fromValue(Qt::Alignment(Qt::AlignLeft | Qt::AlignVCenter));
    case Qt::BackgroundRole:
        if (changed)
            return QBrush(
                style::qcolor(after ? style::Colour::InsertedTint : style::Colour::DeletedTint));
        if (updated && !after)
            return QBrush(style::qcolor(style::Colour::Panel));
        return {};
    case Qt::ForegroundRole:
        if (value.isNull())
            return QBrush(style::qcolor(style::Colour::Faint));
        if (changed)
            return QBrush(
                style::qcolor(after ? style::Colour::InsertedText : style::Colour::DeletedText));
        return {};
    case Qt::FontRole:
        return boldIf(changed);
    case Qt::ToolTipRole:
        if (changed)
            return tr("%1: %2 \u2192 %3")
                .arg(name, cell(r.before, name).toString(), cell(r.row, name).toString());
        return {};
    default:
        return {};
    }
}

} // namespace rw
