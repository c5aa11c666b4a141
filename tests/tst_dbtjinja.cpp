// Rendering a model's raw_code where the manifest holds no compiled_code
// (issue 44): ref, source, this, config, var with a default, and
// is_incremental() as false give the SQL a full-refresh `dbt compile`
// would; any other construct leaves the model out, naming it.
#include "core/dbt/dbtmap.h"
#include "core/dbt/jinja.h"
#include "core/dbt/manifest.h"
#include "tests/dbtmanifests.h"

#include <QTest>

using namespace rw;

namespace {

dbt::JinjaNames names() {
    dbt::JinjaNames n;
    n.ref = [](const QString &package, const QString &name,
               const QString &version) -> std::optional<QString> {
        if (name == QLatin1String("missing"))
            return std::nullopt;
        return QStringLiteral("\"analytics\".\"") +
               (package.isEmpty() ? QString() : package + u'_') + name +
               (version.isEmpty() ? QString() : QStringLiteral("_v") + version) + u'"';
    };
    n.source = [](const QString &source, const QString &table) -> std::optional<QString> {
        return QStringLiteral("\"") + source + QStringLiteral("\".\"") + table + u'"';
    };
    n.self = QStringLiteral("\"analytics\".\"fct\"");
    return n;
}

} // namespace

