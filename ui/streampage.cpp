#include "streampage.h"

#include "background.h"
#include "stattile.h"
#include "streampartitionsmodel.h"
#include "streams.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace rw {

namespace {

// What one background load of a stream returns.
struct StreamSnapshot {
    std::vector<StreamPartitionInfo> partitions;
    qint64 sinkRows = 0;
};

QString number(qint64 n)
{
    QLocale locale;
    locale.setNumberOptions(locale.numberOptions() & ~QLocale::OmitGroupSeparator);
    return locale.toString(n);
}

} // namespace

StreamPage::StreamPage(QWidget *parent)
    : Page(parent), m_title(new QLabel(this)), m_subtitle(new QLabel(this)),
      m_partitionsTile(new StatTile(tr("log partitions"), this)), m_eventsTile(new StatTile(tr("events in log"), this)),
      m_rangeTile(new StatTile(tr("offsets removed by retention"), this)), m_sinkTile(new StatTile(tr("sink rows"), this)),
      m_view(new QTableView(this)), m_model(new StreamPartitionsModel(this)), m_proxy(new QSortFilterProxyModel(this))
{
    setObjectName(QStringLiteral("streamPage"));
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.6);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_subtitle->setObjectName(QStringLiteral("streamHeader"));
    m_subtitle->setStyleSheet(QStringLiteral("color: #4a5059;"));
    m_subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_subtitle->setWordWrap(true);

    auto *tiles = new QHBoxLayout;
    tiles->setSpacing(8);
    for (StatTile *tile : {m_partitionsTile, m_eventsTile, m_rangeTile, m_sinkTile})
        tiles->addWidget(tile);
    tiles->addStretch(1);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(StreamPartitionsModel::SortRole);
    m_view->setObjectName(QStringLiteral("streamView"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(StreamPartitionsModel::PartitionColumn, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAlternatingRowColors(true);
    m_view->setShowGrid(true); // faint lines keep right-aligned numbers apart from the next column
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 10);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setStyleSheet(QStringLiteral("QTableView { border: 1px solid #dfe2e7; gridline-color: #eceef1; }"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 12, 16, 12);
    layout->setSpacing(8);
    layout->addWidget(m_title);
    layout->addWidget(m_subtitle);
    layout->addLayout(tiles);
    layout->addWidget(m_view, 1);
    clear();
}

void StreamPage::setStream(const Database &db, const StreamSpec &stream)
{
    m_db = db;
    m_stream = stream;
    m_sinkRows = -1;
    m_model->resetData({});
    refresh();
}

QString StreamPage::streamName() const { return m_stream ? m_stream->name : QString(); }

QString StreamPage::title() const { return m_stream ? tr("Stream %1").arg(m_stream->name) : tr("Stream"); }

void StreamPage::clear()
{
    cancelLoad();
    m_db.reset();
    m_stream.reset();
    m_sinkRows = -1;
    m_model->resetData({});
    updateHeader();
}

void StreamPage::refresh()
{
    if (!m_db || !m_stream)
        return;
    const quint64 generation = beginLoad(tr("Loading stream %1\u2026").arg(m_stream->name));
    updateHeader();
    runInBackground(
        this,
        [db = *m_db, stream = *m_stream]() -> Result<StreamSnapshot> {
            auto partitions = listStreamPartitions(db, stream);
            if (!partitions)
                return fail(partitions.error());
            auto sink = sinkRowCount(db, stream);
            if (!sink)
                return fail(sink.error());
            return StreamSnapshot{std::move(*partitions), *sink};
        },
        [this, generation](Result<StreamSnapshot> result) {
            if (!finishLoad(generation))
                return;
            if (!result) {
                updateHeader();
                Q_EMIT loadFailed(tr("Could not load stream %1: %2").arg(streamName(), result.error().message));
                return;
            }
            m_sinkRows = result->sinkRows;
            m_model->resetData(std::move(result->partitions));
            m_view->resizeColumnsToContents();
            for (int c = 0; c < StreamPartitionsModel::ColumnCount - 1; ++c)
                m_view->setColumnWidth(c, m_view->columnWidth(c) + 32);
            updateHeader();
            Q_EMIT pageLoaded();
        });
}

void StreamPage::updateHeader()
{
    if (!m_stream) {
        m_title->setText(tr("No stream selected"));
        m_subtitle->clear();
        for (StatTile *tile : {m_partitionsTile, m_eventsTile, m_rangeTile, m_sinkTile})
            tile->setValue(QStringLiteral("\u2014"));
        return;
    }
    const StreamSpec &s = *m_stream;
    m_title->setText(s.name);
    QStringList fields;
    for (const auto &[column, path] : s.fields)
        fields << column;
    QStringList facts{tr("log %1 \u2192 sink %2").arg(s.log, s.sink)};
    if (!fields.isEmpty())
        facts << tr("fields: %1").arg(fields.join(QStringLiteral(", ")));
    if (!s.required.isEmpty())
        facts << tr("required: %1").arg(s.required.join(QStringLiteral(", ")));
    if (isLoading())
        facts << tr("loading\u2026");
    m_subtitle->setText(facts.join(QStringLiteral("  \u00b7  ")));

    const bool known = !isLoading() && m_sinkRows >= 0;
    qint64 events = 0, removed = 0;
    for (const StreamPartitionInfo &p : m_model->snapshot()) {
        events += p.events;
        removed += p.logEnd - p.events; // offsets start at 0: below log start or inside gaps, they are gone
    }
    const QString dash = QStringLiteral("\u2014");
    m_partitionsTile->setValue(known ? number(qint64(m_model->snapshot().size())) : dash);
    m_eventsTile->setValue(known ? number(events) : dash);
    m_rangeTile->setValue(known ? number(removed) : dash,
                          tr("Offsets below the log start or missing inside the log: removed by retention or compaction"));
    m_sinkTile->setValue(known ? number(m_sinkRows) : dash);
}

} // namespace rw
