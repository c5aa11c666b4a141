#include "ui/lateness/lagpage.h"

#include "ui/batch/launchdialog.h"
#include "ui/batch/liverunwidget.h"
#include "ui/batch/runmanager.h"
#include "ui/common/format.h"
#include "ui/common/stattile.h"
#include "ui/common/statusstyle.h"
#include "ui/common/style.h"
#include "ui/lateness/lagpartitionsmodel.h"
#include "ui/lateness/latenesschart.h"
#include "ui/lateness/latenessstrip.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <limits>

namespace rw {

namespace {

QString ms(const std::optional<qint64> &v) {
    return v ? latenessText(*v) : QStringLiteral("\u2014");
}

} // namespace

bool LagPage::hasLateness(const DatasetSpec &dataset) {
    // Lateness measured (ingest_time), or a watermark alone (allowed_lateness).
    return !dataset.eventTime.isEmpty() &&
           (!dataset.ingestTime.isEmpty() || dataset.allowedLatenessSeconds.has_value());
}

LagPage::LagPage(QWidget *parent)
    : Page(parent)
    , m_title(new QLabel(this))
    , m_subtitle(new QLabel(this))
    , m_held(new QLabel(this))
    , m_stack(new QStackedWidget(this))
    , m_empty(new QLabel(this))
    , m_events(new StatTile(tr("events"), this))
    , m_p50(new StatTile(tr("p50"), this))
    , m_p99(new StatTile(tr("p99"), this))
    , m_p999(new StatTile(tr("p99.9"), this))
    , m_max(new StatTile(tr("max"), this))
    , m_late(new StatTile(tr("late at the spec's allowed lateness"), this))
    , m_odd(new StatTile(tr("unparseable / negative"), this))
    , m_slider(new QSlider(Qt::Horizontal, this))
    , m_sliderValue(new QLabel(this))
    , m_whatIf(new QLabel(this))
    , m_finalization(new QLabel(this))
    , m_specButton(new QPushButton(tr("Spec value"), this))
    , m_suggestButton(new QPushButton(tr("Suggested"), this))
    , m_chart(new LatenessChart(this))
    , m_strip(new LatenessStrip(this))
    , m_view(new QTableView(this))
    , m_model(new LagPartitionsModel(this))
    , m_statusSummary(new QLabel(this))
    , m_finalize(new QPushButton(tr("Finalize\u2026"), this))
    , m_backfill(new QPushButton(tr("Backfill stale\u2026"), this))
    , m_actionState(new QLabel(this))
    , m_liveBox(new QVBoxLayout) {
    setObjectName(QStringLiteral("lagPage"));
    style::makeTitle(m_title);
    m_subtitle->setStyleSheet(style::textColour(style::Colour::Subtitle));
    m_subtitle->setWordWrap(true);
    m_subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_held->setObjectName(QStringLiteral("watermarkHeld"));
    m_held->setStyleSheet(style::textColour(style::Colour::Warning));
    m_held->setWordWrap(true);
    m_held->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_held->hide();

    auto *tiles = new QHBoxLayout;
    tiles->setSpacing(8);
    for (StatTile *t : {m_events, m_p50, m_p99, m_p999, m_max, m_late, m_odd})
        tiles->addWidget(t);
    tiles->addStretch(1);

    // The what-if box.
    auto *whatIfBox = new QFrame(this);
    whatIfBox->setObjectName(QStringLiteral("whatIfBox"));
    whatIfBox->setStyleSheet(style::panelStyleSheet(
        QStringLiteral("whatIfBox"), style::Colour::NoteTint, style::Colour::NoteBorder, 6));
    m_slider->setObjectName(QStringLiteral("watermarkSlider"));
    m_slider->setTickPosition(QSlider::TicksBelow);
    m_slider->setPageStep(4);
    m_slider->setToolTip(tr("What if allowed_lateness were this? Computed from the loaded "
                            "distribution; nothing is changed"));
    QFont bold = m_sliderValue->font();
    bold.setBold(true);
    m_sliderValue->setFont(bold);
    m_sliderValue->setMinimumWidth(
        m_sliderValue->fontMetrics().horizontalAdvance(QStringLiteral("1d12h30m")) + 8);
    m_whatIf->setObjectName(QStringLiteral("whatIfText"));
    m_whatIf->setTextFormat(Qt::RichText);
    m_finalization->setObjectName(QStringLiteral("finalizationText"));
    m_finalization->setTextFormat(Qt::RichText);
    m_finalization->setWordWrap(true);
    m_finalization->setStyleSheet(style::textColour(style::Colour::Subtitle));
    m_specButton->setToolTip(tr("Back to the spec's allowed_lateness"));
    m_suggestButton->setToolTip(tr("The smallest round duration keeping 99% of events on time"));
    auto *sliderRow = new QHBoxLayout;
    sliderRow->addWidget(style::sectionLabel(tr("Watermark what-if: allowed lateness"), whatIfBox));
    sliderRow->addWidget(m_slider, 1);
    sliderRow->addWidget(m_sliderValue);
    sliderRow->addWidget(m_specButton);
    sliderRow->addWidget(m_suggestButton);
    auto *whatIfLayout = new QVBoxLayout(whatIfBox);
    whatIfLayout->setContentsMargins(10, 6, 10, 6);
    whatIfLayout->setSpacing(2);
    whatIfLayout->addLayout(sliderRow);
    whatIfLayout->addWidget(m_whatIf);
    whatIfLayout->addWidget(m_finalization);

    // Partitions table and actions.
    auto *proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_model);
    proxy->setSortRole(LagPartitionsModel::SortRole);
    m_view->setObjectName(QStringLiteral("lagPartitions"));
    m_view->setModel(proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(LagPartitionsModel::PartitionColumn, Qt::AscendingOrder);
    m_view->setColumnHidden(LagPartitionsModel::P50Column,
                            true); // a tile, and in the strip's tooltip
    measureFirstRowsOnly(m_view);
    style::setupTable(m_view);
    connect(m_strip, &LatenessStrip::partitionClicked, this, [this, proxy](int row) {
        const QModelIndex index = proxy->mapFromSource(m_model->index(row, 0));
        m_view->selectRow(index.row());
        m_view->scrollTo(index);
    });

    m_finalize->setObjectName(QStringLiteral("finalizeButton"));
    m_backfill->setObjectName(QStringLiteral("backfillButton"));
    m_statusSummary->setObjectName(QStringLiteral("lagStatusSummary"));
    m_statusSummary->setTextFormat(Qt::RichText);
    m_actionState->setObjectName(QStringLiteral("lagActionState"));
    m_actionState->setWordWrap(true);
    m_actionState->setStyleSheet(style::textColour(style::Colour::Subtitle));
    connect(m_finalize, &QPushButton::clicked, this, &LagPage::startFinalize);
    connect(m_backfill, &QPushButton::clicked, this, &LagPage::startBackfill);
    auto *actions = new QHBoxLayout;
    actions->addWidget(m_statusSummary, 1);
    actions->addWidget(m_finalize);
    actions->addWidget(m_backfill);

    auto *right = new QWidget(this);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->setSpacing(6);
    rightLayout->addWidget(style::sectionLabel(tr("Partitions"), right));
    rightLayout->addWidget(m_view, 1);
    rightLayout->addLayout(actions);
    rightLayout->addWidget(m_actionState);
    rightLayout->addLayout(m_liveBox);

    auto *split = style::splitter(Qt::Horizontal, {{m_chart, 3}, {right, 2}}, this);
    split->setSizes({530, 550});

    auto *content = new QWidget(this);
    auto *contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->setSpacing(6);
    contentLayout->addWidget(whatIfBox);
    contentLayout->addWidget(split, 1);
    m_stripLabel = style::sectionLabel(QString(), content);
    contentLayout->addWidget(m_stripLabel);
    contentLayout->addWidget(m_strip);

    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setStyleSheet(style::textColour(style::Colour::Muted));
    m_stack->addWidget(m_empty);
    m_stack->addWidget(content);

    auto *layout = style::pageLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_subtitle);
    layout->addWidget(m_held);
    layout->addLayout(tiles);
    layout->addWidget(m_stack, 1);

