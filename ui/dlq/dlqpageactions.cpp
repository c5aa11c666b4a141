// The dead-letter queue page's actions on the selection: validate, replay
// (with progress and Cancel), discard, a payload fix and set-by-path, each
// off the GUI thread, and how their outcome is reported. Loading and
// showing the records is dlqpage.cpp.
#include "ui/common/format.h"
#include "ui/common/stattile.h"
#include "ui/common/style.h"
#include "ui/dlq/dlqactionbar.h"
#include "ui/dlq/dlqgroupsmodel.h"
#include "ui/dlq/dlqhistorymodel.h"
#include "ui/dlq/dlqpage.h"
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

const QString kOperationValidate = QStringLiteral("validate");
const QString kOperationReplay = QStringLiteral("replay");
const QString kOperationDiscard = QStringLiteral("discard");
const QString kOperationFix = QStringLiteral("fix");
const QString kOperationSet = QStringLiteral("set");

QString shortPayload(const QByteArray &bytes) {
    QString text = QString::fromUtf8(bytes.left(160)).simplified();
    if (bytes.size() > 160)
        text += u'\u2026';
    return text.toHtmlEscaped();
}

} // namespace

void DlqPage::showResult(bool ok, const QString &message) {
    m_actions->result()->setStyleSheet(ok ? style::textColour(style::Colour::Ok)
                                          : style::textColour(style::Colour::Error));
    m_actions->result()->setText(message);
}

void DlqPage::finishOperation(const QString &operation, bool ok, const QString &message,
                              const QList<qint64> &touched) {
    setBusy(false);
    showResult(ok, message);
    // A replay writes even when records fail (they become failed) or when it
    // stops early (the committed batches stay); the others write only on success.
    const bool wrote = operation == kOperationReplay || (ok && operation != kOperationValidate);
    if (wrote) {
        // What changed: the rows in place, the counts, the record on show.
        if (m_actions->allMatching()->isChecked() || touched.isEmpty())
            m_records->reload();
        else
            m_records->refreshRecords(touched);
        loadSummary();
        // The record asked for last, not the one on show: a record selected
        // just before the operation may still be loading, and reloading the
        // one on show would drop it (its history never shown).
        if (m_detailId != 0)
            loadDetail(m_detailId);
    }
    Q_EMIT operationFinished(operation, ok, message);
}

void DlqPage::validateSelection() {
    if (!m_db || !m_spec || m_busy || selectionSize() == 0)
        return;
    const DlqSelection selection = actionSelection();
    DlqReplayOptions options;
    options.execute = false;
    options.batchSize = m_actions->batchSize()->value();
    options.maxRecords = int(std::clamp<qint64>(
        std::max<qint64>(selection.ids.size(), m_records->rowCount()), 1, 100000));
    setBusy(true);
    showResult(true, tr("Validating\u2026"));
    tasks().start([db = *m_db, spec = *m_spec, selection,
                   options] { return replayDlq(db, spec, selection, options); },
                  [this](Result<DlqReplayResult> result) {
                      if (!result)
                          return finishOperation(
                              kOperationValidate, false,
                              tr("Validation failed: %1").arg(result.error().message), {});
                      m_records->setVerdicts(result->records);
                      m_lastReplay = *result;
                      QStringList why;
                      for (const auto &[cls, n] : result->failuresByClass)
                          why << QStringLiteral("%1 %2").arg(fmt::number(n), cls);
                      QString message =
                          tr("Dry run of %1 records: %2 valid, would be replayed (%3 already "
                             "landed); %4 still invalid%5; %6 skipped "
                             "(replayed or discarded). Nothing was written.")
                              .arg(fmt::number(result->selected), fmt::number(result->replayed),
                                   fmt::number(result->alreadyLanded), fmt::number(result->failed),
                                   why.isEmpty() ? QString()
                                                 : QString(QStringLiteral(" (") %
                                                           why.join(QStringLiteral(", ")) % u')'),
                                   fmt::number(result->skipped));
                      finishOperation(kOperationValidate, true, message, {});
                  });
}

