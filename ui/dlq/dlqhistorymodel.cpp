#include "ui/dlq/dlqhistorymodel.h"

#include "ui/common/format.h"

#include <QStringBuilder>

namespace rw {

namespace {

QString preview(const std::optional<QByteArray> &payload)
{
    if (!payload)
        return QStringLiteral("\u2014");
    QString text = QString::fromUtf8(payload->left(400));
    if (payload->size() > 400)
        text += QStringLiteral("\u2026 (%1 bytes)").arg(payload->size());
    return text;
}

} // namespace

DlqHistoryModel::DlqHistoryModel(QObject *parent)
    : SnapshotTableModel({
        {tr("At (UTC)")},
        {tr("User")},
        {tr("Action")},
        {tr("Status")},
        {tr("Reason / detail")},
    }, parent)
{
}

QVariant DlqHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DlqHistoryEntry &e = m_rows[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case AtColumn: return fmt::timestamp(e.at);
        case UserColumn: return e.osUser;
        case ActionColumn: return e.action;
        case TransitionColumn:
            return QString(e.fromStatus.value_or(QStringLiteral("\u2014")) % QStringLiteral(" \u2192 ") % e.toStatus.value_or(QStringLiteral("\u2014")));
        case ReasonColumn: return e.reason.value_or(QString());
        default: return {};
        }
    case Qt::ToolTipRole:
        if (e.payloadBefore || e.payloadAfter)
            return tr("Before:\n%1\n\nAfter:\n%2").arg(preview(e.payloadBefore), preview(e.payloadAfter));
        return e.reason ? QVariant(*e.reason) : QVariant();
    default: return {};
    }
}

} // namespace rw