    connect(m_slider, &QSlider::valueChanged, this, &LagPage::onSlider);
    connect(m_specButton, &QPushButton::clicked, this, [this] {
        if (m_dataset && m_dataset->allowedLatenessSeconds)
            setAllowedLateness(*m_dataset->allowedLatenessSeconds);
    });
    connect(m_suggestButton, &QPushButton::clicked, this, [this] {
        if (m_snapshot && m_snapshot->report.suggestion)
            setAllowedLateness(m_snapshot->report.suggestion->seconds);
    });
    clear();
}

LaunchDialog *LagPage::launchDialog() const {
    return m_dialog.data();
}

void LagPage::setRunManager(RunManager *runs) {
    m_runs = runs;
    connect(m_runs, &RunManager::runProgressed, this, [this](int id) {
        if (m_live && id == m_liveId)
            if (const LiveRun *run = m_runs->run(id))
                m_live->update(*run);
    });
    connect(m_runs, &RunManager::runFinished, this, [this](int id) {
        if (id != m_liveId)
            return;
        const LiveRun *run = m_runs->run(id);
        if (m_live && run)
            m_live->update(*run);
        if (run && run->result)
            m_actionState->setText(
                tr("Run #%1 %2.")
                    .arg(run->result->runId.toString(), enumName(run->result->status)));
        else if (run && run->error && run->error->code != Error::Code::StalePlan)
            m_actionState->setText(tr("The run failed: %1").arg(run->error->message));
        if (m_live) {
            m_live->cancelButton()->setEnabled(false);
        }
        refresh();
        Q_EMIT runFinished(id);
    });
}

