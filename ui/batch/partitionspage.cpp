#include "ui/batch/partitionspage.h"

#include "core/dbt/runresults.h"
#include "core/recovery/recovery.h"
#include "ui/batch/partitionsmodel.h"
#include "ui/batch/partitionsproxymodel.h"
#include "ui/common/stattile.h"
#include "ui/common/statusstyle.h"
#include "ui/common/style.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>
#include <tuple>
#include <utility>

namespace rw {

namespace {

QString number(qint64 n) {
    QLocale locale;
    locale.setNumberOptions(locale.numberOptions() & ~QLocale::OmitGroupSeparator);
    return locale.toString(n);
}

// A load's answer: the rows and their places in partition order.
struct Ranked {
    std::vector<PartitionInfo> rows;
    std::vector<int> ranks;
    std::optional<FreezeInfo> frozen;
    bool leaves = false;    // a partitioned PostgreSQL target: the Leaf column is shown
    bool snapshots = false; // an Iceberg target: the Last snapshot column is shown
    // With dbt's run results: the partitions they mark, and how the file reads.
    QStringList dbtFailed;
    QString dbtSummary;
};

QString describeLateness(qint64 seconds) {
    if (seconds % 86400 == 0)
        return QStringLiteral("%1d").arg(seconds / 86400);
    if (seconds % 3600 == 0)
        return QStringLiteral("%1h").arg(seconds / 3600);
    if (seconds % 60 == 0)
        return QStringLiteral("%1m").arg(seconds / 60);
    return QStringLiteral("%1s").arg(seconds);
}

} // namespace

PartitionsPage::PartitionsPage(QWidget *parent)
    : Page(parent)
    , m_title(new QLabel(this))
    , m_subtitle(new QLabel(this))
    , m_statusChips(new QLabel(this))
    , m_frozen(new QLabel(this))
    , m_dbtNote(new QLabel(this))
    , m_dbtButton(new QPushButton(tr("dbt results\u2026"), this))
    , m_partitionsTile(new StatTile(tr("partitions"), this))
    , m_sourceTile(new StatTile(tr("source rows"), this))
    , m_targetTile(new StatTile(tr("target rows"), this))
    , m_duplicatesTile(new StatTile(tr("partitions with duplicate keys"), this))
    , m_attentionTile(new StatTile(tr("need attention"), this))
    , m_filter(new QLineEdit(this))
    , m_statusCombo(new QComboBox(this))
    , m_shownCount(new QLabel(this))
    , m_selection(new QLabel(this))
    , m_previewAction(new QAction(tr("Preview re-run"), this))
    , m_runAction(new QAction(tr("Run\u2026"), this))
    , m_openRunAction(new QAction(tr("Open last run"), this))
    , m_recoverAction(new QAction(tr("Recover duplicates\u2026"), this))
    , m_previewButton(new QPushButton(this))
    , m_runButton(new QPushButton(this))
    , m_openRunButton(new QPushButton(this))
    , m_recoverButton(new QPushButton(this))
    , m_view(new QTableView(this))
    , m_model(new PartitionsModel(this))
    , m_proxy(new PartitionsProxyModel(this)) {
    setObjectName(QStringLiteral("partitionsPage"));
    style::makeTitle(m_title);
    m_subtitle->setObjectName(QStringLiteral("partitionsHeader"));
    m_subtitle->setStyleSheet(style::textColour(style::Colour::Subtitle));
    m_subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_statusChips->setTextFormat(Qt::RichText);

    auto *tiles = new QHBoxLayout;
    tiles->setSpacing(8);
    for (StatTile *tile :
         {m_partitionsTile, m_sourceTile, m_targetTile, m_duplicatesTile, m_attentionTile})
        tiles->addWidget(tile);
    tiles->addStretch(1);

    m_filter->setPlaceholderText(tr("Filter: regex or range 2025-05-01..2025-05-10"));
    m_filter->setObjectName(QStringLiteral("partitionFilter"));
    m_filter->setToolTip(
        tr("A regular expression matched against the partition (e.g. <code>05-1[0-4]</code>), "
           "or a range <code>FROM..TO</code> (inclusive; <code>2025-05-10..</code> and "
           "<code>..2025-05-03</code> work too)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMinimumWidth(300);
    m_filter->setMaximumWidth(340);
    m_statusCombo->addItem(tr("All statuses"));
    m_statusCombo->addItem(tr("Needs attention"));
    for (const PartitionStatus status : StatusStyle::statuses())
        m_statusCombo->addItem(StatusStyle::icon(status), enumName(status),
                               QVariant::fromValue(status));
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        const bool ok = m_proxy->setPartitionFilter(text.trimmed());
        m_filter->setStyleSheet(
            ok ? QString()
               : QStringLiteral("QLineEdit { border: 1px solid %1; background: %2; }")
                     .arg(style::colour(style::Colour::ErrorBorder),
                          style::colour(style::Colour::ErrorTint)));
        m_filter->setToolTip(ok ? QString() : m_proxy->partitionFilterError());
        updateCounts();
        updateSelection();
    });
    connect(m_statusCombo, &QComboBox::currentIndexChanged, this,
            &PartitionsPage::applyStatusFilter);

    // Actions on the selection; Ctrl+P / Ctrl+R work while the page is shown.
    m_previewAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_openRunAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_previewAction->setToolTip(tr(
        "Compute what a re-run of the selected partitions would change; writes nothing (Ctrl+P)"));
    m_runAction->setToolTip(tr("Preview the selected partitions, then confirm the run (Ctrl+R)"));
    m_openRunAction->setToolTip(
        tr("Show the last run that touched the selected partitions (Ctrl+L)"));
    for (auto [action, button, name] :
         {std::tuple{m_previewAction, m_previewButton, "previewButton"},
          std::tuple{m_runAction, m_runButton, "runButton"},
          std::tuple{m_openRunAction, m_openRunButton, "openRunButton"}}) {
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        addAction(action);
        button->setObjectName(QLatin1StringView(name));
        button->setText(action->text() + QStringLiteral("  (") +
                        action->shortcut().toString(QKeySequence::NativeText) + u')');
        button->setToolTip(action->toolTip());
        connect(button, &QPushButton::clicked, action, &QAction::trigger);
    }
    m_previewButton->setStyleSheet(QStringLiteral("QPushButton { font-weight: bold; }"));
    connect(m_previewAction, &QAction::triggered, this, [this] {
        if (hasSelection())
            Q_EMIT previewRequested(selectedPartitions());
    });
    connect(m_runAction, &QAction::triggered, this, [this] {
        if (hasSelection())
            Q_EMIT runRequested(selectedPartitions());
    });
    connect(m_openRunAction, &QAction::triggered, this, [this] {
        if (const qint64 id = lastRunOfSelection(); id > 0)
            Q_EMIT openRunRequested(id);
    });
    // The guided recovery is about the whole dataset, not the selection.
    m_recoverAction->setToolTip(tr("Guided recovery of a duplicate incident: freeze, identify, "
                                   "re-run the affected partitions, "
                                   "check totals, add a unique index, unfreeze"));
    addAction(m_recoverAction);
    m_recoverButton->setObjectName(QStringLiteral("recoverButton"));
    m_recoverButton->setText(m_recoverAction->text());
    m_recoverButton->setToolTip(m_recoverAction->toolTip());
    connect(m_recoverButton, &QPushButton::clicked, m_recoverAction, &QAction::trigger);
    connect(m_recoverAction, &QAction::triggered, this, [this] {
        if (m_dataset)
            Q_EMIT recoverRequested();
    });
    m_selection->setObjectName(QStringLiteral("selectionSummary"));
    m_selection->setStyleSheet(QStringLiteral("font-weight: bold; ") %
                               style::textColour(style::Colour::Strong));
    auto *actions = new QHBoxLayout;
    actions->addWidget(m_selection, 1);
    actions->addWidget(m_previewButton);
    actions->addWidget(m_runButton);
    actions->addWidget(m_openRunButton);
    actions->addSpacing(12);
    actions->addWidget(m_recoverButton);
    m_dbtButton->setObjectName(QStringLiteral("dbtResultsButton"));
    m_dbtButton->setToolTip(
        tr("Open dbt's run_results.json: mark the partitions its run failed (failed microbatch "
           "batches, or a model whose run or test failed) and select them to preview"));
    actions->addWidget(m_dbtButton);
    connect(m_dbtButton, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("dbt run results"), QString(),
                                         tr("dbt run results (run_results.json *.json)"));
        if (!path.isEmpty())
            loadDbtResults(path);
    });

    auto *filters = new QHBoxLayout;
    filters->addWidget(m_filter);
    filters->addWidget(m_statusCombo);
    filters->addSpacing(12);
    filters->addWidget(m_statusChips, 1);
    filters->addWidget(m_shownCount);

    m_proxy->setSourceModel(m_model);
    m_view->setObjectName(QStringLiteral("partitionsView"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(PartitionsModel::PartitionColumn,
                         Qt::DescendingOrder); // most recent first
    measureFirstRowsOnly(m_view);
    // A partitioned target's leaf beside its partition, where it is read
    // with it (hidden for other targets).
    m_view->horizontalHeader()->moveSection(PartitionsModel::LeafColumn,
                                            PartitionsModel::PartitionColumn + 1);
    m_view->setColumnHidden(PartitionsModel::LeafColumn, true);
    // An Iceberg target's last snapshot of each partition beside its status:
    // what last wrote it (hidden for other targets).
    m_view->horizontalHeader()->moveSection(
        m_view->horizontalHeader()->visualIndex(PartitionsModel::SnapshotColumn),
        m_view->horizontalHeader()->visualIndex(PartitionsModel::StatusColumn) + 1);
    m_view->setColumnHidden(PartitionsModel::SnapshotColumn, true);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    style::setupTable(m_view, 10);

    auto *layout = style::pageLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_subtitle);
    m_frozen->setObjectName(QStringLiteral("partitionsFrozen"));
    m_frozen->setWordWrap(true);
    m_frozen->setStyleSheet(
        QStringLiteral("QLabel { background: %2; border: 1px solid %1; "
                       "border-radius: 4px; padding: 6px; color: %1; }")
            .arg(style::colour(style::Colour::Error), style::colour(style::Colour::ErrorTint)));
    m_frozen->hide();
    layout->addWidget(m_frozen);
    m_dbtNote->setObjectName(QStringLiteral("dbtNote"));
    m_dbtNote->setWordWrap(true);
    m_dbtNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_dbtNote->hide();
    layout->addWidget(m_dbtNote);
    layout->addLayout(tiles);
    layout->addLayout(filters);
    layout->addLayout(actions);
    layout->addWidget(m_view, 1);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &PartitionsPage::updateSelection);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &PartitionsPage::updateSelection);
    clear();
}

