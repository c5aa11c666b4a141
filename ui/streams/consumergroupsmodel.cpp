#include "ui/streams/consumergroupsmodel.h"

#include "core/streams/lag.h"
#include "ui/common/format.h"
#include "ui/common/style.h"

#include <QBrush>

namespace rw {

ConsumerGroupsModel::ConsumerGroupsModel(QObject *parent)
    : SnapshotTableModel(
          {
              {tr("Group"), kAlignText, [](const ConsumerGroupInfo &g) { return g.group; }},
              numberColumn(tr("Lag"), &ConsumerGroupInfo::lag),
              {tr("Status"), kAlignText, [](const ConsumerGroupInfo &g) { return g.status; }},
              {tr("State"), kAlignText,
               [](const ConsumerGroupInfo &g) {
                   return g.state.value_or(QStringLiteral("\u2014"));
               }},
              {tr("Members"), kAlignNumber,
               [](const ConsumerGroupInfo &g) -> QVariant {
                   if (!g.state)
                       return QStringLiteral("\u2014");
                   if (g.members.empty())
                       return QStringLiteral("0");
                   return QStringLiteral("%1 (%2)").arg(g.members.size()).arg(g.protocol);
               },
               [](const ConsumerGroupInfo &g) { return qint64(g.members.size()); }},
              {tr("Committed in"), kAlignNumber,
               [](const ConsumerGroupInfo &g) {
                   return tr("%n partition(s)", nullptr, int(g.partitions));
               },
               [](const ConsumerGroupInfo &g) { return g.partitions; }},
              {tr("Last commit"), kAlignText,
               [](const ConsumerGroupInfo &g) { return fmt::timestamp(g.lastCommitAt); },
               [](const ConsumerGroupInfo &g) { return g.lastCommitAt; }},
          },
          parent) {}

int ConsumerGroupsModel::rowOf(const QString &group) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].group == group)
            return int(i);
    return -1;
}

QVariant ConsumerGroupsModel::cellData(const ConsumerGroupInfo &g, int column, int role) const {
    switch (role) {
    case Qt::ForegroundRole:
        if (column == LagColumn && g.lag > 0)
            return QBrush(style::qcolor(style::Colour::Warning));
        if (column == StatusColumn)
            return QBrush(style::qcolor(g.status == QLatin1String("OK")     ? style::Colour::Ok
                                        : g.status == QLatin1String("WARN") ? style::Colour::Warning
                                        : g.status == QLatin1String("unknown")
                                            ? style::Colour::Muted
                                            : style::Colour::Error));
        if ((column == StateColumn || column == MembersColumn) && !g.state)
            return QBrush(style::qcolor(style::Colour::Faint));
        if (column == MembersColumn && !g.members.empty())
            return QBrush(style::qcolor(style::Colour::Warning)); // resets and replays refused
        return {};
    case Qt::ToolTipRole:
        if (column == StatusColumn)
            return tr("Burrow's rules over the last %1 lag samples of each partition (one per read "
                      "of the offsets, every 10 s while this page "
                      "is open): OK, WARN (lag not going down), STALL or STOP (offsets not moving, "
                      "with or without members), REWIND (offsets "
                      "moved back); unknown until two samples")
                .arg(kLagWindow);
        if (column == MembersColumn) {
            if (g.members.empty())
                return g.state ? tr("No live member: the group's offsets may be reset or replayed")
                               : tr("The cluster cannot say");
            QStringList lines{tr("Live members (protocol %1); a reset or replay of this group is "
                                 "refused until they stop:")
                                  .arg(g.protocol)};
            for (const GroupMember &m : g.members) {
                QStringList parts;
                for (qint64 p : m.partitions)
                    parts << QString::number(p);
                lines << tr("%1 on %2: partitions %3 (%4)")
                             .arg(m.clientId, m.host,
                                  parts.isEmpty() ? tr("none") : parts.join(QStringLiteral(", ")),
                                  m.memberId);
            }
            return lines.join(u'\n');
        }
        if (column == StateColumn)
            return g.state ? tr("The cluster's group state, from its coordinator")
                           : tr("The cluster cannot say (it does not answer ListGroups, or this is "
                                "a log table)");
        return tr("Group %1: %2 events behind the log end; committed in %n partition(s)", nullptr,
                  int(g.partitions))
            .arg(g.group, fmt::number(g.lag));
    default:
        return {};
    }
}

} // namespace rw
