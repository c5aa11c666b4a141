#include "ui/batch/previewpage.h"

#include "core/batch/batchprivileges.h"
#include "core/sql/privileges.h"
#include "ui/batch/checksmodel.h"
#include "ui/batch/columnsmodel.h"
#include "ui/batch/diffchart.h"
#include "ui/batch/launchdialog.h"
#include "ui/batch/previewdiffmodel.h"
#include "ui/batch/runmanager.h"
#include "ui/batch/samplesmodel.h"
#include "ui/common/format.h"
#include "ui/common/stattile.h"
#include "ui/common/style.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabBar>
#include <QTableView>
#include <QVBoxLayout>

namespace rw {

namespace {

QTableView *makeTable(QAbstractItemModel *model, const QString &name, int sortRole,
                      QWidget *parent) {
    auto *view = new QTableView(parent);
    view->setObjectName(name);
    if (sortRole >= 0) {
        auto *proxy = new QSortFilterProxyModel(view);
        proxy->setSourceModel(model);
        proxy->setSortRole(sortRole);
        view->setModel(proxy);
        view->setSortingEnabled(true);
    } else {
        view->setModel(model);
    }
    measureFirstRowsOnly(view); // the samples: 40 ms per preview before
    style::setupTable(view);
    return view;
}

int score(const PartitionInfo &p) {
    if (p.status == PartitionStatus::Failed)
        return 5;
    if (p.status == PartitionStatus::Stale || p.status == PartitionStatus::SchemaBehind)
        return 4;
    if (p.duplicateKeys > 0)
        return 3;
    if (p.status != PartitionStatus::Unloaded && p.targetRows > p.sourceRows)
        return 2;
    if (p.status == PartitionStatus::Unloaded)
        return 1;
    return 0;
}

} // namespace

std::optional<QString>
PreviewPage::mostUrgentPartition(const std::vector<PartitionInfo> &partitions) {
    const PartitionInfo *best = nullptr;
    for (const PartitionInfo &p : partitions) {
        if (!best || score(p) > score(*best) ||
            (score(p) == score(*best) && partitionLess(best->partition, p.partition)))
            best = &p;
    }
    if (!best)
        return std::nullopt;
    return best->partition;
}

PreviewPage::PreviewPage(QWidget *parent)
    : Page(parent)
    , m_stack(new QStackedWidget(this))
    , m_empty(new QLabel(this))
    , m_title(new QLabel(this))
    , m_subtitle(new QLabel(this))
    , m_schemaChange(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_phase(new QLabel(this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_againButton(new QPushButton(tr("Preview again"), this))
    , m_runButton(new QPushButton(tr("Run this plan\u2026"), this))
    , m_staged(new StatTile(tr("staged rows"), this))
    , m_duplicates(new StatTile(tr("duplicates dropped"), this))
    , m_inserted(new StatTile(tr("inserted"), this))
    , m_updated(new StatTile(tr("updated"), this))
    , m_deleted(new StatTile(tr("deleted"), this))
    , m_unchanged(new StatTile(tr("unchanged"), this))
    , m_gates(new StatTile(tr("gates failed"), this))
    , m_diffModel(new PreviewDiffModel(this))
    , m_checksModel(new ChecksModel(this))
    , m_samplesModel(new SamplesModel(this))
    , m_columnsModel(new ColumnsModel(this)) {
    setObjectName(QStringLiteral("previewPage"));
    style::makeTitle(m_title);
    m_subtitle->setStyleSheet(style::textColour(style::Colour::Subtitle));
    m_subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_subtitle->setWordWrap(true);

    m_runButton->setObjectName(QStringLiteral("runPlanButton"));
    m_inserted->setObjectName(QStringLiteral("previewInsertedTile"));
    m_updated->setObjectName(QStringLiteral("previewUpdatedTile"));
    m_runButton->setToolTip(tr("Confirm and execute the plan this preview locked (Ctrl+R)"));
    m_runButton->setStyleSheet(
        QStringLiteral("QPushButton { font-weight: bold; padding: 4px 14px; }"));
    m_againButton->setToolTip(tr("Preview the same scope again (F5)"));
    m_cancel->setObjectName(QStringLiteral("cancelPreview"));
    auto *runAction = new QAction(tr("Run this plan"), this);
    runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    runAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(runAction);
    connect(runAction, &QAction::triggered, this, [this] { launch(); });
    connect(m_runButton, &QPushButton::clicked, this, [this] { launch(); });
    connect(m_againButton, &QPushButton::clicked, this, &PreviewPage::refresh);
    connect(m_cancel, &QPushButton::clicked, this, &PreviewPage::cancel);

    auto *header = new QHBoxLayout;
    auto *titles = new QVBoxLayout;
    titles->addWidget(m_title);
    titles->addWidget(m_subtitle);
    // The schema change the plan makes, before any row: in words and as a
    // small table (column, before, after). Hidden when there is none.
    m_schemaChange->setObjectName(QStringLiteral("previewSchemaChange"));
    m_schemaChange->setTextFormat(Qt::RichText);
    m_schemaChange->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_schemaChange->hide();
    titles->addWidget(m_schemaChange);
    header->addLayout(titles, 1);
    header->addWidget(m_againButton, 0, Qt::AlignTop);
    header->addWidget(m_runButton, 0, Qt::AlignTop);

    m_progress->setRange(0, 0);
    m_progress->setMaximumHeight(16);
    m_progress->setTextVisible(false);
    auto *progressRow = new QHBoxLayout;
    progressRow->addWidget(m_progress, 1);
    progressRow->addWidget(m_phase);
    progressRow->addWidget(m_cancel);

    auto *tiles = new QHBoxLayout;
    tiles->setSpacing(8);
    for (StatTile *tile :
         {m_staged, m_duplicates, m_inserted, m_updated, m_deleted, m_unchanged, m_gates})
        tiles->addWidget(tile);
    tiles->addStretch(1);

    m_diffView =
        makeTable(m_diffModel, QStringLiteral("previewDiffView"), PreviewDiffModel::SortRole, this);
    // In partition order, as the chart and the run report list them (a
    // header's first click sorted them last first).
    m_diffView->sortByColumn(PreviewDiffModel::PartitionColumn, Qt::AscendingOrder);
    m_checksView =
        makeTable(m_checksModel, QStringLiteral("previewChecksView"), ChecksModel::SortRole, this);
    m_samplesView = makeTable(m_samplesModel, QStringLiteral("previewSamplesView"), -1, this);
    m_samplesView->horizontalHeader()->setStretchLastSection(false);
    m_chart = new DiffChart(this);

    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(style::sectionLabel(tr("Diff per partition"), left));
    leftLayout->addWidget(m_diffView, 1);
    leftLayout->addWidget(style::sectionLabel(tr("Gates"), left));
    leftLayout->addWidget(m_checksView, 1);
    // Every column stretched shares the width; stretching the last one as
    // well pushed "Gates" past the edge.
    m_diffView->horizontalHeader()->setStretchLastSection(false);
    m_diffView->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_diffView->horizontalHeader()->setSectionResizeMode(PreviewDiffModel::PartitionColumn,
                                                         QHeaderView::ResizeToContents);
    m_diffView->horizontalHeader()->setMinimumSectionSize(48);
    m_chart->setMinimumWidth(320);
    auto *top = style::splitter(Qt::Horizontal, {{left, 3}, {m_chart, 2}}, this);
    top->setSizes({740, 340});

    m_sampleTabs = new QTabBar(this);
    m_sampleTabs->setObjectName(QStringLiteral("sampleTabs"));
    m_sampleTabs->setDrawBase(false);
    for (auto c : {SamplesModel::Category::Inserted, SamplesModel::Category::Updated,
                   SamplesModel::Category::Deleted, SamplesModel::Category::Unchanged})
        m_sampleTabs->addTab(SamplesModel::categoryName(c));
    m_samplesNote = new QLabel(this);
    m_samplesNote->setStyleSheet(style::textColour(style::Colour::Muted));
    m_samplesNote->setSizePolicy(QSizePolicy::Ignored,
                                 QSizePolicy::Preferred); // never squeezes the tabs
    m_sampleTabs->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_sampleTabs->setExpanding(false);
    connect(m_sampleTabs, &QTabBar::currentChanged, this, &PreviewPage::showSamples);
    auto *samples = new QWidget(this);
    auto *samplesLayout = new QVBoxLayout(samples);
    samplesLayout->setContentsMargins(0, 0, 0, 0);
    auto *samplesHeader = new QHBoxLayout;
    samplesHeader->addWidget(style::sectionLabel(tr("Sample rows"), samples));
    samplesHeader->addWidget(m_sampleTabs);
    samplesHeader->addWidget(m_samplesNote, 1);
    samplesLayout->addLayout(samplesHeader);
    samplesLayout->addWidget(m_samplesView, 1);

    // What each column would change, over the previewed partitions; choosing
    // one narrows the updated samples to the rows where it changed.
    m_columnsView = makeTable(m_columnsModel, QStringLiteral("previewColumnsView"),
                              ColumnsModel::SortRole, this);
    m_columnsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_columnsView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_columnsView->horizontalHeader()->setStretchLastSection(true);
    m_columnsView->sortByColumn(ColumnsModel::ChangedColumn,
                                Qt::DescendingOrder); // most changed first
    connect(
        m_columnsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex &current) {
            focusColumn(current.isValid()
                            ? current.siblingAtColumn(ColumnsModel::NameColumn).data().toString()
                            : QString());
            m_columnDetails->setText(current.isValid() ? current.data(Qt::ToolTipRole).toString()
                                                       : QString());
            m_columnDetails->setVisible(current.isValid());
        });
    // The chosen column's every figure (its tooltip's), under the table.
    m_columnDetails = new QLabel(this);
    m_columnDetails->setObjectName(QStringLiteral("previewColumnDetails"));
    m_columnDetails->setTextFormat(Qt::RichText);
    m_columnDetails->setWordWrap(true);
    m_columnDetails->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_columnDetails->setVisible(false);
    auto *columns = m_columnsPanel = new QWidget(this);
    auto *columnsLayout = new QVBoxLayout(columns);
    columnsLayout->setContentsMargins(0, 0, 0, 0);
    columnsLayout->addWidget(style::sectionLabel(tr("Columns"), columns));
    columnsLayout->addWidget(m_columnsView, 1);
    columnsLayout->addWidget(m_columnDetails);

    auto *bottom = style::splitter(Qt::Horizontal, {{columns, 1}, {samples, 1}}, this);
    bottom->setSizes({560, 560});
    auto *split = style::splitter(Qt::Vertical, {{top, 1}, {bottom, 1}}, this);

    auto *content = new QWidget(this);
    auto *contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->setSpacing(8);
    contentLayout->addLayout(tiles);
    contentLayout->addWidget(split, 1);

    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setObjectName(QStringLiteral("previewEmpty"));
    m_stack->addWidget(m_empty);
    m_stack->addWidget(content);

    auto *layout = style::pageLayout(this);
    layout->addLayout(header);
    layout->addLayout(progressRow);
    layout->addWidget(m_stack, 1);
    clear();
}

QString PreviewPage::title() const {
    return m_dataset ? tr("Preview of %1").arg(m_dataset->name) : tr("Preview");
}

QString PreviewPage::statusText() const {
    if (!m_result)
        return title();
    const PartitionResult t = m_result->totals();
    return tr("Preview of %1: %2 inserted, %3 updated, %4 deleted, %5 unchanged (plan %6)")
        .arg(m_result->dataset, fmt::number(t.inserted), fmt::number(t.updated),
             fmt::number(t.deleted), fmt::number(t.unchanged), m_result->planId);
}

QString PreviewPage::messageText() const {
    return m_stack->currentWidget() == m_empty ? m_empty->text() : m_subtitle->text();
}

void PreviewPage::showSchemaChange(const RunResult &r) {
    m_schemaChange->setVisible(!r.schemaChange.empty());
    if (r.schemaChange.empty())
        return;
    const QString cell = QStringLiteral("<td style='padding: 1px 14px 1px 0'>%1</td>");
    QString rows = QStringLiteral("<tr>") + cell.arg(tr("<b>column</b>")) +
                   cell.arg(tr("<b>before</b>")) + cell.arg(tr("<b>after</b>")) +
                   QStringLiteral("</tr>");
    for (const SchemaColumn &a : r.schemaChange.added)
        rows += QStringLiteral("<tr>") + cell.arg(a.column.toHtmlEscaped()) +
                cell.arg(tr("(none)")) +
                cell.arg(a.type.isEmpty() ? tr("added, no declared type")
                                          : tr("added, %1").arg(a.type.toHtmlEscaped())) +
                QStringLiteral("</tr>");
    for (const SchemaColumn &c : r.schemaChange.dropped)
        rows += QStringLiteral("<tr>") + cell.arg(c.column.toHtmlEscaped()) +
                cell.arg(c.type.isEmpty() ? tr("(no declared type)") : c.type.toHtmlEscaped()) +
                cell.arg(tr("dropped, its values kept in the before-images")) +
                QStringLiteral("</tr>");
    for (const WidenedColumn &w : r.schemaChange.widened)
        rows += QStringLiteral("<tr>") + cell.arg(w.column.toHtmlEscaped()) +
                cell.arg(w.from.toHtmlEscaped()) +
                cell.arg(tr("widened, %1").arg(w.to.toHtmlEscaped())) + QStringLiteral("</tr>");
    m_schemaChange->setText(
        style::themed(tr("<b style='color:{warning}'>Schema change: %1</b> (on_schema_change "
                         "%2): the run alters the table in its first publish, with its rows"))
            .arg(r.schemaChange.describe().toHtmlEscaped(), enumName(r.onSchemaChange)) +
        QStringLiteral("<table cellspacing='0'>") + rows + QStringLiteral("</table>"));
}

void PreviewPage::showEmpty(const QString &message) {
    m_empty->setText(message);
    m_stack->setCurrentWidget(m_empty);
}

void PreviewPage::clear() {
    cancel();
    cancelLoad();
    m_db.reset();
    m_dataset.reset();
    m_result.reset();
    m_partitions.clear();
    m_diffModel->resetData({}, {});
    m_checksModel->resetData({});
    m_samplesModel->setFocusColumn(QString());
    m_samplesModel->resetData({}, SamplesModel::Category::Inserted, {});
    m_columnsModel->resetData({});
    m_chart->clear();
    m_title->setText(tr("Preview"));
    m_subtitle->setText(tr("Nothing previewed yet."));
    m_schemaChange->hide();
    for (StatTile *tile :
         {m_staged, m_duplicates, m_inserted, m_updated, m_deleted, m_unchanged, m_gates}) {
        tile->setValue(QStringLiteral("\u2014"));
        tile->setAlert(false);
    }
    m_runButton->setEnabled(false);
    m_againButton->setEnabled(false);
    setRunning(false);
    showEmpty(style::emptyState(tr("No preview yet"),
                                tr("Select partitions on a dataset's page and press "
                                   "<b>Preview re-run</b> (Ctrl+P). A preview computes what a "
                                   "re-run would change and writes nothing.")));
}

void PreviewPage::setRunning(bool running, const QString &what) {
    m_progress->setVisible(running);
    m_phase->setVisible(running);
    m_cancel->setVisible(running);
    m_cancel->setEnabled(running);
    if (running)
        m_phase->setText(what);
    m_runButton->setEnabled(!running && m_result && m_result->status == RunStatus::Previewed &&
                            m_runRefusal.isEmpty());
    m_runButton->setToolTip(m_runRefusal.isEmpty()
                                ? tr("Confirm and execute the plan this preview locked (Ctrl+R)")
                                : m_runRefusal);
    m_againButton->setEnabled(!running && m_dataset.has_value());
}

void PreviewPage::preview(const Database &db, const DatasetSpec &dataset,
                          const QStringList &partitions, bool launchAfter) {
    start(db, dataset, partitions, false, launchAfter);
}

void PreviewPage::previewMostUrgent(const Database &db, const DatasetSpec &dataset) {
    start(db, dataset, {}, true, false);
}

void PreviewPage::refresh() {
    if (m_db && m_dataset)
        start(*m_db, *m_dataset, m_partitions, false, false);
}

void PreviewPage::cancel() {
    if (m_previewJobs.isRunning()) {
        m_previewJobs.requestCancel();
        m_cancelRequested = true;
        m_cancel->setEnabled(false);
        m_phase->setText(tr("Cancelling\u2026"));
    }
}

void PreviewPage::start(const Database &db, const DatasetSpec &dataset,
                        const QStringList &partitions, bool autoPick, bool launchAfter) {
    m_db = db;
    m_dataset = dataset;
    // A snapshot dated by its run has one partition, the run's time: it
    // previews the source as it is now, whichever partitions were chosen.
    if (dataset.datedByRun()) {
        m_partitions.clear();
        autoPick = false;
    } else {
        m_partitions = partitions;
    }
    m_result.reset();
    m_runRefusal.clear();
    m_cancelRequested = false;
    // A few partitions by name; thousands as a count and their first and last
    // (a label of 10,000 names took the GUI thread seconds to lay out).
    const QString scope =
        dataset.datedByRun()   ? tr("the source now, dated by this run")
        : autoPick             ? tr("the partition that most needs attention")
        : partitions.isEmpty() ? tr("every partition")
        : partitions.size() <= 4
            ? partitions.join(QStringLiteral(", "))
            : tr("%1 partitions, %2 … %3")
                  .arg(fmt::number(partitions.size()), partitions.first(), partitions.last());
    m_title->setText(tr("Preview: %1").arg(dataset.name));
    m_subtitle->setText(tr("Previewing %1\u2026 Nothing is written.").arg(scope));
    m_schemaChange->hide();
    showEmpty(style::emptyState(tr("Previewing %1").arg(scope.toHtmlEscaped()),
                                tr("Staging, deduplicating, diffing against %1 and running the "
                                   "gates.<br>Nothing is written to the target.")
                                    .arg(dataset.target.toHtmlEscaped())));
    const quint64 load = beginLoad(tr("Previewing %1\u2026").arg(dataset.name));
    setRunning(true, tr("starting"));
    // Starting supersedes the preview in flight: its flag is set, its answer dropped.
    m_previewJobs.start(
        [db, dataset, partitions = m_partitions, autoPick,
         this](const JobToken &job) -> Result<Previewed> {
            BatchOptions options;
            options.samples = kSamples;
            options.cancel = job.cancelFlag();
            options.scope.partitions = partitions;
            if (autoPick && dataset.partitioned()) {
                auto list = listPartitions(db, dataset);
                if (!list)
                    return fail(list.error());
                if (const auto p = mostUrgentPartition(*list))
                    options.scope.partitions = {*p};
            }
            // Worker thread: phases are posted back; `this` is only touched
            // there, while this preview is current.
            options.progress = [this, job](const Progress &p) {
                job.post([this, phase = p.phase] { m_phase->setText(phase); });
            };
            if (job.isCancelled())
                return internalError(QStringLiteral("cancelled"));
            auto previewed = rw::preview(db, dataset, options);
            if (!previewed)
                return fail(previewed.error());
            // Whether this role may run it: else Run is disabled, saying why.
            const QString refused = privileges::refusalOf(
                requireRunPrivileges(db, dataset, QStringLiteral("run of ") % dataset.name,
                                     previewed->schemaChange.describe()));
            return Previewed{std::move(*previewed), refused};
        },
        [this, load, launchAfter](Result<Previewed> result) {
            if (!finishLoad(load))
                return;
            setRunning(false);
            if (m_cancelRequested) {
                m_subtitle->setText(tr("Preview cancelled. Nothing was written."));
                showEmpty(style::emptyState(tr("Preview cancelled"),
                                            tr("Nothing was written. Press <b>Preview "
                                               "again</b> (F5) to start over.")));
                Q_EMIT pageLoaded();
                return;
            }
            if (!result) {
                m_subtitle->setText(tr("The preview failed."));
                showEmpty(style::emptyState(tr("The preview failed"),
                                            result.error().message.toHtmlEscaped()));
                Q_EMIT loadFailed(
                    tr("Preview of %1 failed: %2").arg(datasetName(), result.error().message));
                return;
            }
            m_runRefusal = result->runRefusal;
            showResult(std::move(result->result));
            Q_EMIT pageLoaded();
            if (launchAfter)
                launch();
        });
}

void PreviewPage::showResult(RunResult result) {
    m_result = std::move(result);
    const RunResult &r = *m_result;
    QStringList labels;
    for (const PartitionResult &p : r.partitions)
        labels << partitionLabel(p.partition);
    m_partitions.clear();
    for (const PartitionResult &p : r.partitions)
        if (p.partition)
            m_partitions << *p.partition;
    const QString scope = labels.size() <= 4 ? labels.join(QStringLiteral(", "))
                                             : tr("%1 partitions").arg(labels.size());
    m_title->setText(tr("Preview: %1 \u00b7 %2").arg(r.dataset, scope));
    m_subtitle->setText(tr("Plan %1  \u00b7  mode %2  \u00b7  target %3  \u00b7  previewed %4  "
                           "\u00b7  <b>nothing has been written</b>")
                            .arg(r.planId, enumName(r.mode),
                                 m_dataset ? m_dataset->target : QString(),
                                 fmt::timestamp(r.finishedAt)));
    showSchemaChange(r);
    m_subtitle->setTextFormat(Qt::RichText);

    const PartitionResult t = r.totals();
    m_staged->setValue(fmt::number(t.stagedRows));
    // A delete_insert keeps every staged row (none is dropped): its tile
    // says how many keys it replaces instead.
    if (r.mode == WriteMode::DeleteInsert) {
        m_duplicates->setCaption(tr("keys touched"));
        m_duplicates->setValue(fmt::number(t.keysTouched.value_or(0)),
                               tr("Each key's rows in the partition are deleted, then every "
                                  "staged row is inserted"));
        m_duplicates->setAlert(false);
    } else {
        m_duplicates->setCaption(tr("duplicates dropped"));
        m_duplicates->setValue(fmt::number(t.duplicatesDropped));
        m_duplicates->setAlert(t.duplicatesDropped > 0);
    }
    if (r.mode == WriteMode::Scd2) {
        // A snapshot's figures are versions: opened (the inserted rows) and
        // closed, those of keys gone from the source (hard_deletes:
        // invalidate) named, as they are what an operator checks first.
        const qint64 gone = t.versionsInvalidated.value_or(0);
        m_inserted->setCaption(tr("versions opened"));
        m_inserted->setValue(fmt::number(t.versionsOpened.value_or(t.inserted)));
        m_updated->setCaption(gone > 0 ? tr("versions closed, %1 gone").arg(fmt::number(gone))
                                       : tr("versions closed"));
        m_updated->setValue(
            fmt::number(t.versionsClosed.value_or(t.updated)),
            gone > 0 ? tr("%1 closed with no successor: their keys are gone from the source "
                          "(hard_deletes: invalidate)")
                           .arg(fmt::number(gone))
                     : tr("Open versions whose valid_to the run sets"));
    } else {
        m_inserted->setCaption(tr("inserted"));
        m_inserted->setValue(fmt::number(t.inserted));
        m_updated->setCaption(tr("updated"));
        m_updated->setValue(fmt::number(t.updated));
    }
    m_deleted->setValue(fmt::number(t.deleted));
    m_deleted->setAlert(t.deleted > 0);
    m_unchanged->setValue(fmt::number(t.unchanged));
    m_diffModel->resetData(r.partitions, r.checks);
    m_checksModel->resetData(r.checks);
    const int failed = m_checksModel->failedCount();
    m_gates->setValue(QStringLiteral("%1 / %2").arg(failed).arg(r.checks.size()),
                      failed ? tr("Partitions whose gates fail are not published")
                             : tr("Every gate passes"));
    m_gates->setAlert(failed > 0);
    m_chart->setPartitions(r.partitions);
    m_samplesModel->setFocusColumn(QString()); // a new preview: every updated row
    m_columnsModel->resetData(t.columns);
    m_columnDetails->setVisible(false);
    // Only a merge or an overwrite into a target that exists has one.
    m_columnsPanel->setVisible(!t.columns.empty());
    m_columnsView->resizeColumnsToContents();

    qint64 counts[4] = {t.inserted, t.updated, t.deleted, t.unchanged};
    for (int i = 0; i < 4; ++i)
        m_sampleTabs->setTabText(
            i, QStringLiteral("%1 (%2)").arg(SamplesModel::categoryName(SamplesModel::Category(i)),
                                             fmt::number(counts[i])));
    // Longer counts make longer tabs: the layout must ask again, or the bar
    // keeps its old width and scrolls ("d (0)" with arrows).
    m_sampleTabs->updateGeometry();
    // Open on the category an operator most wants to see.
    int tab = t.updated > 0 ? 1 : t.deleted > 0 ? 2 : t.inserted > 0 ? 0 : 3;
    if (m_sampleTabs->currentIndex() == tab)
        showSamples(tab);
    else
        m_sampleTabs->setCurrentIndex(tab);

    m_checksView->resizeColumnsToContents();
    m_stack->setCurrentIndex(1);
    setRunning(false);
}

void PreviewPage::showSamples(int tab) {
    if (tab < 0)
        return;
    const auto category = SamplesModel::Category(tab);
    m_samplesModel->resetData(m_result ? m_result->partitions : std::vector<PartitionResult>{},
                              category, m_dataset ? m_dataset->key : QStringList());
    m_samplesView->resizeColumnsToContents();
    for (int c = 0; c < m_samplesModel->columnCount(); ++c)
        m_samplesView->setColumnWidth(c, std::min(m_samplesView->columnWidth(c) + 12, 260));
    const int rows = m_samplesModel->rowCount();
    const QString shown =
        rows < m_samplesModel->availableRows()
            ? tr("the first %1 of %2 example rows")
                  .arg(fmt::number(rows), fmt::number(m_samplesModel->availableRows()))
            : tr("%1 example rows").arg(rows);
    m_samplesNote->setText(
        rows == 0 ? tr("no %1 rows").arg(SamplesModel::categoryName(category).toLower())
        : category == SamplesModel::Category::Updated
            ? (m_samplesModel->focusColumn().isEmpty()
                   ? tr("%1; before \u2190 and after \u2192 side by side, changed cells "
                        "highlighted")
                         .arg(shown)
                   : tr("%1 where %2 changed, its cells highlighted")
                         .arg(shown, m_samplesModel->focusColumn()))
            : tr("%1 (up to %2 per partition)").arg(shown).arg(kSamples));
}

void PreviewPage::focusColumn(const QString &column) {
    if (column == m_samplesModel->focusColumn())
        return;
    m_samplesModel->setFocusColumn(column);
    const int updated = int(SamplesModel::Category::Updated);
    if (!column.isEmpty() && m_sampleTabs->currentIndex() != updated)
        m_sampleTabs->setCurrentIndex(updated); // shows them
    else
        showSamples(m_sampleTabs->currentIndex());
}

LaunchDialog *PreviewPage::launch() {
    if (!m_result || !m_db || !m_dataset || !m_runs || isRunning() ||
        m_result->status != RunStatus::Previewed || !m_runRefusal.isEmpty())
        return nullptr;
    auto *dialog = new LaunchDialog(*m_result, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    const Database db = *m_db;
    const DatasetSpec dataset = *m_dataset;
    const QString planId = m_result->planId;
    QPointer<LaunchDialog> guard(dialog);
    connect(dialog, &LaunchDialog::confirmed, this, [this, guard, db, dataset, planId] {
        const int id = m_runs->startRun(db, dataset, planId);
        followLaunch(m_runs, id, this, guard, [this, id] { Q_EMIT runLaunched(id); });
    });
    connect(dialog, &LaunchDialog::previewAgainRequested, this, &PreviewPage::refresh);
    dialog->open();
    return dialog;
}

} // namespace rw
