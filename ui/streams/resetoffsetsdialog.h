#pragma once

#include "core/sql/database.h"
#include "core/streams/offsets.h"
#include "core/workspace/spec.h"
#include "ui/common/jobtracker.h"

#include <QDialog>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QStackedWidget;
class QTableView;

namespace rw {

class ResetPlanModel;

// Resets a consumer group's offsets the way kafka-consumer-groups does:
// every reset rewindctl offsets-reset takes (to-earliest, to-latest,
// to-current, to-offset, shift-by, to-datetime, by-duration, from-file) and a
// partition selector. "Dry run" computes the plan off the GUI thread and
// shows it (partition, current, new, events to replay); "Apply" is enabled
// only for a dry run of the current inputs once the group name is typed, and
// applies the same request in one audited transaction.
class ResetOffsetsDialog : public QDialog {
    Q_OBJECT
public:
    enum class Method {
        ToEarliest,
        ToLatest,
        ToCurrent,
        ToOffset,
        ShiftBy,
        ToDatetime,
        ByDuration,
        FromFile
    };

    ResetOffsetsDialog(const Database &db, const StreamSpec &stream, const QString &group,
                       const std::vector<PartitionOffsets> &partitions, QWidget *parent = nullptr);

    // Inputs, as the operator would set them.
    void setMethod(Method method);
    void setValue(const QString &text); // the offset, shift, timestamp, duration or CSV path
    void setPartitions(const std::vector<qint64> &partitions); // empty: every partition
    // The request the inputs describe; an input error names the field.
    Result<ResetRequest> request() const;

    void dryRun();
    void apply();
    bool canApply() const;

    ResetPlanModel *planModel() const { return m_model; }
    const std::optional<ResetPlan> &dryRunPlan() const { return m_dryRun; }
    const std::optional<ResetPlan> &appliedPlan() const { return m_applied; }
    QLineEdit *confirmEdit() const { return m_confirm; }
    QPushButton *dryRunButton() const { return m_dryRunButton; }
    QPushButton *applyButton() const { return m_applyButton; }
    QString stateText() const;
    bool isBusy() const { return m_busy; }

Q_SIGNALS:
    void dryRunFinished();
    void applied(const rw::ResetPlan &plan);
    void failed(const QString &message);

private:
    void invalidate();
    void updateButtons();
    void setState(const QString &text, const QString &colour = {});
    void exportCsv();

    Database m_db;
    StreamSpec m_stream;
    QString m_group;
    std::optional<ResetPlan> m_dryRun;
    std::optional<ResetRequest> m_dryRunRequest;
    std::optional<ResetPlan> m_applied;
    bool m_busy = false;
    bool m_applying = false; // inputs are frozen until the answer is in
    // Dry runs and the apply: a newer request drops the older answer.
    JobTracker m_planJobs{this};

    QComboBox *m_method;
    QStackedWidget *m_valueStack;
    QLineEdit *m_offset;
    QLineEdit *m_shift;
    QLineEdit *m_datetime;
    QLineEdit *m_duration;
    QLineEdit *m_file;
    QListWidget *m_partitions;
    QTableView *m_view;
    ResetPlanModel *m_model;
    QLabel *m_summary;
    QLabel *m_state;
    QLabel *m_confirmLabel;
    QLineEdit *m_confirm;
    QPushButton *m_dryRunButton;
    QPushButton *m_applyButton;
    QPushButton *m_exportButton;
};

} // namespace rw
