#include "core/dbt/drift.h"

#include "core/dbt/manifest.h"

#include <QHash>

namespace rw::dbt {

QString stateName(ModelDrift::State state) {
    switch (state) {
    case ModelDrift::State::Current:
        return QStringLiteral("current");
    case ModelDrift::State::Changed:
        return QStringLiteral("changed");
    case ModelDrift::State::Gone:
        return QStringLiteral("gone");
    }
    return {};
}

Result<std::vector<ModelDrift>> modelDrift(const Spec &spec, const QString &manifestPath) {
    auto manifest = loadManifest(manifestPath);
    if (!manifest)
        return fail(manifest.error());
    QHash<QString, QString> checksums;
    for (const Node &n : manifest->nodes)
        checksums.insert(n.uniqueId, n.checksum);
    std::vector<ModelDrift> out;
    for (const DatasetSpec &d : spec.datasets) {
        if (!d.dbt)
            continue;
        ModelDrift m;
        m.dataset = d.name;
        m.uniqueId = d.dbt->uniqueId;
        m.imported = d.dbt->checksum;
        if (const auto it = checksums.constFind(m.uniqueId); it == checksums.cend()) {
            m.state = ModelDrift::State::Gone;
        } else {
            m.current = *it;
            m.state =
                m.current == m.imported ? ModelDrift::State::Current : ModelDrift::State::Changed;
        }
        out.push_back(std::move(m));
    }
    return out;
}

QString manifestFor(const Spec &spec, const QString &given) {
    return given.isEmpty() ? spec.dbtManifest : given;
}

} // namespace rw::dbt
