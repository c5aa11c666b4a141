#pragma once

#include "core/util/error.h"

#include <QSqlDatabase>
#include <span>

// The one place Rewind reaches SQLite's C API. The Qt SQLite driver has
// already loaded the library; its symbols are resolved from it (dlsym), so
// core links no SQLite of its own and needs no sqlite3.h. The declarations
// below are the few of sqlite3.h Rewind uses; the C ABI is stable.
namespace rw::sqlite {

struct sqlite3;
struct sqlite3_context;
struct sqlite3_value;
struct sqlite3_stmt;

inline constexpr int kOk = 0;
inline constexpr int kDone = 101; // SQLITE_DONE
inline constexpr int kInteger = 1, kFloat = 2, kText = 3, kBlob = 4, kNull = 5;

using ScalarFn = void (*)(sqlite3_context *, int, sqlite3_value **);
using FinalFn = void (*)(sqlite3_context *);
using Destructor = void (*)(void *);

// SQLITE_TRANSIENT: SQLite copies a result before the call returns.
inline Destructor transient() {
    return reinterpret_cast<Destructor>(-1);
}
// SQLITE_STATIC: the caller's bytes stay valid until the statement is stepped.
inline Destructor borrowed() {
    return nullptr;
}

// The entry points, resolved once per process. Thread-safe: read-only after
// the first call.
struct Api {
    int (*createFunction)(sqlite3 *, const char *, int, int, void *, ScalarFn, ScalarFn, FinalFn,
                          Destructor) = nullptr;
    int (*valueType)(sqlite3_value *) = nullptr;
    const void *(*valueBlob)(sqlite3_value *) = nullptr;
    const unsigned char *(*valueText)(sqlite3_value *) = nullptr;
    int (*valueBytes)(sqlite3_value *) = nullptr;
    long long (*valueInt64)(sqlite3_value *) = nullptr;
    double (*valueDouble)(sqlite3_value *) = nullptr;
    void (*resultInt64)(sqlite3_context *, long long) = nullptr;
    void (*resultNull)(sqlite3_context *) = nullptr;
    void (*resultText)(sqlite3_context *, const char *, int, Destructor) = nullptr;
    void (*resultBlob)(sqlite3_context *, const void *, int, Destructor) = nullptr;
    void (*resultError)(sqlite3_context *, const char *, int) = nullptr;
    void (*resultErrorNomem)(sqlite3_context *) = nullptr;
    void *(*aggregateContext)(sqlite3_context *, int) = nullptr;

    // Statements (BulkLoad).
    int (*prepare)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **) = nullptr;
    int (*bindInt64)(sqlite3_stmt *, int, long long) = nullptr;
    int (*bindText)(sqlite3_stmt *, int, const char *, int, Destructor) = nullptr;
    int (*bindBlob)(sqlite3_stmt *, int, const void *, int, Destructor) = nullptr;
    int (*bindNull)(sqlite3_stmt *, int) = nullptr;
    int (*step)(sqlite3_stmt *) = nullptr;
    int (*reset)(sqlite3_stmt *) = nullptr;
    int (*finalize)(sqlite3_stmt *) = nullptr;
    const char *(*errmsg)(sqlite3 *) = nullptr;

    bool complete() const;
    bool statementsComplete() const;
};
const Api &api();

// A function to register: a scalar when `scalar` is set, else an aggregate
// of `step` and `final`. Registered deterministic, UTF-8.
struct Function {
    const char *name = nullptr;
    int arguments = -1; // -1: any number
    ScalarFn scalar = nullptr;
    ScalarFn step = nullptr;
    FinalFn final = nullptr;
};

// The sqlite3 handle of an open connection of the Qt SQLite driver; null
// (and `error` set) where it cannot be had.
sqlite3 *handleOf(QSqlDatabase &connection, QString &error);

// Registers `functions` on an open SQLite connection of this thread. An
// error names the function that could not be registered.
Status createFunctions(QSqlDatabase &connection, std::span<const Function> functions);

// Process-wide SQLite settings, applied before the first SQLite connection of
// the process opens (later calls, and calls once one is open, change
// nothing). Turns off SQLite's memory statistics: with them on, every
// allocation of every connection takes one global mutex, which two threads
// replaying a stream (a stager and a writer) then fight over. Rewind reads
// none of those statistics.
void configureLibrary();

} // namespace rw::sqlite
