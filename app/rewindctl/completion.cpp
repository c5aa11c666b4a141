// rewindctl completion bash|zsh, and the __complete helper its scripts call:
// commands, their options, and dataset, stream and group names read from the
// workspace the command line names (--spec, --db). Never touches a cluster.
#include "app/rewindctl/clisupport.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <QRegularExpression>
#include <QStringBuilder>

namespace rw::cli {

namespace {

const char kBash[] = R"BASH(# bash completion for rewindctl: source <(rewindctl completion bash)
_rewindctl() {
    local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n' out
    out=$(rewindctl __complete "${COMP_WORDS[@]:1:COMP_CWORD-1}" -- "$cur" 2>/dev/null)
    if [[ $out == __files__ ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
    else
        COMPREPLY=($(compgen -W "$out" -- "$cur"))
    fi
}
complete -o filenames -F _rewindctl rewindctl
)BASH";

const char kZsh[] = R"ZSH(#compdef rewindctl
# zsh completion for rewindctl: source <(rewindctl completion zsh)
_rewindctl() {
    local out
    out=$(rewindctl __complete "${(@)words[2,CURRENT-1]}" -- "${words[CURRENT]}" 2>/dev/null)
    if [[ $out == __files__ ]]; then
        _files
    else
        local -a candidates
        candidates=("${(@f)out}")
        compadd -- $candidates
    fi
}
if (( $+functions[compdef] )); then compdef _rewindctl rewindctl; fi
)ZSH";

// The value of option `name` in `words` (--name V or --name=V).
QString valueOf(const QStringList &words, const QString &name) {
    for (qsizetype i = 0; i < words.size(); ++i) {
        const QString w = words[i];
        if ((w == u'-' + name || w == QStringLiteral("--") + name) && i + 1 < words.size())
            return words[i + 1];
        for (const QString &prefix :
             QStringList{QStringLiteral("--") + name + u'=', u'-' + name + u'='})
            if (w.startsWith(prefix))
                return w.mid(prefix.size());
    }
    return QString();
}

// The options a command takes, read from its help text.
QStringList optionsOf(const Command &command) {
    QCommandLineParser parser;
    parser.addOption(kJson);
    command.options(parser);
    QStringList out{QStringLiteral("--help")};
    static const QRegularExpression option(QStringLiteral(R"((?:^|[\s,])(--[a-z][a-z0-9-]*))"));
    for (auto it = option.globalMatch(parser.helpText()); it.hasNext();) {
        const QString name = it.next().captured(1);
        if (!out.contains(name))
            out << name;
    }
    return out;
}

QStringList candidates(const std::vector<Command> &commands, QStringList words,
                       const QString &cur) {
    // The command words, past global options given before them.
    QStringList commandWords;
    for (qsizetype i = 0; i < words.size(); ++i) {
        const QString w = words[i];
        if (w.startsWith(u'-')) {
            const QString bare = w.section(u'=', 0, 0);
            if ((bare == QLatin1String("--db") || bare == QLatin1String("--spec")) &&
                !w.contains(u'='))
                ++i; // its value
            if (!commandWords.isEmpty())
                break;
            continue;
        }
        commandWords << w;
        if (commandWords.size() == 2)
            break;
    }
    const QString prev = words.isEmpty() ? QString() : words.constLast();
    QStringList out;
    if (prev == QLatin1String("--db") || prev == QLatin1String("--spec") ||
        prev.startsWith(QLatin1String("--out-")) || prev.endsWith(QLatin1String("-file")) ||
        prev.endsWith(QLatin1String("-out")) || prev == QLatin1String("--export") ||
        prev == QLatin1String("--report"))
        return {QStringLiteral("__files__")};
    // The command: one word, or a group's two.
    const Command *command = nullptr;
    if (!commandWords.isEmpty()) {
        for (const Command &c : commands)
            if (c.name == commandWords.join(u' ') ||
                (commandWords.size() >= 1 && c.name == commandWords.first()))
                command = &c;
        if (!command && commandWords.size() == 1) {
            for (const Command &c : commands)
                if (c.name.startsWith(commandWords.first() % u' '))
                    out << c.name.section(u' ', 1);
            if (!out.isEmpty())
                return out; // a group's subcommands
        }
    }
    if (commandWords.isEmpty()) {
        if (cur.startsWith(u'-'))
            return {QStringLiteral("--db"), QStringLiteral("--spec"), QStringLiteral("--json"),
                    QStringLiteral("--help")};
        for (const Command &c : commands)
            if (!out.contains(c.name.section(u' ', 0, 0)))
                out << c.name.section(u' ', 0, 0);
        out << QStringLiteral("completion");
        return out;
    }
    if (commandWords.first() == QLatin1String("completion"))
        return {QStringLiteral("bash"), QStringLiteral("zsh")};
    // Names from the workspace given on the line.
    const QString specPath = valueOf(words, QStringLiteral("spec"));
    const auto spec =
        specPath.isEmpty() ? Result<Spec>(fail(Error::badInput(QString()))) : loadSpec(specPath);
    if (prev == QLatin1String("--dataset")) {
        if (spec)
            for (const DatasetSpec &d : spec->datasets)
                out << d.name;
        return out;
    }
    if (prev == QLatin1String("--stream")) {
        if (spec)
            for (const StreamSpec &s : spec->streams)
                out << s.name;
        return out;
    }
    if (prev == QLatin1String("--group")) {
        const QString stream = valueOf(words, QStringLiteral("stream"));
        const StreamSpec *s = spec ? spec->stream(stream) : nullptr;
        if (s && s->kafka)
            out << s->kafka->groups;
        const QString dbUrl = valueOf(words, QStringLiteral("db"));
        if (!dbUrl.isEmpty() && !stream.isEmpty())
            if (auto db = Database::open(dbUrl))
                if (auto has = db->hasRelation(QStringLiteral("rewind_offsets")); has && *has)
                    if (auto q =
                            db->exec(QStringLiteral("SELECT DISTINCT group_id FROM rewind_offsets "
                                                    "WHERE stream = ? ORDER BY 1"),
                                     {stream}))
                        while (q->next())
                            if (!out.contains(q->value(0).toString()))
                                out << q->value(0).toString();
        return out;
    }
    if (prev == QLatin1String("--status"))
        return {QStringLiteral("new"), QStringLiteral("fixed"), QStringLiteral("replayed"),
                QStringLiteral("failed"), QStringLiteral("discarded")};
    if (prev == QLatin1String("--source")) {
        if (spec) {
            for (const DatasetSpec &d : spec->datasets)
                out << QStringLiteral("dataset:") % d.name;
            for (const StreamSpec &s : spec->streams)
                out << QStringLiteral("stream:") % s.name;
        }
        return out;
    }
    return command ? optionsOf(*command) : QStringList();
}

} // namespace

int completionCommand(const std::vector<Command> &commands, const QStringList &args,
                      QTextStream &out, QTextStream &err) {
    // args: "completion SHELL" or "__complete WORDS... -- CUR"
    if (args.constFirst() == QLatin1String("completion")) {
        const QString shell = args.value(1);
        if (shell == QLatin1String("bash"))
            out << kBash;
        else if (shell == QLatin1String("zsh"))
            out << kZsh;
        else {
            err << "rewindctl completion: give the shell, bash or zsh (e.g. source <(rewindctl "
                   "completion bash))\n";
            return 2;
        }
        return 0;
    }
    QStringList words = args.mid(1);
    QString cur;
    if (const qsizetype dashes = words.lastIndexOf(QStringLiteral("--")); dashes >= 0) {
        cur = words.value(dashes + 1);
        words = words.mid(0, dashes);
    }
    for (const QString &c : candidates(commands, words, cur))
        out << c << '\n';
    return 0;
}

} // namespace rw::cli