void DlqPage::replaySelection() {
    if (!m_db || !m_spec || m_busy || selectionSize() == 0)
        return;
    const DlqSelection selection = actionSelection();
    const QList<qint64> touched = selection.ids;
    const qint64 expected = selectionSize();
    DlqReplayOptions options;
    options.execute = true;
    options.batchSize = m_actions->batchSize()->value();
    if (m_actions->velocity()->value() > 0)
        options.maxPerSecond = double(m_actions->velocity()->value());
    options.maxRecords = int(std::clamp<qint64>(selection.ids.size(), 1000, 100000));
    setBusy(true);
    m_actions->progress()->setRange(0,
                                    int(std::min<qint64>(std::max<qint64>(expected, 1), INT_MAX)));
    m_actions->progress()->setValue(0);
    m_actions->progressText()->setText(options.maxPerSecond
                                           ? tr("starting \u00b7 at most %1 records/s")
                                                 .arg(fmt::number(m_actions->velocity()->value()))
                                           : tr("starting"));
    m_actions->cancelButton()->setEnabled(true);
    m_actions->progressFrame()->show();
    showResult(true, tr("Replaying\u2026"));
    m_replayJobs.start(
        [this, db = *m_db, spec = *m_spec, selection, options](const JobToken &job) mutable {
            // Worker thread: each report after a committed batch is posted
            // back; `this` is only touched there, while this replay is current.
            options.progress = [this, job](const DlqReplayProgress &p) {
                job.post([this, p] { onReplayProgress(p); });
            };
            options.cancel = job.cancelFlag();
            return replayDlq(db, spec, selection, options);
        },
        [this, touched](Result<DlqReplayResult> result) {
            m_actions->progressFrame()->hide();
            if (!result)
                return finishOperation(kOperationReplay, false,
                                       tr("Replay failed: %1").arg(result.error().message),
                                       touched);
            m_lastReplay = *result;
            m_records->setVerdicts(result->records);
            const QString head = result->status == DlqReplayStatus::Cancelled
                                     ? tr("Replay cancelled after %1 batches:").arg(result->batches)
                                     : tr("Replay done in %1:").arg(fmt::duration(result->seconds));
            const QString message =
                head % u' ' %
                tr("%1 replayed (%2 inserted, %3 updated, %4 already there), %5 failed, %6 "
                   "skipped.")
                    .arg(fmt::number(result->replayed), fmt::number(result->inserted),
                         fmt::number(result->updated), fmt::number(result->alreadyLanded),
                         fmt::number(result->failed), fmt::number(result->skipped));
            finishOperation(kOperationReplay, result->failed == 0, message, touched);
        });
}

void DlqPage::onReplayProgress(const DlqReplayProgress &p) {
    m_actions->progress()->setRange(
        0, int(std::min<qint64>(std::max<qint64>(p.selected, 1), INT_MAX)));
    m_actions->progress()->setValue(int(std::min<qint64>(p.processed, INT_MAX)));
    m_actions->progressText()->setText(tr("batch %1 \u00b7 replayed %2 \u00b7 failed %3")
                                           .arg(p.batchesDone)
                                           .arg(fmt::number(p.replayed), fmt::number(p.failed)));
    Q_EMIT replayProgressed(p.processed, p.selected);
}

void DlqPage::cancelReplay() {
    if (!m_replayJobs.isRunning())
        return;
    m_replayJobs.requestCancel();
    m_actions->cancelButton()->setEnabled(false);
    m_actions->progressText()->setText(tr("cancelling at the next batch boundary\u2026"));
}