QStringList PartitionsPage::selectedPartitions() const {
    std::vector<std::optional<QString>> parts;
    const QModelIndexList rows =
        m_view->selectionModel()->selectedRows(PartitionsModel::PartitionColumn);
    for (const QModelIndex &index : rows) {
        const QVariant v = index.data(PartitionsModel::SortRole);
        if (v.isNull())
            return {}; // the unpartitioned whole: the whole dataset
        parts.push_back(v.toString());
    }
    std::sort(parts.begin(), parts.end(), partitionLess);
    QStringList out;
    for (const auto &p : parts)
        out << *p;
    return out;
}

bool PartitionsPage::hasSelection() const {
    return m_view->selectionModel()->hasSelection();
}

int PartitionsPage::selectPartitions(const QStringList &partitions) {
    QItemSelection selection;
    int n = 0;
    int first = -1;
    for (int r = 0; r < m_proxy->rowCount(); ++r) {
        const QModelIndex index = m_proxy->index(r, PartitionsModel::PartitionColumn);
        if (partitions.contains(index.data().toString())) {
            selection.select(index, m_proxy->index(r, PartitionsModel::ColumnCount - 1));
            ++n;
            if (first < 0)
                first = r;
        }
    }
    m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    if (first >= 0) {
        m_view->selectionModel()->setCurrentIndex(m_proxy->index(first, 0),
                                                  QItemSelectionModel::NoUpdate);
        m_view->scrollTo(m_proxy->index(first, 0));
    }
    return n;
}

