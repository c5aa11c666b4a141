#include "core/sql/sqldialect.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QStringBuilder>

namespace rw {

QString SqlDialect::quote(const QString &identifier) const {
    QString escaped = identifier;
    escaped.replace(u'"', QStringLiteral("\"\""));
    return u'"' % escaped % u'"';
}

QString SqlDialect::upsertSet(const QStringList &conflictColumns,
                              const QStringList &updateColumns) const {
    QStringList target;
    for (const auto &c : conflictColumns)
        target << quote(c);
    QStringList sets;
    for (const auto &c : updateColumns)
        sets << quote(c) % QStringLiteral(" = excluded.") % quote(c);
    if (sets.isEmpty())
        return QStringLiteral(" ON CONFLICT (") % target.join(u", ") %
               QStringLiteral(") DO NOTHING");
    return QStringLiteral(" ON CONFLICT (") % target.join(u", ") %
           QStringLiteral(") DO UPDATE SET ") % sets.join(u", ");
}

QJsonValue SqlDialect::jsonValue(const QSqlField &field) const {
    const QVariant v = field.value();
    if (v.isNull())
        return QJsonValue(QJsonValue::Null);
    switch (v.typeId()) {
    case QMetaType::QDate:
        return v.toDate().toString(Qt::ISODate);
    case QMetaType::QTime: {
        const QTime t = v.toTime();
        return t.toString(t.msec() ? Qt::ISODateWithMs : Qt::ISODate);
    }
    case QMetaType::QDateTime: {
        const QDateTime t = v.toDateTime();
        return t.toString(t.time().msec() ? Qt::ISODateWithMs : Qt::ISODate);
    }
    default:
        return QJsonValue::fromVariant(v);
    }
}

std::shared_ptr<const SqlDialect> makeDialect(SqlDialect::Kind kind) {
    switch (kind) {
    case SqlDialect::Kind::Sqlite:
        return makeSqliteDialect();
    case SqlDialect::Kind::Postgres:
        return makePostgresDialect();
    case SqlDialect::Kind::Trino:
        return makeTrinoDialect();
    }
    return nullptr;
}

bool isNumberType(const QString &declaredType) {
    static const QRegularExpression number(
        QStringLiteral("^(int|integer|tinyint|smallint|mediumint|bigint|int2|int4|int8|serial|"
                       "bigserial|smallserial|real|double|float|float4|float8|numeric|decimal|"
                       "number|money)\\b"),
        QRegularExpression::CaseInsensitiveOption);
    return number.match(declaredType.trimmed()).hasMatch();
}

bool isTimeType(const QString &declaredType) {
    static const QRegularExpression time(
        QStringLiteral("^(date|datetime|timestamp|timestamptz)\\b"),
        QRegularExpression::CaseInsensitiveOption);
    return time.match(declaredType.trimmed()).hasMatch();
}

bool isBinaryType(const QString &declaredType) {
    static const QRegularExpression binary(QStringLiteral("^(blob|bytea|binary|varbinary)\\b"),
                                           QRegularExpression::CaseInsensitiveOption);
    return binary.match(declaredType.trimmed()).hasMatch();
}

} // namespace rw
