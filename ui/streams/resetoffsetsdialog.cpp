#include "ui/streams/resetoffsetsdialog.h"

#include "core/util/timeutil.h"
#include "ui/common/format.h"
#include "ui/common/style.h"
#include "ui/streams/resetplanmodel.h"

#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace rw {

namespace {

constexpr int PartitionRole = Qt::UserRole + 1;

Result<qint64> integer(const QString &text, const QString &what) {
    bool ok = false;
    const qint64 n = text.trimmed().toLongLong(&ok);
    if (!ok)
        return badInput(QObject::tr("%1 \"%2\": expected an integer").arg(what, text.trimmed()));
    return n;
}

} // namespace

ResetOffsetsDialog::ResetOffsetsDialog(const Database &db, const StreamSpec &stream,
                                       const QString &group,
                                       const std::vector<PartitionOffsets> &partitions,
                                       QWidget *parent)
    : QDialog(parent)
    , m_db(db)
    , m_stream(stream)
    , m_group(group)
    , m_method(new QComboBox(this))
    , m_valueStack(new QStackedWidget(this))
    , m_offset(new QLineEdit(this))
    , m_shift(new QLineEdit(this))
    , m_datetime(new QLineEdit(this))
    , m_duration(new QLineEdit(this))
    , m_file(new QLineEdit(this))
    , m_partitions(new QListWidget(this))
    , m_view(new QTableView(this))
    , m_model(new ResetPlanModel(this))
    , m_summary(new QLabel(this))
    , m_state(new QLabel(this))
    , m_confirmLabel(new QLabel(this))
    , m_confirm(new QLineEdit(this))
    , m_dryRunButton(new QPushButton(tr("Dry run"), this))
    , m_applyButton(new QPushButton(tr("Apply reset"), this))
    , m_exportButton(new QPushButton(tr("Export CSV\u2026"), this)) {
    setObjectName(QStringLiteral("resetOffsetsDialog"));
    setWindowTitle(tr("Reset offsets of %1 on %2").arg(group, stream.name));
    setMinimumSize(760, 560);

    const std::pair<Method, QString> methods[] = {
        {Method::ToEarliest, tr("to earliest (log start)")},
        {Method::ToLatest, tr("to latest (log end: skip what is left)")},
        {Method::ToCurrent, tr("to current (re-commit as is)")},
        {Method::ToOffset, tr("to offset")},
        {Method::ShiftBy, tr("shift by")},
        {Method::ToDatetime, tr("to datetime")},
        {Method::ByDuration, tr("by duration (now minus)")},
        {Method::FromFile, tr("from file (CSV)")},
    };
    for (const auto &[method, label] : methods)
        m_method->addItem(label, int(method));
    m_method->setObjectName(QStringLiteral("resetMethod"));

    m_valueStack->addWidget(new QLabel(tr("no value needed"), this));
    m_offset->setPlaceholderText(tr("offset N, clamped to [log start, log end]"));
    m_shift->setPlaceholderText(tr("N, negative to rewind (clamped)"));
    m_datetime->setPlaceholderText(
        tr("ISO-8601 (2025-05-06T10:15:00Z; no zone means UTC) or epoch seconds"));
    m_duration->setPlaceholderText(tr("PnDTnHnMnS (PT2H30M) or 90s, 15m, 2h, 1d"));
    m_file->setPlaceholderText(tr("CSV of topic,partition,offset rows (as --export writes)"));
    auto *fileRow = new QWidget(this);
    auto *fileLayout = new QHBoxLayout(fileRow);
    fileLayout->setContentsMargins(0, 0, 0, 0);
    auto *browse = new QPushButton(tr("Browse\u2026"), fileRow);
    fileLayout->addWidget(m_file, 1);
    fileLayout->addWidget(browse);
    for (QWidget *w :
         {static_cast<QWidget *>(m_offset), static_cast<QWidget *>(m_shift),
          static_cast<QWidget *>(m_datetime), static_cast<QWidget *>(m_duration), fileRow})
        m_valueStack->addWidget(w);
    m_valueStack->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Offsets CSV"), QString(),
                                                          tr("CSV files (*.csv);;All files (*)"));
        if (!path.isEmpty())
            m_file->setText(path);
    });

    m_partitions->setObjectName(QStringLiteral("resetPartitions"));
    m_partitions->setMaximumHeight(110);
    for (const PartitionOffsets &p : partitions) {
        auto *item =
            new QListWidgetItem(tr("partition %1  \u00b7  committed %2, log %3 \u2026 %4, lag %5")
                                    .arg(p.partition)
                                    .arg(fmt::number(p.committed), fmt::number(p.logStart),
                                         fmt::number(p.logEnd), fmt::number(p.lag)),
                                m_partitions);
        item->setData(PartitionRole, p.partition);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
    }
    auto *all = new QPushButton(tr("All"), this);
    auto *none = new QPushButton(tr("None"), this);
    connect(all, &QPushButton::clicked, this, [this] { setPartitions({}); });
    connect(none, &QPushButton::clicked, this, [this] {
        for (int i = 0; i < m_partitions->count(); ++i)
            m_partitions->item(i)->setCheckState(Qt::Unchecked);
    });
    auto *partitionButtons = new QVBoxLayout;
    partitionButtons->addWidget(all);
    partitionButtons->addWidget(none);
    partitionButtons->addStretch(1);
    auto *partitionRow = new QHBoxLayout;
    partitionRow->addWidget(m_partitions, 1);
    partitionRow->addLayout(partitionButtons);

    auto *form = new QFormLayout;
    form->addRow(tr("Reset"), m_method);
    form->addRow(tr("Value"), m_valueStack);
    form->addRow(tr("Partitions"), partitionRow);

    m_view->setObjectName(QStringLiteral("resetPlanView"));
    m_view->setModel(m_model);
    m_view->verticalHeader()->hide();
    m_view->setAlternatingRowColors(true);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setSelectionMode(QAbstractItemView::NoSelection);
    m_view->setStyleSheet(style::tableStyleSheet());
    m_summary->setObjectName(QStringLiteral("resetSummary"));
    m_summary->setWordWrap(true);
    m_state->setObjectName(QStringLiteral("resetState"));
    m_state->setWordWrap(true);
    m_confirmLabel->setTextFormat(Qt::RichText);
    m_confirmLabel->setText(tr("Committed offsets decide what the group reads next. To apply, type "
                               "the group name <code>%1</code>:")
                                .arg(group.toHtmlEscaped()));
    m_confirm->setObjectName(QStringLiteral("confirmGroup"));
    m_confirm->setPlaceholderText(group);

    auto *buttons = new QDialogButtonBox(this);
    m_dryRunButton->setObjectName(QStringLiteral("resetDryRun"));
    m_applyButton->setObjectName(QStringLiteral("resetApply"));
    buttons->addButton(m_dryRunButton, QDialogButtonBox::ActionRole);
    buttons->addButton(m_exportButton, QDialogButtonBox::ActionRole);
    buttons->addButton(m_applyButton, QDialogButtonBox::AcceptRole);
    buttons->addButton(QDialogButtonBox::Close);
    for (QPushButton *b : {m_dryRunButton, m_applyButton, m_exportButton})
        b->setAutoDefault(false);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_dryRunButton, &QPushButton::clicked, this, &ResetOffsetsDialog::dryRun);
    connect(m_applyButton, &QPushButton::clicked, this, &ResetOffsetsDialog::apply);
    connect(m_exportButton, &QPushButton::clicked, this, &ResetOffsetsDialog::exportCsv);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    auto *planLabel = new QLabel(tr("<b>Dry run</b> (nothing is changed until you apply)"), this);
    layout->addWidget(planLabel);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_summary);
    layout->addWidget(m_state);
    layout->addWidget(m_confirmLabel);
    layout->addWidget(m_confirm);
    layout->addWidget(buttons);

    connect(m_method, &QComboBox::currentIndexChanged, this, [this] {
        const auto method = Method(m_method->currentData().toInt());
        const int page = method == Method::ToOffset     ? 1
                         : method == Method::ShiftBy    ? 2
                         : method == Method::ToDatetime ? 3
                         : method == Method::ByDuration ? 4
                         : method == Method::FromFile   ? 5
                                                        : 0;
        m_valueStack->setCurrentIndex(page);
        invalidate();
    });
    for (QLineEdit *e : {m_offset, m_shift, m_datetime, m_duration, m_file})
        connect(e, &QLineEdit::textChanged, this, &ResetOffsetsDialog::invalidate);
    connect(m_partitions, &QListWidget::itemChanged, this, &ResetOffsetsDialog::invalidate);
    connect(m_confirm, &QLineEdit::textChanged, this, &ResetOffsetsDialog::updateButtons);
    invalidate();
}

