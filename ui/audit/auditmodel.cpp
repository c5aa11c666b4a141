#include "ui/audit/auditmodel.h"

#include "ui/common/style.h"
#include "ui/common/format.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QJsonDocument>

namespace rw {

namespace {

QColor actionColor(const QString &action)
{
    if (action.contains(QLatin1String("failed")) || action.contains(QLatin1String("stale")) || action.contains(QLatin1String("check_failed")))
        return style::qcolor(style::Colour::Error);
    if (action.contains(QLatin1String("cancelled")))
        return style::qcolor(style::Colour::Warning);
    if (action == QLatin1String("run succeeded") || action == QLatin1String("publish"))
        return style::qcolor(style::Colour::Ok);
    if (action == QLatin1String("preview"))
        return style::qcolor(style::Colour::Accent);
    return QColor(0x30, 0x34, 0x3a);
}

// Compact one-line JSON for the table; the tooltip shows it indented.
QString compact(const QString &json)
{
    const QJsonDocument doc = QJsonDocument::fromJson(json.toUtf8());
    return doc.isNull() ? json : QString::fromUtf8(doc.toJson(QJsonDocument::Compact));
}

} // namespace

AuditModel::AuditModel(QObject *parent)
    : SnapshotTableModel({
        {tr("#")},
        {tr("At (UTC)")},
        {tr("User")},
        {tr("Action")},
        {tr("Dataset / stream")},
        {tr("Run")},
        {tr("Detail")},
    }, parent)
{
}

QVariant AuditModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const AuditRow &r = m_rows[std::size_t(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case IdColumn: return r.id;
        case AtColumn: return fmt::timestamp(r.at);
        case UserColumn: return r.osUser;
        case ActionColumn: return r.action;
        case SubjectColumn: return r.dataset.isEmpty() ? r.stream : r.dataset;
        case RunColumn: return r.runId.isNull() ? QStringLiteral("\u2014") : QStringLiteral("#%1").arg(r.runId.toLongLong());
        case DetailColumn: return compact(r.detail);
        default: return {};
        }
    case SortRole:
        switch (column) {
        case IdColumn: return r.id;
        case RunColumn: return r.runId.isNull() ? qint64(-1) : r.runId.toLongLong();
        case AtColumn: return r.at;
        default: return data(index, Qt::DisplayRole);
        }
    case ActionRole: return r.action;
    case DatasetRole: return r.dataset.isEmpty() ? r.stream : r.dataset;
    case Qt::ToolTipRole:
        if (column == DetailColumn && !r.detail.isEmpty()) {
            const QJsonDocument doc = QJsonDocument::fromJson(r.detail.toUtf8());
            return doc.isNull() ? r.detail : QString::fromUtf8(doc.toJson(QJsonDocument::Indented));
        }
        return {};
    case Qt::TextAlignmentRole:
        if (column == IdColumn || column == RunColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        return QVariant::fromValue(Qt::Alignment(Qt::AlignLeft | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (column == ActionColumn)
            return QBrush(actionColor(r.action));
        if (column == DetailColumn || column == IdColumn)
            return QBrush(style::qcolor(style::Colour::Muted));
        return {};
    case Qt::FontRole:
        return boldIf(column == ActionColumn);
    default: return {};
    }
}

} // namespace rw
