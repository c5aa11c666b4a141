// Fuzzes the offset plan reader (rewindctl offsets-reset --from-file): the
// file an operator exported from kafka-consumer-groups, edited by hand, or
// anything else. The input is the file; its first line, when it starts with
// "@", is also read as a --by-duration.
// Must hold for every input:
// - no crash, no sanitizer report, no exception escaping;
// - a refusal is BadInput naming --from-file (and a line where it has one);
// - a plan names each partition once, every row one of the file's.
#include "core/streams/offsets.h"
#include "tests/fuzz/fuzzsupport.h"

#include <QDir>
#include <QFile>
#include <QSet>
#include <cstddef>
#include <cstdint>

using namespace rw;

namespace {

QString g_path;

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fuzzsupport::init(argc, argv);
    g_path = QDir(fuzzsupport::scratchDir()).filePath(QStringLiteral("plan.csv"));
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    if (bytes.startsWith('@')) {
        const auto duration =
            parseResetDuration(QString::fromUtf8(bytes.mid(1).split('\n').front()));
        if (!duration && duration.error().code != Error::Code::BadInput)
            fuzzsupport::violated("parseResetDuration: not BadInput", duration.error().message);
        if (duration && *duration < 0)
            fuzzsupport::violated("parseResetDuration: a negative duration");
    }
    QFile f(g_path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        fuzzsupport::violated("cannot write the scratch file", f.errorString());
    f.write(bytes);
    f.close();
    auto plan = readResetCsv(g_path, QStringLiteral("loader"), QStringLiteral("orders"));
    if (!plan) {
        const Error &e = plan.error();
        if (e.code != Error::Code::BadInput || !e.message.contains(QLatin1String("--from-file")))
            fuzzsupport::violated("readResetCsv: not a clean BadInput", e.message);
        return 0;
    }
    if (plan->empty())
        fuzzsupport::violated("readResetCsv: an empty plan accepted");
    QSet<qint64> partitions;
    for (const auto &[partition, offset] : *plan) {
        Q_UNUSED(offset);
        if (partitions.contains(partition))
            fuzzsupport::violated("readResetCsv: a partition twice", QString::number(partition));
        partitions.insert(partition);
        // The number must be in the file as written (a row of its own).
        if (!bytes.contains(QByteArray::number(partition)))
            fuzzsupport::violated("readResetCsv: a partition the file does not name",
                                  QString::number(partition));
    }
    return 0;
}