void ResetOffsetsDialog::setMethod(Method method) {
    m_method->setCurrentIndex(m_method->findData(int(method)));
}

void ResetOffsetsDialog::setValue(const QString &text) {
    switch (Method(m_method->currentData().toInt())) {
    case Method::ToOffset:
        m_offset->setText(text);
        break;
    case Method::ShiftBy:
        m_shift->setText(text);
        break;
    case Method::ToDatetime:
        m_datetime->setText(text);
        break;
    case Method::ByDuration:
        m_duration->setText(text);
        break;
    case Method::FromFile:
        m_file->setText(text);
        break;
    default:
        break;
    }
}

void ResetOffsetsDialog::setPartitions(const std::vector<qint64> &partitions) {
    const QSignalBlocker block(m_partitions);
    for (int i = 0; i < m_partitions->count(); ++i) {
        QListWidgetItem *item = m_partitions->item(i);
        const qint64 p = item->data(PartitionRole).toLongLong();
        const bool on = partitions.empty() ||
                        std::find(partitions.begin(), partitions.end(), p) != partitions.end();
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
    invalidate();
}

Result<ResetRequest> ResetOffsetsDialog::request() const {
    ResetRequest r;
    bool every = true;
    for (int i = 0; i < m_partitions->count(); ++i) {
        if (m_partitions->item(i)->checkState() == Qt::Checked)
            r.partitions.push_back(m_partitions->item(i)->data(PartitionRole).toLongLong());
        else
            every = false;
    }
    if (r.partitions.empty())
        return badInput(tr("choose at least one partition"));
    if (every)
        r.partitions.clear(); // as without --partition
    switch (Method(m_method->currentData().toInt())) {
    case Method::ToEarliest:
        r.kind = ResetRequest::Kind::ToEarliest;
        break;
    case Method::ToLatest:
        r.kind = ResetRequest::Kind::ToLatest;
        break;
    case Method::ToCurrent:
        r.kind = ResetRequest::Kind::ToCurrent;
        break;
    case Method::ToOffset:
    case Method::ShiftBy: {
        const bool to = Method(m_method->currentData().toInt()) == Method::ToOffset;
        auto n = integer(to ? m_offset->text() : m_shift->text(), to ? tr("offset") : tr("shift"));
        if (!n)
            return fail(n.error());
        r.kind = to ? ResetRequest::Kind::ToOffset : ResetRequest::Kind::ShiftBy;
        r.value = *n;
        break;
    }
    case Method::ToDatetime: {
        auto ts = timeutil::parseTimestamp(m_datetime->text().trimmed());
        if (!ts)
            return badInput(tr("datetime: %1").arg(ts.error().message));
        r.kind = ResetRequest::Kind::ToDatetime;
        r.timestampMs = ts->toMSecsSinceEpoch();
        break;
    }
    case Method::ByDuration: {
        auto ms = parseResetDuration(m_duration->text().trimmed());
        if (!ms)
            return badInput(tr("duration: %1").arg(ms.error().message));
        r.kind = ResetRequest::Kind::ToDatetime; // now - D, fixed at the dry run
        r.timestampMs = QDateTime::currentMSecsSinceEpoch() - *ms;
        break;
    }
    case Method::FromFile: {
        if (m_file->text().trimmed().isEmpty())
            return badInput(tr("choose a CSV file"));
        auto rows = readResetCsv(m_file->text().trimmed(), m_group, m_stream.source());
        if (!rows)
            return fail(rows.error());
        r.kind = ResetRequest::Kind::FromFile;
        r.fileOffsets = std::move(*rows);
        break;
    }
    }
    return r;
}

void ResetOffsetsDialog::invalidate() {
    if (m_applying)
        return;
    m_planJobs.cancel(); // an answer for older inputs is dropped
    m_busy = false;
    m_dryRun.reset();
    m_dryRunRequest.reset();
    m_model->resetData({});
    m_summary->clear();
    setState(tr(
        "Choose a reset and run the dry run: it shows the new offsets before anything changes."));
    updateButtons();
}

void ResetOffsetsDialog::setState(const QString &text, const QString &colour) {
    m_state->setStyleSheet(colour.isEmpty() ? style::textColour(style::Colour::Subtitle)
                                            : QStringLiteral("color: %1;").arg(colour));
    m_state->setText(text);
}

QString ResetOffsetsDialog::stateText() const {
    return m_state->text();
}

bool ResetOffsetsDialog::canApply() const {
    return !m_busy && m_dryRun && !m_applied && m_confirm->text().trimmed() == m_group;
}

void ResetOffsetsDialog::updateButtons() {
    m_dryRunButton->setEnabled(!m_busy);
    m_applyButton->setEnabled(canApply());
    m_exportButton->setEnabled(!m_busy && m_dryRun.has_value());
}

void ResetOffsetsDialog::dryRun() {
    auto req = request();
    if (!req) {
        setState(req.error().message, style::colour(style::Colour::Error));
        return;
    }
    m_busy = true;
    setState(tr("Computing the dry run\u2026"));
    updateButtons();
    m_planJobs.start(
        [db = m_db, stream = m_stream, group = m_group, r = *req]() {
            return resetOffsets(db, stream, group, r, false);
        },
        [this, r = *req](Result<ResetPlan> plan) {
            m_busy = false;
            if (!plan) {
                setState(plan.error().message, style::colour(style::Colour::Error));
                updateButtons();
                Q_EMIT failed(plan.error().message);
                return;
            }
            m_dryRun = *plan;
            m_dryRunRequest = r;
            m_model->resetData(plan->partitions);
            m_view->resizeColumnsToContents();
            qint64 moved = 0;
            for (const ResetPartition &p : plan->partitions)
                moved += p.newOffset != p.current ? 1 : 0;
            m_summary->setText(tr("Reset %1: %2 of %3 partitions move; the group would then read "
                                  "%4 events (to the log end).")
                                   .arg(plan->request)
                                   .arg(moved)
                                   .arg(plan->partitions.size())
                                   .arg(fmt::number(m_model->totalToReplay())));
            setState(
                tr("Dry run: nothing changed. Type the group name to apply exactly this reset."));
            updateButtons();
            Q_EMIT dryRunFinished();
        });
}

void ResetOffsetsDialog::apply() {
    if (!canApply() || !m_dryRunRequest)
        return;
    m_busy = true;
    m_applying = true;
    setState(tr("Applying\u2026"));
    updateButtons();
    m_planJobs.start(
        [db = m_db, stream = m_stream, group = m_group, r = *m_dryRunRequest]() {
            return resetOffsets(db, stream, group, r, true);
        },
        [this](Result<ResetPlan> plan) {
            m_busy = false;
            m_applying = false;
            if (!plan) {
                setState(tr("Not applied: %1").arg(plan.error().message),
                         style::colour(style::Colour::Error));
                updateButtons();
                Q_EMIT failed(plan.error().message);
                return;
            }
            m_applied = *plan;
            bool same = plan->partitions.size() == m_dryRun->partitions.size();
            for (std::size_t i = 0; same && i < plan->partitions.size(); ++i)
                same = plan->partitions[i].partition == m_dryRun->partitions[i].partition &&
                       plan->partitions[i].newOffset == m_dryRun->partitions[i].newOffset;
            Q_EMIT applied(*plan);
            if (same) {
                setState(tr("Applied and audited."), style::colour(style::Colour::Ok));
                accept();
                return;
            }
            // The group committed between the dry run and the apply.
            m_model->resetData(plan->partitions);
            setState(tr("Applied and audited, but the offsets moved since the dry run: the table "
                        "now shows what was applied."),
                     style::colour(style::Colour::Warning));
            updateButtons();
        });
}

void ResetOffsetsDialog::exportCsv() {
    if (!m_dryRun)
        return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the reset plan"),
                                                      m_group + QStringLiteral("-offsets.csv"),
                                                      tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text) ||
        f.write(resetPlanCsv(*m_dryRun, m_stream.source()).toUtf8()) < 0) {
        setState(tr("Cannot write %1: %2").arg(path, f.errorString()),
                 style::colour(style::Colour::Error));
        return;
    }
    setState(tr("Plan written to %1 (usable with --from-file).").arg(path));
}

} // namespace rw