void LagPage::setDataset(const Database &db, const DatasetSpec &dataset) {
    const bool same = m_dataset && m_dataset->name == dataset.name;
    m_db = db;
    m_dataset = dataset;
    if (!same) {
        m_snapshot.reset();
        m_model->resetData({});
        m_strip->setRows({});
        m_held->clear();
        m_held->hide();
        m_chart->clear();
        m_actionState->clear();
    }
    refresh();
}

QString LagPage::title() const {
    return m_dataset ? tr("Lateness of %1").arg(m_dataset->name) : tr("Lateness");
}

QString LagPage::statusText() const {
    if (!m_snapshot)
        return title();
    return tr("%1: %2 events, p99 %3")
        .arg(title(), fmt::number(m_snapshot->report.count),
             ms(m_snapshot->report.percentiles.p99));
}

void LagPage::clear() {
    cancelLoad();
    m_db.reset();
    m_dataset.reset();
    m_snapshot.reset();
    m_model->resetData({});
    m_strip->setRows({});
    m_held->clear();
    m_held->hide();
    m_chart->clear();
    m_title->setText(tr("No dataset selected"));
    m_subtitle->clear();
    for (StatTile *t : {m_events, m_p50, m_p99, m_p999, m_max, m_late, m_odd})
        t->setValue(QStringLiteral("\u2014"));
    m_empty->setText(tr("Select a dataset with event_time and ingest_time to see its lateness."));
    m_stack->setCurrentWidget(m_empty);
    m_actionState->clear();
    updateActions();
}

void LagPage::refresh() {
    if (!m_db || !m_dataset)
        return;
    const DatasetSpec &d = *m_dataset;
    m_title->setText(title());
    if (!hasLateness(d)) {
        cancelLoad();
        m_subtitle->clear();
        m_empty->setText(tr("Dataset %1 has no %2 in the spec, so its lateness cannot be measured. "
                            "Set \"event_time\" and "
                            "\"ingest_time\" (and \"allowed_lateness\" for a watermark).")
                             .arg(d.name, d.eventTime.isEmpty() ? QStringLiteral("event_time")
                                                                : QStringLiteral("ingest_time")));
        m_stack->setCurrentWidget(m_empty);
        updateActions();
        Q_EMIT pageLoaded();
        return;
    }
    m_subtitle->setText(tr("%1  \u00b7  allowed_lateness %2  \u00b7  loading\u2026")
                            .arg(d.ingestTime.isEmpty()
                                     ? tr("watermark of %1").arg(d.eventTime)
                                     : tr("lateness = %1 \u2212 %2").arg(d.ingestTime, d.eventTime),
                                 d.allowedLatenessSeconds ? durationLabel(*d.allowedLatenessSeconds)
                                                          : tr("not set")));
    startLoad(
        tr("Measuring the lateness of %1\u2026").arg(d.name),
        [db = *m_db, dataset = d]() { return loadLatenessSnapshot(db, dataset); },
        [this](Result<LatenessSnapshot> result) {
            if (!result) {
                m_empty->setText(result.error().message);
                m_stack->setCurrentWidget(m_empty);
                updateActions();
                Q_EMIT loadFailed(tr("Could not measure the lateness of %1: %2")
                                      .arg(datasetName(), result.error().message));
                return;
            }
            showSnapshot(std::move(*result));
            Q_EMIT pageLoaded();
        });
    updateActions();
}

