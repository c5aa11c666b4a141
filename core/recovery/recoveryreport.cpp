#include "core/batch/partitions.h"
#include "core/recovery/recovery.h"
#include "core/workspace/workspace.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QStringBuilder>
#include <QTextStream>

namespace rw {

QString recoveryReportMarkdown(const RecoveryResult &r, std::size_t partitionsShown) {
    QString md;
    QTextStream out(&md);
    // Each per-partition table stops after `partitionsShown` partitions,
    // saying how many it leaves out.
    const auto more = [&](std::size_t total) {
        if (total > partitionsShown)
            out << "\n... and " << (total - partitionsShown)
                << " more partition(s): the saved report lists every one.\n";
    };
    const QString now = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    out << "# Duplicate incident recovery: " << r.dataset << "\n\n";
    out << "- Target table: `" << r.target << "`\n";
    out << "- " << (r.executed ? "Recovered" : "Planned (dry run, nothing changed)") << " at "
        << now << " by " << osUser() << '\n';
    out << "- Outcome: **" << enumName(r.status) << "**";
    if (!r.error.isEmpty())
        out << ": " << r.error;
    out << "\n\n## What happened\n\n";
    out << "The target held " << r.before.duplicateKeys
        << " duplicate key(s): " << r.before.extraRows
        << " row(s) beyond one per (partition, key).\n\n";
    if (!r.before.partitions.empty()) {
        out << "| partition | duplicate keys | extra rows |\n|---|---:|---:|\n";
        for (std::size_t i = 0; i < r.before.partitions.size() && i < partitionsShown; ++i) {
            const auto &p = r.before.partitions[i];
            out << "| " << partitionLabel(p.partition) << " | " << p.duplicateKeys << " | "
                << p.extraRows << " |\n";
        }
        more(r.before.partitions.size());
        out << '\n';
    }
    if (!r.before.samples.empty()) {
        out << "Examples:\n\n";
        for (const auto &s : r.before.samples)
            out << "- `" << QString::fromUtf8(QJsonDocument(s).toJson(QJsonDocument::Compact))
                << "`\n";
        out << '\n';
    }
    out << "## Steps\n\n| step | status | detail |\n|---|---|---|\n";
    for (const auto &s : r.steps)
        out << "| " << enumName(s.step) << " | " << enumName(s.status) << " | "
            << QString(s.detail).replace(u'|', QStringLiteral("\\|")) << " |\n";
    out << "\n## Counts before and after\n\n";
    if (r.totalsBefore.empty()) {
        out << "No partition was affected.\n\n";
    } else {
        out << "| partition | target rows before | target rows after | source rows (deduped) "
               "|\n|---|---:|---:|---:|\n";
        for (std::size_t i = 0; i < r.totalsBefore.size() && i < partitionsShown; ++i) {
            const auto &b = r.totalsBefore[i];
            const QString afterRows = i < r.totals.size() && r.executed
                                          ? QString::number(r.totals[i].targetRows)
                                          : QStringLiteral("-");
            out << "| " << partitionLabel(b.partition) << " | " << b.targetRows << " | "
                << afterRows << " | " << b.sourceRows << " |\n";
        }
        more(r.totalsBefore.size());
        out << '\n';
    }
    out << "## Business totals against the source\n\n";
    if (r.totals.empty()) {
        out << "Nothing to compare.\n\n";
    } else {
        out << "| partition | column | source | target | match |\n|---|---|---:|---:|---|\n";
        for (std::size_t i = 0; i < r.totals.size() && i < partitionsShown; ++i) {
            const auto &t = r.totals[i];
            out << "| " << partitionLabel(t.partition) << " | (rows) | " << t.sourceRows << " | "
                << t.targetRows << " | " << (t.sourceRows == t.targetRows ? "yes" : "**no**")
                << " |\n";
            for (const auto &[column, source, target] : t.sums)
                out << "| " << partitionLabel(t.partition) << " | " << column << " | "
                    << source.toString() << " | " << target.toString() << " | "
                    << (sameSum(source, target) ? "yes" : "**no**") << " |\n";
        }
        more(r.totals.size());
        out << "\nTotals " << (r.totalsMatch ? "match" : "do **not** match")
            << (r.executed ? "" : " (as the target is now)") << ".\n\n";
    }
    out << "## Preventing a recurrence\n\n";
    if (r.uniqueIndexAdded)
        out << "A unique index `" << r.uniqueIndex << "` on `" << r.target << "` ("
            << r.uniqueIndexColumns.join(QStringLiteral(", "))
            << ") now makes the database refuse a second row for the same key, whoever writes "
               "it.\n";
    else
        out << "Planned: a unique index `" << r.uniqueIndex << "` on `" << r.target << "` ("
            << r.uniqueIndexColumns.join(QStringLiteral(", ")) << ").\n";
    if (!r.rerunId.isNull())
        out << "\nThe clean-up was run " << r.rerunId.toString() << "; `rewindctl rollback --run "
            << r.rerunId.toString() << " --execute` would restore the state before it.\n";
    if (r.leftFrozen)
        out << "\nThe dataset is still **frozen**: lift it with `rewindctl unfreeze --dataset "
            << r.dataset << " --execute` once resolved.\n";
    out.flush();
    return md;
}

Status writeRecoveryReport(const Database &db, const DatasetSpec &dataset, RecoveryResult &result,
                           const QString &path) {
    result.reportPath = path;
    if (result.reportPath.isEmpty()) {
        // Beside the workspace's SQLite file (on Trino, its control store's),
        // else in the current folder.
        const QString file = db.control().url().path; // a SQLite file's only
        const QString dir = file.isEmpty() ? QDir::currentPath() : QFileInfo(file).absolutePath();
        // Never over an earlier report (two recoveries in one second): -2, -3, ...
        const QString stem =
            dir % QStringLiteral("/recovery-") % dataset.name % u'-' %
            QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
        result.reportPath = stem % QStringLiteral(".md");
        for (int n = 2; QFileInfo::exists(result.reportPath); ++n)
            result.reportPath = stem % u'-' % QString::number(n) % QStringLiteral(".md");
    }
    QFile file(result.reportPath);
    const auto mode = path.isEmpty() ? QIODevice::WriteOnly | QIODevice::NewOnly
                                     : QIODevice::WriteOnly | QIODevice::Truncate;
    if (!file.open(mode))
        return internalError(QStringLiteral("recovery report %1: cannot write: %2")
                                 .arg(result.reportPath, file.errorString()));
    file.write(recoveryReportMarkdown(result).toUtf8());
    return {};
}

Status checkReportPath(const QString &path) {
    const QFileInfo file(path);
    const QFileInfo dir(file.absolutePath());
    if (!dir.isDir())
        return badInput(
            QStringLiteral("--report %1: no such directory %2").arg(path, dir.filePath()));
    if (file.exists() ? !file.isWritable() || file.isDir() : !dir.isWritable())
        return badInput(QStringLiteral("--report %1: cannot be written").arg(path));
    return {};
}

} // namespace rw
