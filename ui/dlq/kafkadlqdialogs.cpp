#include "ui/dlq/kafkadlqdialogs.h"

#include "ui/common/format.h"
#include "ui/common/style.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace rw {

// --- ImportTopicDialog ------------------------------------------------------------

ImportTopicDialog::ImportTopicDialog(const Database &db, const Spec &spec, QWidget *parent)
    : QDialog(parent)
    , m_db(db)
    , m_spec(spec)
    , m_stream(new QComboBox(this))
    , m_status(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_count(new QPushButton(tr("Count"), this))
    , m_import(new QPushButton(tr("Import"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this)) {
    setObjectName(QStringLiteral("importTopicDialog"));
    setWindowTitle(tr("Import from a dead-letter topic"));
    for (const StreamSpec &s :
         m_spec.streams) // a broken one is refused, as rewindctl dlq import refuses it
        if (s.kafka && !s.kafka->dlqTopic.isEmpty() &&
            m_spec.brokenReason(QStringLiteral("stream"), s.name).isEmpty())
            m_stream->addItem(tr("%1 \u2190 %2").arg(s.name, s.kafka->dlqTopic), s.name);
    m_status->setWordWrap(true);
    m_status->setMinimumWidth(460);
    m_status->setText(m_stream->count()
                          ? tr("Count the records to import, then import them.")
                          : tr("No usable Kafka stream of the spec names a kafka.dlq_topic."));
    m_progress->hide();
    m_import->setEnabled(false);
    m_cancel->hide();
    auto *form = new QFormLayout;
    form->addRow(tr("Stream and topic"), m_stream);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    auto *close = new QPushButton(tr("Close"), this);
    for (QPushButton *b : {m_count, m_import, m_cancel, close})
        buttons->addWidget(b);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_status);
    layout->addWidget(m_progress);
    layout->addLayout(buttons);
    connect(m_stream, &QComboBox::currentIndexChanged, this, [this] {
        m_dryRun.reset();
        m_import->setEnabled(false);
    });
    connect(m_count, &QPushButton::clicked, this, &ImportTopicDialog::count);
    connect(m_import, &QPushButton::clicked, this, &ImportTopicDialog::runImport);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_jobs.requestCancel();
        m_cancel->setEnabled(false);
        m_status->setText(tr("Cancelling after the batch in progress\u2026"));
    });
    connect(close, &QPushButton::clicked, this, &QDialog::reject);
    m_count->setEnabled(m_stream->count() > 0);
}

const StreamSpec *ImportTopicDialog::chosen() const {
    return m_spec.stream(m_stream->currentData().toString());
}

QString ImportTopicDialog::statusText() const {
    return m_status->text();
}

void ImportTopicDialog::setRunning(bool running) {
    m_running = running;
    m_stream->setEnabled(!running);
    m_count->setEnabled(!running && m_stream->count() > 0);
    m_import->setEnabled(!running && m_dryRun && m_dryRun->imported > 0);
    m_cancel->setVisible(running);
    m_cancel->setEnabled(running);
    m_progress->setVisible(running);
}

void ImportTopicDialog::count() {
    const StreamSpec *stream = chosen();
    if (!stream || m_running)
        return;
    setRunning(true);
    m_progress->setRange(0, 0);
    m_status->setText(tr("Reading the watermarks of %1\u2026").arg(stream->kafka->dlqTopic));
    m_jobs.start([db = m_db, s = *stream]() { return importDlqTopic(db, s, DlqImportOptions{}); },
                 [this](Result<DlqImportResult> r) {
                     setRunning(false);
                     if (!r) {
                         m_status->setText(tr("Cannot count: %1").arg(r.error().message));
                         Q_EMIT failed(r.error().message);
                         return;
                     }
                     m_dryRun = *r;
                     m_status->setText(
                         r->imported > 0 ? tr("%1 record(s) to read from %2 (%3 imported before).")
                                               .arg(fmt::number(r->imported), r->topic,
                                                    fmt::number(r->alreadyImported))
                                         : tr("Nothing new in %1 (%2 imported before).")
                                               .arg(r->topic, fmt::number(r->alreadyImported)));
                     setRunning(false);
                     Q_EMIT counted();
                 });
}