void LagPage::showSnapshot(LatenessSnapshot snapshot) {
    const qint64 previous = m_snapshot ? whatIfSeconds() : -1;
    m_snapshot = std::move(snapshot);
    const LatenessSnapshot &s = *m_snapshot;
    const LatenessReport &r = s.report;
    const DatasetSpec &d = *m_dataset;

    QStringList facts{d.ingestTime.isEmpty()
                          ? tr("no ingest_time: the watermark only, lateness not measured")
                          : tr("lateness = %1 \u2212 %2").arg(d.ingestTime, d.eventTime),
                      tr("allowed_lateness %1")
                          .arg(d.allowedLatenessSeconds ? durationLabel(*d.allowedLatenessSeconds)
                                                        : tr("not set"))};
    if (s.finalize && s.finalize->watermarkMs)
        facts << (s.finalize->heldBy.empty()
                      ? tr("watermark %1 (newest event %2)")
                            .arg(fmt::timestamp(isoUtc(*s.finalize->watermarkMs)),
                                 fmt::timestamp(isoUtc(*s.finalize->maxEventMs)))
                      : tr("watermark %1, held (newest event %2)")
                            .arg(fmt::timestamp(isoUtc(*s.finalize->watermarkMs)),
                                 fmt::timestamp(isoUtc(*s.finalize->maxEventMs))));
    QStringList held;
    if (s.finalize)
        for (const WatermarkHold &h : s.finalize->heldBy)
            held << describeHold(h);
    m_held->setText(held.join(u'\n'));
    m_held->setVisible(!held.isEmpty());
    if (r.suggestion)
        facts << tr("suggested allowed_lateness %1").arg(durationLabel(r.suggestion->seconds));
    m_subtitle->setText(facts.join(QStringLiteral("  \u00b7  ")));

    m_events->setValue(fmt::number(r.count), tr("%1 rows scanned").arg(fmt::number(r.rows)));
    m_p50->setValue(ms(r.percentiles.p50));
    m_p99->setValue(ms(r.percentiles.p99));
    m_p999->setValue(ms(r.percentiles.p999));
    m_max->setValue(ms(r.percentiles.max));
    if (r.lateFraction) {
        m_late->setValue(percentText(*r.lateFraction),
                         tr("%1 events later than %2")
                             .arg(fmt::number(r.late), durationLabel(*r.allowedLatenessSeconds)));
        m_late->setAlert(*r.lateFraction > 0.01);
    } else {
        m_late->setValue(QStringLiteral("\u2014"), tr("No allowed_lateness in the spec"));
        m_late->setAlert(false);
    }
    m_odd->setValue(
        QStringLiteral("%1 / %2").arg(fmt::number(r.unparseable), fmt::number(r.negative)),
        tr("%1 rows with an unparseable or missing timestamp (%2 missing); %3 events ingested "
           "before their event time")
            .arg(fmt::number(r.unparseable), fmt::number(r.missing), fmt::number(r.negative)));
    m_odd->setAlert(r.unparseable > 0);

    m_chart->setReport(r);
    m_model->resetData(s.partitions);
    m_strip->setRows(s.partitions);
    style::fitColumns(m_view, LagPartitionsModel::ColumnCount, 2);

    {
        const QSignalBlocker block(m_slider);
        m_slider->setRange(0, int(s.grid.size()) - 1);
        m_slider->setTickInterval(std::max(1, int(s.grid.size()) / 12));
    }
    m_specButton->setEnabled(d.allowedLatenessSeconds.has_value());
    m_suggestButton->setEnabled(r.suggestion.has_value());
    m_stack->setCurrentWidget(m_stack->widget(1));
    const qint64 start = previous >= 0              ? previous
                         : d.allowedLatenessSeconds ? *d.allowedLatenessSeconds
                         : r.suggestion             ? r.suggestion->seconds
                                                    : 3600;
    setAllowedLateness(start);
    onSlider(m_slider->value()); // also when the value did not change
    updateActions();
}

