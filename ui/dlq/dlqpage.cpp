#include "ui/dlq/dlqpage.h"

#include "core/sql/privileges.h"
#include "ui/common/format.h"
#include "ui/common/refusal.h"
#include "ui/common/stattile.h"
#include "ui/common/style.h"
#include "ui/dlq/dlqactionbar.h"
#include "ui/dlq/dlqgroupsmodel.h"
#include "ui/dlq/dlqhistorymodel.h"
#include "ui/dlq/dlqpayloadpanel.h"
#include "ui/dlq/dlqrecordsmodel.h"
#include "ui/dlq/kafkadlqdialogs.h"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFontDatabase>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedLayout>
#include <QStringBuilder>
#include <QStringDecoder>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace rw {

namespace {

qint64 countOf(const std::vector<std::pair<DlqStatus, qint64>> &byStatus, DlqStatus status) {
    for (const auto &[s, n] : byStatus)
        if (s == status)
            return n;
    return 0;
}

QTableView *makeTable(QWidget *parent, const QString &name) {
    auto *view = new QTableView(parent);
    view->setObjectName(name);
    style::setupTable(view, 8, true);
    return view;
}

} // namespace

DlqPage::DlqPage(QWidget *parent)
    : Page(parent)
    , m_totalTile(new StatTile(tr("records"), this))
    , m_newTile(new StatTile(tr("new"), this))
    , m_failedTile(new StatTile(tr("failed"), this))
    , m_fixedTile(new StatTile(tr("fixed"), this))
    , m_replayedTile(new StatTile(tr("replayed"), this))
    , m_discardedTile(new StatTile(tr("discarded"), this))
    , m_groupsView(new QListView(this))
    , m_groups(new DlqGroupsModel(this))
    , m_status(new QComboBox(this))
    , m_count(new QLabel(this))
    , m_recordsView(makeTable(this, QStringLiteral("dlqRecords")))
    , m_records(new DlqRecordsModel(this))
    , m_empty(new QLabel(this))
    , m_recordsArea(new QWidget(this))
    , m_actions(new DlqActionBar(this))
    , m_tabs(new QTabWidget(this))
    , m_payload(new DlqPayloadPanel(this))
    , m_historyView(makeTable(this, QStringLiteral("dlqHistory")))
    , m_history(new DlqHistoryModel(this))
    , m_kafka(new QPlainTextEdit(this))
    , m_import(new QPushButton(tr("Import from topic\u2026"), this)) {
    setObjectName(QStringLiteral("dlqPage"));
    auto *title = new QLabel(tr("Dead-letter queue"), this);
    style::makeTitle(title);
    auto *subtitle =
        new QLabel(tr("Records quarantined by stream replays and batch checks: fix, validate, "
                      "replay or discard them. "
                      "Nothing is ever deleted; every change is in the record's history."),
                   this);
    subtitle->setStyleSheet(style::textColour(style::Colour::Subtitle));
    subtitle->setWordWrap(true);
    auto *heading = new QVBoxLayout;
    heading->setSpacing(2);
    heading->addWidget(title);
    heading->addWidget(subtitle);
    auto *header = new QHBoxLayout;
    header->addLayout(heading, 1);
    for (StatTile *t :
         {m_totalTile, m_newTile, m_failedTile, m_fixedTile, m_replayedTile, m_discardedTile})
        header->addWidget(t);
    m_import->setObjectName(QStringLiteral("dlqImport"));
    m_import->setToolTip(tr("Read a Kafka stream's dead-letter topic (kafka.dlq_topic, e.g. a "
                            "Kafka Connect DLQ) into the DLQ"));
    header->addWidget(m_import, 0, Qt::AlignBottom);
    connect(m_import, &QPushButton::clicked, this, [this] { openImportDialog(); });

    // Left: error signatures.
    m_groupsView->setObjectName(QStringLiteral("dlqSignatures"));
    m_groupsView->setModel(m_groups);
    m_groupsView->setWordWrap(true);
    m_groupsView->setSpacing(2);
    m_groupsView->setAlternatingRowColors(true);
    m_groupsView->setStyleSheet(QStringLiteral("QListView { border: 1px solid %1; }")
                                    .arg(style::colour(style::Colour::Border)));
    connect(m_groupsView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    setSignatureFilter(current.data(DlqGroupsModel::SignatureRole).toString());
            });
    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    auto *sigCaption = new QLabel(tr("<b>Error signatures</b>"), left);
    sigCaption->setToolTip(tr("Errors with their numbers, ids and quoted values replaced by "
                              "placeholders, so records failing "
                              "the same way group together"));
    leftLayout->addWidget(sigCaption);
    leftLayout->addWidget(m_groupsView, 1);

    // Records.
    m_status->setObjectName(QStringLiteral("dlqStatusFilter"));
    m_status->addItem(tr("All statuses"), QString());
    for (const DlqStatus s : {DlqStatus::New, DlqStatus::Failed, DlqStatus::Fixed,
                              DlqStatus::Replayed, DlqStatus::Discarded})
        m_status->addItem(enumName(s),
                          enumName(s)); // the filter is the status's name, as DlqSelection takes it
    connect(m_status, &QComboBox::currentIndexChanged, this,
            [this] { setStatusFilter(m_status->currentData().toString()); });
    m_count->setObjectName(QStringLiteral("dlqCount"));
    m_count->setStyleSheet(style::textColour(style::Colour::Subtitle));
    auto *filters = new QHBoxLayout;
    filters->addWidget(new QLabel(tr("Status:"), this));
    filters->addWidget(m_status);
    filters->addStretch(1);
    filters->addWidget(m_count);

    m_recordsView->setModel(m_records);
    m_recordsView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_recordsView->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    const std::pair<int, int> widths[] = {
        {DlqRecordsModel::IdColumn, 52},       {DlqRecordsModel::StatusColumn, 78},
        {DlqRecordsModel::CheckColumn, 170},   {DlqRecordsModel::SourceColumn, 175},
        {DlqRecordsModel::EventColumn, 115},   {DlqRecordsModel::ErrorColumn, 320},
        {DlqRecordsModel::AttemptsColumn, 64}, {DlqRecordsModel::FirstSeenColumn, 140}};
    for (const auto &[column, width] : widths)
        m_recordsView->setColumnWidth(column, width);
    // The dry-run column appears once there is a verdict to show.
    m_recordsView->setColumnHidden(DlqRecordsModel::CheckColumn, true);
    connect(m_records, &QAbstractItemModel::dataChanged, this, [this] {
        m_recordsView->setColumnHidden(DlqRecordsModel::CheckColumn, !m_records->hasVerdicts());
    });
    connect(m_records, &QAbstractItemModel::modelReset, this, [this] {
        m_recordsView->setColumnHidden(DlqRecordsModel::CheckColumn, !m_records->hasVerdicts());
    });
    connect(m_records, &DlqRecordsModel::pageFetched, this, [this] {
        updateCount();
        onFirstPage();
    });
    connect(m_records, &DlqRecordsModel::fetchFailed, this, [this](const QString &message) {
        if (m_waitFirstPage) {
            m_waitFirstPage = false;
            if (finishLoad(m_loadId))
                Q_EMIT loadFailed(tr("Could not load the DLQ records: %1").arg(message));
            return;
        }
        showResult(false, tr("Could not load more records: %1").arg(message));
    });
    connect(m_recordsView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &DlqPage::updateActions);
    connect(m_recordsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    loadDetail(m_records->record(current.row()).id);
            });
    m_empty->setObjectName(QStringLiteral("dlqEmpty"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    auto *stack = new QStackedLayout(m_recordsArea);
    stack->setContentsMargins(0, 0, 0, 0);
    stack->addWidget(m_recordsView);
    stack->addWidget(m_empty);

    auto *recordsBox = new QWidget(this);
    auto *rl = new QVBoxLayout(recordsBox);
    rl->setContentsMargins(0, 0, 0, 0);
    rl->setSpacing(6);
    rl->addLayout(filters);
    rl->addWidget(m_recordsArea, 1);
    rl->addWidget(m_actions);
    connect(m_actions->allMatching(), &QCheckBox::toggled, this, &DlqPage::updateActions);
    connect(m_actions->validateButton(), &QPushButton::clicked, this, &DlqPage::validateSelection);
    connect(m_actions->replayButton(), &QPushButton::clicked, this, &DlqPage::replaySelection);
    connect(m_actions->replayToTopicButton(), &QPushButton::clicked, this,
            [this] { openRedriveDialog(); });
    connect(m_actions->reason(), &QLineEdit::textChanged, this, &DlqPage::updateActions);
    connect(m_actions->discardButton(), &QPushButton::clicked, this, &DlqPage::discardSelection);
    connect(m_actions->cancelButton(), &QPushButton::clicked, this, &DlqPage::cancelReplay);
    connect(m_actions->applySetButton(), &QPushButton::clicked, this, &DlqPage::applyPendingSet);
    connect(m_actions->dropSetButton(), &QPushButton::clicked, this, [this] {
        m_pendingSet.reset();
        m_actions->pendingBar()->hide();
    });

    // Bottom: the JSON panel and the history.
    m_historyView->setModel(m_history);
    m_historyView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_historyView->setColumnWidth(DlqHistoryModel::AtColumn, 150);
    m_historyView->setColumnWidth(DlqHistoryModel::UserColumn, 90);
    m_historyView->setColumnWidth(DlqHistoryModel::ActionColumn, 100);
    m_historyView->setColumnWidth(DlqHistoryModel::TransitionColumn, 150);
    m_tabs->setObjectName(QStringLiteral("dlqTabs"));
    m_tabs->addTab(m_payload, tr("Payload"));
    m_tabs->addTab(m_historyView, tr("History"));
    m_kafka->setObjectName(QStringLiteral("dlqKafka"));
    m_kafka->setReadOnly(true);
    m_kafka->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_tabs->addTab(m_kafka, tr("Kafka"));
    m_tabs->setTabEnabled(2, false);
    m_tabs->setDocumentMode(true);
    connect(m_payload, &DlqPayloadPanel::saveRequested, this, &DlqPage::saveFix);
    connect(m_payload, &DlqPayloadPanel::setPathRequested, this, &DlqPage::previewSetPath);

    auto *vertical = style::splitter(Qt::Vertical, {{recordsBox, 1}, {m_tabs, 1}}, this);

    auto *horizontal = style::splitter(Qt::Horizontal, {{left, 0}, {vertical, 1}}, this);
    horizontal->setSizes({250, 850});

    auto *layout = style::pageLayout(this);
    layout->addLayout(header);
    layout->addWidget(horizontal, 1);
    clear();
}

void DlqPage::setWorkspace(const Database &db, const Spec &spec) {
    clear();
    m_db = db;
    m_spec = spec;
    m_empty->setText(QString());
    updateActions();
}

void DlqPage::clear() {
    cancelLoad();
    m_summaryJobs.cancel();
    m_detailJobs.cancel();
    m_db.reset();
    m_spec.reset();
    m_records->clear();
    m_groups->resetData({}, 0);
    m_history->resetData({});
    m_payload->clearRecord();
    m_detailId = 0;
    m_filteredTotal = -1;
    m_lastReplay.reset();
    m_pendingSet.reset();
    m_actions->pendingBar()->hide();
    m_actions->result()->clear();
    m_waitFirstPage = m_waitSummary = m_waitDetail = false;
    for (StatTile *t :
         {m_totalTile, m_newTile, m_failedTile, m_fixedTile, m_replayedTile, m_discardedTile})
        t->setValue(QStringLiteral("\u2014"));
    m_empty->setText(tr("<h3>No workspace open</h3>"));
    updateCount();
    updateActions();
}

bool DlqPage::showsEmptyState() const {
    return qobject_cast<QStackedLayout *>(m_recordsArea->layout())->currentWidget() == m_empty;
}

QString DlqPage::statusText() const {
    return tr("Dead-letter queue: %1").arg(m_count->text());
}

void DlqPage::refresh() {
    if (!m_db)
        return;
    m_loadId = beginLoad(tr("Loading the dead-letter queue\u2026"));
    m_waitFirstPage = m_waitSummary = true;
    m_waitDetail = false;
    m_records->clearVerdicts();
    applyFilter(false);
    loadSummary();
}

void DlqPage::setStatusFilter(const QString &status) {
    if (const int i = m_status->findData(status); i >= 0 && i != m_status->currentIndex()) {
        m_status->setCurrentIndex(i); // comes back here through the combo
        return;
    }
    if (status == m_statusFilter)
        return;
    m_statusFilter = status;
    applyFilter(true);
}

void DlqPage::setSignatureFilter(const QString &signature) {
    if (signature == m_signatureFilter)
        return;
    m_signatureFilter = signature;
    if (const int row = m_groups->rowOf(signature); row >= 0) {
        const QSignalBlocker block(m_groupsView->selectionModel());
        m_groupsView->setCurrentIndex(m_groups->index(row, 0));
    }
    applyFilter(false);
}

void DlqPage::applyFilter(bool reloadGroups) {
    if (!m_db)
        return;
    DlqSelection filter;
    if (!m_statusFilter.isEmpty())
        filter.statuses = {m_statusFilter};
    filter.signature = m_signatureFilter;
    m_pendingSet.reset();
    m_actions->pendingBar()->hide();
    m_records->setFilter(*m_db, filter);
    m_filteredTotal = -1;
    if (const int row = m_groups->rowOf(m_signatureFilter);
        row >= 0 && !m_groups->snapshot().empty())
        m_filteredTotal = m_groups->index(row, 0).data(DlqGroupsModel::CountRole).toLongLong();
    updateCount();
    updateActions();
    if (reloadGroups)
        loadSummary();
}

void DlqPage::loadSummary() {
    DlqSelection byStatus;
    if (!m_statusFilter.isEmpty())
        byStatus.statuses = {m_statusFilter};
    m_summaryJobs.start( // a newer summary drops this one
        [db = *m_db, byStatus]() -> Result<Summary> {
            auto all = countDlq(db, {});
            if (!all)
                return fail(all.error());
            auto filtered = listDlq(db, byStatus, 0);
            if (!filtered)
                return fail(filtered.error());
            return Summary{
                std::move(*all), std::move(*filtered),
                privileges::refusalOf(requireDlqWritePrivileges(db, tr("A change to DLQ records"))),
                privileges::refusalOf(requireDlqImportPrivileges(db, tr("A DLQ import")))};
        },
        [this](Result<Summary> summary) {
            if (!m_db)
                return;
            if (!summary) {
                m_waitSummary = false;
                if (finishLoad(m_loadId))
                    Q_EMIT loadFailed(
                        tr("Could not load the DLQ summary: %1").arg(summary.error().message));
                return;
            }
            m_writeRefused = summary->writeRefused;
            m_importRefused = summary->importRefused;
            updateActions();
            const auto &by = summary->all.byStatus;
            m_totalTile->setValue(fmt::number(summary->all.total));
            m_newTile->setValue(fmt::number(countOf(by, DlqStatus::New)));
            m_failedTile->setValue(fmt::number(countOf(by, DlqStatus::Failed)));
            m_failedTile->setAlert(countOf(by, DlqStatus::Failed) > 0);
            m_fixedTile->setValue(fmt::number(countOf(by, DlqStatus::Fixed)));
            m_replayedTile->setValue(fmt::number(countOf(by, DlqStatus::Replayed)));
            m_discardedTile->setValue(fmt::number(countOf(by, DlqStatus::Discarded)));
            {
                const QSignalBlocker block(m_groupsView->selectionModel());
                m_groups->resetData(std::move(summary->filtered.groups), summary->filtered.total);
                const int row = m_groups->rowOf(m_signatureFilter);
                m_groupsView->setCurrentIndex(m_groups->index(std::max(0, row), 0));
                m_filteredTotal =
                    row >= 0 ? m_groups->index(row, 0).data(DlqGroupsModel::CountRole).toLongLong()
                             : 0;
            }
            m_empty->setText(
                summary->all.total == 0
                    ? style::emptyState(tr("The dead-letter queue is empty"),
                                        tr("Events a stream replay cannot "
                                           "load (not JSON, a required field missing) and rows a "
                                           "batch check quarantines land here.<br>"
                                           "For the demo: <code>rewindctl replay --stream orders "
                                           "--group orders-loader --execute</code>."))
                    : style::emptyState(tr("No records match"),
                                        tr("Choose another signature or status.")));
            updateCount();
            m_waitSummary = false;
            maybeLoaded();
        });
}

void DlqPage::onFirstPage() {
    if (!m_waitFirstPage || m_records->pagesFetched() == 0)
        return;
    m_waitFirstPage = false;
    if (!m_recordsView->currentIndex().isValid() && m_records->rowCount() > 0) {
        m_waitDetail = true;
        m_recordsView->selectRow(0); // shows the first record's payloads
    } else if (m_records->rowCount() == 0) {
        m_payload->clearRecord();
        m_detailId = 0;
        m_history->resetData({});
    }
    maybeLoaded();
}

void DlqPage::maybeLoaded() {
    const bool empty = m_records->rowCount() == 0 && !m_records->isFetching();
    qobject_cast<QStackedLayout *>(m_recordsArea->layout())
        ->setCurrentWidget(empty && !m_waitSummary ? static_cast<QWidget *>(m_empty)
                                                   : m_recordsView);
    if (m_waitFirstPage || m_waitSummary || m_waitDetail || !isLoading())
        return;
    if (finishLoad(m_loadId))
        Q_EMIT pageLoaded();
}

void DlqPage::loadDetail(qint64 id) {
    if (m_payload->isModified() && m_payload->recordId() != id)
        showResult(false,
                   tr("Your unsaved edit of record #%1 was dropped.").arg(m_payload->recordId()));
    m_detailId = id;
    m_detailJobs.start(
        [db = *m_db, id] { return showDlq(db, id); },
        [this, id](Result<DlqDetail> detail) {
            if (!detail) {
                m_payload->clearRecord();
                m_detailId = 0;
                m_history->resetData({});
                showResult(false,
                           tr("Could not show record #%1: %2").arg(id).arg(detail.error().message));
            } else {
                m_payload->showRecord(*detail);
                m_tabs->setTabText(1, tr("History (%1)").arg(detail->history.size()));
                showKafka(*detail);
                m_history->resetData(std::move(detail->history));
                m_historyView->scrollToBottom();
            }
            Q_EMIT recordShown(id);
            if (m_waitDetail) {
                m_waitDetail = false;
                maybeLoaded();
            }
        });
}

bool DlqPage::selectRecord(qint64 id) {
    const int row = m_records->rowOf(id);
    if (row < 0)
        return false;
    m_recordsView->clearSelection();
    m_recordsView->selectRow(row);
    m_recordsView->scrollTo(m_records->index(row, 0));
    return true;
}

QList<qint64> DlqPage::selectedIds() const {
    QList<qint64> ids;
    for (const QModelIndex &i : m_recordsView->selectionModel()->selectedRows())
        ids << m_records->record(i.row()).id;
    std::sort(ids.begin(), ids.end());
    return ids;
}

void DlqPage::setApplyToAllMatching(bool all) {
    m_actions->allMatching()->setChecked(all);
}

DlqSelection DlqPage::actionSelection() const {
    if (m_actions->allMatching()->isChecked())
        return m_records->filter();
    DlqSelection s;
    s.ids = selectedIds();
    return s;
}

qint64 DlqPage::selectionSize() const {
    if (m_actions->allMatching()->isChecked())
        return m_filteredTotal >= 0 ? m_filteredTotal : m_records->rowCount();
    return m_recordsView->selectionModel()->selectedRows().size();
}

void DlqPage::updateCount() {
    const int loaded = m_records->rowCount();
    QString text;
    if (!m_db)
        text = QString();
    else if (m_filteredTotal >= 0)
        text = loaded >= m_filteredTotal
                   ? tr("%1 records").arg(fmt::number(m_filteredTotal))
                   : tr("%1 of %2 records loaded \u00b7 more as you scroll")
                         .arg(fmt::number(loaded), fmt::number(m_filteredTotal));
    else
        text = m_records->isComplete()
                   ? tr("%1 records").arg(fmt::number(loaded))
                   : tr("%1 records loaded \u00b7 more as you scroll").arg(fmt::number(loaded));
    m_count->setText(text);
    m_actions->allMatching()->setText(m_filteredTotal >= 0
                                          ? tr("All %1 matching").arg(fmt::number(m_filteredTotal))
                                          : tr("All matching"));
}

void DlqPage::showKafka(const DlqDetail &detail) {
    m_tabs->setTabEnabled(2, detail.kafka.has_value());
    if (!detail.kafka) {
        m_kafka->clear();
        return;
    }
    const DlqKafkaRecord &k = *detail.kafka;
    const auto bytes = [](const std::optional<QByteArray> &b) {
        if (!b)
            return tr("(none)");
        QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
        const QString text = utf8(*b);
        return utf8.hasError() || b->contains('\0')
                   ? tr("0x%1 (%2 bytes, not text)")
                         .arg(QString::fromLatin1(b->left(64).toHex()), fmt::number(b->size()))
                   : text;
    };
    QStringList lines;
    lines << tr("origin   %1 [%2] @%3")
                 .arg(k.topic, detail.record.partition.value_or(QStringLiteral("?")),
                      detail.record.offset ? QString::number(*detail.record.offset)
                                           : QStringLiteral("?"));
    if (k.dlqTopic)
        lines << tr("read at  %1 [%2] @%3").arg(*k.dlqTopic).arg(k.dlqPartition).arg(k.dlqOffset);
    lines << tr("key      %1").arg(bytes(k.key)) << QString()
          << tr("headers (%1, in order; the last of a name counts)").arg(k.headers.size());
    for (const auto &[name, value] : k.headers)
        lines << QStringLiteral("  %1 = %2").arg(name, value ? bytes(value) : tr("(null)"));
    m_kafka->setPlainText(lines.join(u'\n'));
}

RedriveDialog *DlqPage::openRedriveDialog() {
    if (!m_db || !m_spec || m_busy || selectionSize() == 0)
        return nullptr;
    if (m_redrive)
        m_redrive->close();
    std::optional<double> rate;
    if (m_actions->velocity()->value() > 0)
        rate = double(m_actions->velocity()->value());
    auto *dialog = new RedriveDialog(*m_db, *m_spec, actionSelection(),
                                     m_actions->batchSize()->value(), rate, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &RedriveDialog::replayed, this, [this](const DlqProduceResult &r) {
        showResult(r.failed == 0, tr("Produced %1 record(s) to Kafka, %2 refused by the broker.")
                                      .arg(fmt::number(r.produced), fmt::number(r.failed)));
        refresh();
    });
    m_redrive = dialog;
    dialog->open();
    return dialog;
}

ImportTopicDialog *DlqPage::openImportDialog() {
    if (!m_db || !m_spec)
        return nullptr;
    if (m_importDialog)
        m_importDialog->close();
    auto *dialog = new ImportTopicDialog(*m_db, *m_spec, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ImportTopicDialog::imported, this, [this](qint64 n) {
        showResult(true,
                   tr("Imported %1 record(s) from the dead-letter topic.").arg(fmt::number(n)));
        refresh();
    });
    m_importDialog = dialog;
    dialog->open();
    return dialog;
}

void DlqPage::updateActions() {
    const qint64 n = selectionSize();
    const bool ready = m_db && !m_busy && n > 0;
    const QString what = m_actions->allMatching()->isChecked()
                             ? tr("%1 matching").arg(fmt::number(n))
                             : tr("%1 selected").arg(fmt::number(n));
    m_actions->validateButton()->setEnabled(ready);
    m_actions->replayButton()->setEnabled(ready && m_spec.has_value());
    const bool anyKafka =
        m_spec && std::any_of(m_spec->streams.begin(), m_spec->streams.end(),
                              [](const StreamSpec &st) { return st.kafka.has_value(); });
    m_actions->replayToTopicButton()->setEnabled(ready && anyKafka);
    m_actions->replayToTopicButton()->setVisible(anyKafka);
    m_import->setVisible(m_spec && std::any_of(m_spec->streams.begin(), m_spec->streams.end(),
                                               [](const StreamSpec &st) {
                                                   return st.kafka && !st.kafka->dlqTopic.isEmpty();
                                               }));
    m_actions->discardButton()->setEnabled(ready &&
                                           !m_actions->reason()->text().trimmed().isEmpty());
    m_actions->validateButton()->setText(n > 0 ? tr("Validate %1").arg(what) : tr("Validate"));
    m_actions->replayButton()->setText(n > 0 ? tr("Replay %1").arg(what) : tr("Replay"));
    m_actions->discardButton()->setText(n > 0 ? tr("Discard %1").arg(what) : tr("Discard"));
    m_actions->discardButton()->setToolTip(
        m_actions->reason()->text().trimmed().isEmpty()
            ? tr("Type a reason first: it is kept in each record's history")
            : tr("Mark the records discarded with the reason; they stay in the DLQ with their "
                 "history"));
    m_payload->setSelectionSize(n);
    m_actions->applySetButton()->setEnabled(!m_busy);
    // A role that may not change records: every action that would, disabled
    // with the reason (Validate only reads).
    m_payload->setRefusal(m_writeRefused);
    m_import->setEnabled(true);
    showRefusal(m_import, m_importRefused);
    for (QPushButton *b : {m_actions->replayButton(), m_actions->replayToTopicButton(),
                           m_actions->discardButton(), m_actions->applySetButton()})
        showRefusal(b, m_writeRefused);
}

void DlqPage::setBusy(bool busy) {
    m_busy = busy;
    m_actions->allMatching()->setEnabled(!busy);
    m_status->setEnabled(!busy);
    m_groupsView->setEnabled(!busy);
    m_payload->setBusy(busy);
    updateActions();
}

} // namespace rw
