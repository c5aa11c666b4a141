#pragma once

#include <QString>
#include <expected>

namespace rw {

// What went wrong, in the operator's words. The code maps one-to-one onto
// the exit codes of the public contract (see docs/cli.md).
struct Error {
    enum class Code {
        Internal = 1,    // anything else: database failure, I/O, bugs
        BadInput = 2,    // usage, spec, unknown dataset/stream/column/partition
        CheckFailed = 3, // a quality gate failed; nothing published for that partition
        StalePlan = 4,   // source changed since the preview the run was locked to
    };

    Code code = Code::Internal;
    QString message;
    // A lock or busy condition that may clear by itself: worth a retry.
    bool transient = false;
    // The engine's error code when a statement failed (PostgreSQL's
    // SQLSTATE, SQLite's result code), else empty.
    QString sqlState = {};
    // The server asked for a password none of the sources gave, or refused
    // the one given: the console then asks for one.
    bool needsPassword = false;
    // The role may not do the operation (core/sql/privileges.h): the
    // console disables the action with this message as its reason.
    bool refused = false;

    static Error badInput(const QString &message) { return {Code::BadInput, message}; }
    static Error internal(const QString &message) { return {Code::Internal, message}; }

    int exitCode() const { return static_cast<int>(code); }
};

template <typename T> using Result = std::expected<T, Error>;
using Status = std::expected<void, Error>;

inline std::unexpected<Error> fail(Error error) {
    return std::unexpected<Error>(std::move(error));
}
inline std::unexpected<Error> badInput(const QString &message) {
    return std::unexpected<Error>(Error::badInput(message));
}
inline std::unexpected<Error> internalError(const QString &message) {
    return std::unexpected<Error>(Error::internal(message));
}

} // namespace rw
