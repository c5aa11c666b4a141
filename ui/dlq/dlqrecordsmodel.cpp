#include "ui/dlq/dlqrecordsmodel.h"

#include "ui/common/format.h"
#include "ui/common/style.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QStringBuilder>

namespace rw {

namespace {

QColor statusColor(DlqStatus status) {
    switch (status) {
    case DlqStatus::New:
        return style::qcolor(style::Colour::Accent);
    case DlqStatus::Fixed:
        return style::qcolor(style::Colour::Special);
    case DlqStatus::Replayed:
        return style::qcolor(style::Colour::Ok);
    case DlqStatus::Failed:
        return style::qcolor(style::Colour::Error);
    case DlqStatus::Discarded:
        break;
    }
    return style::qcolor(style::Colour::Muted); // discarded
}

QString where(const DlqRecord &r) {
    if (r.sourceKind == QLatin1String("stream") && r.partition && r.offset)
        return QStringLiteral("%1 \u00b7 p%2 @%3").arg(r.source(), *r.partition).arg(*r.offset);
    if (r.partition)
        return QString(r.source() % QStringLiteral(" \u00b7 ") % *r.partition);
    return r.source();
}

} // namespace

DlqRecordsModel::DlqRecordsModel(QObject *parent)
    : ColumnTableModel(
          {
              {tr("#"), kAlignNumber, [](const DlqRecord &r) { return r.id; }},
              {tr("Status"), kAlignText, [](const DlqRecord &r) { return enumName(r.status); }},
              {tr("Dry run"), kAlignText, [this](const DlqRecord &r) { return checkText(r); }},
              {tr("Source"), kAlignText, where},
              {tr("Event / key"), kAlignText,
               [](const DlqRecord &r) {
                   return r.eventId.value_or(r.key.value_or(QStringLiteral("\u2014")));
               }},
              {tr("Error"), kAlignText,
               [](const DlqRecord &r) {
                   const QString error = r.lastError ? *r.lastError : r.error;
                   const QString cls = r.lastErrorClass ? *r.lastErrorClass : r.errorClass;
                   return QString(cls % QStringLiteral(": ") % error);
               }},
              {tr("Attempts"), kAlignNumber, [](const DlqRecord &r) { return r.attempts; }},
              {tr("First seen (UTC)"), kAlignText,
               [](const DlqRecord &r) { return fmt::timestamp(r.firstSeen); },
               [](const DlqRecord &r) { return r.firstSeen; }},
          },
          parent, HeaderAlignment::View) {}

void DlqRecordsModel::setFilter(const Database &db, const DlqSelection &filter) {
    restart(db, filter);
    fetchPage();
}

void DlqRecordsModel::clear() {
    restart(std::nullopt, {});
}

void DlqRecordsModel::restart(std::optional<Database> db, const DlqSelection &filter) {
    beginResetModel();
    m_jobs.cancel(); // pages of the old filter are dropped
    m_db = std::move(db);
    m_filter = filter;
    m_rows.clear();
    m_rowOf.clear();
    if (!m_db)
        m_verdicts.clear();
    m_pagesFetched = 0;
    m_fetching = false;
    m_complete = !m_db; // nothing to fetch without a database
    endResetModel();
}

void DlqRecordsModel::reload() {
    if (m_db)
        setFilter(*m_db, m_filter);
}

int DlqRecordsModel::rowOf(qint64 id) const {
    return m_rowOf.value(id, -1);
}

bool DlqRecordsModel::canFetchMore(const QModelIndex &parent) const {
    return !parent.isValid() && m_db && !m_complete && !m_fetching;
}

void DlqRecordsModel::fetchMore(const QModelIndex &parent) {
    if (canFetchMore(parent))
        fetchPage();
}

void DlqRecordsModel::fetchPage() {
    if (!m_db || m_fetching || m_complete)
        return;
    m_fetching = true;
    const qint64 after = m_rows.empty() ? 0 : m_rows.back().id;
    const int limit = m_pageSize;
    m_jobs.start(
        [db = *m_db, filter = m_filter, after, limit] { return pageDlq(db, filter, after, limit); },
        [this, limit](Result<std::vector<DlqRecord>> page) {
            if (!page) {
                m_fetching = false;
                m_complete = true; // do not hammer a failing database from the view
                Q_EMIT fetchFailed(page.error().message);
                return;
            }
            ++m_pagesFetched;
            m_complete = int(page->size()) < limit;
            // Still fetching while the rows go in: a view (or a model tester)
            // asking for more in between must not read from the old end.
            if (!page->empty()) {
                const int first = int(m_rows.size());
                beginInsertRows({}, first, first + int(page->size()) - 1);
                for (DlqRecord &r : *page) {
                    m_rowOf.insert(r.id, int(m_rows.size()));
                    m_rows.push_back(std::move(r));
                }
                endInsertRows();
            }
            m_fetching = false;
            Q_EMIT pageFetched(int(page->size()));
        });
}

void DlqRecordsModel::refreshRecords(const QList<qint64> &ids) {
    if (!m_db || ids.isEmpty())
        return;
    QList<qint64> loaded;
    for (qint64 id : ids)
        if (m_rowOf.contains(id))
            loaded << id;
    if (loaded.isEmpty())
        return;
    DlqSelection byId;
    byId.ids = loaded;
    m_jobs.start([db = *m_db, byId] { return pageDlq(db, byId, 0, int(byId.ids.size())); },
                 [this, loaded](Result<std::vector<DlqRecord>> records) {
                     if (!records)
                         return;
                     for (DlqRecord &r : *records) {
                         const int row = rowOf(r.id);
                         if (row < 0)
                             continue;
                         m_rows[std::size_t(row)] = std::move(r);
                         Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
                     }
                     Q_EMIT recordsRefreshed(loaded);
                 });
}

void DlqRecordsModel::setVerdicts(const std::vector<DlqVerdict> &verdicts) {
    for (const DlqVerdict &v : verdicts)
        m_verdicts.insert(v.id, v);
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, CheckColumn), index(rowCount() - 1, CheckColumn));
}

