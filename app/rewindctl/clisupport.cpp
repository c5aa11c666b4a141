#include "app/rewindctl/clisupport.h"

#include <QLocale>
#include <QStringBuilder>

namespace rw::cli {

QString shownDb(const Context &ctx) {
    const QString given = ctx.parser.value(kDb);
    const auto url = DatabaseUrl::parse(given);
    return url ? url->withoutPassword() : QStringLiteral("DB");
}

QString thousands(qint64 n) {
    static const QLocale english(QLocale::English, QLocale::UnitedStates);
    return english.toString(n);
}

void TextTable::print(QTextStream &out) const {
    QList<qsizetype> width;
    for (const QString &h : m_header)
        width << h.size();
    for (const auto &row : m_rows)
        for (qsizetype i = 0; i < row.size() && i < width.size(); ++i)
            width[i] = std::max(width[i], row[i].size());
    auto line = [&](const QStringList &cells) {
        QStringList padded;
        for (qsizetype i = 0; i < cells.size(); ++i)
            padded << (m_numeric.value(i) ? cells[i].rightJustified(width[i])
                                          : cells[i].leftJustified(width[i]));
        QString text = padded.join(QStringLiteral("  "));
        while (text.endsWith(u' ')) // a right-aligned first column keeps its leading spaces
            text.chop(1);
        out << text << '\n';
    };
    line(m_header);
    for (const auto &row : m_rows)
        line(row);
}

void workspaceOptions(QCommandLineParser &p) {
    p.addOption(kDb);
    p.addOption(kSpec);
}

std::function<void(QCommandLineParser &)> withWorkspace(const QList<QCommandLineOption> &more) {
    return [more](QCommandLineParser &p) {
        workspaceOptions(p);
        p.addOptions(more);
    };
}

Result<std::pair<Workspace, const DatasetSpec *>> datasetOf(const Context &ctx) {
    auto name = required(ctx, kDataset);
    if (!name)
        return fail(name.error());
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto dataset = ws->spec.requireDataset(*name);
    if (!dataset)
        return fail(dataset.error());
    const DatasetSpec *d = *dataset;
    return std::pair<Workspace, const DatasetSpec *>(std::move(*ws), d);
}

Result<QString> required(const Context &ctx, const QCommandLineOption &option) {
    const QString name = option.names().constFirst();
    if (!ctx.parser.isSet(option) || ctx.parser.value(option).isEmpty())
        return badInput(QStringLiteral("--%1 is required").arg(name));
    return ctx.parser.value(option);
}

Result<int> intOption(const Context &ctx, const QCommandLineOption &option, int min, int max,
                      const QString &expected) {
    bool ok = false;
    const QString text = ctx.parser.value(option);
    const int n = text.toInt(&ok);
    if (!ok || n < min || n > max)
        return badInput(QStringLiteral("--%1 \"%2\": expected %3")
                            .arg(option.names().constFirst(), text,
                                 expected.isEmpty()
                                     ? QStringLiteral("a number from %1 to %2").arg(min).arg(max)
                                     : expected));
    return n;
}

Result<qint64> runIdOption(const Context &ctx, const QString &expected) {
    auto text = required(ctx, kRun);
    if (!text)
        return fail(text.error());
    bool ok = false;
    const qint64 id = text->toLongLong(&ok);
    if (!ok || id <= 0)
        return badInput(QStringLiteral("--run \"%1\": expected %2").arg(*text, expected));
    return id;
}

namespace {

Result<Workspace> openFor(const Context &ctx, bool namesAreFilters) {
    auto db = required(ctx, kDb);
    if (!db)
        return fail(db.error());
    auto spec = required(ctx, kSpec);
    if (!spec)
        return fail(spec.error());
    // What the command names is checked before the control schema is made
    // or migrated: refusing a broken or unknown one changes nothing.
    QList<Touch> touches;
    const QStringList given = ctx.parser.optionNames();
    for (const QString &kind : {QStringLiteral("dataset"), QStringLiteral("stream")})
        if (!namesAreFilters && given.contains(kind))
            for (const QString &name : ctx.parser.values(kind))
                touches.append({kind, name});
    auto ws = openWorkspace(*db, *spec, touches);
    if (!ws)
        return ws;
    // A Trino warehouse: the commands built for it so far; the others are
    // refused before they touch it.
    static const QStringList onTrino{
        QStringLiteral("datasets"),   QStringLiteral("partitions"), QStringLiteral("duplicates"),
        QStringLiteral("preview"),    QStringLiteral("run"),        QStringLiteral("resume"),
        QStringLiteral("rollback"),   QStringLiteral("audit"),      QStringLiteral("runs"),
        QStringLiteral("run-report"), QStringLiteral("lag"),        QStringLiteral("finalize"),
        QStringLiteral("freeze"),     QStringLiteral("unfreeze"),   QStringLiteral("recover")};
    if (ws->db.hasSeparateControl() && !onTrino.contains(ctx.command))
        return badInput(QStringLiteral("--db %1: %2 does not work on a Trino warehouse yet (what "
                                       "does: %3; docs/trino.md)")
                            .arg(ws->db.url().display(), ctx.command, onTrino.join(u", ")));
    return ws;
}

} // namespace

Result<Workspace> specWorkspace(const Context &ctx) {
    return openFor(ctx, false);
}

Result<Workspace> workspace(const Context &ctx, bool namesAreFilters) {
    auto ws = openFor(ctx, namesAreFilters);
    if (!ws || ws->controlSchema)
        return ws;
    // Nothing resolves and Rewind has never been here: there are no runs,
    // audit rows or dead letters to show, and nothing is created.
    return badInput(QStringLiteral("none of the datasets and streams of spec %1 resolves against "
                                   "%2, which holds no Rewind workspace: is it the "
                                   "database the spec is for? (nothing was written; rewindctl "
                                   "datasets shows why each is broken)")
                        .arg(ws->spec.path, shownDb(ctx)));
}

} // namespace rw::cli