QString PartitionsPage::selectionText() const {
    return m_selection->text();
}

qint64 PartitionsPage::lastRunOfSelection() const {
    qint64 last = 0;
    for (const QModelIndex &index :
         m_view->selectionModel()->selectedRows(PartitionsModel::LastRunColumn))
        last = std::max(last, index.data(PartitionsModel::SortRole).toLongLong());
    return last;
}

void PartitionsPage::updateSelection() {
    const QModelIndexList rows =
        m_view->selectionModel()->selectedRows(PartitionsModel::SourceRowsColumn);
    qint64 sourceRows = 0;
    for (const QModelIndex &index : rows)
        sourceRows += index.data(PartitionsModel::SortRole).toLongLong();
    const bool any = !rows.isEmpty();
    m_selection->setText(
        any ? tr("%1 selected, %2 rows").arg(number(qint64(rows.size())), number(sourceRows))
            : tr("Select partitions (Shift/Ctrl+click, Ctrl+A) to preview or re-run them"));
    m_selection->setStyleSheet(any ? QString(QStringLiteral("font-weight: bold; ") %
                                             style::textColour(style::Colour::Strong))
                                   : style::textColour(style::Colour::Muted));
    m_previewAction->setEnabled(any);
    m_runAction->setEnabled(any);
    m_previewButton->setEnabled(any);
    m_runButton->setEnabled(any);
    const bool hasRun = any && lastRunOfSelection() > 0;
    m_openRunAction->setEnabled(hasRun);
    m_openRunButton->setEnabled(hasRun);
}