class TestDbtJinja : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rendersTheCommonSubset_data() {
        QTest::addColumn<QString>("raw");
        QTest::addColumn<QString>("sql");
        QTest::newRow("ref and source")
            << QStringLiteral("select * from {{ ref('stg_orders') }} o join {{ source('raw', "
                              "'customers') }} c using (id)")
            << QStringLiteral("select * from \"analytics\".\"stg_orders\" o join "
                              "\"raw\".\"customers\" c using (id)");
        QTest::newRow("ref with a package and a version")
            << QStringLiteral("select * from {{ ref(\"shop\", \"dim\", v=2) }}")
            << QStringLiteral("select * from \"analytics\".\"shop_dim_v2\"");
        QTest::newRow("config over lines, with lists and dictionaries")
            << QStringLiteral("{{\n  config(materialized='incremental', unique_key=['id', 'dt'],\n"
                              "    partition_by={'field': 'dt', 'data_type': 'date'})\n}}\n"
                              "select 1 as id")
            << QStringLiteral("select 1 as id");
        QTest::newRow("is_incremental() is false, its else kept")
            << QStringLiteral("select * from {{ ref('e') }}\n{% if is_incremental() %}\nwhere ts > "
                              "(select max(ts) from {{ this }}) {{ dbt_utils.anything() }}\n"
                              "{% else %}\nwhere ts >= '{{ var(\"start\", \"2025-01-01\") }}'\n"
                              "{% endif %}")
            << QStringLiteral("select * from \"analytics\".\"e\"\n\nwhere ts >= '2025-01-01'");
        QTest::newRow("not is_incremental(), nested if unrendered")
            << QStringLiteral("select {% if not is_incremental() %}a{% endif %}"
                              "{% if is_incremental() %}{% if x %}b{% endif %}{% endif %} from t")
            << QStringLiteral("select a from t");
        QTest::newRow("comments and whitespace control")
            << QStringLiteral("{# a comment {{ ref('x') }} #}select 1 {%- if is_incremental() "
                              "-%}  x {%- endif %}   as n")
            << QStringLiteral("select 1   as n");
        QTest::newRow("a snapshot's block")
            << QStringLiteral("{% snapshot s %}{{ config(strategy='timestamp') }}select * from "
                              "{{ source('raw', 'c') }}{% endsnapshot %}")
            << QStringLiteral("select * from \"raw\".\"c\"");
        QTest::newRow("a config whose hook holds a tag")
            << QStringLiteral("{{ config(post_hook=\"grant select on {{ this }} to r\") }}select 2")
            << QStringLiteral("select 2");
        QTest::newRow("no Jinja, a brace in a string")
            << QStringLiteral("select '{' as brace") << QStringLiteral("select '{' as brace");
    }
    void rendersTheCommonSubset() {
        QFETCH(QString, raw);
        QFETCH(QString, sql);
        QString why;
        const auto out = dbt::renderJinja(raw, names(), why);
        QVERIFY2(out, qPrintable(why));
        QCOMPARE(*out, sql);
    }

    void refusesTheRest_data() {
        QTest::addColumn<QString>("raw");
        QTest::addColumn<QString>("named");
        QTest::newRow("a package's macro")
            << QStringLiteral("select {{ dbt_utils.star(ref('a')) }} from t")
            << QStringLiteral("{{ dbt_utils.star(ref('a')) }}");
        QTest::newRow("a filter") << QStringLiteral("select * from {{ ref('a') | lower }}")
                                  << QStringLiteral("{{ ref('a') | lower }}");
        QTest::newRow("set") << QStringLiteral("{% set cols = ['a'] %}select 1")
                             << QStringLiteral("{% set cols = ['a'] %}");
        QTest::newRow("for") << QStringLiteral("select {% for c in cols %}{{ c }}{% endfor %}")
                             << QStringLiteral("{% for c in cols %}");
        QTest::newRow("another condition")
            << QStringLiteral("select 1 {% if target.name == 'prod' %}x{% endif %}")
            << QStringLiteral("{% if target.name == 'prod' %}");
        QTest::newRow("elif")
            << QStringLiteral("select 1 {% if is_incremental() %}x{% elif flag %}y{% endif %}")
            << QStringLiteral("{% elif flag %}");
        QTest::newRow("var without a default")
            << QStringLiteral("select '{{ var(\"start\") }}'") << QStringLiteral("no default");
        QTest::newRow("a ref to no model") << QStringLiteral("select * from {{ ref('missing') }}")
                                           << QStringLiteral("ref('missing'), which is no model");
        QTest::newRow("an if never closed")
            << QStringLiteral("select 1 {% if is_incremental() %} x")
            << QStringLiteral("never closed");
        QTest::newRow("a tag never closed")
            << QStringLiteral("select {{ ref('a') from t") << QStringLiteral("never closed");
    }
    void refusesTheRest() {
        QFETCH(QString, raw);
        QFETCH(QString, named);
        QString why;
        QVERIFY(!dbt::renderJinja(raw, names(), why));
        QVERIFY2(why.contains(named), qPrintable(why));
    }

    // In the mapping: a model whose manifest holds only raw_code becomes a
    // dataset with the rendered SQL (relations as the engine names them);
    // one that uses a construct Rewind does not render is left out, saying
    // to compile.
    void modelsFromRawCode() {
        auto m = dbt::parseManifest(dbtdata::manifest(QStringLiteral("v12"),
                                                      QString::fromUtf8(dbtdata::kRawCode),
                                                      QString::fromUtf8(dbtdata::kRawSources)),
                                    QStringLiteral("m.json"));
        QVERIFY2(m, qPrintable(m ? QString() : m.error().message));
        for (const QString &engine : {QStringLiteral("postgresql"), QStringLiteral("sqlite")}) {
            const auto nodes = dbt::mapManifest(*m, {engine, QStringLiteral("w")});
            const auto find = [&](const char *id) {
                return *std::find_if(nodes.begin(), nodes.end(), [&](const dbt::MappedNode &n) {
                    return n.uniqueId == QLatin1String(id);
                });
            };
            const dbt::MappedNode daily = find("model.shop.daily");
            QVERIFY2(daily.mapped, qPrintable(daily.reason));
            QCOMPARE(
                QString::fromStdString(daily.spec["transform"].get<std::string>()),
                engine == QLatin1String("sqlite")
                    ? QStringLiteral("select o.id, o.dt, c.tier from \"stg_orders\" o join "
                                     "\"customers\" c on c.id = o.customer_id")
                    : QStringLiteral("select o.id, o.dt, c.tier from \"staging\".\"stg_orders\" "
                                     "o join \"raw\".\"customers\" c on c.id = o.customer_id"));
            // Compiled as an incremental run (reading its own table): its
            // raw code rendered instead.
            const dbt::MappedNode incr = find("model.shop.incr");
            QVERIFY2(incr.mapped, qPrintable(incr.reason));
            QCOMPARE(QString::fromStdString(incr.spec["transform"].get<std::string>()),
                     engine == QLatin1String("sqlite")
                         ? QStringLiteral("select id from \"stg_orders\"")
                         : QStringLiteral("select id from \"staging\".\"stg_orders\""));
            const dbt::MappedNode starred = find("model.shop.starred");
            QVERIFY(!starred.mapped);
            QVERIFY2(starred.reason.contains(QStringLiteral("dbt_utils.star")) &&
                         starred.reason.contains(QStringLiteral("dbt compile")),
                     qPrintable(starred.reason));
        }
    }
};

QTEST_GUILESS_MAIN(TestDbtJinja)
#include "tst_dbtjinja.moc"
