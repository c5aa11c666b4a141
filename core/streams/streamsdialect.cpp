#include "core/streams/streamsdialect.h"

#include "core/sql/timejson.h"

namespace rw {

const StreamsDialect &StreamsDialect::of(const Database &db) {
    switch (db.dialect().kind()) {
    case SqlDialect::Kind::Sqlite:
        return sqliteStreamsDialect();
    case SqlDialect::Kind::Postgres:
        return postgresStreamsDialect();
    case SqlDialect::Kind::Trino:
        break; // no stream reaches a Trino warehouse (refused by openWorkspace)
    }
    return sqliteStreamsDialect();
}

Status prepareStreamSession(const Database &db) {
    if (auto setup =
            db.execAll(StreamsDialect::of(db).sessionSetup() +
                       TimeJson::of(db.dialect()).sessionSetup() + db.dialect().valueFitsSetup());
        !setup)
        return fail(setup.error());
    return {};
}

} // namespace rw