void ImportTopicDialog::runImport() {
    const StreamSpec *stream = chosen();
    if (!stream || m_running || !m_dryRun)
        return;
    const qint64 total = m_dryRun->imported;
    setRunning(true);
    m_progress->setRange(0, int(std::min<qint64>(std::max<qint64>(total, 1), INT_MAX)));
    m_progress->setValue(0);
    m_status->setText(tr("Importing\u2026"));
    m_jobs.start(
        [this, db = m_db, s = *stream](const JobToken &job) {
            DlqImportOptions o;
            o.execute = true;
            o.cancel = job.cancelFlag();
            o.progress = [this, job](const DlqImportProgress &p) {
                job.post([this, p] {
                    m_progress->setValue(int(std::min<qint64>(p.read, INT_MAX)));
                    m_status->setText(tr("%1 of %2 records read\u2026")
                                          .arg(fmt::number(p.read), fmt::number(p.total)));
                });
            };
            return importDlqTopic(db, s, o);
        },
        [this](Result<DlqImportResult> r) {
            m_dryRun.reset();
            setRunning(false);
            if (!r) {
                m_status->setText(tr("Import failed: %1").arg(r.error().message));
                Q_EMIT failed(r.error().message);
                return;
            }
            m_result = *r;
            m_status->setText(
                (r->cancelled
                     ? tr("Cancelled: %1 record(s) imported from %2; import again to go on.")
                     : tr("%1 record(s) imported from %2."))
                    .arg(fmt::number(r->imported), r->topic));
            Q_EMIT imported(r->imported);
        });
}

// --- RedriveDialog ------------------------------------------------------------------

RedriveDialog::RedriveDialog(const Database &db, const Spec &spec, const DlqSelection &selection,
                             qint64 batchSize, std::optional<double> maxPerSecond, QWidget *parent)
    : QDialog(parent)
    , m_db(db)
    , m_spec(spec)
    , m_selection(selection)
    , m_batchSize(batchSize)
    , m_maxPerSecond(maxPerSecond)
    , m_summary(new QLabel(this))
    , m_topic(new QLineEdit(this))
    , m_confirm(new QLineEdit(this))
    , m_progress(new QProgressBar(this))
    , m_dryRunButton(new QPushButton(tr("Dry run"), this))
    , m_replay(new QPushButton(tr("Replay to Kafka"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this)) {
    setObjectName(QStringLiteral("redriveDialog"));
    setWindowTitle(tr("Replay to a Kafka topic"));
    m_summary->setWordWrap(true);
    m_summary->setMinimumWidth(480);
    m_summary->setTextFormat(Qt::PlainText);
    m_topic->setPlaceholderText(tr("each record's original topic"));
    m_topic->setToolTip(tr("Produce every record to this topic instead of its original one (it "
                           "must exist: never created)"));
    m_confirm->setPlaceholderText(tr("type the stream's name to confirm"));
    m_progress->hide();
    m_cancel->hide();
    auto *form = new QFormLayout;
    form->addRow(tr("To topic"), m_topic);
    form->addRow(tr("Confirm"), m_confirm);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    auto *close = new QPushButton(tr("Close"), this);
    for (QPushButton *b : {m_dryRunButton, m_replay, m_cancel, close})
        buttons->addWidget(b);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addLayout(buttons);
    connect(m_topic, &QLineEdit::textChanged, this, [this] {
        m_dry.reset(); // another topic: another dry run
        updateButtons();
    });
    connect(m_confirm, &QLineEdit::textChanged, this, &RedriveDialog::updateButtons);
    connect(m_dryRunButton, &QPushButton::clicked, this, &RedriveDialog::dryRun);
    connect(m_replay, &QPushButton::clicked, this, &RedriveDialog::runReplay);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_jobs.requestCancel();
        m_cancel->setEnabled(false);
    });
    connect(close, &QPushButton::clicked, this, &QDialog::reject);
    updateButtons();
    dryRun();
}

