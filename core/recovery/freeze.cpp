// A dataset's freeze: the rewind_frozen row Rewind's writers honour, and the
// triggers that make it hold against every other writer (recovery.h); and
// step 1 of a recovery, which takes it.
#include "core/recovery/recoverydetail.h"
#include "core/recovery/recoverydialect.h"
#include "core/sql/database.h"
#include "core/sql/privileges.h"
#include "core/workspace/workspace.h"

#include <QDateTime>
#include <QStringBuilder>
#include <nlohmann/json.hpp>

namespace rw {

namespace {

using Json = nlohmann::ordered_json;

QString nowIso() {
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

} // namespace

Result<std::optional<FreezeInfo>> freezeInfo(const Database &db, const QString &dataset) {
    auto q = db.control().exec(
        QStringLiteral("SELECT frozen_at, os_user, reason FROM rewind_frozen WHERE dataset = ?"),
        {dataset});
    if (!q)
        return fail(q.error());
    if (!q->next())
        return std::optional<FreezeInfo>();
    return std::optional<FreezeInfo>(
        FreezeInfo{q->value(0).toString(), q->value(1).toString(), q->value(2).toString()});
}

namespace {

// The triggers that make a freeze hold against other writers (see recovery.h).
QStringList freezeTriggers(const Database &db, const DatasetSpec &dataset, const QString &reason) {
    // The reason goes into DDL text: no placeholder characters in it, and
    // no dollar quote (PostgreSQL's freeze runs in a DO block).
    const QString said =
        QString(reason).replace(u'?', u' ').replace(u':', u' ').replace(u'$', u' ').simplified();
    QString message =
        QStringLiteral("%1 is frozen by Rewind (dataset %2%3): writes are refused until its "
                       "recovery finishes or "
                       "'rewindctl unfreeze --dataset %2 --reason ... --execute' lifts the freeze")
            .arg(dataset.target, dataset.name,
                 said.isEmpty() ? QString() : QStringLiteral(", ") % said);
    message.replace(u'\'', QStringLiteral("''"));
    return RecoveryDialect::of(db.dialect()).freezeTriggers(db, dataset.target, message);
}

QStringList thawTriggers(const Database &db, const DatasetSpec &dataset) {
    return RecoveryDialect::of(db.dialect()).thawTriggers(db, dataset.target);
}

} // namespace

namespace {

// Freezes (`frozen`) or thaws `dataset` in one write transaction: its row in
// rewind_frozen, the target's triggers (made again, or dropped, whether or not
// the row was there: a freeze recorded before the triggers existed gets them)
// and, when the row changed, the audit row. True when the row changed.
Result<bool> setFrozen(const Database &db, const DatasetSpec &dataset, bool frozen,
                       const QString &reason, const QString &action) {
    // On Trino the freeze is the control store's row alone: Iceberg tables
    // have no triggers, so it holds against Rewind's writers, not others.
    const bool triggers = !db.dialect().keepsControlApart();
    const Database ctl = db.control();
    std::vector<privileges::Need> needs;
    if (triggers) {
        // Making the triggers needs TRIGGER (on each partition too: the row
        // trigger is made on every one); dropping them, owning the table, and a
        // freeze drops the ones already there before it makes them again.
        auto present =
            RecoveryDialect::of(db.dialect()).frozenTriggersNeedOwner(db, dataset.target);
        if (!present)
            return fail(present.error());
        if (frozen)
            privileges::addTable(needs, dataset.target, QStringLiteral("TRIGGER"),
                                 QStringLiteral("the target"), true);
        if (!frozen || *present)
            privileges::addTable(needs, dataset.target, QStringLiteral("OWNER"),
                                 frozen ? QStringLiteral("the target, whose freeze triggers are "
                                                         "made again")
                                        : QStringLiteral("the target"));
    }
    privileges::addControl(needs, {QStringLiteral("rewind_frozen")},
                           frozen ? QStringLiteral("SELECT, INSERT")
                                  : QStringLiteral("SELECT, DELETE"));
    privileges::addControl(needs, {QStringLiteral("rewind_audit")}, QStringLiteral("INSERT"));
    if (auto s = privileges::require(ctl, action % QStringLiteral(" of ") % dataset.name, needs);
        !s)
        return fail(s.error());
    bool changed = false;
    const Status s = Database::retryTransient(5, [&] {
        return ctl.writeTransaction([&]() -> Status {
            auto present =
                ctl.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_frozen WHERE dataset = ?"),
                           {dataset.name});
            if (!present)
                return fail(present.error());
            changed = (present->toLongLong() > 0) != frozen;
            if (triggers) {
                auto exists = db.hasRelation(dataset.target);
                if (!exists)
                    return fail(exists.error());
                if (*exists)
                    if (auto t = db.execAll(frozen ? freezeTriggers(db, dataset, reason)
                                                   : thawTriggers(db, dataset));
                        !t)
                        return t;
            }
            if (!changed)
                return {};
            auto r =
                frozen ? ctl.exec(QStringLiteral("INSERT INTO rewind_frozen (dataset, "
                                                 "frozen_at, os_user, reason) VALUES (?, ?, ?, ?)"),
                                  {dataset.name, nowIso(), osUser(), reason})
                       : ctl.exec(QStringLiteral("DELETE FROM rewind_frozen WHERE dataset = ?"),
                                  {dataset.name});
            if (!r)
                return fail(r.error());
            return writeAudit(
                ctl, action, dataset.name, QString(), QVariant(),
                QString::fromStdString(Json{{"reason", reason.toStdString()}}.dump()));
        });
    });
    if (!s)
        return fail(s.error());
    return changed;
}

} // namespace

Result<bool> freeze(const Database &db, const DatasetSpec &dataset, const QString &reason,
                    const QString &action) {
    return setFrozen(db, dataset, true, reason, action);
}

Result<bool> unfreeze(const Database &db, const DatasetSpec &dataset, const QString &reason,
                      const QString &action) {
    return setFrozen(db, dataset, false, reason, action);
}

// Step 1 of a recovery.
Status Recovery::freeze() {
    if (m_result.failed())
        return badInput(QStringLiteral("the recovery of \"%1\" failed: %2")
                            .arg(m_result.dataset, m_result.error));
    // Every step's needs, before the first changes anything.
    if (auto s = requireRecoverPrivileges(m_db, m_dataset,
                                          QStringLiteral("recovery of ") % m_dataset.name);
        !s)
        return s;
    m_result.executed = true;
    m_result.steps.clear(); // a dry run's plan gives way to what is done
    auto frozen = freezeInfo(m_db, m_dataset.name);
    if (!frozen)
        return fail(frozen.error());
    if (*frozen) {
        m_result.steps.push_back({RecoveryStep::Freeze, RecoveryStepStatus::Done,
                                  QStringLiteral("already frozen since %1 by %2%3")
                                      .arg((*frozen)->frozenAt, (*frozen)->osUser,
                                           (*frozen)->reason.isEmpty()
                                               ? QString()
                                               : QStringLiteral(" (") % (*frozen)->reason % u')')});
        if (auto s = recovery_detail::auditStep(m_db, m_dataset.name,
                                                QStringLiteral("recover freeze"), QVariant(),
                                                recovery_detail::Json{{"already_frozen", true}});
            !s)
            return fail(s.error());
    } else {
        auto f = rw::freeze(m_db, m_dataset, QStringLiteral("recover: duplicate incident"),
                            QStringLiteral("recover freeze"));
        if (!f)
            return fail(f.error());
        m_result.steps.push_back({RecoveryStep::Freeze, RecoveryStepStatus::Done,
                                  QStringLiteral("frozen: Rewind's writers refuse it")});
    }
    return {};
}

} // namespace rw
