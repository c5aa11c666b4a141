#include "core/sql/sqliteapi.h"

#include <QSqlDriver>
#include <QVariant>
#include <dlfcn.h>
#include <mutex>

namespace rw::sqlite {

namespace {

constexpr int kUtf8 = 1;
constexpr int kDeterministic = 0x000000800;
constexpr int kConfigMemStatus = 9; // SQLITE_CONFIG_MEMSTATUS

void *library() {
    static void *const lib = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_NOLOAD);
    return lib;
}

template <typename F> void resolve(F &fn, const char *name) {
    void *p = library() ? dlsym(library(), name) : nullptr;
    fn = reinterpret_cast<F>(p ? p : dlsym(RTLD_DEFAULT, name));
}

} // namespace

bool Api::complete() const {
    return createFunction && valueType && valueBlob && valueText && valueBytes && valueInt64 &&
           valueDouble && resultInt64 && resultNull && resultText && resultBlob && resultError &&
           resultErrorNomem && aggregateContext;
}

bool Api::statementsComplete() const {
    return prepare && bindInt64 && bindText && bindBlob && bindNull && step && reset && finalize &&
           errmsg;
}

const Api &api() {
    static const Api resolved = [] {
        Api a;
        resolve(a.createFunction, "sqlite3_create_function_v2");
        resolve(a.valueType, "sqlite3_value_type");
        resolve(a.valueBlob, "sqlite3_value_blob");
        resolve(a.valueText, "sqlite3_value_text");
        resolve(a.valueBytes, "sqlite3_value_bytes");
        resolve(a.valueInt64, "sqlite3_value_int64");
        resolve(a.valueDouble, "sqlite3_value_double");
        resolve(a.resultInt64, "sqlite3_result_int64");
        resolve(a.resultNull, "sqlite3_result_null");
        resolve(a.resultText, "sqlite3_result_text");
        resolve(a.resultBlob, "sqlite3_result_blob");
        resolve(a.resultError, "sqlite3_result_error");
        resolve(a.resultErrorNomem, "sqlite3_result_error_nomem");
        resolve(a.aggregateContext, "sqlite3_aggregate_context");
        resolve(a.prepare, "sqlite3_prepare_v2");
        resolve(a.bindInt64, "sqlite3_bind_int64");
        resolve(a.bindText, "sqlite3_bind_text");
        resolve(a.bindBlob, "sqlite3_bind_blob");
        resolve(a.bindNull, "sqlite3_bind_null");
        resolve(a.step, "sqlite3_step");
        resolve(a.reset, "sqlite3_reset");
        resolve(a.finalize, "sqlite3_finalize");
        resolve(a.errmsg, "sqlite3_errmsg");
        return a;
    }();
    return resolved;
}

sqlite3 *handleOf(QSqlDatabase &connection, QString &error) {
    const QVariant handle = connection.driver()->handle();
    if (!handle.isValid() || qstrcmp(handle.typeName(), "sqlite3*") != 0) {
        error = QStringLiteral("the Qt SQLite driver did not expose its sqlite3 handle");
        return nullptr;
    }
    sqlite3 *db = *static_cast<sqlite3 *const *>(handle.data());
    if (!db)
        error = QStringLiteral("the SQLite connection is not open");
    return db;
}

Status createFunctions(QSqlDatabase &connection, std::span<const Function> functions) {
    const Api &a = api();
    if (!a.complete())
        return internalError(QStringLiteral("cannot reach the SQLite library loaded by the Qt "
                                            "driver to register Rewind's SQL functions"));
    QString error;
    sqlite3 *db = handleOf(connection, error);
    if (!db)
        return internalError(error);
    for (const Function &f : functions) {
        const int rc = a.createFunction(db, f.name, f.arguments, kUtf8 | kDeterministic, nullptr,
                                        f.scalar, f.step, f.final, nullptr);
        if (rc != kOk)
            return internalError(QStringLiteral("cannot register %1 (SQLite error %2)")
                                     .arg(QString::fromLatin1(f.name))
                                     .arg(rc));
    }
    return {};
}

void configureLibrary() {
    static std::once_flag once;
    std::call_once(once, [] {
        int (*config)(int, ...) = nullptr;
        resolve(config, "sqlite3_config");
        // SQLITE_MISUSE once the library is initialised: then nothing changes.
        if (config)
            config(kConfigMemStatus, 0);
    });
}

} // namespace rw::sqlite
