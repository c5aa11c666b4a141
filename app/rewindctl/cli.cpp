#include "app/rewindctl/cli.h"

#include "app/rewindctl/clisupport.h"

#include <QCoreApplication>
#include <QStringBuilder>
#include <algorithm>

namespace rw::cli {

namespace {

// --- the frame ------------------------------------------------------------------

const std::vector<Command> &commands() {
    static const std::vector<Command> list = [] {
        std::vector<Command> all;
        for (auto area : {workspaceCommands, batchCommands, lateCommands, streamCommands,
                          auditCommands, dlqCommands, recoveryCommands, dbtCommands}) {
            auto more = area();
            all.insert(all.end(), std::make_move_iterator(more.begin()),
                       std::make_move_iterator(more.end()));
        }
        return all;
    }();
    return list;
}

// A two-word command ("dlq list") is named by the first two arguments.
QString commandName(const QStringList &args) {
    const QString two = args.size() > 1 ? QString(args.at(0) % u' ' % args.at(1)) : QString();
    const auto &all = commands();
    return std::any_of(all.begin(), all.end(), [&](const Command &c) { return c.name == two; })
               ? two
               : args.constFirst();
}

// Edit distance (Levenshtein), for the nearest command to a typo.
int distance(const QString &a, const QString &b) {
    std::vector<int> row(size_t(b.size()) + 1);
    for (size_t j = 0; j < row.size(); ++j)
        row[j] = int(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        int diagonal = row[0];
        row[0] = int(i);
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const int up = row[size_t(j)];
            row[size_t(j)] = std::min(
                {up + 1, row[size_t(j - 1)] + 1, diagonal + (a.at(i - 1) == b.at(j - 1) ? 0 : 1)});
            diagonal = up;
        }
    }
    return row.back();
}

// The command nearest to `word` (by its first word), empty when none is near.
QString nearestCommand(const QString &word) {
    QString best;
    int bestDistance = std::max<int>(2, int(word.size()) / 3) + 1;
    for (const Command &c : commands()) {
        const QString first = c.name.section(u' ', 0, 0);
        const int d = distance(word.toLower(), first);
        if (d < bestDistance) {
            bestDistance = d;
            best = first;
        }
    }
    return best;
}

// True when some command is named "WORD ..." ("dlq" for "dlq list").
bool isCommandGroup(const QString &word) {
    const auto &all = commands();
    return std::any_of(all.begin(), all.end(),
                       [&](const Command &c) { return c.name.startsWith(word % u' '); });
}

// The command line with `--db`, `--spec` (with their values) and `--json`
// taken from before and between the command words ("--db w.db dlq --json
// list") and put after them, as git and kubectl users type them. Anything
// else before the command words is refused, naming it.
Result<QStringList> globalOptionsLast(const QStringList &args) {
    QStringList words, globals;
    qsizetype i = 0;
    const auto wordsDone = [&] {
        return !words.isEmpty() && (words.size() == 2 || !isCommandGroup(words.constFirst()));
    };
    while (i < args.size() && !wordsDone()) {
        const QString &a = args.at(i);
        if (!a.startsWith(u'-') || a == QLatin1String("-")) {
            words << a;
            ++i;
            continue;
        }
        const QString bare = a.startsWith(QLatin1String("--")) ? a.mid(2) : a.mid(1);
        const QString name = bare.section(u'=', 0, 0);
        if (name == QLatin1String("json") && !bare.contains(u'=')) {
            globals << a;
            ++i;
        } else if (name == QLatin1String("db") || name == QLatin1String("spec")) {
            if (bare.contains(u'=')) {
                globals << a;
                ++i;
            } else if (i + 1 == args.size() || args.at(i + 1).startsWith(QLatin1String("--"))) {
                return badInput(
                    QStringLiteral("--%1 needs a value (%2)")
                        .arg(name, name == QLatin1String("db")
                                       ? QStringLiteral("a SQLite file or a postgresql:// URL")
                                       : QStringLiteral("the pipeline spec, a JSON file")));
            } else {
                globals << a << args.at(i + 1);
                i += 2;
            }
        } else if (words.isEmpty() && (a == QLatin1String("--help") || a == QLatin1String("-h"))) {
            words << a;
            ++i;
        } else if (words.isEmpty()) {
            return badInput(QStringLiteral("\"%1\" stands before the command; only --db, --spec "
                                           "and --json may (rewindctl COMMAND %1 ...)")
                                .arg(a));
        } else {
            break; // "dlq --status new": the group's word alone, told below
        }
    }
    if (words.isEmpty() && !globals.isEmpty())
        return badInput(
            QStringLiteral("no command after %1; run 'rewindctl --help' for the commands")
                .arg(globals.join(u' ')));
    return words + args.mid(i) + globals;
}

QString usage() {
    QString text = QStringLiteral(
        "Usage: rewindctl COMMAND [options]\n\n"
        "Rewind's command-line twin: browse, preview and safely re-run data pipelines.\n\n"
        "Commands:\n");
    qsizetype width = 0;
    for (const auto &c : commands())
        width = std::max(width, c.name.size());
    for (const auto &c : commands())
        text += QStringLiteral("  ") % c.name.leftJustified(width + 2) % c.summary % u'\n';
    text += QStringLiteral("  ") % QStringLiteral("completion").leftJustified(width + 2) %
            QStringLiteral(
                "Print a bash or zsh completion script: source <(rewindctl completion bash)\n");
    text += QStringLiteral(
        "\nRun 'rewindctl COMMAND --help' for a command's options.\n"
        "Exit codes: 0 success (a dry run included), 1 failure, 2 bad input, 3 a quality check "
        "failed, 4 the plan is stale.\n");
    return text;
}

} // namespace

