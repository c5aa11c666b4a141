#pragma once

// Shared by the rewindctl command files (cli_*.cpp): the command table entry,
// the output context, common options and small formatting helpers.

#include "core/util/error.h"
#include "core/workspace/workspace.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QTextStream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace rw {
struct RecoveryResult;
}

namespace rw::cli {

using Json = nlohmann::ordered_json;

inline std::string s(const QString &text) {
    return text.toStdString();
}
inline Json nullable(const std::optional<QString> &value) {
    return value ? Json(s(*value)) : Json(nullptr);
}
// A JSON array of the strings.
inline Json strings(const QStringList &values) {
    Json out = Json::array();
    for (const QString &v : values)
        out.push_back(v.toStdString());
    return out;
}
QString thousands(qint64 n);

// A plain text table for people: left-aligned text, right-aligned numbers.
class TextTable {
public:
    explicit TextTable(QStringList header, QList<bool> numeric = {})
        : m_header(std::move(header))
        , m_numeric(std::move(numeric)) {}
    void add(QStringList row) { m_rows << std::move(row); }
    void print(QTextStream &out) const;

private:
    QStringList m_header;
    QList<bool> m_numeric;
    QList<QStringList> m_rows;
};

struct Context {
    QCommandLineParser &parser;
    QTextStream &out;
    QTextStream &err;
    bool json = false;
    bool reported = false; // the command already printed its result document
    QString command = {};  // the command's name, as typed ("partitions")

    void print(const Json &document) { out << QString::fromStdString(document.dump(2)) << '\n'; }
    // True when the option was given (safe for options a command does not define).
    bool given(const QString &name) const { return parser.optionNames().contains(name); }
};

// The --db given, as it may be printed: never with its password.
QString shownDb(const Context &ctx);

struct Command {
    QString name;
    QString summary;
    std::function<void(QCommandLineParser &)> options;
    std::function<Status(Context &)> run;
    QStringList optionalValues =
        {}; // options whose value may be left out ("--to-topic" alone reads as "--to-topic=")
};

// rewindctl completion bash|zsh, and __complete (completion.cpp).
int completionCommand(const std::vector<Command> &commands, const QStringList &args,
                      QTextStream &out, QTextStream &err);

inline const QCommandLineOption
    kDb({QStringLiteral("db")},
        QStringLiteral(
            "Database: a SQLite path, sqlite:PATH, or "
            "postgresql://user@host[:port]/dbname[?sslmode=...], or service=NAME (passwords: "
            "~/.pgpass, PGPASSWORD; docs/security.md), or trino://user@host[:port]/catalog/schema "
            "(trinos:// for HTTPS; TRINO_PASSWORD)."),
        QStringLiteral("DB"));
inline const QCommandLineOption kSpec({QStringLiteral("spec")},
                                      QStringLiteral("Pipeline spec (JSON)."),
                                      QStringLiteral("SPEC"));
inline const QCommandLineOption kJson({QStringLiteral("json")},
                                      QStringLiteral("Print exactly one JSON document on stdout."));
inline const QCommandLineOption kDataset({QStringLiteral("dataset")},
                                         QStringLiteral("Dataset name from the spec."),
                                         QStringLiteral("D"));
inline const QCommandLineOption kFrom({QStringLiteral("from")},
                                      QStringLiteral("First partition of a range (inclusive)."),
                                      QStringLiteral("P"));
inline const QCommandLineOption kTo({QStringLiteral("to")},
                                    QStringLiteral("Last partition of a range (inclusive)."),
                                    QStringLiteral("P"));
inline const QCommandLineOption kRun({QStringLiteral("run")},
                                     QStringLiteral("Run id (from rewindctl runs)."),
                                     QStringLiteral("ID"));
inline const QCommandLineOption kExecute(
    {QStringLiteral("execute")},
    QStringLiteral(
        "Apply the change. Without it, a dry run: print what would change, change nothing."));

void workspaceOptions(QCommandLineParser &p);
// A command's options: --db and --spec, then `more`, in that order.
std::function<void(QCommandLineParser &)> withWorkspace(const QList<QCommandLineOption> &more);
// The value of a required option, or BadInput naming it.
Result<QString> required(const Context &ctx, const QCommandLineOption &option);
// The whole number an option holds, from `min` to `max`; else BadInput
// `--NAME "TEXT": expected EXPECTED` (by default "a number from MIN to MAX").
Result<int> intOption(const Context &ctx, const QCommandLineOption &option, int min, int max,
                      const QString &expected = QString());
// The required run id of --run (kRun), a positive number; else BadInput
// `--run "TEXT": expected EXPECTED`.
Result<qint64>
runIdOption(const Context &ctx,
            const QString &expected = QStringLiteral("a run id (a positive number)"));
// Opens --db with --spec (validated). The --dataset and --stream given are
// the ones the command uses: unknown or broken, they are refused before the
// workspace is touched; `namesAreFilters` is for a command where they only
// filter history (audit), which a broken dataset still has.
Result<Workspace> workspace(const Context &ctx, bool namesAreFilters = false);
// The same for a command that shows only the spec (datasets, streams): it
// also opens a database where nothing resolves and Rewind has never been.
Result<Workspace> specWorkspace(const Context &ctx);
// The same, and the --dataset it names (BadInput naming a missing option or
// an unknown dataset). The pointer is into the returned workspace's spec.
Result<std::pair<Workspace, const DatasetSpec *>> datasetOf(const Context &ctx);

// The command tables of each area.
std::vector<Command> workspaceCommands(); // demo, datasets, streams, partitions
std::vector<Command> batchCommands();     // preview, run, resume, runs, run-show
std::vector<Command> streamCommands();    // offsets, offsets-reset, replay
std::vector<Command> auditCommands();     // audit, run-report
std::vector<Command> lateCommands();      // lag, finalize
std::vector<Command> dlqCommands();       // dlq list, show, fix, validate, replay, discard
std::vector<Command> recoveryCommands();  // duplicates, freeze, unfreeze, recover, rollback
std::vector<Command> dbtCommands();       // init --dbt

// A duplicate recovery's result, as `recover` prints it (recoverycommands.cpp).
Json recoveryJson(const RecoveryResult &r);
void printRecoveryText(Context &ctx, const RecoveryResult &r);

} // namespace rw::cli