void PartitionsPage::loadDbtResults(const QString &path) {
    m_dbtResults = path;
    refresh();
}

void PartitionsPage::setDataset(const Database &db, const DatasetSpec &dataset) {
    m_db = db;
    m_dataset = dataset;
    m_dbtResults.clear();
    m_model->resetData({});
    updateHeader();
    refresh();
}

QString PartitionsPage::datasetName() const {
    return m_dataset ? m_dataset->name : QString();
}

QString PartitionsPage::title() const {
    return m_dataset ? tr("Partitions of %1").arg(m_dataset->name) : tr("Partitions");
}

void PartitionsPage::clear() {
    cancelLoad();
    m_dbtResults.clear();
    m_db.reset();
    m_dataset.reset();
    m_model->resetData({});
    updateHeader();
}

void PartitionsPage::refresh() {
    if (!m_db || !m_dataset)
        return;
    startLoad(
        tr("Loading partitions of %1\u2026").arg(m_dataset->name),
        [db = *m_db, dataset = *m_dataset, dbtResults = m_dbtResults]() -> Result<Ranked> {
            auto rows = listPartitions(db, dataset);
            if (!rows)
                return fail(rows.error());
            QStringList dbtFailed;
            QString dbtSummary;
            if (!dbtResults.isEmpty()) {
                auto results = dbt::loadRunResults(dbtResults, QString());
                if (!results)
                    return fail(results.error());
                for (PartitionInfo &p : *rows) {
                    p.dbtFailure = dbt::failureOf(*results, dataset, p.partition);
                    if (p.dbtFailure)
                        dbtFailed << partitionLabel(p.partition);
                }
                dbtSummary = tr("dbt's run of %1 (%2): %n partition(s) to redo", nullptr,
                                int(dbtFailed.size()))
                                 .arg(results->generatedAt, dbtResults);
                if (!results->unattributedTests.isEmpty())
                    dbtSummary += u' ' % tr("%n failed test(s) name no model of the manifest "
                                            "beside the file",
                                            nullptr, int(results->unattributedTests.size()));
            }
            std::vector<int> ranks = PartitionsModel::ranks(*rows);
            auto frozen = freezeInfo(db, dataset.name);
            if (!frozen)
                return fail(frozen.error());
            const bool leaves = std::any_of(rows->begin(), rows->end(), [](const PartitionInfo &p) {
                return !p.leaf.isEmpty();
            });
            const bool snapshots =
                std::any_of(rows->begin(), rows->end(),
                            [](const PartitionInfo &p) { return !p.snapshot.isEmpty(); });
            return Ranked{std::move(*rows), std::move(ranks),     std::move(*frozen),   leaves,
                          snapshots,        std::move(dbtFailed), std::move(dbtSummary)};
        },
        [this](Result<Ranked> result) {
            if (!result) {
                const bool dbtFailed = !m_dbtResults.isEmpty();
                m_dbtResults.clear(); // the next refresh loads the partitions alone
                updateHeader();
                Q_EMIT loadFailed(dbtFailed ? tr("Could not read dbt's run results for %1: %2")
                                                  .arg(datasetName(), result.error().message)
                                            : tr("Could not load the partitions of %1: %2")
                                                  .arg(datasetName(), result.error().message));
                return;
            }
            m_model->resetData(std::move(result->rows), std::move(result->ranks));
            m_view->setColumnHidden(PartitionsModel::LeafColumn, !result->leaves);
            m_view->setColumnHidden(PartitionsModel::SnapshotColumn, !result->snapshots);
            m_view->setColumnHidden(PartitionsModel::DbtColumn, m_dbtResults.isEmpty());
            m_dbtNote->setVisible(!m_dbtResults.isEmpty());
            m_dbtNote->setText(result->dbtSummary);
            if (!m_dbtResults.isEmpty())
                m_pendingSelection = result->dbtFailed; // ready to preview
            style::fitColumns(m_view, PartitionsModel::ColumnCount, 16);
            showFrozen(result->frozen);
            updateHeader();
            if (!m_pendingSelection.isEmpty())
                selectPartitions(std::exchange(m_pendingSelection, {}));
            Q_EMIT pageLoaded();
        });
    updateHeader();
}

