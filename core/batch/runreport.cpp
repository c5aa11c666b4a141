#include "core/batch/runreport.h"

#include "core/batch/partitions.h"

#include <QLocale>
#include <QStringBuilder>

namespace rw {

namespace {

QString n(qint64 v) {
    static const QLocale english(QLocale::English, QLocale::UnitedStates);
    return english.toString(v);
}

// Pipes and newlines would break a table cell.
QString cell(QString text) {
    text.replace(u'|', QStringLiteral("\\|"));
    text.replace(u'\n', u' ');
    return text;
}

} // namespace

QString runReportMarkdown(const RunInfo &info, const RunResult &result) {
    QString md;
    md += QStringLiteral("# Rewind run %1: %2\n\n").arg(info.runId).arg(enumName(result.status));
    md += QStringLiteral("| What | |\n|---|---|\n");
    md += QStringLiteral("| Dataset | %1 |\n").arg(cell(result.dataset));
    md += QStringLiteral("| Kind | %1 |\n").arg(cell(enumName(info.kind)));
    md += QStringLiteral("| Write mode | %1 |\n").arg(cell(enumName(result.mode)));
    md += QStringLiteral("| Plan | %1 |\n")
              .arg(cell(result.planId.isEmpty() ? QStringLiteral("-") : result.planId));
    md += QStringLiteral("| Status | **%1** |\n").arg(cell(enumName(result.status)));
    md += QStringLiteral("| Run by | %1 |\n")
              .arg(cell(info.osUser.isEmpty() ? QStringLiteral("-") : info.osUser));
    md += QStringLiteral("| Host | %1 |\n")
              .arg(cell(info.host.isEmpty() ? QStringLiteral("-") : info.host));
    md += QStringLiteral("| Started | %1 |\n")
              .arg(cell(result.startedAt.isEmpty() ? info.startedAt : result.startedAt));
    md += QStringLiteral("| Finished | %1 |\n")
              .arg(cell(result.finishedAt.isEmpty()
                            ? (info.finishedAt.isEmpty() ? QStringLiteral("-") : info.finishedAt)
                            : result.finishedAt));
    md += QStringLiteral("| Partitions | %1 |\n").arg(result.partitions.size());
    if (!result.error.isEmpty())
        md += QStringLiteral("| Error | %1 |\n").arg(cell(result.error));

    md += QStringLiteral("\n## Partitions\n\n"
                         "| Partition | Published | Source | Staged | Duplicates dropped | "
                         "Inserted | Updated | Deleted | Unchanged |\n"
                         "|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
    const auto row = [&](const QString &label, const QString &published, const PartitionResult &p) {
        md += QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 | %8 | %9 |\n")
                  .arg(cell(label), published, n(p.sourceRows), n(p.stagedRows),
                       n(p.duplicatesDropped), n(p.inserted), n(p.updated), n(p.deleted),
                       n(p.unchanged));
    };
    for (const PartitionResult &p : result.partitions)
        row(partitionLabel(p.partition), p.published ? QStringLiteral("yes") : QStringLiteral("no"),
            p);
    row(QStringLiteral("**total**"), QString(), result.totals());

    if (!result.planColumns.empty()) {
        md += QStringLiteral("\n## What each column changes (as plan %1 previewed it)\n\n"
                             "| Column | Changed | % of matched | Only it | NULLs before -> after "
                             "| Sum before -> after | Change |\n|---|--:|--:|--:|---|---|---|\n")
                  .arg(cell(result.planId));
        for (const ColumnChange &c : result.planColumns) {
            if (c.kind == ColumnKind::Skipped) {
                md += QStringLiteral("| %1 | - | | | | | not compared (%2) |\n")
                          .arg(cell(c.column), cell(c.type));
                continue;
            }
            md += QStringLiteral("| %1 | %2 | %3 | %4 | %5 -> %6 | %7 | %8 |\n")
                      .arg(cell(c.column), n(c.changed), QString::number(c.changedPct(), 'f', 2),
                           n(c.onlyThisChanged), n(c.nullsBefore), n(c.nullsAfter),
                           c.kind == ColumnKind::Number
                               ? figureText(c.sumBefore) + QStringLiteral(" -> ") +
                                     figureText(c.sumAfter)
                               : QString(),
                           cell(changeShape(c)));
        }
    }

    md += QStringLiteral("\n## Gates\n\n");
    if (result.checks.empty()) {
        md += QStringLiteral("No gates were recorded.\n");
    } else {
        md += QStringLiteral("| Gate | Partition | Result | Detail |\n|---|---|---|---|\n");
        for (const CheckResult &c : result.checks)
            md += QStringLiteral("| %1 | %2 | %3 | %4 |\n")
                      .arg(cell(c.name), cell(partitionLabel(c.partition)),
                           c.passed ? QStringLiteral("pass") : QStringLiteral("**FAIL**"),
                           cell(c.detail));
    }
    return md;
}

} // namespace rw
