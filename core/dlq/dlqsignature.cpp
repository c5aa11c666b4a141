// Error signatures: an error message with its numbers and ids replaced by
// placeholders, so that records failing the same way group together. The
// same function is registered in SQLite (rewind_dlq_signature) so grouping
// runs in the database as a GROUP BY; PostgreSQL computes it with the same
// regular expressions in SQL (SqlDialect::dlqSignature).
#include "core/dlq/dlq.h"

#include <QRegularExpression>
#include <QSqlDriver>
#include <QStringBuilder>
#include <QStringDecoder>

#include <dlfcn.h>

namespace rw {

QString errorSignature(const QString &errorClass, const QString &error)
{
    static const QRegularExpression uuid(QStringLiteral("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"));
    static const QRegularExpression quoted(QStringLiteral("'[^']*'"));
    static const QRegularExpression hex(QStringLiteral("\\b(?:0x[0-9a-fA-F]+|(?=[0-9a-fA-F]*[0-9])(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,})\\b"));
    // A number not glued to a name: "order 42", "ord-42", "id=42", but not "amount2".
    static const QRegularExpression number(QStringLiteral("(?<![A-Za-z_0-9.])[-+]?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?"));
    QString m = error;
    m.replace(uuid, QStringLiteral("<id>"));
    m.replace(quoted, QStringLiteral("'<v>'"));
    m.replace(hex, QStringLiteral("<id>"));
    m.replace(number, QStringLiteral("<n>"));
    return errorClass % QStringLiteral(": ") % m.simplified();
}

namespace {

struct sqlite3;
struct sqlite3_context;
struct sqlite3_value;
constexpr int kSqliteOk = 0;
constexpr int kSqliteUtf8 = 1;
constexpr int kSqliteDeterministic = 0x000000800;

using ScalarFn = void (*)(sqlite3_context *, int, sqlite3_value **);
using CreateFunctionFn = int (*)(sqlite3 *, const char *, int, int, void *, ScalarFn, void (*)(sqlite3_context *, int, sqlite3_value **),
                                 void (*)(sqlite3_context *), void (*)(void *));
using ValueTextFn = const unsigned char *(*)(sqlite3_value *);
using ValueBytesFn = int (*)(sqlite3_value *);
using ResultTextFn = void (*)(sqlite3_context *, const char *, int, void (*)(void *));

struct Api {
    CreateFunctionFn createFunction = nullptr;
    ValueTextFn valueText = nullptr;
    ValueBytesFn valueBytes = nullptr;
    ResultTextFn resultText = nullptr;
    bool complete() const { return createFunction && valueText && valueBytes && resultText; }
};

const Api &api()
{
    static const Api resolved = [] {
        Api a;
        void *lib = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_NOLOAD);
        auto sym = [&](const char *name) {
            void *p = lib ? dlsym(lib, name) : nullptr;
            return p ? p : dlsym(RTLD_DEFAULT, name);
        };
        a.createFunction = reinterpret_cast<CreateFunctionFn>(sym("sqlite3_create_function_v2"));
        a.valueText = reinterpret_cast<ValueTextFn>(sym("sqlite3_value_text"));
        a.valueBytes = reinterpret_cast<ValueBytesFn>(sym("sqlite3_value_bytes"));
        a.resultText = reinterpret_cast<ResultTextFn>(sym("sqlite3_result_text"));
        return a;
    }();
    return resolved;
}

QString textArg(sqlite3_value *v)
{
    const Api &a = api();
    const unsigned char *text = a.valueText(v);
    if (!text)
        return QString();
    // A leading byte-order mark stays a character, as in the message Rewind
    // reads back (QString::fromUtf8 drops it, and the signature the
    // database grouped by was then not the record's).
    QStringDecoder decode(QStringDecoder::Utf8, QStringDecoder::Flag::ConvertInitialBom);
    return decode(QByteArrayView(text, a.valueBytes(v)));
}

void signatureFn(sqlite3_context *context, int argc, sqlite3_value **argv)
{
    if (argc != 2)
        return;
    const QByteArray out = errorSignature(textArg(argv[0]), textArg(argv[1])).toUtf8();
    // SQLITE_TRANSIENT: SQLite copies the text.
    api().resultText(context, out.constData(), int(out.size()), reinterpret_cast<void (*)(void *)>(-1));
}

} // namespace

namespace dlqinternal {

Status ensureFunctions(const Database &db)
{
    if (!db.dialect().inProcessFunctions()) {
        // A server engine: the signature is plain SQL (SqlDialect::dlqSignature);
        // the JSON helpers are made once per connection.
        const QStringList statements = db.dialect().dlqSessionFunctions();
        if (statements.isEmpty())
            return {};
        auto present = db.scalar(db.dialect().dlqSessionFunctionsPresent());
        if (!present)
            return fail(present.error());
        if (present->toLongLong() == statements.size())
            return {};
        for (const QString &sql : statements)
            if (auto r = db.exec(sql); !r)
                return fail(r.error());
        return {};
    }
    auto connection = db.connection();
    if (!connection)
        return fail(connection.error());
    const Api &a = api();
    if (!a.complete())
        return internalError(QStringLiteral("cannot reach the SQLite library to register rewind_dlq_signature"));
    const QVariant handle = connection->driver()->handle();
    if (!handle.isValid() || qstrcmp(handle.typeName(), "sqlite3*") != 0)
        return internalError(QStringLiteral("the Qt SQLite driver did not expose its sqlite3 handle"));
    sqlite3 *raw = *static_cast<sqlite3 *const *>(handle.data());
    if (!raw)
        return internalError(QStringLiteral("the SQLite connection is not open"));
    const int rc = a.createFunction(raw, "rewind_dlq_signature", 2, kSqliteUtf8 | kSqliteDeterministic, nullptr, signatureFn, nullptr, nullptr,
                                    nullptr);
    if (rc != kSqliteOk)
        return internalError(QStringLiteral("cannot register rewind_dlq_signature (SQLite error %1)").arg(rc));
    return {};
}

} // namespace dlqinternal

} // namespace rw
