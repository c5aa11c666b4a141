#include "core/sql/privileges.h"

#include <QFileInfo>
#include <QStringBuilder>
#include <map>

namespace rw::privileges {

namespace {

bool isWrite(const QString &privilege) {
    return privilege != QLatin1String("SELECT") && privilege != QLatin1String("USAGE");
}

QString kindName(Need::On on) {
    switch (on) {
    case Need::On::Table:
        return QStringLiteral("table");
    case Need::On::Schema:
        return QStringLiteral("schema");
    case Need::On::Database:
        return QStringLiteral("database");
    }
    return {};
}

Status requireSqliteWritable(const Database &db, const QString &operation,
                             const std::vector<Need> &needs) {
    if (std::none_of(needs.begin(), needs.end(),
                     [](const Need &n) { return isWrite(n.privilege); }))
        return {};
    const QFileInfo file(db.url().path);
    if (!file.exists())
        return {}; // in memory, or made by the operation itself
    const QFileInfo folder(file.absolutePath());
    if (file.isWritable() && folder.isWritable())
        return {};
    return badInput(QStringLiteral("%1 refused before any change: %2 is read-only for this user "
                                   "(%3 must be writable, and its folder for SQLite's journal)")
                        .arg(operation, file.filePath(),
                             file.isWritable() ? folder.filePath() : file.filePath()));
}

} // namespace

void addControl(std::vector<Need> &needs, const QStringList &tables, const QString &privileges) {
    if (std::none_of(needs.begin(), needs.end(), [](const Need &n) {
            return n.on == Need::On::Schema && n.object == QLatin1String("rewind");
        }))
        needs.push_back({Need::On::Schema, QStringLiteral("rewind"), QStringLiteral("USAGE"),
                         QStringLiteral("Rewind's control tables")});
    for (const QString &table : tables)
        addTable(needs, QStringLiteral("rewind.") % table, privileges,
                 QStringLiteral("Rewind's control table"));
}

void addTable(std::vector<Need> &needs, const QString &table, const QString &privileges,
              const QString &role) {
    for (const QString &p : privileges.split(u',', Qt::SkipEmptyParts))
        needs.push_back({Need::On::Table, table, p.trimmed(), role});
}

Result<bool> tableExists(const Database &db, const QString &table) {
    if (db.dialect().kind() != SqlDialect::Kind::Postgres)
        return db.hasRelation(table);
    auto v = db.scalar(QStringLiteral("SELECT to_regclass(?) IS NOT NULL"), {db.quoteTable(table)});
    if (!v)
        return fail(v.error());
    return v->toBool();
}

Status require(const Database &db, const QString &operation, const std::vector<Need> &needs) {
    if (needs.empty())
        return {};
    if (db.dialect().kind() != SqlDialect::Kind::Postgres)
        return requireSqliteWritable(db, operation, needs);
    // One query: the needs as rows, each checked by the catalog's own
    // functions; a missing table or schema reads as granted (NULL).
    QStringList rows;
    QVariantList binds;
    for (std::size_t i = 0; i < needs.size(); ++i) {
        const Need &n = needs[i];
        rows << QStringLiteral("(%1, ?, ?, ?)").arg(i);
        binds << kindName(n.on) << (n.on == Need::On::Table ? db.quoteTable(n.object) : n.object)
              << n.privilege;
    }
    auto q = db.exec(
        QStringLiteral("SELECT n.i, current_user, current_database() FROM (VALUES ") %
            rows.join(u", ") %
            QStringLiteral(
                ") AS n(i, kind, obj, priv) WHERE NOT COALESCE(CASE n.kind "
                "WHEN 'table' THEN CASE WHEN n.priv = 'OWNER' THEN pg_has_role((SELECT relowner "
                "FROM pg_class WHERE oid = to_regclass(n.obj)), 'USAGE') ELSE "
                "has_table_privilege(to_regclass(n.obj), n.priv) END "
                "WHEN 'schema' THEN has_schema_privilege((SELECT oid FROM pg_namespace WHERE "
                "nspname = COALESCE(NULLIF(n.obj, ''), current_schema())), n.priv) "
                "ELSE has_database_privilege(current_database(), n.priv) END, true) ORDER BY n.i"),
        binds);
    if (!q)
        return fail(q.error());
    QString role;
    // Per object, in the order first met: what it is and the privileges lacking.
    QStringList objects;
    std::map<QString, std::pair<QString, QStringList>> lacking;
    std::map<QString, QStringList> grants; // "SCHEMA x", "DATABASE w", "x" -> privileges
    QStringList owners;
    while (q->next()) {
        const Need &n = needs[std::size_t(q->value(0).toLongLong())];
        role = q->value(1).toString();
        const QString object = n.on == Need::On::Database ? QStringLiteral("this database")
                               : n.on == Need::On::Schema && n.object.isEmpty()
                                   ? QStringLiteral("its current schema")
                                   : QString(kindName(n.on) % u' ' % n.object);
        if (!lacking.contains(object)) {
            objects << object;
            lacking[object].first = n.role;
        }
        lacking[object].second << (n.privilege == QLatin1String("OWNER")
                                       ? QStringLiteral("ownership")
                                       : n.privilege);
        if (n.privilege == QLatin1String("OWNER"))
            owners << n.object;
        else if (n.on == Need::On::Database)
            grants[QStringLiteral("DATABASE ") % q->value(2).toString()] << n.privilege;
        else if (!n.object.isEmpty())
            grants[QString((n.on == Need::On::Schema ? QStringLiteral("SCHEMA ") : QString()) %
                           n.object)]
                << n.privilege;
    }
    if (objects.isEmpty())
        return {};
    QStringList said;
    for (const QString &object : objects) {
        auto &[what, privileges] = lacking[object];
        privileges.removeDuplicates();
        said << privileges.join(u", ") % QStringLiteral(" on ") % object %
                    (what.isEmpty() ? QString() : QString(QStringLiteral(" (") % what % u')'));
    }
    QStringList fixes;
    for (auto &[object, privileges] : grants) {
        privileges.removeDuplicates();
        fixes << QStringLiteral("GRANT %1 ON %2 TO %3").arg(privileges.join(u", "), object, role);
    }
    owners.removeDuplicates();
    for (const QString &table : owners)
        fixes << QStringLiteral("GRANT <owner of %1> TO %2").arg(table, role);
    return badInput(QStringLiteral("%1 refused before any change: role %2 lacks %3. The owner "
                                   "can grant it: %4 (docs/security.md)")
                        .arg(operation, role, said.join(QStringLiteral("; ")),
                             fixes.join(QStringLiteral("; "))));
}

} // namespace rw::privileges
