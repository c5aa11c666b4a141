#include "ui/audit/auditmodel.h"

#include "ui/common/format.h"
#include "ui/common/style.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QJsonDocument>

namespace rw {

namespace {

QColor actionColor(const QString &action) {
    if (action.contains(QLatin1String("failed")) || action.contains(QLatin1String("stale")) ||
        action.contains(QLatin1String("check_failed")))
        return style::qcolor(style::Colour::Error);
    if (action.contains(QLatin1String("cancelled")))
        return style::qcolor(style::Colour::Warning);
    if (action == QLatin1String("run succeeded") || action == QLatin1String("publish"))
        return style::qcolor(style::Colour::Ok);
    if (action == QLatin1String("preview"))
        return style::qcolor(style::Colour::Accent);
    return style::qcolor(style::Colour::Strong);
}

// Compact one-line JSON for the table; the tooltip shows it indented.
QString compact(const QString &json) {
    const QJsonDocument doc = QJsonDocument::fromJson(json.toUtf8());
    return doc.isNull() ? json : QString::fromUtf8(doc.toJson(QJsonDocument::Compact));
}

QString subject(const AuditRow &r) {
    return r.dataset.isEmpty() ? r.stream : r.dataset;
}

} // namespace

AuditModel::AuditModel(QObject *parent)
    : SnapshotTableModel(
          {
              {tr("#"), kAlignNumber, [](const AuditRow &r) { return r.id; }},
              {tr("At (UTC)"), kAlignText, [](const AuditRow &r) { return fmt::timestamp(r.at); },
               [](const AuditRow &r) { return r.at; }},
              {tr("User"), kAlignText, [](const AuditRow &r) { return r.osUser; }},
              {tr("Action"), kAlignText, [](const AuditRow &r) { return r.action; }},
              {tr("Dataset / stream"), kAlignText, subject},
              {tr("Run"), kAlignNumber,
               [](const AuditRow &r) {
                   return r.runId.isNull() ? QStringLiteral("\u2014")
                                           : QStringLiteral("#%1").arg(r.runId.toLongLong());
               },
               [](const AuditRow &r) {
                   return r.runId.isNull() ? qint64(-1) : r.runId.toLongLong();
               }},
              {tr("Detail"), kAlignText, [](const AuditRow &r) { return compact(r.detail); }},
          },
          parent, HeaderAlignment::View) {}

QVariant AuditModel::cellData(const AuditRow &r, int column, int role) const {
    switch (role) {
    case ActionRole:
        return r.action;
    case DatasetRole:
        return subject(r);
    case Qt::ToolTipRole:
        if (column == DetailColumn && !r.detail.isEmpty()) {
            const QJsonDocument doc = QJsonDocument::fromJson(r.detail.toUtf8());
            return doc.isNull() ? r.detail : QString::fromUtf8(doc.toJson(QJsonDocument::Indented));
        }
        return {};
    case Qt::ForegroundRole:
        if (column == ActionColumn)
            return QBrush(actionColor(r.action));
        if (column == DetailColumn || column == IdColumn)
            return QBrush(style::qcolor(style::Colour::Muted));
        return {};
    case Qt::FontRole:
        return boldIf(column == ActionColumn);
    default:
        return {};
    }
}

} // namespace rw
