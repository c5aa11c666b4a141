#include "ui/streams/replaydialog.h"

#include "ui/common/format.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>
#include <limits>

namespace rw {

ReplayDialog::ReplayDialog(const ReplayResult &dryRun, const QString &sink, QWidget *parent)
    : QDialog(parent)
    , m_summary(new QLabel(this))
    , m_max(new QSpinBox(this))
    , m_batch(new QSpinBox(this))
    , m_replay(new QPushButton(tr("Replay"), this)) {
    setObjectName(QStringLiteral("replayDialog"));
    setWindowTitle(tr("Replay %1 for group %2").arg(dryRun.stream, dryRun.group));
    setMinimumWidth(520);

    QString rows;
    for (const ReplayPartition &p : dryRun.partitions)
        if (p.to > p.from)
            rows += tr("<tr><td>partition %1</td><td align='right'>%2 \u2192 %3</td><td "
                       "align='right'>%4 events</td></tr>")
                        .arg(p.partition)
                        .arg(fmt::number(p.from), fmt::number(p.to), fmt::number(p.consumed));
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_summary->setObjectName(QStringLiteral("replaySummary"));
    m_summary->setText(tr("<h3>Replay %1 into %2</h3>"
                          "<p>Dry run from the committed offsets of <b>%3</b> to the log end: "
                          "<b>%4</b> events to consume; "
                          "<b>%5</b> would be inserted, <b>%6</b> skipped as duplicates (their "
                          "event_id is in the sink), "
                          "<b>%7</b> dead-lettered.</p><table cellspacing='4'>%8</table>"
                          "<p>Each batch commits its sink rows, DLQ records and offsets together; "
                          "Cancel stops at a batch "
                          "boundary and a later replay continues from there.</p>")
                           .arg(dryRun.stream.toHtmlEscaped(), sink.toHtmlEscaped(),
                                dryRun.group.toHtmlEscaped(), fmt::number(dryRun.consumed),
                                fmt::number(dryRun.inserted), fmt::number(dryRun.duplicates),
                                fmt::number(dryRun.deadLettered), rows));

    m_max->setObjectName(QStringLiteral("replayMaxEvents"));
    m_max->setRange(0, std::numeric_limits<int>::max());
    m_max->setSpecialValueText(tr("all"));
    m_max->setGroupSeparatorShown(true);
    m_batch->setObjectName(QStringLiteral("replayBatchSize"));
    m_batch->setRange(1, 10'000'000);
    m_batch->setValue(int(rw::kDefaultReplayBatchSize));
    m_batch->setGroupSeparatorShown(true);
    auto *form = new QFormLayout;
    form->addRow(tr("At most (events)"), m_max);
    form->addRow(tr("Batch size (events per transaction)"), m_batch);

    auto *buttons = new QDialogButtonBox(this);
    m_replay->setObjectName(QStringLiteral("replayConfirm"));
    m_replay->setEnabled(dryRun.consumed > 0);
    buttons->addButton(m_replay, QDialogButtonBox::AcceptRole);
    buttons->addButton(QDialogButtonBox::Cancel);
    connect(m_replay, &QPushButton::clicked, this, &ReplayDialog::confirm);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addLayout(form);
    layout->addWidget(buttons);
}

qint64 ReplayDialog::maxEvents() const {
    return m_max->value();
}
qint64 ReplayDialog::batchSize() const {
    return m_batch->value();
}
void ReplayDialog::setMaxEvents(qint64 n) {
    m_max->setValue(int(std::min<qint64>(n, std::numeric_limits<int>::max())));
}
void ReplayDialog::setBatchSize(qint64 n) {
    m_batch->setValue(int(std::min<qint64>(n, 10'000'000)));
}

QString ReplayDialog::summaryText() const {
    QString plain = m_summary->text();
    plain.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    return plain;
}

void ReplayDialog::confirm() {
    if (!m_replay->isEnabled())
        return;
    Q_EMIT confirmed(maxEvents(), batchSize());
    accept();
}

} // namespace rw