void PartitionsPage::applyStatusFilter(int comboIndex) {
    m_proxy->setAttentionOnly(comboIndex == 1);
    const QVariant status =
        m_statusCombo->itemData(comboIndex); // none for all statuses and needs attention
    m_proxy->setStatusFilter(status.isValid()
                                 ? QList<PartitionStatus>{status.value<PartitionStatus>()}
                                 : QList<PartitionStatus>());
    updateCounts();
}

QString PartitionsPage::summaryText() const {
    return m_title->text() % QStringLiteral(": ") % m_subtitle->text() % QStringLiteral("; ") %
           m_summary;
}

QString PartitionsPage::statusText() const {
    if (!m_dataset)
        return QString();
    return m_summary.isEmpty() ? m_dataset->name
                               : m_dataset->name % QStringLiteral(": ") % m_summary;
}

void PartitionsPage::showFrozen(const std::optional<FreezeInfo> &frozen) {
    m_frozen->setVisible(frozen.has_value());
    if (frozen && m_dataset)
        m_frozen->setText(tr("Frozen since %1 by %2%3. The database refuses every other writer's "
                             "INSERT, UPDATE and DELETE on %4, and Rewind's "
                             "runs refuse it, until the recovery finishes or it is unfrozen "
                             "(rewindctl unfreeze --dataset %5 --execute).")
                              .arg(fmt::timestamp(frozen->frozenAt), frozen->osUser,
                                   frozen->reason.isEmpty()
                                       ? QString()
                                       : QStringLiteral(" (") % frozen->reason % u')',
                                   m_dataset->target, m_dataset->name));
}

