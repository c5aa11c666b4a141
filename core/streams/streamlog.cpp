#include "core/streams/streamlog.h"

#include "core/streams/kafkalog.h"
#include "core/streams/tablelog.h"

namespace rw {

std::unique_ptr<StreamLog> openStreamLog(const Database &db, const StreamSpec &stream) {
    // The one place a stream's kind is decided.
    if (stream.kafka)
        return std::make_unique<KafkaLog>(db, stream);
    return std::make_unique<TableLog>(db, stream);
}

} // namespace rw