QString RedriveDialog::summaryText() const {
    return m_summary->text();
}

void RedriveDialog::updateButtons() {
    m_dryRunButton->setEnabled(!m_running);
    m_topic->setEnabled(!m_running);
    m_replay->setEnabled(!m_running && m_dry && m_dry->produced > 0 &&
                         m_dry->streams.contains(m_confirm->text().trimmed()));
    m_cancel->setVisible(m_running);
    m_progress->setVisible(m_running);
}

void RedriveDialog::dryRun() {
    if (m_running)
        return;
    m_running = true;
    updateButtons();
    m_summary->setText(tr("Dry run: checking the records' clusters and topics\u2026"));
    DlqProduceOptions o;
    o.topic = m_topic->text().trimmed();
    m_jobs.start(
        [db = m_db, spec = m_spec, sel = m_selection, o]() { return produceDlq(db, spec, sel, o); },
        [this](Result<DlqProduceResult> r) {
            m_running = false;
            if (!r) {
                m_dry.reset();
                m_summary->setText(tr("Cannot replay to Kafka: %1").arg(r.error().message));
                updateButtons();
                Q_EMIT failed(r.error().message);
                return;
            }
            m_dry = *r;
            QStringList lines{
                tr("%1 record(s) selected: %2 to produce, %3 skipped (replayed or discarded).")
                    .arg(fmt::number(r->selected), fmt::number(r->produced),
                         fmt::number(r->skipped))};
            for (const auto &[topic, n] : r->byTopic)
                lines << tr("  \u2192 %1: %2").arg(topic, fmt::number(n));
            lines << tr("Key and headers are kept, Kafka Connect's __connect.errors.* headers "
                        "dropped and a rewind.dlq.id header added. "
                        "A record turns replayed once the broker acknowledges it.");
            if (!r->streams.isEmpty())
                lines << tr("Type %1 to confirm.").arg(r->streams.join(tr(" or ")));
            m_summary->setText(lines.join(u'\n'));
            updateButtons();
            Q_EMIT dryRunFinished();
        });
}

void RedriveDialog::runReplay() {
    if (m_running || !m_dry || !m_dry->streams.contains(m_confirm->text().trimmed()))
        return;
    m_running = true;
    updateButtons();
    m_progress->setRange(0, int(std::min<qint64>(std::max<qint64>(m_dry->produced, 1), INT_MAX)));
    m_progress->setValue(0);
    DlqProduceOptions o;
    o.execute = true;
    o.topic = m_topic->text().trimmed();
    o.batchSize = m_batchSize;
    o.maxPerSecond = m_maxPerSecond;
    m_jobs.start(
        [this, db = m_db, spec = m_spec, sel = m_selection, o](const JobToken &job) mutable {
            o.cancel = job.cancelFlag();
            o.progress = [this, job](const DlqProduceProgress &p) {
                job.post([this, p] {
                    m_progress->setValue(int(std::min<qint64>(p.produced + p.failed, INT_MAX)));
                });
            };
            return produceDlq(db, spec, sel, o);
        },
        [this](Result<DlqProduceResult> r) {
            m_running = false;
            m_dry.reset();
            m_confirm->clear();
            updateButtons();
            if (!r) {
                m_summary->setText(tr("Replay to Kafka failed: %1").arg(r.error().message));
                Q_EMIT failed(r.error().message);
                return;
            }
            m_result = *r;
            m_summary->setText(
                (r->cancelled
                     ? tr("Cancelled after %1 batch(es): %2 produced and acknowledged, %3 refused.")
                     : tr("Done in %1 batch(es): %2 produced and acknowledged, %3 refused."))
                    .arg(r->batches)
                    .arg(fmt::number(r->produced), fmt::number(r->failed)));
            Q_EMIT replayed(*r);
        });
}

} // namespace rw