void PartitionsPage::updateHeader() {
    m_dbtButton->setVisible(m_dataset && m_dataset->dbt);
    if (!m_dataset) {
        m_title->setText(tr("No dataset selected"));
        m_recoverAction->setEnabled(false);
        m_recoverButton->setEnabled(false);
        m_subtitle->clear();
        m_statusChips->clear();
        m_summary.clear();
        for (StatTile *tile :
             {m_partitionsTile, m_sourceTile, m_targetTile, m_duplicatesTile, m_attentionTile}) {
            tile->setValue(QStringLiteral("\u2014"));
            tile->setAlert(false);
        }
        updateCounts();
        return;
    }
    const DatasetSpec &d = *m_dataset;
    const bool recoverable = !d.key.isEmpty() && d.write != WriteMode::Scd2 && !d.keepsEveryRow();
    m_recoverAction->setEnabled(recoverable);
    m_recoverButton->setEnabled(recoverable);
    m_recoverButton->setToolTip(recoverable ? m_recoverAction->toolTip()
                                            : tr("Recovery re-runs by overwrite, one row per key: "
                                                 "it needs a key and is not for scd2 dimensions, "
                                                 "delete_insert or append"));
    const std::vector<PartitionInfo> &rows = m_model->snapshot();
    qint64 source = 0, target = 0, withDuplicates = 0, attention = 0, behind = 0;
    QStringList behindColumns;
    QMap<PartitionStatus, int> perStatus;
    for (const PartitionInfo &p : rows) {
        if (!p.schemaBehind.isEmpty()) {
            ++behind;
            for (const QString &c : p.schemaBehind)
                if (!behindColumns.contains(c))
                    behindColumns << c;
        }
        source += p.sourceRows;
        target += p.targetRows;
        withDuplicates += p.duplicateKeys > 0 ? 1 : 0;
        attention += PartitionsModel::needsAttention(p) ? 1 : 0;
        ++perStatus[p.status];
    }

    m_title->setText(d.name);
    QStringList facts{tr("target %1").arg(d.target), tr("mode %1").arg(enumName(d.write)),
                      d.partitioned() ? tr("partitioned by %1").arg(d.partitionColumn)
                                      : tr("unpartitioned")};
    if (d.hasWatermark())
        facts << tr("allowed lateness %1").arg(describeLateness(*d.allowedLatenessSeconds));
    if (!d.key.isEmpty())
        facts << tr("key %1").arg(d.key.join(QStringLiteral(", ")));
    facts << tr("source %1").arg(d.source.isEmpty() ? tr("(transform)") : d.source);
    if (!d.checks.empty())
        facts << tr("%1 checks").arg(d.checks.size());
    if (isLoading())
        facts << tr("loading\u2026");
    m_subtitle->setText(facts.join(QStringLiteral("  \u00b7  ")));
    m_summary = isLoading()
                    ? QString()
                    : (rows.size() == 1 ? tr("1 partition")
                                        : tr("%1 partitions").arg(number(qint64(rows.size())))) %
                          QStringLiteral(", ") % tr("%1 source rows").arg(number(source)) %
                          QStringLiteral(", ") % tr("%1 target rows").arg(number(target)) %
                          QStringLiteral(", ") %
                          tr("%1 with duplicate keys").arg(number(withDuplicates));

    const bool known = !isLoading() && !rows.empty();
    m_partitionsTile->setValue(known ? number(qint64(rows.size())) : QStringLiteral("\u2014"));
    m_sourceTile->setValue(known ? number(source) : QStringLiteral("\u2014"));
    m_targetTile->setValue(known ? number(target) : QStringLiteral("\u2014"),
                           known && target != source
                               ? tr("Target differs from source by %1").arg(number(target - source))
                               : QString());
    m_targetTile->setAlert(known && target != source);
    m_duplicatesTile->setValue(known ? number(withDuplicates) : QStringLiteral("\u2014"));
    m_duplicatesTile->setAlert(withDuplicates > 0);
    m_attentionTile->setValue(known ? number(attention) : QStringLiteral("\u2014"),
                              tr("Stale or failed partitions, partitions with duplicate keys or "
                                 "more target rows than source rows"));
    m_attentionTile->setAlert(attention > 0);

    QStringList chips;
    for (const PartitionStatus status : StatusStyle::statuses()) {
        const int n = perStatus.value(status);
        if (n == 0)
            continue;
        chips << QStringLiteral(
                     "<span style='color:%1; font-size:large'>\u25cf</span>&nbsp;%2&nbsp;<b>%3</b>")
                     .arg(StatusStyle::color(status).name(), enumName(status), QString::number(n));
    }
    // Partitions published before a schema change: NULL in its columns.
    if (behind > 0)
        chips << style::themed(tr("<span style='color:{warning}'>behind the schema (%1): "
                                  "<b>%2</b></span>"))
                     .arg(behindColumns.join(QStringLiteral(", ")).toHtmlEscaped(),
                          QString::number(behind));
    m_statusChips->setText(chips.join(QStringLiteral("&nbsp;&nbsp;&nbsp;")));
    updateCounts();
}

void PartitionsPage::updateCounts() {
    const int total = m_model->rowCount();
    const int shown = m_proxy->rowCount();
    m_shownCount->setText(shown == total ? tr("%1 shown").arg(total)
                                         : tr("%1 of %2 shown").arg(shown).arg(total));
}

} // namespace rw
