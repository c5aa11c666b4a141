#include "core/sql/privileges.h"

#include <QFileInfo>
#include <QStringBuilder>
#include <map>

namespace rw::privileges {

namespace {

std::unexpected<Error> refusal(const QString &message) {
    Error e = Error::badInput(message);
    e.refused = true;
    return fail(std::move(e));
}

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
    return refusal(QStringLiteral("%1 refused before any change: %2 is read-only for this user "
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
              const QString &role, bool partitions) {
    for (const QString &p : privileges.split(u',', Qt::SkipEmptyParts))
        needs.push_back({Need::On::Table, table, p.trimmed(), role, partitions});
}

Status addTableOrCreate(const Database &db, std::vector<Need> &needs, const QString &table,
                        const QString &privileges, const QString &role) {
    auto exists = tableExists(db, table);
    if (!exists)
        return fail(exists.error());
    if (*exists)
        addTable(needs, table, privileges, role);
    else
        needs.push_back({Need::On::Schema, schemaOf(table), QStringLiteral("CREATE"),
                         QStringLiteral("to create ") % role % u' ' % table});
    return {};
}

Result<bool> tableExists(const Database &db, const QString &table) {
    if (db.dialect().kind() != SqlDialect::Kind::Postgres)
        return db.hasRelation(table);
    // In a schema the role may not use, PostgreSQL will not look: taken as
    // there, so that its needs are checked and the schema's USAGE named.
    const QString schema = schemaOf(table);
    auto v = db.scalar(
        QStringLiteral("SELECT CASE WHEN NOT COALESCE(has_schema_privilege((SELECT oid FROM "
                       "pg_namespace WHERE nspname = ?), 'USAGE'), true) THEN true ELSE "
                       "to_regclass(?) IS NOT NULL END"),
        {schema, db.quoteTable(table)});
    if (!v)
        return fail(v.error());
    return v->toBool();
}

Status require(const Database &db, const QString &operation, const std::vector<Need> &given) {
    if (given.empty())
        return {};
    if (db.dialect().kind() != SqlDialect::Kind::Postgres)
        return requireSqliteWritable(db, operation, given);
    // A table in a schema the role may not use is named by that schema:
    // PostgreSQL will not even look the table up there (to_regclass raises
    // "permission denied for schema"), so the check asks USAGE first.
    std::vector<Need> needs;
    for (const Need &n : given) {
        const QString schema = n.on == Need::On::Table ? schemaOf(n.object) : QString();
        if (!schema.isEmpty() && std::none_of(needs.begin(), needs.end(), [&](const Need &m) {
                return m.on == Need::On::Schema && m.object == schema &&
                       m.privilege == QLatin1String("USAGE");
            }))
            needs.push_back({Need::On::Schema, schema, QStringLiteral("USAGE"), n.role});
        needs.push_back(n);
    }
    // One query: the needs as rows, each checked by the catalog's own
    // functions; a missing table or schema reads as granted (NULL), and so
    // does a table in a schema without USAGE (that need is its own row).
    QStringList rows;
    QVariantList binds;
    for (std::size_t i = 0; i < needs.size(); ++i) {
        const Need &n = needs[i];
        rows << QStringLiteral("(%1, ?, ?, ?, ?, ?, %2)")
                    .arg(i)
                    .arg(n.partitions ? QStringLiteral("true") : QStringLiteral("false"));
        const bool qualified = n.on == Need::On::Table && n.object.contains(u'.');
        binds << kindName(n.on) << (n.on == Need::On::Table ? db.quoteTable(n.object) : n.object)
              << n.privilege << (qualified ? n.object.section(u'.', 0, 0) : QString())
              << (qualified ? n.object.section(u'.', 1) : n.object);
    }
    auto q = db.exec(
        QStringLiteral("SELECT n.i, current_user, quote_ident(current_user), "
                       "quote_ident(current_database()), CASE WHEN n.kind = 'schema' THEN "
                       "quote_ident(COALESCE(NULLIF(n.rel, ''), current_schema())) WHEN n.sch <> "
                       "'' THEN quote_ident(n.sch) || '.' || quote_ident(n.rel) ELSE "
                       "quote_ident(n.rel) END, "
                       // The partitions lacking it, when asked of each.
                       "CASE WHEN n.parts THEN (SELECT string_agg(t.relid::regclass::text, ', ' "
                       "ORDER BY t.level, t.relid::regclass::text) FROM (SELECT "
                       "to_regclass(n.obj) AS relid, 0 AS level UNION SELECT relid, level FROM "
                       "pg_partition_tree(to_regclass(n.obj))) AS t WHERE t.relid IS NOT NULL AND "
                       "t.relid <> to_regclass(n.obj) AND NOT has_table_privilege(t.relid, "
                       "n.priv)) END, "
                       // A schema by name: the session's current one where none is named.
                       "CASE WHEN n.kind = 'schema' THEN COALESCE(NULLIF(n.obj, ''), "
                       "current_schema()) END, "
                       // Asked of its partitions too: whether the table itself lacks it.
                       "CASE WHEN n.parts THEN NOT COALESCE(has_table_privilege(to_regclass("
                       "n.obj), n.priv), true) END FROM (VALUES ") %
            rows.join(u", ") %
            QStringLiteral(
                ") AS n(i, kind, obj, priv, sch, rel, parts) WHERE NOT COALESCE(CASE n.kind "
                "WHEN 'table' THEN CASE WHEN n.sch <> '' AND NOT COALESCE(has_schema_privilege("
                "(SELECT oid FROM pg_namespace WHERE nspname = n.sch), 'USAGE'), true) THEN NULL "
                "WHEN n.priv = 'OWNER' THEN pg_has_role((SELECT relowner "
                "FROM pg_class WHERE oid = to_regclass(n.obj)), 'USAGE') "
                "WHEN n.parts THEN has_table_privilege(to_regclass(n.obj), n.priv) AND NOT EXISTS "
                "(SELECT 1 FROM pg_partition_tree(to_regclass(n.obj)) AS t WHERE NOT "
                "has_table_privilege(t.relid, n.priv)) ELSE "
                "has_table_privilege(to_regclass(n.obj), n.priv) END "
                "WHEN 'schema' THEN has_schema_privilege((SELECT oid FROM pg_namespace WHERE "
                "nspname = COALESCE(NULLIF(n.obj, ''), current_schema())), n.priv) "
                "ELSE has_database_privilege(current_database(), n.priv) END, true) ORDER BY n.i"),
        binds);
    if (!q)
        return fail(q.error());
    QString role, quotedRole;
    // Per object, in the order first met: what it is and the privileges lacking.
    QStringList objects;
    std::map<QString, std::pair<QString, QStringList>> lacking;
    std::map<QString, QStringList> grants; // "SCHEMA x", "DATABASE w", "x" -> privileges
    QStringList owners;
    while (q->next()) {
        const Need &n = needs[std::size_t(q->value(0).toLongLong())];
        role = q->value(1).toString();
        quotedRole = q->value(2).toString();
        // The object as SQL names it; asked of its partitions too, those
        // lacking it (unless that is the table alone).
        const QString lackingParts = q->value(5).toString(); // its partitions lacking it
        const bool parts = n.partitions && !lackingParts.isEmpty();
        const QString quoted =
            !parts ? q->value(4).toString()
            : q->value(7).toBool()
                ? QString(q->value(4).toString() % QStringLiteral(", ") % lackingParts)
                : lackingParts;
        const QString schema = q->value(6).toString(); // empty: no schema of the search path
        const QString object =
            n.on == Need::On::Database                     ? QStringLiteral("this database")
            : n.on == Need::On::Schema && schema.isEmpty() ? QStringLiteral("its current schema")
            : n.on == Need::On::Schema                     ? QString(u"schema " % schema)
            : parts ? QString(QStringLiteral("table ") % n.object %
                              QStringLiteral(" or its partitions (") % lackingParts % u')')
                    : QString(kindName(n.on) % u' ' % n.object);
        if (!lacking.contains(object)) {
            objects << object;
            lacking[object].first = n.role;
        }
        lacking[object].second << (n.privilege == QLatin1String("OWNER")
                                       ? QStringLiteral("ownership")
                                       : n.privilege);
        if (n.privilege == QLatin1String("OWNER"))
            owners << quoted;
        else if (n.on == Need::On::Database)
            grants[QStringLiteral("DATABASE ") % q->value(3).toString()] << n.privilege;
        else if (!quoted.isEmpty())
            grants[QString((n.on == Need::On::Schema ? QStringLiteral("SCHEMA ") : QString()) %
                           quoted)]
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
        fixes << QStringLiteral("GRANT %1 ON %2 TO %3")
                     .arg(privileges.join(u", "), object, quotedRole);
    }
    owners.removeDuplicates();
    for (const QString &table : owners)
        fixes << QStringLiteral("GRANT <owner of %1> TO %2").arg(table, quotedRole);
    return refusal(QStringLiteral("%1 refused before any change: role %2 lacks %3. The owner "
                                  "can grant it: %4 (docs/security.md)")
                       .arg(operation, role, said.join(QStringLiteral("; ")),
                            fixes.join(QStringLiteral("; "))));
}

QString refusalOf(const Status &status) {
    return status || !status.error().refused ? QString() : status.error().message;
}

} // namespace rw::privileges