void LagPage::setAllowedLateness(qint64 seconds) {
    if (!m_snapshot || m_snapshot->grid.empty())
        return;
    const auto &grid = m_snapshot->grid;
    const auto it = std::lower_bound(grid.begin(), grid.end(), seconds);
    m_slider->setValue(it == grid.end() ? int(grid.size()) - 1 : int(it - grid.begin()));
}

qint64 LagPage::whatIfSeconds() const {
    if (!m_snapshot || m_snapshot->grid.empty())
        return 0;
    return m_snapshot
        ->grid[std::size_t(std::clamp(m_slider->value(), 0, int(m_snapshot->grid.size()) - 1))];
}

const LatenessCandidate *LagPage::whatIfPoint() const {
    if (!m_snapshot)
        return nullptr;
    const auto &w = m_snapshot->report.whatIf;
    const int i = m_slider->value();
    return i >= 0 && std::size_t(i) < w.size() ? &w[std::size_t(i)] : nullptr;
}

qint64 LagPage::whatIfLate() const {
    const LatenessCandidate *p = whatIfPoint();
    return p ? p->late : 0;
}

double LagPage::whatIfLateFraction() const {
    const LatenessCandidate *p = whatIfPoint();
    return p ? p->lateFraction : 0;
}

QString LagPage::whatIfText() const {
    return m_whatIf->text();
}
QString LagPage::heldText() const {
    return m_held->text();
}

QString LagPage::finalizationText() const {
    return m_finalization->text();
}

void LagPage::onSlider(int step) {
    if (!m_snapshot || step < 0 || std::size_t(step) >= m_snapshot->grid.size())
        return;
    const LatenessSnapshot &s = *m_snapshot;
    const qint64 seconds = s.grid[std::size_t(step)];
    const qint64 late = whatIfLate();
    const double fraction = whatIfLateFraction();
    m_sliderValue->setText(durationLabel(seconds));
    m_model->setWhatIf(step, seconds);
    m_strip->setWhatIf(step, seconds);
    m_chart->setAllowedLateness(seconds);
    m_stripLabel->setText(tr("Per-partition lateness: share of events later than %1, darkest = the "
                             "worst partition (%2); "
                             "tick = status")
                              .arg(durationLabel(seconds), percentText(m_strip->scaleTop())));

    const QString colour =
        fraction > 0.01 ? style::colour(style::Colour::Error) : style::colour(style::Colour::Ok);
    QString spec;
    if (m_dataset->allowedLatenessSeconds && *m_dataset->allowedLatenessSeconds != seconds &&
        s.report.lateFraction)
        spec = tr(" (spec %1: %2)")
                   .arg(durationLabel(*m_dataset->allowedLatenessSeconds),
                        percentText(*s.report.lateFraction));
    m_whatIf->setText(
        tr("With allowed lateness <b>%1</b>: <b style='color:%2'>%3</b> of events would be late "
           "(%4 of %5)%6")
            .arg(durationLabel(seconds), colour, percentText(fraction), fmt::number(late),
                 fmt::number(s.report.count), spec.toHtmlEscaped()));

    // The finalization delay: the watermark trails the newest event time by
    // the allowed lateness, so a window becomes final that long after it
    // ends; a lagging feeding group holds it back further (held_by).
    const std::optional<WindowGrain> grain = s.finalize ? s.finalize->grain : std::nullopt;
    const QString unit = grain ? enumName(*grain) : QStringLiteral("day");
    QString text = tr("Finalization delay <b>%1</b>: %2 becomes final %1 after it ends (event "
                      "time).")
                       .arg(durationLabel(seconds), grain == WindowGrain::Hour    ? tr("an hour")
                                                    : grain == WindowGrain::Month ? tr("a month")
                                                                                  : tr("a day"));
    if (s.finalize && s.finalize->maxEventMs) {
        qint64 watermark = *s.finalize->maxEventMs - seconds * 1000;
        // The held point at this setting: the earliest unconsumed event
        // time (held_at plus the spec's lateness) minus this lateness.
        const qint64 spec = m_dataset ? m_dataset->allowedLatenessSeconds.value_or(0) : 0;
        QStringList held;
        for (const WatermarkHold &h : s.finalize->heldBy) {
            if (h.heldAtMs)
                watermark = std::min(watermark, *h.heldAtMs + (spec - seconds) * 1000);
            else if (s.finalize->watermarkMs) // held where the last finalize left it
                watermark = std::min(watermark, *s.finalize->watermarkMs);
            else // and none before: nothing becomes final at any setting
                watermark = std::numeric_limits<qint64>::min();
            held << (h.unreachable.isEmpty() ? tr("group %1 of %2, %3 events behind")
                                                   .arg(h.group, h.stream, fmt::number(h.lag))
                                             : tr("stream %1, which cannot be read").arg(h.stream));
        }
        int windows = 0, past = 0;
        for (const LagPartitionRow &row : s.partitions) {
            const auto window =
                row.partition && grain ? partitionWindowMs(*grain, *row.partition) : std::nullopt;
            if (!window)
                continue;
            ++windows;
            if (watermark >= window->second)
                ++past;
        }
        text += tr(" Watermark at this setting: %1%2, past the end of %3 of %4 %5 partitions.")
                    .arg(watermark == std::numeric_limits<qint64>::min()
                             ? tr("none")
                             : fmt::timestamp(isoUtc(watermark)),
                         held.isEmpty() ? QString()
                                        : tr(" (held by %1)").arg(held.join(QStringLiteral("; "))))
                    .arg(past)
                    .arg(windows)
                    .arg(unit);
    }
    m_finalization->setText(text);
}

