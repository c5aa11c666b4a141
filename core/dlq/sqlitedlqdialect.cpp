#include "core/dlq/dlqdialect.h"

#include <QStringBuilder>

namespace rw {

namespace {

class SqliteDlqDialect final : public DlqDialect {
public:
    QStringList sessionFunctions() const override { return {}; }
    QString sessionFunctionsPresent() const override { return QString(); }
    QString jsonArrayTexts(const QString &array) const override {
        return QStringLiteral("SELECT value FROM json_each(") % array % u')';
    }
    QString jsonArrayIntegers(const QString &array) const override { return jsonArrayTexts(array); }
    QString jsonEach(const QString &document) const override {
        return QStringLiteral("json_each(") % document % u')';
    }
    QString isValidJson(const QString &text) const override {
        return QStringLiteral("json_valid(") % text % QStringLiteral(") IS 1");
    }
    QString jsonIsObject(const QString &document) const override {
        return QStringLiteral("json_type(") % document % QStringLiteral(") IS 'object'");
    }
    QString jsonSet(const QString &document,
                    const std::vector<std::pair<QString, QString>> &pathValues,
                    QVariantList &binds) const override {
        QStringList args;
        for (const auto &[path, value] : pathValues) {
            // Text that does not parse as JSON is set as a JSON string. Quoted
            // here, not by json_set: SQLite 3.40 sets the root ($) to such
            // text raw, unquoted, which is no longer JSON.
            args << QStringLiteral(
                "?, CASE WHEN json_valid(?) THEN json(?) ELSE json_quote(?) END");
            binds << path << value << value << value;
        }
        return QStringLiteral("json_set(") % document % QStringLiteral(", ") %
               args.join(QStringLiteral(", ")) % u')';
    }
    QString stringAgg(const QString &expr, const QString &separatorLiteral) const override {
        return QStringLiteral("group_concat(") % expr % QStringLiteral(", ") % separatorLiteral %
               u')';
    }
    QString payloadBytes(const QString &expr) const override {
        return QStringLiteral("CAST(") % expr % QStringLiteral(" AS BLOB)");
    }
    QString payloadStored(const QString &expr) const override { return payloadBytes(expr); }
    QString payloadLength(const QString &expr) const override {
        return QStringLiteral("length(CAST(") % expr % QStringLiteral(" AS BLOB))");
    }
    QString nullSafeDistinct(const QString &a, const QString &b) const override {
        return a % QStringLiteral(" IS NOT ") % b;
    }
    QString jsonValuesDiffer(const QString &a, const QString &b) const override {
        return QStringLiteral("rewind_json_differ(") % a % QStringLiteral(", ") % b %
               QStringLiteral(") = 1");
    }
    QVariant payloadValue(const QByteArray &bytes) const override { return bytes; }
    QString workColumn(const QString &quotedName, const QString &) const override {
        return quotedName;
    }
    QString fromJsonText(const QString &expr, const QString &) const override { return expr; }
};

} // namespace

const DlqDialect &sqliteDlqDialect() {
    static const SqliteDlqDialect dialect;
    return dialect;
}

} // namespace rw
