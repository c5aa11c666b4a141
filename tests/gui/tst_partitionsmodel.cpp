// PartitionsModel and PartitionsProxyModel: structure under
// QAbstractItemModelTester, raw numbers for sorting, status colours, and a
// snapshot taken by core from a real database.
#include "core/sql/controlschema.h"
#include "tests/testsupport.h"
#include "ui/batch/partitionsmodel.h"
#include "ui/batch/partitionsproxymodel.h"
#include "ui/common/statusstyle.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QFont>
#include <QIcon>
#include <QSignalSpy>
#include <QTest>

using rw::PartitionInfo;
using rw::PartitionsModel;
using rw::PartitionsProxyModel;
using rw::PartitionStatus;

namespace {

PartitionInfo part(const QString &value, qint64 source, qint64 target, PartitionStatus status,
                   qint64 duplicates = 0) {
    PartitionInfo p;
    p.partition = value;
    p.sourceRows = source;
    p.targetRows = target;
    p.duplicateKeys = duplicates;
    p.status = status;
    return p;
}

std::vector<PartitionInfo> sample() {
    return {part(QStringLiteral("2025-05-01"), 10, 10, PartitionStatus::Final),
            part(QStringLiteral("2025-05-02"), 9, 9, PartitionStatus::Loaded),
            part(QStringLiteral("2025-05-03"), 100, 0, PartitionStatus::Unloaded),
            part(QStringLiteral("2025-05-04"), 2, 3, PartitionStatus::Stale, 1),
            part(QStringLiteral("2025-05-05"), 1000, 1000, PartitionStatus::Provisional),
            part(QStringLiteral("2025-05-06"), 25, 20, PartitionStatus::Failed)};
}

QStringList column(const QAbstractItemModel &m, int col, int role = Qt::DisplayRole) {
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r)
        out << m.index(r, col).data(role).toString();
    return out;
}

} // namespace

class TestPartitionsModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    }

    void structureHoldsAcrossResets() {
        PartitionsModel model;
        PartitionsProxyModel proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);

        model.resetData(sample());
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(model.columnCount(), int(PartitionsModel::ColumnCount));
        proxy.sort(PartitionsModel::SourceRowsColumn, Qt::DescendingOrder);
        proxy.setStatusFilter({PartitionStatus::Stale});
        proxy.setStatusFilter({});
        model.resetData({});
        QCOMPARE(model.rowCount(), 0);
        model.resetData(sample());
        QCOMPARE(reset.count(), 3);
        QCOMPARE(proxy.rowCount(), 6);
    }

    // A partitioned PostgreSQL target: each partition's leaf, its bound in
    // the tooltip; a value no leaf holds shows a dash and says so.
    void leafColumnNamesTheLeafAndItsBound() {
        PartitionsModel model;
        std::vector<PartitionInfo> rows = sample();
        rows[0].leaf = QStringLiteral("fact_p2025_05_01");
        rows[0].leafBounds = QStringLiteral("FROM ('2025-05-01') TO ('2025-05-02')");
        model.resetData(std::move(rows));
        QCOMPARE(model.headerData(PartitionsModel::LeafColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Leaf"));
        const QModelIndex leaf = model.index(0, PartitionsModel::LeafColumn);
        QCOMPARE(leaf.data().toString(), QStringLiteral("fact_p2025_05_01"));
        QVERIFY2(leaf.data(Qt::ToolTipRole)
                     .toString()
                     .contains(QStringLiteral("FROM ('2025-05-01') TO ('2025-05-02')")),
                 qPrintable(leaf.data(Qt::ToolTipRole).toString()));
        QCOMPARE(model.index(1, PartitionsModel::LeafColumn).data().toString(),
                 QStringLiteral("\u2014"));
    }

    void sortRoleGivesRawNumbers_data() {
        QTest::addColumn<int>("column");
        QTest::addColumn<qint64>("expected");
        QTest::addColumn<QString>("display");
        QTest::newRow("source rows")
            << int(PartitionsModel::SourceRowsColumn) << qint64(1000) << QStringLiteral("1,000");
        QTest::newRow("target rows")
            << int(PartitionsModel::TargetRowsColumn) << qint64(1000) << QStringLiteral("1,000");
        QTest::newRow("duplicate keys")
            << int(PartitionsModel::DuplicateKeysColumn) << qint64(0) << QStringLiteral("0");
    }

    void sortRoleGivesRawNumbers() {
        QFETCH(int, column);
        QFETCH(qint64, expected);
        QFETCH(QString, display);
        PartitionsModel model;
        model.resetData(sample());
        const QModelIndex index = model.index(4, column); // 2025-05-05: 1000 rows
        const QVariant raw = index.data(PartitionsModel::SortRole);
        QCOMPARE(raw.typeId(), QMetaType::LongLong);
        QCOMPARE(raw.toLongLong(), expected);
        QCOMPARE(index.data().toString(), display);
        const auto align = index.data(Qt::TextAlignmentRole).value<Qt::Alignment>();
        QVERIFY(align & Qt::AlignRight);
    }

    void sortsNumericallyNotAsText() {
        PartitionsModel model;
        model.resetData(sample());
        PartitionsProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.sort(PartitionsModel::SourceRowsColumn, Qt::AscendingOrder);
        // As text, "1,000" < "10" < "100" < "2" < "25" < "9"; as numbers 9 comes before 10.
        QCOMPARE(
            column(proxy, PartitionsModel::SourceRowsColumn),
            (QStringList{QStringLiteral("2"), QStringLiteral("9"), QStringLiteral("10"),
                         QStringLiteral("25"), QStringLiteral("100"), QStringLiteral("1,000")}));
        proxy.sort(PartitionsModel::StatusColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, PartitionsModel::StatusColumn).data().toString(),
                 QStringLiteral("failed"));
        QCOMPARE(proxy.index(1, PartitionsModel::StatusColumn).data().toString(),
                 QStringLiteral("stale"));
    }

    void partitionsSortAsNumbersWhenNumeric() {
        PartitionsModel model;
        std::vector<PartitionInfo> rows{part(QStringLiteral("10"), 1, 1, PartitionStatus::Loaded),
                                        part(QStringLiteral("9"), 1, 1, PartitionStatus::Loaded),
                                        part(QStringLiteral("100"), 1, 1, PartitionStatus::Loaded)};
        model.resetData(std::move(rows));
        PartitionsProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.sort(PartitionsModel::PartitionColumn, Qt::AscendingOrder);
        QCOMPARE(column(proxy, PartitionsModel::PartitionColumn),
                 (QStringList{QStringLiteral("9"), QStringLiteral("10"), QStringLiteral("100")}));
    }

    void statusColours_data() {
        QTest::addColumn<PartitionStatus>("status");
        QTest::addColumn<int>("hueLow"); // -1: a grey, no hue
        QTest::addColumn<int>("hueHigh");
        QTest::newRow("unloaded grey") << PartitionStatus::Unloaded << -1 << -1;
        QTest::newRow("loaded blue") << PartitionStatus::Loaded << 200 << 240;
        QTest::newRow("provisional amber") << PartitionStatus::Provisional << 38 << 50;
        QTest::newRow("final green") << PartitionStatus::Final << 100 << 160;
        QTest::newRow("stale orange") << PartitionStatus::Stale << 18 << 32;
        QTest::newRow("failed red") << PartitionStatus::Failed << 0 << 8;
    }

    void statusColours() {
        QFETCH(PartitionStatus, status);
        QFETCH(int, hueLow);
        QFETCH(int, hueHigh);
        PartitionsModel model;
        model.resetData({part(QStringLiteral("p"), 1, 1, status)});
        const QModelIndex index = model.index(0, PartitionsModel::StatusColumn);
        QCOMPARE(index.data().toString(), enumName(status));
        QCOMPARE(index.data(PartitionsModel::StatusRole).value<PartitionStatus>(), status);

        const QColor dot = rw::StatusStyle::color(status);
        if (hueLow < 0) {
            QVERIFY2(dot.hsvSaturation() < 40, qPrintable(dot.name()));
        } else {
            QVERIFY2(dot.hsvSaturation() > 120, qPrintable(dot.name()));
            QVERIFY2(dot.hsvHue() >= hueLow && dot.hsvHue() <= hueHigh, qPrintable(dot.name()));
        }
        // The cell is tinted with the status colour and carries its dot.
        const QColor tint = index.data(Qt::BackgroundRole).value<QBrush>().color();
        QCOMPARE(tint, rw::StatusStyle::tint(status));
        QVERIFY(tint.lightness() > 200); // black text stays readable
        if (hueLow >= 0)
            QVERIFY2(qAbs(tint.hsvHue() - dot.hsvHue()) <= 8, qPrintable(tint.name()));
        const QIcon icon = index.data(Qt::DecorationRole).value<QIcon>();
        QVERIFY(!icon.isNull());
        const QImage image = icon.pixmap(16, 16).toImage();
        QCOMPARE(image.pixelColor(8, 8).rgb(), dot.rgb());
        // Other columns are not tinted by status.
        QVERIFY(
            !model.index(0, PartitionsModel::PartitionColumn).data(Qt::BackgroundRole).isValid());
    }

    void statusColoursAreDistinct() {
        QSet<QRgb> seen;
        for (const PartitionStatus status : rw::StatusStyle::statuses())
            seen.insert(rw::StatusStyle::color(status).rgb());
        QCOMPARE(seen.size(), rw::StatusStyle::statuses().size());
    }

    void disagreeingCountsStandOut() {
        PartitionsModel model;
        model.resetData(sample());
        const auto bold = [&](int row, int col) {
            return model.index(row, col).data(Qt::FontRole).value<QFont>().bold();
        };
        // 2025-05-04: 2 source, 3 target, 1 duplicate key.
        QVERIFY(bold(3, PartitionsModel::TargetRowsColumn));
        QVERIFY(bold(3, PartitionsModel::DuplicateKeysColumn));
        QVERIFY(model.index(3, 0).data(PartitionsModel::AttentionRole).toBool());
        QCOMPARE(model.index(3, PartitionsModel::DuplicateKeysColumn)
                     .data(Qt::ForegroundRole)
                     .value<QBrush>()
                     .color()
                     .hsvHue(),
                 0);
        // 2025-05-06: 25 source, 20 target: coloured (dedupe can explain fewer rows, so not
        // alarming).
        QVERIFY(!bold(5, PartitionsModel::TargetRowsColumn));
        QVERIFY(
            model.index(5, PartitionsModel::TargetRowsColumn).data(Qt::ForegroundRole).isValid());
        QCOMPARE(model.index(5, PartitionsModel::DifferenceColumn).data().toString(),
                 QStringLiteral("\u22125"));
        QCOMPARE(model.index(3, PartitionsModel::DifferenceColumn).data().toString(),
                 QStringLiteral("+1"));
        QCOMPARE(model.index(5, PartitionsModel::DifferenceColumn)
                     .data(PartitionsModel::SortRole)
                     .toLongLong(),
                 -5);
        // 2025-05-01: counts agree; 2025-05-03: never published, so 0 target rows is expected.
        QVERIFY(!bold(0, PartitionsModel::TargetRowsColumn));
        QVERIFY(!bold(2, PartitionsModel::TargetRowsColumn));
        QVERIFY(!model.index(2, 0).data(PartitionsModel::AttentionRole).toBool());
    }

    void proxyFilters() {
        PartitionsModel model;
        model.resetData(sample());
        PartitionsProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setStatusFilter({PartitionStatus::Final, PartitionStatus::Loaded});
        QCOMPARE(proxy.rowCount(), 2);
        proxy.setStatusFilter({});
        proxy.setAttentionOnly(true);
        QCOMPARE(column(proxy, PartitionsModel::PartitionColumn),
                 (QStringList{QStringLiteral("2025-05-04"), QStringLiteral("2025-05-06")}));
        proxy.setAttentionOnly(false);
        proxy.setPartitionFilter(QStringLiteral("05-0"));
        QCOMPARE(proxy.rowCount(), 6);
        proxy.setPartitionFilter(QStringLiteral("05-03"));
        QCOMPARE(proxy.rowCount(), 1);
    }

    // A snapshot taken by core from a database: 12 days in the source, 5
    // published (one with a duplicated key), one whose source changed since.
    void realSnapshot() {
        QTemporaryDir dir;
        rw::Database db = testsupport::makeDatabase(
            dir, QStringLiteral("w.db"),
            {QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, item_id INTEGER, dt TEXT, "
                            "amount REAL, updated_at TEXT)"),
             QStringLiteral(
                 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 78) "
                 "INSERT INTO raw_sales SELECT i, 1, '2025-05-' || substr(CAST(101 + i % 12 AS "
                 "TEXT), 2), i * 1.5, "
                 "'2025-05-20T00:00:00Z' FROM n"),
             QStringLiteral(
                 "CREATE TABLE fact_sales AS SELECT * FROM raw_sales WHERE dt <= '2025-05-05'"),
             QStringLiteral("INSERT INTO fact_sales SELECT * FROM raw_sales WHERE dt = "
                            "'2025-05-02' LIMIT 1")});
        auto spec = rw::parseSpec(
            R"({"datasets": {"fact_sales": {"source": "raw_sales", "target": "fact_sales",
            "partition_column": "dt", "key": ["order_id", "item_id"], "order_by": "updated_at", "write": "merge"}}})",
            QStringLiteral("inline"));
        QVERIFY2(spec.has_value(), qPrintable(spec ? QString() : spec.error().message));
        QVERIFY(rw::controlschema::migrate(db).has_value());
        const rw::DatasetSpec &ds = spec->datasets.front();
        // Day 1 was published by Rewind from what the source held then (one row fewer).
        QVERIFY(
            db
                .exec(QStringLiteral(
                    "INSERT INTO rewind_partition_state (dataset, part, part_is_null, status, "
                    "source_rows, "
                    "source_sig, published_at, last_run_id) VALUES ('fact_sales', '2025-05-01', 0, "
                    "'published', 5, 'old', '2025-05-20T01:00:00Z', 7)"))
                .has_value());

        auto snapshot = rw::listPartitions(db, ds);
        QVERIFY2(snapshot.has_value(), qPrintable(snapshot ? QString() : snapshot.error().message));
        PartitionsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.resetData(std::move(*snapshot));
        QCOMPARE(model.rowCount(), 12);
        PartitionsProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.sort(PartitionsModel::PartitionColumn, Qt::AscendingOrder);
        QCOMPARE(column(proxy, PartitionsModel::StatusColumn),
                 (QStringList{QStringLiteral("stale"), QStringLiteral("loaded"),
                              QStringLiteral("loaded"), QStringLiteral("loaded"),
                              QStringLiteral("loaded"), QStringLiteral("unloaded"),
                              QStringLiteral("unloaded"), QStringLiteral("unloaded"),
                              QStringLiteral("unloaded"), QStringLiteral("unloaded"),
                              QStringLiteral("unloaded"), QStringLiteral("unloaded")}));
        QCOMPARE(proxy.index(0, PartitionsModel::LastRunColumn).data().toString(),
                 QStringLiteral("#7"));
        QCOMPARE(proxy.index(0, PartitionsModel::LastPublishedColumn).data().toString(),
                 QStringLiteral("2025-05-20 01:00:00"));
        // 2025-05-02 holds one key twice.
        QCOMPARE(proxy.index(1, PartitionsModel::DuplicateKeysColumn)
                     .data(PartitionsModel::SortRole)
                     .toLongLong(),
                 1);
        QCOMPARE(proxy.index(1, PartitionsModel::TargetRowsColumn)
                     .data(PartitionsModel::SortRole)
                     .toLongLong(),
                 proxy.index(1, PartitionsModel::SourceRowsColumn)
                         .data(PartitionsModel::SortRole)
                         .toLongLong() +
                     1);
    }
};

QTEST_MAIN(TestPartitionsModel)
#include "tst_partitionsmodel.moc"