void LagPage::updateActions() {
    const bool ready =
        m_snapshot && !isLoading() && !m_preparing && m_runs && hasLateness(*m_dataset);
    const bool busy =
        m_liveId && m_runs && m_runs->run(m_liveId) && !m_runs->run(m_liveId)->finished;
    const qsizetype eligible =
        m_snapshot && m_snapshot->finalize ? m_snapshot->finalize->finalized.size() : 0;
    const qint64 stale = m_snapshot ? m_snapshot->staleCount : 0;
    const QString refused = m_snapshot ? m_snapshot->runRefused : QString();
    m_finalize->setEnabled(ready && !busy && eligible > 0 && refused.isEmpty());
    m_backfill->setEnabled(ready && !busy && stale > 0 && refused.isEmpty());
    m_finalize->setText(eligible > 0 ? tr("Finalize %n partition(s)\u2026", nullptr, int(eligible))
                                     : tr("Finalize\u2026"));
    m_backfill->setText(stale > 0 ? tr("Backfill %n stale\u2026", nullptr, int(stale))
                                  : tr("Backfill stale\u2026"));
    if (m_snapshot && !m_snapshot->finalize)
        m_finalize->setToolTip(tr("Set allowed_lateness in the spec to finalize partitions"));
    else if (m_snapshot && eligible == 0)
        m_finalize->setToolTip(tr("Nothing to finalize: the watermark has not passed the end of a "
                                  "partition that is not final yet"));
    else
        m_finalize->setToolTip(tr("Publish the partitions the watermark has passed and mark them "
                                  "final (previewed first)"));
    m_backfill->setToolTip(stale > 0 || !m_snapshot
                               ? tr("Re-run every stale partition (late data arrived since its "
                                    "publish; previewed first)")
                               : tr("No partition is stale"));
    if (!refused.isEmpty()) {
        m_finalize->setToolTip(refused);
        m_backfill->setToolTip(refused);
    }

    if (!m_snapshot) {
        m_statusSummary->clear();
        return;
    }
    QMap<PartitionStatus, int> counts;
    for (const LagPartitionRow &r : m_snapshot->partitions)
        ++counts[r.status];
    QStringList parts;
    for (const PartitionStatus status : StatusStyle::statuses())
        if (counts.value(status) > 0)
            parts << QStringLiteral("<span style='color:%1'>\u25cf</span> %2 %3")
                         .arg(StatusStyle::color(status).name())
                         .arg(counts.value(status))
                         .arg(enumName(status));
    m_statusSummary->setText(parts.join(QStringLiteral("&nbsp;&nbsp;")));
}

