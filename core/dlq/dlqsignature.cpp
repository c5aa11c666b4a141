// Error signatures: an error message with its numbers and ids replaced by
// placeholders, so that records failing the same way group together. The
// same function is registered in SQLite (rewind_dlq_signature) so grouping
// runs in the database as a GROUP BY; PostgreSQL computes it with the same
// regular expressions in SQL (SqlDialect::dlqSignature).
#include "core/dlq/dlq.h"
#include "core/dlq/dlqdialect.h"

#include <QRegularExpression>
#include <QStringBuilder>
#include <QStringDecoder>

namespace rw {

QString errorSignature(const QString &errorClass, const QString &error) {
    static const QRegularExpression uuid(QStringLiteral(
        "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"));
    static const QRegularExpression quoted(QStringLiteral("'[^']*'"));
    static const QRegularExpression hex(QStringLiteral(
        "\\b(?:0x[0-9a-fA-F]+|(?=[0-9a-fA-F]*[0-9])(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,})\\b"));
    // A number not glued to a name: "order 42", "ord-42", "id=42", but not "amount2".
    static const QRegularExpression number(
        QStringLiteral("(?<![A-Za-z_0-9.])[-+]?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?"));
    QString m = error;
    m.replace(uuid, QStringLiteral("<id>"));
    m.replace(quoted, QStringLiteral("'<v>'"));
    m.replace(hex, QStringLiteral("<id>"));
    m.replace(number, QStringLiteral("<n>"));
    return errorClass % QStringLiteral(": ") % m.simplified();
}

namespace {

QString textArg(sqlite::sqlite3_value *v) {
    const sqlite::Api &a = sqlite::api();
    const unsigned char *text = a.valueText(v);
    if (!text)
        return QString();
    // A leading byte-order mark stays a character, as in the message Rewind
    // reads back (QString::fromUtf8 drops it, and the signature the
    // database grouped by was then not the record's).
    QStringDecoder decode(QStringDecoder::Utf8, QStringDecoder::Flag::ConvertInitialBom);
    return decode(QByteArrayView(text, a.valueBytes(v)));
}

void signatureFn(sqlite::sqlite3_context *context, int argc, sqlite::sqlite3_value **argv) {
    if (argc != 2)
        return;
    const QByteArray out = errorSignature(textArg(argv[0]), textArg(argv[1])).toUtf8();
    sqlite::api().resultText(context, out.constData(), int(out.size()), sqlite::transient());
}

} // namespace

std::span<const sqlite::Function> dlqSqliteFunctions() {
    static constexpr sqlite::Function functions[] = {
        {.name = "rewind_dlq_signature", .arguments = 2, .scalar = signatureFn}};
    return functions;
}

namespace dlqinternal {

Status ensureFunctions(const Database &db) {
    // SQLite: registered as the connection opened. A server engine: the
    // signature is plain SQL (SqlDialect::dlqSignature); the JSON helpers
    // are made once per connection.
    const DlqDialect &dlq = DlqDialect::of(db.dialect());
    QStringList statements = dlq.sessionFunctions();
    if (statements.isEmpty())
        return {};
    statements << db.dialect().valueFitsSetup(); // stream sinks' typed columns (DLQ replay of
                                                 // stream records)
    auto present = db.scalar(dlq.sessionFunctionsPresent());
    if (!present)
        return fail(present.error());
    if (present->toLongLong() == statements.size())
        return {};
    for (const QString &sql : statements)
        if (auto r = db.exec(sql); !r)
            return fail(r.error());
    return {};
}

} // namespace dlqinternal

} // namespace rw