void DlqRecordsModel::clearVerdicts() {
    m_verdicts.clear();
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, CheckColumn), index(rowCount() - 1, CheckColumn));
}

const DlqVerdict *DlqRecordsModel::verdict(qint64 id) const {
    const auto it = m_verdicts.constFind(id);
    return it == m_verdicts.cend() ? nullptr : &*it;
}

int DlqRecordsModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

const DlqRecord *DlqRecordsModel::rowAt(const QModelIndex &index) const {
    return isCell(index) ? &m_rows[std::size_t(index.row())] : nullptr;
}

QString DlqRecordsModel::checkText(const DlqRecord &r) const {
    const DlqVerdict *v = verdict(r.id);
    if (!v)
        return QString();
    if (!v->valid)
        return QString(QStringLiteral("\u2717 ") % v->errorClass % QStringLiteral(": ") % v->error);
    return v->alreadyLanded ? tr("\u2713 valid (already landed)") : tr("\u2713 valid");
}

QVariant DlqRecordsModel::cellData(const DlqRecord &r, int column, int role) const {
    const DlqVerdict *v = verdict(r.id);
    switch (role) {
    case IdRole:
        return r.id;
    case StatusRole:
        return QVariant::fromValue(r.status);
    case SignatureRole:
        return r.signature;
    case Qt::ToolTipRole:
        if (column == ErrorColumn) {
            QString tip = tr("Captured: %1: %2").arg(r.errorClass, r.error);
            if (r.lastError)
                tip += u'\n' % tr("Last replay (%1): %2: %3")
                                   .arg(fmt::timestamp(r.lastAttemptAt.value_or(QString())),
                                        r.lastErrorClass.value_or(QString()), *r.lastError);
            tip += u'\n' % tr("Signature: %1").arg(r.signature);
            return tip;
        }
        if (column == CheckColumn && v && !v->valid)
            return QString(v->errorClass % QStringLiteral(": ") % v->error);
        if (column == EventColumn && r.key)
            return tr("Key: %1").arg(*r.key);
        return {};
    case Qt::ForegroundRole:
        if (column == StatusColumn)
            return QBrush(statusColor(r.status));
        if (column == CheckColumn && v)
            return QBrush(v->valid ? style::qcolor(style::Colour::Ok)
                                   : style::qcolor(style::Colour::Error));
        if (column == IdColumn)
            return QBrush(style::qcolor(style::Colour::Muted));
        return {};
    case Qt::FontRole:
        return boldIf(column == StatusColumn);
    default:
        return {};
    }
}

} // namespace rw
