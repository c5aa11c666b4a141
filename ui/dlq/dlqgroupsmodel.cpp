#include "ui/dlq/dlqgroupsmodel.h"

#include "ui/common/format.h"

#include <QBrush>
#include <QColor>
#include <QStringBuilder>

namespace rw {

DlqGroupsModel::DlqGroupsModel(QObject *parent)
    : TableModel({{tr("Error signature")}}, parent) {}

void DlqGroupsModel::resetData(std::vector<DlqGroup> groups, qint64 total) {
    beginResetModel();
    m_groups = std::move(groups);
    m_total = total;
    endResetModel();
}

int DlqGroupsModel::rowOf(const QString &signature) const {
    if (signature.isEmpty())
        return 0;
    for (std::size_t i = 0; i < m_groups.size(); ++i)
        if (m_groups[i].signature == signature)
            return int(i) + 1;
    return -1;
}

int DlqGroupsModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_groups.size()) + 1;
}

QVariant DlqGroupsModel::data(const QModelIndex &index, int role) const {
    if (!isCell(index))
        return {};
    if (index.row() == 0) {
        switch (role) {
        case Qt::DisplayRole:
            return tr("All signatures  \u00b7  %1").arg(fmt::number(m_total));
        case SignatureRole:
            return QString();
        case CountRole:
            return m_total;
        case ErrorClassRole:
            return QString();
        case Qt::FontRole:
            return boldIf(true);
        default:
            return {};
        }
    }
    const DlqGroup &g = m_groups[std::size_t(index.row() - 1)];
    switch (role) {
    case Qt::DisplayRole: {
        // "missing_field: order <n> has no amount" over its count.
        return QString(
            g.signature % u'\n' %
            (g.count == 1 ? tr("1 record") : tr("%1 records").arg(fmt::number(g.count))));
    }
    case Qt::ToolTipRole: {
        QStringList lines{g.signature, tr("e.g. %1").arg(g.example)};
        for (const auto &[status, n] : g.byStatus)
            lines << QStringLiteral("%1: %2").arg(enumName(status), fmt::number(n));
        return lines.join(u'\n');
    }
    case SignatureRole:
        return g.signature;
    case CountRole:
        return g.count;
    case ErrorClassRole:
        return g.errorClass;
    default:
        return {};
    }
}

} // namespace rw