int run(const QStringList &arguments, QTextStream &out, QTextStream &err) {
    const auto normalized = globalOptionsLast(arguments.mid(1));
    if (!normalized) {
        err << "rewindctl: " << normalized.error().message << '\n';
        if (arguments.contains(QStringLiteral("--json")) ||
            arguments.contains(QStringLiteral("-json")))
            out << QString::fromStdString(Json{
                       {"error", {{"exit_code", 2}, {"message", s(normalized.error().message)}}}}
                                              .dump(2))
                << '\n';
        return 2;
    }
    const QStringList &args = *normalized;
    if (args.isEmpty()) {
        err << usage();
        return 2;
    }
    const QString name = commandName(args);
    // Input refused before the command runs: the message on stderr and, when
    // --json was asked for, the same error document as a failing command's.
    const bool wantsJson =
        args.contains(QStringLiteral("--json")) || args.contains(QStringLiteral("-json"));
    const auto refuse = [&](const QString &message, const QString &more) {
        err << message << more;
        if (wantsJson)
            out << QString::fromStdString(
                       Json{{"error",
                             {{"exit_code", 2},
                              {"message", s(message.section(QStringLiteral(": "), 1))}}}}
                           .dump(2))
                << '\n';
        return 2;
    };
    if (name == QLatin1String("--help") || name == QLatin1String("-h") ||
        name == QLatin1String("help")) {
        out << usage();
        return 0;
    }
    if (name == QLatin1String("completion") || name == QLatin1String("__complete"))
        return completionCommand(commands(), arguments.mid(1).mid(arguments.mid(1).indexOf(name)),
                                 out, err);
    const auto &all = commands();
    const auto command =
        std::find_if(all.begin(), all.end(), [&](const Command &c) { return c.name == name; });
    if (command == all.end()) {
        // "dlq frob": name the group's commands rather than call "dlq" unknown.
        QStringList group;
        for (const Command &c : all)
            if (c.name.startsWith(name % u' '))
                group << c.name.mid(name.size() + 1);
        if (!group.isEmpty()) {
            if (args.size() < 2 || args.at(1).startsWith(u'-'))
                return refuse(QStringLiteral("rewindctl: %1 needs a command: %1 %2")
                                  .arg(name, group.join(QStringLiteral(" | "))),
                              QStringLiteral("\n"));
            return refuse(QStringLiteral("rewindctl: unknown command \"%1 %2\": %1 takes %3")
                              .arg(name, args.at(1), group.join(QStringLiteral(", "))),
                          QStringLiteral("\n"));
        }
        // One line: the word, the nearest command, where the list is.
        const QString nearest = name.startsWith(u'-') ? QString() : nearestCommand(name);
        return refuse(
            QStringLiteral(
                "rewindctl: unknown command \"%1\"%2; run 'rewindctl --help' for the commands")
                .arg(name, nearest.isEmpty()
                               ? QString()
                               : QStringLiteral(" (did you mean \"%1\"?)").arg(nearest)),
            QStringLiteral("\n"));
    }

    QCommandLineParser parser;
    parser.setApplicationDescription(command->summary);
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("Show this help."));
    parser.addOption(help);
    parser.addOption(kJson);
    command->options(parser);
    QStringList toParse = args.mid(name.count(u' '));
    toParse[0] = QStringLiteral("rewindctl ") + name; // argv[0] for the help text
    // An option whose value may be left out (dlq replay --to-topic [TOPIC]):
    // bare, it reads as given with an empty value.
    for (qsizetype i = 1; i < toParse.size(); ++i)
        if (command->optionalValues.contains(toParse[i]) &&
            (i + 1 == toParse.size() || toParse[i + 1].startsWith(u'-')))
            toParse[i] += u'=';
    if (!parser.parse(toParse))
        return refuse(QStringLiteral("rewindctl %1: %2").arg(name, parser.errorText()),
                      QStringLiteral("\nRun 'rewindctl %1 --help'.\n").arg(name));
    // The same global option twice with different values: which one was meant?
    for (const QString &global : {QStringLiteral("db"), QStringLiteral("spec")}) {
        if (parser.optionNames().count(global) < 2)
            continue;
        QStringList values = parser.values(global);
        values.removeDuplicates();
        if (values.size() > 1)
            return refuse(
                QStringLiteral("rewindctl %1: --%2 given twice, as \"%3\" and \"%4\"; give it once")
                    .arg(name, global, values.at(0), values.at(1)),
                QStringLiteral("\n"));
    }
    if (parser.isSet(help)) {
        // Qt names the executable's path; the command is what was typed.
        QString text = parser.helpText();
        const QString program =
            QCoreApplication::instance() ? QCoreApplication::arguments().value(0) : QString();
        if (const qsizetype at = program.isEmpty() ? -1 : text.indexOf(program); at >= 0)
            text.replace(at, program.size(), QStringLiteral("rewindctl ") + name);
        out << text;
        return 0;
    }
    if (!parser.positionalArguments().isEmpty())
        return refuse(QStringLiteral("rewindctl %1: unexpected argument \"%2\"")
                          .arg(name, parser.positionalArguments().constFirst()),
                      QStringLiteral("\nRun 'rewindctl %1 --help'.\n").arg(name));

    Context ctx{parser, out, err, parser.isSet(kJson), false, name};
    const Status result = command->run(ctx);
    if (result)
        return 0;
    const Error &error = result.error();
    err << "rewindctl " << name << ": " << error.message << '\n';
    if (ctx.json && !ctx.reported)
        ctx.print({{"error", {{"exit_code", error.exitCode()}, {"message", s(error.message)}}}});
    return error.exitCode();
}

int run(const QStringList &arguments) {
    QTextStream out(stdout);
    QTextStream err(stderr);
    return run(arguments, out, err);
}

} // namespace rw::cli