void LagPage::startFinalize() {
    prepareLaunch(
        tr("Previewing the partitions the watermark has passed\u2026"),
        [](const Database &db, const DatasetSpec &dataset) -> Result<RunResult> {
            auto dry = finalize(db, dataset, {});
            if (!dry)
                return fail(dry.error());
            if (dry->finalized.isEmpty())
                return badInput(QStringLiteral("nothing to finalize: the watermark has passed no "
                                               "partition that is not final yet"));
            BatchOptions options;
            options.scope.partitions = dry->finalized;
            return preview(db, dataset, options);
        },
        true);
}

void LagPage::startBackfill() {
    prepareLaunch(
        tr("Previewing the stale partitions\u2026"),
        [](const Database &db, const DatasetSpec &dataset) -> Result<RunResult> {
            BatchOptions options;
            options.scope.stale = true;
            auto plan = preview(db, dataset, options);
            if (plan && plan->partitions.empty())
                return badInput(QStringLiteral("nothing to backfill: no partition is stale"));
            return plan;
        },
        false);
}

void LagPage::prepareLaunch(const QString &progress, LaunchWork work, bool finalizing) {
    if (!m_db || !m_dataset || !m_runs || m_preparing)
        return;
    m_preparing = true;
    m_actionState->setText(progress);
    updateActions();
    tasks().start([work = std::move(work), db = *m_db,
                   dataset = *m_dataset]() -> Result<RunResult> { return work(db, dataset); },
                  [this, finalizing](Result<RunResult> plan) {
                      m_preparing = false;
                      updateActions();
                      if (!plan) {
                          m_actionState->setText(plan.error().message);
                          return;
                      }
                      m_actionState->clear();
                      openLaunch(*plan, finalizing);
                  });
}

void LagPage::openLaunch(const RunResult &plan, bool finalizing) {
    if (m_dialog)
        m_dialog->close();
    auto *dialog = new LaunchDialog(plan, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    QStringList days;
    for (const PartitionResult &p : plan.partitions)
        days << partitionLabel(p.partition);
    if (finalizing) {
        const QString watermark =
            m_snapshot && m_snapshot->finalize && m_snapshot->finalize->watermarkMs
                ? fmt::timestamp(isoUtc(*m_snapshot->finalize->watermarkMs))
                : QString();
        dialog->setPurpose(
            tr("Finalize %1").arg(plan.dataset),
            tr("The watermark (%1) has passed these %n partition(s): they are published as "
               "previewed "
               "below and then "
               "marked final. Late data arriving afterwards makes a day stale, to backfill.",
               nullptr, int(days.size()))
                .arg(watermark),
            tr("Finalize"));
    } else {
        dialog->setPurpose(tr("Backfill stale partitions of %1").arg(plan.dataset),
                           tr("Source rows changed or arrived after these %n partition(s) were "
                              "published: they are re-run as "
                              "previewed below. A final partition stays final.",
                              nullptr, int(days.size())),
                           tr("Backfill"));
    }
    const Database db = *m_db;
    const DatasetSpec dataset = *m_dataset;
    const QString planId = plan.planId;
    QPointer<LaunchDialog> guard(dialog);
    connect(dialog, &LaunchDialog::confirmed, this, [this, guard, db, dataset, planId, finalizing] {
        const int id = finalizing ? m_runs->startFinalize(db, dataset, planId)
                                  : m_runs->startRun(db, dataset, planId);
        watchRun(id, guard);
    });
    connect(dialog, &LaunchDialog::previewAgainRequested, this,
            finalizing ? &LagPage::startFinalize : &LagPage::startBackfill);
    m_dialog = dialog;
    dialog->open();
    Q_EMIT launchDialogOpened();
}

void LagPage::watchRun(int id, QPointer<LaunchDialog> dialog) {
    m_liveId = id;
    if (m_live)
        m_live->deleteLater();
    m_live = new LiveRunWidget(id, this);
    connect(m_live, &LiveRunWidget::cancelRequested, m_runs, &RunManager::cancel);
    m_liveBox->addWidget(m_live);
    if (const LiveRun *run = m_runs->run(id))
        m_live->update(*run);
    updateActions();
    followLaunch(m_runs, id, this, dialog);
}

} // namespace rw