void DlqPage::discardSelection() {
    const QString reason = m_actions->reason()->text().trimmed();
    if (!m_db || m_busy || selectionSize() == 0)
        return;
    if (reason.isEmpty()) {
        showResult(false, tr("Type a reason to discard: it is kept in each record's history."));
        m_actions->reason()->setFocus();
        return;
    }
    const DlqSelection selection = actionSelection();
    setBusy(true);
    tasks().start(
        [db = *m_db, selection, reason] { return discardDlq(db, selection, reason, true); },
        [this, selection](Result<DlqDiscardResult> result) {
            if (!result)
                return finishOperation(kOperationDiscard, false,
                                       tr("Discard refused: %1").arg(result.error().message),
                                       selection.ids);
            m_actions->reason()->clear();
            finishOperation(
                kOperationDiscard, true,
                tr("%1 records discarded; they stay in the DLQ with the reason in their history.")
                    .arg(fmt::number(result->selected)),
                selection.ids);
        });
}

void DlqPage::saveFix(qint64 id, const QByteArray &payload) {
    if (!m_db || m_busy || id == 0)
        return;
    DlqFixRequest request;
    request.selection.ids = {id};
    request.payload = payload;
    request.reason = tr("edited in the console");
    request.execute = true;
    setBusy(true);
    tasks().start([db = *m_db, request] { return fixDlq(db, request); },
                  [this, id](Result<DlqFixResult> result) {
                      if (!result)
                          return finishOperation(
                              kOperationFix, false,
                              tr("Fix of #%1 refused: %2").arg(id).arg(result.error().message),
                              {id});
                      finishOperation(kOperationFix, true,
                                      tr("Record #%1 fixed: its payload is saved and its status is "
                                         "fixed. Validate or replay it next.")
                                          .arg(id),
                                      {id});
                  });
}

void DlqPage::previewSetPath(const QString &path, const QString &value) {
    if (!m_db || m_busy || selectionSize() == 0)
        return;
    DlqFixRequest request;
    request.selection = actionSelection();
    request.sets = {{path, value}};
    request.reason = tr("set in the console");
    request.execute = false;
    m_pendingSet.reset();
    m_actions->pendingBar()->hide();
    setBusy(true);
    tasks().start(
        [db = *m_db, request] { return fixDlq(db, request); },
        [this, request, path, value](Result<DlqFixResult> result) {
            if (!result)
                return finishOperation(kOperationSet, false,
                                       tr("Cannot set %1: %2").arg(path, result.error().message),
                                       {});
            setBusy(false);
            m_pendingSet = request;
            m_pendingSet->execute = true;
            QString text = tr("Set <b>%1</b> = <b>%2</b> on %3 records: %4 would change.")
                               .arg(path.toHtmlEscaped(), value.toHtmlEscaped(),
                                    fmt::number(result->selected), fmt::number(result->changed));
            if (!result->samples.empty()) {
                const DlqChange &c = result->samples.front();
                text +=
                    QStringLiteral("<br>") %
                    style::coloured(QStringLiteral("#%1: <code>%2</code> \u2192 <code>%3</code>")
                                        .arg(c.id)
                                        .arg(shortPayload(c.before), shortPayload(c.after)),
                                    style::Colour::Muted);
            }
            m_actions->pendingText()->setText(text);
            m_actions->applySetButton()->setEnabled(result->selected > 0);
            m_actions->pendingBar()->show();
            showResult(true, tr("Dry run: nothing changed yet. Apply to store it."));
        });
}

void DlqPage::applyPendingSet() {
    if (!m_db || m_busy || !m_pendingSet)
        return;
    const DlqFixRequest request = *m_pendingSet;
    m_pendingSet.reset();
    m_actions->pendingBar()->hide();
    setBusy(true);
    tasks().start(
        [db = *m_db, request] { return fixDlq(db, request); },
        [this, request](Result<DlqFixResult> result) {
            const QString path = request.sets.front().first;
            if (!result)
                return finishOperation(kOperationSet, false,
                                       tr("Cannot set %1: %2").arg(path, result.error().message),
                                       request.selection.ids);
            finishOperation(
                kOperationSet, true,
                tr("%1 set on %2 records (%3 changed); they are fixed. Validate or replay them "
                   "next.")
                    .arg(path, fmt::number(result->selected), fmt::number(result->changed)),
                request.selection.ids);
        });
}

} // namespace rw
