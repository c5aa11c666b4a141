#include "ui/dlq/dlqactionbar.h"

#include "ui/common/style.h"

#include <QCheckBox>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace rw {

DlqActionBar::DlqActionBar(QWidget *parent)
    : QWidget(parent)
    , m_allMatching(new QCheckBox(this))
    , m_validate(new QPushButton(tr("Validate"), this))
    , m_batchSize(new QSpinBox(this))
    , m_velocity(new QSpinBox(this))
    , m_replay(new QPushButton(tr("Replay"), this))
    , m_replayToTopic(new QPushButton(tr("Replay to topic\u2026"), this))
    , m_reason(new QLineEdit(this))
    , m_discard(new QPushButton(tr("Discard"), this))
    , m_progressFrame(new QFrame(this))
    , m_progress(new QProgressBar(this))
    , m_progressText(new QLabel(this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_pendingBar(new QFrame(this))
    , m_pendingText(new QLabel(this))
    , m_applySet(new QPushButton(tr("Apply"), this))
    , m_dropSet(new QPushButton(tr("Cancel"), this))
    , m_result(new QLabel(this)) {
    // The rows stand in the records box's column: same margins and spacing.
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);
    m_allMatching->setObjectName(QStringLiteral("dlqAllMatching"));
    m_allMatching->setToolTip(tr("Apply the actions to every record of the signature and status "
                                 "chosen, not only the selected rows"));
    m_validate->setObjectName(QStringLiteral("dlqValidate"));
    m_validate->setToolTip(tr("Dry run: check each record as a replay would (JSON, required "
                              "fields, checks); nothing is written"));
    m_batchSize->setObjectName(QStringLiteral("dlqBatchSize"));
    m_batchSize->setRange(1, 100000);
    m_batchSize->setValue(500);
    m_batchSize->setToolTip(tr("Records per transaction"));
    m_velocity->setObjectName(QStringLiteral("dlqVelocity"));
    m_velocity->setRange(0, 1000000);
    m_velocity->setValue(0);
    m_velocity->setSpecialValueText(tr("unlimited"));
    m_velocity->setSuffix(tr(" rec/s"));
    m_velocity->setToolTip(
        tr("Velocity: replay at most this many records per second (0: as fast as possible)"));
    m_replay->setObjectName(QStringLiteral("dlqReplay"));
    m_replay->setToolTip(tr("Write the valid records where they belong (a stream's sink by "
                            "event_id, a dataset's target by key); "
                            "the invalid ones become failed"));
    m_replayToTopic->setObjectName(QStringLiteral("dlqReplayToTopic"));
    m_replayToTopic->setToolTip(tr("Produce the records back to Kafka (each to its original topic, "
                                   "or one you name) instead of the sink; "
                                   "a dry run first"));
    m_reason->setObjectName(QStringLiteral("dlqReason"));
    m_reason->setPlaceholderText(tr("reason (required to discard)"));
    m_reason->setClearButtonEnabled(true);
    m_discard->setObjectName(QStringLiteral("dlqDiscard"));
    m_discard->setToolTip(
        tr("Mark the records discarded with the reason; they stay in the DLQ with their history"));

    auto *actions = new QHBoxLayout;
    actions->setSpacing(6);
    actions->addWidget(m_allMatching);
    actions->addSpacing(8);
    actions->addWidget(m_validate);
    actions->addSpacing(16);
    actions->addWidget(new QLabel(tr("Batch"), this));
    actions->addWidget(m_batchSize);
    actions->addWidget(new QLabel(tr("Velocity"), this));
    actions->addWidget(m_velocity);
    actions->addWidget(m_replay);
    actions->addWidget(m_replayToTopic);
    actions->addStretch(1);
    layout->addLayout(actions);
    auto *discard = new QHBoxLayout;
    discard->setSpacing(6);
    discard->addWidget(new QLabel(tr("Discard with a reason:"), this));
    discard->addWidget(m_reason, 1);
    discard->addWidget(m_discard);
    layout->addLayout(discard);

    // Replay progress with Cancel.
    m_progressFrame->setObjectName(QStringLiteral("dlqProgress"));
    m_progressFrame->setStyleSheet(style::panelStyleSheet(
        QStringLiteral("dlqProgress"), style::Colour::InfoTint, style::Colour::InfoBorder));
    m_progress->setFormat(tr("%v of %m records"));
    m_progressText->setStyleSheet(style::textColour(style::Colour::Subtitle));
    m_cancel->setObjectName(QStringLiteral("dlqCancel"));
    m_cancel->setToolTip(
        tr("Stop at the next batch boundary; the batches already committed stay replayed"));
    auto *pl = new QHBoxLayout(m_progressFrame);
    pl->setContentsMargins(8, 4, 8, 4);
    pl->addWidget(m_progress, 2);
    pl->addWidget(m_progressText, 3);
    pl->addWidget(m_cancel);
    m_progressFrame->hide();
    layout->addWidget(m_progressFrame);

    // The set-by-path dry run, waiting for Apply.
    m_pendingBar->setObjectName(QStringLiteral("dlqPendingSet"));
    m_pendingBar->setStyleSheet(style::panelStyleSheet(
        QStringLiteral("dlqPendingSet"), style::Colour::WarningTint, style::Colour::WarningBorder));
    m_pendingText->setTextFormat(Qt::RichText);
    m_pendingText->setWordWrap(true);
    m_applySet->setObjectName(QStringLiteral("dlqApplySet"));
    auto *bl = new QHBoxLayout(m_pendingBar);
    bl->setContentsMargins(8, 4, 8, 4);
    bl->addWidget(m_pendingText, 1);
    bl->addWidget(m_applySet);
    bl->addWidget(m_dropSet);
    m_pendingBar->hide();
    layout->addWidget(m_pendingBar);

    m_result->setObjectName(QStringLiteral("dlqResult"));
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_result);
}

} // namespace rw
