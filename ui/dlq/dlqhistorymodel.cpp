#include "ui/dlq/dlqhistorymodel.h"

#include "ui/common/format.h"

#include <QStringBuilder>

namespace rw {

namespace {

QString preview(const std::optional<QByteArray> &payload) {
    if (!payload)
        return QStringLiteral("\u2014");
    QString text = QString::fromUtf8(payload->left(400));
    if (payload->size() > 400)
        text += QStringLiteral("\u2026 (%1 bytes)").arg(payload->size());
    return text;
}

} // namespace

DlqHistoryModel::DlqHistoryModel(QObject *parent)
    : SnapshotTableModel(
          {
              {tr("At (UTC)"), {}, [](const DlqHistoryEntry &e) { return fmt::timestamp(e.at); }},
              {tr("User"), {}, [](const DlqHistoryEntry &e) { return e.osUser; }},
              {tr("Action"), {}, [](const DlqHistoryEntry &e) { return e.action; }},
              {tr("Status"),
               {},
               [](const DlqHistoryEntry &e) {
                   return QString(e.fromStatus.value_or(QStringLiteral("\u2014")) %
                                  QStringLiteral(" \u2192 ") %
                                  e.toStatus.value_or(QStringLiteral("\u2014")));
               }},
              {tr("Reason / detail"),
               {},
               [](const DlqHistoryEntry &e) { return e.reason.value_or(QString()); }},
          },
          parent) {}

QVariant DlqHistoryModel::cellData(const DlqHistoryEntry &e, int column, int role) const {
    Q_UNUSED(column);
    if (role != Qt::ToolTipRole)
        return {};
    if (e.payloadBefore || e.payloadAfter)
        return tr("Before:\n%1\n\nAfter:\n%2")
            .arg(preview(e.payloadBefore), preview(e.payloadAfter));
    return e.reason ? QVariant(*e.reason) : QVariant();
}

} // namespace rw
