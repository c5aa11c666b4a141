#include "ui/batch/liverunwidget.h"

#include "ui/batch/runmanager.h"
#include "ui/common/format.h"
#include "ui/common/style.h"

#include <QGridLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace rw {

LiveRunWidget::LiveRunWidget(int liveRunId, QWidget *parent)
    : QFrame(parent)
    , m_id(liveRunId)
    , m_title(new QLabel(this))
    , m_detail(new QLabel(this))
    , m_overall(new QProgressBar(this))
    , m_partition(new QProgressBar(this))
    , m_cancel(new QPushButton(tr("Cancel"), this)) {
    setObjectName(QStringLiteral("liveRun"));
    setFrameShape(QFrame::StyledPanel);
    setStyleSheet(style::panelStyleSheet(QStringLiteral("liveRun"), style::Colour::InfoTint,
                                         style::Colour::InfoBorder));
    QFont f = m_title->font();
    f.setBold(true);
    m_title->setFont(f);
    m_detail->setStyleSheet(style::textColour(style::Colour::Subtitle));
    m_overall->setFormat(tr("%v of %m partitions"));
    m_partition->setRange(0, 4);
    m_partition->setFormat(tr("current partition: step %v of %m"));
    m_partition->setMaximumHeight(14);
    m_partition->setTextVisible(false);
    m_cancel->setObjectName(QStringLiteral("cancelRun"));
    m_cancel->setToolTip(tr("Stop after rolling back the partition in progress; published "
                            "partitions stay, and the run can be resumed"));
    connect(m_cancel, &QPushButton::clicked, this, [this] { Q_EMIT cancelRequested(m_id); });

    auto *grid = new QGridLayout(this);
    grid->setContentsMargins(10, 8, 10, 8);
    grid->addWidget(m_title, 0, 0);
    grid->addWidget(m_cancel, 0, 1, 2, 1, Qt::AlignRight | Qt::AlignVCenter);
    grid->addWidget(m_overall, 1, 0);
    grid->addWidget(m_partition, 2, 0);
    grid->addWidget(m_detail, 3, 0, 1, 2);
    grid->setColumnStretch(0, 1);
}

QString LiveRunWidget::detailText() const {
    return m_detail->text();
}

void LiveRunWidget::update(const LiveRun &run) {
    m_title->setText(run.resumedRunId
                         ? tr("Resuming run #%1 of %2").arg(run.resumedRunId).arg(run.dataset)
                         : tr("Run of %1  \u00b7  plan %2").arg(run.dataset, run.planId));
    const Progress &p = run.progress;
    m_overall->setRange(0, std::max(1, p.partitionsTotal));
    m_overall->setValue(std::min(p.partitionsDone, std::max(1, p.partitionsTotal)));
    m_partition->setValue(run.phaseStep());
    const double eta = run.etaSeconds();
    QStringList parts;
    parts << tr("status %1").arg(run.statusText());
    if (!p.partition.isEmpty())
        parts << tr("partition %1 (%2)").arg(p.partition, p.phase);
    parts << tr("%1 rows/s").arg(fmt::number(qint64(run.rowsPerSecond() + 0.5)));
    parts << (eta < 0 ? tr("ETA \u2014") : tr("ETA %1").arg(fmt::duration(eta)));
    parts << tr("elapsed %1").arg(fmt::duration(run.clock.elapsed() / 1000.0));
    m_detail->setText(parts.join(QStringLiteral("  \u00b7  ")));
    m_cancel->setEnabled(!run.finished && !run.cancelRequested);
}

} // namespace rw
