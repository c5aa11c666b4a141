#pragma once

#include "core/dlq/dlq.h"
#include "core/dlq/kafkadlq.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"
#include "ui/common/jobtracker.h"

#include <QDialog>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace rw {

// Imports a Kafka stream's dead-letter topic (kafka.dlq_topic) into the DLQ:
// the stream chosen, a count first (the dry run), then Import with progress
// and Cancel (at a batch boundary; what was imported stays). Every cluster
// call runs off the GUI thread, bounded by REWIND_KAFKA_TIMEOUT_MS.
class ImportTopicDialog : public QDialog {
    Q_OBJECT
public:
    ImportTopicDialog(const Database &db, const Spec &spec, QWidget *parent = nullptr);

    QComboBox *streamBox() const { return m_stream; }
    QPushButton *countButton() const { return m_count; }
    QPushButton *importButton() const { return m_import; }
    QPushButton *cancelButton() const { return m_cancel; }
    QString statusText() const;
    const std::optional<DlqImportResult> &result() const { return m_result; }

    void count();
    void runImport();

Q_SIGNALS:
    void counted();
    void imported(qint64 records);
    void failed(const QString &message);

private:
    const StreamSpec *chosen() const;
    void setRunning(bool running);

    Database m_db;
    Spec m_spec;
    QComboBox *m_stream;
    QLabel *m_status;
    QProgressBar *m_progress;
    QPushButton *m_count;
    QPushButton *m_import;
    QPushButton *m_cancel;
    std::optional<DlqImportResult> m_dryRun;
    std::optional<DlqImportResult> m_result;
    bool m_running = false;
    JobTracker m_jobs{this};
};

// Produces selected DLQ records back to Kafka after the dry run: the topics
// and counts, an optional topic for all of them (else each record's
// original), and a confirmation with a stream's name typed (the stream the
// records belong to, naming the cluster). Replay with progress and Cancel.
class RedriveDialog : public QDialog {
    Q_OBJECT
public:
    RedriveDialog(const Database &db, const Spec &spec, const DlqSelection &selection,
                  qint64 batchSize, std::optional<double> maxPerSecond, QWidget *parent = nullptr);

    QLineEdit *topicEdit() const { return m_topic; }
    QLineEdit *confirmEdit() const { return m_confirm; }
    QPushButton *dryRunButton() const { return m_dryRunButton; }
    QPushButton *replayButton() const { return m_replay; }
    QString summaryText() const;
    const std::optional<DlqProduceResult> &result() const { return m_result; }

    void dryRun();
    void runReplay();

Q_SIGNALS:
    void dryRunFinished();
    void replayed(const DlqProduceResult &result);
    void failed(const QString &message);

private:
    void updateButtons();

    Database m_db;
    Spec m_spec;
    DlqSelection m_selection;
    qint64 m_batchSize;
    std::optional<double> m_maxPerSecond;
    QStringList m_streams; // the Kafka streams whose records are selected
    QLabel *m_summary;
    QLineEdit *m_topic;
    QLineEdit *m_confirm;
    QProgressBar *m_progress;
    QPushButton *m_dryRunButton;
    QPushButton *m_replay;
    QPushButton *m_cancel;
    std::optional<DlqProduceResult> m_dry;
    std::optional<DlqProduceResult> m_result;
    bool m_running = false;
    JobTracker m_jobs{this};
};

} // namespace rw
