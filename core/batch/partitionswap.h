#pragma once

#include "core/batch/batch.h"
#include "core/batch/swapstore.h"
#include "core/sql/database.h"
#include "core/util/enumnames.h"
#include "core/workspace/spec.h"

#include <QElapsedTimer>
#include <QHash>
#include <optional>
#include <vector>

namespace rw {

class BatchSql;

// How an overwrite_partition publish writes one partition: rows (the
// before-images copied, DELETE, INSERT) or a partition swap (PostgreSQL: the
// partition built as its own table, then DETACH the old, ATTACH the new, in
// one transaction; the detached table is the before-image).
enum class PublishMethod { Rows, Swap };
template <> struct EnumNames<PublishMethod> {
    static constexpr std::pair<PublishMethod, std::string_view> names[] = {
        {PublishMethod::Rows, "rows"}, {PublishMethod::Swap, "swap"}};
};

// A privilege granted on a leaf, given again on the table that replaces it.
struct SwapGrant {
    QString privilege; // SELECT, INSERT, ...
    QString grantee;   // a role name; empty: PUBLIC
    bool grantable = false;
};

// The leaf partition a swap replaces (or creates).
struct SwapLeaf {
    QString schema;     // the leaf's schema
    QString name;       // its table name, kept across the swap
    QString bound;      // "FOR VALUES FROM ('2025-05-29') TO ('2025-05-30')"
    QString check;      // a CHECK the new table carries so that ATTACH skips its validation scan
    bool exists = true; // false: no leaf holds the value yet; the publish creates it
    // Taken over from the old leaf by the table that replaces it.
    QString owner, tablespace, options;
    std::vector<SwapGrant> grants;
};

struct PublishChoice {
    PublishMethod method = PublishMethod::Rows;
    QString reason; // why rows, when a swap could be expected
    SwapLeaf leaf;  // a swap's
};

// A target's declarative partitioning, as a swap publish needs it: resolved
// once per preview, run or resume (one catalog query on PostgreSQL, none on
// SQLite), with the dataset's catalog.
class PartitionLayout {
public:
    // `targetExists`: the catalog found the target. `compareTypes`: the
    // operation publishes or previews (DatasetCatalog::resolve).
    static Result<PartitionLayout> resolve(const Database &db, const DatasetSpec &dataset,
                                           bool targetExists, bool compareTypes);
    // The leaves and their bounds alone (whatever the write mode), for
    // listing which leaf holds each partition.
    static Result<PartitionLayout> leaves(const Database &db, const DatasetSpec &dataset,
                                          bool targetExists);
    // The leaf holding partition `label` and its bound ("FOR VALUES ...",
    // "DEFAULT"), as the bounds read (a date or integer range, a list);
    // nullopt when unknown or the target is not partitioned.
    std::optional<std::pair<QString, QString>> leafOf(const std::optional<QString> &label) const;

    // Reads what a swap needs of the leaves of `labels` (whether one can be
    // replaced, and the owner, grants and storage a replacement takes over):
    // one catalog query, only for leaves not read before. Before choose().
    Status inspect(const Database &db, const std::vector<std::optional<QString>> &labels) const;

    // How partition `label` publishes, its target leaf holding `targetRows`
    // rows now (the diff's count): a swap replaces a leaf holding exactly
    // that partition's value, and holding rows (an empty one gains nothing
    // from a swap: its rows are inserted, no dead row left behind).
    PublishChoice choose(const std::optional<QString> &label, qint64 targetRows) const;

    // The parent, quoted and schema-qualified (empty when not partitioned).
    const QString &parent() const { return m_parent; }
    const QString &quotedKey() const { return m_quotedKey; }
    const QString &parentName() const { return m_parentName; }
    // The DEFAULT partition, quoted and qualified; empty when there is none.
    const QString &defaultLeaf() const { return m_defaultLeaf; }

private:
    static Result<PartitionLayout> resolve(const Database &db, const DatasetSpec &dataset,
                                           bool targetExists, bool compareTypes, bool boundsOnly);
    struct Leaf {
        QString schema, name, bound;
        char kind = 'r';  // relkind: r table, p partitioned (sub-partitioned), f foreign
        QStringList from; // RANGE lower bound values (one column: one), or LIST values
        QStringList to;   // RANGE upper bound
        bool isDefault = false;
        bool holdsNull = false; // a LIST leaf that lists NULL
        bool inspected = false; // inspect() read what follows
        QString refusal;        // why it cannot be swapped (its own indexes, ...), or empty
        QString owner, tablespace, options; // what the built table takes over from it
        std::vector<SwapGrant> grants;
    };
    enum class Step { None, Day, Integer }; // what one leaf's range spans, when all alike
    // The bound and CHECK of a leaf holding exactly `value`, for the key's type.
    QString checkFor(const Leaf &leaf) const;
    QString newLeafName(const QString &value) const;

    QString m_whole;  // why no partition can swap (not partitioned, HASH, ...); empty: some may
    QString m_parent; // quoted, qualified
    QString m_parentSchema, m_parentName;
    QString m_key, m_quotedKey, m_keyType;
    char m_strategy = 0; // r RANGE, l LIST
    // Filled by inspect(): a cache of catalog facts, hence mutable.
    mutable std::vector<Leaf> m_leaves;
    QHash<QString, int> m_byValue; // a RANGE leaf's lower bound, a LIST leaf's value -> leaf
    int m_default = -1;
    QString m_defaultLeaf;
    bool m_boundsComparable = false; // leafOf() may answer
    Step m_step = Step::None;
};

// The swap of a chunk's partitions (PostgreSQL), inside the publish's
// transaction, after the stage and the gates. buildSwapTables makes each
// partition's table from the staged rows (the parent's columns, defaults,
// constraints and indexes, and the CHECK of its bound), before any lock on
// the parent. swapPartitions then takes the parent's lock (lockForSwap),
// detaches each old leaf into the control schema (its indexes renamed
// there, so names never collide), attaches the new one under the old one's
// name and its indexes under the old ones' names, and records both
// (rewind_swaps). `locked` is started once the lock is held: the caller
// reads it after the commit (the parent stays locked until then).
struct SwapItem {
    PartitionRef partition;
    SwapLeaf leaf;
    QString built; // the new table, quoted and qualified, once built
};
Status buildSwapTables(const Database &db, const BatchSql &sql, const QVariant &runId,
                       std::vector<SwapItem> &items);
Status swapPartitions(const Database &db, const BatchSql &sql, const QString &dataset,
                      const QVariant &runId, std::vector<SwapItem> &items, QElapsedTimer &locked);
// Rollback of one swap (PostgreSQL), in the rollback's transaction: the leaf
// the run attached is detached and dropped, the saved one attached again
// under its name with its indexes' names (a leaf the run created is only
// dropped). `removed` and `restored`: the rows of each.
Status swapBack(const Database &db, const swapstore::Swap &swap, qint64 &removed, qint64 &restored,
                bool execute);

// Takes ACCESS EXCLUSIVE locks on `quotedTables` (ONLY each) inside the
// current transaction, in tries of a growing lock_timeout with a pause
// between them, for at most the busy timeout (REWIND_BUSY_TIMEOUT_MS); then
// fails naming the sessions that hold them. PostgreSQL only.
Status lockForSwap(const Database &db, const QStringList &quotedTables);

} // namespace rw
